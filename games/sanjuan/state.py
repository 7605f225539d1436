"""The full state of a San Juan game: every card's place, whose decision is pending, and nothing else.

Slotted classes with a hand-written `copy`, because bots copy states thousands of times a second.
`dump`/`load` turn a state into plain data (lists, dicts, ints, strings) and back.
"""
from __future__ import annotations

from collections.abc import Sequence

from games.blind import Looked, Sight

from .cards import CARD_KIND, cathedral_id

ROLES = ("builder", "producer", "trader", "councillor", "prospector")

# A pending decision: (kind, options, lo, hi). The seat picks between lo and hi distinct options,
# and every such pick is legal: all constraints are folded into the options and the bounds.
Decision = tuple[str, tuple, int, int]

# card -> kind number: a plain table, or on a blind table the table read through a party's sight.
Kinds = Sequence[int] | Looked

# A build under way: (card, the building its crane covers or None, the goods the black market discards).
Build = tuple[int, int | None, tuple[int, ...]]


class Player:
    __slots__ = ("hand", "city", "covered", "goods", "chapel", "bank", "harbor", "drawn",
                 "active", "library_used")

    def __init__(self) -> None:
        self.hand: list[int] = []
        self.city: list[int] = []          # uncovered buildings, in build order
        self.covered: list[int] = []       # buildings covered with a crane, out of play
        self.goods: dict[int, int] = {}    # production building id -> face-down good card
        self.chapel: list[int] = []
        self.bank: list[int] = []          # a bank is used once a game: while empty, it is not
        self.harbor: list[int] = []
        self.drawn: list[int] = []         # councillor draws waiting for the keep decision
        self.active: frozenset[int] = frozenset()  # kinds whose function works now
        self.library_used = False          # two players: the library works once a round

    def copy(self) -> "Player":
        p = Player.__new__(Player)
        p.hand = self.hand[:]
        p.city = self.city[:]
        p.covered = self.covered[:]
        p.goods = self.goods.copy()
        p.chapel = self.chapel[:]
        p.bank = self.bank[:]
        p.harbor = self.harbor[:]
        p.drawn = self.drawn[:]
        p.active = self.active
        p.library_used = self.library_used
        return p


class State:
    __slots__ = ("names", "expansion", "setup_variant", "kinds", "deck", "discard", "reshuffles",
                 "tiles", "tiles_turned", "players", "governor", "round", "roles_left", "taken",
                 "role", "chooser", "doubled", "stage", "order", "turn", "pending", "answers",
                 "build", "cathedral", "decisions", "over")

    def __init__(self, names, expansion: bool, setup_variant: bool) -> None:
        """A table before the deal: every card still unplaced, no governor drawn, nobody owing a
        decision. `rules.setup` deals it; `load`, the determinizer and tests fill it in."""
        self.names = tuple(names)
        self.expansion = expansion
        self.setup_variant = setup_variant
        # card -> kind: the plain table on an open table; on a blind one (games/blind.py) the table
        # seen through the party's sight, and the cards are handles where they are hidden.
        self.kinds: Kinds = CARD_KIND[expansion]
        self.deck: list[int] = []          # top of the supply is the last element
        self.discard: list[int] = []
        self.reshuffles = 0
        # Indices into cards.TILES, in stack order; on a blind table handles until each is turned.
        self.tiles: tuple[int, ...] = ()
        self.tiles_turned = 0
        self.players = [Player() for _ in self.names]
        self.governor = 0
        self.round = 1
        self.roles_left = list(ROLES)
        self.taken: list[tuple[str, int]] = []
        self.role: str | None = None
        self.chooser: int | None = None
        self.doubled = False
        self.stage = "setup"
        self.order: tuple[int, ...] = ()   # seats in turn order for the current phase
        self.turn = 0                      # index into order: whose build it is
        self.pending: dict[int, Decision] = {}   # in seat order (rules.to_act reads it so)
        self.answers: dict[int, tuple] = {}
        self.build: Build | None = None
        self.cathedral = cathedral_id(expansion)
        self.decisions = 0
        self.over = False

    def copy(self) -> "State":
        s = State.__new__(State)
        s.names = self.names
        s.expansion = self.expansion
        s.setup_variant = self.setup_variant
        s.kinds = self.kinds
        s.deck = self.deck[:]
        s.discard = self.discard[:]
        s.reshuffles = self.reshuffles
        s.tiles = self.tiles
        s.tiles_turned = self.tiles_turned
        s.players = [p.copy() for p in self.players]
        s.governor = self.governor
        s.round = self.round
        s.roles_left = self.roles_left[:]
        s.taken = self.taken[:]
        s.role = self.role
        s.chooser = self.chooser
        s.doubled = self.doubled
        s.stage = self.stage
        s.order = self.order               # replaced, never mutated
        s.turn = self.turn
        s.pending = self.pending.copy()    # values are immutable tuples
        s.answers = self.answers.copy()    # values are immutable tuples
        s.build = self.build               # replaced, never mutated
        s.cathedral = self.cathedral
        s.decisions = self.decisions
        s.over = self.over
        return s

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def blind(self) -> bool:
        """Whether this is a blind table's state (games/blind.py): its hidden cards are handles."""
        return type(self.kinds) is Looked


_PLAYER_LISTS = ("hand", "city", "covered", "chapel", "bank", "harbor", "drawn")


def dump(s: State) -> dict:
    """The whole state as plain data. `load(dump(s))` is an equal state (on a blind table, given
    the party's sight: the data holds handles and never what they are)."""
    return {
        "game": "sanjuan",
        **({"blind": True} if s.blind else {}),
        "names": list(s.names),
        "expansion": s.expansion,
        "setup_variant": s.setup_variant,
        "deck": list(reversed(s.deck)),    # plain data lists the supply top first
        "discard": list(s.discard),
        "reshuffles": s.reshuffles,
        "tiles": list(s.tiles),
        "tiles_turned": s.tiles_turned,
        "players": [
            {**{f: list(getattr(p, f)) for f in _PLAYER_LISTS},
             "goods": [[b, g] for b, g in p.goods.items()],
             "active": sorted(p.active),
             "library_used": p.library_used}
            for p in s.players
        ],
        "governor": s.governor,
        "round": s.round,
        "roles_left": list(s.roles_left),
        "taken": [list(t) for t in s.taken],
        "role": s.role,
        "chooser": s.chooser,
        "doubled": s.doubled,
        "stage": s.stage,
        "order": list(s.order),
        "turn": s.turn,
        "pending": [[seat, d[0], list(d[1]), d[2], d[3]] for seat, d in sorted(s.pending.items())],
        "answers": [[seat, list(a)] for seat, a in sorted(s.answers.items())],
        "build": list(s.build) if s.build is not None else None,
        "cathedral": s.cathedral,
        "decisions": s.decisions,
        "over": s.over,
    }


def load(data: dict, sight: Sight | None = None) -> State:
    """The state `dump` made. A blind table's state reads its cards through `sight`, the party's
    (an empty one when not given: then only the cards that are no handles can be read)."""
    s = State(data["names"], bool(data["expansion"]), bool(data["setup_variant"]))
    if data.get("blind"):
        s.kinds = Looked(CARD_KIND[s.expansion], sight if sight is not None else Sight())
    s.deck = list(reversed(data["deck"]))
    s.discard = list(data["discard"])
    s.reshuffles = data["reshuffles"]
    s.tiles = tuple(data["tiles"])
    s.tiles_turned = data["tiles_turned"]
    for p, d in zip(s.players, data["players"], strict=True):
        for f in _PLAYER_LISTS:
            setattr(p, f, list(d[f]))
        p.goods = {b: g for b, g in d["goods"]}
        p.active = frozenset(d["active"])
        p.library_used = d["library_used"]
    s.governor = data["governor"]
    s.round = data["round"]
    s.roles_left = list(data["roles_left"])
    s.taken = [tuple(t) for t in data["taken"]]
    s.role = data["role"]
    s.chooser = data["chooser"]
    s.doubled = data["doubled"]
    s.stage = data["stage"]
    s.order = tuple(data["order"])
    s.turn = data["turn"]
    # Sorted by seat: the order s.pending is kept in, whatever order the data lists them in.
    s.pending = {seat: (kind, tuple(opts), lo, hi) for seat, kind, opts, lo, hi in sorted(data["pending"])}
    s.answers = {seat: tuple(a) for seat, a in data["answers"]}
    s.build = tuple(data["build"]) if data["build"] is not None else None
    s.cathedral = data["cathedral"]
    s.decisions = data["decisions"]
    s.over = data["over"]
    return s
