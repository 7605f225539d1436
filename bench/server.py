"""Server load: N concurrent full tables of headless clients over loopback, one server process.

    python bench/server.py [--tables 200] [--seconds 30] [--think 0.1] [--json] [--postgres]
                           [--game ID] [--option NAME=VALUE ...] [--seats N] [--client-processes N]
                           [--server-from CHECKOUT]

A table has --seats players (default: 4, or the game's most if fewer) and every switch on (or the
options given).
The server runs in its own process (server.app.Server, limits raised for the loopback clients),
with its tables in SQLite, or with --postgres in a private PostgreSQL started for the run (the
pgserver package of the test extra);
--client-processes processes run a websocket client per seat that speaks the wire protocol: hello,
create/sit, commit and reveal, then every decision picked at random from the seat's prompt after
a think time drawn uniformly from [0, 2 × think] seconds. Measured over a fixed window once every
table is dealt: actions per second, command-to-ack latency (p50, p99), bytes per delta against bytes per
snapshot (real snapshots, requested now and then, which carry the last 50 log events; and, to
show the log's weight, a snapshot of the same view carrying only the delta's events, and the view
operations alone against the view alone), and the server's resident memory per table. The last line is one JSON object.
Target (issue 4): 200 tables with p99 under 50 ms, deltas on average under 15% of a snapshot.

Saturation (issue 14): with `--think 0` every player answers at once, so the server is as busy as
the players can make it. `server_cores_busy` says how much of a core it used (1.0: saturated),
and `actions_per_server_cpu_s` what it serves per second of its own CPU time: the actions/s of a
process with a whole core to itself, whatever else ran on the machine. `client_cores_busy` is the
clients' side: near one core per client process, they, not the server, set the pace (on a 2-core
machine the clients take their CPU from the server's cores, so only the CPU per action can be
compared there). Keep the window short (`--tables 50 --think 0 --seconds 15`): a table that
finishes its match leaves the load.

`--server-from CHECKOUT` serves the load with another checkout's server (its `server.app.Server`,
and its `settle_process` if it has one) under this checkout's clients: two versions of the server
measured side by side, run after run, as issue 14 asks.

`loop_cpu_s_per_1000_actions` is the part of the server's CPU that its event loop's thread
spent (the rest is mostly the SQLite writer's thread): the loop serves every connection, so its
CPU per action sets how many actions one process can answer in time.

The server's garbage collections in the window: `gc_collections` (of which full ones,
`gc_full_collections`), `gc_ms` (the milliseconds the event loop waited for the collector in all)
and `gc_longest_ms`, the longest such pause: every command that arrives during one waits for it,
so a pause longer than the p99 target shows in `ack_p99_ms` once a window holds a percent of its
commands in such pauses.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

from common import add_game_arguments, engine_and_options
from players import CLIENT_PROCESSES, load, received
from processes import private_postgres


class Collections:
    """The garbage collections of the server process: how many, and the time each held the event
    loop (wall time, from start to end of the collection: whatever thread allocated, the loop
    waits for it). `report()` gives the counts so far, and the longest pause since the last
    report."""

    def __init__(self) -> None:
        self.started = 0.0
        self.count = [0, 0, 0]      # by generation: 2 is a full collection
        self.total_s = 0.0
        self.longest_s = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        pause = time.perf_counter() - self.started
        self.count[info["generation"]] += 1
        self.total_s += pause
        self.longest_s = max(self.longest_s, pause)

    def report(self) -> dict:
        out = {"gc_collections": sum(self.count), "gc_full_collections": self.count[2],
               "gc_ms": 1000 * self.total_s, "gc_longest_ms": 1000 * self.longest_s,
               "loop_cpu_s": time.thread_time()}    # asked on the event loop's thread: its own CPU
        self.longest_s = 0.0
        return out


PACKAGES = ("games", "protocol", "server", "client", "bots")   # the project's own (pyproject.toml)


def run_server(data_dir: str, database: str, tables: int, pipe, checkout: str | None = None) -> None:
    """The server of the load, from `checkout` if given; it sends its port on `pipe`, then
    answers each message there with its garbage collections (Collections.report)."""
    if checkout is not None:
        # Forked from the load's process: its copies of the project's modules go, the checkout's come.
        for name in [n for n in sys.modules if n.split(".")[0] in PACKAGES]:
            del sys.modules[name]
        sys.path.insert(0, checkout)
    from server import app
    Server = app.Server
    settle_process = getattr(app, "settle_process", lambda: None)   # older servers kept the defaults

    async def main():
        # every client comes from 127.0.0.1: the per-address limits are raised with the rest
        server = Server(data_dir, "127.0.0.1", 0, database=database, conns_per_addr=8 * tables + 16,
                        max_connections=8 * tables + 16,
                        max_tables=tables + 8, rate=1000.0, burst=2000, conn_rate=1000.0, conn_burst=8 * tables,
                        tables_per_addr=tables + 8, tables_per_window=tables + 8)
        port = await server.start()
        settle_process()     # as `governor serve` does: its collector off, the switch interval
        collections = Collections()
        gc.callbacks.append(collections)

        def answer() -> None:
            pipe.recv()
            pipe.send(collections.report())

        asyncio.get_running_loop().add_reader(pipe.fileno(), answer)
        pipe.send(port)
        await asyncio.Event().wait()

    asyncio.run(main())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30.0, help="length of the measured window")
    ap.add_argument("--think", type=float, default=0.1, help="mean thinking time per decision, seconds")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    ap.add_argument("--postgres", action="store_true", help="keep the tables in a private PostgreSQL, not SQLite")
    add_game_arguments(ap)
    ap.add_argument("--seats", type=int, help="players per table")
    ap.add_argument("--client-processes", type=int, default=CLIENT_PROCESSES,
                    help=f"processes the clients run in (default {CLIENT_PROCESSES}); table t is played by "
                         "process t mod this")
    ap.add_argument("--server-from", metavar="CHECKOUT",
                    help="serve with the server of another checkout of the project (a folder), to compare versions")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    info = engine.INFO
    seats = args.seats or info.default_players
    if seats not in info.players:
        ap.error(f"--seats: {info.min_players} to {info.max_players}")
    if args.client_processes < 1:
        ap.error("--client-processes: at least 1")
    server_from = None
    if args.server_from is not None:
        server_from = str(Path(args.server_from).resolve())
        if not (Path(server_from) / "server" / "app.py").is_file():
            ap.error(f"--server-from: {args.server_from} is not a checkout of this project (no server/app.py)")
    create = {"type": "create", "game": info.id, "seats": seats, "bots": 0, "options": option_sets[-1], "blind": False}
    with tempfile.TemporaryDirectory() as data_dir, contextlib.ExitStack() as stack:
        database = "sqlite"
        if args.postgres:
            database = stack.enter_context(private_postgres(Path(data_dir) / "pg")).get_uri()
        parent, child = multiprocessing.Pipe()
        proc = multiprocessing.Process(target=run_server, args=(data_dir, database, args.tables, child, server_from), daemon=True)
        proc.start()
        port = parent.recv()
        reports = []

        async def counters() -> dict:      # at the window's start and end: the server's collections so far
            parent.send("report")
            reports.append(await received(parent))
            return {}

        try:
            out = asyncio.run(load([f"ws://127.0.0.1:{port}"], create, args.tables, args.seconds, args.think,
                                   [proc.pid], counters, client_processes=args.client_processes))
            before, after = reports
            out.update({k: round(after[k] - before[k], 1) for k in ("gc_collections", "gc_full_collections", "gc_ms")},
                       gc_longest_ms=round(after["gc_longest_ms"], 1))   # the longest pause in the window
            actions = out["actions_per_s"] * out["window_s"]
            loop_cpu = after["loop_cpu_s"] - before["loop_cpu_s"]
            out.update(server_from=server_from, loop_cpu_s=round(loop_cpu, 2),
                       loop_cpu_s_per_1000_actions=round(1000 * loop_cpu / actions, 3) if actions else None)
        finally:
            proc.terminate()
            proc.join()
    if not args.json:
        for k, v in out.items():
            print(f"{k:>22}: {v}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
