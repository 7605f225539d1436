"""`governor watch ws://HOST:PORT TABLE`: follow a table as a spectator.

You see the public view — every city, the roles, the supply, how many cards each player holds,
never a card in anybody's hand — and the public game log, until the match ends (Ctrl-C leaves).
Spectators take no part in the fair-dealing exchange, but they are sent its signed public log:
at the end the client audits the match (the deal, every move and the scores; the hands only
their players can check), prints the verdict and saves the public record. Exit status 0 when
the match ended and the audit passed.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import fullscreen
from .errors import ClientError
from .hints import command
from .interrupt import run_interruptibly
from .link import add_connection_arguments, open_link
from .render import use_colour
from .session import default_data_dir, server_address
from .spectator import watch_table


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", type=server_address, help="the server, e.g. ws://192.168.1.20:8765")
    p.add_argument("table", help=f"the table id (see `{command('join', 'URL')}` for the list)")
    add_connection_arguments(p)
    p.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                   help="where the public record is saved (default $GOVERNOR_DATA, else ~/.local/share/governor/client)")
    fullscreen.add_plain_argument(p)


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        link = await open_link(args.url, cafile=args.cafile)
        if fullscreen.wanted(args.plain):
            return await fullscreen.watch_table(link, args.table, args.data_dir or default_data_dir(),
                                                patience=args.patience)
        return await watch_table(link, args.table, args.data_dir or default_data_dir(),
                                 colour=use_colour(sys.stdout), patience=args.patience)

    try:
        return run_interruptibly(main())
    except ClientError as e:
        print(f"governor watch: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nYou stopped watching.")
        return 0
