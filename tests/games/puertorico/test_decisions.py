"""One test (or a few) for each decision D1-D21 of docs/rules.md, 'The decisions D1–D21'."""
from __future__ import annotations

import hashlib

import pytest

from games import puertorico
from games.puertorico import plantations, scoring
from games.puertorico.components import BY_KEY, CORN, INDIGO, QUARRY, SUGAR
from protocol.fairness import local_streams
from tests.games.puertorico.scenario import answer, ask, make, play


def test_d1_hacienda_needs_a_face_down_tile():
    s, rng = make([{"city": {"hacienda": 1}}, {"city": {"hacienda": 1}}, {}], row=["corn"], stack=["coffee"])
    play(s, rng, 0, "settler")
    assert ask(s) == (0, "hacienda", ["draw"], 0, 1)
    answer(s, rng, "draw")
    assert s.players[0].tiles[4] == 1 and s.stack == []
    answer(s, rng, "corn")
    # The stack is empty: Bob's hacienda is not offered, and it does not rebuild the stack.
    assert ask(s) is not None and ask(s)[1] != "hacienda"


def test_d1_hacienda_after_a_draw_the_settler_may_still_take_a_quarry():
    s, rng = make([{"city": {"hacienda": 1, "construction_hut": 1}}, {}, {}], row=["corn"], stack=["sugar"])
    play(s, rng, 0, "settler")
    answer(s, rng, "draw")
    assert ask(s) == (0, "settle", ["corn", "quarry"], 0, 1)
    answer(s, rng, "quarry")
    assert s.players[0].tiles[QUARRY] == 1 and s.players[0].tiles[SUGAR] == 1


@pytest.mark.parametrize("take", [True, False])
def test_d2_the_mayor_privilege_is_a_yes_or_no(take):
    s, rng = make([{}, {}, {}], colonist_ship=3)
    supply = s.colonist_supply
    play(s, rng, 0, "mayor")
    assert ask(s) == (0, "mayor", ["colonist"], 0, 1)
    answer(s, rng, *(["colonist"] if take else []))
    assert s.players[0].san_juan == 1 + take
    assert s.colonist_supply == supply - take - 3   # the refill puts at least 3 on the ship


def test_d2_no_privilege_question_with_an_empty_supply():
    s, rng = make([{}, {}, {}], colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    assert [p.san_juan for p in s.players] == [1, 1, 1] and s.last_round


def test_d2_hospice_colonist_comes_from_the_ship_when_the_supply_is_empty():
    s, rng = make([{"city": {"hospice": 1}}, {}, {}], row=["corn"], colonist_supply=0, colonist_ship=2)
    play(s, rng, 0, "settler")
    answer(s, rng, "corn")
    assert ask(s) == (0, "hospice", ["corn"], 0, 1)
    answer(s, rng, "corn")
    assert s.players[0].worked[CORN] == 1 and s.colonist_ship == 1


def test_d2_hospice_declined_and_none_for_the_hacienda_tile():
    s, rng = make([{"city": {"hospice": 1, "hacienda": 1}}, {}, {}], row=["corn"], stack=["sugar"])
    play(s, rng, 0, "settler")
    answer(s, rng, "draw")
    assert ask(s)[1] == "settle"    # no hospice question for the drawn tile
    answer(s, rng, "quarry")
    assert ask(s) == (0, "hospice", ["quarry"], 0, 1)
    answer(s, rng)
    assert s.players[0].worked == [0] * 6


def test_d2_university_puts_one_colonist_even_on_a_large_production_building():
    s, rng = make([{"city": {"university": 1}, "doubloons": 10}, {}, {}])
    play(s, rng, 0, "builder")
    answer(s, rng, "sugar_mill")
    assert ask(s) == (0, "university", ["sugar_mill"], 0, 1)
    answer(s, rng, "sugar_mill")
    assert s.players[0].city[BY_KEY["sugar_mill"]] == 1 and s.players[0].doubloons == 7


def test_d2_university_needs_a_colonist_somewhere():
    s, rng = make([{"city": {"university": 1}, "doubloons": 10}, {}, {}], colonist_supply=0, colonist_ship=0)
    play(s, rng, 0, "builder")
    answer(s, rng, "sugar_mill")
    assert ask(s)[0] == 1


def test_d3_production_and_ship_colonists_are_not_asked():
    s, rng = make([{"island": {"corn": (2, 2)}}, {"island": {"corn": (1, 1)}}, {}])
    play(s, rng, 0, "craftsman")
    assert s.players[0].goods[CORN] == 2 and s.players[1].goods[CORN] == 1
    assert ask(s)[1] == "craftsman"


def test_d4_craftsman_extra_barrel_only_of_a_kind_received_with_supply_left():
    s, rng = make([{"island": {"corn": (2, 2), "indigo": (1, 1)}, "city": {"small_indigo_plant": 1}},
                   {"island": {"corn": (1, 1)}}, {}], barrels={"corn": 3, "indigo": 2})
    play(s, rng, 0, "craftsman")
    # Corn ran out after Bob's barrel; indigo is left.
    assert ask(s) == (0, "craftsman", ["indigo"], 0, 1)
    answer(s, rng, "indigo")
    assert s.players[0].goods[:2] == [2, 2]


def test_d4_no_extra_barrel_without_production():
    s, rng = make([{}, {"island": {"corn": (1, 1)}}, {}])
    play(s, rng, 0, "craftsman")
    assert ask(s)[1] == "role" and s.players[0].goods == [0] * 5


def test_d5_wharf_instead_of_a_cargo_load_counts_for_the_captain_and_harbor():
    s, rng = make([{"goods": {"corn": 6}, "city": {"wharf": 1, "harbor": 1}}, {}, {}])
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "load", ["corn:6", "corn:wharf"], 1, 1)   # the 6-ship takes the most
    answer(s, rng, "corn:wharf")
    assert s.players[0].chips == 6 + 1 + 1 and s.barrels[CORN] == 16 and s.ships == [(None, 0)] * 3


def test_ties_for_the_most_barrels_are_real_choices():
    s, rng = make([{"goods": {"corn": 3}}, {}, {}])
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "load", ["corn:4", "corn:5", "corn:6"], 1, 1)


def test_d5_declining_the_wharf_ends_the_loading():
    s, rng = make([{"goods": {"corn": 3, "sugar": 1}, "city": {"wharf": 1}}, {}, {}],
                  ships=[(2, 4), (3, 5), (1, 6)])
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "load", ["corn:wharf", "sugar:wharf"], 0, 1)
    answer(s, rng)
    # Storage: one barrel of his choice.
    assert ask(s) == (0, "windrose", ["corn", "sugar"], 1, 1)


def test_d6_storage_is_maximal_warehouse_kinds_then_the_windrose():
    s, rng = make([{"goods": {"corn": 3, "indigo": 2, "sugar": 2, "coffee": 1},
                    "city": {"small_warehouse": 1, "large_warehouse": 1}},
                   {"goods": {"indigo": 4, "sugar": 2, "tobacco": 1}, "city": {"small_warehouse": 1}},
                   {"goods": {"coffee": 3}}],
                  ships=[(3, 4), (3, 5), (3, 6)])   # full of tobacco: nobody can load
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "warehouse", ["corn", "indigo", "sugar", "coffee"], 3, 3)
    answer(s, rng, "corn", "indigo", "sugar")
    assert s.players[0].goods == [3, 2, 2, 0, 1]   # the last kind left is kept on the windrose
    assert ask(s) == (1, "warehouse", ["indigo", "sugar", "tobacco"], 1, 1)
    answer(s, rng, "indigo")
    assert ask(s) == (1, "windrose", ["sugar", "tobacco"], 1, 1)
    answer(s, rng, "sugar")
    assert s.players[1].goods == [0, 4, 1, 0, 0]
    assert s.players[2].goods == [0, 0, 0, 0, 1]       # one kind: no question
    assert s.ships == [(None, 0)] * 3                  # all full, all emptied


def test_d7_one_seat_places_at_a_time_from_the_mayor():
    s, rng = make([{"island": {"corn": (2, 0), "indigo": (2, 0)}},
                   {"island": {"corn": (1, 0), "sugar": (1, 0)}},
                   {"island": {"corn": (1, 0)}}], colonist_ship=4, colonist_supply=0)
    play(s, rng, 1, "mayor")
    # Bob gets 2, Chris 1, Anna 1. Bob's 2 fill his 2 circles; Chris's 1 his one: no questions.
    assert ask(s) == (0, "place", [0, 1], 1, 1)
    assert s.players[1].worked[:3] == [1, 0, 1] and s.players[2].worked[0] == 1
    answer(s, rng, 0)
    assert s.players[0].worked[:2] == [0, 1]


def test_mayor_placement_bounds_fill_every_circle_that_can_be():
    s, rng = make([{"island": {"corn": (2, 2), "quarry": (1, 1)}, "city": {"indigo_plant": 0, "harbor": 0},
                    "san_juan": 1}, {}, {}], colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    # 5 colonists (2 + 1 + 1 in San Juan + 1 from the ship) for 2 + 1 + 3 + 1 = 7 circles.
    assert ask(s) == (0, "place", [0, 1, 2], 1, 1)   # corn
    answer(s, rng, 1)
    assert ask(s) == (0, "place", [0, 1], 1, 1)      # quarry: the 4 left fit without it
    answer(s, rng, 0)
    # The indigo plant and the harbor then take all 4: no more questions.
    p = s.players[0]
    assert p.worked == [1, 0, 0, 0, 0, 0] and p.city == {BY_KEY["indigo_plant"]: 3, BY_KEY["harbor"]: 1}
    assert p.san_juan == 0


def test_mayor_placement_more_colonists_than_circles_is_forced():
    s, rng = make([{"island": {"corn": (2, 0)}, "city": {"harbor": 0}, "san_juan": 4}, {}, {}],
                  colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    p = s.players[0]
    assert ask(s)[1] == "role" and p.worked[CORN] == 2 and p.city[BY_KEY["harbor"]] == 1 and p.san_juan == 2


def test_d8_colonist_shortage_ends_the_game_at_the_end_of_the_round():
    s, rng = make([{"city": {"sugar_mill": 0}}, {}, {}], colonist_ship=3, colonist_supply=2)
    play(s, rng, 0, "mayor", taken=[])
    answer(s, rng)                        # no privilege colonist; his one goes on the mill
    assert s.players[0].city[BY_KEY["sugar_mill"]] == 1
    # The ship needs 3 (one per player; 2 empty circles): it gets the last 2.
    assert s.colonist_ship == 2 and s.colonist_supply == 0 and s.last_round
    _play_out_the_round(s, rng)


def _play_out_the_round(s, rng):
    """The other picks of the round are played before the game ends (D18)."""
    assert not s.over
    while not s.over:
        answer(s, rng, *ask(s)[2][:ask(s)[3]])
    assert len(s.taken) == 3


def test_d9_the_last_chip_ends_the_game_and_paper_vp_count():
    s, rng = make([{"goods": {"corn": 4}, "city": {"customs_house": 1}, "chips": 20}, {}, {}], vp_supply=4,
                  ships=[(None, 0), (1, 1), (2, 1)])
    play(s, rng, 0, "captain")
    p = s.players[0]
    assert (p.chips, p.paper, s.vp_supply, s.last_round) == (24, 1, 0, True)
    assert scoring.score_seat(p)["customs_house"] == 25 // 4
    v = puertorico.view(s, None)
    assert v["vp_chips"] == 0 and v["players"][0]["vp_paper"] == 1


def test_d9_exactly_zero_chips_triggers():
    s, rng = make([{"goods": {"corn": 2}}, {}, {}], vp_supply=3, ships=[(None, 0), (1, 1), (2, 1)])
    play(s, rng, 0, "captain")
    assert s.vp_supply == 0 and s.players[0].paper == 0 and s.last_round


def test_d10_the_bank_is_unlimited():
    s, rng = make([{"doubloons": 500, "goods": {"coffee": 1}}, {}, {}])
    play(s, rng, 0, "trader")
    answer(s, rng, "coffee")
    assert s.players[0].doubloons == 505 and "bank" not in puertorico.view(s, None)


def test_d11_a_tie_after_doubloons_and_goods_is_shared():
    s, _ = make([{"chips": 5, "doubloons": 2, "goods": {"corn": 1}}, {"chips": 5, "doubloons": 3},
                 {"chips": 5, "doubloons": 2}])
    r = puertorico.result(s)
    assert r["winners"] == [0, 1] and r["tiebreak"] == [3, 3, 2]


def test_d12_a_large_building_fits_in_any_two_free_spaces():
    eleven = {k: 0 for k in ("small_market", "hacienda", "construction_hut", "small_warehouse", "hospice",
                             "office", "large_market", "large_warehouse", "factory", "university", "harbor")}
    ten = dict(list(eleven.items())[:10])
    s, rng = make([{"city": ten, "doubloons": 20}, {}, {}])
    play(s, rng, 0, "builder")
    assert "city_hall" in ask(s)[2] and "wharf" in ask(s)[2]
    s, rng = make([{"city": eleven, "doubloons": 20}, {}, {}])
    play(s, rng, 0, "builder")
    assert "city_hall" not in ask(s)[2] and "wharf" in ask(s)[2]


def test_twelfth_city_space_ends_the_game_at_the_end_of_the_round():
    eleven = {k: 0 for k in ("small_market", "hacienda", "construction_hut", "small_warehouse", "hospice",
                             "office", "large_market", "large_warehouse", "factory", "university", "harbor")}
    s, rng = make([{"city": eleven, "doubloons": 20}, {}, {}])
    play(s, rng, 0, "builder")
    answer(s, rng, "wharf")
    assert s.last_round and not s.over


def test_d13_two_prospectors_one_option_per_amount_of_money():
    s, rng = make([{}] * 5)
    assert puertorico.flow.role_options(s).count("prospector") == 1
    assert "prospector_2" not in puertorico.flow.role_options(s)
    s.roles["prospector_2"] = 1
    opts = puertorico.flow.role_options(s)
    assert "prospector" in opts and "prospector_2" in opts
    play(s, rng, 0, "prospector_2")
    assert s.players[0].doubloons == 4 + 1 + 1


def test_d14_face_up_plantations_are_offered_by_kind_and_the_lowest_id_is_taken():
    s, rng = make([{}, {}, {}], row=["corn", "corn", "sugar", "corn"])
    play(s, rng, 1, "settler")
    assert ask(s) == (1, "settle", ["corn", "sugar", "quarry"], 0, 1)
    answer(s, rng, "corn")
    assert sorted(s.row) == [1, 2, 22]


def test_d15_vp_chips_are_public():
    s, _ = make([{"chips": 7}, {"chips": 2, "paper": 1}, {}])
    for seat in (None, 0, 1, 2):
        v = puertorico.view(s, seat)
        assert [p["vp_chips"] for p in v["players"]] == [7, 2, 0] and v["players"][1]["vp_paper"] == 1


def test_d16_five_players_play_with_122_chips():
    s = puertorico.setup(list("abcde"), {}, local_streams(1))
    assert s.vp_supply == 122 and len(s.roles) == 8


def test_d17_the_official_two_player_game():
    s = puertorico.setup(["a", "b"], {}, local_streams(3))
    g = s.governor
    assert [p.doubloons for p in s.players] == [3, 3]
    assert s.players[g].tiles[INDIGO] == 1 and s.players[1 - g].tiles[CORN] == 1
    assert len(s.row) == 3 and len(s.stack) == 30 and s.quarries == 5
    assert (s.colonist_supply, s.colonist_ship, s.vp_supply) == (40, 2, 65)
    assert s.ship_sizes == (4, 6) and s.barrels == [8, 9, 9, 7, 7]
    assert list(s.roles) == ["settler", "mayor", "builder", "craftsman", "trader", "captain", "prospector"]
    assert s.buildings[BY_KEY["small_indigo_plant"]] == 2 and s.buildings[BY_KEY["harbor"]] == 1
    on_table = sorted(s.row + s.stack)
    counts = [sum(1 for t in on_table if plantations.kind(t) == k) for k in range(5)]
    assert counts == [6, 8, 8, 6, 5]
    # Three picks each, alternating from the governor; one doubloon on the card left.
    picks = []
    while s.round == 1:
        seat, kind, options, lo, hi = ask(s)
        if kind == "role":
            picks.append(seat)
        answer(s, local_streams(3), *options[:lo])
    assert picks == [g, 1 - g] * 3 and sum(s.roles.values()) == 1


def test_d18_several_triggers_one_end_after_the_round():
    s, rng = make([{"goods": {"corn": 4}}, {}, {}], vp_supply=2, colonist_supply=0,
                  ships=[(None, 0), (1, 1), (2, 1)])
    play(s, rng, 0, "captain")
    assert s.last_round and ask(s) == (1, "role", ["settler", "mayor", "builder", "craftsman", "trader"], 1, 1)
    answer(s, rng, "mayor")                     # the colonists run out too
    assert s.colonist_ship == 0 and not s.over
    _play_out_the_round(s, rng)


def test_d19_a_player_who_cannot_load_is_not_asked():
    s, rng = make([{"goods": {"indigo": 2}}, {"goods": {"corn": 1, "sugar": 1}}, {}],
                  ships=[(1, 1), (2, 1), (3, 1)])
    events = play(s, rng, 0, "captain")
    # Every turn with a load was forced, Bob's corn fits nowhere, Chris holds nothing: nobody is
    # asked, and the next role is up.
    assert ask(s)[1] == "role"
    assert [e["text"] for e in events if e["type"] == "load"] == [
        "Anna loads 2 indigo on the 4-ship for 3 VP.", "Bob loads 1 sugar on the 5-ship for 1 VP."]
    assert s.players[1].goods == [1, 0, 0, 0, 0]


def test_d20_manifest_ids_and_starting_tiles():
    keys = puertorico.manifest({})
    assert keys[:10] == ["corn"] * 10 and keys[10:22] == ["indigo"] * 12 and keys[22:33] == ["sugar"] * 11
    assert keys[33:42] == ["tobacco"] * 9 and keys[42:] == ["coffee"] * 8
    lines = "".join(f"{i} {k}\n" for i, k in enumerate(keys))
    assert puertorico.manifest_hash({}) == hashlib.sha256(lines.encode()).digest()
    # Starting tiles are the lowest ids, out of the shuffle; two players remove the highest 3.
    assert plantations.in_play(3)[:7] == list(range(7)) and 7 not in plantations.in_play(3)
    s = puertorico.setup(list("abcd"), {}, local_streams(5))
    on_table = set(s.row + s.stack)
    assert on_table == set(range(50)) - {0, 1, 10, 11}


def test_d20_the_initial_stack_is_the_named_stream_shuffle():
    rng = local_streams(9)
    s = puertorico.setup(list("abc"), {}, rng)
    expected = rng.shuffle("plantations/initial", 0, [t for t in range(50) if t not in (0, 10, 11)])
    assert s.row == expected[:4] and s.stack[::-1] == expected[4:]
    assert s.governor == rng.randbelow("start-player", 0, 3)


def test_d21_an_empty_row_still_runs_the_settler_phase():
    s, rng = make([{}, {"city": {"construction_hut": 1}}, {}], stack=[])
    play(s, rng, 0, "settler")
    assert ask(s) == (0, "settle", ["quarry"], 0, 1)
    answer(s, rng, "quarry")
    assert ask(s) == (1, "settle", ["quarry"], 0, 1)


def test_refill_rebuilds_the_stack_from_the_sorted_discard_pile():
    s, rng = make([{}, {}, {}], row=["corn", "sugar"], stack=["indigo"], discard=["coffee", "tobacco"])
    events = play(s, rng, 0, "settler")
    for _ in range(3):
        events += answer(s, rng)
    # The untaken row joins the discard pile; 1 from the stack, then reshuffle 1 of the pile.
    pile = sorted([42, 33, 0, 22])
    expected = rng.shuffle("plantations/reshuffle", 1, pile)
    assert s.row == [10] + expected[:3] and s.stack[::-1] == expected[3:] and s.reshuffles == 1
    # Everyone is told, once, before the new row is shown.
    told = [(e["type"], e["to"], e["text"]) for e in events if e["type"] in ("reshuffle", "row")]
    assert told[0] == ("reshuffle", None,
                       "The plantation stack is empty: the 4 discarded plantations are shuffled into a new stack.")
    assert [t[0] for t in told] == ["reshuffle", "row"]


def test_mayor_placement_asks_counts_and_says_so_in_its_prompt():
    """A placement's options are colonist counts, declared as such (the prompt's `counts`):
    consecutive from the fewest allowed, each label saying its count, and the contract's check
    holds them to it. No other question of the game asks a count."""
    from games.contract import check_prompt
    s, rng = make([{"island": {"corn": (2, 2), "quarry": (1, 1)}, "city": {"indigo_plant": 0, "harbor": 0},
                    "san_juan": 1}, {}, {}], colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    corn = puertorico.prompt(s, 0)
    check_prompt(corn)
    assert corn["counts"] is True and corn["options"] == [0, 1, 2]
    assert [label.split("  ")[0] for label in corn["labels"]] == ["0 colonists", "1 colonist", "2 colonists"]
    answer(s, rng, 2)                                  # the count itself is the action
    assert s.players[0].worked[CORN] == 2
    quarry = puertorico.prompt(s, 0)
    assert quarry["counts"] is True and quarry["options"] == [0, 1]
    answer(s, rng, 0)
    assert s.players[0].worked[QUARRY] == 0


def test_no_question_but_the_placement_declares_counts():
    from bots.random_bot import RandomBot
    rng = local_streams("counts")
    s = puertorico.setup(["A", "B", "C"], {}, rng)
    bot = RandomBot("counts")
    kinds = set()
    while puertorico.to_act(s):
        seat = puertorico.to_act(s)[0]
        p = puertorico.prompt(s, seat)
        assert p.get("counts", False) is (p["kind"] == "place"), p["kind"]
        kinds.add(p["kind"])
        puertorico.apply(s, seat, bot.choose(puertorico.view(s, seat)), rng)
    assert "place" in kinds
