"""The heuristic bot of `governor play`, on the full screen, against `governor selfplay`'s.

    python bench/fullscreen_bots.py [--game ID] [--games 10] [--seed S] [--size 120x40]

Plays N whole games of the installed `governor play --players 3 --bots heuristic,random` in a
pseudo-terminal (tests/client/real_terminal.py), the person's seat answered by a driver that
picks at random among the options in sight; each game's record is audited with `governor verify
--json`, which says who won. Then `governor selfplay` plays the same lineup (random, heuristic,
random, in the same seats) for N games from the seed S. It prints how often the heuristic bot
won in each, with 95% Wilson intervals: the same within the intervals means the computer
players of a full-screen game think as well as they do in selfplay (a bot falling back to
random moves there would win about a third). A win shared by k tied players counts 1/k. The deals of
`governor play` are fair, not seeded: the two series are not the same deals, only as many.
Each played game also says how many bot worker processes ran under `governor` and whether the
screen ever told of a bot that failed. The last line printed is one JSON object.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path

from common import add_game_arguments  # first: it puts the project on sys.path
from tournament import wilson

from tests.client.real_terminal import GOVERNOR, RealTerminal, any_option, play_args, play_to_the_end

LINEUP = ("random", "heuristic", "random")     # seat 1 is the person's: the random driver
HEURISTIC = LINEUP.index("heuristic")
FAILED = ("failed", "random move")           # the table's words for a bot that could not decide


def _size(text: str) -> tuple[int, int]:
    cols, _, rows = text.partition("x")
    if not (cols.isdigit() and rows.isdigit() and int(cols) >= 80 and int(rows) >= 24):
        raise argparse.ArgumentTypeError(f"{text!r} is not a terminal size COLSxROWS of at least 80x24")
    return int(cols), int(rows)


def share(winners: list[int], seat: int) -> float:
    return 1 / len(winners) if seat in winners else 0.0


def play_one(game: str, i: int, seed: str, size: tuple[int, int], home: Path) -> dict:
    """One full-screen game to its end; who won, from its audited record."""
    start = time.monotonic()
    with RealTerminal(play_args("--game", game, "--players", str(len(LINEUP)),
                                "--bots", ",".join(LINEUP[1:])), home, *size) as term:
        played = play_to_the_end(term, any_option(random.Random(f"{seed}/{i}")), limit=1800)
        term.enter()
        term.wait_exit()
    records = sorted((home / "client" / "records").glob("*.govrec"))
    audit = subprocess.run([str(GOVERNOR), "verify", "--json", str(records[-1])], capture_output=True,
                           text=True, check=False)
    report = json.loads(audit.stdout)
    return {"winners": report["winners"], "scores": report["scores"], "verified": report["ok"],
            "questions": played.questions, "workers": played.workers,
            "bot_failures_shown": sorted(line.strip() for line in played.seen if any(w in line for w in FAILED)),
            "seconds": round(time.monotonic() - start, 1)}


def selfplay(game: str, games: int, seed: str) -> list[dict]:
    done = subprocess.run([str(GOVERNOR), "selfplay", "--game", game, "--bots", ",".join(LINEUP),
                           "--games", str(games), "--seed", seed, "--json"],
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def rate(games: list[dict]) -> dict:
    wins = sum(share(g["winners"], HEURISTIC) for g in games)
    low, high = wilson(wins, len(games))
    return {"games": len(games), "wins": round(wins, 2), "rate": round(wins / len(games), 3),
            "low": round(low, 3), "high": round(high, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--games", type=int, default=10, help="games of each kind (default 10)")
    ap.add_argument("--seed", default="0", help="seeds selfplay and the random driver (default 0)")
    ap.add_argument("--size", type=_size, default=(120, 40), metavar="COLSxROWS",
                    help="the terminal's size (default 120x40)")
    args = ap.parse_args()
    if args.option:
        ap.error("--option: `governor play` here plays the default table")

    played = []
    with tempfile.TemporaryDirectory(prefix="fullscreen-bots-") as tmp:
        for i in range(args.games):
            g = play_one(args.game, i, args.seed, args.size, Path(tmp) / f"game-{i}")
            played.append(g)
            print(f"play {i}: {g['questions']} questions, {g['seconds']} s; scores "
                  f"{g['scores']}, winners {g['winners']}; "
                  f"{'verified' if g['verified'] else 'NOT VERIFIED'}; {g['workers']} bot workers; "
                  f"{len(g['bot_failures_shown'])} bot failures shown", flush=True)
    selfplayed = selfplay(args.game, args.games, args.seed)
    on_screen, alone = rate(played), rate(selfplayed)
    for name, r in (("governor play (full screen)", on_screen), ("governor selfplay", alone)):
        print(f"{name:28} heuristic won {r['wins']:g} of {r['games']}: {r['rate']:.1%} "
              f"[{r['low']:.1%}, {r['high']:.1%}]")
    print(json.dumps({"game": args.game, "lineup": list(LINEUP), "seed": args.seed, "size": list(args.size),
                      "play": on_screen, "selfplay": alone,
                      "verified": all(g["verified"] for g in played),
                      "bot_failures_shown": sum(len(g["bot_failures_shown"]) for g in played),
                      "fewest_workers": min((g["workers"] for g in played), default=0)}))


if __name__ == "__main__":
    main()
