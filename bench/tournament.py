"""Seat-rotated series between bot levels: win rates with 95% Wilson intervals, per seat, scores, speed.

    python bench/tournament.py --lineup heuristic,random,random,random --games 400 [--json]
        [--game ID] [--option NAME=VALUE ...]
    python bench/tournament.py --lineup ismcts,heuristic,heuristic,heuristic --games 200 \\
        --iterations 300 --workers 2

Deal d (seed f"{seed}/{d}") is played n times, once per rotation of the lineup over the seats, so
every level meets every deal from every seat; game g is deal g // n, rotation g % n. Bot seats
are seeded f"{seed}/{g}/{seat}". A win shared by k tied players counts 1/k for each. With
--workers 2 the games are split over two processes; decision times are measured inside each
process, i.e. per core. With an iteration budget the results are the same whatever the workers.
The last line printed is one JSON object.
"""
from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from multiprocessing import Pool

from common import add_game_arguments, engine_and_options

import bots
import games
from bots.ismcts import trivial
from protocol.fairness import local_streams
from server import heap


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (fractional wins allowed)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_game(job: tuple) -> dict:
    """One game of the series: levels per seat, and per seat the decision count and think time."""
    game, g, lineup, seed, options, budget = job
    engine = games.get(game)
    n = len(lineup)
    rot = g % n
    levels = [lineup[(i + rot) % n] for i in range(n)]
    deal = f"{seed}/{g // n}"
    rng = local_streams(deal)
    s = engine.setup([f"P{i}" for i in range(n)], options, rng)
    players = [bots.make(game, lv, f"{seed}/{g}/{i}", **budget) for i, lv in enumerate(levels)]
    think = [0.0] * n
    asked = [0] * n
    searched = [0] * n      # decisions with more than one legal action
    slowest = [0.0] * n
    decisions = 0
    while engine.to_act(s):
        seat = engine.to_act(s)[0]
        view = engine.view(s, seat)
        t = time.perf_counter()
        action = players[seat].choose(view)
        dt = time.perf_counter() - t
        think[seat] += dt
        asked[seat] += 1
        searched[seat] += not trivial(view["prompt"])
        slowest[seat] = max(slowest[seat], dt)
        engine.apply(s, seat, action, rng)
        decisions += 1
    r = engine.result(s)
    return {"game": g, "levels": levels, "scores": [sc["total"] for sc in r["scores"]],
            "winners": r["winners"], "decisions": decisions, "think": think, "asked": asked,
            "searched": searched, "slowest": slowest}


def summarize(records: list[dict], lineup: list[str]) -> dict:
    n = len(lineup)
    per = defaultdict(lambda: {"seat_games": 0, "wins": 0.0, "score": 0, "think": 0.0, "asked": 0,
                               "searched": 0, "slowest": 0.0,
                               "by_seat": [[0, 0.0] for _ in range(n)]})
    for r in records:
        share = 1 / len(r["winners"])
        for seat, lv in enumerate(r["levels"]):
            d = per[lv]
            won = share if seat in r["winners"] else 0.0
            d["seat_games"] += 1
            d["wins"] += won
            d["score"] += r["scores"][seat]
            d["think"] += r["think"][seat]
            d["asked"] += r["asked"][seat]
            d["searched"] += r["searched"][seat]
            d["slowest"] = max(d["slowest"], r["slowest"][seat])
            d["by_seat"][seat][0] += 1
            d["by_seat"][seat][1] += won
    out = {}
    for lv, d in per.items():
        lo, hi = wilson(d["wins"], d["seat_games"])
        out[lv] = {
            "seat_games": d["seat_games"],
            "wins": round(d["wins"], 2),
            "win_rate": round(d["wins"] / d["seat_games"], 4),
            "wilson95": [round(lo, 4), round(hi, 4)],
            "by_seat": [round(w / g, 4) if g else None for g, w in d["by_seat"]],
            "avg_score": round(d["score"] / d["seat_games"], 2),
            "ms_per_decision": round(1000 * d["think"] / max(1, d["asked"]), 3),
            "ms_per_choice": round(1000 * d["think"] / max(1, d["searched"]), 3),
            "slowest_ms": round(1000 * d["slowest"], 1),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lineup", help="one bot level per seat, comma-separated (default: the game's own "
                                     "player against random ones, at the game's default table)")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", default="tournament")
    add_game_arguments(ap)
    ap.add_argument("--iterations", type=int, help="search budget per decision, in iterations")
    ap.add_argument("--seconds", type=float, help="search budget per decision, in seconds")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=NUMBER",
                    help="a search parameter, e.g. --set horizon=1 (for tuning)")
    ap.add_argument("--workers", type=int, default=1, help="processes (one per core)")
    ap.add_argument("--progress", action="store_true", help="print a line per finished game")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    info = engine.INFO
    levels = bots.levels(info.id)
    lineup = (args.lineup.split(",") if args.lineup else
              [bots.default_level(info.id)] + ["random"] * (info.default_players - 1))
    if len(lineup) not in info.players or any(lv not in levels for lv in lineup):
        ap.error(f"--lineup: {info.min_players} to {info.max_players} of {', '.join(levels)}")
    budget = {k: v for k, v in (("iterations", args.iterations), ("seconds", args.seconds))
              if v is not None}
    for item in args.set:
        name, _, value = item.partition("=")
        budget[name] = float(value) if "." in value else int(value)
    options = option_sets[0]   # the defaults, or the options given
    jobs = [(info.id, g, lineup, args.seed, options, budget) for g in range(args.games)]
    start = time.perf_counter()
    records = []
    # Each process settles its heap as the server's bot workers do (server/heap.py), so that the
    # decision times are those a server's bots take.
    if args.workers > 1:
        with Pool(args.workers, initializer=heap.settle_worker) as pool:
            for r in pool.imap(play_game, jobs, chunksize=1):
                records.append(r)
                if args.progress:
                    print(json.dumps({"game": r["game"], "levels": r["levels"], "winners": r["winners"],
                                      "scores": r["scores"]}), flush=True)
    else:
        heap.settle_worker()
        for job in jobs:
            records.append(play_game(job))
            if args.progress:
                r = records[-1]
                print(json.dumps({"game": r["game"], "levels": r["levels"], "winners": r["winners"],
                                  "scores": r["scores"]}), flush=True)
    wall = time.perf_counter() - start
    levels = summarize(records, lineup)
    out = {"bench": "tournament", "lineup": lineup, "games": len(records), "seed": args.seed,
           "game": info.id, "options": options, "budget": budget, "workers": args.workers,
           "ties": "a win shared by k players counts 1/k", "wall_s": round(wall, 1),
           "levels": levels}
    if not args.json:
        for lv, d in levels.items():
            print(f"{lv:10s} win {100 * d['win_rate']:5.1f}%  95% [{100 * d['wilson95'][0]:.1f}, "
                  f"{100 * d['wilson95'][1]:.1f}]  by seat {[None if x is None else round(100 * x, 1) for x in d['by_seat']]}  "
                  f"score {d['avg_score']:.1f}  {d['ms_per_decision']:.2f} ms/decision "
                  f"({d['ms_per_choice']:.2f} ms when >1 legal action)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
