"""The bot workers are shared fairly between the clients that created tables (server/deciders.py):
one client with many tables of thinking bots cannot make another table's bot wait for its queue."""
import asyncio
import gc
import os
import threading

import pytest

from server import deciders as deciders_module
from server import heap
from server.deciders import WORKER_NICENESS, Deciders

from .rawclient import Raw, SeatPlayer, until


class Gate:
    """A stand-in for a bot's thinking: each decision waits until the test lets it finish, and the
    order decisions start in is recorded."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.release: dict[str, threading.Event] = {}
        self.lock = threading.Lock()

    def decide(self, level, seed, view, seconds=None):
        with self.lock:
            self.started.append(seed)
            event = self.release.setdefault(seed, threading.Event())
        assert event.wait(10), f"decision {seed} was never let go"
        return [seed]

    def let_go(self, seed: str) -> None:
        with self.lock:
            self.release.setdefault(seed, threading.Event()).set()


async def started(gate: Gate, n: int) -> list[str]:
    for _ in range(500):
        if len(gate.started) >= n:
            return list(gate.started)
        await asyncio.sleep(0.01)
    raise AssertionError(f"only {gate.started} started, expected {n}")


@pytest.fixture
def gate(monkeypatch):
    g = Gate()
    monkeypatch.setattr(deciders_module, "decide", g.decide)
    yield g
    for seed in list(g.release) + [f"a{i}" for i in range(10)] + ["b0", "b1", "c0"]:
        g.let_go(seed)


async def test_a_flood_of_one_owner_does_not_queue_another_owner_behind_it(gate):
    pool = Deciders(workers=2, processes=False)
    try:
        flood = [pool.submit("ismcts", f"a{i}", {}, owner="10.0.0.1") for i in range(6)]
        assert await started(gate, 2) == ["a0", "a1"]       # alone, the flood may use every worker
        victim = pool.submit("ismcts", "b0", {}, owner="10.0.0.2")
        gate.let_go("a0")
        assert (await started(gate, 3))[2] == "b0"           # next free worker: the other owner, not a2
        gate.let_go("b0")
        assert await asyncio.wait_for(victim, 5) == ["b0"]
        for i in range(1, 6):
            gate.let_go(f"a{i}")
        assert [await asyncio.wait_for(f, 5) for f in flood] == [[f"a{i}"] for i in range(6)]
    finally:
        pool.shutdown()


async def test_owners_take_turns_and_none_holds_every_worker_while_another_waits(gate):
    pool = Deciders(workers=2, processes=False)
    try:
        a = [pool.submit("ismcts", f"a{i}", {}, owner="A") for i in range(4)]
        b = [pool.submit("ismcts", f"b{i}", {}, owner="B") for i in range(2)]
        c = [pool.submit("ismcts", "c0", {}, owner="C")]
        assert await started(gate, 2) == ["a0", "a1"]       # A was alone when it asked
        for seed, expect in [("a0", "b0"), ("a1", "c0"), ("b0", "a2"), ("c0", "b1"), ("a2", "a3")]:
            gate.let_go(seed)
            assert (await started(gate, len(gate.started) + 1))[-1] == expect
        for seed in ("b1", "a3"):
            gate.let_go(seed)
        await asyncio.wait_for(asyncio.gather(*a, *b, *c), 5)
    finally:
        pool.shutdown()


async def test_a_failed_decision_fails_alone_and_frees_its_worker(gate, monkeypatch):
    def broken(level, seed, view, seconds=None):
        if seed == "bad":
            raise ValueError("the bot raised")
        return gate.decide(level, seed, view, seconds)
    monkeypatch.setattr(deciders_module, "decide", broken)
    pool = Deciders(workers=1, processes=False)
    try:
        bad = pool.submit("ismcts", "bad", {}, owner="A")
        good = pool.submit("ismcts", "a0", {}, owner="A")
        with pytest.raises(deciders_module.BotFailed, match="it raised ValueError"):
            await asyncio.wait_for(bad, 5)
        gate.let_go("a0")
        assert await asyncio.wait_for(good, 5) == ["a0"]
    finally:
        pool.shutdown()


def test_bot_workers_think_at_a_lower_priority_than_the_server_with_their_start_up_heap_frozen():
    pool = Deciders(workers=1, processes=True)
    try:
        worker = pool._executor()
        worker_niceness = worker.submit(os.nice, 0).result(timeout=60)
        assert worker_niceness == min(19, os.nice(0) + WORKER_NICENESS)
        # The games and bots were loaded and frozen before any decision: a full collection in a
        # timed search walks none of them (server/heap.py).
        assert worker.submit(gc.get_freeze_count).result(timeout=60) > 10_000
        assert worker.submit(gc.get_threshold).result(timeout=60)[0] == heap.WORKER_YOUNG
    finally:
        pool.shutdown()


# ---------------------------------------------------------------------- end to end, on a real server

class Held:
    """Stands in for the long search of the attacker's `ismcts` bots: each such decision holds
    its worker until the test lets one go, then plays a random move (what it would have chosen
    does not matter here). Every other level decides for real at once. Records, in the order
    their decisions reached a worker, the level and the person at the bot's table."""

    def __init__(self, decide) -> None:
        self.real = decide
        self.started: list[str] = []
        self.go = threading.Semaphore(0)
        self.lock = threading.Lock()

    def decide(self, level, seed, view, seconds=None):
        person = next(p["name"] for p in view["players"] if not p["name"].startswith("Bot"))
        with self.lock:
            self.started.append(f"{level} {person.rstrip('0123456789')}")
        if level == "ismcts":
            assert self.go.acquire(timeout=30), "a held decision was never let go"
            level = "random"
        return self.real(level, seed, view, seconds)


def bot_to_act(player) -> bool:
    """The player's view says it is the other seat's (the bot's) turn alone."""
    v = player.view
    return bool(v and v["to_act"] and player.seat not in v["to_act"] and not v["over"])


async def test_another_owners_bot_heavy_tables_do_not_starve_a_tables_bot(make_server, monkeypatch):
    """One address's tables of searching bots hold both workers and queue a third decision; a
    table created from another address, with a searching bot too, gets the next free worker for
    its bot, ahead of that queue: its bot thinks once one of the attacker's decisions ends, never
    after the attacker's whole queue (with a first-come queue it would wait for the held third)."""
    held = Held(deciders_module.decide)
    monkeypatch.setattr(deciders_module, "decide", held.decide)
    server = await make_server(bot_workers=2)
    tasks = []
    try:
        attacker = await Raw.connect(server.url, source="127.0.0.1")
        flood = [SeatPlayer(server.url, await attacker.create(2, bots=1, bot="ismcts"), f"Eve{i}", seed=i)
                 for i in range(3)]
        for p in flood:
            await p.sit()
            tasks.append(asyncio.ensure_future(p.play(timeout=60)))
        await until(lambda: all(bot_to_act(p) for p in flood))     # three decisions asked for ...
        await until(lambda: len(held.started) == 2)                # ... two of them thinking
        await asyncio.sleep(0.2)
        assert held.started == ["ismcts Eve", "ismcts Eve"]             # the third is queued

        victim_table = await (await Raw.connect(server.url, source="127.0.0.2")).create(2, bots=1, bot="ismcts")
        ana = SeatPlayer(server.url, victim_table, "Ana", seed=7)
        await ana.sit()
        await ana.play(until=bot_to_act)             # Ana moves until it is her bot's turn alone
        seq = ana.seq
        await asyncio.sleep(0.2)
        assert ana.seq == seq and len(held.started) == 2    # both workers held: her bot waits

        held.go.release()                            # one of the attacker's decisions ends
        await until(lambda: len(held.started) == 3)
        assert held.started == ["ismcts Eve", "ismcts Eve", "ismcts Ana"]   # ahead of the queued third
        for _ in range(3):
            held.go.release()
        await ana.play(until=lambda p: p.seq > seq, timeout=10)   # her bot's move is broadcast
    finally:
        for _ in range(100):
            held.go.release()
        for t in tasks:
            t.cancel()


async def test_a_quick_bot_never_waits_behind_a_search(gate):
    """Every worker thinks for another owner's searching bots: a heuristic bot's decision is made
    at once all the same, beside them, in a thread of the server."""
    pool = Deciders(workers=1, processes=False)
    searching = [pool.submit("ismcts", f"a{i}", {}, owner="A") for i in range(3)]
    try:
        assert await started(gate, 1) == ["a0"]        # the one worker thinks for A
        quick = pool.submit("heuristic", "b0", {}, owner="B")
        gate.let_go("b0")
        assert await asyncio.wait_for(quick, 5) == ["b0"]
        assert not any(f.done() for f in searching) and pool.thread_decisions == 0
    finally:
        for i in range(3):
            gate.let_go(f"a{i}")
        pool.shutdown()
