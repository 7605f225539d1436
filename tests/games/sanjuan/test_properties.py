"""Properties over many seeded random games, 2-4 players, with and without the expansion."""
from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from games import sanjuan
from games.sanjuan.cards import COST, KINDS, MANIFEST, PRODUCTION, VP
from games.sanjuan.rules import hand_limit
from protocol.fairness import local_streams
from tests.games.sanjuan.scenario import all_places

CONFIGS = [(n, exp) for n in (2, 3, 4) for exp in (False, True)]
GAMES_PER_CONFIG = 12
MAX_DECISIONS = 5000


def play(seed, players, expansion, *, reverse=False, check=None):
    """A random game. Each seat draws its moves from its own generator, so the order in which
    simultaneous answers are given cannot change what anyone picks."""
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
    movers = [random.Random(f"{seed}/{i}") for i in range(players)]
    log = []
    while not s.over:
        assert s.decisions < MAX_DECISIONS, "the game did not end"
        seats = sanjuan.to_act(s)
        assert seats == sorted(seats), "to_act is in seat order"
        seat = seats[-1] if reverse else seats[0]
        log.extend(sanjuan.apply(s, seat, sanjuan.random_action(s, seat, movers[seat]), rng))
        if check:
            check(s)
    return s, log


def expected_cards(s) -> list[int]:
    n = len(MANIFEST[s.expansion])
    return list(range(n + (1 if s.expansion else 0)))


@pytest.mark.parametrize("players,expansion", CONFIGS)
def test_every_card_in_exactly_one_place_and_limits_hold(players, expansion):
    def check(s):
        assert sorted(all_places(s)) == expected
        # Hand limits hold once the round start is over (role selection has just begun).
        if s.stage == "role" and not s.taken:
            for p in s.players:
                assert len(p.hand) <= hand_limit(s, p)
        for p in s.players:
            city_kinds = [s.kinds[b] for b in p.city if not PRODUCTION[s.kinds[b]]]
            assert len(city_kinds) == len(set(city_kinds)), "a city building twice"
            assert set(p.goods) <= set(p.city)

    for g in range(GAMES_PER_CONFIG):
        expected = expected_cards(sanjuan.setup(["a", "b"], {"expansion": expansion}, local_streams(0)))
        s, _ = play(f"cards/{g}", players, expansion, check=check)
        assert s.over and sanjuan.to_act(s) == []


def _independent_score(dumped: dict, seat: int) -> int:
    """A recount from the dumped plain data, written apart from games/sanjuan/scoring.py."""
    kinds = MANIFEST[dumped["expansion"]] + ((len(KINDS) - 1,) if dumped["expansion"] else ())
    me = dumped["players"][seat]
    city = [KINDS[kinds[b]] for b in me["city"]]
    names = {k.key for k in city}
    total = sum(k.vp for k in city) + len(me["chapel"]) + len(me["bank"]) + len(me["harbor"])
    prod = [k for k in city if k.production]
    if "guild_hall" in names:
        total += len(prod) + len({k.key for k in prod})
    if "city_hall" in names:
        total += len(city) - len(prod)
    if "triumphal_arch" in names:
        total += {0: 0, 1: 4, 2: 6, 3: 8}[len(names & {"statue", "victory_column", "hero"})]
    if "residence" in names:
        # Brute force: the most disjoint triples of distinct kinds of one cost.
        sets = 0
        for cost in {k.cost for k in city}:
            pool = [k.key for k in city if k.cost == cost]

            def best(pool):
                top = 0
                for trio in combinations(range(len(pool)), 3):
                    if len({pool[i] for i in trio}) == 3:
                        rest = [x for i, x in enumerate(pool) if i not in trio]
                        top = max(top, 1 + best(rest))
                return top
            sets += best(pool)
        total += sum([4, 3, 2, 1][:sets])
    if "cathedral" in names:
        others = sum(1 for i, q in enumerate(dumped["players"]) if i != seat
                     for b in q["city"] if KINDS[kinds[b]].cost == 6)
        total += [0, 4, 7, 9, 10][min(others, 4)]
    if "palace" in names:
        total += total // 4
    return total


@pytest.mark.parametrize("players,expansion", CONFIGS)
def test_result_equals_an_independent_recount(players, expansion):
    for g in range(GAMES_PER_CONFIG):
        s, _ = play(f"score/{g}", players, expansion)
        res = sanjuan.result(s)
        dumped = sanjuan.dump(s)
        totals = [_independent_score(dumped, i) for i in range(players)]
        assert [sc["total"] for sc in res["scores"]] == totals
        key = [(totals[i], len(s.players[i].hand) + len(s.players[i].goods)) for i in range(players)]
        assert res["winners"] == [i for i in range(players) if key[i] == max(key)]


@pytest.mark.parametrize("players,expansion", CONFIGS)
def test_dump_load_round_trips_and_play_continues_identically(players, expansion):
    seed = f"dump/{players}/{expansion}"
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
    movers = [random.Random(f"{seed}/{i}") for i in range(players)]
    twin = None
    while not s.over:
        data = sanjuan.dump(s)
        assert sanjuan.dump(sanjuan.load(data)) == data
        if s.decisions == 60:
            twin = sanjuan.load(data)
            twin_movers = [random.Random() for _ in movers]
            for m, t in zip(movers, twin_movers):
                t.setstate(m.getstate())
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, movers[seat]), rng)
    while not twin.over:
        seat = sanjuan.to_act(twin)[0]
        sanjuan.apply(twin, seat, sanjuan.random_action(twin, seat, twin_movers[seat]), rng)
    assert sanjuan.dump(twin) == sanjuan.dump(s)


def test_load_keeps_the_pending_seats_in_seat_order_whatever_order_the_data_lists_them_in():
    # A simultaneous stage: several seats owe a decision at once.
    rng = local_streams("load/order")
    s = sanjuan.setup([f"P{i}" for i in range(4)], {"expansion": True}, rng)
    movers = random.Random("load/order")
    while len(sanjuan.to_act(s)) < 3:
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, movers), rng)
    data = sanjuan.dump(s)
    data["pending"] = data["pending"][::-1]
    loaded = sanjuan.load(data)
    assert sanjuan.to_act(loaded) == sanjuan.to_act(s) == sorted(sanjuan.to_act(s))
    assert sanjuan.dump(loaded) == sanjuan.dump(s)


@pytest.mark.parametrize("players,expansion", CONFIGS)
def test_same_seed_and_moves_same_game_whatever_the_answer_order(players, expansion):
    for g in range(4):
        a, log_a = play(f"det/{g}", players, expansion)
        b, log_b = play(f"det/{g}", players, expansion)
        c, _ = play(f"det/{g}", players, expansion, reverse=True)
        assert sanjuan.dump(a) == sanjuan.dump(b) and log_a == log_b
        assert sanjuan.dump(c) == sanjuan.dump(a)


def test_permuting_hidden_cards_is_a_strong_check():
    """The conformance suite's leak test (every view unchanged when what it may not see is dealt
    anew by permute_hidden) has power: the re-deal for one seat changes what another sees."""
    rng = local_streams(3)
    s = sanjuan.setup(["a", "b", "c"], {}, rng)
    t = sanjuan.permute_hidden(s, 1, random.Random(0))
    assert sanjuan.view(t, 1) == sanjuan.view(s, 1)
    assert sanjuan.view(t, 0) != sanjuan.view(s, 0)


@pytest.mark.parametrize("players,expansion", [(4, True), (2, False)])
def test_private_events_reach_only_their_seat(players, expansion):
    _, log = play("events", players, expansion)
    assert all(e["to"] is None or 0 <= e["to"] < players for e in log)
    kinds = Counter(e["type"] for e in log if e["to"] is not None)
    assert kinds["draw"] > 0 and kinds["council"] > 0
    for seat in range(players):
        mine = sanjuan.visible_events(log, seat)
        assert all(e["to"] in (None, seat) for e in mine)
    assert all(e["to"] is None for e in sanjuan.visible_events(log, None))


def test_card_tables_match_the_rules_page():
    base = Counter(MANIFEST[False])
    assert len(MANIFEST[False]) == 110 and len(MANIFEST[True]) == 143
    by_key = {k.key: k for k in KINDS}
    assert base[by_key["indigo_plant"].index] == 10
    assert sum(1 for k in base if PRODUCTION[k]) == 5
    assert sum(c for k, c in base.items() if PRODUCTION[k]) == 42
    assert (COST[by_key["palace"].index], VP[by_key["hero"].index]) == (6, 5)


# Public texts that show cards by rule (docs/rules.md, 'San Juan': gold mine and goldsmith cards are
# everyone's); every other public text must name no card that could be somewhere else.
TURNED_UP = ("gold_mine", "goldsmith")


@pytest.mark.parametrize("players,expansion", [(2, False), (3, True), (4, True)])
def test_the_public_log_names_no_hidden_card(players, expansion):
    """Each move again in a world where everything the mover may not see (other hands, the
    supply, the discard pile, goods, harbors) is dealt anew: wherever the public view comes out
    the same, so does every public text but the turned-up cards' (and those are as many, of the
    same kinds of event)."""
    rnd = random.Random("public-log")
    compared = 0
    for g in range(3):
        seed = f"public-log/{players}/{g}"
        rng = local_streams(seed)
        s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
        movers = [random.Random(f"{seed}/{i}") for i in range(players)]
        while sanjuan.to_act(s):
            seat = sanjuan.to_act(s)[0]
            action = sanjuan.random_action(s, seat, movers[seat])
            twin = sanjuan.permute_hidden(s, seat, rnd)
            shown = [sanjuan.visible_events(sanjuan.apply(t, seat, action, rng), None) for t in (twin, s)]
            if sanjuan.view(twin, None) != sanjuan.view(s, None):
                continue
            compared += 1
            assert [e["type"] for e in shown[0]] == [e["type"] for e in shown[1]]
            assert [e for e in shown[0] if e["type"] not in TURNED_UP] == \
                   [e for e in shown[1] if e["type"] not in TURNED_UP]
    assert compared > 500
