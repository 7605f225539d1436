"""Setup for 3 to 5 players, the round, hidden information, and properties of random games:
nothing is created or lost."""
from __future__ import annotations

import random

import pytest

from games import puertorico
from games.puertorico import plantations
from games.puertorico.components import BARRELS, CORN, INDIGO, TABLES, building_copies
from protocol.fairness import local_streams
from tests.games.puertorico.scenario import answer, ask, make


@pytest.mark.parametrize("n, money, chips, colonists, ships, roles, stack", [
    (3, 2, 75, 55, (4, 5, 6), 6, 43), (4, 3, 100, 75, (5, 6, 7), 7, 41), (5, 4, 122, 95, (6, 7, 8), 8, 39)])
def test_setup(n, money, chips, colonists, ships, roles, stack):
    rng = local_streams(f"setup/{n}")
    s = puertorico.setup([f"P{i}" for i in range(n)], {}, rng)
    g = s.governor
    assert [p.doubloons for p in s.players] == [money] * n
    starting = [INDIGO if k == INDIGO else CORN for k in TABLES[n].start_tiles]
    assert [s.players[(g + i) % n].tiles[starting[i]] for i in range(n)] == [1] * n
    assert all(sum(p.tiles) == 1 and sum(p.worked) == 0 for p in s.players)
    assert (s.vp_supply, s.colonist_supply, s.colonist_ship, s.ship_sizes) == (chips, colonists, n, ships)
    assert len(s.roles) == roles and len(s.row) == n + 1 and len(s.stack) == stack and s.quarries == 8
    assert s.barrels == list(BARRELS) and s.buildings == list(building_copies(n)) and sum(s.buildings) == 49
    # D13: the two prospectors of five players are one option while they carry the same money.
    assert ask(s) == (g, "role", [c for c in s.roles if c != "prospector_2"], 1, 1)


def test_round_end_money_on_unpicked_cards_and_the_governor_passes():
    s, rng = make([{}, {}, {}])
    s.governor, s.taken = 0, []
    s.pending = (0, "role", puertorico.flow.role_options(s), 1, 1)
    for seat, role in ((0, "builder"), (1, "trader"), (2, "craftsman")):
        while ask(s)[1] != "role":
            answer(s, rng)
        assert ask(s)[0] == seat
        answer(s, rng, role)
    assert s.governor == 1 and s.round == 2
    assert s.roles == {"settler": 1, "mayor": 1, "builder": 0, "craftsman": 0, "trader": 0, "captain": 1}
    assert ask(s) == (1, "role", list(s.roles), 1, 1)
    answer(s, rng, "settler")
    assert s.players[1].doubloons == 2 + 1


def test_the_view_shows_the_stack_as_a_count_only():
    s = puertorico.setup(list("abcd"), {}, local_streams(2))
    v = puertorico.view(s, 0)
    assert v["plantations"]["face_down"] == 41 and len(v["plantations"]["face_up"]) == 5
    t = puertorico.permute_hidden(s, 0, random.Random(1))
    assert t.stack != s.stack and sorted(t.stack) == sorted(s.stack)
    assert puertorico.dealt(s, 0) is None


def _totals(s):
    """Colonists, barrels of each kind, VP chips, tiles of each kind and buildings, wherever."""
    colonists = s.colonist_supply + s.colonist_ship + sum(
        p.san_juan + sum(p.worked) + sum(p.city.values()) for p in s.players)
    barrels = [s.barrels[g] + sum(p.goods[g] for p in s.players) + s.house.count(g)
               + sum(load for kind, load in s.ships if kind == g) for g in range(5)]
    chips = s.vp_supply + sum(p.chips for p in s.players)
    tiles = [sum(p.tiles[k] for p in s.players)
             + sum(1 for t in s.stack + s.row + s.discard if plantations.kind(t) == k) for k in range(5)]
    buildings = [s.buildings[b] + sum(b in p.city for p in s.players) for b in range(len(s.buildings))]
    return colonists, barrels, chips, tiles, buildings, s.quarries + sum(p.tiles[5] for p in s.players)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_conserve_every_component(n):
    for seed in range(6):
        rng = local_streams(f"conserve/{n}/{seed}")
        s = puertorico.setup([f"P{i}" for i in range(n)], {}, rng)
        start = _totals(s)
        moves = random.Random(seed)
        while puertorico.to_act(s):
            seat = puertorico.to_act(s)[0]
            puertorico.apply(s, seat, puertorico.random_action(s, seat, moves), rng)
            assert _totals(s) == start
            for p in s.players:
                assert all(0 <= w <= t for w, t in zip(p.worked, p.tiles)) and sum(p.tiles) <= 12
                assert p.doubloons >= 0 and min(p.goods) >= 0
        assert s.over and s.last_round
