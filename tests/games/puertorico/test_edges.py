"""Edge cases of the role procedures (the rulebook's role sections) and of the round
that the Puerto Rico rulebook ("R1") states and no other test covers."""
from __future__ import annotations

import pytest

from games.puertorico.components import BY_KEY, CORN, INDIGO, SUGAR, TOBACCO
from tests.games.puertorico.scenario import answer, ask, make, play


def _texts(events, kind):
    return [e["text"] for e in events if e["type"] == kind]


# ---------------------------------------------------------------- trader

def test_trader_a_full_house_stops_the_phase_and_is_emptied():
    """R1:282, R1:286, R1:289: the phase ends when the house is full; at its end the trader empties
    a house holding four barrels into the supply."""
    s, rng = make([{"goods": {"sugar": 1}}, {"goods": {"tobacco": 1}}, {"goods": {"coffee": 1}}],
                  house=[CORN, INDIGO])
    before = s.barrels[:]
    play(s, rng, 0, "trader")
    answer(s, rng, "sugar")
    assert ask(s)[:3] == (1, "sell", ["tobacco"])
    events = answer(s, rng, "tobacco")
    # The fourth barrel fills the house: Chris, holding coffee, is not asked.
    assert ask(s)[1] == "role" and s.players[2].goods[4] == 1
    assert s.house == []
    assert s.barrels == [before[0] + 1, before[1] + 1, before[2] + 1, before[3] + 1, before[4]]
    assert _texts(events, "trade")[-1] == "The trading house is full and is emptied."


def test_trader_a_house_that_is_not_full_keeps_its_barrels():
    """R1:289: fewer than four barrels stay in the house for the next trader phase."""
    s, rng = make([{"goods": {"sugar": 1}}, {}, {}], house=[CORN])
    before = s.barrels[:]
    play(s, rng, 0, "trader")
    answer(s, rng, "sugar")
    assert ask(s)[1] == "role" and s.house == [CORN, SUGAR] and s.barrels == before


def test_trader_who_sells_nothing_gets_no_extra_doubloon():
    """R1:294: the trader's +1 is paid only when he sells; the others are paid the price alone."""
    s, rng = make([{"goods": {"tobacco": 1}, "doubloons": 2}, {"goods": {"tobacco": 1}, "doubloons": 2}, {}])
    play(s, rng, 0, "trader")
    assert ask(s) == (0, "sell", ["tobacco"], 0, 1)
    events = answer(s, rng)
    assert s.players[0].doubloons == 2 and s.players[0].goods[TOBACCO] == 1
    assert _texts(events, "trade") == ["Anna sells nothing."]
    answer(s, rng, "tobacco")
    assert s.players[1].doubloons == 2 + 3 and s.house == [TOBACCO]


def test_trader_with_nothing_to_sell_gets_no_extra_doubloon():
    """R1:294: a trader without goods is not asked and is paid nothing."""
    s, rng = make([{"doubloons": 2}, {"goods": {"corn": 1}}, {}])
    play(s, rng, 0, "trader")
    assert ask(s) == (1, "sell", ["corn"], 0, 1)
    assert s.players[0].doubloons == 2


# ---------------------------------------------------------------- settler

def test_settler_no_quarry_for_others_without_an_occupied_construction_hut():
    """R1:160, R1:504: only the settler, or the owner of an occupied construction hut, may take a
    quarry; an empty hut does not work (R1:197)."""
    s, rng = make([{}, {"city": {"construction_hut": 0}}, {"city": {"construction_hut": 1}}],
                  row=["corn", "sugar", "indigo", "coffee"])
    play(s, rng, 0, "settler")
    assert ask(s) == (0, "settle", ["corn", "indigo", "sugar", "coffee", "quarry"], 0, 1)
    answer(s, rng, "corn")
    assert ask(s) == (1, "settle", ["indigo", "sugar", "coffee"], 0, 1)
    answer(s, rng, "indigo")
    assert ask(s) == (2, "settle", ["sugar", "coffee", "quarry"], 0, 1)


def test_settler_no_quarry_option_once_the_quarries_are_gone():
    """R1:193: with no quarry left neither the settler nor a construction hut can take one."""
    s, rng = make([{}, {"city": {"construction_hut": 1}}, {}], row=["corn", "sugar"], quarries=0)
    play(s, rng, 0, "settler")
    assert ask(s) == (0, "settle", ["corn", "sugar"], 0, 1)
    answer(s, rng, "corn")
    assert ask(s) == (1, "settle", ["sugar"], 0, 1)
    answer(s, rng)
    assert ask(s) == (2, "settle", ["sugar"], 0, 1)


def test_settler_a_full_island_is_skipped():
    """R1:192: a player whose 12 island spaces are full places no more tiles, not even with an
    occupied hacienda or construction hut."""
    s, rng = make([{}, {"island": {"corn": (7, 7), "indigo": (5, 5)},
                        "city": {"hacienda": 1, "construction_hut": 1}}, {}],
                  row=["corn", "sugar"], stack=["coffee"])
    play(s, rng, 0, "settler")
    answer(s, rng, "corn")
    assert ask(s) == (2, "settle", ["sugar"], 0, 1)
    assert sum(s.players[1].tiles) == 12 and len(s.stack) == 1


def test_settler_no_hospice_question_without_any_colonist():
    """R1:518: the hospice colonist comes from the supply, else the ship; with neither, he goes
    without, so he is not asked."""
    s, rng = make([{"city": {"hospice": 1}}, {}, {}], row=["corn", "sugar"], colonist_supply=0, colonist_ship=0)
    play(s, rng, 0, "settler")
    answer(s, rng, "corn")
    assert ask(s) == (1, "settle", ["sugar"], 0, 1)
    assert s.players[0].tiles[CORN] == 1 and s.players[0].worked[CORN] == 0


# ---------------------------------------------------------------- mayor

def _mayor_boards():
    """Anna's sugar mill and Bob's tobacco storage each get one of the ship's colonists and keep 2
    empty circles; Chris's colonist goes on one of his 4 corn plantations, 3 stay empty."""
    return [{"city": {"sugar_mill": 0}}, {"city": {"tobacco_storage": 0}}, {"island": {"corn": (4, 0)}}]


def test_mayor_refill_covers_empty_building_circles_not_plantations():
    """R1:207: one colonist per empty building circle, at least one per player; empty plantation
    circles do not count. 4 empty building circles: 4 colonists, more than the 3 players."""
    s, rng = make(_mayor_boards(), colonist_ship=3)
    play(s, rng, 0, "mayor")
    events = answer(s, rng)          # no privilege colonist
    assert [s.players[i].city for i in (0, 1)] == [{BY_KEY["sugar_mill"]: 1}, {BY_KEY["tobacco_storage"]: 1}]
    assert s.players[2].worked[CORN] == 1
    assert s.colonist_ship == 4 and s.colonist_supply == 55 - 4 and not s.last_round
    assert _texts(events, "mayor")[-1] == "The colonist ship carries 4 colonists for the next mayor."


@pytest.mark.parametrize("supply, ends", [(4, False), (3, True)])
def test_mayor_a_supply_equal_to_the_need_does_not_end_the_game(supply, ends):
    """R1:388, D8: the game ends when there are *not enough* colonists to fill the ship as
    required; exactly enough fills it and the supply is left empty."""
    s, rng = make(_mayor_boards(), colonist_ship=3, colonist_supply=supply)
    play(s, rng, 0, "mayor")
    answer(s, rng)
    assert s.colonist_ship == supply and s.colonist_supply == 0 and s.last_round == ends


@pytest.mark.parametrize("take", [True, False])
def test_mayor_privilege_can_leave_too_few_for_the_refill(take):
    """R1:199, R1:388: the privilege colonist comes from the supply; taking it from a supply of
    exactly the need leaves too few, and the game ends with the round."""
    s, rng = make([{}, {}, {}], colonist_ship=3, colonist_supply=3)
    play(s, rng, 0, "mayor")
    answer(s, rng, *(["colonist"] if take else []))
    assert s.players[0].san_juan == 1 + take
    assert (s.colonist_ship, s.colonist_supply, s.last_round) == ((2, 0, True) if take else (3, 0, False))


def test_mayor_privilege_taking_the_last_colonist_ends_the_game():
    """R1:199, R1:388, R1:214: the mayor takes the supply's last colonist; nothing is left to
    refill the ship, so the game ends at the end of the round."""
    s, rng = make([{}, {}, {}], colonist_ship=3, colonist_supply=1)
    play(s, rng, 0, "mayor")
    assert ask(s) == (0, "mayor", ["colonist"], 0, 1)
    events = answer(s, rng, "colonist")
    assert [p.san_juan for p in s.players] == [2, 1, 1]
    assert (s.colonist_ship, s.colonist_supply, s.last_round, s.over) == (0, 0, True, False)
    assert any(t.startswith("The colonists ran out") for t in _texts(events, "last_round"))


# ---------------------------------------------------------------- builder

def test_builder_not_offered_a_building_owned_or_without_a_copy_left():
    """R1:437: each player builds each building once; R1:220: a building comes from the supply,
    so one with no copy left cannot be built."""
    s, rng = make([{"city": {"small_market": 0}, "doubloons": 20}, {"city": {"city_hall": 0}, "doubloons": 20}, {}])
    s.buildings[BY_KEY["hacienda"]] = 0
    play(s, rng, 0, "builder")
    options = ask(s)[2]
    assert "small_market" not in options and "hacienda" not in options and "city_hall" not in options
    assert "construction_hut" in options and "fortress" in options
    answer(s, rng, "construction_hut")
    options = ask(s)[2]
    assert ask(s)[0] == 1 and "small_market" in options and "city_hall" not in options


def test_builder_a_large_building_on_the_11th_and_12th_spaces_ends_the_game():
    """R1:389, R1:575: a large building takes two city spaces; built on the 11th and 12th, it
    fills the 12th, and the game ends at the end of the round."""
    ten = {k: 0 for k in ("small_market", "hacienda", "construction_hut", "small_warehouse", "hospice",
                          "office", "large_market", "large_warehouse", "factory", "university")}
    s, rng = make([{"city": ten, "doubloons": 20}, {"doubloons": 20}, {}])
    play(s, rng, 0, "builder")
    events = answer(s, rng, "residence")
    assert s.players[0].doubloons == 20 - 9 and BY_KEY["residence"] in s.players[0].city
    assert s.last_round and not s.over and ask(s)[0] == 1
    assert _texts(events, "last_round") == ["Anna has filled the 12th city space: the game ends at the end of "
                                            "this round."]


# ---------------------------------------------------------------- captain

def test_captain_who_loads_nothing_gets_no_extra_vp():
    """R1:330: the captain's extra VP comes with his first load; his sugar fits on no ship (the
    sugar ship is full), so he earns nothing while Bob earns his barrels alone."""
    s, rng = make([{"goods": {"sugar": 2}}, {"goods": {"corn": 2}}, {}], ships=[(SUGAR, 4), (None, 0), (None, 0)])
    play(s, rng, 0, "captain")
    assert ask(s) == (1, "load", ["corn:5", "corn:6"], 1, 1)
    events = answer(s, rng, "corn:6")
    assert s.players[0].chips == 0 and s.players[1].chips == 2
    assert _texts(events, "load") == ["Bob loads 2 corn on the 6-ship for 2 VP."]
    assert s.players[0].goods[SUGAR] == 1      # one barrel kept on the windrose, one back


def test_captain_a_kind_on_a_full_ship_cannot_go_on_an_empty_one():
    """R1:322-323: no load on a full ship, nor on another ship while a ship carries that kind."""
    s, rng = make([{"goods": {"sugar": 3, "corn": 1}}, {}, {}], ships=[(SUGAR, 4), (None, 0), (None, 0)])
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "load", ["corn:5", "corn:6"], 1, 1)
    answer(s, rng, "corn:5")
    # The sugar cannot be loaded: nobody can load any more, and the full sugar ship is emptied.
    assert ask(s)[1] == "role"
    assert s.ships == [(None, 0), (CORN, 1), (None, 0)] and s.players[0].goods[SUGAR] == 1


def test_captain_the_wharf_is_offered_once_per_phase():
    """R1:567: the wharf can be used only once per captain phase by its owner."""
    s, rng = make([{"goods": {"corn": 2, "sugar": 2}, "city": {"wharf": 1}}, {}, {}])
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "load", ["corn:4", "corn:5", "corn:6", "sugar:4", "sugar:5", "sugar:6",
                                  "corn:wharf", "sugar:wharf"], 1, 1)
    answer(s, rng, "corn:wharf")
    assert ask(s) == (0, "load", ["sugar:4", "sugar:5", "sugar:6"], 1, 1)
    answer(s, rng, "sugar:4")
    assert s.players[0].chips == 2 + 1 + 2 and s.players[0].goods == [0] * 5 and ask(s)[1] == "role"


def test_captain_two_players_load_their_two_ships():
    """Section 5: two players load the 4- and the 6-ship, "the other ship" taking the place of "the
    other two ships" (R1:322); partially loaded ships keep their load (R1:338)."""
    s, rng = make([{"goods": {"corn": 3}}, {"goods": {"sugar": 5, "indigo": 1}}])
    assert s.ship_sizes == (4, 6) and s.ships == [(None, 0), (None, 0)]
    play(s, rng, 0, "captain")
    assert ask(s) == (0, "load", ["corn:4", "corn:6"], 1, 1)
    answer(s, rng, "corn:4")
    assert ask(s) == (1, "load", ["indigo:6", "sugar:6"], 1, 1)
    events = answer(s, rng, "sugar:6")
    # The indigo fits nowhere: both ships carry another kind. Bob keeps it on his windrose.
    assert ask(s)[1] == "role"
    assert s.ships == [(CORN, 3), (SUGAR, 5)]
    assert (s.players[0].chips, s.players[1].chips) == (3 + 1, 5)
    assert s.players[1].goods == [0, 1, 0, 0, 0]
    assert _texts(events, "load") == ["Bob loads 5 sugar on the 6-ship for 5 VP."]


# ---------------------------------------------------------------- craftsman

def test_craftsman_unoccupied_or_unmatched_production_makes_nothing():
    """R1:197: unoccupied tiles never function; R1:443-483: a good other than corn needs both an
    occupied plantation and an occupied production building of its kind. Who produces nothing
    gets no extra barrel (R1:278)."""
    s, rng = make([{"island": {"indigo": (2, 2), "sugar": (2, 0), "corn": (1, 0)},
                    "city": {"indigo_plant": 0, "sugar_mill": 2, "tobacco_storage": 1}},
                   {"island": {"tobacco": (1, 1)}, "city": {"coffee_roaster": 2}}, {}])
    before = s.barrels[:]
    events = play(s, rng, 0, "craftsman")
    assert [p.goods for p in s.players] == [[0] * 5] * 3 and s.barrels == before
    assert _texts(events, "produce") == ["Anna produces nothing.", "Bob produces nothing.",
                                         "Chris produces nothing."]
    assert ask(s)[1] == "role"


# ---------------------------------------------------------------- the round

def _pick_round(s, rng, cards):
    """Each seat in turn picks its card of `cards`, declining every action."""
    for card in cards:
        while ask(s)[1] != "role":
            answer(s, rng)
        answer(s, rng, card)
    while ask(s)[1] != "role":
        answer(s, rng)


def test_round_doubloons_pile_up_on_unpicked_cards():
    """R1:380: 1 doubloon goes on each unpicked card every round, regardless of those already on
    it; the picker takes them all."""
    s, rng = make([{}, {}, {}])
    s.governor, s.taken = 0, []
    s.pending = (0, "role", ("settler", "mayor", "builder", "craftsman", "trader", "captain"), 1, 1)
    for _ in range(3):
        _pick_round(s, rng, ["builder", "trader", "craftsman"])
    assert s.round == 4 and s.governor == 0
    assert s.roles == {"settler": 3, "mayor": 3, "builder": 0, "craftsman": 0, "trader": 0, "captain": 3}
    events = answer(s, rng, "captain")
    assert s.players[0].doubloons == 2 + 3 and s.roles["captain"] == 0
    assert _texts(events, "role") == ["Anna picks the captain and takes 3 doubloons from it."]


def test_round_five_players_leave_three_cards_unpicked():
    """R1:380: with five players five of the eight cards are picked, and the three left get a
    doubloon each."""
    s, rng = make([{}] * 5)
    s.governor, s.taken = 0, []
    s.pending = (0, "role", ("settler", "mayor", "builder", "craftsman", "trader", "captain", "prospector"), 1, 1)
    _pick_round(s, rng, ["builder", "trader", "craftsman", "prospector", "prospector_2"])
    assert s.round == 2 and s.governor == 1
    assert s.roles == {"settler": 1, "mayor": 1, "builder": 0, "craftsman": 0, "trader": 0, "captain": 1,
                       "prospector": 0, "prospector_2": 0}
    assert [p.doubloons for p in s.players] == [4, 4, 4, 5, 5]
