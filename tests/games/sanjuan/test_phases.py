"""San Juan: every phase but the builder, round start, setup, the deck and hidden information.

Each test names the rule it checks (rulebook = the San Juan rulebook, decisions =
docs/rules.md, 'San Juan'). Positions are built with the scenario helper; decks are listed top first.
"""
from __future__ import annotations

import re

import pytest

from games import sanjuan
from games.errors import IllegalAction
from games.sanjuan.cards import TILES
from protocol.fairness import local_streams
from tests.games.sanjuan.scenario import all_places, card, keys, make, start_round

ROLES = ["builder", "producer", "trader", "councillor", "prospector"]
# The trading house tiles (games/sanjuan/cards.py): prices of indigo / sugar / tobacco / coffee / silver.
RULE_TILES = [(1, 1, 1, 2, 2), (1, 1, 2, 2, 2), (1, 1, 2, 2, 3), (1, 2, 2, 2, 3), (1, 2, 2, 3, 3)]
GOOD_BUILDINGS = ["indigo_plant", "sugar_mill", "tobacco_storage", "coffee_roaster", "silver_smelter"]
FILLER = ["statue", "hero", "tower", "well", "crane", "smithy", "quarry", "chapel", "carpenter",
          "aqueduct", "library", "palace", "archive", "poor_house"]


# ---------------------------------------------------------------- helpers

def ask(s, seat):
    """The pending decision of a seat as (kind, options, min, max), or None."""
    p = sanjuan.prompt(s, seat)
    return None if p is None else (p["kind"], p["options"], p["min"], p["max"])


def nobody_builds(s, rng, seat) -> list[dict]:
    """`seat` takes the builder and nobody can afford a building: each seat in turn from the
    builder is asked all the same, with nothing to pick (rules.build_decision), and passes.
    The events."""
    ev = sanjuan.apply(s, seat, ["builder"], rng)
    n = len(s.players)
    for who in [(seat + i) % n for i in range(n)]:
        assert sanjuan.to_act(s) == [who] and ask(s, who) == ("build", [], 0, 0)
        ev += sanjuan.apply(s, who, [], rng)
    return ev


def top(s, k):
    """The k top cards of the supply, top first."""
    return s.deck[::-1][:k]


def conserved(s):
    assert sorted(all_places(s)) == list(range(len(s.kinds)))


def set_tile(s, prices):
    """Make the next trading house tile the one with these prices (rules page order)."""
    first = TILES.index(tuple(prices))
    s.tiles = (first,) + tuple(t for t in range(len(TILES)) if t != first)
    s.tiles_turned = 0


def trader(s, rng, seat, tile=(1, 1, 1, 2, 2)):
    """`seat` is governor and chooses the trader with the given tile on top."""
    set_tile(s, tile)
    start_round(s, rng, governor=seat)
    return sanjuan.apply(s, seat, ["trader"], rng)


def finish_round(s, rng):
    """The last chooser of the current governor's round picks the trader (nobody holds goods),
    so the round ends and the next one starts (rulebook "A New Round")."""
    g, n = s.governor, s.n
    taken = [("builder", g), ("producer", (g + 1) % n)]
    if n == 4:
        taken.append(("councillor", (g + 2) % n))
    start_round(s, rng, governor=g, taken=taken)
    last = g if n == 2 else (g + n - 1) % n
    assert sanjuan.to_act(s) == [last]
    return sanjuan.apply(s, last, ["trader"], rng)


def snapshot(s):
    d = sanjuan.dump(s)
    return d["players"], d["deck"], d["discard"]


def answer_in_order(s, rng, answers, order):
    for seat in order:
        sanjuan.apply(s, seat, answers[seat], rng)


def check_simultaneous(s, rng, answers):
    """All owing seats are asked at once; nothing moves until the last answer; answering in any
    order gives the identical state. Returns the resolved state (answered in seat order)."""
    seats = sorted(answers)
    assert sanjuan.to_act(s) == seats
    a, b = sanjuan.copy(s), sanjuan.copy(s)
    before = snapshot(a)
    answer_in_order(a, rng, answers, seats[:-1])
    assert snapshot(a) == before                       # nothing resolved yet
    assert sanjuan.to_act(a) == seats[-1:]
    sanjuan.apply(a, seats[-1], answers[seats[-1]], rng)
    answer_in_order(b, rng, answers, seats[::-1])
    assert sanjuan.dump(a) == sanjuan.dump(b)
    return a


def name(key):
    return sanjuan.catalog(True)["cards"][key]["name"]


# ================================================================ roles

def test_each_player_chooses_once_roles_are_gone_governor_passes_left():
    """Rulebook: each player chooses one role a round; a chosen role is gone for the round; the
    governor card passes to the left."""
    s, rng = make([{}, {}, {}])
    start_round(s, rng, governor=0)
    assert sanjuan.to_act(s) == [0]
    assert ask(s, 0) == ("role", ROLES, 1, 1)
    sanjuan.apply(s, 0, ["trader"], rng)
    assert sanjuan.to_act(s) == [1]
    assert ask(s, 1) == ("role", ["builder", "producer", "councillor", "prospector"], 1, 1)
    before = sanjuan.dump(s)
    with pytest.raises(IllegalAction) as e:
        sanjuan.apply(s, 1, ["trader"], rng)
    assert e.value.code == "role_taken"
    with pytest.raises(IllegalAction) as e:
        sanjuan.apply(s, 0, ["producer"], rng)
    assert e.value.code == "not_your_turn"
    assert sanjuan.dump(s) == before
    sanjuan.apply(s, 1, ["producer"], rng)
    assert sanjuan.to_act(s) == [2]
    assert ask(s, 2) == ("role", ["builder", "councillor", "prospector"], 1, 1)
    nobody_builds(s, rng, 2)
    # Round over: the governor passes left and all five roles are back.
    assert (s.round, s.governor) == (2, 1)
    assert sanjuan.to_act(s) == [1]
    assert ask(s, 1) == ("role", ROLES, 1, 1)
    for seat, role in ((1, "trader"), (2, "producer")):
        sanjuan.apply(s, seat, [role], rng)
    assert sanjuan.to_act(s) == [0]
    nobody_builds(s, rng, 0)
    assert (s.round, s.governor) == (3, 2)
    assert sanjuan.to_act(s) == [2]


def test_two_players_governor_other_governor():
    """Rulebook: with 2 players the roles are chosen governor, second player, governor: 3 a round."""
    s, rng = make([{}, {}])
    start_round(s, rng, governor=0)
    assert sanjuan.to_act(s) == [0]
    sanjuan.apply(s, 0, ["trader"], rng)
    assert sanjuan.to_act(s) == [1]
    sanjuan.apply(s, 1, ["producer"], rng)
    assert sanjuan.to_act(s) == [0]
    assert ask(s, 0) == ("role", ["builder", "councillor", "prospector"], 1, 1)
    nobody_builds(s, rng, 0)
    assert (s.round, s.governor) == (2, 1)
    assert sanjuan.to_act(s) == [1]
    assert ask(s, 1) == ("role", ROLES, 1, 1)
    sanjuan.apply(s, 1, ["trader"], rng)
    assert sanjuan.to_act(s) == [0]
    sanjuan.apply(s, 0, ["producer"], rng)
    assert sanjuan.to_act(s) == [1]
    nobody_builds(s, rng, 1)
    assert (s.round, s.governor) == (3, 0)


def test_no_library_no_library_question():
    """Rules page: only a library owner is asked use/save; without one the game goes straight on."""
    s, rng = make([{}, {}])
    start_round(s, rng, governor=0)
    t = top(s, 1)
    sanjuan.apply(s, 0, ["prospector"], rng)
    assert s.players[0].hand == t
    assert sanjuan.to_act(s) == [1]
    assert ask(s, 1)[0] == "role"


def test_two_player_library_used_on_first_role_not_on_second():
    """Rules page: 2 players, the library works once a round; the governor who uses it on the first
    role gets no doubling on the second."""
    s, rng = make([{"city": ["library"]}, {}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["prospector"], rng)
    assert sanjuan.to_act(s) == [0]
    assert ask(s, 0) == ("library", ["use", "save"], 1, 1)
    assert s.players[0].hand == []
    t = top(s, 2)
    sanjuan.apply(s, 0, ["use"], rng)
    assert s.players[0].hand == t                      # prospector doubled: 2 cards
    sanjuan.apply(s, 1, ["trader"], rng)
    assert sanjuan.to_act(s) == [0]
    t = top(s, 7)
    sanjuan.apply(s, 0, ["councillor"], rng)           # second role: no question, not doubled
    assert ask(s, 0) == ("keep", t[:5], 1, 1)
    assert ask(s, 1) == ("keep", t[5:7], 1, 1)


def test_two_player_library_saved_doubles_second_role_automatically():
    """Rules page: if the governor saves the library on the first role, the second role's privilege
    is doubled without a question."""
    s, rng = make([{"city": ["library"]}, {}])
    start_round(s, rng, governor=0)
    t = top(s, 1)
    sanjuan.apply(s, 0, ["prospector"], rng)
    sanjuan.apply(s, 0, ["save"], rng)
    assert s.players[0].hand == t                      # not doubled: 1 card
    sanjuan.apply(s, 1, ["trader"], rng)
    t = top(s, 10)
    sanjuan.apply(s, 0, ["councillor"], rng)
    assert sanjuan.to_act(s) == [0, 1]
    assert ask(s, 0) == ("keep", t[:8], 1, 1)          # doubled: 8 cards
    assert ask(s, 1) == ("keep", t[8:10], 1, 1)


def test_two_player_library_of_second_player_used_automatically_each_round():
    """Rules page: the non-governor's library doubles its one role automatically, once a round,
    and works again next round."""
    s, rng = make([{}, {"city": ["library"]}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["trader"], rng)
    t = top(s, 2)
    sanjuan.apply(s, 1, ["prospector"], rng)
    assert s.players[1].hand == t
    assert sanjuan.to_act(s) == [0]
    assert ask(s, 0)[0] == "role"
    sanjuan.apply(s, 0, ["producer"], rng)
    # Round 2: seat 1 is governor now and is asked about its library on its first role.
    assert s.governor == 1
    sanjuan.apply(s, 1, ["trader"], rng)
    assert ask(s, 1) == ("library", ["use", "save"], 1, 1)
    sanjuan.apply(s, 1, ["save"], rng)
    sanjuan.apply(s, 0, ["producer"], rng)
    t = top(s, 2)
    sanjuan.apply(s, 1, ["prospector"], rng)
    assert s.players[1].hand[-2:] == t and len(s.players[1].hand) == 4


def test_library_with_three_players_always_doubles():
    """Rulebook: the library doubles the privilege of any role its owner selects (3-4 players)."""
    s, rng = make([{"city": ["library"]}, {}, {}])
    start_round(s, rng, governor=0)
    t = top(s, 2)
    sanjuan.apply(s, 0, ["prospector"], rng)
    assert s.players[0].hand == t
    assert sanjuan.to_act(s) == [1] and ask(s, 1)[0] == "role"
    sanjuan.apply(s, 1, ["trader"], rng)
    sanjuan.apply(s, 2, ["producer"], rng)
    # Round 2 (governor 1): seat 0 chooses last, the councillor, and sees 8 cards.
    sanjuan.apply(s, 1, ["trader"], rng)
    sanjuan.apply(s, 2, ["producer"], rng)
    t = top(s, 8)
    sanjuan.apply(s, 0, ["councillor"], rng)
    assert ask(s, 0) == ("keep", t, 1, 1)


# ================================================================ producer

def test_producer_one_good_producer_two():
    """Rulebook: each player produces on 1 empty production building, the producer on 2; goods
    are drawn face down; resolution starts with the producer whatever the answer order."""
    s, rng = make([
        {"city": ["indigo_plant", "sugar_mill", "smithy", "tobacco_storage", "coffee_roaster"]},
        {"city": ["indigo_plant", "sugar_mill"]},
        {"city": ["indigo_plant", "well"], "goods": ["indigo_plant"]},
    ])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["producer"], rng)
    p0 = [card(s, 0, k, "city") for k in GOOD_BUILDINGS[:4]]
    p1 = [card(s, 1, k, "city") for k in GOOD_BUILDINGS[:2]]
    assert sanjuan.to_act(s) == [0, 1]
    assert ask(s, 0) == ("produce", p0, 0, 2)
    assert ask(s, 1) == ("produce", p1, 0, 1)
    assert ask(s, 2) is None                          # no empty production building
    t = top(s, 3)
    sanjuan.apply(s, 1, [p1[1]], rng)
    assert s.players[1].goods == {}                   # nothing resolved yet
    sanjuan.apply(s, 0, [p0[3], p0[0]], rng)
    assert sorted(s.players[0].goods) == sorted([p0[0], p0[3]])
    assert sorted(s.players[0].goods.values()) == sorted(t[:2])
    assert s.players[1].goods == {p1[1]: t[2]}
    assert [len(p.hand) for p in s.players] == [0, 0, 0]
    assert sanjuan.to_act(s) == [1] and ask(s, 1)[0] == "role"
    conserved(s)


def test_producer_with_library_produces_three():
    """Rulebook: library doubles the producer's privilege: produce up to 3 goods."""
    s, rng = make([{"city": GOOD_BUILDINGS[:4] + ["library"]}, {}, {}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["producer"], rng)
    assert ask(s, 0) == ("produce", [card(s, 0, k, "city") for k in GOOD_BUILDINGS[:4]], 0, 3)


@pytest.mark.parametrize("producer, library, cap", [(False, False, 2), (True, False, 3), (True, True, 4)])
def test_aqueduct_marie_example(producer, library, cap):
    """Rulebook (aqueduct, Marie): up to 2 goods if not the producer, 3 as producer, 4 as producer
    with a library."""
    city = GOOD_BUILDINGS + ["aqueduct"] + (["library"] if library else [])
    s, rng = make([{"city": city}, {}, {}])
    start_round(s, rng, governor=0 if producer else 1)
    sanjuan.apply(s, 0 if producer else 1, ["producer"], rng)
    empty = [card(s, 0, k, "city") for k in GOOD_BUILDINGS]
    assert ask(s, 0) == ("produce", empty, 0, cap)
    t = top(s, cap)
    sanjuan.apply(s, 0, empty[:cap], rng)
    assert sorted(s.players[0].goods.values()) == sorted(t)
    assert sorted(s.players[0].goods) == sorted(empty[:cap])


def test_goods_only_on_empty_production_buildings():
    """Rulebook: a good goes on an empty production building only, never more than one per building;
    the count is capped by the empty buildings."""
    s, rng = make([{"city": ["indigo_plant", "sugar_mill", "tobacco_storage", "smithy"],
                    "goods": ["indigo_plant", "tobacco_storage"]}, {}, {}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["producer"], rng)
    sugar = card(s, 0, "sugar_mill", "city")
    assert ask(s, 0) == ("produce", [sugar], 0, 1)
    for wrong in (card(s, 0, "indigo_plant", "city"), card(s, 0, "smithy", "city")):
        with pytest.raises(IllegalAction) as e:
            sanjuan.apply(s, 0, [wrong], rng)
        assert e.value.code == "not_empty"
    old = dict(s.players[0].goods)
    t = top(s, 1)
    sanjuan.apply(s, 0, [sugar], rng)
    assert s.players[0].goods == {**old, sugar: t[0]}


def test_well_draws_when_producing_two_producer_or_not():
    """Rulebook (well): the owner draws 1 card when producing at least 2 goods, producer or not;
    not when producing 1."""
    s, rng = make([
        {"city": ["indigo_plant", "sugar_mill", "well"]},
        {"city": ["indigo_plant", "sugar_mill", "well", "aqueduct"]},
        {"city": ["indigo_plant", "sugar_mill", "well"]},
    ])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["producer"], rng)
    t = top(s, 7)
    pairs = {seat: [card(s, seat, "indigo_plant", "city"), card(s, seat, "sugar_mill", "city")]
             for seat in range(3)}
    done = check_simultaneous(s, rng, {0: pairs[0], 1: pairs[1], 2: pairs[2][:1]})
    # Turn order from the producer: seat 0 goods t0 t1, well t2; seat 1 goods t3 t4, well t5; seat 2 t6.
    assert done.players[0].hand == [t[2]]
    assert sorted(done.players[0].goods.values()) == sorted(t[0:2])
    assert done.players[1].hand == [t[5]]
    assert sorted(done.players[1].goods.values()) == sorted(t[3:5])
    assert done.players[2].hand == []
    assert done.players[2].goods == {pairs[2][0]: t[6]}
    conserved(done)


def test_producing_nothing_is_allowed():
    """Rulebook: a player may choose not to perform the action; the producer may produce nothing."""
    s, rng = make([{"city": ["indigo_plant"]}, {"city": ["indigo_plant"]}, {}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["producer"], rng)
    deck = list(s.deck)
    sanjuan.apply(s, 0, [], rng)
    ind = card(s, 1, "indigo_plant", "city")
    sanjuan.apply(s, 1, [ind], rng)
    assert s.players[0].goods == {}
    assert s.players[1].goods == {ind: deck[-1]}
    assert s.deck == deck[:-1]


def test_producer_answers_in_any_order_same_state():
    """Rules page: simultaneous producer decisions resolve in turn order from the producer."""
    s, rng = make([{"city": ["indigo_plant", "sugar_mill"]}, {"city": ["coffee_roaster", "indigo_plant"]},
                   {"city": ["silver_smelter"]}, {"city": ["tobacco_storage"]}])
    start_round(s, rng, governor=2)
    sanjuan.apply(s, 2, ["producer"], rng)
    def c(seat, k):
        return card(s, seat, k, "city")
    done = check_simultaneous(s, rng, {0: [c(0, "sugar_mill")], 1: [c(1, "coffee_roaster")],
                                       2: [c(2, "silver_smelter")], 3: [c(3, "tobacco_storage")]})
    t = top(s, 4)                                     # order 2, 3, 0, 1
    assert [list(done.players[seat].goods.values()) for seat in (2, 3, 0, 1)] == [[x] for x in t]


# ================================================================ trader

def tile_events(events):
    return [tuple(int(x) for x in re.findall(r"\d+", e["text"])) for e in events if e["type"] == "tile"]


def test_tile_turned_even_if_nobody_sells():
    """Rulebook: even if no goods are sold the top trading house tile goes under the pile."""
    s, rng = make([{}, {}, {}])
    ev = trader(s, rng, 0, tile=(1, 2, 2, 3, 3))
    assert s.tiles_turned == 1
    assert tile_events(ev) == [(1, 2, 2, 3, 3)]
    assert sanjuan.view(s, 1)["tiles"] == [prices((1, 2, 2, 3, 3))]
    assert sanjuan.to_act(s) == [1] and ask(s, 1)[0] == "role"


def test_tile_cycle_order_is_fixed():
    """Rules page: the tiles are shuffled once; each trader phase turns the next and puts it under the
    stack, so the cycle order never changes."""
    s, rng = make([{}, {}])
    s.tiles = (3, 0, 4, 1, 2)
    start_round(s, rng, governor=0)
    seen = []
    for _ in range(7):
        g = s.governor
        seen += tile_events(sanjuan.apply(s, g, ["trader"], rng))
        sanjuan.apply(s, 1 - g, ["producer"], rng)
        nobody_builds(s, rng, g)
    order = [TILES[t] for t in (3, 0, 4, 1, 2)]
    assert seen == order + order[:2]
    assert sorted(TILES) == sorted(RULE_TILES)


@pytest.mark.parametrize("tile", RULE_TILES)
@pytest.mark.parametrize("good", range(5))
def test_tile_prices(tile, good):
    """Rules page: the tile gives the price of indigo / sugar / tobacco / coffee / silver."""
    s, rng = make([{"city": [GOOD_BUILDINGS[good]], "goods": [GOOD_BUILDINGS[good]]}, {}, {}])
    trader(s, rng, 0, tile)
    b = card(s, 0, GOOD_BUILDINGS[good], "city")
    assert ask(s, 0) == ("sell", [b], 0, 1)
    t = top(s, 3)
    sanjuan.apply(s, 0, [b], rng)
    assert s.players[0].hand == t[:tile[good]]
    assert s.players[0].goods == {}


@pytest.mark.parametrize("is_trader, library, post, cap", [
    (False, False, False, 1), (False, True, False, 1), (True, False, False, 2), (True, True, False, 3),
    (False, False, True, 2), (True, False, True, 3), (True, True, True, 4)])
def test_how_many_goods_may_be_sold(is_trader, library, post, cap):
    """Rulebook: sell 1, the trader 2, with library 3; trading post +1 (Devin: 2 / 3 / 4)."""
    city = GOOD_BUILDINGS + (["library"] if library else []) + (["trading_post"] if post else [])
    s, rng = make([{"city": city, "goods": GOOD_BUILDINGS}, {}, {}])
    trader(s, rng, 0 if is_trader else 2)
    goods = [card(s, 0, k, "city") for k in GOOD_BUILDINGS]
    assert ask(s, 0) == ("sell", goods, 0, cap)
    with pytest.raises(IllegalAction) as e:
        sanjuan.apply(s, 0, goods[:cap + 1], rng)
    assert e.value.code == "too_many_goods"


def test_trader_sales_resolve_from_the_trader_in_any_answer_order():
    """Rules page: simultaneous trader decisions resolve clockwise from the trader."""
    s, rng = make([{"city": ["silver_smelter"], "goods": ["silver_smelter"]},
                   {"city": ["coffee_roaster"], "goods": ["coffee_roaster"]},
                   {"city": ["indigo_plant", "sugar_mill"], "goods": ["indigo_plant", "sugar_mill"]}])
    trader(s, rng, 2, (1, 2, 2, 3, 3))                 # seat 2 trades: order 2, 0, 1
    t = top(s, 9)
    done = check_simultaneous(s, rng, {0: [card(s, 0, "silver_smelter", "city")],
                                       1: [card(s, 1, "coffee_roaster", "city")],
                                       2: [card(s, 2, "indigo_plant", "city"), card(s, 2, "sugar_mill", "city")]})
    assert done.players[2].hand == t[0:3]              # indigo 1 + sugar 2
    assert done.players[0].hand == t[3:6]              # silver 3
    assert done.players[1].hand == t[6:9]              # coffee 3
    assert all(p.goods == {} for p in done.players)
    conserved(done)


def test_market_stand_one_card_when_selling_two():
    """Rulebook (market stand): +1 card when its owner sells at least 2 goods, trader or not."""
    s, rng = make([
        {"city": ["indigo_plant", "sugar_mill", "market_stand"], "goods": ["indigo_plant", "sugar_mill"]},
        {"city": ["indigo_plant", "sugar_mill", "market_stand", "trading_post"],
         "goods": ["indigo_plant", "sugar_mill"]},
        {"city": ["indigo_plant", "market_stand"], "goods": ["indigo_plant"]},
    ])
    trader(s, rng, 0, (1, 1, 1, 2, 2))
    t = top(s, 7)
    def both(seat):
        return [card(s, seat, "indigo_plant", "city"), card(s, seat, "sugar_mill", "city")]
    done = check_simultaneous(s, rng, {0: both(0), 1: both(1), 2: [card(s, 2, "indigo_plant", "city")]})
    assert done.players[0].hand == t[0:3]             # 1 + 1 + market stand
    assert done.players[1].hand == t[3:6]             # 1 + 1 + market stand (not the trader)
    assert done.players[2].hand == t[6:7]             # sold only 1: no bonus


def test_market_hall_sarah_example():
    """Rulebook (market hall, Sarah): sells 1 sugar (1) and 1 coffee (2) and draws 4 cards; one extra
    card when selling at least 1, never more."""
    s, rng = make([
        {"city": ["sugar_mill", "coffee_roaster", "market_hall"], "goods": ["sugar_mill", "coffee_roaster"]},
        {"city": ["indigo_plant", "market_hall"], "goods": ["indigo_plant"]},
        {"city": ["indigo_plant", "market_hall"], "goods": ["indigo_plant"]},
    ])
    trader(s, rng, 0, (1, 1, 1, 2, 2))
    t = top(s, 6)
    done = check_simultaneous(s, rng, {
        0: [card(s, 0, "sugar_mill", "city"), card(s, 0, "coffee_roaster", "city")],
        1: [card(s, 1, "indigo_plant", "city")],
        2: []})
    assert done.players[0].hand == t[0:4]
    assert done.players[1].hand == t[4:6]
    assert done.players[2].hand == []                 # sold nothing: no market hall card


def test_devin_example_market_stand_adds_no_sale():
    """Rulebook trader example (Devin, market stand + market hall, sells 3 goods): by the card texts
    the market stand gives a card, not a sale, so without a trading post the trader sells only 2."""
    city = ["indigo_plant", "tobacco_storage", "silver_smelter", "market_stand", "market_hall"]
    s, rng = make([{"city": city, "goods": city[:3]}, {}, {}])
    trader(s, rng, 0, (1, 1, 2, 2, 3))
    goods = [card(s, 0, k, "city") for k in city[:3]]
    assert ask(s, 0) == ("sell", goods, 0, 2)
    with pytest.raises(IllegalAction):
        sanjuan.apply(s, 0, goods, rng)
    t = top(s, 5)
    sanjuan.apply(s, 0, goods[:2], rng)               # indigo 1 + tobacco 2 + hall 1 + stand 1
    assert s.players[0].hand == t


def test_devin_example_with_trading_post_per_card_texts():
    """Devin's three sales need a trading post; with market stand and market hall as well he draws
    1 + 2 + 3 + 1 (hall) + 1 (stand) = 8 by the card texts (the rulebook prints 7)."""
    city = ["indigo_plant", "tobacco_storage", "silver_smelter", "market_stand", "market_hall", "trading_post"]
    s, rng = make([{"city": city, "goods": city[:3]}, {}, {}])
    trader(s, rng, 0, (1, 1, 2, 2, 3))
    goods = [card(s, 0, k, "city") for k in city[:3]]
    assert ask(s, 0) == ("sell", goods, 0, 3)
    t = top(s, 9)
    sanjuan.apply(s, 0, goods, rng)
    assert s.players[0].hand == t[:8]


def test_devin_example_seven_cards_with_trading_post_and_market_hall():
    """Devin's 7 cards (1 + 2 + 3 + 1 for the market hall) hold with a trading post and a market hall."""
    city = ["indigo_plant", "tobacco_storage", "silver_smelter", "trading_post", "market_hall"]
    s, rng = make([{"city": city, "goods": city[:3]}, {}, {}])
    trader(s, rng, 0, (1, 1, 2, 2, 3))
    goods = [card(s, 0, k, "city") for k in city[:3]]
    t = top(s, 8)
    sanjuan.apply(s, 0, goods, rng)
    assert s.players[0].hand == t[:7]


@pytest.mark.parametrize("tile", RULE_TILES)
def test_customs_office_good_sells_for_two(tile):
    """Rules page (customs office): its good sells for 2 cards whatever the tile says."""
    s, rng = make([{"city": ["customs_office"], "goods": ["customs_office"]}, {}, {}], expansion=True)
    trader(s, rng, 0, tile)
    office = card(s, 0, "customs_office", "city")
    assert ask(s, 0) == ("sell", [office], 0, 1)
    t = top(s, 3)
    sanjuan.apply(s, 0, [office], rng)
    assert s.players[0].hand == t[:2]


def test_customs_office_good_counts_for_market_stand():
    """Rules page: the customs office good is an ordinary good for the market stand."""
    city = ["customs_office", "indigo_plant", "market_stand"]
    s, rng = make([{"city": city, "goods": city[:2]}, {}, {}], expansion=True)
    trader(s, rng, 0, (1, 1, 1, 2, 2))
    t = top(s, 5)
    sanjuan.apply(s, 0, [card(s, 0, "customs_office", "city"), card(s, 0, "indigo_plant", "city")], rng)
    assert s.players[0].hand == t[:4]                  # 2 + 1 + stand 1


def test_harbor_one_sold_good_per_phase():
    """Rules page (harbor): one sold good a phase goes under the harbor, not one per good; the owner
    still draws the full price; the card goes under face down, so no event names it, not even to
    the owner, while everyone learns that one went under."""
    s, rng = make([
        {"city": ["indigo_plant", "sugar_mill", "harbor"], "goods": ["indigo_plant", "sugar_mill"]},
        {"city": ["indigo_plant", "harbor"], "goods": ["indigo_plant"]},
        {"city": ["indigo_plant", "harbor"], "goods": ["indigo_plant"]},
    ], expansion=True)
    trader(s, rng, 0, (1, 1, 1, 2, 2))
    g0 = set(s.players[0].goods.values())
    g1 = set(s.players[1].goods.values())
    g2 = set(s.players[2].goods.values())
    t = top(s, 3)
    ev = []
    for seat, picks in ((2, []), (1, [card(s, 1, "indigo_plant", "city")]),
                        (0, [card(s, 0, "indigo_plant", "city"), card(s, 0, "sugar_mill", "city")])):
        ev += sanjuan.apply(s, seat, picks, rng)
    p0, p1, p2 = s.players
    assert len(p0.harbor) == 1 and set(p0.harbor) < g0
    assert set(s.discard) == g0 - set(p0.harbor)
    assert p0.hand == t[:2]
    assert p1.harbor == sorted(g1) and p1.hand == t[2:3]
    assert p2.harbor == [] and p2.goods != {} and set(p2.goods.values()) == g2
    harbor_events = [e for e in ev if e["type"] == "harbor"]
    assert [e["to"] for e in harbor_events] == [None, None]
    assert [e["text"] for e in harbor_events] == [f"{name} puts one of the sold goods face down under their harbor."
                                                  for name in ("Ana", "Bo")]
    assert [e["type"] for e in ev if e["to"] is not None] == ["draw", "draw"]   # the sale's cards only
    conserved(s)


@pytest.mark.parametrize("somebody_sells", [False, True])
def test_hut_draws_when_nobody_sold(somebody_sells):
    """Rulebook (hut): its owner draws 1 card if no good was sold by any player in this phase."""
    s, rng = make([{"city": ["hut"]}, {"city": ["indigo_plant", "hut"], "goods": ["indigo_plant"]},
                   {"city": ["hut"]}], expansion=True)
    trader(s, rng, 0)
    t = top(s, 3)
    ind = card(s, 1, "indigo_plant", "city")
    sanjuan.apply(s, 1, [ind] if somebody_sells else [], rng)
    if somebody_sells:
        assert [p.hand for p in s.players] == [[], t[:1], []]
    else:
        assert [p.hand for p in s.players] == [t[0:1], t[1:2], t[2:3]]


def test_hut_draws_when_nobody_could_sell():
    """Rulebook (hut): nobody sold (nobody even had a good) -> the hut owner draws 1."""
    s, rng = make([{}, {"city": ["hut"]}, {}], expansion=True)
    t = top(s, 1)
    trader(s, rng, 0)
    assert s.players[1].hand == t


# ================================================================ councillor

def test_councillor_draws_five_others_two_keep_one():
    """Rulebook: the councillor draws 5 and keeps 1; the others draw 2 and keep 1; all decide at once,
    draws go in turn order from the councillor."""
    s, rng = make([{"hand": ["statue"]}, {}, {}])
    start_round(s, rng, governor=1, taken=[("builder", 1)])
    t = top(s, 9)
    sanjuan.apply(s, 2, ["councillor"], rng)          # order 2, 0, 1
    assert ask(s, 2) == ("keep", t[0:5], 1, 1)
    assert ask(s, 0) == ("keep", t[5:7], 1, 1)
    assert ask(s, 1) == ("keep", t[7:9], 1, 1)
    assert sanjuan.view(s, 2)["you"]["drawn"] == [[c, k] for c, k in zip(t[:5], keys(s, t[:5]))]
    done = check_simultaneous(s, rng, {2: [t[3]], 0: [t[6]], 1: [t[7]]})
    assert done.players[2].hand == [t[3]]
    assert keys(done, done.players[0].hand)[0] == "statue" and done.players[0].hand[1:] == [t[6]]
    assert done.players[1].hand == [t[7]]
    assert sorted(done.discard) == sorted(t[0:3] + t[4:6] + t[8:9])
    assert all(p.drawn == [] for p in done.players)
    conserved(done)


def test_councillor_with_library_draws_eight():
    """Rulebook (library): the councillor receives a selection of 8 cards."""
    s, rng = make([{"city": ["library"]}, {}, {}])
    start_round(s, rng, governor=0)
    t = top(s, 12)
    sanjuan.apply(s, 0, ["councillor"], rng)
    assert ask(s, 0) == ("keep", t[0:8], 1, 1)
    assert ask(s, 1) == ("keep", t[8:10], 1, 1)


@pytest.mark.parametrize("councillor, library, drawn", [(False, False, 2), (True, False, 5), (True, True, 8)])
def test_prefecture_nicole_keeps_two(councillor, library, drawn):
    """Rulebook (prefecture, Nicole): keeps 2 of 2, 2 of 5 as councillor, 2 of 8 with a library."""
    city = ["prefecture"] + (["library"] if library else [])
    s, rng = make([{"city": city}, {}, {}])
    start_round(s, rng, governor=0 if councillor else 1)
    t = top(s, 12)
    sanjuan.apply(s, 0 if councillor else 1, ["councillor"], rng)
    mine = t[:drawn] if councillor else t[7:9]        # not councillor: order 1, 2, 0
    if drawn == 2:
        assert ask(s, 0) is None                       # 2 of 2: nothing to choose
        assert s.players[0].hand == mine
    else:
        assert ask(s, 0) == ("keep", mine, 2, 2)
        answers = {0: mine[1:3], 1: [t[drawn]], 2: [t[drawn + 2]]}
        done = check_simultaneous(s, rng, answers)
        assert done.players[0].hand == mine[1:3]


def test_archive_nicole_example():
    """Rulebook (archive, Nicole): councillor with prefecture and archive adds 5 cards to her hand,
    then discards any 3 from the whole hand."""
    s, rng = make([{"city": ["prefecture", "archive"], "hand": ["statue", "hero"]}, {}, {}])
    start_round(s, rng, governor=0)
    old = list(s.players[0].hand)
    t = top(s, 9)
    sanjuan.apply(s, 0, ["councillor"], rng)
    assert s.players[0].hand == old + t[:5]
    assert ask(s, 0) == ("discard", old + t[:5], 3, 3)
    done = check_simultaneous(s, rng, {0: [old[0], t[1], t[4]], 1: [t[5]], 2: [t[7]]})
    assert done.players[0].hand == [old[1], t[0], t[2], t[3]]
    assert sorted(done.discard) == sorted([old[0], t[1], t[4], t[6], t[8]])


def test_archive_jaden_example_with_library():
    """Rulebook (library, Jaden): councillor with archive, prefecture and library takes 8 cards into
    his hand and discards any 6."""
    s, rng = make([{"city": ["prefecture", "archive", "library"], "hand": ["palace"]}, {}, {}])
    start_round(s, rng, governor=0)
    old = list(s.players[0].hand)
    t = top(s, 8)
    sanjuan.apply(s, 0, ["councillor"], rng)
    assert ask(s, 0) == ("discard", old + t, 6, 6)
    sanjuan.apply(s, 0, old + t[:5], rng)
    sanjuan.apply(s, 1, [ask(s, 1)[1][0]], rng)
    sanjuan.apply(s, 2, [ask(s, 2)[1][0]], rng)
    assert s.players[0].hand == t[5:8]


def test_archive_without_councillor_discards_one_from_whole_hand():
    """Rules page (archive): draw into the hand first, then discard from the whole hand (here 1 of 2+hand)."""
    s, rng = make([{}, {"city": ["archive"], "hand": ["hero"]}, {}])
    start_round(s, rng, governor=0)
    t = top(s, 9)
    sanjuan.apply(s, 0, ["councillor"], rng)
    hero = card(s, 1, "hero")
    assert ask(s, 1) == ("discard", [hero, t[5], t[6]], 1, 1)
    sanjuan.apply(s, 0, [t[0]], rng)
    sanjuan.apply(s, 2, [t[7]], rng)
    sanjuan.apply(s, 1, [hero], rng)
    assert s.players[1].hand == [t[5], t[6]]
    assert hero in s.discard


def test_customs_office_gets_good_at_start_of_councillor_phase():
    """Rules page (customs office): at the start of each councillor phase every owner whose customs
    office is empty gets the top deck card face down as a good (before the councillor draws)."""
    s, rng = make([{"city": ["customs_office"]}, {"city": ["customs_office"], "goods": ["customs_office"]},
                   {"city": ["customs_office"]}], expansion=True)
    start_round(s, rng, governor=2)
    full = dict(s.players[1].goods)
    t = top(s, 11)
    sanjuan.apply(s, 2, ["councillor"], rng)          # order 2, 0, 1
    assert s.players[2].goods == {card(s, 2, "customs_office", "city"): t[0]}
    assert s.players[0].goods == {card(s, 0, "customs_office", "city"): t[1]}
    assert s.players[1].goods == full
    assert ask(s, 2) == ("keep", t[2:7], 1, 1)
    assert ask(s, 0) == ("keep", t[7:9], 1, 1)
    assert ask(s, 1) == ("keep", t[9:11], 1, 1)


# ================================================================ prospector

def test_prospector_draws_one_nobody_else():
    """Rulebook: the prospector takes 1 card; there is no action for the others."""
    s, rng = make([{}, {}, {}])
    start_round(s, rng, governor=1)
    t = top(s, 1)
    ev = sanjuan.apply(s, 1, ["prospector"], rng)
    assert [p.hand for p in s.players] == [[], t, []]
    assert sanjuan.to_act(s) == [2] and ask(s, 2)[0] == "role"
    public = [e for e in ev if e["type"] == "draw" and e["to"] is None]
    private = [e for e in ev if e["type"] == "draw" and e["to"] is not None]
    assert len(public) == 1 and [e["to"] for e in private] == [1]
    assert name(keys(s, t)[0]) in private[0]["text"]


def test_prospector_with_library_draws_two():
    """Rulebook (library): the prospector receives 2 cards."""
    s, rng = make([{}, {"city": ["library"]}, {}])
    start_round(s, rng, governor=1)
    t = top(s, 2)
    sanjuan.apply(s, 1, ["prospector"], rng)
    assert [p.hand for p in s.players] == [[], t, []]


@pytest.mark.parametrize("turned, kept", [
    (["library", "carpenter", "smithy", "tobacco_storage"], None),
    (["quarry", "gold_mine", "tobacco_storage", "library"], "gold_mine")])
def test_gold_mine_marie_examples(turned, kept):
    """Rulebook (gold mine, Marie): after the prospector's privilege, 4 cards: all costs different ->
    keep the cheapest, else discard all four. The turned cards are public."""
    s, rng = make([{}, {"city": ["gold_mine"]}, {}], deck=["statue"] + turned)
    start_round(s, rng, governor=0)
    t = top(s, 5)
    ev = sanjuan.apply(s, 0, ["prospector"], rng)
    assert s.players[0].hand == t[:1]
    if kept is None:
        assert s.players[1].hand == []
        assert sorted(s.discard) == sorted(t[1:])
    else:
        assert keys(s, s.players[1].hand) == [kept]
        assert sorted(s.discard) == sorted(c for c in t[1:] if c not in s.players[1].hand)
    shown = [e for e in ev if e["type"] == "gold_mine"]
    assert len(shown) == 1 and shown[0]["to"] is None
    assert shown[0] in sanjuan.visible_events(ev, 2)
    for k in turned:
        assert name(k).lower() in shown[0]["text"].lower()


def test_gold_mines_clockwise_from_prospector():
    """Rules page (gold mine): every owner, clockwise from the prospector, turns up 4 cards."""
    s, rng = make([{"city": ["gold_mine"]}, {"city": ["gold_mine"]}, {"city": ["gold_mine"]}],
                  deck=["statue",
                        "smithy", "sugar_mill", "chapel", "quarry",       # seat 1 (prospector)
                        "archive", "well", "tower", "library",           # seat 2
                        "poor_house", "crane", "hero", "silver_smelter"])  # seat 0: two cost 2
    start_round(s, rng, governor=1)
    sanjuan.apply(s, 1, ["prospector"], rng)
    assert keys(s, s.players[1].hand) == ["statue", "smithy"]
    assert keys(s, s.players[2].hand) == ["archive"]
    assert s.players[0].hand == []
    assert sorted(keys(s, s.discard)) == sorted(["sugar_mill", "chapel", "quarry", "well", "tower", "library",
                                                 "poor_house", "crane", "hero", "silver_smelter"])


@pytest.mark.parametrize("where, kept", [
    (None, True),            # nobody built a statue
    ("other", False),        # another player built one
    ("own", False),          # the goldsmith owner built one
    ("covered", True),       # only a covered statue: does not count
])
def test_goldsmith(where, kept):
    """Rules page (goldsmith): turns up the top card and keeps it if no player has built that
    building (covered buildings do not count), otherwise discards it; public."""
    own = {"city": ["goldsmith"] + (["statue"] if where == "own" else [])}
    other = {"city": ["crane"] + (["statue"] if where == "other" else [])}
    if where == "covered":
        other["covered"] = ["statue"]
    s, rng = make([own, other, {}], deck=["hero", "statue"], expansion=True)
    start_round(s, rng, governor=1)
    t = top(s, 2)
    ev = sanjuan.apply(s, 1, ["prospector"], rng)
    assert s.players[1].hand == t[:1]
    if kept:
        assert s.players[0].hand == t[1:2]
    else:
        assert s.players[0].hand == [] and s.discard == t[1:2]
    shown = [e for e in ev if e["type"] == "goldsmith"]
    assert len(shown) == 1 and shown[0]["to"] is None and "statue" in shown[0]["text"].lower()


def test_goldsmith_discards_production_building_already_built():
    """Rules page (goldsmith): production buildings count too; every player owns an indigo plant."""
    s, rng = make([{"city": ["indigo_plant", "goldsmith"]}, {"city": ["indigo_plant"]}],
                  deck=["hero", "indigo_plant", "coffee_roaster"], expansion=True)
    start_round(s, rng, governor=1)
    t = top(s, 2)
    sanjuan.apply(s, 1, ["prospector"], rng)
    assert s.players[0].hand == [] and s.discard == t[1:2]


# ================================================================ round start

def test_office_building_discards_then_draws_as_many():
    """Rules page (office building): at round start discard 1-2 cards, then draw as many."""
    s, rng = make([{}, {"city": ["office_building"], "hand": ["statue", "hero", "tower"]},
                   {"city": ["office_building"]}], expansion=True)
    finish_round(s, rng)
    hand = list(s.players[1].hand)
    assert sanjuan.to_act(s) == [1]                    # seat 2 has no card: not asked
    assert ask(s, 1) == ("office", hand, 0, 2)
    t = top(s, 2)
    ev = sanjuan.apply(s, 1, [hand[0], hand[2]], rng)
    assert s.players[1].hand == [hand[1]] + t
    assert sorted(s.discard) == sorted([hand[0], hand[2]])
    assert sanjuan.to_act(s) == [1] and ask(s, 1)[0] == "role"
    assert all(e["to"] in (None, 1) for e in ev)


def test_office_building_may_be_skipped():
    """Rulebook: building functions are optional; an office owner may discard nothing."""
    s, rng = make([{}, {"city": ["office_building"], "hand": ["statue"]}, {}], expansion=True)
    finish_round(s, rng)
    assert ask(s, 1) == ("office", [card(s, 1, "statue")], 0, 1)
    deck = list(s.deck)
    sanjuan.apply(s, 1, [], rng)
    assert keys(s, s.players[1].hand) == ["statue"] and s.deck == deck


def test_round_start_order_office_chapel_bank_limit():
    """Rules page: round start in order: office building, chapel, bank, then the hand limit."""
    hand = ["statue", "hero", "tower", "well", "crane", "smithy", "quarry", "chapel", "carpenter"]
    s, rng = make([{}, {"city": ["office_building", "chapel", "bank"], "hand": hand}, {}], expansion=True)
    finish_round(s, rng)
    assert (s.governor, s.round) == (1, 2)
    h = list(s.players[1].hand)
    assert ask(s, 1) == ("office", h, 0, 2)
    t = top(s, 2)
    sanjuan.apply(s, 1, h[:2], rng)
    h = h[2:] + t
    assert ask(s, 1) == ("chapel", h, 0, 1)           # the office draws are already in hand
    sanjuan.apply(s, 1, [t[0]], rng)
    h.remove(t[0])
    assert s.players[1].chapel == [t[0]]
    assert ask(s, 1) == ("bank", h, 0, len(h))
    sanjuan.apply(s, 1, h[:1], rng)
    assert s.players[1].bank == h[:1]
    h = h[1:]
    assert ask(s, 1) == ("limit", h, 1, 1)             # 7 cards, expansion limit 6
    sanjuan.apply(s, 1, h[-1:], rng)
    assert s.players[1].hand == h[:-1]
    assert ask(s, 1)[0] == "role"
    conserved(s)


def test_chapel_one_card_at_round_start():
    """Rulebook (chapel): at the start of a round its owner may put one card from hand face down
    under the chapel; only the owner learns which, everyone learns that one went under."""
    s, rng = make([{}, {"city": ["chapel"], "hand": ["statue", "hero"]}, {"city": ["chapel"]}])
    finish_round(s, rng)
    statue, hero = card(s, 1, "statue"), card(s, 1, "hero")
    assert sanjuan.to_act(s) == [1]                    # seat 2's hand is empty
    assert ask(s, 1) == ("chapel", [statue, hero], 0, 1)
    with pytest.raises(IllegalAction) as e:
        sanjuan.apply(s, 1, [statue, hero], rng)
    assert e.value.code == "wrong_count"
    ev = sanjuan.apply(s, 1, [hero], rng)
    assert s.players[1].chapel == [hero] and s.players[1].hand == [statue]
    assert [(e["to"], e["text"]) for e in ev if e["type"] == "chapel"] == [
        (None, "Bo puts a card under their chapel."), (1, "You put Hero under your chapel.")]
    assert sanjuan.visible_events(ev, 0) == [e for e in ev if e["to"] is None]


def test_chapel_owners_decide_at_once_any_order():
    """Rules page: round-start decisions are simultaneous and resolve in order from the governor."""
    s, rng = make([{"city": ["chapel"], "hand": ["statue"]}, {"city": ["chapel"], "hand": ["hero", "tower"]},
                   {"city": ["chapel"], "hand": ["well"]}])
    finish_round(s, rng)
    done = check_simultaneous(s, rng, {0: [card(s, 0, "statue")], 1: [card(s, 1, "tower")], 2: []})
    assert keys(done, done.players[0].chapel) == ["statue"]
    assert keys(done, done.players[1].chapel) == ["tower"]
    assert done.players[2].chapel == [] and keys(done, done.players[2].hand) == ["well"]


def test_bank_once_per_game_any_number():
    """Rulebook (bank): only once in the entire game, at round start, any number of cards under the
    bank; declining keeps it for a later round. How many go under is public, which ones private."""
    s, rng = make([{}, {"city": ["bank"], "hand": ["statue", "hero", "tower"]}, {}], expansion=True)
    finish_round(s, rng)
    h = list(s.players[1].hand)
    assert ask(s, 1) == ("bank", h, 0, 3)
    assert sanjuan.apply(s, 1, [], rng) == []          # not now
    assert s.players[1].bank == [] and s.players[1].hand == h
    finish_round(s, rng)
    assert ask(s, 2) is None and ask(s, 1) == ("bank", h, 0, 3)
    ev = sanjuan.apply(s, 1, [h[0], h[2]], rng)
    assert s.players[1].bank == [h[0], h[2]] and s.players[1].hand == [h[1]]
    assert [(e["to"], e["text"]) for e in ev if e["type"] == "bank"] == [
        (None, "Bo puts 2 cards under their bank."), (1, "You put Statue, Tower under your bank.")]
    finish_round(s, rng)
    assert s.governor == 0 and ask(s, 0)[0] == "role" and ask(s, 1) is None


HAND = ["sugar_mill"] * 8 + ["coffee_roaster"] * 8


@pytest.mark.parametrize("expansion, city, size, excess", [
    (False, [], 7, 0), (False, [], 9, 2), (False, ["tower"], 12, 0), (False, ["tower"], 13, 1),
    (True, [], 6, 0), (True, [], 7, 1), (True, ["guard_room"], 7, 0), (True, ["guard_room"], 8, 1),
    (True, ["tower"], 12, 0), (True, ["tower", "guard_room"], 13, 1)])
def test_hand_limit(expansion, city, size, excess):
    """Rules page: hand limit 7; with the expansion 6, 7 with a guard room; a tower owner 12; the
    player chooses the discards."""
    s, rng = make([{}, {"city": city, "hand": HAND[:size]}, {}], expansion=expansion)
    finish_round(s, rng)
    h = list(s.players[1].hand)
    if not excess:
        assert ask(s, 1)[0] == "role" and s.players[1].hand == h
        return
    assert sanjuan.to_act(s) == [1]
    assert ask(s, 1) == ("limit", h, excess, excess)
    picks = h[1:1 + excess]
    sanjuan.apply(s, 1, picks, rng)
    assert s.players[1].hand == [h[0]] + h[1 + excess:]
    assert s.discard[-excess:] == picks
    assert ask(s, 1)[0] == "role"


def test_hand_limit_only_at_round_start():
    """Rulebook: during a round players may hold more than 7 cards; the limit is enforced only at the
    start of a new round."""
    s, rng = make([{}, {"hand": HAND[:9]}, {}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["prospector"], rng)
    assert sanjuan.to_act(s) == [1] and ask(s, 1)[0] == "role"
    sanjuan.apply(s, 1, ["councillor"], rng)
    for seat in (1, 2, 0):
        sanjuan.apply(s, seat, [ask(s, seat)[1][0]], rng)
    assert len(s.players[1].hand) == 10
    assert sanjuan.to_act(s) == [2] and ask(s, 2)[0] == "role"
    sanjuan.apply(s, 2, ["trader"], rng)
    h = list(s.players[1].hand)
    assert sanjuan.to_act(s) == [1]
    assert ask(s, 1) == ("limit", h, 3, 3)


def test_hand_limit_decisions_any_order():
    """Rules page: hand-limit discards are simultaneous and give the same state in any answer order."""
    s, rng = make([{"hand": HAND[:8]}, {"hand": HAND[8:16]}, {"hand": ["statue"] * 3}])
    finish_round(s, rng)
    done = check_simultaneous(s, rng, {0: s.players[0].hand[-1:], 1: s.players[1].hand[:1]})
    assert [len(p.hand) for p in done.players] == [7, 7, 3]


# ================================================================ setup

@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_variant_deals_5_6_7_8_keep_4(n):
    """Rulebook (setup variation): 1st/2nd/3rd/4th player from the governor takes 5/6/7/8 cards and
    keeps 4; everyone decides at once."""
    rng = local_streams(11)
    s = sanjuan.setup(["A", "B", "C", "D"][:n], {"setup_variant": True}, rng)
    g = s.governor
    order = [(g + i) % n for i in range(n)]
    assert sanjuan.to_act(s) == list(range(n))
    for i, seat in enumerate(order):
        hand = s.players[seat].hand
        assert len(hand) == 5 + i
        assert ask(s, seat) == ("keep", hand, 4, 4)
    assert all(keys(s, p.city) == ["indigo_plant"] for p in s.players)
    answers = {seat: s.players[seat].hand[-4:] for seat in range(n)}
    done = check_simultaneous(s, rng, answers)
    assert [done.players[seat].hand for seat in range(n)] == [answers[seat] for seat in range(n)]
    assert len(done.discard) == sum(range(1, n + 1))
    assert sanjuan.to_act(done) == [g] and ask(done, g) == ("role", ROLES, 1, 1)
    conserved(done)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_basic_four_cards_and_indigo_plant(n):
    """Rulebook (setup): each player gets one indigo plant face up and 4 cards; the governor begins."""
    rng = local_streams(5)
    s = sanjuan.setup(["A", "B", "C", "D"][:n], {}, rng)
    assert all(len(p.hand) == 4 and keys(s, p.city) == ["indigo_plant"] for p in s.players)
    assert len(s.deck) == 110 - 5 * n and s.discard == []
    assert sanjuan.to_act(s) == [s.governor] and ask(s, s.governor) == ("role", ROLES, 1, 1)
    conserved(s)


def test_first_governor_comes_from_rng():
    """Rules page: the first governor is drawn from the stream `start-player`."""
    seen = set()
    for seed in range(12):
        s = sanjuan.setup(["A", "B", "C", "D"], None, local_streams(seed))
        assert s.governor == local_streams(seed).randbelow("start-player", 0, 4)
        seen.add(s.governor)
    assert len(seen) > 1


@pytest.mark.parametrize("names, options", [
    (["A"], {}), (["A", "B", "C", "D", "E"], {}), (["A", "B"], {"variant": True}),
    (["A", "B"], {"expansion": True, "turbo": 1}), (["A", "B"], {"expansion": "no"}),
    (["A", "B"], {"setup_variant": 1}), (["A", "B"], {b"expansion": True})])
def test_setup_refuses_bad_tables(names, options):
    """San Juan is for 2-4 players; unknown table options, and options that are not true or
    false, are refused."""
    with pytest.raises(IllegalAction) as e:
        sanjuan.setup(names, options, local_streams(1))
    assert e.value.code in ("bad_table", "bad_options")


# ================================================================ deck

def test_empty_supply_reshuffles_discard_pile():
    """Rulebook: when the draw pile runs out, the discarded cards are reshuffled into a new draw pile
    (rules page: stream deck/reshuffle, pile sorted by id)."""
    s, rng = make([{}, {}, {}], discard=["silver_smelter", "hero"], rest_to="discard")
    assert s.deck == [] and s.discard != sorted(s.discard)   # the pile is not in id order
    pile = sorted(s.discard)
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["prospector"], rng)
    expected = local_streams("scenario").shuffle("deck/reshuffle", 1, pile)
    assert s.players[0].hand == expected[:1]
    assert s.discard == []
    assert s.deck[::-1] == expected[1:]
    assert s.reshuffles == 1
    conserved(s)


def test_reshuffle_in_the_middle_of_a_draw():
    """Rulebook: the draw pile running out mid-draw continues from the reshuffled discard pile."""
    s, rng = make([{}, {}, {}], deck=["statue", "hero"], rest_to="discard")
    start_round(s, rng, governor=0)
    first = top(s, 2)
    pile = sorted(s.discard)
    sanjuan.apply(s, 0, ["councillor"], rng)
    drawn = ask(s, 0)[1]
    assert drawn[:2] == first
    assert drawn[2:] == local_streams("scenario").shuffle("deck/reshuffle", 1, pile)[:3]


def test_both_piles_empty_draw_gives_nothing():
    """Rules page: if supply and discard pile are both empty, the draw gives nothing."""
    s, rng = make([{}, {}, {}])
    s.players[2].hand = s.deck[::-1]
    s.deck = []
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["prospector"], rng)
    assert s.players[0].hand == [] and s.reshuffles == 0
    assert sanjuan.to_act(s) == [1] and ask(s, 1)[0] == "role"
    conserved(s)


def stuck(hand_size):
    """Two players, supply, discard pile and goods empty. Ana holds `hand_size` cards (limit 7), all
    copies of city buildings she has built, so she can build nothing; Bo's hand is empty and the
    rest of the cards lie under his chapel."""
    built = ["guild_hall", "city_hall", "triumphal_arch", "palace", "hero", "victory_column"]
    hand = ["guild_hall", "city_hall", "triumphal_arch", "palace", "hero", "hero", "victory_column",
            "victory_column"][:hand_size]
    s, rng = make([{"city": ["indigo_plant", *built], "hand": hand}, {"city": ["indigo_plant", "chapel"]}])
    s.players[1].chapel = s.deck[::-1]
    s.deck = []
    return s, rng


def test_a_game_in_which_no_card_can_move_ends():
    """Rules page (deck): supply, discard pile and goods empty, nobody can build and no hand over its
    limit: no card can ever move again, and the game ends and is scored."""
    s, rng = stuck(7)
    ev = start_round(s, rng, governor=0)
    assert s.over and sanjuan.to_act(s) == []
    assert ev[-1]["text"].startswith("The game ends: no card can move any more")
    assert sanjuan.view(s, None)["result"]["winners"] == [1]   # the chapel full of cards
    conserved(s)


def test_a_hand_over_its_limit_keeps_the_game_going_until_its_discard_is_stuck_too():
    """Rules page (deck): a hand over its limit will refill the discard pile at the round start, so
    the game goes on; once that card has been drawn again and nobody can use it, the game ends."""
    s, rng = stuck(8)
    start_round(s, rng, governor=0)
    for seat, role in ((0, "trader"), (1, "prospector")):   # nothing moves
        assert not s.over and ask(s, seat)[0] == "role"
        sanjuan.apply(s, seat, [role], rng)
    nobody_builds(s, rng, 0)
    assert ask(s, 0) == ("limit", s.players[0].hand, 1, 1)   # round 2 starts with the hand limit
    hero = card(s, 0, "hero")
    sanjuan.apply(s, 0, [hero], rng)
    assert not s.over and s.discard == [hero] and ask(s, 1)[0] == "role"
    ev = sanjuan.apply(s, 1, ["prospector"], rng)   # Bo draws the hero back and cannot build it
    assert s.players[1].hand == [hero]
    assert s.over and ev[-1]["text"].startswith("The game ends: no card can move any more")
    conserved(s)


# ================================================================ hidden information

def test_view_own_hand_cards_others_counts_piles_counts():
    """Rules page: own hand as cards, other hands as counts; supply and discard as counts."""
    a, _ = make([{"hand": ["statue", "hero"]}, {"hand": ["well"]}, {}], discard=["crane"])
    b, _ = make([{"hand": ["statue", "hero"]}, {"hand": ["tower"]}, {}], discard=["palace"])
    va = sanjuan.view(a, 0)
    assert va["you"]["hand"] == [[card(a, 0, "statue"), "statue"], [card(a, 0, "hero"), "hero"]]
    assert [pl["hand"] for pl in va["players"]] == [2, 1, 0]
    assert va["deck"] == len(a.deck) and va["discard"] == 1
    assert sanjuan.view(b, 0) == va                   # seat 1's card and the discard stay hidden
    assert sanjuan.view(a, None) == sanjuan.view(b, None)
    assert sanjuan.view(a, 1) != sanjuan.view(b, 1)


def test_view_goods_only_as_boolean():
    """Rules page: goods show only whether a building holds one, to everyone including the owner."""
    a, _ = make([{"city": ["indigo_plant", "sugar_mill"], "goods": ["sugar_mill"]}, {}])
    b = sanjuan.copy(a)
    sugar = card(b, 0, "sugar_mill", "city")
    b.players[0].goods[sugar], b.deck[0] = b.deck[0], b.players[0].goods[sugar]
    va = sanjuan.view(a, 1)
    assert [x[2] for x in va["players"][0]["city"]] == [False, True]
    for seat in (0, 1, None):
        assert sanjuan.view(a, seat) == sanjuan.view(b, seat)


def test_view_chapel_and_bank_cards_only_to_owner_counts_to_everyone():
    """Rules page: the owner sees the cards under their chapel and bank; every seat and a spectator
    see how many lie under each player's chapel, bank and harbor (every placement is announced),
    and nothing more: which cards they are makes no difference to another seat's view."""
    city = ["chapel", "bank", "harbor"]
    a, _ = make([{"city": city, "chapel": ["statue", "hero"], "bank": ["well"], "harbor": ["tower"]}, {}],
                expansion=True)
    b, _ = make([{"city": city, "chapel": ["tower", "well"], "bank": ["hero"], "harbor": ["statue"]}, {}],
                expansion=True)
    for seat in (1, None):
        v = sanjuan.view(a, seat)
        assert v == sanjuan.view(b, seat)
        assert [(p["chapel"], p["bank"], p["harbor"]) for p in v["players"]] == [(2, 1, 1), (0, 0, 0)]
    you = sanjuan.view(a, 0)["you"]
    assert you["chapel"] == [[card(a, 0, "statue", "chapel"), "statue"], [card(a, 0, "hero", "chapel"), "hero"]]
    assert you["bank"] == [[card(a, 0, "well", "bank"), "well"]]


def test_view_harbor_cards_hidden_from_their_owner_too():
    """Rules page: the harbor's card goes under "face down (without looking at it)": its owner's
    view shows the count like everyone's, never the cards: which cards they are changes nothing."""
    city = ["harbor"]
    a, _ = make([{"city": city, "harbor": ["tower", "hero"]}, {}], expansion=True)
    b, _ = make([{"city": city, "harbor": ["statue", "well"]}, {}], expansion=True)
    mine = sanjuan.view(a, 0)
    assert mine["players"][0]["harbor"] == 2
    assert mine == sanjuan.view(b, 0)
    assert "harbor" not in mine["you"]


def test_councillor_draws_only_to_drawer():
    """Rules page: councillor draws are shown only to the drawer (view and events)."""
    views, events = [], []
    for first in (["statue", "hero", "tower", "well", "crane"], ["chapel", "palace", "library", "carpenter", "aqueduct"]):
        s, rng = make([{}, {}], deck=first + ["smithy", "quarry"])
        start_round(s, rng, governor=0)
        ev = sanjuan.apply(s, 0, ["councillor"], rng)
        assert keys(s, ask(s, 0)[1]) == first
        assert keys(s, ask(s, 1)[1]) == ["smithy", "quarry"]
        views.append((sanjuan.view(s, 1), sanjuan.view(s, None), sanjuan.view(s, 0)))
        events.append((sanjuan.visible_events(ev, 1), sanjuan.visible_events(ev, None),
                       sanjuan.visible_events(ev, 0)))
        assert keys(s, [c for c, _ in sanjuan.view(s, 0)["you"]["drawn"]]) == first
    assert views[0][:2] == views[1][:2]
    assert views[0][2] != views[1][2]
    assert events[0][:2] == events[1][:2]
    assert events[0][2] != events[1][2]


def test_view_tiles_only_those_turned():
    """Rules page: trading tiles are shown only once turned."""
    s, rng = make([{}, {}])
    s.tiles = (4, 2, 0, 1, 3)
    assert sanjuan.view(s, 0)["tiles"] == []
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["trader"], rng)
    assert sanjuan.view(s, 1)["tiles"] == [prices(TILES[4])]
    assert sanjuan.view(s, 1)["tile"] == prices(TILES[4])
    sanjuan.apply(s, 1, ["producer"], rng)
    nobody_builds(s, rng, 0)
    sanjuan.apply(s, 1, ["trader"], rng)
    assert sanjuan.view(s, 0)["tiles"] == [prices(TILES[4]), prices(TILES[2])]
    assert sanjuan.view(s, None)["tiles"] == [prices(TILES[4]), prices(TILES[2])]
    assert sanjuan.view(s, None)["tile"] == prices(TILES[2])


def prices(tile):
    return dict(zip(["indigo", "sugar", "tobacco", "coffee", "silver"], tile))


def test_private_events_carry_to_and_are_filtered():
    """Rules page: private events (the cards a seat draws) carry `to` = that seat; visible_events
    hides them from everyone else."""
    s, rng = make([{}, {}, {}])
    start_round(s, rng, governor=0)
    ev = sanjuan.apply(s, 0, ["prospector"], rng)
    private = [e for e in ev if e["to"] is not None]
    assert private and all(e["to"] == 0 for e in private)
    assert sanjuan.visible_events(ev, 0) == ev
    assert sanjuan.visible_events(ev, 1) == [e for e in ev if e["to"] is None]
    assert sanjuan.visible_events(ev, None) == [e for e in ev if e["to"] is None]
    assert all(name(keys(s, s.players[0].hand)[0]) not in e["text"] for e in sanjuan.visible_events(ev, 1))


def test_office_and_bank_owners_decide_at_once_any_order():
    """Rules page: office building and bank decisions are simultaneous, resolved from the governor."""
    city = ["office_building", "bank"]
    s, rng = make([{"city": city, "hand": ["statue", "hero"]}, {"city": city, "hand": ["tower", "well"]},
                   {"city": ["bank"], "hand": ["crane"]}], expansion=True)
    finish_round(s, rng)                               # governor 1: order 1, 2, 0
    t = top(s, 3)
    done = check_simultaneous(s, rng, {0: [card(s, 0, "hero")], 1: [card(s, 1, "tower"), card(s, 1, "well")]})
    assert done.players[1].hand == t[0:2]              # seat 1 draws first
    assert done.players[0].hand == [card(s, 0, "statue"), t[2]]
    banks = {seat: list(done.players[seat].hand) for seat in (0, 1)}
    banks[2] = [card(s, 2, "crane")]
    done = check_simultaneous(done, rng, {0: banks[0][:1], 1: banks[1], 2: []})
    assert done.players[0].bank == banks[0][:1] and done.players[0].hand == banks[0][1:]
    assert done.players[1].bank == banks[1] and done.players[1].hand == []
    assert done.players[2].bank == []
    assert ask(done, 1)[0] == "role"
