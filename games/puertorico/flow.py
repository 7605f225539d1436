"""The flow of a game: rounds, role picks, the phases they start, the end of a round and of the
game, and `apply`, which checks a decision and runs the game on until somebody owes the next one.

Exactly one seat owes a decision at any time (D7): `s.pending` is (seat, kind, options, lo, hi).
Every decision is "pick between lo and hi distinct options"; all constraints live in the options
and the bounds, so any pick within them is legal. A phase asks by setting `s.pending`; when it
returns without asking, it is over and the next role is picked.
"""
from __future__ import annotations

from games.choice import check_pick, draw_uniform, is_back, no_back, out_of_turn
from games.errors import IllegalAction
from games.events import Event, Events, say
from games.text import plural

from . import builder, captain, craftsman, mayor, settler, trader
from .components import PROSPECTOR_DOUBLOONS, ROLE_OF, TABLES
from .state import State


def _prospector(s: State, rng, ev: list | None) -> None:
    """The prospector has no action: the picker takes 1 doubloon (R1:376)."""
    chooser = s.role_chooser()
    s.players[chooser].doubloons += PROSPECTOR_DOUBLOONS
    if ev is not None:
        say(ev, "prospector", lambda who=s.names[chooser]:
            f"{who} takes {plural(PROSPECTOR_DOUBLOONS, 'doubloon')} (prospector).")


# _ORDERS[n][first]: the seats in clockwise turn order from `first`.
_ORDERS = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in TABLES}


def turn_order(n: int, first: int) -> tuple[int, ...]:
    """The n seats in clockwise turn order from `first`: a phase's order from its chooser."""
    return _ORDERS[n][first]

PHASES = {"settler": settler.start, "mayor": mayor.start, "builder": builder.start,
          "craftsman": craftsman.start, "trader": trader.start, "captain": captain.start,
          "prospector": _prospector}


def begin_round(s: State, ev: list | None) -> None:
    s.taken = []
    _next_role(s, ev)


def role_options(s: State) -> tuple[str, ...]:
    """The role cards nobody picked yet this round; the two prospectors are one option while they
    carry the same money (D13)."""
    cards = list(s.roles)
    for card, _ in s.taken:
        cards.remove(card)
    if "prospector" in cards and "prospector_2" in cards and s.roles["prospector"] == s.roles["prospector_2"]:
        cards.remove("prospector_2")
    return tuple(cards)


def _next_role(s: State, ev: list | None) -> None:
    """The next pick of the round; with two players they alternate until each has three (§5)."""
    s.role = None
    k = len(s.taken)
    if k == TABLES[len(s.players)].roles_per_round:
        _end_round(s, ev)
        return
    s.chooser = None
    s.pending = ((s.governor + k) % len(s.players), "role", role_options(s), 1, 1)


def _on_role(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    card = picks[0]
    money = s.roles[card]
    s.roles[card] = 0
    s.players[seat].doubloons += money
    s.taken.append((card, seat))
    s.role = ROLE_OF[card]
    s.chooser = seat
    s.order = turn_order(len(s.players), seat)
    if ev is not None:
        say(ev, "role", lambda who=s.names[seat], role=s.role, money=money:
            f"{who} picks the {role}" + (f" and takes {plural(money, 'doubloon')} from it." if money else "."))
    PHASES[s.role](s, rng, ev)


def _end_round(s: State, ev: list | None) -> None:
    """1 doubloon on each card nobody picked (R1:380), then the game ends or the governor passes."""
    taken = {card for card, _ in s.taken}
    for card in s.roles:
        if card not in taken:
            s.roles[card] += 1
    if s.last_round:
        s.over = True
        s.chooser = None
        s.pending = None
        if ev is not None:
            say(ev, "end", "The game is over.")
        return
    s.governor = (s.governor + 1) % len(s.players)
    s.round += 1
    if ev is not None:
        say(ev, "round", lambda n=s.round, who=s.names[s.governor]: f"Round {n}: {who} is governor.")
    begin_round(s, ev)


STEPS = {
    "role": _on_role,
    "hacienda": settler.on_hacienda,
    "settle": settler.on_settle,
    "hospice": settler.on_hospice,
    "mayor": mayor.on_privilege,
    "place": mayor.on_place,
    "build": builder.on_build,
    "university": builder.on_university,
    "craftsman": craftsman.on_extra,
    "sell": trader.on_sell,
    "load": captain.on_load,
    "warehouse": captain.on_warehouse,
    "windrose": captain.on_windrose,
}


# The decisions asked in several steps that a seat may go back through, by the kind of a later
# step: (where back takes the seat, for people, or "" when not now; going back). Only the mayor's
# placement and storage in the captain phase tell nobody anything between their steps.
GOING_BACK = {
    "place": (mayor.back_label, mayor.go_back),
    "windrose": (captain.back_label, captain.go_back),
}


def back_label(s: State) -> str:
    """Where the move back takes the seat to act, for people; empty when it is not offered."""
    kind = s.asked()[1]
    return GOING_BACK[kind][0](s) if kind in GOING_BACK else ""


# ---------------------------------------------------------------- the contract

def to_act(s: State) -> list[int]:
    """The seat that owes a decision, or nobody once the game is over."""
    return [s.pending[0]] if s.pending is not None else []


def apply(s: State, seat: int, action, rng, *, events: bool = True) -> list[Event] | None:
    """Apply one seat's decision and run the game on. Returns the events, each {type, to, text}
    (all public); with `events` False, None, and none are made (the search's playouts read
    none). Raises IllegalAction, changing nothing, when the decision is not allowed. The move
    [BACK], where the prompt offers it, goes back to the first step and tells nobody."""
    decision = s.pending
    if decision is None or type(seat) is not int or seat != decision[0]:
        raise out_of_turn(s.over, s.names, seat, [decision[0]] if decision else [])
    try:
        picks = check_pick(action, *decision[1:])
    except IllegalAction:
        # [BACK] is no option of any decision, so it is looked for only among the refused picks.
        if not is_back(action):
            raise
        if not back_label(s):
            raise no_back(decision[1]) from None
        s.decisions += 1     # every move counts, this one too
        GOING_BACK[decision[1]][1](s)
        return [] if events else None
    ev = Events() if events else None
    _move(s, seat, decision, picks, rng, ev)
    return ev


def random_move(s: State, seat: int, rnd, rng) -> None:
    """The contract's random move (games/contract.py): a pick drawn from the one pending
    decision's options, made without the check that `apply` makes of picks from outside, and
    no events made."""
    decision = s.pending
    if decision is None or seat != decision[0]:
        raise out_of_turn(s.over, s.names, seat, [decision[0]] if decision else [])
    _, _, options, lo, hi = decision
    _move(s, seat, decision, draw_uniform(options, lo, hi, rnd), rng, None)


def _move(s: State, seat: int, decision: tuple, picks: tuple, rng, ev: list | None) -> None:
    """Make a legal pick of the pending decision and run the game on, adding its events to `ev`
    (none when it is None)."""
    s.decisions += 1
    s.pending = None
    STEPS[decision[1]](s, seat, picks, rng, ev)
    if s.pending is None and not s.over:
        _next_role(s, ev)


