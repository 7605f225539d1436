"""The stores alone: what one accepted move costs to commit, in SQLite and in PostgreSQL.

    python bench/store.py [--moves 500] [--tables 16] [--json]

Each store (server/sqlite_store.py in a temporary folder; server/postgres_store.py on a private
PostgreSQL started for the run with the pgserver package of the test extra) gets:
- one table whose moves are appended one after the other, each awaited as the server awaits it
  before the ack: the time per commit (p50, p99);
- --tables tables appending at once, each its moves one after the other: commits per second.
A move is a log row the size of a real one. The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from processes import private_postgres  # first: it puts the project on sys.path
from server.postgres_store import PostgresStore
from server.sqlite_store import SQLiteStore
from server.store import TableRow

MOVE = {"id": 12345, "action": [3], "seq": 180, "sig": bytes(64)}


def new_table(table_id: str) -> TableRow:
    seats = [{"name": f"P{i}", "player_id": f"p{i}", "key": None, "bot": None} for i in range(4)]
    return TableRow(table_id, "sanjuan", {}, "heuristic", seats, None, None, "waiting", 0.0)


async def measure(store, moves: int, tables: int) -> dict:
    await store.open()
    try:
        await store.create_table(new_table("alone"))
        times = []
        for n in range(moves):
            t0 = time.perf_counter()
            await store.append("alone", n, "act", n % 4, MOVE)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()

        async def play(table_id):
            await store.create_table(new_table(table_id))
            for n in range(moves):
                await store.append(table_id, n, "act", n % 4, MOVE)

        t0 = time.perf_counter()
        await asyncio.gather(*(play(f"t{i}") for i in range(tables)))
        elapsed = time.perf_counter() - t0
    finally:
        await store.close()
    return {"commit_p50_ms": round(statistics.median(times), 3),
            "commit_p99_ms": round(times[int(len(times) * 0.99) - 1], 3),
            "commits_per_s": round(tables * moves / elapsed)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=500, help="moves appended per table")
    ap.add_argument("--tables", type=int, default=16, help="tables appending at once")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    out = {"bench": "store", "moves": args.moves, "tables": args.tables}
    with tempfile.TemporaryDirectory() as folder:
        out["sqlite"] = asyncio.run(measure(SQLiteStore(folder), args.moves, args.tables))
        with private_postgres(Path(folder) / "pg") as postgres:
            # no lease is renewed here: one that outlasts the run, however slow the machine
            out["postgresql"] = asyncio.run(measure(PostgresStore(postgres.get_uri(), lease=3600), args.moves,
                                                    args.tables))
    if not args.json:
        for name in ("sqlite", "postgresql"):
            print(f"{name:>10}: " + ", ".join(f"{k} {v}" for k, v in out[name].items()))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
