"""Puerto Rico's rule-of-thumb player: legal picks from the view alone at every table size,
determinism, the rules of thumb that matter on built positions, and a clear edge over random."""
from __future__ import annotations

import json

import pytest

import bots
from games import puertorico
from games.puertorico.components import BUILDINGS, BY_KEY, COFFEE, CORN, INDIGO, SUGAR, TOBACCO
from games.puertorico.heuristic import HeuristicBot
from protocol.fairness import local_streams
from tests.games.puertorico.scenario import answer, ask, make, play


def game(levels, seed, record=None):
    """A whole game; every view goes through JSON, so the bots see plain data only. The engine's
    apply raises on an illegal pick, so finishing the game proves every pick legal."""
    rng = local_streams(seed)
    s = puertorico.setup([f"P{i}" for i in range(len(levels))], {}, rng)
    players = [bots.make("puertorico", lv, f"{seed}/{i}") for i, lv in enumerate(levels)]
    while puertorico.to_act(s):
        seat = puertorico.to_act(s)[0]
        view = json.loads(json.dumps(puertorico.view(s, seat)))
        action = players[seat].choose(view)
        if record is not None:
            record.append((seat, action))
        puertorico.apply(s, seat, action, rng)
    return puertorico.result(s)


def test_registered_as_the_default_level():
    assert bots.levels("puertorico")[:2] == ["random", "heuristic"]
    assert bots.default_level("puertorico") == "heuristic"
    assert bots.make("puertorico", "heuristic", 1).level == "heuristic"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_pick_is_legal(players):
    for g in range(3):
        levels = (["heuristic"] * players if g == 0
                  else [("heuristic" if (i + g) % 2 else "random") for i in range(players)])
        assert game(levels, f"legal/{players}/{g}")["over"]


def test_deterministic_for_a_seed():
    a, b = [], []
    game(["heuristic", "heuristic", "random", "heuristic"], "det", a)
    game(["heuristic", "heuristic", "random", "heuristic"], "det", b)
    assert a == b


def test_beats_random_clearly():
    """A fixed series, seats rotated: the heuristic player wins nearly every game."""
    wins = 0
    for g in range(12):
        levels = ["random"] * 4
        levels[g % 4] = "heuristic"
        wins += (g % 4) in game(levels, f"strength/{g}")["winners"]
    assert wins >= 11


# ---------------------------------------------------------------- rules of thumb

def choose(s, seed=0):
    seat = puertorico.to_act(s)[0]
    return HeuristicBot(seed).choose(json.loads(json.dumps(puertorico.view(s, seat))))


def test_free_things_are_always_taken():
    """A free colonist (mayor, hospice) and the craftsman's extra barrel are never declined."""
    s, rng = make([{"city": {"hospice": 1}}, {}, {}], row=["corn", "indigo", "sugar", "coffee"])
    play(s, rng, 0, "mayor")
    assert ask(s)[1] == "mayor" and choose(s) == ["colonist"]
    s, rng = make([{"city": {"hospice": 1}}, {}, {}], row=["corn", "indigo", "sugar", "coffee"])
    play(s, rng, 0, "settler")
    assert ask(s)[1] == "settle"
    pick = choose(s)
    assert len(pick) == 1
    answer(s, rng, *pick)
    assert ask(s)[1] == "hospice" and choose(s) == ask(s)[2]


def test_craftsman_takes_the_dearest_barrel():
    s, rng = make([{"island": {"corn": (1, 1), "coffee": (1, 1)}, "city": {"coffee_roaster": 1}},
                   {}, {}])
    play(s, rng, 0, "craftsman")
    assert ask(s)[:3] == (0, "craftsman", ["corn", "coffee"])
    assert choose(s) == ["coffee"]


def test_trader_sells_the_dearest_barrel_and_never_corn_for_nothing():
    s, rng = make([{"goods": {"corn": 2, "tobacco": 1}}, {"goods": {"corn": 1}}, {}])
    play(s, rng, 0, "trader")
    assert choose(s) == ["tobacco"]
    answer(s, rng, "tobacco")
    assert ask(s)[:3] == (1, "sell", ["corn"])
    assert choose(s) == []   # no market: a corn barrel sells for 0


def test_captain_ships_the_big_load_and_the_windrose_keeps_the_dear_barrel():
    """One empty ship left: coffee on it would leave five corn to rot; corn goes on it."""
    s, rng = make([{"goods": {"corn": 5, "coffee": 1}}, {}, {}],
                  ships=[(SUGAR, 1), (INDIGO, 1), (None, 0)])
    play(s, rng, 0, "captain")
    assert ask(s)[:3] == (0, "load", ["corn:6", "coffee:6"])
    assert choose(s) == ["corn:6"]
    s, rng = make([{"goods": {"corn": 3, "coffee": 2}}, {}, {}],
                  ships=[(CORN, 4), (COFFEE, 5), (TOBACCO, 6)])
    play(s, rng, 0, "captain")     # nothing fits: store
    assert ask(s)[:3] == (0, "windrose", ["corn", "coffee"])
    assert choose(s) == ["coffee"]


def test_mayor_staffs_the_production_pair():
    """Three colonists, a tobacco plantation and storage, an indigo plantation without a plant:
    the tobacco plantation and the storage get one each, so the board produces tobacco."""
    s, rng = make([{"island": {"tobacco": (1, 0), "indigo": (1, 0)}, "city": {"tobacco_storage": 0},
                    "san_juan": 3}, {}, {}], colonist_supply=0, colonist_ship=0)
    play(s, rng, 0, "mayor")
    while ask(s) and ask(s)[1] == "place":
        answer(s, rng, *choose(s))
    p = s.players[0]
    assert p.worked[TOBACCO] == 1 and p.city[BY_KEY["tobacco_storage"]] >= 1


def test_last_round_builds_the_most_points():
    """In the last round money is worth nothing: build the building with the most VP."""
    s, rng = make([{"doubloons": 12}, {}, {}], last_round=True)
    play(s, rng, 0, "builder")
    pick = choose(s)
    assert pick and BUILDINGS[BY_KEY[pick[0]]].vp == 4
