"""Edge cases of the role procedures (rules/puertorico.md section 6) and of the round (section 4)
that the rulebook (shared/seeds/004_716f3ae0a8675ef7.txt, "R1") states and no other test covers."""
from __future__ import annotations

from games.puertorico.components import BY_KEY, CORN, INDIGO, QUARRY, SUGAR, TOBACCO
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
