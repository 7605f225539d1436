"""The settler phase (docs/rules.md, 'Puerto Rico'): for each player from the settler, the
hacienda draw, then a face-up plantation (or a quarry), then the hospice colonist; at the end a
new face-up row.
"""
from __future__ import annotations

from games.events import say
from games.text import with_article

from . import plantations
from .board import colonist_available, island_full, occupied, take_bonus_colonist
from .components import CONSTRUCTION_HUT, GOODS, HACIENDA, HOSPICE, QUARRY, TILE_KINDS
from .state import State


def start(s: State, rng, ev: list | None) -> None:
    s.turn = 0
    _turn(s, rng, ev)


def _turn(s: State, rng, ev: list | None) -> None:
    """Ask the next player who can do something, or end the phase."""
    while s.turn < len(s.order):
        seat = s.order[s.turn]
        p = s.players[seat]
        if not island_full(p):
            # D1: the hacienda draws only from a stack with tiles; it never rebuilds the stack.
            if occupied(p, HACIENDA) and s.stack:
                s.pending = (seat, "hacienda", ("draw",), 0, 1)
                return
            if _ask_take(s, seat):
                return
        s.turn += 1
    plantations.refill_row(s, rng, ev)
    if ev is not None:
        say(ev, "row", lambda row=tuple(s.row), kinds=s.kinds: "New face-up plantations: "
            + (", ".join(GOODS[kinds[t]] for t in row) or "none left") + ".")


def take_options(s: State, seat: int) -> tuple[str, ...]:
    """The face-up kinds (D14: identical tiles are one option), and the quarry for the settler
    or an occupied construction hut while quarries remain."""
    p = s.players[seat]
    options = []
    for k in sorted(set(map(s.kinds.__getitem__, s.row))):
        options.append(GOODS[k])
    if may_quarry(s.quarries, seat == s.chooser, occupied(p, CONSTRUCTION_HUT)):
        options.append("quarry")
    return tuple(options)


def may_quarry(quarries: int, settler: bool, construction_hut: bool) -> bool:
    """A quarry instead of a plantation: for the settler (privilege) or an occupied construction
    hut, while quarries remain."""
    return quarries > 0 and (settler or construction_hut)


def _ask_take(s: State, seat: int) -> bool:
    options = take_options(s, seat)
    if not options:
        return False
    s.pending = (seat, "settle", options, 0, 1)
    return True


def on_hacienda(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    p = s.players[seat]
    if picks:
        rng.reveal(s.stack[-1:])          # it goes face up onto the island
        k = s.kinds[s.stack.pop()]
        p.tiles[k] += 1
        if ev is not None:
            say(ev, "hacienda", lambda who=s.names[seat], k=k:
                f"{who} draws {with_article(GOODS[k])} plantation with the hacienda.")
    if island_full(p) or not _ask_take(s, seat):
        s.turn += 1
        _turn(s, rng, ev)


def on_settle(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    p = s.players[seat]
    if not picks:
        if ev is not None:
            say(ev, "settle", lambda who=s.names[seat]: f"{who} takes no plantation.")
    else:
        what = picks[0]
        if what == "quarry":
            k = QUARRY
            s.quarries -= 1
        else:
            k = GOODS.index(what)
            plantations.take_from_row(s.row, s.kinds, k)
        p.tiles[k] += 1
        if ev is not None:
            say(ev, "settle", lambda who=s.names[seat], what=what, k=k:
                f"{who} takes {with_article(what)}{'' if k == QUARRY else ' plantation'}.")
        if occupied(p, HOSPICE) and colonist_available(s):
            s.pending = (seat, "hospice", (TILE_KINDS[k],), 0, 1)
            return
    s.turn += 1
    _turn(s, rng, ev)


def on_hospice(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks:
        take_bonus_colonist(s)
        s.players[seat].worked[TILE_KINDS.index(picks[0])] += 1
        if ev is not None:
            say(ev, "hospice", lambda who=s.names[seat], tile=picks[0]:
                f"{who} puts a colonist on the new {tile} (hospice).")
    s.turn += 1
    _turn(s, rng, ev)
