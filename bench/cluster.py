"""A cluster's capacity: 1, 2 and 3 `governor serve` processes on one PostgreSQL, and one on SQLite.

    python bench/cluster.py [--processes 1,2,3] [--no-sqlite] [--think 1.0] [--seconds 10]
                            [--start 25] [--steps 6] [--budget 300] [--p99 50] [--quick] [--json]
                            [--game ID] [--option NAME=VALUE ...]

A private PostgreSQL is started for the run (bench/processes.py). For each setup (one process on
SQLite, the baseline; then 1, 2 and 3 processes on PostgreSQL) a short search looks for the
largest N, the number of concurrent 4-player tables, whose command-to-ack p99 stays under --p99
milliseconds: N doubles from --start while it does, then the search halves the gap between the
largest N that held and the smallest that did not, until they are within 10% of each other, or
--steps steps or --budget seconds (per setup) are spent. Each step is a run of its own: the
processes are started afresh (`governor serve --database … --public-url …`, on a new database of
the PostgreSQL, so that no table of an earlier step is taken over), N tables of headless players
(bench/players.py, thinking --think seconds on average) are spread over them, table t on process
t mod P (its players go straight to its owner), and measured over a window of --seconds once
every table is dealt; then the processes are stopped.

Reported for each setup, at its largest N: actions/s, command-to-ack p50 and p99, the server
processes' CPU seconds per 1,000 actions (/proc/PID/stat), and PostgreSQL's commits/s (the rise
of xact_commit in pg_stat_database for the step's database); and the CPU per 1,000 actions over
every step of the setup. Then the issue 13 targets: the latter for 2 and 3 processes against 1
(≤ 1.2×), and the tables 1 process holds on PostgreSQL against SQLite (≥ 80%). --quick runs 2
short steps per setup, about a minute in all.
The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import asyncpg
from capacity import largest_passing
from common import add_game_arguments, engine_and_options
from players import load
from processes import private_postgres, serve

SEATS = 4


class Setup:
    """`processes` server processes on PostgreSQL (`postgres`, a pgserver server), or one on SQLite
    when `postgres` is None; `step` runs N tables on them, started afresh."""

    def __init__(self, processes: int, postgres, folder: Path, create: dict, args) -> None:
        self.processes, self.postgres, self.folder, self.create, self.args = processes, postgres, folder, create, args
        self.name = f"PostgreSQL, {processes} process{'es' if processes > 1 else ''}" if postgres else \
            "SQLite, 1 process"
        self.steps = 0

    def step(self, tables: int) -> dict:
        self.steps += 1
        run = f"{'pg' if self.postgres else 'sqlite'}{self.processes}_{self.steps}"
        database, counters = "sqlite", None
        if self.postgres:
            self.postgres.psql(f"CREATE DATABASE {run};")
            database = self.postgres.get_uri(run)
            counters = self._commits(database, run)
        procs = []
        try:
            # one after the other: the first runs the migrations on the new database
            for i in range(self.processes):
                procs.append(serve(self.folder / run / str(i), database, public=True))
            out = asyncio.run(load([url for _, url in procs], self.create, tables, self.args.seconds,
                                   self.args.think, [p.pid for p, _ in procs], counters))
        finally:
            for p, _ in procs:
                p.kill()
                p.wait()
        out["actions"] = round(out["actions_per_s"] * out["window_s"])
        out = {k: out[k] for k in ("tables", "actions", "actions_per_s", "ack_p50_ms", "ack_p99_ms", "server_cpu_s",
                                   "server_cpu_s_per_1000_actions", "pg_commits_per_s", "setup_s", "rejects")
               if k in out}
        if not self.args.json:
            print(f"  {self.name}: {tables} tables: p99 {out['ack_p99_ms']} ms, {out['actions_per_s']} actions/s, "
                  f"{out['server_cpu_s_per_1000_actions']} CPU s per 1,000 actions"
                  + (f", {out['pg_commits_per_s']} commits/s" if "pg_commits_per_s" in out else ""), flush=True)
        return out

    @staticmethod
    def _commits(database: str, name: str):
        """The database's transactions committed so far, as load's counters."""
        async def counters() -> dict:
            db = await asyncpg.connect(database)
            try:
                return {"pg_commits": await db.fetchval(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = $1", name)}
            finally:
                await db.close()
        return counters

    def search(self) -> dict:
        limit = self.args.p99

        def passes(r):
            return r["ack_p99_ms"] < limit
        best, tried = largest_passing(self.step, passes, self.args.start, self.args.steps,
                                      time.monotonic() + self.args.budget)
        # none held: the cost per action is read at the fewest tables tried
        at = best or min(tried, key=lambda r: r["tables"])
        return {"setup": self.name, "store": "postgresql" if self.postgres else "sqlite",
                "processes": self.processes, "largest_tables": best["tables"] if best else 0,
                # False: every N tried held, so the largest is at least largest_tables
                "limit_reached": not all(passes(r) for r in tried), "at": at,
                # over every step: more actions than one step, so the steadier figure for the target
                "server_cpu_s_per_1000_actions": round(1000 * sum(r["server_cpu_s"] for r in tried)
                                                       / max(1, sum(r["actions"] for r in tried)), 3),
                "steps": tried}


def _ratio(a, b) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def targets(results: list[dict]) -> dict:
    """The issue's comparisons, where the setups they compare were run."""
    by = {(r["store"], r["processes"]): r for r in results}
    out = {}
    one = by.get(("postgresql", 1))
    if one:
        for (store, p), r in by.items():
            if store == "postgresql" and p > 1:
                out[f"cpu_per_action_{p}_processes_to_1"] = _ratio(
                    r["server_cpu_s_per_1000_actions"], one["server_cpu_s_per_1000_actions"])
        if ("sqlite", 1) in by:
            out["postgresql_tables_to_sqlite"] = _ratio(one["largest_tables"], by["sqlite", 1]["largest_tables"])
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", default="1,2,3", help="process counts on PostgreSQL, e.g. 1,2,3")
    ap.add_argument("--no-sqlite", action="store_true", help="skip the one-process SQLite baseline")
    ap.add_argument("--think", type=float, default=1.0, help="mean thinking time per decision, seconds")
    ap.add_argument("--seconds", type=float, default=10.0, help="measured window of each step")
    ap.add_argument("--start", type=int, default=25, help="tables at the first step")
    ap.add_argument("--steps", type=int, default=6, help="most steps of each setup's search")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds after which a setup's search "
                                                               "begins no more steps")
    ap.add_argument("--p99", type=float, default=50.0, help="command-to-ack p99 to stay under, ms")
    ap.add_argument("--quick", action="store_true", help="2 steps of 3 s per setup from 8 tables: about a minute")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    add_game_arguments(ap)
    args = ap.parse_args(argv)
    try:
        counts = [int(p) for p in args.processes.split(",")]
    except ValueError:
        ap.error(f"--processes: process counts separated by commas, like 1,2,3, not {args.processes!r}")
    if not all(1 <= p <= 16 for p in counts):
        ap.error("--processes: each count from 1 to 16")
    if args.quick:
        args.seconds, args.steps, args.start = 3.0, 2, 8
    if args.start < 1 or args.steps < 1 or args.seconds <= 0:
        ap.error("--start and --steps at least 1, --seconds above 0")
    engine, option_sets = engine_and_options(ap, args)
    if SEATS not in engine.INFO.players:
        ap.error(f"{engine.INFO.id} is not played by {SEATS}")
    create = {"type": "create", "game": engine.INFO.id, "seats": SEATS, "bots": 0, "options": option_sets[-1]}
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with private_postgres(folder / "pg") as postgres:
            setups = ([] if args.no_sqlite else [Setup(1, None, folder, create, args)]) + \
                     [Setup(p, postgres, folder, create, args) for p in counts]
            for setup in setups:
                if not args.json:
                    print(f"{setup.name}:", flush=True)
                results.append(setup.search())
    out = {"bench": "cluster", "game": create["game"], "options": create["options"], "seats": SEATS,
           "think_s": args.think, "window_s": args.seconds, "p99_limit_ms": args.p99, "setups": results,
           "targets": targets(results)}
    if not args.json:
        print(f"\nlargest N with command-to-ack p99 under {args.p99:g} ms (think {args.think:g} s, "
              f"{args.seconds:g} s windows), and at that N:")
        for r in results:
            at = r["at"]
            most = f"{'' if r['limit_reached'] else '≥'}{r['largest_tables']}"
            print(f"{r['setup']:>24}: {most:>5} tables; {at['actions_per_s']} actions/s, "
                  f"p50 {at['ack_p50_ms']} ms, p99 {at['ack_p99_ms']} ms, "
                  f"{at['server_cpu_s_per_1000_actions']} server CPU s per 1,000 actions"
                  + (f", {at['pg_commits_per_s']} PostgreSQL commits/s" if "pg_commits_per_s" in at else ""))
        print("server CPU s per 1,000 actions over every step: " + ", ".join(
            f"{r['setup']} {r['server_cpu_s_per_1000_actions']}" for r in results))
        for k, v in out["targets"].items():
            print(f"{k:>40}: {v}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
