"""Build Puerto Rico positions by name, for rules tests.

    s, rng = make([{"goods": {"corn": 2}, "island": {"corn": (3, 2)}, "city": {"harbor": 1}},
                   {"doubloons": 10}],
                  row=["sugar", "coffee"], stack=["indigo"])   # the stack top first
    play(s, rng, 0, "captain")      # seat 0 is governor and picks the captain

Supplies, money, ships and roles are set out as at the start for the number of players; a
player's `doubloons` replaces his starting money. Buildings named in a city are taken from the
board's supply. Row and stack tiles get the lowest unused ids of their kind.
"""
from __future__ import annotations

from games import puertorico
from games.puertorico import plantations
from games.puertorico.components import BY_KEY, GOODS, TILE_KINDS
from games.puertorico.state import State
from games.puertorico.table import set_out
from protocol.fairness import local_streams

NAMES = ["Anna", "Bob", "Chris", "David", "Emma"]


def make(players: list[dict], *, row=(), stack=(), discard=(), **fields) -> tuple[State, object]:
    """Players: dicts with optional `doubloons`, `goods` {good: barrels}, `island` {kind: (tiles,
    colonists)}, `city` {building: colonists}, `san_juan`, `chips`, `paper`. `fields` set state
    attributes (`barrels` may be a {good: count} dict that changes only the goods named)."""
    s = State(NAMES[:len(players)])
    set_out(s)
    for spec, p in zip(players, s.players):
        p.doubloons = spec.get("doubloons", p.doubloons)
        for good, k in spec.get("goods", {}).items():
            p.goods[GOODS.index(good)] = k
        for kind, (tiles, worked) in spec.get("island", {}).items():
            p.tiles[TILE_KINDS.index(kind)] = tiles
            p.worked[TILE_KINDS.index(kind)] = worked
        for key, colonists in spec.get("city", {}).items():
            p.city[BY_KEY[key]] = colonists
            s.buildings[BY_KEY[key]] -= 1
        p.san_juan = spec.get("san_juan", 0)
        p.chips = spec.get("chips", 0)
        p.paper = spec.get("paper", 0)
    free = plantations.in_play(0)

    def ids(kinds):
        out = []
        for k in kinds:
            tile = min(t for t in free if GOODS[plantations.kind(t)] == k)
            free.remove(tile)
            out.append(tile)
        return out

    s.row = ids(row)
    s.stack = ids(stack)[::-1]
    s.discard = ids(discard)
    for name, value in fields.items():
        if name == "barrels":
            for good, k in value.items():
                s.barrels[GOODS.index(good)] = k
        else:
            setattr(s, name, value)
    return s, local_streams("scenario")


def play(s: State, rng, seat: int, role: str, taken=()) -> list:
    """Make `seat` the chooser of the round's next pick, after the `taken` [(card, seat)], and
    pick `role`. Returns the events."""
    s.taken = list(taken)
    s.governor = (seat - len(s.taken)) % len(s.players)
    s.pending = (seat, "role", puertorico.flow.role_options(s), 1, 1)
    return puertorico.apply(s, seat, [role], rng)


def ask(s: State):
    """The pending decision as (seat, kind, options, min, max), or None."""
    seat = puertorico.to_act(s)
    if not seat:
        return None
    p = puertorico.prompt(s, seat[0])
    return seat[0], p["kind"], p["options"], p["min"], p["max"]


def answer(s: State, rng, *picks) -> list:
    """The seat to act picks `picks`."""
    return puertorico.apply(s, puertorico.to_act(s)[0], list(picks), rng)
