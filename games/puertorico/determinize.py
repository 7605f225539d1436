"""Determinization: a full State consistent with what the seat to act sees, for searching bots.

Everything in Puerto Rico is public but the order of the face-down plantation stack (§10), so a
state is rebuilt from the view once, and each sample only deals the stack anew: its contents are
the tiles in play (the 2-player removals left out, D20) minus every tile showing on an island, in
the face-up row or on the discard pile.

Tile ids within a kind are interchangeable: a rebuilt state gives the visible tiles the ids of
their kind in order and the stack the rest. Ids matter only to reshuffles, which imagined play
deals with plain randomness anyway (games.imagined). A view shows tiles by kind on a blind table
too, where the real state holds handles: a sample is always an open table's state, with ids.
"""
from __future__ import annotations

import random

from games.imagined import shuffled

from . import mayor, plantations
from .components import BUILDINGS, BY_KEY, GOODS, TABLES, TILE_KINDS
from .flow import turn_order
from .state import State


def _board(s: State, view: dict) -> None:
    """Every player's board and every supply, as the view shows them."""
    for p, pv in zip(s.players, view["players"]):
        p.doubloons = pv["doubloons"]
        p.goods = [pv["goods"][g] for g in GOODS]
        p.chips, p.paper = pv["vp_chips"], pv["vp_paper"]
        for k, kind in enumerate(TILE_KINDS):
            p.tiles[k], p.worked[k] = pv["island"].get(kind, (0, 0))
        p.city = {BY_KEY[key]: c for key, c in pv["city"]}
        p.san_juan = pv["san_juan"]
    s.quarries = view["quarries"]
    s.colonist_supply = view["colonists"]["supply"]
    s.colonist_ship = view["colonists"]["ship"]
    s.vp_supply = view["vp_chips"]
    s.barrels = [view["goods"][g] for g in GOODS]
    s.buildings = [view["buildings"][b.key] for b in BUILDINGS]
    s.ship_sizes = tuple(ship["size"] for ship in view["ships"])
    s.ships = [(None if ship["good"] is None else GOODS.index(ship["good"]), ship["load"])
               for ship in view["ships"]]
    s.house = [GOODS.index(g) for g in view["trading_house"]]


def _tiles(s: State, view: dict) -> None:
    """The face-up row and discard pile with ids of their kinds; the stack holds the unseen rest,
    in id order until a sample shuffles it."""
    free = [[t for t in plantations.in_play(TABLES[s.n].removed_tiles) if plantations.kind(t) == k]
            for k in range(len(GOODS))]
    for p in s.players:                 # islands hold counts; their ids are simply used up
        for k in range(len(GOODS)):
            del free[k][:p.tiles[k]]
    shown = view["plantations"]
    s.row = [free[GOODS.index(g)].pop(0) for g in shown["face_up"]]
    s.discard = [free[GOODS.index(g)].pop(0) for g in shown["discarded"]]
    s.stack = [t for ids in free for t in ids]
    if len(s.stack) != shown["face_down"]:
        raise ValueError("the view is inconsistent: the unseen tiles do not fill the face-down stack")


def _flow(s: State, view: dict) -> None:
    """Round, roles and the pending decision (the seat's own prompt), with what the phase
    remembers between decisions."""
    s.governor, s.round = view["governor"], view["round"]
    s.roles = {r["card"]: r["doubloons"] for r in view["roles"]}
    s.taken = [(r["card"], r["taken_by"]) for r in view["roles"] if r["taken_by"] is not None]
    s.role, s.chooser = view["role"], view["chooser"]
    s.wharfed, s.stopped = frozenset(view["wharf_used"]), frozenset(view["wharf_declined"])
    s.captain_loaded, s.last_round, s.over = view["captain_loaded"], view["last_round"], view["over"]
    prompt = view["prompt"]
    if prompt is None:
        if not s.over:
            raise ValueError("determinize needs the view of the seat to act")
        return
    seat = view["seat"]
    s.pending = (seat, prompt["kind"], tuple(prompt["options"]), prompt["min"], prompt["max"])
    if s.chooser is not None:
        s.order = turn_order(s.n, s.chooser)
        s.turn = s.order.index(seat)
    if prompt["kind"] == "place":
        s.group = [g for g, _ in mayor.groups(s.players[seat])].index(view["placing"])
    elif prompt["kind"] == "windrose":
        # The kinds kept in warehouses are those held but not offered for the windrose.
        held = s.players[seat].goods
        s.stored = tuple(g for i, g in enumerate(GOODS) if held[i] and g not in prompt["options"])


class Determinizer:
    """States consistent with one view: it is read once, and each sample deals the stack anew."""

    def __init__(self, view: dict) -> None:
        if view.get("seat") is None:
            raise ValueError("determinize needs a seat's view, not a spectator's")
        s = State([p["name"] for p in view["players"]])
        _board(s, view)
        _tiles(s, view)
        _flow(s, view)
        self.template = s

    def sample(self, rnd: random.Random) -> State:
        s = self.template.copy()
        s.stack = shuffled(s.stack, rnd)
        return s


def determinize(view: dict, rnd: random.Random) -> State:
    """A full state consistent with the view of the seat to act, the face-down stack in a random
    order drawn with `rnd`."""
    return Determinizer(view).sample(rnd)
