"""Back in the builder phase: from every step after the building (crane, black market, payment)
the builder may go back to choosing the building, and nothing else changes; before the first step
and once the last is sent there is nothing to go back to.

Seats are Ana (0), Bo (1), Cy (2); Ana is governor and takes the builder."""
from __future__ import annotations

import pytest

from games import sanjuan
from games.choice import BACK
from tests.games.sanjuan.test_builder import build_phase, conserved, fill, passes, public, rejected, seat


def bo_builds():
    """Bo owns a crane and a black market with two goods, and holds a palace and six cheap
    cards: a palace is asked in all four steps."""
    s, rng, _ = build_phase([seat(), seat(["palace", *fill(6)],
                                          ["indigo_plant", "tobacco_storage", "crane", "black_market", "chapel"],
                                          goods=["indigo_plant", "tobacco_storage"]), seat()])
    passes(s, rng, 0)
    return s, rng


def seen(s) -> tuple[dict, list]:
    """The whole state but the count of moves, and what every seat and a spectator see."""
    data = sanjuan.dump(s)
    del data["decisions"]
    return data, [sanjuan.view(s, r) for r in (None, 0, 1, 2)]


def test_back_is_not_offered_before_the_building_is_chosen():
    s, rng = bo_builds()
    assert sanjuan.prompt(s, 1)["back"] == ""
    err = rejected(s, rng, 1, [BACK], "no_back")
    assert "nothing to go back to in this build decision" in err.message


@pytest.mark.parametrize("steps", [1, 2, 3], ids=["from-cover", "from-black-market", "from-pay"])
def test_back_from_every_later_step_returns_to_choosing_the_building(steps):
    s, rng = bo_builds()
    before = seen(s)
    palace = s.players[1].hand[0]
    indigo, tobacco, _, _, chapel = s.players[1].city
    answers = [[palace], [chapel], [indigo]]
    kinds = []
    for answer in answers[:steps]:
        assert sanjuan.apply(s, 1, answer, rng) == [], "no step before the last tells anything"
        kinds.append(sanjuan.prompt(s, 1)["kind"])
    assert kinds[-1] == ["cover", "black_market", "pay"][steps - 1]
    assert sanjuan.prompt(s, 1)["back"] == "choose the building again"
    moves = s.decisions
    assert sanjuan.apply(s, 1, [BACK], rng) == []
    assert seen(s) == before
    assert s.decisions == moves + 1, "the move back is counted like any other"
    assert sanjuan.prompt(s, 1)["kind"] == "build" and sanjuan.prompt(s, 1)["back"] == ""


def test_after_going_back_another_building_is_built_and_paid():
    s, rng = bo_builds()
    palace, well, *_ = s.players[1].hand
    indigo, tobacco, _, _, chapel = s.players[1].city
    sanjuan.apply(s, 1, [palace], rng)
    sanjuan.apply(s, 1, [], rng)                  # no cover
    sanjuan.apply(s, 1, [indigo, tobacco], rng)   # both goods
    sanjuan.apply(s, 1, [BACK], rng)
    sanjuan.apply(s, 1, [well], rng)              # a well instead (cost 2)
    assert sanjuan.prompt(s, 1)["kind"] == "cover"
    sanjuan.apply(s, 1, [], rng)
    sanjuan.apply(s, 1, [], rng)                  # no goods at the black market this time
    payable = [c for c in sanjuan.prompt(s, 1)["options"] if c != palace]
    ev = sanjuan.apply(s, 1, payable[:2], rng)
    assert "Bo builds a well, paying 2 cards." in public(ev)
    assert palace in s.players[1].hand and len(s.players[1].goods) == 2
    conserved(s)


def test_no_back_once_the_last_step_is_sent():
    s, rng = bo_builds()
    palace = s.players[1].hand[0]
    indigo, tobacco, _, _, chapel = s.players[1].city
    for answer in ([palace], [chapel], [indigo, tobacco]):
        sanjuan.apply(s, 1, answer, rng)
    sanjuan.apply(s, 1, sanjuan.prompt(s, 1)["options"][:1], rng)   # the last step: the payment
    assert sanjuan.to_act(s) == [2]
    rejected(s, rng, 1, [BACK], "not_your_turn")
