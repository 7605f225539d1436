"""ISMCTS speed: search iterations per second on one core, from fixed mid-game positions.

    python bench/search.py [--iterations N] [--json]

The positions come from games between heuristic players (fixed seeds, 2 to 4 players, with and
without the expansion), stopped at a role or build decision in the middle of the game. Each is
searched once with an iteration budget; the rate is iterations over wall time, including the
per-decision set-up (reading the view, the heuristic's fallback). The last line is one JSON
object. Target: at least 1,000 iterations per second.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots  # noqa: E402
from games import sanjuan  # noqa: E402
from protocol.fairness import local_streams  # noqa: E402

POSITIONS = [(4, False, 100, "role"), (4, True, 110, "build"), (4, True, 150, "role"),
             (3, False, 90, "build"), (3, True, 120, "role"), (2, False, 70, "role")]


def position(players: int, expansion: bool, after: int, kind: str) -> dict:
    """The view of the first `kind` decision after `after` decisions of a heuristic game."""
    seed = f"search/{players}/{expansion}/{after}"
    rng = local_streams(seed)
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
    movers = [bots.make("heuristic", f"{seed}/{i}") for i in range(players)]
    while not s.over:
        seat = sanjuan.to_act(s)[0]
        view = sanjuan.view(s, seat)
        if s.decisions >= after and view["prompt"]["kind"] == kind and len(view["prompt"]["options"]) > 1:
            return view
        sanjuan.apply(s, seat, movers[seat].choose(view), rng)
    raise ValueError(f"the game {seed} ended before a {kind} decision after {after} decisions")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=2000, help="budget per position")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()
    rows = []
    total_it = total_s = 0.0
    for players, expansion, after, kind in POSITIONS:
        view = position(players, expansion, after, kind)
        bot = bots.make("ismcts", "bench", iterations=args.iterations)
        t = time.perf_counter()
        bot.choose(view)
        elapsed = time.perf_counter() - t
        total_it += bot.last_iterations
        total_s += elapsed
        rows.append({"players": players, "expansion": expansion, "round": view["round"],
                     "decision": kind, "iterations": bot.last_iterations,
                     "iterations_per_s": round(bot.last_iterations / elapsed)})
        if not args.json:
            print(f"{players} players, expansion {'on ' if expansion else 'off'}, round {view['round']:2d}, "
                  f"{kind:5s}: {rows[-1]['iterations_per_s']:6d} iterations/s")
    out = {"bench": "search", "python": sys.version.split()[0], "positions": rows,
           "iterations_per_s": round(total_it / total_s)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
