"""Computer players: legal moves from views only, determinism, time budgets, strength."""
from __future__ import annotations

import copy
import json
import math
import random
import time

import pytest

import bots
import games
from games import sanjuan
from games.errors import IllegalAction
from protocol.fairness import local_streams


def legal_for(prompt: dict, action) -> bool:
    """The prompt's promise: between min and max distinct values of options."""
    return (type(action) is list and prompt["min"] <= len(action) <= prompt["max"]
            and len(set(action)) == len(action) and all(a in prompt["options"] for a in action))


def play(levels, seed, expansion=False, variant=False, check=None, **budget):
    """A game between bots; every view goes through JSON, so a bot gets plain data only."""
    n = len(levels)
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(n)], {"expansion": expansion, "setup_variant": variant}, rng)
    players = [bots.make("sanjuan", lv, f"{seed}/{i}", **budget) for i, lv in enumerate(levels)]
    while not s.over:
        seat = sanjuan.to_act(s)[0]
        view = json.loads(json.dumps(sanjuan.view(s, seat)))
        action = players[seat].choose(view)
        assert legal_for(view["prompt"], action), (view["prompt"], action)
        if check:
            check(s, seat, view, action)
        sanjuan.apply(s, seat, action, rng)
    return sanjuan.result(s)


def test_registry_and_make():
    assert bots.levels("sanjuan") == ["random", "heuristic", "ismcts"]
    assert bots.default_level("sanjuan") == "heuristic"
    assert bots.make("sanjuan", "ismcts", 1, iterations=5).iterations == 5
    assert bots.make("sanjuan", "heuristic", 1).level == "heuristic"
    # The search explores as its game's support says, unless told otherwise.
    for game in ("sanjuan", "puertorico"):
        assert bots.make(game, "ismcts", 1).c == games.get(game).search.exploration
    assert bots.make("puertorico", "ismcts", 1, exploration=0.9).c == 0.9
    with pytest.raises(IllegalAction, match="No bot level 'grandmaster' for San Juan"):
        bots.make("sanjuan", "grandmaster")
    with pytest.raises(IllegalAction, match="No game called 'chess'"):
        bots.make("chess", "random")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("expansion", [False, True])
def test_heuristic_moves_are_always_legal(players, expansion):
    for g in range(4):
        levels = ["heuristic"] * players if g % 2 else ["heuristic", *["random"] * (players - 1)]
        r = play(levels, f"legal/{players}/{expansion}/{g}", expansion, variant=g == 3)
        assert r["over"]


@pytest.mark.parametrize("players,expansion,variant", [(4, True, False), (3, False, True), (2, True, False)])
def test_ismcts_moves_are_always_legal(players, expansion, variant):
    levels = ["ismcts", *["heuristic"] * (players - 1)]
    assert play(levels, f"ismcts/{players}", expansion, variant, iterations=12)["over"]


def mid_game(seed="mid", players=4, expansion=True, at=120):
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
    movers = [bots.make("sanjuan", "heuristic", i) for i in range(players)]
    while s.decisions < at or sanjuan.prompt(s, sanjuan.to_act(s)[0])["kind"] != "role":
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, movers[seat].choose(sanjuan.view(s, seat)), rng)
    return s


@pytest.mark.parametrize("level", ["random", "heuristic", "ismcts"])
def test_decisions_depend_on_the_view_only(level):
    """Permute every card the seat cannot see: same view, so the same decision; and the bot
    works on a deep copy as well as on the JSON text of the view."""
    rnd = random.Random(5)
    checked = 0
    for at in (40, 90, 140):
        s = mid_game(f"hidden/{at}", at=at)
        seat = sanjuan.to_act(s)[0]
        twin = sanjuan.permute_hidden(s, seat, rnd)
        assert sanjuan.dump(twin) != sanjuan.dump(s)
        view = sanjuan.view(s, seat)
        assert sanjuan.view(twin, seat) == view
        picks = [bots.make("sanjuan", level, 9, iterations=30).choose(v) for v in
                 (view, copy.deepcopy(sanjuan.view(twin, seat)), json.loads(json.dumps(view)))]
        assert picks[0] == picks[1] == picks[2]
        checked += 1
    assert checked == 3


def test_bots_do_not_change_the_view_they_are_given():
    s = mid_game()
    seat = sanjuan.to_act(s)[0]
    view = sanjuan.view(s, seat)
    before = copy.deepcopy(view)
    for level in bots.levels("sanjuan"):
        bots.make("sanjuan", level, 1, iterations=20).choose(view)
    assert view == before


def test_ismcts_is_deterministic_with_an_iteration_budget():
    s = mid_game("det")
    seat = sanjuan.to_act(s)[0]
    view = sanjuan.view(s, seat)
    a, b = bots.make("sanjuan", "ismcts", 3, iterations=150), bots.make("sanjuan", "ismcts", 3, iterations=150)
    assert a.choose(view) == b.choose(view)
    assert a.last_iterations == 150


@pytest.mark.parametrize("seconds", [0.05, 0.3])
def test_ismcts_answers_within_a_seconds_budget(seconds):
    s = mid_game("time")
    seat = sanjuan.to_act(s)[0]
    view = sanjuan.view(s, seat)
    bot = bots.make("sanjuan", "ismcts", 1, seconds=seconds)
    # The processor time it searched, not the time on the clock: other processes (the suite runs
    # in parallel) may hold the processor between its iterations, never make it search longer.
    t = time.process_time()
    action = bot.choose(view)
    searched = time.process_time() - t
    assert legal_for(view["prompt"], action)
    assert searched <= seconds + 0.1, searched
    assert bot.last_iterations > 0
    # Both budgets: whichever runs out first.
    bot = bots.make("sanjuan", "ismcts", 1, seconds=seconds, iterations=3)
    bot.choose(view)
    assert bot.last_iterations == 3


def test_a_decision_with_one_legal_action_is_answered_at_once():
    s = mid_game("one")
    seat = sanjuan.to_act(s)[0]
    view = sanjuan.view(s, seat)
    bot = bots.make("sanjuan", "ismcts", 1, iterations=10**9)
    card = view["you"]["hand"][0][0]
    for options, lo, hi, want in (([card], 1, 1, [card]), ([card], 0, 0, []), (["a", "b"], 2, 2, ["a", "b"])):
        view["prompt"] = {**view["prompt"], "kind": "keep", "options": options, "min": lo, "max": hi}
        t = time.process_time()         # the processor's time: another process may hold it meanwhile
        assert bot.choose(view) == want
        assert time.process_time() - t < 0.05


def wilson_low(wins: float, n: int, z: float = 1.96) -> float:
    p = wins / n
    return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def test_the_heuristic_beats_random_players_clearly():
    """60 seat-rotated four-player games against three random players: the chance level is 25%."""
    wins = 0.0
    for g in range(60):
        levels = ["random"] * 4
        me = g % 4
        levels[me] = "heuristic"
        r = play(levels, f"strength/{g // 4}")
        wins += (me in r["winners"]) / len(r["winners"])
    assert wilson_low(wins, 60) > 0.6, wins


def test_a_bot_can_be_sent_to_a_worker_process():
    """The server runs searches in a process pool: a bot pickles, and the copy decides alike."""
    import pickle
    s = mid_game("pickle")
    seat = sanjuan.to_act(s)[0]
    view = sanjuan.view(s, seat)
    bot = bots.make("sanjuan", "ismcts", 4, iterations=40)
    twin = pickle.loads(pickle.dumps(bot))
    assert twin.choose(view) == bot.choose(view)


@pytest.mark.parametrize("players", [2, 4])
def test_the_playouts_read_the_other_seats_as_the_heuristic_does(players):
    """policy.seat_facts sums up each other seat in its own loop over the city (a playout's role
    pick is hot); it must give what heuristic.other_seat gives for the same buildings."""
    from games.sanjuan.cards import PRODUCTION
    from games.sanjuan.heuristic import other_seat
    from games.sanjuan.policy import seat_facts

    engine = games.get("sanjuan")
    rng = local_streams("other-seats")
    s = engine.setup([f"P{i}" for i in range(players)], engine.INFO.check_options({"expansion": True}), rng)
    rnd = random.Random(1)
    compared = 0
    while engine.to_act(s):
        for seat in range(players):
            k = seat_facts(s, seat)
            kinds = s.kinds
            expected = []
            for q in s.players:
                if q is s.players[seat]:
                    continue
                goods = [kinds[b] for b in q.goods]
                empty = [kinds[b] for b in q.city if PRODUCTION[kinds[b]] and b not in q.goods]
                expected.append(other_seat(len(q.hand), goods, empty, k.price, k.good))
            assert k.others == expected
            compared += any(dearest or best for _, dearest, best in expected)
        engine.random_move(s, engine.to_act(s)[0], rnd, rng)
    assert compared > 20     # the seats had goods and empty buildings to compare, not only zeros


def test_a_playout_role_pick_values_the_offered_roles_as_the_whole_picture_does():
    """policy.seat_facts fills only what the offered roles' values read: for every set of roles
    offered in a whole random game, those values are the ones the whole picture gives."""
    from games.sanjuan.heuristic import WEIGHTS
    from games.sanjuan.policy import seat_facts

    engine = games.get("sanjuan")
    rng = local_streams("offered-roles")
    s = engine.setup([f"P{i}" for i in range(4)], engine.INFO.check_options({"expansion": True}), rng)
    rnd = random.Random(2)
    compared = set()
    while engine.to_act(s):
        seat = engine.to_act(s)[0]
        kind, options, _, _ = s.pending[seat]
        if kind == "role":
            assert (seat_facts(s, seat, options).role_values(WEIGHTS, options)
                    == seat_facts(s, seat).role_values(WEIGHTS, options))
            compared.add(tuple(sorted(options)))
        engine.random_move(s, seat, rnd, rng)
    assert len(compared) > 5     # many different offers, the builder, producer and trader alone and together
