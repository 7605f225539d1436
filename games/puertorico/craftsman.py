"""The craftsman phase (docs/rules.md, 'Puerto Rico'): everyone produces, from the craftsman on,
as much as the supply has (production is automatic, D3); an occupied factory pays for the kinds
received; last, the craftsman may take one more barrel of a kind he received (D4)."""
from __future__ import annotations

from games.events import say
from games.text import plural

from .board import occupied, production
from .components import CRAFTSMAN_EXTRA_BARRELS, FACTORY, FACTORY_BONUS, GOODS
from .state import State


def start(s: State, rng, ev: list | None) -> None:
    received: tuple[int, ...] = ()
    for seat in s.order:
        got = _produce(s, seat, ev)
        if seat == s.chooser:
            received = got
    options = tuple(GOODS[g] for g in received if s.barrels[g])
    if options:
        s.pending = (s.role_chooser(), "craftsman", options, 0, 1)


def _produce(s: State, seat: int, ev: list | None) -> tuple[int, ...]:
    """Give the seat what it produces, capped by the supply; the kinds it received."""
    p = s.players[seat]
    got = []
    for good, made in enumerate(production(p)):
        if not made:      # most boards make few of the five goods
            continue
        take = received(made, s.barrels[good])
        if take:
            s.barrels[good] -= take
            p.goods[good] += take
            got.append((good, take))
    bonus = FACTORY_BONUS[len(got)] if occupied(p, FACTORY) else 0
    p.doubloons += bonus
    if ev is not None:
        say(ev, "produce", lambda who=s.names[seat], bonus=bonus:
            f"{who} produces {', '.join(f'{k} {GOODS[g]}' for g, k in got) or 'nothing'}"
            + (f" and takes {plural(bonus, 'doubloon')} (factory)." if bonus else "."))
    return tuple([g for g, _ in got])


def received(made: int, supply: int) -> int:
    """Barrels of a kind a player gets: what he makes, as far as the supply goes (R1:277)."""
    return made if made < supply else supply


def on_extra(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks:
        good = GOODS.index(picks[0])
        s.barrels[good] -= CRAFTSMAN_EXTRA_BARRELS
        s.players[seat].goods[good] += CRAFTSMAN_EXTRA_BARRELS
        if ev is not None:
            say(ev, "craftsman", lambda who=s.names[seat], good=picks[0]: f"{who} takes 1 more {good} (privilege).")
