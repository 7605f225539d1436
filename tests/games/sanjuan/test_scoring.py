"""San Juan final scoring: printed VP, cards under buildings, the bonus buildings, tie-break.

Rulebook = the San Juan rulebook, decisions = docs/rules.md, 'San Juan'.
"""
from __future__ import annotations

import pytest

from games import sanjuan
from tests.games.sanjuan.scenario import make

# The card lists (games/sanjuan/cards.toml): printed VP ("–" = 0, the card scores only its bonus).
PRINTED_VP = {
    "indigo_plant": 1, "sugar_mill": 1, "tobacco_storage": 2, "coffee_roaster": 2, "silver_smelter": 3,
    "smithy": 1, "gold_mine": 1, "archive": 1, "poor_house": 1, "black_market": 1, "trading_post": 1,
    "well": 1, "market_stand": 1, "crane": 1, "chapel": 2, "tower": 2, "aqueduct": 2, "carpenter": 2,
    "prefecture": 2, "market_hall": 2, "quarry": 2, "library": 3, "statue": 3, "victory_column": 4,
    "hero": 5, "guild_hall": 0, "city_hall": 0, "triumphal_arch": 0, "palace": 0,
    "guard_room": 1, "office_building": 1, "hut": 1, "tavern": 1, "park": 2, "customs_office": 1,
    "bank": 2, "harbor": 2, "goldsmith": 2, "residence": 0,
}
BONUS = ("chapel", "bank", "harbor", "guild_hall", "city_hall", "triumphal_arch", "residence",
         "cathedral", "palace")
CARDS = ["sugar_mill"] * 8 + ["coffee_roaster"] * 8


def score(s, seat=0):
    return sanjuan.result(s)["scores"][seat]


def give_cathedral(s, seat):
    s.players[seat].city.append(s.cathedral)
    s.cathedral = None


@pytest.mark.parametrize("key", sorted(PRINTED_VP))
def test_printed_vp_of_every_building(key):
    """Rules page tables: each building scores its printed VP."""
    s, _ = make([{"city": [key]}, {}], expansion=True)
    sc = score(s)
    assert sc["buildings"] == PRINTED_VP[key]
    if key not in ("guild_hall", "city_hall", "triumphal_arch", "residence", "palace"):
        assert sc["total"] == PRINTED_VP[key]


def test_printed_vp_sum():
    """Rulebook (game end): the sum of the victory points of all buildings."""
    city = ["indigo_plant", "sugar_mill", "tobacco_storage", "coffee_roaster", "silver_smelter", "smithy",
            "gold_mine", "archive", "poor_house", "chapel", "library", "statue", "victory_column", "hero"]
    s, _ = make([{"city": city}, {"city": ["indigo_plant"]}])
    assert score(s)["buildings"] == 30
    assert all(score(s)[part] == 0 for part in BONUS)
    assert score(s)["total"] == 30
    assert score(s, 1)["total"] == 1


def test_chapel_bank_harbor_cards_one_vp_each():
    """Rules page: 1 VP per card under chapel, bank and harbor."""
    s, _ = make([{"city": ["chapel", "bank", "harbor"], "chapel": ["hero", "statue", "palace"],
                  "bank": ["library", "well"], "harbor": ["tower"]}, {}], expansion=True)
    sc = score(s)
    assert (sc["chapel"], sc["bank"], sc["harbor"]) == (3, 2, 1)
    assert sc["buildings"] == 6 and sc["total"] == 12


def test_cards_under_covered_chapel_still_score():
    """Rulebook (crane): if the chapel is covered, the cards remain under it and still count; the
    covering building scores, the covered one does not."""
    s, _ = make([{"city": ["crane", "statue"], "covered": ["chapel"], "chapel": ["hero", "palace"]}, {}])
    sc = score(s)
    assert sc["chapel"] == 2 and sc["buildings"] == 4 and sc["total"] == 6


def test_guild_hall_nicole_example():
    """Rulebook (guild hall, Nicole): 3 indigo plants, 1 sugar mill, 2 tobacco storages -> 9 VP."""
    city = ["indigo_plant"] * 3 + ["sugar_mill"] + ["tobacco_storage"] * 2 + ["guild_hall", "library"]
    s, _ = make([{"city": city}, {}])
    sc = score(s)
    assert sc["guild_hall"] == 9
    assert sc["buildings"] == 3 + 1 + 4 + 3
    assert sc["total"] == 20


def test_city_hall_jaden_example():
    """Rulebook (city hall, Jaden): poor house, aqueduct, carpenter, chapel, quarry, library, statue,
    palace and city hall -> 9 VP (production buildings do not count)."""
    city = ["indigo_plant", "poor_house", "aqueduct", "carpenter", "chapel", "quarry", "library", "statue",
            "palace", "city_hall"]
    s, _ = make([{"city": city}, {}])
    sc = score(s)
    assert sc["city_hall"] == 9
    assert sc["buildings"] == 1 + 1 + 2 + 2 + 2 + 2 + 3 + 3
    assert sc["palace"] == (16 + 9) // 4
    assert sc["total"] == 16 + 9 + 6


@pytest.mark.parametrize("monuments, bonus", [
    ([], 0), (["statue"], 4), (["hero"], 4), (["statue", "victory_column"], 6), (["statue", "hero"], 6),
    (["statue", "victory_column", "hero"], 8)])
def test_triumphal_arch(monuments, bonus):
    """Rulebook (triumphal arch): 4 / 6 / 8 VP for 1 / 2 / 3 monuments."""
    s, _ = make([{"city": monuments + ["triumphal_arch"]}, {}])
    assert score(s)["triumphal_arch"] == bonus
    assert score(s)["total"] == bonus + sum(PRINTED_VP[m] for m in monuments)


def test_triumphal_arch_devin_example_with_city_hall():
    """Rulebook (Devin): statue, hero, triumphal arch -> 6; with a city hall too, +4 for these 4
    (city) buildings."""
    s, _ = make([{"city": ["statue", "hero", "triumphal_arch"]}, {}])
    assert score(s)["triumphal_arch"] == 6 and score(s)["total"] == 14
    s, _ = make([{"city": ["statue", "hero", "triumphal_arch", "city_hall"]}, {}])
    sc = score(s)
    assert (sc["triumphal_arch"], sc["city_hall"], sc["total"]) == (6, 4, 18)


def test_palace_marie_example():
    """Rulebook (palace, Marie): a subtotal of 34 VP gives 8 more: 42."""
    city = ["palace", "chapel", "hero", "victory_column", "statue", "library", "silver_smelter"]
    s, _ = make([{"city": city, "chapel": CARDS[:14]}, {}])
    sc = score(s)
    assert sc["buildings"] + sc["chapel"] == 34
    assert sc["palace"] == 8 and sc["total"] == 42


def test_palace_last_counts_every_bonus_rounds_down():
    """Rules page: the palace is counted last, a quarter of everything else, rounded down."""
    city = ["palace", "triumphal_arch", "statue", "victory_column", "hero", "city_hall", "chapel"]
    s, _ = make([{"city": city, "chapel": CARDS[:1]}, {}])
    sc = score(s)
    # 12 printed + 2 chapel + 8 arch + 7 city hall + 1 card = 30 -> palace 7
    assert (sc["buildings"], sc["triumphal_arch"], sc["city_hall"], sc["chapel"]) == (14, 8, 7, 1)
    assert sc["palace"] == 7 and sc["total"] == 37


def test_residence_marie_example():
    """Rulebook (residence, Marie): 3 different 2-cost and 3 different 6-cost buildings -> 4 + 3 = 7;
    the 3-cost buildings (2 tobacco storages, aqueduct) are not all different."""
    city = ["indigo_plant", "indigo_plant", "sugar_mill", "black_market", "well", "tobacco_storage",
            "tobacco_storage", "aqueduct", "palace", "guild_hall", "residence"]
    s, _ = make([{"city": city}, {}], expansion=True)
    sc = score(s)
    assert sc["residence"] == 7
    assert sc["guild_hall"] == 5 + 3
    assert sc["total"] == 11 + 8 + 7 + (11 + 8 + 7) // 4


def test_residence_devin_example():
    """Rulebook (residence, Devin): two 1-cost sets (the 2 indigo plants in different sets), one 3-cost
    and one 6-cost set -> 4 + 3 + 2 + 1 = 10."""
    city = ["indigo_plant", "indigo_plant", "archive", "gold_mine", "guard_room", "customs_office",
            "carpenter", "tobacco_storage", "aqueduct", "palace", "city_hall", "residence"]
    s, _ = make([{"city": city}, {}], expansion=True)
    sc = score(s)
    assert sc["residence"] == 10
    assert sc["city_hall"] == 9


def test_residence_fifth_set_scores_nothing():
    """Rules page: sets score 4, 3, 2, 1 and then 0."""
    city = ["indigo_plant"] * 3 + ["smithy", "gold_mine", "archive", "guard_room", "office_building", "hut",
                                   "customs_office", "residence"]
    s, _ = make([{"city": city}, {}], expansion=True)
    # 1-cost: 3 indigo + 7 different city buildings = 10 cards, at most 3 sets (9 cards);
    # 6-cost: only the residence. -> 3 sets: 4 + 3 + 2.
    assert score(s)["residence"] == 9
    city2 = city[:-1] + ["poor_house", "black_market", "well", "tobacco_storage", "chapel", "tower",
                         "palace", "city_hall", "residence"]
    s, _ = make([{"city": city2}, {}], expansion=True)
    # 3 one-cost sets + 1 two-cost + 1 three-cost + 1 six-cost = 6 sets -> 4 + 3 + 2 + 1 + 0 + 0.
    assert score(s)["residence"] == 10


def test_cathedral_rulebook_example():
    """Rulebook (cathedral, Devin): opponents built both guild halls, both city halls, 1 residence
    and 1 palace: 4 + 3 + 2 + 1 + 0 + 0 = 10 VP."""
    s, _ = make([{"city": ["indigo_plant"]},
                 {"city": ["guild_hall", "city_hall", "residence"]},
                 {"city": ["guild_hall", "city_hall", "palace"]}], expansion=True)
    give_cathedral(s, 0)
    assert score(s)["cathedral"] == 10
    assert score(s)["total"] == 11


@pytest.mark.parametrize("count, bonus", [(0, 0), (1, 4), (2, 7), (3, 9), (4, 10), (5, 10)])
def test_cathedral_counts_other_players_six_cost_buildings(count, bonus):
    """Rules page: cathedral 4 / 7 / 9 / 10 VP for 1 / 2 / 3 / 4+ six-cost buildings of the other
    players; the owner's own six-cost buildings do not count."""
    six = ["guild_hall", "city_hall", "triumphal_arch", "palace", "residence"][:count]
    s, _ = make([{"city": ["guild_hall", "residence"]}, {"city": six[:3]}, {"city": six[3:]}], expansion=True)
    give_cathedral(s, 0)
    assert score(s)["cathedral"] == bonus


def test_tie_break_cards_in_hand_plus_goods():
    """Rulebook: tied players add cards in hand and goods on production buildings; most wins."""
    s, _ = make([{"city": ["statue", "sugar_mill"], "hand": ["well", "crane"]},
                 {"city": ["statue", "indigo_plant"], "hand": ["tower", "hero"], "goods": ["indigo_plant"]},
                 {"city": ["indigo_plant"], "hand": CARDS[8:14]}])
    r = sanjuan.result(s)
    assert [sc["total"] for sc in r["scores"]] == [4, 4, 1]
    assert r["tiebreak"][:2] == [2, 3]
    assert r["winners"] == [1]


def test_tie_break_still_tied_shared_win():
    """Rules page: still tied after the tie-break, the tied players share the win."""
    s, _ = make([{"city": ["statue", "sugar_mill"], "hand": ["well", "crane"]},
                 {"city": ["statue", "indigo_plant"], "hand": ["tower"], "goods": ["indigo_plant"]},
                 {"city": ["hero"]}])
    r = sanjuan.result(s)
    assert [sc["total"] for sc in r["scores"]] == [4, 4, 5]
    assert r["winners"] == [2]
    s.players[2].city = []
    r = sanjuan.result(s)
    assert r["winners"] == [0, 1]


def test_higher_score_wins_regardless_of_cards():
    """Rulebook: the player with the most victory points wins; the tie-break only splits ties."""
    s, _ = make([{"city": ["hero"]}, {"city": ["statue"], "hand": CARDS[:12]}])
    assert sanjuan.result(s)["winners"] == [0]
