"""What the benchmarks share: which game and table options to measure, from the command line.

    --game ID            a registered game (default: the first one)
    --option NAME=VALUE  a table option (repeatable); without any, each benchmark measures the
                         defaults and the table with every switch on
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games  # noqa: E402
from games.errors import IllegalAction  # noqa: E402


def add_game_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--game", choices=sorted(games.GAMES), default=next(iter(games.GAMES)))
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a table option, e.g. --option setup_variant=true (repeatable)")


def _value(text: str):
    low = text.lower()
    if low in ("true", "false", "yes", "no", "on", "off"):
        return low in ("true", "yes", "on")
    return int(text) if text.lstrip("-").isdigit() else text


def engine_and_options(ap: argparse.ArgumentParser, args) -> tuple[object, list[dict]]:
    """The game's module and the option sets to measure (each with every default filled in)."""
    engine = games.get(args.game)
    info = engine.INFO
    try:
        if args.option:
            given = dict((name, _value(value)) for name, _, value in (o.partition("=") for o in args.option))
            return engine, [info.check_options(given)]
    except IllegalAction as e:
        ap.error(e.message)
    return engine, info.variants()


def describe(engine, options: dict) -> str:
    """The options that differ from the defaults, for a line of output."""
    return engine.INFO.describe(options) or "defaults"
