"""Audit cost: the time to verify a recorded match at the most players and its size.

    python bench/verify.py [--game ID] [--option NAME=VALUE ...] [--bots LEVEL] [--games N] [--json]

The table has every switch on (or the options given) and is played by the game's own computer
players (or --bots).

Plays N matches through both sides of the fair-dealing exchange (protocol.harness.play_match), then
verifies each player's record (what a client keeps) and the server's full record (every private
message of every seat) several times on one core. The last line is one JSON object.
Targets (issue 3): verification under 1 second; the record under 64 KiB (with every player's
move signed, the largest matches go over it: docs/benchmarks.md).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from common import add_game_arguments, engine_and_options

import bots
from protocol import record
from protocol.harness import play_match
from protocol.verify import verify


def best_time(data: bytes, repeat: int = 3) -> float:
    """Seconds for the whole audit, parsing the file included; best of `repeat`."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        report = verify(record.loads(data))
        times.append(time.perf_counter() - start)
        assert report.ok, report.text()
    return min(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--bots", metavar="LEVEL", help="who plays the matches (default: the game's own player)")
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    game = engine.INFO.id
    level = args.bots or bots.default_level(game)
    if level not in bots.levels(game):
        ap.error(f"--bots: one of {', '.join(bots.levels(game))}")
    names = [f"P{i}" for i in range(engine.INFO.max_players)]

    rows = []
    for g in range(args.games):
        deciders = [bots.make(game, level, f"bench/{g}/{i}").choose for i in range(len(names))]
        server, players = play_match(game, names, option_sets[-1], deciders, f"bench-verify/{g}")
        seat_records = [record.dumps(p.record) for p in players]
        full = record.dumps(server.sent)
        rows.append({"moves": len(server.moves),
                     "player_record_bytes": max(len(r) for r in seat_records),
                     "full_record_bytes": len(full),
                     "verify_player_s": max(best_time(r) for r in seat_records),
                     "verify_full_s": best_time(full)})
    out = {"bench": "verify", "game": game, "options": option_sets[-1], "bots": level, "games": args.games,
           "moves_mean": round(statistics.mean(r["moves"] for r in rows), 1),
           "player_record_kib_max": round(max(r["player_record_bytes"] for r in rows) / 1024, 1),
           "full_record_kib_max": round(max(r["full_record_bytes"] for r in rows) / 1024, 1),
           "verify_player_s_max": round(max(r["verify_player_s"] for r in rows), 4),
           "verify_full_s_max": round(max(r["verify_full_s"] for r in rows), 4)}
    if not args.json:
        for r in rows:
            print(f"{r['moves']:4d} moves  player record {r['player_record_bytes'] / 1024:5.1f} KiB "
                  f"verified in {r['verify_player_s'] * 1000:6.1f} ms   full record "
                  f"{r['full_record_bytes'] / 1024:5.1f} KiB in {r['verify_full_s'] * 1000:6.1f} ms")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
