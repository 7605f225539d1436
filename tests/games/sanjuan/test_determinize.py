"""determinize(view, rnd): a full state the seat cannot tell from the real one."""
from __future__ import annotations

import random
import sys

import pytest

from games import sanjuan
from games.imagined import ImaginedStreams
from protocol.fairness import local_streams
from tests.games.sanjuan.scenario import all_places

CONFIGS = [(n, exp, variant) for n in (2, 3, 4) for exp in (False, True) for variant in (False, True)]


def random_answer(s, seat):
    return sanjuan.random_action(s, seat, random.Random(f"{s.decisions}/{seat}"))


def positions(seed, players, expansion, variant, every=3):
    """States along a random game, every few decisions."""
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion, "setup_variant": variant}, rng)
    moves = random.Random(seed)
    while not s.over:
        if s.decisions % every == 0:
            yield s
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, moves), rng)


def play_on(s, moves: int, rnd) -> None:
    """A few random moves with the engine; the determinized state must be one the rules accept."""
    streams = ImaginedStreams(rnd)
    for _ in range(moves):
        if s.over:
            return
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, rnd), streams)


@pytest.mark.parametrize("players,expansion,variant", CONFIGS)
def test_the_determinizer_never_drifts_from_the_rules(players, expansion, variant):
    """At every decision of a random game, for every seat: the determinized state shows that seat
    exactly its view (same prompt, same public information), holds every card once, and plays on
    under the rules without an error."""
    rnd = random.Random(f"det/{players}/{expansion}/{variant}")
    for s in positions(f"det/{players}/{expansion}/{variant}", players, expansion, variant, every=1):
        cards = sorted(all_places(s))
        for seat in range(players):
            v = sanjuan.view(s, seat)
            d = sanjuan.determinize(v, rnd, answered=random_answer)
            assert sorted(all_places(d)) == cards
            assert sanjuan.view(d, seat) == v
            play_on(d, 6, rnd)
            assert sorted(all_places(d)) == cards


def test_the_drift_test_meets_every_stage():
    """The random games above reach every stage in which somebody owes a decision."""
    stages = {"deal", "role", "library", "office", "chapel", "bank", "limit", "build", "cover",
              "black_market", "pay", "produce", "sell", "council"}
    seen = {s.stage for cfg in CONFIGS for s in positions("det/{}/{}/{}".format(*cfg), *cfg, every=1)}
    assert seen == stages


@pytest.mark.parametrize("players,expansion", [(4, True), (3, False), (2, True)])
def test_answers_already_given_count_as_not_given_by_default(players, expansion):
    rnd = random.Random(1)
    seen_reopened = False
    for s in positions(f"open/{players}", players, expansion, False, every=1):
        for seat in sanjuan.to_act(s):
            v = sanjuan.view(s, seat)
            d = sanjuan.determinize(v, rnd)
            dv = sanjuan.view(d, seat)
            assert set(v["to_act"]) <= set(dv["to_act"])
            assert {**dv, "to_act": v["to_act"]} == v
            assert not d.answers   # nothing hidden is assumed
            seen_reopened |= dv["to_act"] != v["to_act"]
    assert seen_reopened


def test_samples_differ_in_the_hidden_cards_only():
    s = next(p for p in positions("vary", 4, True, False, every=1) if p.decisions >= 120)
    seat = sanjuan.to_act(s)[0]
    v = sanjuan.view(s, seat)
    det = sanjuan.Determinizer(v)
    a, b = det.sample(random.Random(1)), det.sample(random.Random(2))
    assert a.players[seat].hand == b.players[seat].hand == s.players[seat].hand
    assert [p.city for p in a.players] == [p.city for p in s.players]
    assert a.deck != b.deck
    other = (seat + 1) % 4
    assert len(a.players[other].hand) == len(s.players[other].hand)
    # Same generator state, same sample: a search can be replayed.
    assert sanjuan.dump(det.sample(random.Random(3))) == sanjuan.dump(det.sample(random.Random(3)))


@pytest.mark.parametrize("players,expansion", [(4, True), (2, False)])
def test_sampled_states_play_on_to_the_end(players, expansion):
    rnd = random.Random(2)
    streams = local_streams("playout")
    for s in positions(f"play/{players}", players, expansion, False, every=25):
        seat = sanjuan.to_act(s)[0]
        d = sanjuan.determinize(sanjuan.view(s, seat), rnd)
        cards = sorted(all_places(d))
        while not d.over:
            actor = sanjuan.to_act(d)[0]
            sanjuan.apply(d, actor, sanjuan.random_action(d, actor, rnd), streams)
        assert sorted(all_places(d)) == cards


def test_a_spectator_view_cannot_be_determinized():
    s = sanjuan.setup(["a", "b"], {}, local_streams(0))
    with pytest.raises(ValueError):
        sanjuan.determinize(sanjuan.view(s, None), random.Random(0))


def test_exported_from_the_engine():
    assert sanjuan.determinize is sys.modules["games.sanjuan.determinize"].determinize
