"""The mayor phase (docs/rules.md, 'Puerto Rico'): the mayor's privilege colonist, the ship's
colonists handed out one at a time, each player's placement from the mayor (D7), and the refill
of the ship.

A placement is asked as one short question per group of circles, in a fixed order: "how many
colonists on your X?" with bounds that keep every answer legal and fill every circle that can
be filled (docs/playing.md, 'Puerto Rico'). Each allocation has exactly one path.
"""
from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

from games.events import say
from games.text import plural

from .board import trigger_end
from .components import BUILDINGS, BY_KEY, MAYOR_EXTRA_COLONISTS, TILE_KINDS
from .state import Player, State


def start(s: State, rng, ev: list | None) -> None:
    if s.colonist_supply:   # D2: a yes/no, only while the supply has a colonist
        s.pending = (s.role_chooser(), "mayor", ("colonist",), 0, 1)
        return
    _hand_out(s, ev)


def on_privilege(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks:
        s.colonist_supply -= MAYOR_EXTRA_COLONISTS
        s.players[seat].san_juan += MAYOR_EXTRA_COLONISTS
        if ev is not None:
            say(ev, "mayor", lambda who=s.names[seat]: f"{who} takes a colonist from the supply (privilege).")
    _hand_out(s, ev)


def share(ship: int, n: int, offset: int) -> int:
    """Colonists the player `offset` seats after the mayor gets when `ship` colonists are handed
    out one at a time: ceil((ship - offset) / n)."""
    left = ship - offset
    return -(-left // n) if left > 0 else 0


def _hand_out(s: State, ev: list | None) -> None:
    ship, n = s.colonist_ship, len(s.players)
    for offset, seat in enumerate(s.order):
        s.players[seat].san_juan += share(ship, n, offset)
    s.colonist_ship = 0
    if ev is not None:
        say(ev, "mayor", lambda ship=ship: f"The ship's {plural(ship, 'colonist')} go ashore.")
    s.turn = 0
    _next_placement(s, ev)


# Made once: each building's group (its name, its circles), and each tile kind's number by name.
_BUILDING_GROUP = tuple((b.key, b.circles) for b in BUILDINGS)
_TILE_KIND = {name: k for k, name in enumerate(TILE_KINDS)}
_circles = itemgetter(1)     # of a (group, circles) pair


def groups(p: Player) -> tuple[tuple[str, int], ...]:
    """(group, circles) of a board in the asking order: plantations by good, quarries, then each
    building in catalog order. Groups without circles are left out."""
    return _groups(tuple(p.tiles), tuple(p.city))


# A placement asks its groups again at every question, and a board's tiles and buildings do not
# change while it is placed: so each board's groups are made once, not at every question, and
# kept for the few thousand boards seen last.
@lru_cache(maxsize=4096)
def _groups(tiles: tuple[int, ...], buildings: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    out = [(TILE_KINDS[k], n) for k, n in enumerate(tiles) if n]
    out += [_BUILDING_GROUP[b] for b in sorted(buildings)]
    return tuple(out)


def _next_placement(s: State, ev: list | None) -> None:
    while s.turn < len(s.order):
        p = s.players[s.order[s.turn]]
        # Every colonist comes off the board, to be placed anew (R1:207).
        p.san_juan += sum(p.worked) + sum(p.city.values())
        p.worked = [0] * len(TILE_KINDS)
        for b in p.city:
            p.city[b] = 0
        s.group = 0
        if _place(s, groups(p)):
            return
        _finish_seat(s, ev)
    _refill(s, ev)


def bounds(circles: int, later: int, unplaced: int) -> tuple[int, int]:
    """How many of the `unplaced` colonists a group of `circles` may take when the groups after it
    have `later` circles: at least what those cannot hold, at most its circles, so that every
    circle that can be filled is (R1:214)."""
    room = circles + later
    left = unplaced if unplaced < room else room      # those that must still go on circles
    return (left - later if left > later else 0), (circles if circles < left else left)


def _place(s: State, gs: tuple[tuple[str, int], ...]) -> bool:
    """Place the current seat's colonists from group `s.group` of his groups `gs` on, asking where
    there is a choice. True when a question is pending."""
    seat = s.order[s.turn]
    p = s.players[seat]
    group = s.group
    later = sum(map(_circles, gs[group:]))    # circles of this group and those after it
    while group < len(gs):
        name, circles = gs[group]
        later -= circles
        lo, hi = bounds(circles, later, p.san_juan)
        if lo != hi:
            s.group = group
            s.pending = (seat, "place", tuple(range(lo, hi + 1)), 1, 1)
            return True
        _put(p, name, lo)
        group += 1
    s.group = group
    return False


def first_question(p: Player) -> int | None:
    """The group of the first question of this board's placement (`_place` from group 0 with
    every colonist off the board), or None when nothing is asked."""
    gs = groups(p)
    unplaced = p.san_juan + sum(p.worked) + sum(p.city.values())
    later = sum(circles for _, circles in gs)
    for i, (_, circles) in enumerate(gs):
        later -= circles
        lo, hi = bounds(circles, later, unplaced)
        if lo != hi:
            return i
        unplaced -= lo
    return None


def back_label(s: State) -> str:
    """A placement is told to the others only once it is whole (_finish_seat): from its second
    question on, the placing seat may start it again. Empty when that is not offered."""
    p = s.players[s.asked()[0]]
    return "place your colonists again from the first question" if s.group != first_question(p) else ""


def go_back(s: State) -> None:
    """Every colonist off the board and the placement asked from the start, as _next_placement
    began it."""
    seat = s.asked()[0]
    p = s.players[seat]
    p.san_juan += sum(p.worked) + sum(p.city.values())
    p.worked = [0] * len(TILE_KINDS)
    for b in p.city:
        p.city[b] = 0
    s.group = 0
    _place(s, groups(p))


def _put(p: Player, group: str, colonists: int) -> None:
    k = _TILE_KIND.get(group)
    if k is not None:
        p.worked[k] = colonists
    else:
        p.city[BY_KEY[group]] = colonists
    p.san_juan -= colonists


def on_place(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    p = s.players[seat]
    gs = groups(p)
    _put(p, gs[s.group][0], picks[0])
    s.group += 1
    if _place(s, gs):
        return
    _finish_seat(s, ev)
    _next_placement(s, ev)


def _finish_seat(s: State, ev: list | None) -> None:
    """Announce the placement of the current seat and move on to the next."""
    seat = s.order[s.turn]
    p = s.players[seat]
    if ev is not None:
        say(ev, "place", lambda who=s.names[seat], worked=tuple(p.worked), city=sorted(p.city.items()),
            san_juan=p.san_juan: f"{who} places colonists: {_placed(worked, city, san_juan)}.")
    s.turn += 1


def _placed(worked, city, san_juan: int) -> str:
    """Where a board's colonists are, in words: "2 on corn, 1 on small market, 1 in San Juan"."""
    where = [f"{c} on {TILE_KINDS[k]}" for k, c in enumerate(worked) if c]
    where += [f"{c} on {BUILDINGS[b].name.lower()}" for b, c in city if c]
    if san_juan:
        where.append(f"{san_juan} in San Juan")
    return ", ".join(where) or "none"


def refill_need(s: State) -> int:
    """Colonists the ship needs: one per empty building circle on every board (plantations do not
    count), at least one per player."""
    empty = 0
    for p in s.players:
        for b, c in p.city.items():
            empty += BUILDINGS[b].circles - c
    return max(len(s.players), empty)


def _refill(s: State, ev: list | None) -> None:
    need = refill_need(s)
    if s.colonist_supply >= need:
        s.colonist_ship = need
        s.colonist_supply -= need
    else:   # D8: what is left goes on the ship, and the game ends with the round
        s.colonist_ship = s.colonist_supply
        s.colonist_supply = 0
        trigger_end(s, ev, "The colonists ran out")
    if ev is not None:
        say(ev, "mayor", lambda ship=s.colonist_ship:
            f"The colonist ship carries {plural(ship, 'colonist')} for the next mayor.")
