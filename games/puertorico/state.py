"""The full state of a Puerto Rico game: every component's place, whose decision is pending, and
the little each phase remembers between decisions.

Slotted classes with a hand-written `copy`, because bots copy states thousands of times a second.
`dump`/`load` turn a state into plain data (lists, dicts, ints, strings) and back.
"""
from __future__ import annotations

from typing import Any

from .components import BUILDINGS, GOODS, TILE_KINDS
from .plantations import MANIFEST

# A pending decision: (seat, kind, options, lo, hi). The seat picks between lo and hi distinct
# options, and every such pick is legal: all constraints are folded into options and bounds.
Decision = tuple[int, str, tuple, int, int]


class Player:
    __slots__ = ("doubloons", "goods", "tiles", "worked", "city", "san_juan", "chips", "paper")

    def __init__(self) -> None:
        self.doubloons = 0
        self.goods = [0] * len(GOODS)          # barrels of each good on the windrose
        self.tiles = [0] * len(TILE_KINDS)     # island tiles of each kind (plantations, quarries)
        self.worked = [0] * len(TILE_KINDS)    # colonists on those tiles (one circle each)
        self.city: dict[int, int] = {}         # building -> colonists on it, in build order
        self.san_juan = 0                      # colonists waiting off the circles
        self.chips = 0                         # VP in chips
        self.paper = 0                         # VP earned after the chips ran out (D9)

    def copy(self) -> "Player":
        p = Player.__new__(Player)
        p.doubloons = self.doubloons
        p.goods = self.goods[:]
        p.tiles = self.tiles[:]
        p.worked = self.worked[:]
        p.city = self.city.copy()
        p.san_juan = self.san_juan
        p.chips = self.chips
        p.paper = self.paper
        return p


class State:
    __slots__ = ("names", "players", "governor", "round", "roles", "taken", "role", "chooser",
                 "order", "turn", "pending", "stack", "row", "discard", "reshuffles", "quarries",
                 "colonist_supply", "colonist_ship", "vp_supply", "barrels", "buildings",
                 "ship_sizes", "ships", "house", "group", "stored", "wharfed", "stopped",
                 "captain_loaded", "last_round", "decisions", "over", "kinds")

    def __init__(self, names) -> None:
        """An empty table: no components out, nobody owing a decision. `table.setup` sets it
        out; `load` and the tests fill it in."""
        self.names = tuple(names)
        self.players = [Player() for _ in self.names]
        self.governor = 0
        self.round = 1
        self.roles: dict[str, int] = {}        # role card in play -> doubloons on it
        self.taken: list[tuple[str, int]] = []  # (card, seat) picked this round, in order
        self.role: str | None = None           # the role being played
        self.chooser: int | None = None        # who picked it
        self.order: tuple[int, ...] = ()       # seats in turn order from the chooser
        self.turn = 0                          # index into order: whose turn in the phase
        self.pending: Decision | None = None
        self.stack: list[int] = []             # face-down plantations, top is the last element
        self.row: list[int] = []               # face-up plantations
        self.discard: list[int] = []
        # A tile's kind, read as kinds[tile]: the manifest itself on an open table; on a blind
        # one, the manifest seen through this party's sight (games.blind.Looked), for the stack,
        # row and discard pile hold handles there. Not game data: dump leaves it out, and load
        # gives an open table's.
        self.kinds = MANIFEST
        self.reshuffles = 0
        self.quarries = 0
        self.colonist_supply = 0
        self.colonist_ship = 0
        self.vp_supply = 0                     # VP chips left
        self.barrels = [0] * len(GOODS)        # goods supply
        self.buildings = [0] * len(BUILDINGS)  # copies left on the board
        self.ship_sizes: tuple[int, ...] = ()
        self.ships: list[tuple[int | None, int]] = []   # per cargo ship: (good or None, barrels)
        self.house: list[int] = []             # goods in the trading house
        # What a phase remembers between decisions:
        self.group = 0                         # mayor: the next group of circles of the placing seat
        self.stored: tuple[str, ...] = ()     # captain: kinds the storing seat keeps in warehouses
        self.wharfed: frozenset[int] = frozenset()   # captain: seats that used their wharf
        self.stopped: frozenset[int] = frozenset()   # captain: seats that declined the wharf (D5)
        self.captain_loaded = False            # captain: the captain's privilege VP is given
        self.last_round = False                # an end trigger fired: this round is the last
        self.decisions = 0
        self.over = False

    def role_chooser(self) -> int:
        """Who chose the role being played, for what runs only during its phase."""
        assert self.chooser is not None, "no role is being played"
        return self.chooser

    def asked(self) -> Decision:
        """The decision pending, for what runs only while one is (the move back and its label)."""
        assert self.pending is not None, "no decision is pending"
        return self.pending

    def copy(self) -> "State":
        s = State.__new__(State)
        s.names = self.names
        s.players = [p.copy() for p in self.players]
        s.governor = self.governor
        s.round = self.round
        s.roles = self.roles.copy()
        s.taken = self.taken[:]
        s.role = self.role
        s.chooser = self.chooser
        s.order = self.order                   # replaced, never mutated
        s.turn = self.turn
        s.pending = self.pending               # an immutable tuple
        s.stack = self.stack[:]
        s.kinds = self.kinds                   # one party's sight, shared by all its states
        s.row = self.row[:]
        s.discard = self.discard[:]
        s.reshuffles = self.reshuffles
        s.quarries = self.quarries
        s.colonist_supply = self.colonist_supply
        s.colonist_ship = self.colonist_ship
        s.vp_supply = self.vp_supply
        s.barrels = self.barrels[:]
        s.buildings = self.buildings[:]
        s.ship_sizes = self.ship_sizes
        s.ships = self.ships[:]                # of immutable tuples
        s.house = self.house[:]
        s.group = self.group
        s.stored = self.stored
        s.wharfed = self.wharfed
        s.stopped = self.stopped
        s.captain_loaded = self.captain_loaded
        s.last_round = self.last_round
        s.decisions = self.decisions
        s.over = self.over
        return s

    @property
    def n(self) -> int:
        return len(self.players)


_PLAYER_FIELDS = ("doubloons", "goods", "tiles", "worked", "san_juan", "chips", "paper")
_PLAIN_FIELDS = ("governor", "round", "role", "chooser", "turn", "stack", "row", "discard",
                 "reshuffles", "quarries", "colonist_supply", "colonist_ship", "vp_supply",
                 "barrels", "buildings", "house", "group", "captain_loaded", "last_round",
                 "decisions", "over")


def dump(s: State) -> dict:
    """The whole state as plain data. `load(dump(s))` is an equal state."""
    data: dict[str, Any] = {"game": "puertorico", "names": list(s.names)}
    for f in _PLAIN_FIELDS:
        value = getattr(s, f)
        data[f] = list(value) if isinstance(value, list) else value
    data["players"] = [{**{f: (list(v) if isinstance(v := getattr(p, f), list) else v)
                           for f in _PLAYER_FIELDS},
                        "city": [[b, c] for b, c in p.city.items()]}
                       for p in s.players]
    data["roles"] = [[card, money] for card, money in s.roles.items()]
    data["taken"] = [list(t) for t in s.taken]
    data["order"] = list(s.order)
    data["pending"] = None if s.pending is None else [*s.pending[:2], list(s.pending[2]), *s.pending[3:]]
    data["ship_sizes"] = list(s.ship_sizes)
    data["ships"] = [list(ship) for ship in s.ships]
    data["stored"] = list(s.stored)
    data["wharfed"] = sorted(s.wharfed)
    data["stopped"] = sorted(s.stopped)
    return data


def load(data: dict) -> State:
    s = State(data["names"])
    for f in _PLAIN_FIELDS:
        value = data[f]
        setattr(s, f, list(value) if isinstance(value, list) else value)
    for p, d in zip(s.players, data["players"], strict=True):
        for f in _PLAYER_FIELDS:
            value = d[f]
            setattr(p, f, list(value) if isinstance(value, list) else value)
        p.city = {b: c for b, c in d["city"]}
    s.roles = {card: money for card, money in data["roles"]}
    s.taken = [tuple(t) for t in data["taken"]]
    s.order = tuple(data["order"])
    pending = data["pending"]
    s.pending = None if pending is None else (pending[0], pending[1], tuple(pending[2]), pending[3], pending[4])
    s.ship_sizes = tuple(data["ship_sizes"])
    s.ships = [tuple(ship) for ship in data["ships"]]
    s.stored = tuple(data["stored"])
    s.wharfed = frozenset(data["wharfed"])
    s.stopped = frozenset(data["stopped"])
    return s
