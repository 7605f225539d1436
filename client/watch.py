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
import asyncio
import sys
from pathlib import Path

from . import net
from .errors import ClientError
from .join import _open, add_connection_arguments, renderer_for
from .render import seats_line, use_colour
from .session import default_data_dir, save_record
from .table import Table

HELP = "watch a table being played"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", help="the server, e.g. ws://192.168.1.20:8765")
    p.add_argument("table", help="the table id (see `governor join URL` for the list)")
    add_connection_arguments(p)
    p.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                   help="where the public record is saved (default $GOVERNOR_DATA, else ~/.local/share/governor/client)")


class Watcher(net.Player):
    """Prints the board whenever a decision is made, and the log as it happens."""

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour
        self.screen = None
        self.status_line = ""
        self.shown_to_act = None

    def connection(self, state: str, detail: str = "") -> None:
        print(f"[{state}{': ' + detail if detail and state != 'connected' else ''}]", flush=True)

    def update(self, table: Table, happened: list[tuple]) -> None:
        v = table.view
        if v is not None and self.screen is None:
            self.screen = renderer_for(v, self.colour)
        redraw = False
        for kind, data in happened:
            if kind == "events":
                for e in data:
                    print(f"  {e['text']}")
            elif kind == "view":
                redraw = True
            elif kind == "status":
                line = seats_line(data)
                if line and line != self.status_line:
                    self.status_line = line
                    print(f"[{line}]")
            elif kind == "error":
                print(f"[server: {data[1]}]")
        if redraw and v is not None and not v.get("over"):
            to_act = tuple(v.get("to_act", ()))
            if to_act != self.shown_to_act:
                self.shown_to_act = to_act
                print()
                print(self.screen.view(v))
                names = [p["name"] for p in v["players"]]
                if to_act:
                    print(self.screen.paint(f"Waiting for {', '.join(names[s] for s in to_act)}…", "dim"))
        sys.stdout.flush()


async def watch_table(link: net.Link, table: str, data_dir: Path, *, colour: bool = False,
                      patience: float = net.PATIENCE) -> int:
    watcher = Watcher(colour)
    print(f"Watching table {table} (Ctrl-C to leave).", flush=True)
    try:
        t = await net.Spectator(link.url, table, watcher, link=link, patience=patience).run()
    except net.ServerRefused as e:
        print(f"Cannot watch table {table}: {e}")
        return 1
    if t.header is None:
        print("The table was closed before its match began.")
        return 0
    v = t.view or {}
    if v.get("result") and watcher.screen:
        print()
        print(watcher.screen.board(v), watcher.screen.cities(v), sep="\n\n")
        print()
        print(watcher.screen.result(v["result"], [p["name"] for p in v["players"]]))
    elif t.status == "cancelled":
        print("The match was cancelled.")
    print("The match is over.")
    report = t.exchange.report
    print()
    print(report.text())
    path = save_record(data_dir, t.exchange.record, t.header["game_id"], "public")
    print(f"Public match record saved: {path}")
    return 0 if report.ok else 1


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        link = await _open(args.url, cafile=args.cafile)
        return await watch_table(link, args.table, args.data_dir or default_data_dir(),
                                 colour=use_colour(sys.stdout), patience=args.patience)

    try:
        return asyncio.run(main())
    except ClientError as e:
        print(f"governor watch: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nYou stopped watching.")
        return 0
