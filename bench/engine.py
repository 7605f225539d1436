"""Engine speed: random full games per second and decisions per second, and the cost of a state copy.

    python bench/engine.py [--game ID] [--option NAME=VALUE ...] [--games N] [--json]

Every game is played by uniformly random legal moves (the engine's `random_move`) on one core,
with the real fair-dealing streams seeded locally, at every player count of the game, with the
default options and with every switch on (or the options given). The last line is one JSON
object. Targets (issue 2, San Juan): at least 300 random 4-player games per second, a mid-game
copy under 20 µs; issue 14: twice that, 600 games per second. Games per second are per second of
this process's CPU time.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import timeit

from common import add_game_arguments, describe, engine_and_options

from protocol.fairness import local_streams


def play(engine, seed: int, players: int, options: dict, stop_after: int | None = None):
    """A random game (or its first `stop_after` decisions): the state and the decisions made."""
    rng = local_streams(seed)
    s = engine.setup([f"P{i}" for i in range(players)], options, rng)
    moves = random.Random(seed)
    to_act, random_move = engine.to_act, engine.random_move
    decisions = 0
    while decisions != stop_after:
        seats = to_act(s)
        if not seats:
            break
        random_move(s, seats[0], moves, rng)
        decisions += 1
    return s, decisions


def measure(engine, players: int, options: dict, games: int) -> dict:
    decisions = 0
    # This process's CPU time, not the wall clock's: on a machine shared with other work the wall
    # clock also counts the time the others had the core.
    start = time.process_time()
    for seed in range(games):
        decisions += play(engine, seed, players, options)[1]
    elapsed = time.process_time() - start
    return {"players": players, "options": options, "games": games,
            "games_per_s": round(games / elapsed, 1),
            "decisions_per_s": round(decisions / elapsed),
            "decisions_per_game": round(decisions / games, 1)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--games", type=int, default=300, help="games per configuration")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    info = engine.INFO

    rows = [measure(engine, n, options, args.games) for n in info.players for options in option_sets]
    # A copy of a state halfway through a game at the most players, every switch on.
    most, options = info.max_players, option_sets[-1]
    s, _ = play(engine, 1, most, options, stop_after=play(engine, 1, most, options)[1] // 2)
    reps = 20000
    copy_us = min(timeit.repeat(lambda: engine.copy(s), number=reps, repeat=5)) / reps * 1e6
    out = {"bench": "engine", "game": info.id, "python": sys.version.split()[0], "configs": rows,
           "copy_mid_game_us": round(copy_us, 2),
           "most_players_games_per_s": min(r["games_per_s"] for r in rows if r["players"] == most)}
    if not args.json:
        for r in rows:
            print(f"{r['players']} players, {describe(engine, r['options']):28s}: "
                  f"{r['games_per_s']:7.1f} games/s  {r['decisions_per_s']:8d} decisions/s  "
                  f"{r['decisions_per_game']:6.1f} decisions/game")
        print(f"copy of a mid-game {most}-player state: {copy_us:.2f} µs")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
