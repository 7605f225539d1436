from games import sanjuan
from tests.games.sanjuan.scenario import all_places, card, keys, make, start_round


def test_smithy_library_sugar_mill_example():
    """Rulebook: Jaden is the builder with smithy and library: 3 off a sugar mill (cost 2), no refund."""
    s, rng = make([{"hand": ["sugar_mill", "well", "well"], "city": ["indigo_plant", "smithy", "library"]},
                   {"city": ["indigo_plant"]}, {"city": ["indigo_plant"]}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["builder"], rng)
    mill = card(s, 0, "sugar_mill")
    sanjuan.apply(s, 0, [mill], rng)
    assert keys(s, s.players[0].city) == ["indigo_plant", "smithy", "library", "sugar_mill"]
    assert keys(s, s.players[0].hand) == ["well", "well"]
    assert sorted(all_places(s)) == list(range(110))
