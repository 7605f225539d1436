"""Puerto Rico's search support: sampled states the seat cannot tell from the real one, and the
generic ISMCTS playing legal, reproducible moves over it."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import bots
from games import puertorico as pr
from games.imagined import ImaginedStreams
from games.puertorico import plantations
from games.puertorico.components import BUILDINGS, BY_KEY, INDIGO, SUGAR, TABLES
from games.puertorico.board import building_price
from games.puertorico.determinize import Determinizer, determinize
from games.puertorico.policy import estimate, rounds_left
from protocol.fairness import local_streams


def positions(players: int, seed: str, level: str = "random"):
    """(state, seat to act, its view) at every decision of a game between bots of `level`."""
    rng = local_streams(seed)
    s = pr.setup([f"P{i}" for i in range(players)], {}, rng)
    movers = [bots.make("puertorico", level, f"{seed}/{i}") for i in range(players)]
    while not s.over:
        seat = pr.to_act(s)[0]
        view = pr.view(s, seat)
        yield s, seat, view
        pr.apply(s, seat, movers[seat].choose(view), rng)


BUILDINGS_OF_GOOD = {b.index: b.good for b in BUILDINGS}


def kinds(tiles) -> Counter:
    return Counter(plantations.kind(t) for t in tiles)


@pytest.mark.parametrize("players,level", [(2, "heuristic"), (3, "random"), (4, "heuristic"), (5, "random")])
def test_a_sampled_state_shows_the_seat_exactly_its_view(players, level):
    """At every decision: the seat's view of the sampled state is its real view; the stack holds
    the true stack's tiles, by kind, and every tile in play is somewhere exactly once."""
    rnd = random.Random(players)
    kinds_seen = set()
    for s, seat, view in positions(players, f"sample/{players}", level):
        d = determinize(json.loads(json.dumps(view)), rnd)
        assert pr.view(d, seat) == view
        assert kinds(d.stack) == kinds(s.stack)
        on_islands = sum(sum(p.tiles[:5]) for p in d.players)
        ids = d.stack + d.row + d.discard
        assert len(set(ids)) == len(ids)
        assert len(ids) + on_islands == len(plantations.in_play(TABLES[players].removed_tiles))
        kinds_seen.add(view["prompt"]["kind"])
    assert {"role", "settle", "build", "place", "load"} <= kinds_seen


def test_seeds_deal_the_stack_in_different_orders_and_states_play_on():
    s, seat, view = next((s, seat, v) for s, seat, v in positions(4, "orders", "heuristic")
                         if s.round == 3 and v["prompt"]["kind"] == "role")
    sampler = Determinizer(view)
    orders = {tuple(sampler.sample(random.Random(k)).stack) for k in range(5)}
    assert len(orders) == 5
    assert sampler.sample(random.Random(1)).stack == sampler.sample(random.Random(1)).stack
    # A sampled state is one the engine accepts: play it to the end.
    rnd = random.Random(2)
    d = sampler.sample(rnd)
    streams = ImaginedStreams(rnd)
    while not d.over:
        actor = pr.to_act(d)[0]
        pr.apply(d, actor, pr.random_action(d, actor, rnd), streams)
    assert pr.result(d)["winners"]


def test_only_the_seat_to_act_can_be_sampled():
    s, seat, view = next(positions(3, "who"))
    with pytest.raises(ValueError, match="spectator"):
        Determinizer(pr.view(s, None))
    with pytest.raises(ValueError, match="seat to act"):
        Determinizer(pr.view(s, (seat + 1) % 3))


def legal_for(prompt: dict, action) -> bool:
    return (type(action) is list and prompt["min"] <= len(action) <= prompt["max"]
            and len(set(action)) == len(action) and all(a in prompt["options"] for a in action))


def test_puerto_rico_offers_the_ismcts_level():
    assert bots.levels("puertorico") == ["random", "heuristic", "ismcts"]
    support = pr.search()
    assert support.tree_kinds <= support.searched


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_ismcts_moves_are_always_legal(players):
    rng = local_streams(f"ismcts/{players}")
    s = pr.setup([f"P{i}" for i in range(players)], {}, rng)
    levels = ["ismcts", *["heuristic"] * (players - 1)]
    movers = [bots.make("puertorico", lv, i, iterations=6) for i, lv in enumerate(levels)]
    searched = 0
    while not s.over:
        seat = pr.to_act(s)[0]
        view = json.loads(json.dumps(pr.view(s, seat)))
        action = movers[seat].choose(view)
        assert legal_for(view["prompt"], action), (view["prompt"], action)
        searched += seat == 0 and movers[0].last_iterations > 0
        movers[0].last_iterations = 0
        pr.apply(s, seat, action, rng)
    assert searched > 10


def test_ismcts_is_deterministic_with_an_iteration_budget():
    picked = []
    for s, seat, view in positions(4, "det", "heuristic"):
        if s.round >= 4 and view["prompt"]["kind"] == "role":
            a, b = (bots.make("puertorico", "ismcts", 3, iterations=120) for _ in range(2))
            picked = [a.choose(view), b.choose(view)]
            assert a.last_iterations == 120
            break
    assert picked and picked[0] == picked[1]


def test_a_playout_stops_at_the_horizon_and_at_the_end():
    support = pr.search()
    s, seat, view = next((s, seat, v) for s, seat, v in positions(3, "horizon", "heuristic")
                         if s.round == 2 and v["prompt"]["kind"] == "role")
    d = Determinizer(view).sample(random.Random(0))
    stop = support.progress(view) + 1     # a horizon of 1: the root's phase only
    streams = ImaginedStreams(random.Random(0))
    steps = 0
    while (step := support.next_decision(d, stop)) is not None:
        actor, decision = step
        assert decision == d.pending[1:]
        support.apply(d, actor, support.policy(d, actor, random.Random(steps)), streams)
        steps += 1
    assert steps and not d.over and support.progress(pr.view(d, None)) == stop + support.extra
    assert len(support.estimates(d)) == 3


def test_the_playouts_model_of_the_heuristic_picks_its_roles_mostly():
    """The playout policy is the search's model of the other players: at most role picks of a
    game between heuristic players it picks the role the heuristic picked (without its noise)."""
    class NoNoise:
        def random(self):
            return 0.0
    same = total = 0
    for s, seat, view in positions(4, "model", "heuristic"):
        if view["prompt"]["kind"] == "role":
            total += 1
            same += pr.search().policy(s, seat, NoNoise()) == bots.make(
                "puertorico", "heuristic", f"model/{seat}").choose(view)
    assert total > 40 and same >= 0.7 * total, (same, total)


def test_the_estimate_sees_a_building_that_will_feed_a_plantation_as_worth_its_price():
    """A production building bought for an idle plantation raises the seat's estimate by more
    than its points less the money it cost, even before a colonist works it: otherwise the search
    would see the builder as money lost. One with no plantation to pair adds no more than that."""
    s = next(s for s, seat, v in positions(4, "estimate", "heuristic") if s.round == 3)
    p = s.players[0]
    p.city = {b: c for b, c in p.city.items() if BUILDINGS_OF_GOOD.get(b) not in (INDIGO, SUGAR)}
    p.tiles[INDIGO], p.worked[INDIGO], p.tiles[SUGAR], p.worked[SUGAR] = 1, 1, 0, 0
    p.doubloons = 5
    rl = rounds_left(s)
    before = estimate(s, 0, rl)
    for key, more in (("small_indigo_plant", True), ("small_sugar_mill", False)):
        b = BY_KEY[key]
        built = pr.copy(s)
        built.players[0].city[b] = 0
        built.players[0].doubloons -= building_price(b, 0, False)
        gain = estimate(built, 0, rl) - before
        assert (gain > BUILDINGS[b].vp) == more, (key, gain)
