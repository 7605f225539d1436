"""Every worked example of the rulebook ("R1") that
the project checks, as a test."""
from __future__ import annotations

from games.puertorico import scoring
from games.puertorico.board import build_cost
from games.puertorico.components import BY_KEY
from tests.games.puertorico.scenario import answer, ask, make, play


def test_guild_hall_example():
    """R1:581: small and large sugar mill, small indigo plant, coffee roaster: +6 VP."""
    s, _ = make([{"city": {"guild_hall": 1, "small_sugar_mill": 0, "sugar_mill": 0,
                           "small_indigo_plant": 1, "coffee_roaster": 0}}, {}, {}])
    assert scoring.score_seat(s.players[0])["guild_hall"] == 6


def test_residence_example():
    """R1:587: 10 filled island spaces: +5 VP; and the rest of the scale."""
    s, _ = make([{"city": {"residence": 1}, "island": {"corn": (6, 0), "quarry": (4, 4)}}, {}, {}])
    assert scoring.score_seat(s.players[0])["residence"] == 5
    for filled, bonus in ((0, 4), (9, 4), (11, 6), (12, 7)):
        s.players[0].tiles = [filled, 0, 0, 0, 0, 0]
        assert scoring.residence_bonus(s.players[0]) == bonus


def test_fortress_example():
    """R1:593: 20 colonists on plantations, quarries, buildings and in San Juan: +6 VP."""
    s, _ = make([{"city": {"fortress": 1, "indigo_plant": 3}, "island": {"indigo": (5, 5), "quarry": (2, 2)},
                  "san_juan": 9}, {}, {}])
    assert scoring.score_seat(s.players[0])["fortress"] == 6


def test_customs_house_example():
    """R1:599: 23 VP in chips: +5 VP."""
    s, _ = make([{"city": {"customs_house": 1}, "chips": 23}, {}, {}])
    assert scoring.score_seat(s.players[0])["customs_house"] == 5


def test_city_hall_example():
    """R1:605: hacienda, harbor, office, construction hut, large warehouse, residence and the city
    hall itself: +7 VP; production buildings do not count."""
    s, _ = make([{"city": {"city_hall": 1, "hacienda": 0, "harbor": 0, "office": 0, "construction_hut": 0,
                           "large_warehouse": 0, "residence": 0, "sugar_mill": 1}}, {}, {}])
    assert scoring.score_seat(s.players[0])["city_hall"] == 7


def test_large_buildings_score_only_their_printed_vp_when_unoccupied():
    """R1:403: an empty large building is worth its 4 VP, no bonus."""
    s, _ = make([{"city": {"fortress": 0}, "san_juan": 30}, {}, {}])
    score = scoring.score_seat(s.players[0])
    assert score["buildings"] == 4 and score["fortress"] == 0 and score["total"] == 4


def test_quarry_discounts_example():
    """R1:256: with 3 occupied quarries: construction hut 1, office 3, harbor 5, city hall 7."""
    s, _ = make([{"island": {"quarry": (4, 3)}}, {}, {}])
    p = s.players[0]
    assert [build_cost(p, BY_KEY[k], False) for k in ("construction_hut", "office", "harbor", "city_hall")] \
        == [1, 3, 5, 7]
    # The builder's doubloon comes on top, never below 0.
    assert build_cost(p, BY_KEY["small_market"], True) == 0
    assert build_cost(p, BY_KEY["city_hall"], True) == 6


def test_quarry_discounts_in_the_builder_prompt():
    s, rng = make([{"doubloons": 0}, {"island": {"quarry": (3, 3)}, "doubloons": 5}, {"doubloons": 0}])
    play(s, rng, 0, "builder")
    assert ask(s) == (0, "build", ["small_indigo_plant", "small_market"], 0, 1)   # free for the builder
    answer(s, rng)
    seat, kind, options, lo, hi = ask(s)
    assert (seat, kind, lo, hi) == (1, "build", 0, 1)
    assert "harbor" in options and "city_hall" not in options and "office" in options


def test_mayor_distribution_example():
    """R1:242: 6 colonists on the ship, 4 players: the mayor takes 3 (privilege included), the
    second 2, the third and fourth 1 each."""
    s, rng = make([{}, {}, {}, {}], colonist_ship=6)
    play(s, rng, 0, "mayor")
    answer(s, rng, "colonist")
    assert [p.san_juan for p in s.players] == [3, 2, 1, 1]   # nobody has a circle to fill


def test_captain_example():
    """R1:362-366, 4 players: the whole captain phase, forced loads played at once."""
    s, rng = make([{"goods": {"corn": 2, "sugar": 6}}, {"goods": {"sugar": 2, "tobacco": 3}},
                   {"goods": {"corn": 2, "tobacco": 1}}, {"goods": {"corn": 1, "indigo": 5}}],
                  ships=[(None, 0), (0, 3), (None, 0)])
    play(s, rng, 0, "captain")
    # Anna may not load her sugar on the 5-ship: the 7-ship takes all 6.
    assert ask(s) == (0, "load", ["corn:6", "sugar:7"], 1, 1)
    answer(s, rng, "sugar:7")
    assert ask(s) == (1, "load", ["sugar:7", "tobacco:5"], 1, 1)
    answer(s, rng, "sugar:7")
    assert ask(s) == (2, "load", ["corn:6", "tobacco:5"], 1, 1)
    answer(s, rng, "tobacco:5")
    # David must load his corn; Anna her corn, Bob his tobacco; then nobody can load.
    assert ask(s)[1] == "role"
    assert [p.chips for p in s.players] == [7 + 2, 1 + 3, 1, 1]
    # Storage: Chris and David keep one barrel each; Anna and Bob have nothing left.
    assert [p.goods for p in s.players] == [[0] * 5, [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]
    # Anna unloads the full 6- and 7-ships; the 4 tobacco stay on the 5-ship.
    assert s.ships == [(3, 4), (None, 0), (None, 0)]


def test_harbor_and_wharf_example():
    """R1:557: with a harbor and a wharf, 3 tobacco fill the tobacco ship (3+1 VP), 2 sugar go on
    the sugar ship (2+1 VP), the last 2 tobacco on the wharf (2+1 VP)."""
    s, rng = make([{}, {"goods": {"tobacco": 5, "sugar": 2}, "city": {"harbor": 1, "wharf": 1}}, {}, {}],
                  ships=[(3, 2), (2, 1), (None, 0)])
    play(s, rng, 0, "captain")
    assert ask(s) == (1, "load", ["sugar:6", "tobacco:5", "sugar:wharf", "tobacco:wharf"], 1, 1)
    answer(s, rng, "tobacco:5")
    assert s.players[1].chips == 4
    answer(s, rng, "sugar:6")
    assert s.players[1].chips == 7
    # Only the wharf is left, which he may decline (D5).
    assert ask(s) == (1, "load", ["tobacco:wharf"], 0, 1)
    answer(s, rng, "tobacco:wharf")
    assert s.players[1].chips == 10 and s.players[1].goods == [0] * 5


def test_harbor_and_wharf_example_all_tobacco_on_the_wharf():
    """R1:607: with all 5 tobacco on the wharf the tobacco ship is not filled, nor emptied."""
    s, rng = make([{}, {"goods": {"tobacco": 5}, "city": {"harbor": 1, "wharf": 1}}, {}, {}],
                  ships=[(3, 2), (None, 0), (None, 0)])
    play(s, rng, 0, "captain")
    answer(s, rng, "tobacco:wharf")
    assert s.players[1].chips == 6 and s.ships[0] == (3, 2)


def test_factory_example():
    """R1:545: no corn and only 2 sugar in the supply: 2 sugar and 1 tobacco, 2 kinds, 1 doubloon."""
    s, rng = make([{}, {}, {}, {"doubloons": 0, "island": {"corn": (3, 3), "sugar": (3, 3), "tobacco": (1, 1)},
                                "city": {"factory": 1, "sugar_mill": 3, "tobacco_storage": 1}}],
                  barrels={"corn": 0, "sugar": 2})
    play(s, rng, 0, "craftsman")
    assert s.players[3].goods == [0, 0, 2, 1, 0] and s.players[3].doubloons == 1


def test_factory_scale():
    s, rng = make([{"doubloons": 0, "city": {"factory": 1, "small_indigo_plant": 1, "small_sugar_mill": 1,
                                            "tobacco_storage": 1, "coffee_roaster": 1},
                    "island": {g: (1, 1) for g in ("corn", "indigo", "sugar", "tobacco", "coffee")}}, {}, {}])
    play(s, rng, 1, "craftsman")
    assert s.players[0].doubloons == 5


def test_office_example():
    """R1:531: the house holds a tobacco; Bob and Chris, each with an occupied office, both sell
    tobacco."""
    s, rng = make([{}, {"goods": {"tobacco": 1}, "city": {"office": 1}, "doubloons": 0},
                   {"goods": {"tobacco": 1}, "city": {"office": 1}, "doubloons": 0}, {"goods": {"tobacco": 1}}],
                  house=[3])
    play(s, rng, 0, "trader")
    assert ask(s) == (1, "sell", ["tobacco"], 0, 1)
    answer(s, rng, "tobacco")
    answer(s, rng, "tobacco")
    # David has no office: he cannot sell his tobacco and is not asked.
    assert [p.doubloons for p in s.players[1:3]] == [3, 3]
    assert s.house == [3, 3, 3] and s.players[3].goods[3] == 1 and ask(s)[1] == "role"


def test_small_market_example_and_both_markets():
    """R1:517: a small market sells corn for 1; R1:537: both markets +3."""
    s, rng = make([{}, {"goods": {"corn": 1}, "city": {"small_market": 1}, "doubloons": 0},
                   {"goods": {"corn": 1, "indigo": 1}, "city": {"small_market": 1, "large_market": 1},
                    "doubloons": 0}])
    play(s, rng, 0, "trader")
    answer(s, rng, "corn")
    assert ask(s) == (2, "sell", ["indigo"], 0, 1)   # corn is in the house now
    answer(s, rng, "indigo")
    assert [p.doubloons for p in s.players[1:]] == [1, 4]
