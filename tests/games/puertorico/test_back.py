"""Back in Puerto Rico: the mayor's placement (one question per group of circles) and storage
(warehouse kinds, then the windrose) are told to the others only once whole, so from their second
question on the seat may start them again; nothing else is asked in steps that tell nobody."""
from __future__ import annotations

import pytest

from games import puertorico
from games.choice import BACK
from games.errors import IllegalAction
from tests.games.puertorico.scenario import answer, ask, make, play


def seen(s) -> tuple[dict, list]:
    """The whole state but the count of moves, and what every seat and a spectator see."""
    data = puertorico.dump(s)
    del data["decisions"]
    return data, [puertorico.view(s, r) for r in (None, *range(len(s.players)))]


def back(s, rng) -> list:
    seat = puertorico.to_act(s)[0]
    moves = s.decisions
    events = puertorico.apply(s, seat, [BACK], rng)
    assert s.decisions == moves + 1, "the move back is counted like any other"
    return events


def refused(s, rng) -> IllegalAction:
    before = puertorico.dump(s)
    with pytest.raises(IllegalAction) as err:
        puertorico.apply(s, puertorico.to_act(s)[0], [BACK], rng)
    assert err.value.code == "no_back" and puertorico.dump(s) == before
    return err.value


def placing():
    """Anna places 3 colonists (one on corn, one in San Juan, one off the ship) on the 7 circles of
    2 corn, 1 quarry, an indigo plant (3) and a hospice (1): none on corn and none on the quarry
    are three questions (corn, quarry, indigo plant)."""
    s, rng = make([{"island": {"corn": (2, 1), "quarry": (1, 0)}, "city": {"indigo_plant": 0, "hospice": 0},
                    "san_juan": 1}, {}, {}], colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    return s, rng


def test_the_first_placement_question_offers_no_back():
    s, rng = placing()
    assert ask(s) == (0, "place", [0, 1, 2], 1, 1)
    assert puertorico.prompt(s, 0)["back"] == ""
    assert "nothing to go back to in this place decision" in refused(s, rng).message


@pytest.mark.parametrize("steps", [1, 2])
def test_back_places_the_colonists_again_from_the_first_question(steps):
    s, rng = placing()
    before = seen(s)
    for pick in [[0], [0]][:steps]:
        assert answer(s, rng, *pick) == [], "a placement is told only once whole"
    assert ask(s)[:3] == (0, "place", [[0, 1], [2, 3]][steps - 1])
    assert puertorico.prompt(s, 0)["back"] == "place your colonists again from the first question"
    assert back(s, rng) == []
    assert seen(s) == before


def test_a_placement_begun_again_is_placed_anew():
    s, rng = placing()
    answer(s, rng, 0)
    answer(s, rng, 0)
    back(s, rng)
    answer(s, rng, 2)                     # both corn worked this time
    events = answer(s, rng, 1)            # and the quarry: nothing is left for the indigo plant
    assert "Anna places colonists: 2 on corn, 1 on quarry." in [e["text"] for e in events]
    assert puertorico.prompt(s, puertorico.to_act(s)[0])["back"] == ""


def storing(warehouse: bool):
    """Captain phase with nobody able to load: Anna stores corn, indigo, sugar and coffee, with a
    small warehouse or none."""
    s, rng = make([{"goods": {"corn": 3, "indigo": 2, "sugar": 2, "coffee": 1},
                    "city": {"small_warehouse": 1} if warehouse else {}}, {}, {}],
                  ships=[(3, 4), (3, 5), (3, 6)])   # full of tobacco: nobody can load
    play(s, rng, 0, "captain")
    return s, rng


def test_back_from_the_windrose_to_the_warehouses():
    s, rng = storing(warehouse=True)
    assert ask(s) == (0, "warehouse", ["corn", "indigo", "sugar", "coffee"], 1, 1)
    assert puertorico.prompt(s, 0)["back"] == ""
    before = seen(s)
    assert answer(s, rng, "corn") == []
    assert ask(s) == (0, "windrose", ["indigo", "sugar", "coffee"], 1, 1)
    assert puertorico.prompt(s, 0)["back"] == "choose the goods for your warehouses again"
    assert back(s, rng) == []
    assert seen(s) == before
    answer(s, rng, "indigo")
    answer(s, rng, "corn")
    assert s.players[0].goods == [1, 2, 0, 0, 0]


def test_a_windrose_asked_first_offers_no_back():
    s, rng = storing(warehouse=False)
    assert ask(s) == (0, "windrose", ["corn", "indigo", "sugar", "coffee"], 1, 1)
    refused(s, rng)
