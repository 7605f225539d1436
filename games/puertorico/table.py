"""Setup (the rulebook's; docs/rules.md D20): the first governor, the starting plantations, the
shuffled stack and the face-up row, and every supply for the number of players."""
from __future__ import annotations

from . import plantations
from .components import BARRELS, QUARRY_TILES, ROLE_CARDS, TABLES, building_copies
from .flow import begin_round
from .info import INFO
from .state import State


def setup(names, options: dict | None, rng) -> State:
    names = tuple(names)
    n = INFO.check_players(len(names))
    INFO.check_options(options)
    table = TABLES[n]
    s = State(names)

    # docs/fairness.md §3: the governor is drawn first; the starting plantations are the lowest ids of
    # their kind, given in turn order from him, and stay out of the shuffle (D20).
    s.governor = rng.randbelow("start-player", 0, n)
    tiles = plantations.in_play(table.removed_tiles)
    for offset, kind in enumerate(table.start_tiles):
        tile = min(t for t in tiles if plantations.kind(t) == kind)
        tiles.remove(tile)
        s.players[(s.governor + offset) % n].tiles[kind] += 1
    s.kinds = rng.looked(plantations.MANIFEST)
    s.stack = rng.shuffle("plantations/initial", 0, tiles)[::-1]
    s.row = [s.stack.pop() for _ in range(n + 1)]
    rng.reveal(s.row)

    set_out(s)
    begin_round(s, [])
    return s


def set_out(s: State) -> None:
    """Money, supplies, ships and role cards for the number of players; the plantations are not
    touched (setup deals them, tests place them)."""
    n = len(s.players)
    table = TABLES[n]
    for p in s.players:
        p.doubloons = table.doubloons
    s.quarries = QUARRY_TILES - table.removed_quarries
    s.colonist_supply = table.colonists
    s.colonist_ship = n
    s.vp_supply = table.vp_chips
    s.barrels = [b - table.removed_barrels for b in BARRELS]
    s.buildings = list(building_copies(n))
    s.ship_sizes = table.ships
    s.ships = [(None, 0)] * len(table.ships)
    s.roles = {card: 0 for card in ROLE_CARDS[:table.role_cards]}
