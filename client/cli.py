"""The `governor` command: one subcommand per job (COMMANDS), each a module with HELP,
add_arguments(parser) and run(args) -> exit code."""
from __future__ import annotations

import argparse
import importlib.metadata
import os
import signal
import sys
import threading

from . import admin, join, play, records, replay, selfplay, serve, verify, watch
from .hints import program, spelled
from .table_options import add_table_arguments

COMMANDS = {"play": play, "join": join, "watch": watch, "records": records, "replay": replay,
            "verify": verify, "serve": serve, "admin": admin, "selfplay": selfplay}
# Subcommands that set up a table share these arguments, with the same meaning and checks.
TABLE_COMMANDS = ("play", "selfplay")


def _seed(text: str) -> str:
    if not text or len(text) > 200 or not text.isprintable():
        raise argparse.ArgumentTypeError("a seed is 1 to 200 printable characters")
    return text


def _table_arguments(p: argparse.ArgumentParser) -> None:
    add_table_arguments(p)
    p.add_argument("--seed", type=_seed, help="replay a deal: the same seed deals the same cards")


def version() -> str:
    """The installed package's version (pyproject.toml), or say it is not installed."""
    try:
        return importlib.metadata.version("governor")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: run from the source folder)"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog=program(), description="Seyfarth's role-selection games in the terminal, with dealing anyone can audit.")
    top.add_argument("--version", action="version", version=f"governor {version()}")
    sub = top.add_subparsers(dest="command", required=True, metavar="command")
    for name, module in COMMANDS.items():
        p = sub.add_parser(name, help=module.HELP, description=spelled(module.__doc__, COMMANDS),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if name in TABLE_COMMANDS:
            _table_arguments(p)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        code = args.run(args)
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        # The reader went away (e.g. `governor selfplay | head`): stop quietly, not with a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    if code == 130 and threading.current_thread() is threading.main_thread():
        # Interrupted: all that is left is the interpreter's own shutdown (joining the threads
        # of a pool of bot workers). A Ctrl-C still on its way, or a second one, must not turn
        # it into a traceback: Python runs a signal's handler when it gets round to it, and
        # by then it may be the default one that raises KeyboardInterrupt anywhere.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code
