"""A cluster's cost and capacity: 1, 2 and 3 `governor serve` processes on one PostgreSQL, and one on SQLite.

    python bench/cluster.py [--processes 1,2,3] [--tables 60] [--rounds 5] [--capacity-rounds 3]
                            [--think 1.0] [--seconds 10] [--start 50] [--steps 8] [--within 0.05]
                            [--budget 600] [--p99 50] [--skip cost|capacity] [--quick]
                            [--client-processes N] [--json] [--game ID] [--option NAME=VALUE ...]

Two parts, one for each of issue 13's targets on cost and capacity. Each is run in rounds in
which the setups take turns, so that whatever else the machine does falls on every setup alike
(a shared machine's load moves a run's figures more than the differences they are to show):

- cost: --tables concurrent 4-player tables on 1, 2 and 3 processes on PostgreSQL (--processes),
  one run each, --rounds times, the order turning every round (1 2 3, 2 3 1, 3 1 2, ...). Each
  run gives the server processes' CPU seconds per 1,000 actions (/proc/PID/stat). Reported: each
  setup's median and range, and each count's ratio to 1 process taken within each round (runs
  next to each other in time), median and range. Target: ≤ 1.2.
- capacity: the largest N of tables whose command-to-ack p99 stays under --p99 ms, for one
  process on SQLite and one on PostgreSQL, each searched in turn, --capacity-rounds times (which
  goes first alternates). A search doubles N from --start while the p99 holds, then halves the
  gap between the largest N that held and the smallest that did not until it is within --within
  of the former (or --steps runs, or --budget seconds, are spent). Reported: each setup's largest
  N in every round and their median, and PostgreSQL's against SQLite's in each round, median and
  range. Target: ≥ 0.8.

Every run is a run of its own: the processes are started afresh (`governor serve --database …
--public-url …`, on a new database of a private PostgreSQL, bench/processes.py, so that no table
of an earlier run is taken over), N tables of headless players (bench/players.py, thinking
--think seconds on average, in --client-processes processes) are created through process t mod P
(the cluster places each on its least loaded process, and its players follow the redirect), and
measured over a window of --seconds once every table is dealt: actions/s, command-to-ack p50 and
p99, CPU per 1,000 actions, the cores the servers and the clients kept busy (clients busy near a
core per client process measure themselves, not the cluster), and PostgreSQL's commits/s (the rise of
xact_commit in pg_stat_database). The machine's load average is reported at the start and end.
--quick: 1 round of each part, 3 s windows, from 8 tables, about two minutes. The last line is one
JSON object.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import asyncpg
from capacity import largest_passing
from common import add_game_arguments, engine_and_options
from players import CLIENT_PROCESSES, load
from processes import private_postgres, serve

SEATS = 4
RUNS = itertools.count(1)      # every run's database and folders are its own


class Setup:
    """`processes` server processes on PostgreSQL (`postgres`, a pgserver server), or one on SQLite
    when `postgres` is None; `step` runs N tables on them, started afresh."""

    def __init__(self, processes: int, postgres, folder: Path, create: dict, args) -> None:
        self.processes, self.postgres, self.folder, self.create, self.args = processes, postgres, folder, create, args
        self.name = f"PostgreSQL, {processes} process{'es' if processes > 1 else ''}" if postgres else \
            "SQLite, 1 process"

    def step(self, tables: int) -> dict:
        run = f"{'pg' if self.postgres else 'sqlite'}{self.processes}_{next(RUNS)}"
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
                                   self.args.think, [p.pid for p, _ in procs], counters,
                                   client_processes=self.args.client_processes))
        except Exception as e:     # e.g. a table that moved to another process before it was dealt
            if not self.args.json:
                print(f"  {self.name}: {tables} tables: the run failed: {e!r}", flush=True)
            return {"tables": tables, "failed": repr(e)[:300]}
        finally:
            for p, _ in procs:
                p.kill()
                p.wait()
        out["actions"] = round(out["actions_per_s"] * out["window_s"])
        out = {k: out[k] for k in ("tables", "actions", "actions_per_s", "ack_p50_ms", "ack_p99_ms", "server_cpu_s",
                                   "server_cpu_s_per_1000_actions", "server_cores_busy", "client_cores_busy",
                                   "pg_commits_per_s", "setup_s", "rejects")
               if k in out}
        if not self.args.json:
            print(f"  {self.name}: {tables} tables: p99 {out['ack_p99_ms']} ms, {out['actions_per_s']} actions/s, "
                  f"{out['server_cpu_s_per_1000_actions']} CPU s per 1,000 actions, servers {out['server_cores_busy']} "
                  f"and clients {out['client_cores_busy']} cores busy"
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

    def capacity(self, args) -> dict:
        """The largest N at p99 under --p99 ms, and every run of the search."""
        best, tried = largest_passing(self.step, lambda r: held(r, args.p99), args.start, args.steps,
                                      time.monotonic() + args.budget, args.within)
        return {"largest_tables": best["tables"] if best else 0,
                # False: every N tried held, so the largest is at least largest_tables
                "limit_reached": not all(held(r, args.p99) for r in tried), "steps": tried}


def held(run: dict, p99: float) -> bool:
    """The run's p99 stayed under the limit (a run that failed did not hold)."""
    return "failed" not in run and run["ack_p99_ms"] < p99


def spread(values: list[float]) -> dict:
    """The median and the range of some figures (None for none)."""
    if not values:
        return {"median": None, "min": None, "max": None, "runs": 0}
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3), "runs": len(values)}


def shown(s: dict) -> str:
    return f"{s['median']:g} ({s['min']:g}–{s['max']:g}, {s['runs']} runs)" if s["runs"] else "no run"


def cost(setups: list[Setup], args) -> dict:
    """Every setup at --tables, the order turning each round: CPU per 1,000 actions."""
    runs = {s.processes: [] for s in setups}
    for r in range(args.rounds):
        order = setups[r % len(setups):] + setups[:r % len(setups)]
        for setup in order:
            runs[setup.processes].append(setup.step(args.tables))
    # a run that failed has no figure: None, and its round has no ratio for it
    cpu = {p: [run.get("server_cpu_s_per_1000_actions") for run in rs] for p, rs in runs.items()}
    out = {"tables": args.tables, "rounds": args.rounds,
           "cpu_s_per_1000_actions": {p: spread([x for x in xs if x]) for p, xs in cpu.items()},
           "runs": {p: rs for p, rs in runs.items()}}
    if 1 in cpu:
        out["ratio_to_1_process"] = {p: spread([x / one for x, one in zip(xs, cpu[1]) if x and one])
                                     for p, xs in cpu.items() if p != 1}
    return out


def capacity(sqlite: Setup, postgres: Setup, args) -> dict:
    """Both setups' searches in turn, --capacity-rounds times: the largest N of each."""
    found = {"sqlite": [], "postgresql": []}
    for r in range(args.capacity_rounds):
        pair = [("sqlite", sqlite), ("postgresql", postgres)]
        for name, setup in (pair if r % 2 == 0 else pair[::-1]):
            if not args.json:
                print(f"{setup.name}, round {r + 1}:", flush=True)
            found[name].append(setup.capacity(args))
    largest = {name: [f["largest_tables"] for f in fs] for name, fs in found.items()}
    return {"p99_limit_ms": args.p99, "rounds": args.capacity_rounds,
            "largest_tables": {name: {"each_round": ns, "median": statistics.median(ns)} for name, ns in largest.items()},
            "postgresql_to_sqlite": spread([pg / sq for pg, sq in zip(largest["postgresql"], largest["sqlite"]) if sq]),
            "searches": found}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", default="1,2,3", help="process counts on PostgreSQL for the cost, e.g. 1,2,3")
    ap.add_argument("--tables", type=int, default=60, help="concurrent tables of every cost run")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the cost part")
    ap.add_argument("--capacity-rounds", type=int, default=3, help="rounds of the capacity part")
    ap.add_argument("--think", type=float, default=1.0, help="mean thinking time per decision, seconds")
    ap.add_argument("--seconds", type=float, default=10.0, help="measured window of each run")
    ap.add_argument("--start", type=int, default=50, help="tables at a capacity search's first run")
    ap.add_argument("--steps", type=int, default=8, help="most runs of one capacity search")
    ap.add_argument("--within", type=float, default=0.05, help="a capacity search ends when the gap between "
                                                               "the N that held and the N that did not is "
                                                               "this fraction of the former")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds after which a capacity search "
                                                               "begins no more runs")
    ap.add_argument("--p99", type=float, default=50.0, help="command-to-ack p99 to stay under, ms")
    ap.add_argument("--skip", choices=("cost", "capacity"), help="run the other part only")
    ap.add_argument("--quick", action="store_true", help="1 round of each part, 3 s windows, from 8 tables")
    ap.add_argument("--client-processes", type=int, default=CLIENT_PROCESSES,
                    help=f"processes the headless clients run in (default {CLIENT_PROCESSES})")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    add_game_arguments(ap)
    args = ap.parse_args(argv)
    try:
        counts = [int(p) for p in args.processes.split(",")]
    except ValueError:
        ap.error(f"--processes: process counts separated by commas, like 1,2,3, not {args.processes!r}")
    if not all(1 <= p <= 16 for p in counts) or len(set(counts)) != len(counts):
        ap.error("--processes: different counts, each from 1 to 16")
    if args.quick:
        args.seconds, args.steps, args.start, args.tables, args.rounds, args.capacity_rounds = 3.0, 2, 8, 8, 1, 1
    if min(args.start, args.steps, args.tables, args.rounds, args.capacity_rounds, args.client_processes) < 1 \
            or args.seconds <= 0 or not 0 < args.within < 1:
        ap.error("--start, --steps, --tables, --client-processes and the rounds at least 1, --seconds above 0, "
                 "--within between 0 and 1")
    engine, option_sets = engine_and_options(ap, args)
    if SEATS not in engine.INFO.players:
        ap.error(f"{engine.INFO.id} is not played by {SEATS}")
    create = {"type": "create", "game": engine.INFO.id, "seats": SEATS, "bots": 0, "options": option_sets[-1],
              "blind": False}
    out = {"bench": "cluster", "game": create["game"], "options": create["options"], "seats": SEATS,
           "think_s": args.think, "window_s": args.seconds, "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with private_postgres(folder / "pg") as postgres:
            if args.skip != "cost":
                if not args.json:
                    print(f"cost: {args.tables} tables, {args.rounds} rounds of {', '.join(map(str, counts))} "
                          "processes on PostgreSQL", flush=True)
                out["cost"] = cost([Setup(p, postgres, folder, create, args) for p in counts], args)
            if args.skip != "capacity":
                out["capacity"] = capacity(Setup(1, None, folder, create, args),
                                           Setup(1, postgres, folder, create, args), args)
    out["load_after"] = os.getloadavg()
    if not args.json:
        print(f"\nload average {out['load_before'][0]:.2f} at the start, {out['load_after'][0]:.2f} at the end "
              f"(think {args.think:g} s, {args.seconds:g} s windows)")
        if "cost" in out:
            c = out["cost"]
            print(f"server CPU s per 1,000 actions at {c['tables']} tables, median (range):")
            for p, sp in c["cpu_s_per_1000_actions"].items():
                print(f"  {p} process{'es' if p > 1 else '':2}: {shown(sp)}")
            for p, sp in c.get("ratio_to_1_process", {}).items():
                print(f"  {p} processes against 1, within each round: {shown(sp)} (target ≤ 1.2)")
        if "capacity" in out:
            c = out["capacity"]
            print(f"largest N with command-to-ack p99 under {args.p99:g} ms, each round:")
            for name, ln in c["largest_tables"].items():
                print(f"  {name:>10}: {', '.join(map(str, ln['each_round']))}; median {ln['median']:g}")
            print(f"  PostgreSQL against SQLite, within each round: {shown(c['postgresql_to_sqlite'])} "
                  "(target ≥ 0.8)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
