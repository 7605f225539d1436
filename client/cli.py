"""The `governor` command: one subcommand per job (COMMANDS), each a module of this package with
add_arguments(parser) and run(args) -> exit code, its docstring the subcommand's description.
A command imports its own module only, when it runs: `governor --version`, `records` and `verify`
start without the full screen, the server or the network discovery (bench/startup.py)."""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from .hints import program, spelled

# Each subcommand's module (client/<name>.py) and its line in `governor --help`, kept here so that
# listing the commands imports none of them.
COMMANDS = {
    "play": "play against bots (and friends on your network) in this terminal",
    "join": "play at a table of a Governor server (or run a headless bot seat)",
    "watch": "watch a table being played",
    "records": "list your saved match records: date, game, players, scores, winner, verdict",
    "replay": "step through a finished match, move by move, forward and back",
    "verify": "audit a saved match record: deal, moves and scores",
    "ratings": "audit a folder of records (or a server's) and rate the players of rated matches",
    "serve": "run a server others can join over the network",
    "admin": "list the seats of a server's tables or close one, with its operator key",
    "whoami": "print your player key's fingerprint: who you are to servers and in records",
    "selfplay": "let bots play each other and print the results",
}
# Subcommands that set up a table share these arguments, with the same meaning and checks.
TABLE_COMMANDS = ("play", "selfplay")


def _seed(text: str) -> str:
    if not text or len(text) > 200 or not text.isprintable():
        raise argparse.ArgumentTypeError("a seed is 1 to 200 printable characters")
    return text


def _table_arguments(p: argparse.ArgumentParser) -> None:
    from .table_options import add_table_arguments      # the games and bots: only for a table
    add_table_arguments(p)
    p.add_argument("--seed", type=_seed, help="replay a deal: the same seed deals the same game")


def version() -> str:
    """The installed package's version (pyproject.toml), or say it is not installed."""
    import importlib.metadata       # read only when asked: it is slow to import
    try:
        return importlib.metadata.version("governor")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: run from the source folder)"


class _Version(argparse.Action):
    """--version: the version looked up when asked for, not each time the parser is built."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"governor {version()}")
        parser.exit()


def command_module(name: str):
    """The module that runs the subcommand `name` (a key of COMMANDS)."""
    return importlib.import_module(f"{__package__}.{name}")


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """`governor`'s parser, every subcommand's arguments in it; with `only`, that subcommand's
    alone (the others are listed, their modules not imported)."""
    top = argparse.ArgumentParser(prog=program(), description="Card and board games in the terminal, alone or over a network, "
                                  "with dealing anyone can audit.")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True, metavar="command")
    for name, help_line in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_line)
            continue
        module = command_module(name)
        p = sub.add_parser(name, help=help_line, description=spelled(module.__doc__, COMMANDS),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if name in TABLE_COMMANDS:
            _table_arguments(p)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # The top level takes no option with a value: the first word not an option names the command.
    named = next((word for word in argv if not word.startswith("-")), None)
    args = parser(named if named is not None else "").parse_args(argv)
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
