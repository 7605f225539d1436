"""Outcomes: one digest of many seeded random games of each game, to compare two versions of the code.

    python bench/outcomes.py [--game ID] [--games N]

Each game is seeded (the fair-dealing streams from `local_streams(seed)`, the moves from
`random.Random(seed)`), at every player count in turn, with the default options and with every
switch on in turn. A move is a random legal action, sometimes drawn from the whole list of legal
actions instead. The digest covers every move, every event (type, who is told, words; the words
read only once the game is over, as a late reader would), a view now and then, and the final
state and result. The same digest from two versions of the code means they played the same games
to the same end, telling the same things; a change to the rules shows as another digest.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import time

from common import add_game_arguments, engine_and_options

from protocol.fairness import local_streams


def digest(engine, option_sets: list[dict], games: int) -> str:
    info = engine.INFO
    h = hashlib.sha256()
    for seed in range(games):
        players = info.players[seed % len(info.players)]
        options = option_sets[(seed // len(info.players)) % len(option_sets)]
        rng, moves = local_streams(seed), random.Random(seed)
        s = engine.setup([f"P{i}" for i in range(players)], options, rng)
        played = []
        while seats := engine.to_act(s):
            seat = seats[moves.randrange(len(seats))]
            if moves.random() < 0.3:
                action = list(moves.choice(engine.legal(s, seat)))
            else:
                action = engine.random_action(s, seat, moves)
            played.append((seat, list(action), engine.apply(s, seat, action, rng)))
            if moves.random() < 0.05:
                h.update(json.dumps(engine.view(s, seat), sort_keys=True).encode())
        for seat, action, events in played:
            h.update(json.dumps([seat, action, [[e["type"], e["to"], e["text"]] for e in events]]).encode())
        h.update(json.dumps([engine.dump(s), engine.result(s)], sort_keys=True).encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--games", type=int, default=300, help="seeded games")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    start = time.perf_counter()
    out = {"bench": "outcomes", "game": engine.INFO.id, "games": args.games,
           "digest": digest(engine, option_sets, args.games)}
    out["seconds"] = round(time.perf_counter() - start, 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
