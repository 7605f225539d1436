"""San Juan rules: setup, the flow of rounds and phases, and what every building does.

The flow is a state machine. `apply` checks a decision against the pending one, then runs the
game forward until somebody owes a decision again (or the game ends). Decisions that players make
at the same time (producer, trader, councillor, round start) are collected first and resolved in
turn order from the role's chooser (the governor at round start), so the order in which answers
arrive never changes who draws which card.

Every decision is "pick between lo and hi distinct options"; all constraints live in the options
and the bounds, so any pick within them is legal. Card ids in options are the seat's own cards or
public buildings, never hidden cards.

The paths every random game runs many times make their lists in plain loops, not comprehensions:
in Python 3.11 a comprehension is a function call of its own (made and called each time). The
hottest of them take the smaller or larger of two numbers by a comparison, not with min() or
max(), and sort only a list of several: in Python 3.11 these builtins parse their arguments as
keywords, which costs many times the comparison. Rules that run rarely keep min() and max(),
which read better. What a random game costs: docs/benchmarks.md, 'Engine speed'.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.blind import is_handle, knows
from games.choice import check_pick, draw_uniform, is_back, no_back, out_of_turn, wrong_count
from games.errors import IllegalAction
from games.events import Event, Events, say
from games.text import plural, with_article

from .cards import (AQUEDUCT, ARCHIVE, BANK, BLACK_MARKET, CARPENTER,
                    CHAPEL, COST, CRANE, CUSTOMS_OFFICE, CUSTOMS_PRICE, GOLD_MINE, GOLDSMITH,
                    GOOD, GOODS, GUARD_ROOM, HARBOR, HUT, INDIGO, LIBRARY, MANIFEST, MARKET_HALL,
                    MARKET_STAND, NAME, OFFICE_BUILDING, PARK, POOR_HOUSE, PREFECTURE, PRODUCTION,
                    QUARRY, SMITHY, TAVERN, TILES, TOWER, TRADING_POST, WELL)
from .info import INFO
from .state import ROLES, Build, Decision, Kinds, Player, State

SIMULTANEOUS = frozenset({"deal", "office", "chapel", "bank", "limit", "produce", "sell", "council"})
END_BUILDINGS = 12


# ---------------------------------------------------------------- small helpers

def card_name(s: State, card: int) -> str:
    return NAME[s.kinds[card]]


def _names(kinds: Kinds, cards: Iterable[int]) -> str:
    return ", ".join([NAME[kinds[c]] for c in cards]) or "nothing"


# Event words are written only when read (games/events.py). A lambda that writes them takes as
# default values whatever may change before they are read (a loop's seat, the round, a list the
# rules go on changing), so that it writes what was so when the event happened; the conformance
# suite reads the words of random games at their end to hold every game to that. A move made by
# `random_move` has no reader at all: its `ev` is None, and every event is made only `if ev is not
# None`, since even the lambda and its values cost an eighth of a random game.


def _draw(s: State, rng, ev: list | None) -> int | None:
    """Top card of the supply; an empty supply is refilled from the discard pile first, and
    everyone is told (the pile's size is public, its cards are not named)."""
    if not s.deck:
        if not s.discard:
            return None
        s.reshuffles += 1
        pile = sorted(s.discard)  # docs/fairness.md §3: the pile is sorted by id before the reshuffle
        s.discard = []
        s.deck = rng.shuffle("deck/reshuffle", s.reshuffles, pile)[::-1]
        if ev is not None:
            say(ev, "reshuffle", lambda n=len(pile): f"The supply is empty: the discard pile's {n} "
                f"card{'s are' if n != 1 else ' is'} shuffled into a new supply.")
    return s.deck.pop()


def _draw_n(s: State, rng, k: int, ev: list | None) -> list[int]:
    """Up to k cards from the top of the supply, in the order drawn."""
    deck = s.deck
    if k <= len(deck):
        # The common case, no reshuffle on the way: the top k cards are the last k, top first.
        cut = len(deck) - k
        out = deck[cut:]
        out.reverse()
        del deck[cut:]
        return out
    out = []
    for _ in range(k):
        c = _draw(s, rng, ev)
        if c is None:
            break
        out.append(c)
    return out


def _give(s: State, seat: int, k: int, why: str, rng, ev: list | None) -> None:
    """Draw k cards into a hand: the count is public, the cards private."""
    cards = _draw_n(s, rng, k, ev)
    if not cards:
        return
    s.players[seat].hand.extend(cards)
    if ev is not None:
        say(ev, "draw", lambda who=s.names[seat], n=len(cards): f"{who} draws {plural(n, 'card')} ({why}).")
        say(ev, "draw", lambda kinds=s.kinds, cards=cards: f"You draw {_names(kinds, cards)} ({why}).", seat)


# _ORDERS[n][first]: the seats in clockwise turn order starting from `first`.
_ORDERS = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in (2, 3, 4)}


def _turn_order(s: State, first: int) -> tuple[int, ...]:
    return _ORDERS[len(s.players)][first]


def privilege(s: State, seat: int) -> int:
    """Size of the role's privilege for this seat: 0, 1, or 2 with the library."""
    if seat != s.chooser:
        return 0
    return 2 if s.doubled else 1


def hand_limit(s: State, p: Player) -> int:
    """Most cards a player may keep at the round start: 7, 6 with the expansion unless they own a
    guard room, 12 with a tower."""
    if TOWER in p.active:
        return 12
    if s.expansion and GUARD_ROOM not in p.active:
        return 6
    return 7


# ---------------------------------------------------------------- rule facts
# Public, so that bots and the determinizer ask the rules instead of restating them. `privilege`
# is a seat's privilege (0, 1 or 2); `active` the kinds whose function works for it now.

BLACK_MARKET_GOODS = 2   # goods a black market may discard for one build, 1 card off each


def discounter(kind: int) -> int:
    """The building that takes 1 card off a building of `kind` for its owner: a smithy for a
    production building, a quarry for a city building."""
    return SMITHY if PRODUCTION[kind] else QUARRY


def black_market_discount(active, goods: int) -> int:
    """Cards a working black market can take off a build, its owner holding `goods` goods."""
    if BLACK_MARKET not in active:
        return 0
    return goods if goods < BLACK_MARKET_GOODS else BLACK_MARKET_GOODS


def cover_value(kind: int) -> int:
    """Cards that covering a building of `kind` with the crane takes off the new building's cost:
    its cost, and 6 for a park."""
    return 6 if kind == PARK else COST[kind]


def sale_price(tile: tuple[int, ...], kind: int) -> int:
    """Cards a good on a building of `kind` sells for under the trading tile `tile`: the price of
    its good, and 2 for a customs office's good whatever the tile says."""
    return CUSTOMS_PRICE if kind == CUSTOMS_OFFICE else tile[GOOD[kind]]


def production_cap(privilege: int, active) -> int:
    """Most goods a seat may produce in a producer phase: 1, its privilege, 1 more with an aqueduct."""
    return 1 + privilege + (AQUEDUCT in active)


def trade_cap(privilege: int, active) -> int:
    """Most goods a seat may sell in a trader phase: 1, its privilege, 1 more with a trading post."""
    return 1 + privilege + (TRADING_POST in active)


def council_draw(privilege: int) -> int:
    """Cards a seat draws in a councillor phase: 2, the councillor 5, or 8 with the library."""
    return (2, 5, 8)[privilege]


def council_keep(active) -> int:
    """Councillor cards a seat keeps: 1, or 2 with a prefecture."""
    return 2 if PREFECTURE in active else 1


def stage_decision(s: State, seat: int, drew: int | None = None) -> Decision | None:
    """The decision `seat` owes at the start of the current simultaneous stage (`s.stage`), or None.
    The engine opens every simultaneous stage with it; the determinizer rebuilds the decisions it
    cannot see with it. In the councillor stage `drew` is how many cards the seat drew, which an
    archive owner discards down from; None assumes the full draw, as must anyone who did not see it."""
    p = s.players[seat]
    if s.stage == "council":
        return _council_decision(s, seat, p, drew)
    building = _OWNERS_ONLY.get(s.stage)
    if building is not None and building not in p.active:
        return None
    return _STAGE_DECISIONS[s.stage](s, seat, p)


def _council_decision(s: State, seat: int, p: Player, drew: int | None) -> Decision | None:
    keep = council_keep(p.active)
    if ARCHIVE in p.active:   # the drawn cards are in the hand: discard from the whole hand
        if drew is None:
            drew = council_draw(privilege(s, seat))
        extra = min(drew - keep, len(p.hand))
        return ("discard", tuple(p.hand), extra, extra) if extra > 0 else None
    return ("keep", tuple(p.drawn), keep, keep) if len(p.drawn) > keep else None


def _produce_decision(s: State, seat: int, p: Player) -> Decision | None:
    goods = p.goods
    kinds = s.kinds
    empty = []
    for b in p.city:
        if PRODUCTION[kinds[b]] and b not in goods:
            empty.append(b)
    if not empty:
        return None
    cap = production_cap(privilege(s, seat), p.active)
    return ("produce", tuple(empty), 0, cap if cap < len(empty) else len(empty))


def _sell_decision(s: State, seat: int, p: Player) -> Decision | None:
    if not p.goods:
        return None
    goods = tuple([b for b in p.city if b in p.goods])
    cap = trade_cap(privilege(s, seat), p.active)
    return ("sell", goods, 0, cap if cap < len(goods) else len(goods))


def _limit_decision(s: State, seat: int, p: Player) -> Decision | None:
    excess = len(p.hand) - hand_limit(s, p)
    return ("limit", tuple(p.hand), excess, excess) if excess > 0 else None


# The round-start stages in which only the owners of a building owe anything, by that building.
# In most rounds nobody owns it: a stage with no owner is passed over without asking each seat.
_OWNERS_ONLY = {"office": OFFICE_BUILDING, "chapel": CHAPEL, "bank": BANK}

# Simultaneous stages but the councillor's: (state, seat, player) -> the decision owed, or None
# (in the stages of _OWNERS_ONLY, asked only of the owners).
_STAGE_DECISIONS = {
    "deal": lambda s, seat, p: ("keep", tuple(p.hand), 4, 4),
    "office": lambda s, seat, p: ("office", tuple(p.hand), 0, min(2, len(p.hand))) if p.hand else None,
    "chapel": lambda s, seat, p: ("chapel", tuple(p.hand), 0, 1) if p.hand else None,
    # A bank is used once a game: while nothing lies under it, it has not been.
    "bank": lambda s, seat, p: ("bank", tuple(p.hand), 0, len(p.hand)) if not p.bank and p.hand else None,
    "limit": _limit_decision,
    "produce": _produce_decision,
    "sell": _sell_decision,
}


def _open_stage(s: State, stage: str) -> bool:
    """Start a simultaneous stage in which each seat owes what `stage_decision` says. False when
    nobody owes anything, so that the caller moves on at once."""
    s.stage = stage
    players = s.players
    building = _OWNERS_ONLY.get(stage)
    if building is not None:
        for p in players:
            if building in p.active:
                break
        else:
            s.pending = {}
            return False
    decide = _STAGE_DECISIONS[stage]
    pending = {}
    for seat, p in enumerate(players):     # in seat order, as s.pending is kept (to_act)
        if building is None or building in p.active:
            d = decide(s, seat, p)
            if d is not None:
                pending[seat] = d
    s.pending = pending
    return bool(pending)


# ---------------------------------------------------------------- setup

def setup(names, options: dict | None, rng) -> State:
    names = tuple(names)
    n = INFO.check_players(len(names))
    options = INFO.check_options(options)
    expansion, variant = options["expansion"], options["setup_variant"]

    s = State(names, expansion, variant)
    if rng.blind:
        # games/blind.py: every party reads the cards it has seen, and only those; the deck
        # and the tiles below are handles, shuffled by all parties together.
        s.kinds = rng.looked(s.kinds)

    # docs/fairness.md §3: the governor is drawn first; the starting indigo plants are the lowest ids,
    # given in turn order from the governor, and stay out of the shuffle.
    s.governor = rng.randbelow("start-player", 0, n)
    manifest = MANIFEST[expansion]
    order = _turn_order(s, s.governor)
    for i, seat in enumerate(order):
        assert manifest[i] == INDIGO
        s.players[seat].city.append(i)
    for p in s.players:
        p.active = frozenset({INDIGO})
    s.deck = rng.shuffle("deck/initial", 0, list(range(n, len(manifest))))[::-1]
    s.tiles = tuple(rng.shuffle("tiles/initial", 0, list(range(len(TILES)))))
    for i, seat in enumerate(order):
        share = 4 + (i + 1 if variant else 0)
        s.players[seat].hand.extend(s.deck.pop() for _ in range(share))

    s.order = order
    if not (variant and _open_stage(s, "deal")):
        _begin_roles(s, rng, [])
    return s


def _resolve_deal(s: State, rng, ev: list | None) -> None:
    for seat in s.order:
        p = s.players[seat]
        keep = s.answers[seat]
        gone = [c for c in p.hand if c not in keep]
        p.hand = list(keep)
        s.discard.extend(gone)
        if ev is not None:
            say(ev, "discard", lambda who=s.names[seat], n=len(gone): f"{who} keeps 4 cards and discards {n}.")
    s.answers = {}
    _begin_roles(s, rng, ev)


# ---------------------------------------------------------------- rounds and roles

def _begin_roles(s: State, rng, ev: list | None) -> None:
    s.roles_left = list(ROLES)
    s.taken = []
    for p in s.players:
        p.library_used = False
    _next_role(s, rng, ev)


def _stalled(s: State, rng) -> bool:
    """No card can ever move again: supply, discard pile and goods are all empty, no hand is over
    its limit (the round-start discard would refill the pile), and no player could afford a single
    building even as the builder. Nothing can be drawn, sold or paid, so the game could never
    end; the rulebook is silent, our decision is that it ends at once.

    On a blind table nobody can tell what another hand affords, so the hands are turned face up
    for everyone, seat by seat, until one of them can build (docs/rules.md, 'On a blind table')."""
    if s.deck or s.discard or any(p.goods or len(p.hand) > hand_limit(s, p) for p in s.players):
        return False
    kinds = s.kinds
    blind = s.blind
    for p in s.players:
        if blind:
            rng.reveal(p.hand)
        priv = 2 if LIBRARY in p.active else 1
        owned = {kinds[b] for b in p.city if not PRODUCTION[kinds[b]]}
        candidates = p.hand if s.cathedral is None else [*p.hand, s.cathedral]
        for card in candidates:
            kind = kinds[card]
            if kind in owned:
                continue
            avail = len(p.hand) - (card != s.cathedral)
            if any(_affordable(s, p, kind, priv, avail, t) for t in [None, *_cover_targets(s, p, kind)]):
                return False
    return True


def _end_game(s: State, ev: list | None, why: str) -> None:
    s.over = True
    s.stage = "over"
    s.pending = {}
    s.role = None
    s.chooser = None
    if ev is not None:
        say(ev, "end", f"The game ends: {why}.")


def _next_role(s: State, rng, ev: list | None) -> None:
    if not s.deck and _stalled(s, rng):     # a card in the supply can always move: no need to look further
        _end_game(s, ev, "no card can move any more (supply, discard pile and goods are empty "
                  "and nobody can afford to build)")
        return
    n = len(s.players)
    k = len(s.taken)
    # Two players choose three roles a round: governor, other player, governor again.
    if k == (3 if n == 2 else n):
        _end_round(s, rng, ev)
        return
    s.chooser = s.governor if (n == 2 and k == 2) else (s.governor + k) % n
    s.role = None
    s.doubled = False
    s.stage = "role"
    s.pending = {s.chooser: ("role", tuple(s.roles_left), 1, 1)}


def _on_role(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    role = picks[0]
    s.roles_left.remove(role)
    s.taken.append((role, seat))
    s.role = role
    if ev is not None:
        say(ev, "role", lambda who=s.names[seat]: f"{who} chooses the {role}.")
    p = s.players[seat]
    if LIBRARY in p.active:
        if len(s.players) > 2:
            s.doubled = True
        elif not p.library_used:
            if seat == s.governor and len(s.taken) == 1:
                # The governor chooses twice: using the library now forfeits it for the second role.
                s.stage = "library"
                s.pending = {seat: ("library", ("use", "save"), 1, 1)}
                return
            s.doubled = True
            p.library_used = True
    _start_phase(s, rng, ev)


def _on_library(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks[0] == "use":
        s.doubled = True
        s.players[seat].library_used = True
        if ev is not None:
            say(ev, "library", lambda who=s.names[seat]: f"{who} uses the library for this privilege.")
    _start_phase(s, rng, ev)


def _start_phase(s: State, rng, ev: list | None) -> None:
    assert s.role is not None and s.chooser is not None, "a phase starts once its role is chosen"
    s.order = _ORDERS[len(s.players)][s.chooser]
    _PHASES[s.role](s, rng, ev)


def _end_round(s: State, rng, ev: list | None) -> None:
    s.governor = (s.governor + 1) % len(s.players)
    s.round += 1
    s.role = None
    s.chooser = None
    s.doubled = False
    s.order = _turn_order(s, s.governor)
    if ev is not None:
        say(ev, "round", lambda n=s.round, who=s.names[s.governor]: f"Round {n}: {who} is governor.")
    _start_office(s, rng, ev)


# Round start, in order: office building, chapel, bank, hand limit (docs/rules.md, 'San Juan').

def _start_office(s: State, rng, ev: list | None) -> None:
    if not _open_stage(s, "office"):
        _start_chapel(s, rng, ev)


def _resolve_office(s: State, rng, ev: list | None) -> None:
    for seat in s.order:
        picks = s.answers.get(seat)
        if not picks:
            continue
        p = s.players[seat]
        for c in picks:
            p.hand.remove(c)
        s.discard.extend(picks)
        if ev is not None:
            say(ev, "discard", lambda kinds=s.kinds, picks=picks:
                f"You discard {_names(kinds, picks)} (office building).", seat)
        _give(s, seat, len(picks), "office building", rng, ev)
    s.answers = {}
    _start_chapel(s, rng, ev)


def _start_chapel(s: State, rng, ev: list | None) -> None:
    if not _open_stage(s, "chapel"):
        _start_bank(s, rng, ev)


def _resolve_chapel(s: State, rng, ev: list | None) -> None:
    # Which card is the owner's secret; that a card went under the chapel is not (the hand shrinks).
    for seat in s.order:
        picks = s.answers.get(seat)
        if picks:
            p = s.players[seat]
            p.hand.remove(picks[0])
            p.chapel.append(picks[0])
            if ev is not None:
                say(ev, "chapel", lambda who=s.names[seat]: f"{who} puts a card under their chapel.")
                say(ev, "chapel", lambda kinds=s.kinds, card=picks[0]:
                    f"You put {NAME[kinds[card]]} under your chapel.", seat)
    s.answers = {}
    _start_bank(s, rng, ev)


def _start_bank(s: State, rng, ev: list | None) -> None:
    if not _open_stage(s, "bank"):
        _start_limit(s, rng, ev)


def _resolve_bank(s: State, rng, ev: list | None) -> None:
    for seat in s.order:
        picks = s.answers.get(seat)
        if picks:
            p = s.players[seat]
            for c in picks:
                p.hand.remove(c)
            p.bank.extend(picks)
            if ev is not None:
                say(ev, "bank", lambda who=s.names[seat], n=len(picks):
                    f"{who} puts {plural(n, 'card')} under their bank.")
                say(ev, "bank", lambda kinds=s.kinds, picks=picks:
                    f"You put {_names(kinds, picks)} under your bank.", seat)
    s.answers = {}
    _start_limit(s, rng, ev)


def _start_limit(s: State, rng, ev: list | None) -> None:
    if not _open_stage(s, "limit"):
        _begin_roles(s, rng, ev)


def _resolve_limit(s: State, rng, ev: list | None) -> None:
    for seat in s.order:
        picks = s.answers.get(seat)
        if picks:
            p = s.players[seat]
            for c in picks:
                p.hand.remove(c)
            s.discard.extend(picks)
            if ev is not None:
                say(ev, "discard", lambda who=s.names[seat], n=len(picks), limit=hand_limit(s, p):
                    f"{who} discards {plural(n, 'card')} down to the hand limit of {limit}.")
                say(ev, "discard", lambda kinds=s.kinds, picks=picks: f"You discard {_names(kinds, picks)}.", seat)
    s.answers = {}
    _begin_roles(s, rng, ev)


# ---------------------------------------------------------------- builder

def _start_builder(s: State, rng, ev: list | None) -> None:
    s.turn = 0
    _build_turn(s, rng, ev)


def _cover_targets(s: State, p: Player, kind: int) -> list[int]:
    if CRANE not in p.active:
        return []
    kinds = s.kinds
    return [b for b in p.city if kinds[b] != CRANE and kinds[b] != kind]


def _cost(s: State, p: Player, kind: int, priv: int, cover: int | None) -> tuple[int, list[int]]:
    """Cards still to pay for a building of `kind` before the black market, and the goods the
    black market may take. A covered building loses its function at once, so it does not help
    pay for the building laid over it (a covered library no longer doubles the privilege)."""
    active = p.active
    lost = -1
    off = priv
    if cover is not None:
        lost = s.kinds[cover]
        off += cover_value(lost)
        if lost == LIBRARY and priv == 2:
            off -= 1
    helper = discounter(kind)
    off += helper in active and lost != helper
    # Where a black market being covered stops counting: `goods` is then empty, so its callers'
    # black_market_discount(p.active, len(goods)) is 0 although p.active still names it.
    goods = [b for b in p.goods if b != cover] if BLACK_MARKET in active and lost != BLACK_MARKET else []
    need = COST[kind] - off
    return (need if need > 0 else 0), goods


def _affordable(s: State, p: Player, kind: int, priv: int, avail: int, cover: int | None) -> bool:
    need, goods = _cost(s, p, kind, priv, cover)
    return need - black_market_discount(p.active, len(goods)) <= avail


def buildable(s: State, seat: int) -> tuple:
    """The cards (and the cathedral) this seat can afford to build now, with any reductions."""
    hand = s.players[seat].hand
    return _buildable_among(s, seat, hand if s.cathedral is None else [*hand, s.cathedral])


def _buildable_among(s: State, seat: int, candidates: Sequence[int]) -> tuple:
    """Those of `candidates` (cards of the seat's hand, or the cathedral) that the rules let the
    seat build now: the one home of that rule, for the build decision and for the check of a
    pick on a blind table, where the decision lists every card (`build_decision`)."""
    p = s.players[seat]
    kinds = s.kinds
    active = p.active
    hand = p.hand
    cathedral = s.cathedral
    priv = privilege(s, seat)
    # Without the crane, a card from the hand is affordable when its cost is at most what the
    # seat can put against it: the rest of the hand, up to 2 goods at the black market, and the
    # reductions. Worked out once per seat, so each card costs one comparison.
    means = len(hand) - 1 + black_market_discount(active, len(p.goods)) + priv
    production_means = means + (SMITHY in active)
    city_means = means + (QUARRY in active)
    crane = CRANE in active
    out = []
    for card in candidates:
        kind = kinds[card]
        if PRODUCTION[kind]:
            fits = COST[kind] <= production_means
        elif kind in active:
            # A city building can be built only once. A seat is asked to build before it has built
            # in this phase, so the kinds that work for it are those of its city.
            continue
        else:
            fits = COST[kind] <= city_means + (card == cathedral)   # the cathedral is not in the hand
        # The crane's many targets are tried only when needed.
        if fits or (crane and _affordable_by_covering(s, p, kind, priv, _avail(s, p, card))):
            out.append(card)
    return tuple(out)


def _affordable_by_covering(s: State, p: Player, kind: int, priv: int, avail: int) -> bool:
    return any(_affordable(s, p, kind, priv, avail, t) for t in _cover_targets(s, p, kind))


def min_build_cost(s: State, seat: int, card: int) -> int:
    """The fewest cards a seat can pay for a building now, using every reduction it has."""
    p = s.players[seat]
    kind = s.kinds[card]
    priv = privilege(s, seat)
    needs = []
    for cover in [None, *_cover_targets(s, p, kind)]:
        need, goods = _cost(s, p, kind, priv, cover)
        needs.append(max(0, need - black_market_discount(p.active, len(goods))))
    return min(needs)


def build_decision(s: State, seat: int) -> Decision:
    """The one home of who is asked in the builder phase: every seat, in turn, always. A seat
    that can afford nothing is asked too, with "build nothing" as its only pick (no options,
    pick 0), because skipping it would tell the others that its hidden hand pays for nothing
    (rules version sanjuan-2e/3; the README's rule decisions).

    On a blind table no other party can tell what the hand affords, so the decision every party
    stores lists every card of the hand and the cathedral (`seat_decision` narrows it for a party
    that sees the hand), and a pick is checked once it is turned face up (`_open_build`)."""
    if s.blind:
        hand = s.players[seat].hand
        options = tuple(hand) if s.cathedral is None else (*hand, s.cathedral)
    else:
        options = buildable(s, seat)
    return ("build", options, 0, 1 if options else 0)


def seat_decision(s: State, seat: int) -> Decision | None:
    """The seat's pending decision as a party that sees its hand asks it: on a blind table the
    stored build decision narrowed to what the rules allow (on an open table it is that already).
    A party that does not see the hand gets the stored decision, whose cards it cannot read."""
    decision = s.pending.get(seat)
    if decision is not None and decision[0] == "build" and s.blind and knows(s.kinds, s.players[seat].hand):
        options = buildable(s, seat)
        return ("build", options, 0, 1 if options else 0)
    return decision


def _open_build(s: State, seat: int, card: int, rng) -> None:
    """A blind table's build pick: the card is turned face up for everyone (rng.reveal raises
    Unopened until its holder has opened it), then refused if the rules do not allow it, before
    anything changes."""
    rng.reveal([card])
    if not _buildable_among(s, seat, [card]):
        raise _why_not(s, seat, "build", card)


def _build_turn(s: State, rng, ev: list | None) -> None:
    if s.turn < len(s.order):
        seat = s.order[s.turn]
        s.stage = "build"
        s.pending = {seat: build_decision(s, seat)}
        return
    _end_builder(s, rng, ev)


def _avail(s: State, p: Player, card: int) -> int:
    """Cards in hand that can pay for `card` (the building itself leaves the hand)."""
    return len(p.hand) - (0 if card == s.cathedral else 1)


def _on_build(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if not picks:
        if ev is not None:
            say(ev, "build", lambda who=s.names[seat]: f"{who} does not build.")
        s.turn += 1
        _build_turn(s, rng, ev)
        return
    card = picks[0]
    p = s.players[seat]
    kind = s.kinds[card]
    s.build = (card, None, ())
    targets = _cover_targets(s, p, kind)
    if targets:  # only with a crane: which buildings could it cover and still pay?
        priv = privilege(s, seat)
        avail = _avail(s, p, card)
        targets = [t for t in targets if _affordable(s, p, kind, priv, avail, t)]
        if targets:
            must = not _affordable(s, p, kind, priv, avail, None)
            s.stage = "cover"
            s.pending = {seat: ("cover", tuple(targets), 1 if must else 0, 1)}
            return
    _ask_black_market(s, seat, rng, ev)


def build_under_way(s: State) -> Build:
    """The build under way: s.build is set from the choice of the building until the build ends."""
    assert s.build is not None, "no build is under way"
    return s.build


def _on_cover(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    card = build_under_way(s)[0]
    s.build = (card, picks[0] if picks else None, ())
    _ask_black_market(s, seat, rng, ev)


def _ask_black_market(s: State, seat: int, rng, ev: list | None) -> None:
    card, cover, _ = build_under_way(s)
    p = s.players[seat]
    kind = s.kinds[card]
    need, goods = _cost(s, p, kind, privilege(s, seat), cover)
    if goods:
        # Up to 2 goods, even beyond the cost (docs/rules.md, 'San Juan': emptying a production building
        # can be worth it); at least as many as the hand cannot pay.
        lo = max(0, need - _avail(s, p, card))
        s.stage = "black_market"
        s.pending = {seat: ("black_market", tuple(goods), lo, black_market_discount(p.active, len(goods)))}
        return
    _ask_payment(s, seat, need, rng, ev)


def _on_black_market(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    card, cover, _ = build_under_way(s)
    s.build = (card, cover, picks)
    need = _cost(s, s.players[seat], s.kinds[card], privilege(s, seat), cover)[0]
    _ask_payment(s, seat, need - len(picks), rng, ev)


def _ask_payment(s: State, seat: int, cost: int, rng, ev: list | None) -> None:
    """`cost`: the cards still to pay once the black market has taken its goods."""
    card = build_under_way(s)[0]
    if cost < 0:
        cost = 0
    hand = s.players[seat].hand[:]
    if card in hand:     # the cathedral is built from outside the hand
        hand.remove(card)
    payable = tuple(hand)
    if 0 < cost < len(payable):
        s.stage = "pay"
        s.pending = {seat: ("pay", payable, cost, cost)}
        return
    _finish_build(s, seat, payable[:cost], rng, ev)   # nothing to choose: free, or the whole hand


def _on_pay(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    _finish_build(s, seat, picks, rng, ev)


# A build is asked in steps (the building, the building its crane covers, the goods the black
# market discards, the cards that pay) and nobody else is told of it before the last: until then
# the builder may go back to choosing the building. No step draws a card.
_BUILD_STEPS_AFTER_FIRST = frozenset({"cover", "black_market", "pay"})


def back_label(s: State, seat: int) -> str:
    """Where the move back takes `seat`, for people; empty when it is not offered."""
    decision = s.pending.get(seat)
    return "choose the building again" if decision and decision[0] in _BUILD_STEPS_AFTER_FIRST else ""


def _go_back(s: State, seat: int) -> None:
    """The builder's turn as it was before the building was chosen: the steps so far only
    filled in s.build, so this is all there is to undo."""
    s.build = None
    s.stage = "build"
    s.pending = {seat: build_decision(s, seat)}


def _finish_build(s: State, seat: int, paid: tuple, rng, ev: list | None) -> None:
    card, cover, goods = build_under_way(s)
    s.build = None
    p = s.players[seat]
    kinds = s.kinds
    kind = kinds[card]
    if card == s.cathedral:
        s.cathedral = None
    else:
        p.hand.remove(card)
    for c in paid:
        p.hand.remove(c)
    s.discard.extend(paid)
    for b in goods:
        s.discard.append(p.goods.pop(b))
    if cover is not None:
        # The covered building leaves play at once: its good is discarded, its function lost.
        p.city[p.city.index(cover)] = card
        p.covered.append(cover)
        lost = p.goods.pop(cover, None)
        if lost is not None:
            s.discard.append(lost)
        p.active = frozenset(kinds[b] for b in p.city if b != card)
    else:
        p.city.append(card)
    if ev is not None:
        say(ev, "build", lambda who=s.names[seat], n=len(paid), covered=None if cover is None else NAME[kinds[cover]],
            sold=len(goods): f"{who} builds {with_article(NAME[kind].lower())}, paying {plural(n, 'card')}"
            + (f", covering their {covered.lower()} with the crane" if covered else "")
            + (f" and {plural(sold, 'good')} at the black market" if sold else "") + ".")
    if paid and ev is not None:
        say(ev, "build", lambda paid=paid: f"You pay with {_names(kinds, paid)}.", seat)
    # A building works from the phase after the one that built it, so the new card triggers nothing.
    if not PRODUCTION[kind] and CARPENTER in p.active:
        _give(s, seat, 1, "carpenter", rng, ev)
    if POOR_HOUSE in p.active and len(p.hand) <= 1:
        _give(s, seat, 1, "poor house", rng, ev)
    s.turn += 1
    _build_turn(s, rng, ev)


def _end_builder(s: State, rng, ev: list | None) -> None:
    kinds = s.kinds
    counts = []
    for p in s.players:
        counts.append(len(p.city))
    fewest = most = counts[0]
    for n in counts:
        if n < fewest:
            fewest = n
        elif n > most:
            most = n
    for seat in s.order:
        if TAVERN in s.players[seat].active and counts[seat] == fewest and most > fewest:
            _give(s, seat, 1, "tavern", rng, ev)
    kind_of = kinds.__getitem__
    for p in s.players:
        p.active = frozenset(map(kind_of, p.city))
    if most >= END_BUILDINGS:
        _end_game(s, ev, "a city has 12 buildings")
        return
    _next_role(s, rng, ev)


# ---------------------------------------------------------------- producer

def _start_producer(s: State, rng, ev: list | None) -> None:
    if not _open_stage(s, "produce"):
        _next_role(s, rng, ev)


def _resolve_producer(s: State, rng, ev: list | None) -> None:
    for seat in s.order:
        picks = s.answers.get(seat)
        if picks is None:
            continue
        p = s.players[seat]
        made = []
        for b in picks:
            good = _draw(s, rng, ev)
            if good is None:
                break
            p.goods[b] = good
            made.append(b)
        if ev is not None:
            say(ev, "produce", lambda who=s.names[seat], made=made, kinds=s.kinds:
                f"{who} produces {' and '.join([GOODS[GOOD[kinds[b]]] for b in made]) or 'nothing'}.")
        if len(made) >= 2 and WELL in p.active:
            _give(s, seat, 1, "well", rng, ev)
    s.answers = {}
    _next_role(s, rng, ev)


# ---------------------------------------------------------------- trader

def current_tile(s: State) -> tuple[int, ...]:
    """The trading tile turned last (each trader phase turns one before anything reads it)."""
    assert s.tiles_turned, "no trading tile is turned before the first trader phase"
    return TILES[s.tiles[(s.tiles_turned - 1) % len(s.tiles)]]


# What the trader announces for each tile; five fixed sentences, so they are written once.
_TILE_TEXT: dict[tuple[int, ...], str] = {tile: "The trading house pays " + ", ".join(f"{g} {v}" for g, v in zip(GOODS, tile)) + "."
              for tile in TILES}


def _start_trader(s: State, rng, ev: list | None) -> None:
    # The tile is turned and moved under the stack even when nobody sells.
    at = s.tiles_turned % len(s.tiles)
    if is_handle(s.tiles[at]):
        # A blind table's tile, turned face up for everyone: from now on the stack holds what it
        # is, as an open table's stack does.
        s.tiles = (*s.tiles[:at], *rng.reveal([s.tiles[at]]), *s.tiles[at + 1:])
    s.tiles_turned += 1
    if ev is not None:
        say(ev, "tile", _TILE_TEXT[current_tile(s)])
    if not _open_stage(s, "sell"):
        _resolve_trader(s, rng, ev)


def _resolve_trader(s: State, rng, ev: list | None) -> None:
    sold_any = False
    for seat in s.order:
        picks = s.answers.get(seat)
        if not picks:
            continue
        sold_any = True
        p = s.players[seat]
        tile = current_tile(s)
        earn = 0
        for b in picks:
            earn += sale_price(tile, s.kinds[b])
        if MARKET_HALL in p.active:
            earn += 1
        if len(picks) >= 2 and MARKET_STAND in p.active:
            earn += 1
        if ev is not None:
            say(ev, "sell", lambda who=s.names[seat], kinds=s.kinds, picks=picks:
                f"{who} sells the goods of their {' and '.join(NAME[kinds[b]].lower() for b in picks)}.")
        goods = []
        for b in picks:
            goods.append(p.goods.pop(b))
        if HARBOR in p.active:
            # One sold good a phase, the first, goes under the harbor instead of the discard pile,
            # face down without looking: nobody, the owner included, learns which card it is.
            p.harbor.append(goods.pop(0))
            if ev is not None:
                say(ev, "harbor", lambda who=s.names[seat]:
                    f"{who} puts one of the sold goods face down under their harbor.")
        s.discard.extend(goods)
        _give(s, seat, earn, "trader", rng, ev)
    if not sold_any:
        for seat in s.order:
            if HUT in s.players[seat].active:
                _give(s, seat, 1, "hut", rng, ev)
    s.answers = {}
    _next_role(s, rng, ev)


# ---------------------------------------------------------------- councillor

def _start_councillor(s: State, rng, ev: list | None) -> None:
    kinds = s.kinds
    for seat in s.order:
        p = s.players[seat]
        if CUSTOMS_OFFICE in p.active:
            office = next(b for b in p.city if kinds[b] == CUSTOMS_OFFICE)
            if office not in p.goods:
                good = _draw(s, rng, ev)
                if good is not None:
                    p.goods[office] = good
                    if ev is not None:
                        say(ev, "produce", lambda who=s.names[seat]: f"{who}'s customs office receives a good.")
    s.stage = "council"
    decisions: list[Decision | None] = [None] * len(s.players)   # by seat: the cards are drawn in turn order
    for seat in s.order:
        p = s.players[seat]
        cards = _draw_n(s, rng, council_draw(privilege(s, seat)), ev)
        keep = council_keep(p.active)
        if ev is not None:
            say(ev, "council", lambda who=s.names[seat], n=len(cards), keep=keep:
                f"{who} draws {n} cards to keep {keep}.")
            say(ev, "council", lambda kinds=s.kinds, cards=tuple(cards): f"You draw {_names(kinds, cards)}.", seat)
        if ARCHIVE in p.active or len(cards) <= keep:
            p.hand.extend(cards)   # the archive discards from the whole hand
        else:
            p.drawn = cards
        decisions[seat] = _council_decision(s, seat, p, len(cards))
    pending: dict[int, Decision] = {}
    for seat, decision in enumerate(decisions):    # in seat order, as s.pending is kept (to_act)
        if decision is not None:
            pending[seat] = decision
    s.pending = pending
    if not pending:
        _next_role(s, rng, ev)


def _resolve_councillor(s: State, rng, ev: list | None) -> None:
    for seat in s.order:
        picks = s.answers.get(seat)
        if picks is None:
            continue
        p = s.players[seat]
        if p.drawn:
            gone = p.drawn     # the drawn cards not kept, in the order drawn
            for c in picks:
                gone.remove(c)
            p.hand.extend(picks)
            p.drawn = []
            if ev is not None:
                say(ev, "council", lambda kinds=s.kinds, picks=picks: f"You keep {_names(kinds, picks)}.", seat)
        else:
            gone = list(picks)
            for c in picks:
                p.hand.remove(c)
        s.discard.extend(gone)
        if ev is not None:
            say(ev, "council", lambda who=s.names[seat], n=len(gone): f"{who} discards {plural(n, 'card')}.")
            say(ev, "council", lambda kinds=s.kinds, gone=gone: f"You discard {_names(kinds, gone)}.", seat)
    s.answers = {}
    _next_role(s, rng, ev)


# ---------------------------------------------------------------- prospector

def _start_prospector(s: State, rng, ev: list | None) -> None:
    kinds = s.kinds
    assert s.chooser is not None, "the prospector's phase follows its choice"
    _give(s, s.chooser, privilege(s, s.chooser), "prospector", rng, ev)
    # Then, clockwise from the prospector, each owner's gold mine, then goldsmith. Turned cards are public.
    for seat in s.order:
        p = s.players[seat]
        who = s.names[seat]
        if GOLD_MINE in p.active:
            cards = _draw_n(s, rng, 4, ev)
            rng.reveal(cards)
            costs = [COST[kinds[c]] for c in cards]
            if cards and len(set(costs)) == len(costs):
                kept = min(cards, key=lambda c: COST[kinds[c]])
                p.hand.append(kept)
                s.discard.extend(c for c in cards if c != kept)
                if ev is not None:
                    say(ev, "gold_mine", lambda who=who, cards=cards, kept=kept: f"{who}'s gold mine turns up "
                        f"{_names(kinds, cards)}: all costs differ, {who} keeps the {NAME[kinds[kept]].lower()}.")
            else:
                s.discard.extend(cards)
                if ev is not None:
                    say(ev, "gold_mine", lambda who=who, cards=cards:
                        f"{who}'s gold mine turns up {_names(kinds, cards)}: nothing is kept.")
        if GOLDSMITH in p.active:
            card = _draw(s, rng, ev)
            if card is not None:
                rng.reveal([card])
                kind = kinds[card]
                built = any(kinds[b] == kind for q in s.players for b in q.city)
                if built:
                    s.discard.append(card)
                    if ev is not None:
                        say(ev, "goldsmith", lambda who=who, kind=kind:
                            f"{who}'s goldsmith turns up {with_article(NAME[kind].lower())}, already built: discarded.")
                else:
                    p.hand.append(card)
                    if ev is not None:
                        say(ev, "goldsmith", lambda who=who, kind=kind:
                            f"{who}'s goldsmith turns up {with_article(NAME[kind].lower())} and {who} keeps it.")
    _next_role(s, rng, ev)


_PHASES = {
    "builder": _start_builder,
    "producer": _start_producer,
    "trader": _start_trader,
    "councillor": _start_councillor,
    "prospector": _start_prospector,
}

# Sequential decisions: handled as soon as they arrive.
_STEPS = {
    "role": _on_role,
    "library": _on_library,
    "build": _on_build,
    "cover": _on_cover,
    "black_market": _on_black_market,
    "pay": _on_pay,
}

# Simultaneous decisions: resolved in turn order once every answer is in.
_RESOLVE = {
    "deal": _resolve_deal,
    "office": _resolve_office,
    "chapel": _resolve_chapel,
    "bank": _resolve_bank,
    "limit": _resolve_limit,
    "produce": _resolve_producer,
    "sell": _resolve_trader,
    "council": _resolve_councillor,
}


# ---------------------------------------------------------------- the contract

def to_act(s: State) -> list[int]:
    """Seats that owe a decision now, in seat order; empty once the game is over."""
    # s.pending is kept in seat order, so that it needs no sorting here (every step of every
    # playout asks): a stage asks its seats in that order whatever order it draws for them in.
    return [*s.pending]


def apply(s: State, seat: int, action, rng, *, events: bool = True) -> list[Event] | None:
    """Apply one seat's decision and run the game on. Returns the events, each {type, to, text}
    with `to` None (everyone) or the one seat that may see it; with `events` False, None, and
    none are made (the search's playouts read none). Raises IllegalAction, changing nothing,
    when the decision is not allowed. The move [BACK], where the prompt offers it, goes back to
    the start of the build and tells nobody anything."""
    decision = s.pending.get(seat) if type(seat) is int else None
    if decision is None:
        raise out_of_turn(s.over, s.names, seat, s.pending)
    try:
        picks = check_pick(action, *decision)
    except IllegalAction as refusal:
        # [BACK] is no option of any decision, so it is looked for only among the refused picks.
        if not is_back(action):
            raise _in_words(s, seat, decision, action, refusal) from None
        if not back_label(s, seat):
            raise no_back(decision[0]) from None
        s.decisions += 1     # every move counts, this one too
        _go_back(s, seat)
        return [] if events else None
    if decision[0] == "build" and picks and s.blind:
        _open_build(s, seat, picks[0], rng)
    ev = Events() if events else None
    _move(s, seat, decision, picks, rng, ev)
    return ev


def random_move(s: State, seat: int, rnd, rng) -> None:
    """games/contract.py: apply(s, seat, random_action(s, seat, rnd), rng), the pick unchecked
    since it is drawn here from the seat's pending options, and no events made."""
    decision = s.pending.get(seat)
    if decision is None:
        raise out_of_turn(s.over, s.names, seat, s.pending)
    if decision[0] == "build" and s.blind:
        # From the options the rules allow, which this party can tell only if it sees the hand.
        _, options, lo, hi = seat_decision(s, seat) or decision
        picks = draw_uniform(options, lo, hi, rnd)
        if picks:
            _open_build(s, seat, picks[0], rng)
        _move(s, seat, decision, picks, rng, None)
        return
    _, options, lo, hi = decision
    _move(s, seat, decision, draw_uniform(options, lo, hi, rnd), rng, None)


def _move(s: State, seat: int, decision: Decision, picks: tuple, rng, ev: list | None) -> None:
    """Make a legal pick of the seat's pending decision and run the game on, adding its events
    to `ev` (none when it is None)."""
    s.decisions += 1
    if s.stage in SIMULTANEOUS:
        del s.pending[seat]
        s.answers[seat] = picks
        if not s.pending:
            _RESOLVE[s.stage](s, rng, ev)
    else:
        s.pending = {}
        _STEPS[decision[0]](s, seat, picks, rng, ev)


def _in_words(s: State, seat: int, decision: Decision, action, refusal: IllegalAction) -> IllegalAction:
    """A refused pick in this decision's own words, where there are better ones than the generic
    refusal: why the first value that is not an option is not, or how many picks it wants.
    Worked out only once a pick is refused, so that a legal pick costs nothing more."""
    kind, options, lo, hi = decision
    if refusal.code == "not_an_option":
        return _why_not(s, seat, kind, next(a for a in action if a not in options))
    if refusal.code == "wrong_count":
        return _wrong_count(kind, lo, hi, len(action))
    return refusal


def _wrong_count(kind: str, lo: int, hi: int, got: int) -> IllegalAction:
    """A wrong number of picks, in the words of the decision where there are better ones."""
    if kind in ("sell", "produce") and got > hi:
        return IllegalAction("too_many_goods", f"You may {kind} at most {plural(hi, 'good')} now, not {got}.")
    if kind == "pay":
        return IllegalAction("wrong_payment", f"This building costs {plural(lo, 'card')}; you offered {got}.")
    refusal = wrong_count(kind, lo, hi, got)
    code = {"sell": "too_many_goods", "produce": "too_many_goods", "black_market": "wrong_goods"}.get(kind)
    return IllegalAction(code, refusal.message) if code else refusal


def _why_not(s: State, seat: int, kind: str, value) -> IllegalAction:
    """A sentence for the commonest ways to pick something that is not an option."""
    p = s.players[seat]
    kinds = s.kinds
    is_card = type(value) is int and (0 <= value < len(kinds) or is_handle(value))
    if kind == "role":
        if value in ROLES:
            return IllegalAction("role_taken", f"The {value} has already been chosen this round.")
        return IllegalAction("not_an_option", f"{value!r} is not a role.")
    if kind == "build" and is_card:
        if value != s.cathedral and value not in p.hand:
            return IllegalAction("not_in_hand", f"Card {value} is not in your hand.")
        if any(kinds[b] == kinds[value] for b in p.city) and not PRODUCTION[kinds[value]]:
            return IllegalAction("already_built", f"You already have {with_article(card_name(s, value).lower())}; "
                                 "a city building can be built once.")
        return IllegalAction("cannot_pay", f"You cannot pay for {with_article(card_name(s, value).lower())} now.")
    if kind == "cover" and is_card:
        if value not in p.city:
            return IllegalAction("not_your_building", f"Card {value} is not one of your buildings.")
        if kinds[value] == CRANE:
            return IllegalAction("cannot_cover_crane", "The crane cannot be covered.")
        if kinds[value] == kinds[build_under_way(s)[0]]:
            return IllegalAction("same_building", "A building cannot be covered by the same building.")
        return IllegalAction("cannot_pay", "Covering that building still leaves you unable to pay.")
    if kind in ("sell", "black_market") and is_card:
        return IllegalAction("no_good", f"Card {value} is not one of your buildings holding a good.")
    if kind == "produce" and is_card:
        return IllegalAction("not_empty", f"Card {value} is not one of your empty production buildings.")
    if kind in ("pay", "limit", "chapel", "bank", "office", "discard", "keep") and is_card:
        return IllegalAction("not_in_hand", f"Card {value} is not among the cards you may pick.")
    return IllegalAction("not_an_option", f"{value!r} is not one of the options of this {kind} decision.")
