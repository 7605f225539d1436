"""`governor selfplay`: bots play each other, one line per game.

    governor selfplay --bots ismcts,heuristic,heuristic,heuristic --iterations 200 --games 10

`--bots` names one level per seat (or one level for every seat; default: all random), and
implies `--players`. Every game is played through both sides of the fair-dealing exchange
(protocol.harness.play_match): a server that signs, and one PlayerExchange per seat with its own
seed, which audits the match at the end ("verified" in the output). Game i derives its server key,
game id and seeds from the seed f"{S}/{i}", and bot seat k is bots.make(game, level, f"{S}/{i}/{k}",
iterations=N) deciding from its own view only, so the same arguments print the same lines, byte
for byte. `--record-dir DIR` writes each game's full record (every seat's private messages) to
DIR/game-<i>.govrec, which `governor verify` checks. (`--seconds` caps search time instead of
iterations; it makes the games depend on the machine's speed.)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import bots
import games
from games.errors import IllegalAction
from protocol.exchange import ProtocolError
from protocol.harness import play_match

from .answers import number_in
from .session import write_record
from .table_options import chosen_options

BOT_NAMES = ("Ana", "Bo", "Cy", "Di", "Ed")


def _game_count(text: str) -> int:
    n = number_in(text, 1, 1_000_000)
    if n is None:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a number of games from 1 to 1000000")
    return n


def _levels(text: str) -> list[str]:
    levels = text.split(",")
    for lv in levels:
        if lv not in bots.all_levels():
            raise argparse.ArgumentTypeError(f"{lv!r} is not a bot level: there is {', '.join(bots.all_levels())}")
    if len(levels) > max(e.INFO.max_players for e in games.GAMES.values()):
        raise argparse.ArgumentTypeError("name one bot level per seat, or one for every seat")
    return levels


def _iterations(text: str) -> int:
    n = number_in(text, 1, 10_000_000)
    if n is None:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a number of iterations from 1 to 10000000")
    return n


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a number of seconds from 0 to 3600")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bots", type=_levels, metavar="LEVELS",
                   help=f"bot level per seat, comma-separated ({', '.join(bots.all_levels())}); default all random")
    p.add_argument("--iterations", type=_iterations, metavar="N",
                   help=f"search budget per decision (default {bots.ISMCTSBot.default_iterations})")
    p.add_argument("--seconds", type=_seconds, metavar="S",
                   help="cap search time per decision (results then depend on the machine)")
    p.add_argument("--games", type=_game_count, default=1, metavar="K", help="how many games (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object per game and line")
    p.add_argument("--record-dir", type=Path, metavar="DIR",
                   help="write each game's signed match record there (game-<i>.govrec)")


def play_one(game_module, players: int, options: dict, seed: str, levels=None, budget=None,
             record_to: Path | None = None) -> dict:
    """One bots-only match to the end, through the fair-dealing exchange, as printed with --json."""
    names = [BOT_NAMES[i] if i < len(BOT_NAMES) else f"Bot {i + 1}" for i in range(players)]
    levels = list(levels or ["random"] * players)
    game = game_module.INFO.id
    deciders = [bots.make(game, lv, f"{seed}/{seat}", **(budget or {})).choose for seat, lv in enumerate(levels)]
    server, seats = play_match(game, names, options, deciders, seed)
    if record_to is not None:
        write_record(record_to, server.sent)
    r = game_module.result(server.state)
    return {
        "seed": seed,
        "game": game,
        "players": players,
        "bots": levels,
        "options": options,
        "decisions": len(server.moves),
        "scores": [{"name": n, "total": sc["total"], "parts": {k: v for k, v in sc.items() if k != "total"}}
                   for n, sc in zip(names, r["scores"])],
        "tiebreak": r["tiebreak"],
        "winners": r["winners"],
        "verified": all(p.report is not None and p.report.ok for p in seats),
    }


def summary(record: dict) -> str:
    scores = ", ".join(f"{s['name']} {s['total']}{'*' * (i in record['winners'])}"
                       for i, s in enumerate(record["scores"]))
    verdict = "verified" if record["verified"] else "NOT VERIFIED"
    return (f"seed {record['seed']}: {record['decisions']} decisions; "
            f"{scores}  (* won); {verdict}")


def _lineup(args: argparse.Namespace, engine) -> tuple[int, list[str]] | str:
    """Players and one level per seat, or a sentence saying why the arguments disagree."""
    levels = args.bots or ["random"]
    players = args.players or (len(levels) if len(levels) > 1 else engine.INFO.default_players)
    if len(levels) == 1:
        levels = levels * players
    if len(levels) != players:
        return f"--bots names {len(levels)} levels for {players} players; name one per seat"
    return players, levels


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else "0"  # a fixed default keeps runs repeatable
    engine = games.get(args.game)
    lineup = _lineup(args, engine)
    if isinstance(lineup, str):
        print(f"governor selfplay: {lineup}", file=sys.stderr)
        return 2
    players, levels = lineup
    try:
        engine.INFO.check_players(players)
        options = chosen_options(args, engine)
        for level in set(levels):
            bots.make(engine.INFO.id, level)     # a level this game has
    except IllegalAction as e:
        print(f"governor selfplay: {e.message}", file=sys.stderr)
        return 2
    budget = {k: v for k, v in (("iterations", args.iterations), ("seconds", args.seconds)) if v is not None}
    for i in range(args.games):
        record_to = args.record_dir / f"game-{i}.govrec" if args.record_dir else None
        try:
            record = play_one(engine, players, options, f"{seed}/{i}", levels, budget, record_to)
        except (IllegalAction, ProtocolError) as e:  # a table refused, e.g. an unknown option
            print(f"governor selfplay: {e.message}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"governor selfplay: cannot write the record: {e}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps(record, sort_keys=True, separators=(",", ":")))
        else:
            print(summary(record))
    return 0
