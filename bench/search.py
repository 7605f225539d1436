"""ISMCTS speed: search iterations per second on one core, from fixed mid-game positions.

    python bench/search.py [--game ID] [--option NAME=VALUE ...] [--iterations N] [--json]

The positions come from games between the game's own computer players (fixed seeds, every player
count, default options and every switch on), stopped at the first searched decision with a
choice after a third and after half of the game that the search really searches (a decision
with a single candidate is answered without searching). Each is searched once with an iteration
budget; the rate is iterations over this process's CPU time, including the per-decision set-up
(reading the view, the fallback's answer). The last line is one JSON object. Target (San Juan):
at least 1,000 iterations per second.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from common import add_game_arguments, describe, engine_and_options

import bots
from protocol.fairness import local_streams

STOPS = (1 / 3, 1 / 2)   # how far into the game a position is taken


def searched_position(engine, players: int, options: dict, stop: float, iterations: int) -> tuple[dict, object, float]:
    """The first decision after `stop` of a game between the game's own players that the search
    really searches (more than one candidate), with the bot that searched it and its CPU time."""
    game = engine.INFO.id
    seed = f"search/{players}/{sorted(options.items())}/{stop:.2f}"
    level = bots.default_level(game)

    def views(rng):
        s = engine.setup([f"P{i}" for i in range(players)], options, rng)
        movers = [bots.make(game, level, f"{seed}/{i}") for i in range(players)]
        while engine.to_act(s):
            seat = engine.to_act(s)[0]
            view = engine.view(s, seat)
            yield view
            engine.apply(s, seat, movers[seat].choose(view), rng)

    length = sum(1 for _ in views(local_streams(seed)))
    for i, view in enumerate(views(local_streams(seed))):
        if i < stop * length:
            continue
        bot = bots.make(game, "ismcts", "bench", iterations=iterations)
        t = time.process_time()
        bot.choose(view)
        elapsed = time.process_time() - t
        if bot.last_iterations:
            return view, bot, elapsed
    raise ValueError(f"the game {seed} has no searched decision after {stop:.0%}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--iterations", type=int, default=2000, help="budget per position")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    if engine.search is None:
        ap.error(f"{engine.INFO.title} offers no search support")
    rows = []
    total_it = total_s = 0.0
    for players in reversed(engine.INFO.players):
        for options in option_sets:
            for stop in STOPS:
                view, bot, elapsed = searched_position(engine, players, options, stop, args.iterations)
                total_it += bot.last_iterations
                total_s += elapsed
                kind = view["prompt"]["kind"]
                rows.append({"players": players, "options": options, "stop": round(stop, 2), "decision": kind,
                             "iterations": bot.last_iterations,
                             "iterations_per_s": round(bot.last_iterations / elapsed)})
                if not args.json:
                    print(f"{players} players, {describe(engine, options):28s} {stop:4.0%} in, {kind:8s}: "
                          f"{rows[-1]['iterations_per_s']:6d} iterations/s")
    out = {"bench": "search", "game": engine.INFO.id, "python": sys.version.split()[0], "positions": rows,
           "iterations_per_s": round(total_it / total_s)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
