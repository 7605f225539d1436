"""`governor selfplay`: random bots play each other, one line per game.

Game i is dealt from the seed f"{S}/{i}" and bot seat k decides with RandomBot(f"{S}/{i}/{k}")
from its own view only, so the same arguments print the same lines, byte for byte: a quick
regression check for the engine and a source of games to compare between versions.
"""
from __future__ import annotations

import argparse
import json
import sys

from games import sanjuan
from games.errors import IllegalAction

from .local import LocalGame

HELP = "let random bots play each other and print the results"
GAMES = {"sanjuan": sanjuan}
BOT_NAMES = ("Ana", "Bo", "Cy", "Di")


def _game_count(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of games from 1 to 1000000")
    return int(text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=sorted(GAMES), default="sanjuan", help="the title to play")
    p.add_argument("--games", type=_game_count, default=1, metavar="K", help="how many games (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object per game and line")


def play_one(game_module, players: int, options: dict, seed: str) -> dict:
    """One bots-only game to the end, as the record printed with --json."""
    names = list(BOT_NAMES[:players])
    game = LocalGame(game_module, names, options, seed, humans=())
    game.play_bots()
    r = game.result()
    return {
        "seed": seed,
        "players": players,
        "options": options,
        "rounds": r["rounds"],
        "decisions": r["decisions"],
        "scores": [{"name": n, "total": sc["total"], "parts": {k: v for k, v in sc.items() if k != "total"}}
                   for n, sc in zip(names, r["scores"])],
        "winners": r["winners"],
    }


def summary(record: dict) -> str:
    scores = ", ".join(f"{s['name']} {s['total']}{'*' * (i in record['winners'])}"
                       for i, s in enumerate(record["scores"]))
    return (f"seed {record['seed']}: {record['rounds']} rounds, {record['decisions']} decisions; "
            f"{scores}  (* won)")


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else "0"  # a fixed default keeps runs repeatable
    options = {"expansion": args.expansion, "setup_variant": args.setup_variant}
    for i in range(args.games):
        try:
            record = play_one(GAMES[args.game], args.players, options, f"{seed}/{i}")
        except IllegalAction as e:  # a table the engine refuses, e.g. an option it does not know
            print(f"governor selfplay: {e.message}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps(record, sort_keys=True, separators=(",", ":")))
        else:
            print(summary(record))
    return 0
