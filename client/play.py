"""`governor play`: the one-command game. It starts a Governor server inside this process, creates
a table with you and computer players, and plays your seat through the same network client as
`governor join` (over the loopback socket), so friends on the network can take the free seats.

The deal is fair (FAIRNESS.md): every seat's client, yours included, adds its own secret seed, so
no flag can choose the cards. At the end your client audits the match by itself, prints the
verdict and where the match record was saved.
"""
from __future__ import annotations

import argparse
import secrets
import socket
import sys
from pathlib import Path

import bots
from games.errors import IllegalAction

from . import fullscreen
from .errors import ClientError
from .interrupt import run_interruptibly
from .link import PACE_RATE, open_link
from .lobby import player_name, sit
from .render import plural, use_colour
from .session import default_data_dir, server_folder
from .table_options import chosen_table
from .terminal import AutoAnswers, Keyboard, Terminal, play_seat

HELP = "play against bots (and friends on your network) in this terminal"
DEFAULT_PORT = 8765
LAN_RATE = 200.0


def _bots(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 2:
        raise argparse.ArgumentTypeError(f"--bots is a number of computer players, not {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number")
    return int(text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="Player", type=player_name, help="your name at the table (default: Player)")
    p.add_argument("--bots", type=_bots, default=None,
                   help="computer players (default: every other seat); fewer leaves seats for friends")
    p.add_argument("--host", default="127.0.0.1",
                   help="address the server listens on (default 127.0.0.1, this machine only; "
                        "0.0.0.0 lets other machines join)")
    p.add_argument("--port", type=_port, default=None,
                   help=f"port of the server (default {DEFAULT_PORT}, or a free one if it is taken)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where your match records are saved (default $GOVERNOR_DATA or "
                        "~/.local/share/governor/client)")
    p.add_argument("--server-data", type=Path, default=None,
                   help="keep the server's data (its key, its tables) in this folder "
                        "(default: a temporary folder removed at the end)")
    fullscreen.add_plain_argument(p)
    # Lets a bot answer for you through the same input path: for tests and demos.
    p.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)
    for action in p._actions:
        if action.dest == "seed":
            # The deal is fair now: no seed can choose it. The flag only seeds --auto's answers.
            action.help = argparse.SUPPRESS


def lan_address() -> str:
    """This machine's address on the local network, as friends would dial it."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))      # no packet is sent: this only picks the route
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


def run(args: argparse.Namespace) -> int:
    try:
        args.engine, args.players, args.options = chosen_table(args)
    except IllegalAction as e:
        print(f"governor play: {e.message}", file=sys.stderr)
        return 2
    bots_ = args.players - 1 if args.bots is None else args.bots
    if bots_ > args.players - 1:
        print(f"governor play: --bots {bots_} leaves no seat for you at a table of {args.players}.",
              file=sys.stderr)
        return 2
    args.bots = bots_
    args.data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    try:
        return run_interruptibly(_play(args))
    except ClientError as e:
        print(f"governor play: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"governor play: cannot start the server: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted: the game is abandoned.", file=sys.stderr)
        return 130


async def _start_server(folder: str, host: str, port: int | None):
    from server.app import Server   # the server's public entry point (DESIGN.md §1)
    ports = [port] if port is not None else [DEFAULT_PORT, 0]
    for i, p in enumerate(ports):
        # A LAN party's server: people do not flood, so the rate limit can be generous; and
        # nobody is rushed (no clock): whoever holds the table up is in the same room.
        server = Server(folder, host, p, rate=LAN_RATE, burst=2 * int(LAN_RATE), turn_time=0)
        try:
            return server, await server.start()
        except OSError:
            await server.stop()     # releases its hold on the data directory
            if i == len(ports) - 1:
                raise


async def _play(args) -> int:
    with server_folder(args.server_data) as folder:
        server, port = await _start_server(str(folder), args.host, args.port)
        try:
            local = "127.0.0.1" if args.host in ("0.0.0.0", "", "::") else args.host
            url = f"ws://{local}:{port}"
            link = await open_link(url, rate=0 if args.auto else PACE_RATE)
            try:
                table = await link.create(args.engine.INFO.id, args.players, args.bots, args.options)
                session = await sit(link, table, args.name, args.data_dir)
            except BaseException:
                await link.close()
                raise
            public = lan_address() if args.host in ("0.0.0.0", "", "::") else args.host
            free = args.players - 1 - args.bots
            if free:
                print(f"Friends can join with: governor join ws://{public}:{port} --table {table}")
                if args.host in ("127.0.0.1", "localhost", "::1"):
                    print("  (the server listens on this machine only: start with --host 0.0.0.0 "
                          "so other machines can join)")
                print(f"The game starts when {plural(free, 'more player')} "
                      f"{'has' if free == 1 else 'have'} joined.")
            else:
                print(f"Others can watch with: governor watch ws://{public}:{port} {table}")
            if not args.auto and fullscreen.wanted(args.plain):
                return await fullscreen.play_seat(url, session=session, link=link, resumable=False)
            auto = None
            if args.auto:
                seed = args.seed if args.seed is not None else secrets.token_hex(8)
                auto = AutoAnswers(bots.make(args.engine.INFO.id, "random", f"{seed}/auto"))
            player = Terminal(url, Keyboard(), auto=auto, colour=use_colour(sys.stdout))
            print(f"You are seat {session.seat + 1} at table {table}, as {session.name}.")
            return await play_seat(player, session=session, link=link, intro=False, resumable=False)
        finally:
            await server.stop()
