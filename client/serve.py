"""`governor serve`: run a Governor server for others to join.

Prints the server key's fingerprint (players compare it with the one their client shows) and the
address it listens on (wss:// with --cert, the way to serve players on a network you do not own).
A server other machines can reach announces itself on the local network (multicast DNS; not
with --no-announce), so that `governor join` with no address finds it. It runs until Ctrl-C or
SIGTERM, when it closes every connection cleanly.
Tables, seats and every accepted move are kept in the data directory; a restarted server rebuilds
every unfinished match and its players reconnect with their seat tokens and carry on.
"""
from __future__ import annotations

import argparse
import sys

HELP = "run a server others can join over the network"


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0: any free port), not {text!r}")
    return port


def _grace(text: str) -> float:
    try:
        grace = float(text)
    except ValueError:
        grace = -1.0
    if not 0 <= grace <= 86400:
        raise argparse.ArgumentTypeError(f"the grace period is 0 to 86400 seconds, not {text!r}")
    return grace


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=_port, default=8765, help="port to listen on (default 8765; 0: any free port)")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help="where the server key and the database live (default $GOVERNOR_DATA, "
                        "else ~/.local/share/governor/server)")
    p.add_argument("--grace", type=_grace, default=60.0, metavar="SECONDS",
                   help="how long a disconnected player's seat waits before a bot plays it (default 60)")
    p.add_argument("--cert", metavar="FILE",
                   help="serve TLS (wss://) with this PEM certificate chain; the key may be in the same file")
    p.add_argument("--key", metavar="FILE", help="the certificate's private key, if it is in a file of its own")
    p.add_argument("--no-announce", action="store_true",
                   help="do not announce the server on the local network (by default a server "
                        "other machines can reach is, so that `governor join` finds it)")
    p.add_argument("--limit", action="append", default=[], type=_limit, metavar="NAME=VALUE",
                   help="change a limit, e.g. rate=40 or max_tables=500 (repeatable; see docs/hosting.md)")


def _limit(text: str) -> tuple[str, float]:
    from server.app import Limits
    name, _, value = text.partition("=")
    fields = {f.name: f.type for f in Limits.__dataclass_fields__.values()}
    if name not in fields:
        raise argparse.ArgumentTypeError(f"no limit {name!r}; there is: {', '.join(fields)}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the limit {name} needs a number, not {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"the limit {name} cannot be negative")
    return name, int(number) if "int" in str(fields[name]) and "float" not in str(fields[name]) else number


def run(args: argparse.Namespace) -> int:
    if args.key and not args.cert:
        print("governor serve: --key goes with --cert (the certificate it belongs to).", file=sys.stderr)
        return 2
    from server.app import main  # the server's public entry point
    return main(args)
