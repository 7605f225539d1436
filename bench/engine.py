"""Engine speed: random full games per second and decisions per second, and the cost of a state copy.

    python bench/engine.py [--games N] [--json]

Every game is played by uniformly random legal moves (the engine's `random_action`) on one core,
with the real fair-dealing streams seeded locally. The last line is one JSON object.
Targets (issue 2): at least 300 random 4-player games per second, a mid-game copy under 20 µs.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import sanjuan  # noqa: E402
from protocol.fairness import local_streams  # noqa: E402


def play(seed: int, players: int, expansion: bool) -> sanjuan.State:
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
    moves = random.Random(seed)
    while not s.over:
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, moves), rng)
    return s


def measure(players: int, expansion: bool, games: int) -> dict:
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        decisions += play(seed, players, expansion).decisions
    elapsed = time.perf_counter() - start
    return {"players": players, "expansion": expansion, "games": games,
            "games_per_s": round(games / elapsed, 1),
            "decisions_per_s": round(decisions / elapsed),
            "decisions_per_game": round(decisions / games, 1)}


def mid_game_state(seed: int = 1) -> sanjuan.State:
    """A 4-player expansion game stopped halfway through its decisions."""
    total = play(seed, 4, True).decisions
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(4)], {"expansion": True}, rng)
    moves = random.Random(seed)
    while s.decisions < total // 2:
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, moves), rng)
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games per configuration")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    rows = [measure(n, exp, args.games) for n in (2, 3, 4) for exp in (False, True)]
    s = mid_game_state()
    reps = 20000
    copy_us = min(timeit.repeat(s.copy, number=reps, repeat=5)) / reps * 1e6
    out = {"bench": "engine", "python": sys.version.split()[0], "configs": rows,
           "copy_mid_game_us": round(copy_us, 2),
           "four_player_games_per_s": min(r["games_per_s"] for r in rows if r["players"] == 4)}
    if not args.json:
        for r in rows:
            print(f"{r['players']} players, expansion {'on ' if r['expansion'] else 'off'}: "
                  f"{r['games_per_s']:7.1f} games/s  {r['decisions_per_s']:8d} decisions/s  "
                  f"{r['decisions_per_game']:6.1f} decisions/game")
        print(f"copy of a mid-game 4-player state: {copy_us:.2f} µs")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
