"""A server that serves on and on: does its memory stay as it is while connections come and go
and tables finish?

    python bench/soak.py [--rounds 10] [--tables 20] [--connections 200] [--json]

One server process (server.app.Server, its collector settled as `governor serve` settles it:
server/heap.py) and, in this process, rounds of:

- `--connections` connections that say hello, ask for the lobby and go, half of them with the
  closing handshake, half cut short (the socket aborted);
- `--tables` tables of 4 players at random, think 0, played to the end; at each table one player's
  connection is cut mid-match and its seat is played by the table's bot after the grace period.

After each round, once the server holds no connection and no table in use: the objects its
collector tracks (garbage among them: it collects nothing while it plays), its resident memory,
the growth the collector counts since its last full collection (server/heap.py), and the full
collections it made. What the server keeps whatever comes (its 50 newest finished tables listed,
its `finished_cache` of 64 tables at rest) fills in the first four rounds; from then on the
objects stay where they are if nothing is left in cycles. The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import random
import tempfile

from players import Seat, received, rss_kib  # first: it puts the project on sys.path
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol import wire

CREATE = {"type": "create", "game": "sanjuan", "seats": 4, "bots": 0, "options": {}, "blind": False}


# limits no load here comes near: the rounds measure memory, never a refusal
LIMITS = dict(conns_per_addr=100_000, max_connections=100_000, max_tables=100_000, rate=10_000.0, burst=10_000,
              conn_rate=10_000.0, conn_burst=100_000, tables_per_addr=100_000, tables_per_window=100_000,
              watch_rate=10_000.0, watch_burst=10_000)


def run_server(data_dir: str, pipe, **options) -> None:
    """The server (Server's `options` over LIMITS); it sends its port on `pipe`, then answers
    each message there, once it holds no connection and no table in use, with its counts
    (tests/server/test_heap.py runs it too)."""
    from server.app import Server, settle_process

    collections = []

    def counted(phase: str, info: dict) -> None:
        if phase == "stop":
            collections.append(info["generation"])

    async def main():
        server = Server(data_dir, "127.0.0.1", 0, **{"grace": 0.2, **LIMITS, **options})
        pipe.send(await server.start())
        settle_process()     # as `governor serve` does: its collector off, the switch interval
        gc.callbacks.append(counted)

        async def answer() -> None:
            while server.connections or server.tables:
                await asyncio.sleep(0.05)
            pipe.send({"objects": len(gc.get_objects()), "rss_mib": round(rss_kib(os.getpid()) / 1024, 1),
                       "growth": gc.get_count()[0], "full_collections": len(collections)})

        def asked() -> None:
            pipe.recv()
            loop.create_task(answer())

        loop = asyncio.get_running_loop()
        loop.add_reader(pipe.fileno(), asked)
        await asyncio.Event().wait()

    asyncio.run(main())


class _CutShort(Seat):
    """A seat whose connection is cut (no closing handshake) once it has had `after` answers."""

    def __init__(self, ws, rnd: random.Random, after: int) -> None:
        super().__init__(ws, 0.0, rnd)
        self.after = after

    def on_answer(self, kind: str, sent: float) -> None:
        self.after -= 1
        if self.after == 0:
            self.ws.transport.abort()


async def _seat(url: str, table: str | None, name: str, rnd: random.Random, cut_after: int | None,
                tables: asyncio.Queue) -> None:
    async with connect(url, max_size=wire.MAX_SERVER_FRAME) as ws:
        seat = Seat(ws, 0.0, rnd) if cut_after is None else _CutShort(ws, rnd, cut_after)
        await seat.hello()
        if table is None:
            await seat.send(CREATE)
            _, created = await seat.recv()
            table = created["table"]
            for _ in range(CREATE["seats"] - 1):
                tables.put_nowait(table)
        try:
            await seat.play(table, name)
        except ConnectionClosed:
            if cut_after is None:
                raise


async def _table(url: str, t: int) -> None:
    tables: asyncio.Queue = asyncio.Queue()
    rnd = random.Random(t)

    async def later(i: int) -> None:
        await _seat(url, await tables.get(), f"P{i}", random.Random(f"{t}/{i}"), 5 if i == 1 else None, tables)

    await asyncio.gather(_seat(url, None, "P0", rnd, None, tables), *(later(i) for i in range(1, CREATE["seats"])))


async def _visit(url: str, cut: bool) -> None:
    async with connect(url, max_size=wire.MAX_SERVER_FRAME) as ws:
        await ws.send(wire.encode({"type": "hello", "version": wire.VERSION}))
        await ws.recv()
        await ws.send(wire.encode({"type": "list"}))
        await ws.recv()
        if cut:
            ws.transport.abort()


async def _round(url: str, r: int, tables: int, connections: int) -> None:
    for k in range(0, connections, 20):
        await asyncio.gather(*(_visit(url, cut=i % 2 == 1) for i in range(k, min(connections, k + 20))))
    await asyncio.gather(*(_table(url, r * tables + t) for t in range(tables)))


async def _soak(args, pipe, port: int) -> list[dict]:
    url = f"ws://127.0.0.1:{port}"
    rounds = []
    for r in range(args.rounds):
        await _round(url, r, args.tables, args.connections)
        pipe.send("count")
        rounds.append({"round": r + 1, **await received(pipe, timeout=120)})
        if not args.json:
            print(json.dumps(rounds[-1]), flush=True)
    return rounds


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--tables", type=int, default=20, help="tables played to the end each round")
    ap.add_argument("--connections", type=int, default=200, help="connections opened and closed each round")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as data_dir:
        pipe, theirs = multiprocessing.Pipe()
        proc = multiprocessing.Process(target=run_server, args=(data_dir, theirs))
        proc.start()
        try:
            rounds = asyncio.run(_soak(args, pipe, pipe.recv()))
        finally:
            proc.terminate()
            proc.join()
    filled, last = rounds[min(4, len(rounds) - 1)], rounds[-1]
    print(json.dumps({"bench": "soak", "rounds": args.rounds, "tables_per_round": args.tables,
                      "connections_per_round": args.connections + CREATE["seats"] * args.tables,
                      "objects_by_round": [r["objects"] for r in rounds],
                      "rss_mib_by_round": [r["rss_mib"] for r in rounds],
                      "objects_from_round_5": last["objects"] - filled["objects"],
                      "full_collections": last["full_collections"]}))


if __name__ == "__main__":
    main()
