"""The captain phase (docs/rules.md, 'Puerto Rico'): loading turns from the captain, round and
round, while anybody can load; then storage, from the captain; then full ships are emptied.

A loading option is a string "good:ship", the ship named by its size ("corn:6") or "wharf".
"""
from __future__ import annotations

from games.events import say

from .board import occupied, trigger_end, warehouse_kinds
from .components import GOODS, HARBOR, WHARF, WINDROSE_BARRELS
from .state import State

WHARF_SHIP = "wharf"


def start(s: State, rng, ev: list | None) -> None:
    s.turn = 0
    s.wharfed = frozenset()
    s.stopped = frozenset()
    s.captain_loaded = False
    _next_loader(s, ev)


def cargo_options(s: State, seat: int) -> list[tuple[int, int]]:
    """(good, ship index) the seat may load."""
    return cargo_choices(s.players[seat].goods, s.ships, s.ship_sizes)


def cargo_choices(goods, ships, sizes) -> list[tuple[int, int]]:
    """(good, ship index) a player holding `goods` (barrels by good) may load onto `ships`
    ((good or None, barrels) each, of capacities `sizes`). A good already on a ship goes only
    there, while it has room; any other good goes on an empty ship, one that takes the most of
    his barrels of it (R1:322-324)."""
    out = []
    for good, held in enumerate(goods):
        if not held:
            continue
        empty = []
        for i, (g, barrels) in enumerate(ships):
            if g == good:     # the ship carrying it (a good is on one ship at most) or none
                if barrels < sizes[i]:
                    out.append((good, i))
                break
            if g is None:
                empty.append(i)
        else:
            # The empty ships that take the most of it, in ship order (a loop: no generator or
            # list comprehension made, and each ship's amount worked out once).
            best, fullest = 0, []
            for i in empty:
                amount = cargo_amount(held, sizes[i])
                if amount > best:
                    best, fullest = amount, [i]
                elif amount == best:
                    fullest.append(i)
            for i in fullest:
                out.append((good, i))
    return out


def load_options(s: State, seat: int) -> tuple[tuple[str, ...], int]:
    """The options of a loading turn and their minimum: 1 while a cargo ship takes something;
    0 when only the wharf is left, which the player may decline (D5)."""
    p = s.players[seat]
    options = []
    for g, i in cargo_options(s, seat):
        options.append(f"{GOODS[g]}:{s.ship_sizes[i]}")
    lo = 1 if options else 0
    if occupied(p, WHARF) and seat not in s.wharfed and seat not in s.stopped:
        options += [f"{GOODS[g]}:{WHARF_SHIP}" for g in range(len(GOODS)) if p.goods[g]]
    return tuple(options), lo


def _next_loader(s: State, ev: list | None) -> None:
    """Ask the next seat, from s.turn on, that can load; a turn with one option and no choice to
    decline is played at once (forced decisions are not asked). After a round of nobody, store."""
    n = len(s.order)
    idle = 0
    while idle < n:
        seat = s.order[s.turn]
        options, lo = load_options(s, seat)
        if not options:
            idle += 1
            s.turn = (s.turn + 1) % n
        elif len(options) == 1 and lo == 1:
            _load(s, seat, options[0], ev)
            idle = 0
            s.turn = (s.turn + 1) % n
        else:
            s.pending = (seat, "load", options, lo, 1)
            return
    s.turn = 0
    _next_storer(s, ev)


def on_load(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks:
        _load(s, seat, picks[0], ev)
    else:   # only the wharf was left and he declined it: he is done loading (D5)
        s.stopped = s.stopped | {seat}
    s.turn = (s.turn + 1) % len(s.order)
    _next_loader(s, ev)


def _load(s: State, seat: int, option: str, ev: list | None) -> None:
    good_name, ship = option.split(":")
    good = GOODS.index(good_name)
    p = s.players[seat]
    if ship == WHARF_SHIP:
        amount = cargo_amount(p.goods[good], None)
        s.barrels[good] += amount
        s.wharfed = s.wharfed | {seat}
        where = "his wharf"
    else:
        i = s.ship_sizes.index(int(ship))
        amount = cargo_amount(p.goods[good], s.ship_sizes[i], s.ships[i][1])
        s.ships[i] = (good, s.ships[i][1] + amount)
        where = f"the {ship}-ship"
    p.goods[good] -= amount
    first = seat == s.chooser and not s.captain_loaded   # the privilege, on his first load only
    vp = load_vp(amount, occupied(p, HARBOR), first)
    s.captain_loaded = s.captain_loaded or first
    _award(s, seat, vp, ev)
    if ev is not None:
        say(ev, "load", lambda who=s.names[seat], amount=amount, where=where, vp=vp:
            f"{who} loads {amount} {good_name} on {where} for {vp} VP.")


def cargo_amount(held: int, size: int | None, load: int = 0) -> int:
    """Barrels of the `held` a load ships: on a cargo ship of `size` carrying `load`, as many as
    fit; with the wharf (size None), all of them."""
    if size is None:
        return held
    room = size - load
    return held if held < room else room


def load_vp(barrels: int, harbor: bool, captain_first: bool) -> int:
    """VP for one load (a wharf load too): 1 per barrel, +1 for an occupied harbor, +1 for the
    captain's first load of the phase."""
    return barrels + harbor + captain_first


def _award(s: State, seat: int, vp: int, ev: list | None) -> None:
    """VP come as chips while there are any, then on paper (D9); the last chip ends the game."""
    p = s.players[seat]
    chips = vp if vp < s.vp_supply else s.vp_supply
    s.vp_supply -= chips
    p.chips += chips
    p.paper += vp - chips
    if s.vp_supply == 0:
        trigger_end(s, ev, "The VP chips ran out")


# ---------------------------------------------------------------- storage

def _next_storer(s: State, ev: list | None) -> None:
    """Storage, for each seat from the captain: whole kinds in warehouses, then one barrel on the
    windrose; the rest goes back (D6: keeping is always maximal, so only real choices are asked)."""
    while s.turn < len(s.order):
        seat = s.order[s.turn]
        p = s.players[seat]
        kinds = _held(p.goods)
        room = warehouse_kinds(p)
        if room and len(kinds) > room:
            s.pending = (seat, "warehouse", kinds, room, room)
            return
        s.stored = kinds if room else ()
        if _ask_windrose(s, seat, ev):
            return
        s.turn += 1
    _unload(s, ev)


def on_warehouse(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    s.stored = picks
    if not _ask_windrose(s, seat, ev):
        s.turn += 1
        _next_storer(s, ev)


def _ask_windrose(s: State, seat: int, ev: list | None) -> bool:
    """Ask which kind keeps its one barrel when there is a choice, else store at once."""
    rest = []
    for name in _held(s.players[seat].goods):
        if name not in s.stored:
            rest.append(name)
    if len(rest) > 1:
        s.pending = (seat, "windrose", tuple(rest), 1, 1)
        return True
    _store(s, seat, rest[0] if rest else None, ev)
    return False


def back_label(s: State) -> str:
    """Storage is told to the others once it is done (_store): at the windrose, a seat that was
    asked for its warehouses may choose them again. The kinds stored are never empty once the
    warehouses were asked, and always empty at a windrose question they were not asked before."""
    return "choose the goods for your warehouses again" if s.stored else ""


def go_back(s: State) -> None:
    """The warehouse question again, as _next_storer asked it."""
    seat = s.asked()[0]
    p = s.players[seat]
    s.stored = ()
    s.pending = (seat, "warehouse", _held(p.goods), warehouse_kinds(p), warehouse_kinds(p))


def _held(goods) -> tuple[str, ...]:
    """The kinds of goods held (`goods`: barrels by good), by name in the order of GOODS; made in a
    loop, which a random game runs more cheaply than a list comprehension."""
    out = []
    for g, name in enumerate(GOODS):
        if goods[g]:
            out.append(name)
    return tuple(out)


def on_windrose(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    _store(s, seat, picks[0], ev)
    s.turn += 1
    _next_storer(s, ev)


def _store(s: State, seat: int, windrose: str | None, ev: list | None) -> None:
    """Keep the warehoused kinds whole and one barrel of `windrose`; the rest goes back."""
    goods = s.players[seat].goods
    lost = []     # (barrels, good): the words are written only when read
    for g, name in enumerate(GOODS):
        held = goods[g]
        if held:
            keep = barrels_kept(held, name in s.stored, name == windrose)
            if held > keep:
                lost.append((held - keep, name))
                s.barrels[g] += held - keep
                goods[g] = keep
    s.stored = ()
    if lost and ev is not None:
        say(ev, "store", lambda who=s.names[seat]: f"{who} cannot store "
            f"{', '.join([f'{n} {name}' for n, name in lost])}: back to the supply.")


def barrels_kept(held: int, warehouse: bool, windrose: bool) -> int:
    """Barrels of one kind a player keeps at the end of the captain phase: all of them in a
    warehouse, one on the windrose, else none."""
    return held if warehouse else min(WINDROSE_BARRELS, held) if windrose else 0


def _unload(s: State, ev: list | None) -> None:
    """The captain's last duty: full ships are emptied into the supply (R1:338)."""
    for i, (good, load) in enumerate(s.ships):
        if load == s.ship_sizes[i]:
            assert good is not None, "a full ship holds a good"
            s.barrels[good] += load
            s.ships[i] = (None, 0)
            if ev is not None:
                say(ev, "unload", lambda size=s.ship_sizes[i]: f"The full {size}-ship is emptied.")
