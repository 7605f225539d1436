"""`governor play`: a game against computer players (and friends on your network), in this
terminal.

    governor play                                   San Juan against 3 computer players
    governor play --bots heuristic,ismcts            you and these two
    governor play --game puertorico --bots 2 --level random

Your game is kept as you play: leave it (q, Ctrl-C, or closing the terminal) and the next
`governor play` offers to resume it. Every player's computer adds its own secret to the
shuffle, so nobody, not even the server, can choose the cards; at the end your copy of the game
checks that the deal was fair, and saves the match record (`governor records` lists them).
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
from .answers import number_in
from .errors import ClientError
from .interrupt import run_interruptibly
from .link import PACE_RATE, open_link
from .hints import command
from .lobby import player_name, sit, table_id
from .render import describe_table, plural, use_colour
from .session import SeatSession, default_data_dir, server_folder
from .table_options import add_bot_arguments, chosen_table, computer_levels
from .terminal import AutoAnswers, Keyboard, Terminal, ask_once, play_seat

DEFAULT_PORT = 8765
LAN_RATE = 200.0


def _port(text: str) -> int:
    n = number_in(text, 0, 65535)
    if n is None:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a port number")
    return n


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="Player", type=player_name, help="your name at the table (default: Player)")
    add_bot_arguments(p, "how many computer players (default: every other seat; fewer leaves seats "
                         "for friends)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address the server listens on (default 127.0.0.1, this machine only; "
                        "0.0.0.0 lets other machines join)")
    p.add_argument("--port", type=_port, default=None,
                   help=f"port of the server (default {DEFAULT_PORT}, or a free one if it is taken)")
    p.add_argument("--data-dir", type=Path, default=None, metavar="FOLDER",
                   help="where your games in progress and match records are kept (default "
                        "$GOVERNOR_DATA or ~/.local/share/governor/client)")
    p.add_argument("--server-data", type=Path, default=None, metavar="FOLDER",
                   help="keep the game server's data in this folder (default: `server` in the "
                        "data folder)")
    p.add_argument("--new", action="store_true", help="start a new game without offering to resume one")
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
    if isinstance(args.bots, tuple) and args.players is None:
        args.players = len(args.bots) + 1      # a list of opponents is the whole table
    try:
        args.engine, args.players, args.options = chosen_table(args)
        args.levels = computer_levels(args.bots, args.level, args.engine.INFO.id, args.players,
                                      args.players - 1)
    except IllegalAction as e:
        print(f"governor play: {e.message}", file=sys.stderr)
        return 2
    args.bots = len(args.levels)
    args.data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    try:
        return run_interruptibly(_play(args))
    except ClientError as e:
        print(f"governor play: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"governor play: cannot start the server: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nInterrupted: your game is saved; {command('play')} offers to resume it.", file=sys.stderr)
        return 130


async def _start_server(folder: str, args):
    from server.app import Server   # the server's public entry point (docs/development.md)
    ports = [args.port] if args.port is not None else [DEFAULT_PORT, 0]
    # What friends on the network hear it as (announced only when they can reach it).
    announce = f"{args.name}'s {args.engine.INFO.title}"
    for i, p in enumerate(ports):
        # A LAN party's server: people do not flood, so the rate limit can be generous; and
        # nobody is rushed (no clock): whoever holds the table up is in the same room.
        server = Server(folder, args.host, p, rate=LAN_RATE, burst=2 * int(LAN_RATE), turn_time=0,
                        announce=announce)
        try:
            return server, await server.start()
        except OSError:
            await server.stop()     # releases its hold on the data directory
            if i == len(ports) - 1:
                raise


async def _play(args) -> int:
    folder = Path(args.server_data) if args.server_data else args.data_dir / "server"
    try:
        server, port = await _start_server(str(folder), args)
    except RuntimeError as e:
        if "another server is running" not in str(e):    # only the folder's lock is expected here
            raise
        print(f"Another {command('play')} is running with the data folder {args.data_dir}: this game "
              "is kept in a temporary folder and cannot be resumed.", file=sys.stderr)
        with server_folder(None) as tmp:
            server, port = await _start_server(str(tmp), args)
            return await _at_table(args, server, port, resumable=False)
    return await _at_table(args, server, port, resumable=True)


async def _at_table(args, server, port: int, resumable: bool) -> int:
    try:
        local = "127.0.0.1" if args.host in ("0.0.0.0", "", "::") else args.host
        url = f"ws://{local}:{port}"
        link = await open_link(url, rate=0 if args.auto else PACE_RATE)
        keyboard = Keyboard()
        player = Terminal(url, keyboard, auto=_auto(args), colour=use_colour(sys.stdout))
        resume = command("play", *_resume_flags(args)) if resumable else None
        try:
            session = None if args.new or not resumable else \
                await offer_resume(link, args.data_dir, server)
            if session is not None:
                await link.close()
                return await _seat(args, player, session, None, resume)
            table = await link.create(args.engine.INFO.id, args.players, args.bots, args.options,
                                      levels=args.levels)
            session = await sit(link, table, args.name, args.data_dir)
        except EOFError:
            await link.close()
            print("\nInput closed.")
            return 0
        except BaseException:
            await link.close()
            raise
        _tell_others(args, port, table, server)
        print(f"You are seat {session.seat + 1} at table {table}, as {session.name}, against "
              f"{', '.join(args.levels) or 'nobody yet'}.")
        return await _seat(args, player, session, link, resume)
    finally:
        await server.stop()


async def _seat(args, player: Terminal, session: SeatSession, link, resume: str | None) -> int:
    """The seat played to its end: on the full screen on a terminal, else in plain lines."""
    if not args.auto and fullscreen.wanted(args.plain):
        return await fullscreen.play_seat(player.url, session=session, link=link,
                                          resumable=bool(resume), resume=resume)
    return await play_seat(player, session=session, link=link, intro=False, resume=resume or "")


def _auto(args) -> AutoAnswers | None:
    if not args.auto:
        return None
    seed = args.seed if args.seed is not None else secrets.token_hex(8)
    return AutoAnswers(bots.make(args.engine.INFO.id, "random", f"{seed}/auto"))


def _resume_flags(args) -> list[str]:
    """The flags that find this game again: where it is kept, when not the default place."""
    flags = []
    if args.data_dir != default_data_dir():
        flags += ["--data-dir", str(args.data_dir)]
    if args.server_data:
        flags += ["--server-data", str(args.server_data)]
    return flags


def _tell_others(args, port: int, table: str, server) -> None:
    public = lan_address() if args.host in ("0.0.0.0", "", "::") else args.host
    free = args.players - 1 - args.bots
    if free:
        print(f"Friends can join with: {command('join', f'ws://{public}:{port}', '--table', table)}")
        if server.announcement is not None:
            print(f"  or with {command('join')} alone, which finds {server.announcement.name!r} on this network")
        if args.host in ("127.0.0.1", "localhost", "::1"):
            print("  (the server listens on this machine only: start with --host 0.0.0.0 "
                  "so other machines can join)")
        elif server.announcement is None:
            print(f"  (not announced on the local network: {server.not_announced})")
        print(f"The game starts when {plural(free, 'more player')} "
              f"{'has' if free == 1 else 'have'} joined.")
    else:
        print(f"Others can watch with: {command('watch', f'ws://{public}:{port}', table)}")


async def offer_resume(link, data_dir: Path, server) -> SeatSession | None:
    """The seat of an unfinished game of this server (the one kept in the data folder), if the
    player wants to resume it; its address is brought up to date (the port may have changed)."""
    key = link.welcome["key"]
    saved = [s for s in SeatSession.unfinished(data_dir)
             if s.server_key == key and s.table in server.tables]
    if not saved:
        return None
    listed = {table_id(t): t for t in await link.tables()}
    for s in saved:
        what = describe_table(listed[s.table]) if s.table in listed else f"table {s.table}"
        print(f"You have an unfinished game: {what}; you are seat {s.seat + 1}, {s.name}.")
        answer = (await ask_once("Resume it? [Y/n] ")).strip().lower()
        if answer in ("", "y", "yes"):
            return s.moved_to(link.url)
    return None
