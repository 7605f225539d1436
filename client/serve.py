"""`governor serve`: run a Governor server for others to join.

Prints the server key's fingerprint (players compare it with the one their client shows) and the
address it listens on (wss:// with --cert, the way to serve players on a network you do not own).
A server other machines can reach announces itself on the local network (multicast DNS; not
with --no-announce), so that `governor join` with no address finds it. It runs until Ctrl-C or
SIGTERM, when it closes every connection cleanly.
Tables, seats and every accepted move are kept in the data directory; a restarted server rebuilds
every unfinished match and its players reconnect, claim their seats with their keys and carry on.

Every setting below can be kept in a config file (TOML, --config FILE); a flag given here wins
over the file. docs/hosting.md shows a file with every key.
"""
from __future__ import annotations

import argparse
import sys

from server.settings import SETTINGS, Setting, SettingsError, from_text, limit_from_text, read_file, resolve


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="read the settings from this TOML file; flags override it")
    # Flags left out are left out of args (SUPPRESS): only those given override the file.
    for s in SETTINGS:
        flag = "--" + s.name.replace("_", "-")
        if s.kind is bool:      # a switch: --announce and --no-announce
            p.add_argument(flag, dest=s.name, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                           help=s.help + (" (default: on)" if s.default else " (default: off)"))
            continue
        default = "" if s.default is None else f" (default {s.default:g})" if isinstance(s.default, float) \
            else f" (default {s.default})"
        p.add_argument(flag, dest=s.name, type=_reader(s), default=argparse.SUPPRESS,
                       metavar=s.metavar, help=s.help + default)
    p.add_argument("--limit", action="append", type=_limit, default=argparse.SUPPRESS, metavar="NAME=VALUE",
                   help="change a limit, e.g. rate=40 or max_tables=500 (repeatable; see docs/hosting.md)")


def _reader(setting: Setting):
    def read(text: str):
        try:
            return from_text(setting, text)
        except SettingsError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return read


def _limit(text: str) -> tuple[str, float | int]:
    try:
        return limit_from_text(text)
    except SettingsError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def settings_of(args: argparse.Namespace) -> dict:
    """The defaults, then the config file's settings, then the flags given (raises SettingsError)."""
    file = read_file(args.config) if args.config else {}
    flags = {s.name: getattr(args, s.name) for s in SETTINGS if hasattr(args, s.name)}
    if hasattr(args, "limit"):
        flags["limits"] = dict(args.limit)
    return resolve(file, flags)


def run(args: argparse.Namespace) -> int:
    try:
        settings = settings_of(args)
    except SettingsError as e:
        print(f"governor serve: {e}", file=sys.stderr)
        return 2
    if settings["key"] and not settings["cert"]:
        print("governor serve: --key goes with --cert (the certificate it belongs to).", file=sys.stderr)
        return 2
    from server.app import main  # the server's public entry point
    return main(settings)
