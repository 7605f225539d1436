"""The builder phase (docs/rules.md, 'Puerto Rico'): each player from the builder may build one
building, the builder 1 doubloon cheaper; an occupied university may staff it."""
from __future__ import annotations

from functools import lru_cache

from games.events import say
from games.text import plural, with_article

from .board import (build_cost, building_prices, colonist_available, free_spaces, occupied, take_bonus_colonist,
                    trigger_end)
from .components import BUILDINGS, BY_KEY, QUARRY, UNIVERSITY
from .state import State


def start(s: State, rng, ev: list | None) -> None:
    s.turn = 0
    _turn(s, ev)


def build_options(s: State, seat: int, builder: bool | None = None) -> tuple[str, ...]:
    """Buildings the seat may build now, in catalog order: one he does not own, with a copy left,
    that fits his city and that he can pay for. `builder`: whether he has the builder's discount,
    by default whether he picked the phase (a bot asks ahead of the pick)."""
    p = s.players[seat]
    if builder is None:
        builder = seat == s.chooser
    free = free_spaces(p)
    stock, city = s.buildings, p.city
    # The price first, from a table: it rules out the most buildings.
    out = []
    for i, key, spaces in _priced_within(p.worked[QUARRY], builder, p.doubloons):
        if stock[i] and spaces <= free and i not in city:
            out.append(key)
    return tuple(out)


# Each building's number, key and spaces, read in that loop without an attribute lookup.
_CATALOG = tuple((b.index, b.key, b.spaces) for b in BUILDINGS)


@lru_cache(maxsize=None)
def _priced_within(quarries: int, builder: bool, money: int) -> tuple[tuple[int, str, int], ...]:
    """The buildings of _CATALOG, in its order, that cost at most `money` at these reductions. A
    purse rarely holds more than a few dozen doubloons, so a few hundred tables are all there ever
    are, and the builder's options then look only at the buildings the purse can pay for."""
    prices = building_prices(quarries, builder)
    return tuple(entry for entry in _CATALOG if prices[entry[0]] <= money)


def _turn(s: State, ev: list | None) -> None:
    while s.turn < len(s.order):
        seat = s.order[s.turn]
        options = build_options(s, seat)
        if options:
            s.pending = (seat, "build", options, 0, 1)
            return
        s.turn += 1


def on_build(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    p = s.players[seat]
    if not picks:
        if ev is not None:
            say(ev, "build", lambda who=s.names[seat]: f"{who} builds nothing.")
    else:
        b = BY_KEY[picks[0]]
        cost = build_cost(p, b, seat == s.chooser)
        p.doubloons -= cost
        s.buildings[b] -= 1
        p.city[b] = 0
        if ev is not None:
            say(ev, "build", lambda who=s.names[seat], b=b, cost=cost:
                f"{who} builds {with_article(BUILDINGS[b].name.lower())} for {plural(cost, 'doubloon')}.")
        if not free_spaces(p):
            trigger_end(s, ev, f"{s.names[seat]} has filled the 12th city space")
        if occupied(p, UNIVERSITY) and colonist_available(s):
            s.pending = (seat, "university", (picks[0],), 0, 1)
            return
    s.turn += 1
    _turn(s, ev)


def on_university(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks:
        take_bonus_colonist(s)
        s.players[seat].city[BY_KEY[picks[0]]] = 1
        if ev is not None:
            say(ev, "university", lambda who=s.names[seat], key=picks[0]:
                f"{who} puts a colonist on the new {BUILDINGS[BY_KEY[key]].name.lower()} (university).")
    s.turn += 1
    _turn(s, ev)
