"""The builder phase: costs and reductions, every builder building, the cathedral, the tavern,
the game end, and the illegal actions of the build decisions.

Rulebook: the San Juan rulebook; rule decisions: docs/rules.md, 'San Juan'.
Seat 0 is the governor unless said otherwise; seats are Ana (0), Bo (1), Cy (2).
"""
from __future__ import annotations

import pytest

from games import sanjuan
from games.errors import IllegalAction
from tests.games.sanjuan.scenario import all_places, card, keys, make, start_round

# Cheap city cards with three copies each, used as money in hands. Their own kinds never matter.
_FILL = ["well", "market_stand", "trading_post", "archive", "gold_mine", "aqueduct", "tower",
         "prefecture", "market_hall"]


def fill(n: int) -> list[str]:
    assert n <= len(_FILL)
    return _FILL[:n]


def seat(hand=(), city=("indigo_plant",), **more) -> dict:
    return {"hand": list(hand), "city": list(city), **more}


def conserved(s) -> None:
    """Every card (and the cathedral in an expansion game) is in exactly one place."""
    n = 144 if s.expansion else 110
    assert sorted(all_places(s)) == list(range(n))


def build_phase(players, chooser=0, **kw):
    """A scenario in which `chooser` (the governor) takes the builder role at once."""
    s, rng = make(players, **kw)
    start_round(s, rng, governor=chooser)
    ev = sanjuan.apply(s, chooser, ["builder"], rng)
    return s, rng, ev


def public(ev) -> list[str]:
    return [e["text"] for e in ev if e["to"] is None]


def private(ev, to: int) -> list[str]:
    return [e["text"] for e in ev if e["to"] == to]


def ask(s, who: int) -> tuple:
    """The pending decision of a seat as (kind, options, min, max)."""
    assert sanjuan.to_act(s) == [who]
    p = sanjuan.prompt(s, who)
    return p["kind"], p["options"], p["min"], p["max"]


def passes(s, rng, *seats) -> list[dict]:
    """Each seat in turn can afford nothing and is asked all the same (rules.build_decision): the
    build decision has no option and the pick is none, so a skip never tells what a hand holds.
    The events of the passes."""
    ev = []
    for who in seats:
        assert ask(s, who) == ("build", [], 0, 0)
        assert sanjuan.prompt(s, who)["text"].startswith("Builder phase: you can afford no building")
        got = sanjuan.apply(s, who, [], rng)
        assert f"{s.names[who]} does not build." in public(got)
        ev += got
    return ev


def rejected(s, rng, who, action, code: str) -> IllegalAction:
    """The action raises IllegalAction with `code` and a message, and changes nothing."""
    before = sanjuan.dump(s)
    with pytest.raises(IllegalAction) as err:
        sanjuan.apply(s, who, action, rng)
    assert err.value.code == code
    assert isinstance(err.value.message, str) and err.value.message
    assert sanjuan.dump(s) == before
    return err.value


def ids(s, who, *names, where="hand") -> list[int]:
    """Ids of the named cards of a seat; a repeated name gives the next copy."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        out.append(card(s, who, name, where, seen.get(name, 0)))
        seen[name] = seen.get(name, 0) + 1
    return out


# ---------------------------------------------------------------- costs and reductions

def test_builder_privilege_pays_one_less():
    """Builder privilege: the builder pays 1 card less (tobacco storage 3 -> 2), choosing which."""
    s, rng, _ = build_phase([seat(["tobacco_storage", "well", "market_stand", "trading_post"]),
                             seat(), seat()])
    hand = s.players[0].hand[:]
    assert ask(s, 0) == ("build", hand, 0, 1)
    tob, well, stand, post = hand
    sanjuan.apply(s, 0, [tob], rng)
    assert ask(s, 0) == ("pay", [well, stand, post], 2, 2)
    ev = sanjuan.apply(s, 0, [well, post], rng)
    assert "Ana builds a tobacco storage, paying 2 cards." in public(ev)
    assert s.players[0].hand == [stand]
    assert keys(s, s.players[0].city) == ["indigo_plant", "tobacco_storage"]
    assert sorted(s.discard) == sorted([well, post])
    passes(s, rng, 1, 2)
    assert s.stage == "role" and sanjuan.to_act(s) == [1]
    conserved(s)


def test_non_builder_pays_full_cost_and_whole_hand_is_taken_without_asking():
    """Other players pay the full cost; a payment that takes the whole hand is not asked for."""
    s, rng, _ = build_phase([seat(), seat(["tobacco_storage", "well", "market_stand", "trading_post"]),
                             seat()])
    passes(s, rng, 0)
    tob, *rest = s.players[1].hand
    assert ask(s, 1) == ("build", [tob, *rest], 0, 1)
    ev = sanjuan.apply(s, 1, [tob], rng)
    assert "Bo builds a tobacco storage, paying 3 cards." in public(ev)
    assert s.players[1].hand == []
    assert sorted(s.discard) == sorted(rest)
    passes(s, rng, 2)
    assert s.stage == "role" and sanjuan.prompt(s, 1)["kind"] == "role"
    conserved(s)


def test_library_doubles_the_builder_privilege():
    """Library: the builder pays 2 cards less (tobacco storage 3 -> 1)."""
    s, rng, _ = build_phase([seat(["tobacco_storage", "well", "market_stand"],
                                  ["indigo_plant", "library"]), seat(), seat()])
    tob, well, stand = s.players[0].hand
    assert sanjuan.prompt(s, 0)["labels"][0].endswith("cost 3, you pay 1, 2 VP")
    sanjuan.apply(s, 0, [tob], rng)
    assert ask(s, 0) == ("pay", [well, stand], 1, 1)
    sanjuan.apply(s, 0, [stand], rng)
    assert s.players[0].hand == [well]
    assert s.discard == [stand]
    conserved(s)


def test_reductions_never_go_below_zero_and_are_not_refunded():
    """Rulebook (Jaden): builder + smithy + library = 3 off a sugar mill (2): free, no card back."""
    s, rng, _ = build_phase([seat(["sugar_mill", "well", "well"], ["indigo_plant", "smithy", "library"]),
                             seat(), seat()])
    mill = card(s, 0, "sugar_mill")
    deck = s.deck[:]
    ev = sanjuan.apply(s, 0, [mill], rng)
    assert "Ana builds a sugar mill, paying 0 cards." in public(ev)
    assert keys(s, s.players[0].city) == ["indigo_plant", "smithy", "library", "sugar_mill"]
    assert keys(s, s.players[0].hand) == ["well", "well"]
    assert s.discard == [] and s.deck == deck
    passes(s, rng, 1, 2)
    assert sanjuan.to_act(s) == [1] and s.stage == "role"
    conserved(s)


@pytest.mark.parametrize("building,pay", [("tobacco_storage", 2), ("statue", 3)])
def test_smithy_reduces_production_buildings_only(building, pay):
    """Smithy: 1 card less for a production building; no reduction for a city building."""
    s, rng, _ = build_phase([seat(), seat([building, *fill(4)], ["indigo_plant", "smithy"]), seat()])
    passes(s, rng, 0)
    target, *rest = s.players[1].hand
    assert sanjuan.prompt(s, 1)["labels"][0].split("   ")[-1].startswith(f"cost 3, you pay {pay},")
    sanjuan.apply(s, 1, [target], rng)
    assert ask(s, 1) == ("pay", rest, pay, pay)
    sanjuan.apply(s, 1, rest[:pay], rng)
    assert s.players[1].hand == rest[pay:]
    assert s.discard == rest[:pay]
    conserved(s)


@pytest.mark.parametrize("building,pay", [("statue", 2), ("tobacco_storage", 3)])
def test_quarry_reduces_city_buildings_only(building, pay):
    """Quarry: 1 card less for a city building; no reduction for a production building."""
    s, rng, _ = build_phase([seat(), seat([building, *fill(4)], ["indigo_plant", "quarry"]), seat()])
    passes(s, rng, 0)
    target, *rest = s.players[1].hand
    sanjuan.apply(s, 1, [target], rng)
    assert ask(s, 1) == ("pay", rest, pay, pay)
    sanjuan.apply(s, 1, rest[:pay], rng)
    assert s.players[1].hand == rest[pay:]
    conserved(s)


def test_quarry_builder_builds_a_crane_for_free():
    """Rulebook (Nicole): the builder with a quarry builds a crane (2) for free."""
    s, rng, _ = build_phase([seat(["crane", "well"], ["indigo_plant", "quarry"]), seat(), seat()])
    crane, well = s.players[0].hand
    assert sanjuan.prompt(s, 0)["labels"][0].endswith("cost 2, you pay 0, 1 VP")
    ev = sanjuan.apply(s, 0, [crane], rng)
    assert "Ana builds a crane, paying 0 cards." in public(ev)
    assert s.players[0].hand == [well]
    assert keys(s, s.players[0].city) == ["indigo_plant", "quarry", "crane"]
    assert s.discard == []
    conserved(s)


def test_library_and_quarry_builder_pays_three_less_for_a_city_building():
    """Rulebook (Devin): builder with quarry and library pays 3 less for a city building (hero 5 -> 2)."""
    s, rng, _ = build_phase([seat(["hero", *fill(4)], ["indigo_plant", "quarry", "library"]),
                             seat(), seat()])
    hero, *rest = s.players[0].hand
    assert sanjuan.prompt(s, 0)["labels"][0].endswith("cost 5, you pay 2, 5 VP")
    sanjuan.apply(s, 0, [hero], rng)
    assert ask(s, 0) == ("pay", rest, 2, 2)
    sanjuan.apply(s, 0, rest[1:3], rng)
    assert s.players[0].hand == [rest[0], rest[3]]
    assert s.discard == rest[1:3]
    conserved(s)


@pytest.mark.parametrize("choice,pay", [("use", 1), ("save", 2)])
def test_two_player_governor_chooses_whether_to_use_the_library_for_the_builder(choice, pay):
    """Two players: the governor's library works once a round, so the governor decides whether to
    double the builder privilege on the first role."""
    s, rng = make([seat(["tobacco_storage", *fill(3)], ["indigo_plant", "library"]), seat()])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["builder"], rng)
    assert ask(s, 0) == ("library", ["use", "save"], 1, 1)
    sanjuan.apply(s, 0, [choice], rng)
    tob, *rest = s.players[0].hand
    sanjuan.apply(s, 0, [tob], rng)
    assert ask(s, 0) == ("pay", rest, pay, pay)
    sanjuan.apply(s, 0, rest[:pay], rng)
    assert s.players[0].hand == rest[pay:]
    assert s.players[0].library_used is (choice == "use")
    conserved(s)


# ---------------------------------------------------------------- one of each city building

def test_an_owned_city_building_is_not_a_build_option():
    """Only one of each city building per player: the owned statue is not offered; forcing it
    raises already_built."""
    s, rng, _ = build_phase([seat(["statue", "victory_column", "well", "well"], ["indigo_plant", "statue"]),
                             seat(), seat()])
    statue, column, well, well2 = s.players[0].hand
    assert ask(s, 0) == ("build", [column, well, well2], 0, 1)
    rejected(s, rng, 0, [statue], "already_built")
    conserved(s)


def test_production_buildings_may_repeat():
    """Production buildings may be built more than once (a second sugar mill, a second indigo plant)."""
    s, rng, _ = build_phase([seat(["sugar_mill", "indigo_plant", "well"], ["indigo_plant", "sugar_mill"]),
                             seat(), seat()])
    mill, indigo, well = s.players[0].hand
    assert ask(s, 0) == ("build", [mill, indigo, well], 0, 1)
    sanjuan.apply(s, 0, [mill], rng)
    assert ask(s, 0) == ("pay", [indigo, well], 1, 1)
    sanjuan.apply(s, 0, [well], rng)
    assert keys(s, s.players[0].city) == ["indigo_plant", "sugar_mill", "sugar_mill"]
    assert s.players[0].hand == [indigo]
    conserved(s)


# ---------------------------------------------------------------- crane

def test_crane_rulebook_chapel_covered_by_palace_pays_three():
    """Rulebook (Nicole): covering the chapel (3) with a palace (6) costs 3 cards."""
    s, rng, _ = build_phase([seat(), seat(["palace", *fill(6)], ["indigo_plant", "crane", "chapel"]),
                             seat()])
    passes(s, rng, 0)
    palace, *rest = s.players[1].hand
    indigo, crane, chapel = s.players[1].city
    sanjuan.apply(s, 1, [palace], rng)
    # Affordable without covering (6 cards): covering is optional; the crane is never a target.
    assert ask(s, 1) == ("cover", [indigo, chapel], 0, 1)
    sanjuan.apply(s, 1, [chapel], rng)
    assert ask(s, 1) == ("pay", rest, 3, 3)
    ev = sanjuan.apply(s, 1, rest[:3], rng)
    assert "Bo builds a palace, paying 3 cards, covering their chapel with the crane." in public(ev)
    assert s.players[1].city == [indigo, crane, palace]
    assert s.players[1].covered == [chapel]
    assert s.players[1].hand == rest[3:]
    assert s.discard == rest[:3]
    conserved(s)


def test_crane_rulebook_coffee_roaster_covered_by_statue_is_free_without_refund():
    """Rulebook (Jaden): covering the coffee roaster (4) with a statue (3) costs nothing, no refund."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(2)], ["indigo_plant", "crane", "coffee_roaster"]),
                             seat()])
    passes(s, rng, 0)
    statue, *rest = s.players[1].hand
    indigo, crane, roaster = s.players[1].city
    sanjuan.apply(s, 1, [statue], rng)
    assert ask(s, 1) == ("cover", [indigo, roaster], 1, 1)
    deck = s.deck[:]
    ev = sanjuan.apply(s, 1, [roaster], rng)
    assert "Bo builds a statue, paying 0 cards, covering their coffee roaster with the crane." in public(ev)
    assert s.players[1].hand == rest
    assert s.players[1].city == [indigo, crane, statue]
    assert s.players[1].covered == [roaster]
    assert s.discard == [] and s.deck == deck
    conserved(s)


def test_cover_is_required_when_only_affordable_by_covering():
    """Crane: when the building is affordable only by covering, 'cover' has min 1 and lists only
    the targets that make it affordable; picking none is refused."""
    s, rng, _ = build_phase([seat(), seat(["palace", *fill(3)], ["indigo_plant", "crane", "chapel"]),
                             seat()])
    passes(s, rng, 0)
    palace, *rest = s.players[1].hand
    indigo, crane, chapel = s.players[1].city
    assert ask(s, 1) == ("build", [palace, *rest], 0, 1)
    sanjuan.apply(s, 1, [palace], rng)
    assert ask(s, 1) == ("cover", [chapel], 1, 1)
    rejected(s, rng, 1, [], "wrong_count")
    sanjuan.apply(s, 1, [chapel], rng)
    # 6 - 3 = 3 = the whole remaining hand: paid without a question.
    assert s.players[1].hand == []
    assert s.discard == rest
    conserved(s)


def test_the_crane_cannot_be_covered():
    """Crane: any building but a crane may be covered (code cannot_cover_crane)."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(3)], ["indigo_plant", "crane", "carpenter"]),
                             seat()])
    passes(s, rng, 0)
    library = s.players[1].hand[0]
    indigo, crane, carpenter = s.players[1].city
    sanjuan.apply(s, 1, [library], rng)
    kind, options, lo, hi = ask(s, 1)
    assert kind == "cover" and crane not in options and options == [carpenter]
    rejected(s, rng, 1, [crane], "cannot_cover_crane")
    conserved(s)


def test_a_building_cannot_be_covered_by_the_same_building():
    """Crane: a building may not be covered with the same building (code same_building)."""
    s, rng, _ = build_phase([seat(), seat(["sugar_mill", "well"], ["indigo_plant", "crane", "sugar_mill"]),
                             seat()])
    passes(s, rng, 0)
    mill, well = s.players[1].hand
    indigo, crane, old_mill = s.players[1].city
    sanjuan.apply(s, 1, [mill], rng)
    assert ask(s, 1) == ("cover", [indigo], 1, 1)
    rejected(s, rng, 1, [old_mill], "same_building")
    sanjuan.apply(s, 1, [indigo], rng)
    assert s.players[1].city == [mill, crane, old_mill]
    assert s.players[1].covered == [indigo]
    assert s.players[1].hand == [] and s.discard == [well]   # 2 - 1 = 1: the whole hand
    conserved(s)


def test_covering_a_production_building_discards_its_good():
    """Crane: a good on a covered production building is lost to the discard pile."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(2)], ["indigo_plant", "crane", "coffee_roaster"],
                                          goods=["coffee_roaster"]), seat()])
    passes(s, rng, 0)
    statue, *rest = s.players[1].hand
    roaster = s.players[1].city[2]
    good = s.players[1].goods[roaster]
    sanjuan.apply(s, 1, [statue], rng)
    sanjuan.apply(s, 1, [roaster], rng)
    assert s.players[1].goods == {}
    assert s.discard == [good]
    assert s.players[1].hand == rest
    conserved(s)


def test_cards_under_a_covered_chapel_still_score():
    """Crane: cards under a covered chapel remain and still score 1 VP each."""
    s, rng, _ = build_phase([seat(), seat(["palace", *fill(3)], ["indigo_plant", "crane", "chapel"],
                                          chapel=["hero", "hero"]), seat()])
    passes(s, rng, 0)
    palace = s.players[1].hand[0]
    chapel = s.players[1].city[2]
    under = s.players[1].chapel[:]
    sanjuan.apply(s, 1, [palace], rng)
    sanjuan.apply(s, 1, [chapel], rng)
    assert s.players[1].covered == [chapel]
    assert s.players[1].chapel == under
    score = sanjuan.result(s)["scores"][1]
    assert score["chapel"] == 2
    assert score["buildings"] == 2                     # indigo plant 1 + crane 1 + palace 0
    assert score["palace"] == 1 and score["total"] == 5  # (2 + 2) // 4 = 1
    conserved(s)


def test_covering_does_not_change_the_building_count():
    """Crane: covering replaces a building, so 11 buildings stay 11 and the game does not end."""
    city = ["indigo_plant", "crane", "chapel", "smithy", "gold_mine", "archive", "well",
            "market_stand", "trading_post", "sugar_mill", "tobacco_storage"]
    s, rng, _ = build_phase([seat(), seat(["palace", *fill(3)], city), seat()])
    passes(s, rng, 0)
    palace = s.players[1].hand[0]
    chapel = card(s, 1, "chapel", "city")
    sanjuan.apply(s, 1, [palace], rng)
    kind, options, lo, hi = ask(s, 1)
    assert kind == "cover" and lo == 1 and chapel in options
    sanjuan.apply(s, 1, [chapel], rng)
    assert len(s.players[1].city) == 11
    passes(s, rng, 2)
    assert not s.over and s.stage == "role" and sanjuan.to_act(s) == [1]
    conserved(s)


def test_a_covered_city_building_can_be_built_again():
    """Crane: a city building that was covered may be built again later."""
    s, rng, _ = build_phase([seat(["chapel", *fill(3)], ["indigo_plant", "palace"], covered=["chapel"]),
                             seat(), seat()])
    chapel, *rest = s.players[0].hand
    old = s.players[0].covered[0]
    assert chapel in ask(s, 0)[1]
    sanjuan.apply(s, 0, [chapel], rng)
    assert ask(s, 0) == ("pay", rest, 2, 2)
    sanjuan.apply(s, 0, rest[:2], rng)
    assert keys(s, s.players[0].city) == ["indigo_plant", "palace", "chapel"]
    assert s.players[0].covered == [old]
    conserved(s)


def test_a_covered_carpenter_loses_its_function_at_once():
    """Crane: the covered building loses its function at once: covering the carpenter with a
    city building draws no carpenter card."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(3)], ["indigo_plant", "crane", "carpenter"]),
                             seat()], deck=["hero"])
    passes(s, rng, 0)
    library, *rest = s.players[1].hand
    carpenter = s.players[1].city[2]
    top = s.deck[-1]
    sanjuan.apply(s, 1, [library], rng)
    assert ask(s, 1) == ("cover", [carpenter], 1, 1)
    sanjuan.apply(s, 1, [carpenter], rng)
    assert ask(s, 1) == ("pay", rest, 2, 2)
    ev = sanjuan.apply(s, 1, rest[:2], rng)
    assert s.players[1].hand == rest[2:]
    assert s.deck[-1] == top
    assert not any("carpenter)" in t for t in public(ev))
    conserved(s)


def test_a_covered_poor_house_loses_its_function_at_once():
    """Crane: covering the poor house leaves the builder with 0 cards and no poor house draw."""
    s, rng, _ = build_phase([seat(), seat(["statue", "well"], ["indigo_plant", "crane", "poor_house"]),
                             seat()], deck=["hero"])
    passes(s, rng, 0)
    statue, well = s.players[1].hand
    poor = s.players[1].city[2]
    sanjuan.apply(s, 1, [statue], rng)
    assert ask(s, 1) == ("cover", [poor], 1, 1)
    sanjuan.apply(s, 1, [poor], rng)
    assert s.players[1].hand == []
    assert s.discard == [well]
    assert keys(s, [s.deck[-1]]) == ["hero"]
    conserved(s)


# ---------------------------------------------------------------- park (expansion)

def test_park_covered_by_library_is_free():
    """Rulebook (Nicole): covering the park with a library (5) costs nothing: the park takes 6 off."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(2)], ["indigo_plant", "crane", "park"]), seat()],
                            expansion=True)
    passes(s, rng, 0)
    library, *rest = s.players[1].hand
    park = s.players[1].city[2]
    sanjuan.apply(s, 1, [library], rng)
    assert ask(s, 1) == ("cover", [park], 1, 1)
    ev = sanjuan.apply(s, 1, [park], rng)
    assert "Bo builds a library, paying 0 cards, covering their park with the crane." in public(ev)
    assert s.players[1].hand == rest and s.discard == []
    assert s.players[1].covered == [park]
    conserved(s)


def test_park_covered_by_cathedral_pays_one():
    """Rulebook (Jaden): covering the park with the cathedral (7) costs 1 card."""
    s, rng, _ = build_phase([seat(), seat(fill(3), ["indigo_plant", "crane", "park"]), seat()],
                            expansion=True)
    passes(s, rng, 0)
    cathedral = s.cathedral
    assert cathedral == 143
    hand = s.players[1].hand[:]
    park = s.players[1].city[2]
    kind, options, lo, hi = ask(s, 1)
    assert kind == "build" and options[-1] == cathedral
    sanjuan.apply(s, 1, [cathedral], rng)
    assert ask(s, 1) == ("cover", [park], 1, 1)
    sanjuan.apply(s, 1, [park], rng)
    assert ask(s, 1) == ("pay", hand, 1, 1)
    sanjuan.apply(s, 1, [hand[1]], rng)
    assert keys(s, s.players[1].city) == ["indigo_plant", "crane", "cathedral"]
    assert s.players[1].city[2] == cathedral
    assert s.players[1].hand == [hand[0], hand[2]]
    assert s.discard == [hand[1]]
    assert s.cathedral is None
    conserved(s)


@pytest.mark.parametrize("how", ["builder", "quarry"])
def test_park_covered_by_cathedral_is_free_for_the_builder_or_with_a_quarry(how):
    """Rulebook: as the builder, or with a quarry, the cathedral over the park is free."""
    city = ["indigo_plant", "crane", "park"] + (["quarry"] if how == "quarry" else [])
    who = 0 if how == "builder" else 1
    players = [seat(), seat(), seat()]
    players[who] = seat(fill(2), city)
    s, rng, _ = build_phase(players, expansion=True)
    passes(s, rng, *range(who))
    hand = s.players[who].hand[:]
    park = s.players[who].city[2]
    cathedral = s.cathedral
    sanjuan.apply(s, who, [cathedral], rng)
    kind, options, lo, hi = ask(s, who)
    assert kind == "cover" and park in options and lo == 1
    sanjuan.apply(s, who, [park], rng)
    assert s.players[who].hand == hand and s.discard == []
    assert cathedral in s.players[who].city
    conserved(s)


# ---------------------------------------------------------------- black market

def test_black_market_rulebook_example():
    """Rulebook (Marie): library (5) with the goods of her indigo plant and tobacco storage
    discarded at the black market: she pays 3 cards."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(5)],
                                          ["indigo_plant", "tobacco_storage", "black_market"],
                                          goods=["indigo_plant", "tobacco_storage"]), seat()])
    passes(s, rng, 0)
    library, *rest = s.players[1].hand
    indigo, tobacco, _ = s.players[1].city
    goods = [s.players[1].goods[indigo], s.players[1].goods[tobacco]]
    sanjuan.apply(s, 1, [library], rng)
    kind, options, lo, hi = ask(s, 1)
    assert (kind, sorted(options), lo, hi) == ("black_market", sorted([indigo, tobacco]), 0, 2)
    sanjuan.apply(s, 1, [indigo, tobacco], rng)
    assert ask(s, 1) == ("pay", rest, 3, 3)
    ev = sanjuan.apply(s, 1, rest[:3], rng)
    assert "Bo builds a library, paying 3 cards and 2 goods at the black market." in public(ev)
    assert s.players[1].hand == rest[3:]
    assert s.players[1].goods == {}
    assert sorted(s.discard) == sorted(rest[:3] + goods)
    conserved(s)


def test_black_market_takes_at_most_two_goods_from_any_production_building():
    """Black market: up to 2 goods, from any of the builder's production buildings."""
    s, rng, _ = build_phase([seat(), seat(["hero", *fill(5)],
                                          ["indigo_plant", "sugar_mill", "silver_smelter", "black_market"],
                                          goods=["indigo_plant", "sugar_mill", "silver_smelter"]), seat()])
    passes(s, rng, 0)
    hero, *rest = s.players[1].hand
    indigo, sugar, silver, _ = s.players[1].city
    silver_good = s.players[1].goods[silver]
    sugar_good = s.players[1].goods[sugar]
    sanjuan.apply(s, 1, [hero], rng)
    kind, options, lo, hi = ask(s, 1)
    assert (kind, sorted(options), lo, hi) == ("black_market", sorted([indigo, sugar, silver]), 0, 2)
    rejected(s, rng, 1, [indigo, sugar, silver], "wrong_goods")
    sanjuan.apply(s, 1, [sugar, silver], rng)
    assert ask(s, 1) == ("pay", rest, 3, 3)
    sanjuan.apply(s, 1, rest[:3], rng)
    assert list(s.players[1].goods) == [indigo]
    assert sorted(s.discard) == sorted(rest[:3] + [silver_good, sugar_good])
    conserved(s)


def test_black_market_is_offered_on_a_free_building_and_empties_its_buildings():
    """Rules page (building): the owner may discard up to 2 goods even when the building is already
    free; the goods pay nothing more (no refund) and simply leave their buildings."""
    s, rng, _ = build_phase([seat(["smithy", *fill(2)], ["indigo_plant", "sugar_mill", "black_market"],
                                  goods=["indigo_plant", "sugar_mill"]), seat(), seat()])
    smithy, *rest = s.players[0].hand
    indigo, sugar, _ = s.players[0].city
    goods = sorted(s.players[0].goods.values())
    assert sanjuan.prompt(s, 0)["labels"][0].split("   ")[-1].startswith("cost 1, you pay 0,")
    sanjuan.apply(s, 0, [smithy], rng)
    kind, options, lo, hi = ask(s, 0)
    assert (kind, sorted(options), lo, hi) == ("black_market", sorted([indigo, sugar]), 0, 2)
    ev = sanjuan.apply(s, 0, [indigo, sugar], rng)
    assert "Ana builds a smithy, paying 0 cards and 2 goods at the black market." in public(ev)
    assert s.players[0].hand == rest and s.players[0].goods == {}
    assert sorted(s.discard) == goods
    conserved(s)


def test_black_market_may_take_more_goods_than_the_cost_left():
    """Rules page (building): 1 card still to pay, 2 goods may still go; picking none pays with a card."""
    s, rng, _ = build_phase([seat(), seat(["smithy", *fill(2)], ["indigo_plant", "sugar_mill", "black_market"],
                                          goods=["indigo_plant", "sugar_mill"]), seat()])
    passes(s, rng, 0)
    smithy, *rest = s.players[1].hand
    sanjuan.apply(s, 1, [smithy], rng)
    assert ask(s, 1)[2:] == (0, 2)
    twin = s.copy()
    sanjuan.apply(s, 1, list(ask(s, 1)[1]), rng)
    assert s.players[1].hand == rest and s.players[1].goods == {}       # nothing left to pay
    sanjuan.apply(twin, 1, [], rng)
    assert ask(twin, 1) == ("pay", rest, 1, 1)
    conserved(s)


def test_black_market_one_good_pays_one_card():
    """Black market: each discarded good pays exactly 1 card of the cost."""
    s, rng, _ = build_phase([seat(), seat(["hero", *fill(5)],
                                          ["indigo_plant", "sugar_mill", "black_market"],
                                          goods=["indigo_plant", "sugar_mill"]), seat()])
    passes(s, rng, 0)
    hero, *rest = s.players[1].hand
    sugar = s.players[1].city[1]
    sanjuan.apply(s, 1, [hero], rng)
    sanjuan.apply(s, 1, [sugar], rng)
    assert ask(s, 1) == ("pay", rest, 4, 4)
    sanjuan.apply(s, 1, rest[:4], rng)
    assert s.players[1].hand == rest[4:]
    conserved(s)


def test_black_market_accepts_a_customs_office_good():
    """Expansion: the good on a customs office can be discarded at the black market."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(3)], ["indigo_plant", "customs_office", "black_market"],
                                          goods=["customs_office"]), seat()], expansion=True)
    passes(s, rng, 0)
    statue, *rest = s.players[1].hand
    office = s.players[1].city[1]
    good = s.players[1].goods[office]
    sanjuan.apply(s, 1, [statue], rng)
    assert ask(s, 1) == ("black_market", [office], 0, 1)
    sanjuan.apply(s, 1, [office], rng)
    assert ask(s, 1) == ("pay", rest, 2, 2)
    sanjuan.apply(s, 1, rest[:2], rng)
    assert s.players[1].goods == {}
    assert sorted(s.discard) == sorted(rest[:2] + [good])
    conserved(s)


def test_black_market_minimum_when_goods_are_needed_to_afford():
    """Black market: when the hand alone cannot pay, the black market decision has the needed
    minimum; then the payment takes the whole hand without a question."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(3)],
                                          ["indigo_plant", "tobacco_storage", "black_market"],
                                          goods=["indigo_plant", "tobacco_storage"]), seat()])
    passes(s, rng, 0)
    library, *rest = s.players[1].hand
    indigo, tobacco, _ = s.players[1].city
    assert library in ask(s, 1)[1]
    sanjuan.apply(s, 1, [library], rng)
    kind, options, lo, hi = ask(s, 1)
    assert (kind, sorted(options), lo, hi) == ("black_market", sorted([indigo, tobacco]), 2, 2)
    rejected(s, rng, 1, [indigo], "wrong_goods")
    sanjuan.apply(s, 1, [tobacco, indigo], rng)
    assert s.players[1].hand == []
    assert s.players[1].goods == {}
    assert len(s.discard) == 5
    passes(s, rng, 2)
    assert s.stage == "role"
    conserved(s)


def test_black_market_minimum_one():
    """Black market: one card short, at least 1 good must go (min 1, max 2)."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(4)],
                                          ["indigo_plant", "tobacco_storage", "black_market"],
                                          goods=["indigo_plant", "tobacco_storage"]), seat()])
    passes(s, rng, 0)
    library, *rest = s.players[1].hand
    sanjuan.apply(s, 1, [library], rng)
    kind, options, lo, hi = ask(s, 1)
    assert (kind, lo, hi) == ("black_market", 1, 2)
    rejected(s, rng, 1, [], "wrong_goods")
    conserved(s)


def test_black_market_does_not_offer_the_good_of_the_building_being_covered():
    """Crane + black market: the good of the covered building is lost, not spent; the other goods
    can still pay."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(2)],
                                          ["indigo_plant", "crane", "black_market", "coffee_roaster", "sugar_mill"],
                                          goods=["coffee_roaster", "sugar_mill"]), seat()])
    passes(s, rng, 0)
    library, *rest = s.players[1].hand
    roaster, mill = s.players[1].city[3:]
    lost, spent = s.players[1].goods[roaster], s.players[1].goods[mill]
    sanjuan.apply(s, 1, [library], rng)
    kind, options, lo, hi = ask(s, 1)
    assert kind == "cover" and roaster in options
    sanjuan.apply(s, 1, [roaster], rng)
    assert ask(s, 1) == ("black_market", [mill], 0, 1)
    sanjuan.apply(s, 1, [mill], rng)
    assert s.players[1].hand == rest
    assert s.players[1].goods == {}
    assert sorted(s.discard) == sorted([lost, spent])
    conserved(s)


# ---------------------------------------------------------------- carpenter and poor house

def test_carpenter_draws_after_a_city_building():
    """Carpenter: after paying for a city building, its owner draws 1 card."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(4)], ["indigo_plant", "carpenter"]), seat()],
                            deck=["hero"])
    passes(s, rng, 0)
    statue, *rest = s.players[1].hand
    hero = s.deck[-1]
    sanjuan.apply(s, 1, [statue], rng)
    ev = sanjuan.apply(s, 1, rest[:3], rng)
    assert s.players[1].hand == [rest[3], hero]
    assert "Bo draws 1 card (carpenter)." in public(ev)
    assert "You draw Hero (carpenter)." in private(ev, 1)
    conserved(s)


def test_carpenter_does_not_draw_after_a_production_building():
    """Carpenter: no card after building a production building."""
    s, rng, _ = build_phase([seat(), seat(["tobacco_storage", *fill(4)], ["indigo_plant", "carpenter"]), seat()],
                            deck=["hero"])
    passes(s, rng, 0)
    tob, *rest = s.players[1].hand
    top = s.deck[-1]
    sanjuan.apply(s, 1, [tob], rng)
    ev = sanjuan.apply(s, 1, rest[:3], rng)
    assert s.players[1].hand == [rest[3]]
    assert s.deck[-1] == top
    assert not any("carpenter" in t for t in public(ev))
    conserved(s)


def test_carpenter_does_not_draw_for_itself():
    """Carpenter: building the carpenter itself draws nothing (it works from the next phase)."""
    s, rng, _ = build_phase([seat(["carpenter", *fill(3)]), seat(), seat()], deck=["hero"])
    carp, *rest = s.players[0].hand
    top = s.deck[-1]
    sanjuan.apply(s, 0, [carp], rng)
    sanjuan.apply(s, 0, rest[:2], rng)
    assert s.players[0].hand == [rest[2]]
    assert s.deck[-1] == top
    conserved(s)


def test_carpenter_first_then_poor_house():
    """Carpenter then poor house: hand 0 after paying -> carpenter draws -> 1 card -> poor house draws."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(3)], ["indigo_plant", "carpenter", "poor_house"]),
                             seat()], deck=["hero", "palace"])
    passes(s, rng, 0)
    statue = s.players[1].hand[0]
    hero, palace = s.deck[-1], s.deck[-2]
    ev = sanjuan.apply(s, 1, [statue], rng)
    assert s.players[1].hand == [hero, palace]
    draws = [t for t in public(ev) if t.startswith("Bo draws")]
    assert draws == ["Bo draws 1 card (carpenter).", "Bo draws 1 card (poor house)."]
    conserved(s)


def test_carpenter_card_can_stop_the_poor_house():
    """Carpenter first: 1 card left + the carpenter's card = 2, so the poor house gives nothing."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(4)], ["indigo_plant", "carpenter", "poor_house"]),
                             seat()], deck=["hero", "palace"])
    passes(s, rng, 0)
    statue, *rest = s.players[1].hand
    hero, palace = s.deck[-1], s.deck[-2]
    sanjuan.apply(s, 1, [statue], rng)
    ev = sanjuan.apply(s, 1, rest[:3], rng)
    assert s.players[1].hand == [rest[3], hero]
    assert s.deck[-1] == palace
    assert not any("poor house" in t for t in public(ev))
    conserved(s)


def test_no_carpenter_or_poor_house_card_without_a_build():
    """Carpenter and poor house only work after a build: passing draws nothing."""
    s, rng, _ = build_phase([seat(["indigo_plant"], ["indigo_plant", "carpenter", "poor_house"]), seat(), seat()])
    hand, deck = s.players[0].hand[:], s.deck[:]
    assert ask(s, 0) == ("build", hand, 0, 1)
    ev = sanjuan.apply(s, 0, [], rng)
    assert "Ana does not build." in public(ev)
    assert s.players[0].hand == hand and s.deck == deck
    assert len(s.players[0].city) == 3
    conserved(s)


@pytest.mark.parametrize("left,draws", [(0, True), (1, True), (2, False)])
def test_poor_house_draws_when_zero_or_one_card_is_left(left, draws):
    """Poor house: after building, its owner draws 1 card if the hand holds 0 or 1 card."""
    s, rng, _ = build_phase([seat(), seat(["statue", *fill(3 + left)], ["indigo_plant", "poor_house"]), seat()],
                            deck=["hero"])
    passes(s, rng, 0)
    statue, *rest = s.players[1].hand
    hero = s.deck[-1]
    sanjuan.apply(s, 1, [statue], rng)
    if left:
        sanjuan.apply(s, 1, rest[:3], rng)
    assert s.players[1].hand == rest[3:] + ([hero] if draws else [])
    assert (s.deck[-1] == hero) is not draws
    conserved(s)


def test_poor_house_does_not_work_in_the_phase_it_is_built():
    """A building works from the phase after the one that built it: a new poor house gives no
    card even though the hand is empty."""
    s, rng, _ = build_phase([seat(["poor_house", "well"]), seat(), seat()], deck=["hero"])
    poor = s.players[0].hand[0]
    top = s.deck[-1]
    sanjuan.apply(s, 0, [poor], rng)
    assert s.players[0].hand == []
    assert s.deck[-1] == top
    conserved(s)


# ---------------------------------------------------------------- when a new building works

def test_library_built_in_builder_phase_doubles_a_later_privilege_the_same_round():
    """A building works from the phase after the builder phase that built it, even in the same
    round: a library built now doubles the prospector's privilege later this round."""
    s, rng, _ = build_phase([seat(), seat(), seat(["library", *fill(5)])], deck=["hero", "palace"])
    passes(s, rng, 0, 1)
    library = s.players[2].hand[0]
    sanjuan.apply(s, 2, [library], rng)          # 5 cards: the whole hand
    assert s.players[2].hand == [] and keys(s, s.players[2].city) == ["indigo_plant", "library"]
    sanjuan.apply(s, 1, ["trader"], rng)         # nobody has goods: over at once
    assert sanjuan.to_act(s) == [2]
    ev = sanjuan.apply(s, 2, ["prospector"], rng)
    assert keys(s, s.players[2].hand) == ["hero", "palace"]
    assert "Cy draws 2 cards (prospector)." in public(ev)
    conserved(s)


def test_smithy_built_as_builder_works_in_the_next_builder_phase():
    """A smithy built in one builder phase reduces production buildings in a later builder phase."""
    s, rng, _ = build_phase([seat(["smithy", "tobacco_storage", *fill(3)]), seat(), seat()],
                            deck=["palace"])
    smithy, tob, *rest = s.players[0].hand
    sanjuan.apply(s, 0, [smithy], rng)               # 1 - 1 = 0: free
    assert s.players[0].hand == [tob, *rest]
    passes(s, rng, 1, 2)
    sanjuan.apply(s, 1, ["trader"], rng)
    sanjuan.apply(s, 2, ["prospector"], rng)         # Cy draws the palace; round 2, Bo governs
    assert s.round == 2 and sanjuan.to_act(s) == [1]
    sanjuan.apply(s, 1, ["builder"], rng)
    passes(s, rng, 1, 2)                             # Bo: no cards; Cy: palace unaffordable
    assert sanjuan.to_act(s) == [0]
    sanjuan.apply(s, 0, [tob], rng)
    assert ask(s, 0) == ("pay", rest, 2, 2)
    conserved(s)


# ---------------------------------------------------------------- turn order

def test_builder_builds_first_then_clockwise_and_unable_players_are_asked_too():
    """The builder builds first, then the others clockwise. A player who cannot afford anything
    is asked all the same, with nothing to pick (rules.build_decision): skipping it would tell
    the others that its hidden hand pays for nothing."""
    s, rng, _ = build_phase([seat(["indigo_plant", "well"]), seat(["indigo_plant", "well"]),
                             seat(["hero"]), seat(["indigo_plant", "well"])], chooser=1)
    order = []
    while s.stage == "build":
        (who,) = sanjuan.to_act(s)
        order.append(who)
        if who == 2:   # a hero (5) from a hand of one card: unaffordable
            passes(s, rng, 2)
            continue
        kind, options, lo, hi = ask(s, who)
        assert kind == "build" and options and (lo, hi) == (0, 1)
        ev = sanjuan.apply(s, who, [], rng)
        assert f"{s.names[who]} does not build." in public(ev)
    assert order == [1, 2, 3, 0]
    assert s.stage == "role" and sanjuan.to_act(s) == [2]
    conserved(s)


# ---------------------------------------------------------------- cathedral (expansion)

def test_cathedral_any_player_may_build_it_once():
    """Cathedral: any player may build it instead of a hand card, with the usual reductions; once
    built it is no longer an option for anyone."""
    s, rng, _ = build_phase([seat(), seat(fill(6), ["indigo_plant", "quarry"]), seat(fill(7))],
                            expansion=True)
    passes(s, rng, 0)
    cathedral = s.cathedral
    hand = s.players[1].hand[:]
    kind, options, lo, hi = ask(s, 1)
    assert options[-1] == cathedral and options[:-1] == hand
    assert sanjuan.prompt(s, 1)["labels"][-1].endswith("cost 7, you pay 6, 0 VP")
    ev = sanjuan.apply(s, 1, [cathedral], rng)       # 7 - 1 (quarry) = 6: the whole hand
    assert "Bo builds a cathedral, paying 6 cards." in public(ev)
    assert s.players[1].city[-1] == cathedral and s.cathedral is None
    assert s.players[1].hand == []
    kind, options, lo, hi = ask(s, 2)
    assert kind == "build" and cathedral not in options and options == s.players[2].hand
    with pytest.raises(IllegalAction):
        sanjuan.apply(s, 2, [cathedral], rng)
    conserved(s)


def test_cathedral_is_offered_to_the_builder_with_the_privilege():
    """Cathedral: the builder privilege reduces it (7 - 1 = 6 from a hand of 6)."""
    s, rng, _ = build_phase([seat(fill(6)), seat(), seat()], expansion=True)
    hand = s.players[0].hand[:]
    assert ask(s, 0)[1] == hand + [143]
    sanjuan.apply(s, 0, [s.cathedral], rng)
    assert s.players[0].hand == [] and sorted(s.discard) == sorted(hand)
    conserved(s)


def test_cathedral_is_a_city_building():
    """Cathedral: a city building: the carpenter draws after it and the city hall counts it."""
    s, rng, _ = build_phase([seat(fill(6) + ["well"], ["indigo_plant", "city_hall", "carpenter"]), seat(), seat()],
                            expansion=True, deck=["hero"])
    hero = s.deck[-1]
    sanjuan.apply(s, 0, [s.cathedral], rng)
    assert ask(s, 0)[0] == "pay" and ask(s, 0)[2:] == (6, 6)
    paid = s.players[0].hand[:6]
    sanjuan.apply(s, 0, paid, rng)
    assert s.players[0].hand[-1] == hero and len(s.players[0].hand) == 2
    score = sanjuan.result(s)["scores"][0]
    assert score["city_hall"] == 3                   # city hall, carpenter, cathedral
    conserved(s)


def test_cathedral_counts_as_the_twelfth_building():
    """Cathedral: it counts toward the 12 buildings that end the game."""
    city = ["indigo_plant", "smithy", "gold_mine", "archive", "well", "market_stand", "trading_post",
            "chapel", "tower", "aqueduct", "prefecture"]
    s, rng, _ = build_phase([seat(["hero"] * 3 + ["statue"] * 3, city), seat(), seat()], expansion=True)
    ev = sanjuan.apply(s, 0, [s.cathedral], rng)             # 7 - 1 = 6: the whole hand
    assert len(s.players[0].city) == 12 and s.players[0].hand == []
    assert not s.over
    ev += passes(s, rng, 1, 2)
    assert "The game ends: a city has 12 buildings." in public(ev)
    assert s.over and s.stage == "over" and sanjuan.to_act(s) == []
    conserved(s)


# ---------------------------------------------------------------- tavern (expansion)

def _tavern(counts, deck=("hero",)):
    """Three players with empty hands and `counts` buildings; Cy owns a tavern (built earlier)."""
    extra = ["smithy", "gold_mine", "archive", "well", "market_stand"]
    players = []
    for who, n in enumerate(counts):
        city = ["indigo_plant"] + (["tavern"] if who == 2 else [])
        city += extra[: n - len(city)]
        players.append(seat([], city))
    s, rng, ev = build_phase(players, expansion=True, deck=list(deck))
    return s, rng, ev + passes(s, rng, 0, 1, 2)


def test_tavern_draws_when_owner_has_fewest_buildings():
    """Tavern: at the end of the builder phase its owner draws 1 if nobody has fewer buildings and
    somebody has more."""
    s, rng, ev = _tavern([3, 3, 2])
    assert keys(s, s.players[2].hand) == ["hero"]
    assert "Cy draws 1 card (tavern)." in public(ev)
    assert s.stage == "role" and sanjuan.to_act(s) == [1]
    conserved(s)


def test_tavern_draws_when_tied_for_fewest_with_another_player():
    """Tavern: a tie for the fewest buildings still draws, as long as somebody has more."""
    s, rng, ev = _tavern([3, 2, 2])
    assert keys(s, s.players[2].hand) == ["hero"]
    conserved(s)


@pytest.mark.parametrize("counts", [[2, 2, 2], [3, 3, 3], [2, 3, 3], [2, 4, 3]])
def test_tavern_does_not_draw_unless_fewest_and_somebody_has_more(counts):
    """Tavern: no card when tied with everyone, or when somebody has fewer buildings."""
    s, rng, ev = _tavern(counts)
    assert s.players[2].hand == []
    assert not any("(tavern)" in t for t in public(ev))
    conserved(s)


def test_tavern_does_not_work_in_the_phase_it_is_built():
    """Tavern: no card at the end of the builder phase in which it was built."""
    s, rng, _ = build_phase([seat([], ["indigo_plant", "smithy", "gold_mine"]),
                             seat([], ["indigo_plant", "archive", "well"]),
                             seat(["tavern", "well", "market_stand"])], expansion=True, deck=["hero"])
    passes(s, rng, 0, 1)
    tavern = s.players[2].hand[0]
    ev = sanjuan.apply(s, 2, [tavern], rng)           # now 2 buildings against 3 and 3
    assert s.players[2].hand == []
    assert not any("(tavern)" in t for t in public(ev))
    assert keys(s, [s.deck[-1]]) == ["hero"]
    conserved(s)


def test_tavern_counts_buildings_at_the_end_of_the_phase():
    """Tavern: the count is taken at the end of the phase, after this phase's builds."""
    s, rng, _ = build_phase([seat([], ["indigo_plant", "smithy", "gold_mine"]),
                             seat([], ["indigo_plant", "archive", "well"]),
                             seat(["sugar_mill", "well", "market_stand"], ["indigo_plant", "tavern"])],
                            expansion=True, deck=["hero"])
    passes(s, rng, 0, 1)
    mill = s.players[2].hand[0]
    ev = sanjuan.apply(s, 2, [mill], rng)             # 2 cards: the whole hand; now 3, 3, 3
    assert len(s.players[2].city) == 3
    assert s.players[2].hand == []
    assert not any("(tavern)" in t for t in public(ev))
    conserved(s)


def test_a_covered_tavern_does_not_draw():
    """Crane: the covered tavern loses its function at once."""
    s, rng, _ = build_phase([seat([], ["indigo_plant", "smithy", "gold_mine", "archive"]),
                             seat([], ["indigo_plant", "well", "market_stand", "trading_post"]),
                             seat(["statue", "hero"], ["indigo_plant", "crane", "tavern"])],
                            expansion=True, deck=["palace"])
    passes(s, rng, 0, 1)
    statue = s.players[2].hand[0]
    tavern = s.players[2].city[2]
    sanjuan.apply(s, 2, [statue], rng)
    kind, options, lo, hi = ask(s, 2)
    assert kind == "cover" and tavern in options and lo == 1
    ev = sanjuan.apply(s, 2, [tavern], rng)           # 3 - 2 = 1: the hero pays
    assert s.players[2].hand == []
    assert not any("tavern)" in t for t in public(ev))
    conserved(s)


# ---------------------------------------------------------------- game end

ELEVEN = ["indigo_plant", "smithy", "gold_mine", "archive", "well", "market_stand", "trading_post",
          "chapel", "tower", "aqueduct", "prefecture"]


def test_game_ends_after_the_builder_phase_in_which_a_city_reaches_twelve():
    """Game end: at the end of the builder phase in which a player builds a 12th building; the
    other players still build in that phase, then the game is over."""
    s, rng, _ = build_phase([seat(["statue", "hero", "hero"], ELEVEN),
                             seat(["indigo_plant", "sugar_mill"]),
                             seat(["indigo_plant", "sugar_mill"])])
    statue = s.players[0].hand[0]
    sanjuan.apply(s, 0, [statue], rng)               # 3 - 1 = 2: both heroes
    assert len(s.players[0].city) == 12
    assert not s.over and ask(s, 1)[0] == "build"
    sanjuan.apply(s, 1, [card(s, 1, "indigo_plant")], rng)
    assert keys(s, s.players[1].city) == ["indigo_plant", "indigo_plant"]
    assert not s.over and ask(s, 2)[0] == "build"
    ev = sanjuan.apply(s, 2, [], rng)
    assert "The game ends: a city has 12 buildings." in public(ev)
    assert s.over and s.stage == "over" and sanjuan.to_act(s) == []
    assert sanjuan.prompt(s, 0) is None
    assert sanjuan.result(s)["over"] is True
    rejected(s, rng, 0, ["producer"], "game_over")
    conserved(s)


def test_game_ends_when_the_last_player_of_the_phase_reaches_twelve():
    """Game end: the 12th building by the last player of the builder phase also ends the game."""
    s, rng, _ = build_phase([seat(), seat(), seat(["statue", "hero", "hero", "hero"], ELEVEN)])
    passes(s, rng, 0, 1)
    sanjuan.apply(s, 2, [s.players[2].hand[0]], rng)
    assert s.over and s.stage == "over" and sanjuan.to_act(s) == []
    conserved(s)


def test_eleven_buildings_do_not_end_the_game():
    """Game end: 11 buildings after the builder phase do not end the game."""
    s, rng, _ = build_phase([seat(["statue", "hero", "hero"], ELEVEN[:10]), seat(), seat()])
    sanjuan.apply(s, 0, [s.players[0].hand[0]], rng)
    assert len(s.players[0].city) == 11
    passes(s, rng, 1, 2)
    assert not s.over and s.stage == "role" and sanjuan.to_act(s) == [1]
    conserved(s)


# ---------------------------------------------------------------- illegal actions

def test_illegal_build_decisions_change_nothing():
    """Illegal build picks raise IllegalAction with a code and leave the state unchanged."""
    s, rng, _ = build_phase([seat(["indigo_plant", "tobacco_storage", "hero", "well"]),
                             seat(["statue", "well"]), seat()])
    indigo, tob, hero, well = s.players[0].hand
    assert indigo == 1                               # so that True == 1 would be an option
    assert ask(s, 0) == ("build", [indigo, tob, well], 0, 1)
    rejected(s, rng, 1, [s.players[1].hand[0]], "not_your_turn")
    rejected(s, rng, 0, [s.players[1].hand[0]], "not_in_hand")
    rejected(s, rng, 0, [hero], "cannot_pay")          # 5 - 1 = 4 > 3
    rejected(s, rng, 0, [indigo, tob], "wrong_count")
    rejected(s, rng, 0, [tob, tob], "duplicate")
    rejected(s, rng, 0, indigo, "bad_action")
    rejected(s, rng, 0, "builder", "bad_action")
    rejected(s, rng, 0, None, "bad_action")
    rejected(s, rng, 0, {"build": indigo}, "bad_action")
    rejected(s, rng, 0, [True], "bad_action")
    rejected(s, rng, 0, ["use"], "not_an_option")
    conserved(s)


def test_illegal_payments_change_nothing():
    """Paying the wrong number of cards, twice the same card, or with the building itself is refused."""
    s, rng, _ = build_phase([seat(["tobacco_storage", "well", "market_stand", "trading_post"]), seat(), seat()])
    tob, well, stand, post = s.players[0].hand
    sanjuan.apply(s, 0, [tob], rng)
    assert ask(s, 0) == ("pay", [well, stand, post], 2, 2)
    rejected(s, rng, 0, [well], "wrong_payment")
    rejected(s, rng, 0, [well, stand, post], "wrong_payment")
    rejected(s, rng, 0, [], "wrong_payment")
    rejected(s, rng, 0, [well, well], "duplicate")
    rejected(s, rng, 0, [tob, well], "not_in_hand")
    rejected(s, rng, 0, [False, True], "bad_action")
    rejected(s, rng, 1, [well, stand], "not_your_turn")
    sanjuan.apply(s, 0, [well, stand], rng)
    assert s.players[0].hand == [post]
    conserved(s)


def test_illegal_cover_and_black_market_picks_change_nothing():
    """Cover: not own building / the crane; black market: a building without a good."""
    s, rng, _ = build_phase([seat(), seat(["library", *fill(3)],
                                          ["indigo_plant", "crane", "chapel", "black_market", "sugar_mill"],
                                          goods=["sugar_mill"]), seat()])
    passes(s, rng, 0)
    library = s.players[1].hand[0]
    indigo, crane, chapel, market, mill = s.players[1].city
    sanjuan.apply(s, 1, [library], rng)
    kind, options, lo, hi = ask(s, 1)
    assert kind == "cover" and crane not in options and chapel in options
    rejected(s, rng, 1, [s.players[0].city[0]], "not_your_building")
    rejected(s, rng, 1, [crane], "cannot_cover_crane")
    sanjuan.apply(s, 1, [chapel], rng)
    assert ask(s, 1) == ("black_market", [mill], 0, 1)
    rejected(s, rng, 1, [indigo], "no_good")
    rejected(s, rng, 1, [mill, mill], "duplicate")
    conserved(s)


# A covered building loses its function at once (docs/rules.md, 'San Juan'), so it does not help pay for
# the building laid over it. The rulebook is silent on this moment; this is our reading.

def test_covered_quarry_does_not_reduce_the_building_over_it():
    """Crane + quarry, not the builder: covering the quarry (4) with a hero (5) costs 1, not 0."""
    s, rng, _ = build_phase([seat(fill(3)), seat(["hero", *fill(3)], city=["indigo_plant", "crane", "quarry"]),
                             seat()])
    sanjuan.apply(s, 0, [], rng)
    sanjuan.apply(s, 1, [card(s, 1, "hero")], rng)
    quarry = card(s, 1, "quarry", "city")
    sanjuan.apply(s, 1, [quarry], rng)
    kind, options, lo, hi = ask(s, 1)
    assert (kind, lo, hi) == ("pay", 1, 1)


def test_covered_smithy_does_not_reduce_the_production_building_over_it():
    """Covering the smithy (1) with a silver smelter (5) leaves 4 to pay, not 3."""
    s, rng, _ = build_phase([seat(fill(3)), seat(["silver_smelter", *fill(5)], city=["indigo_plant", "crane", "smithy"]),
                             seat()])
    sanjuan.apply(s, 0, [], rng)
    sanjuan.apply(s, 1, [card(s, 1, "silver_smelter")], rng)
    sanjuan.apply(s, 1, [card(s, 1, "smithy", "city")], rng)
    assert ask(s, 1)[2:] == (4, 4)


def test_covered_black_market_takes_no_goods_for_the_building_over_it():
    """Covering the black market: no black-market step, the goods stay, the full rest is paid."""
    s, rng, _ = build_phase([seat(fill(3)),
                             seat(["library", *fill(4)], city=["indigo_plant", "sugar_mill", "crane", "black_market"],
                                  goods=["indigo_plant", "sugar_mill"]),
                             seat()])
    sanjuan.apply(s, 0, [], rng)
    sanjuan.apply(s, 1, [card(s, 1, "library")], rng)
    sanjuan.apply(s, 1, [card(s, 1, "black_market", "city")], rng)
    kind, _, lo, hi = ask(s, 1)
    assert (kind, lo, hi) == ("pay", 3, 3)
    assert len(s.players[1].goods) == 2


def test_covered_library_no_longer_doubles_the_builder_privilege():
    """The builder with a library lays the cathedral (7) over the library (5): the privilege is
    back to 1, so 7 - 1 - 5 = 1 card is paid (it would be 0 if the library still doubled)."""
    s, rng, _ = build_phase([seat(["well"], city=["indigo_plant", "crane", "library"]), seat(), seat()],
                            expansion=True)
    sanjuan.apply(s, 0, [s.cathedral], rng)
    kind, options, lo, hi = ask(s, 0)
    # Over the indigo plant: 7 - 2 - 1 = 4 > 1 card in hand, so only the library can be covered.
    assert (kind, options, lo) == ("cover", [card(s, 0, "library", "city")], 1)
    sanjuan.apply(s, 0, options, rng)
    assert s.players[0].hand == [] and keys(s, s.discard) == ["well"]
    assert keys(s, s.players[0].covered) == ["library"]
    conserved(s)
