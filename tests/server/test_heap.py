"""The collector of a server process (server/heap.py) walks nothing while tables play, so nothing
the server does may leave cyclic garbage: not connections that close, however they close, nor
tables that finish and leave memory. Counted in objects, on a real server in a process of its own
with its collector settled as `governor serve` settles it."""
from __future__ import annotations

import asyncio
import gc
import multiprocessing
import socket
import sys
from pathlib import Path

from server import heap

from .rawclient import Raw, SeatPlayer, play_all

# the soak's server, which the spawned process imports by name: bench/ last on the path, so that
# its scripts never stand in for the project's packages
sys.path.append(str(Path(__file__).resolve().parents[2] / "bench"))
import soak  # noqa: E402
from players import received  # noqa: E402

# a server as bench/soak.py runs it, where finished tables leave memory at once, a seat cut short
# has its bot soon, and a silent socket is cut soon
SERVER = dict(finished_cache=0, hello_timeout=0.3, bot_processes=False)


async def _match(url: str, seed: int, cut_short: bool) -> None:
    """A 2-player match to its end, watched; with `cut_short`, one player's connection is cut
    mid-match (no closing handshake) and comes back with its seat token."""
    owner = await Raw.connect(url)
    table = await owner.create(2)
    await owner.close()
    players = [SeatPlayer(url, table, f"P{i}", seed=10 * seed + i) for i in range(2)]
    for p in players:
        await p.sit()
    watcher = await Raw.connect(url)
    await watcher.send({"type": "watch", "table": table})
    if cut_short:
        other = asyncio.ensure_future(players[1].play())
        await players[0].play(until=lambda p: p.acks >= 2)
        players[0].raw.ws.transport.abort()
        await players[0].resume()
        await asyncio.gather(players[0].play(), other)
    else:
        await play_all(players)
    for c in [watcher] + [p.raw for p in players]:
        await c.close()


async def _a_round(url: str, port: int, seed: int) -> None:
    """Connections closed in every way, and matches played to their end."""
    for _ in range(30):
        c = await Raw.connect(url)
        await c.send({"type": "list"})
        await c.expect("tables")
        await c.close()
    for _ in range(30):
        c = await Raw.connect(url)
        c.ws.transport.abort()
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    await asyncio.gather(*(_match(url, seed + i, cut_short=i == 0) for i in range(2)))
    for s in silent:
        s.close()


async def test_connections_that_close_and_tables_that_finish_leave_no_cyclic_garbage(tmp_path):
    """Rounds of connections closed in every way and matches played to their end (the tables then
    leave memory): the objects the server's collector tracks, garbage among them, stay as many
    as after the first round (which fills what the server keeps whatever comes: its listing of
    finished tables), give or take less than what one table, or fifty connections, would leave
    in cycles (each round closes some 70)."""
    context = multiprocessing.get_context("spawn")
    pipe, theirs = context.Pipe()
    server = context.Process(target=soak.run_server, args=(str(tmp_path), theirs), kwargs=SERVER, daemon=True)
    server.start()
    try:
        port = pipe.recv()
        url = f"ws://127.0.0.1:{port}"
        alive = []
        for r in range(4):
            await _a_round(url, port, 10 * r)
            pipe.send("count")
            counts = await received(pipe, timeout=30)
            assert counts is not None, "the server did not answer within 30 s"
            alive.append(counts["objects"])
        assert all(abs(n - alive[0]) < 500 for n in alive[1:]), alive
    finally:
        server.kill()
        server.join()


def _ring(n: int) -> None:
    """n lists in one cycle, dropped: garbage that only a full collection frees."""
    ring = [[] for _ in range(n)]
    for i, link in enumerate(ring):
        link.append(ring[i - 1])


def test_a_full_collection_comes_once_the_heap_has_grown_by_as_many_objects_as_it_held():
    """Counted in objects: the collector's own count of the tracked objects made less those
    freed, which no time enters."""
    enabled = gc.isenabled()
    gc.disable()       # as in a server process
    try:
        growth = heap.Growth()
        held = growth.live
        kept = [[] for _ in range(growth.due // 2)]
        assert not growth.check()       # half the growth due: nothing collected
        _ring(growth.due)
        assert growth.check()           # the whole growth due: collected, down to what is kept
        assert growth.live < held + len(kept) + 1000
        assert not growth.check()
    finally:
        if enabled:
            gc.enable()
