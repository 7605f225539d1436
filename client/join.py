"""`governor join ws://HOST:PORT`: play at a table of a Governor server.

With no address, it listens for a moment for servers announcing themselves on the local network
(`governor serve`, `governor play --host 0.0.0.0`), lists them and lets you pick one.

Interactive: a lobby (the tables, create one, sit with a name, or watch one; on the full screen
when input and output are a terminal, in plain lines otherwise), then the game on this screen —
board, cities, your hand, the log, the question with numbered options — with the
connection's state and who is connected. A dropped connection is retried by itself; a client
that was closed mid-game resumes its seat when started again with `--table ID` (the seat is
saved in the data directory).

Headless, for scripts and tests: `--bot LEVEL --no-input --json` lets a computer player decide
for this seat from its own view. With `--create` the table id is printed alone on the first line;
at the end one JSON object with the scores, the winners, the audit's verdict and the saved record.
Exit 0 only when the match finished and the audit verified it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import bots
import games
from games.errors import IllegalAction

from . import fullscreen
from .discover import LISTEN_SECONDS, Found, choose_server, joined, today
from .errors import ClientError
from .headless import play_headless
from .interrupt import run_interruptibly
from .link import ServerRefused, add_connection_arguments, open_link
from .lobby import ask_name, lobby, player_name, sit
from .render import use_colour
from .session import SeatSession, default_data_dir, keep_announced, normalize_url, read_announced, server_address
from .spectator import watch_table
from .answers import number_in
from .hints import command
from .table_options import (add_bot_arguments, add_dealing_arguments, add_option_arguments, chosen_options,
                            computer_levels)
from .terminal import Keyboard, Terminal, play_seat


def _count(lo: int, hi: int, what: str):
    def check(text: str) -> int:
        n = number_in(text, lo, hi)
        if n is None:
            raise argparse.ArgumentTypeError(f"{what} is a number from {lo} to {hi}, not {text[:20]!r}")
        return n
    return check


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.1 <= seconds <= 60:
        raise argparse.ArgumentTypeError(f"--listen is 0.1 to 60 seconds, not {text[:20]!r}")
    return seconds


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", nargs="?", type=server_address,
                   help="the server, e.g. ws://192.168.1.20:8765 (none: pick one heard on the local network)")
    p.add_argument("--listen", type=_seconds, default=LISTEN_SECONDS, metavar="SECONDS",
                   help=f"with no address, how long to listen for servers (default {LISTEN_SECONDS:g})")
    p.add_argument("--table", help="sit at (or resume your seat at) this table")
    p.add_argument("--name", type=player_name, help="your name at the table")
    p.add_argument("--create", metavar="GAME", choices=sorted(games.GAMES),
                   help=f"create a table of GAME first ({', '.join(games.GAMES)}) and sit at it")
    p.add_argument("--seats", type=_count(1, 99, "--seats"), help="seats of a created table (default 4 or fewer)")
    p.add_argument("--rated", action="store_true", help="a created table is rated: its match counts for "
                                                        "ratings when every seat is a person with a player key")
    add_bot_arguments(p, "how many computer players at a created table (default 0)")
    add_dealing_arguments(p, "a created table")
    add_option_arguments(p, "a created table: ")
    p.add_argument("--bot", metavar="LEVEL", help=f"a computer player decides for this seat ({', '.join(bots.all_levels())})")
    p.add_argument("--seed", help="seed of the --bot's own choices (not of the deal, which is fair)")
    p.add_argument("--no-input", action="store_true", help="never read the keyboard (needs --bot)")
    p.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    # Seconds the --bot waits before each answer: lets tests catch a match in the middle.
    p.add_argument("--think", type=float, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where seats in progress and match records are kept "
                        "(default $GOVERNOR_DATA or ~/.local/share/governor/client)")
    add_connection_arguments(p)
    fullscreen.add_plain_argument(p)


def run(args: argparse.Namespace) -> int:
    args.data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    if args.bot and args.url is None:
        print("governor join: --bot needs the server's address (ws://HOST:PORT): nobody is there to "
              "pick one of the servers on the network.", file=sys.stderr)
        return 2
    if args.no_input and not args.bot:
        print("governor join: --no-input needs --bot LEVEL (someone must decide for the seat).", file=sys.stderr)
        return 2
    if args.bot:
        try:
            bots.AnyGame(args.bot)
            if args.create:
                bots.make(args.create, args.bot)
        except IllegalAction as e:
            print(f"governor join: {e}", file=sys.stderr)
            return 2
    if args.create:
        engine = games.get(args.create)
        try:
            args.seats = engine.INFO.check_players(args.seats or engine.INFO.default_players)
            args.options = chosen_options(args, engine)
        except IllegalAction as e:
            print(f"governor join: {e.message}", file=sys.stderr)
            return 2
        try:
            args.levels = computer_levels(args.bots, args.level, args.create, args.seats, 0)
        except IllegalAction as e:
            print(f"governor join: {e.message}", file=sys.stderr)
            return 2
        args.bots = len(args.levels)
    elif args.bots is not None or args.level is not None or args.seats is not None or args.rated \
            or args.blind is not None:
        print("governor join: --seats, --bots, --level, --rated, --blind and --open describe a table you create: "
              "add --create GAME.", file=sys.stderr)
        return 2
    try:
        if args.bot:
            return run_interruptibly(play_headless(args))
        return run_interruptibly(interactive(args))
    except ClientError as e:
        print(f"governor join: {e}", file=sys.stderr)
        if args.json:     # scripts get their one JSON object either way
            print(json.dumps({"finished": False, "verified": False, "verdict": str(e), "record": None},
                             sort_keys=True), flush=True)
        return 1
    except KeyboardInterrupt:
        if args.url is None or not args.table:     # no seat yet (the table is known once one is taken)
            print("\nInterrupted.", file=sys.stderr)
            return 130
        print("\nInterrupted. If you had a seat it is saved: resume with "
              f"`{command('join', args.url, '--table', args.table)}`.", file=sys.stderr)
        return 130


async def check_announced_key(link, picked: Found, data_dir: Path) -> None:
    """The server reached must be the one announced: the key its welcome shows, the key announced.
    Else the link is closed and a ClientError names both; when it is, its key is remembered under
    the name announced (client/discover.py)."""
    shown = link.welcome["server"]
    if shown != picked.fingerprint:
        await link.close()
        raise ClientError("wrong_key", f"{picked.name} announced the key {picked.fingerprint or '(none)'}, but "
                                       f"the server at {picked.url} has the key {shown}: it is not the server "
                                       "announced, so this client does not join it.")
    keep_announced(data_dir, joined(read_announced(data_dir), picked, today()))


def describe_created(args) -> str:
    """The table `--create` made, in words: its game, seats and computer players."""
    info = games.get(args.create).INFO
    who = f", computer players: {', '.join(args.levels)}" if args.levels else ", no computer players"
    dealing = {True: ", blind dealing", False: ", open dealing", None: ""}[args.blind]
    extra = info.describe(args.options)
    return f"{info.title}, {args.seats} seats{who}{dealing}" + (f" [{extra}]" if extra else "")


async def interactive(args) -> int:
    """A person's `governor join`: resume the saved seat, or the lobby, then the seat taken (or
    the table watched) to the end; the exit code. With no address, first the server heard on
    the network that the person picks."""
    keyboard = Keyboard()
    picked = None        # the server picked among those announced, whose key the welcome must show
    if args.url is None:
        try:
            picked = await choose_server(args.listen, args.data_dir)
        except EOFError:
            print("\nInput closed.")
            return 0
        if picked is None:
            return 0
        args.url = picked.url
    url = normalize_url(args.url)
    colour = use_colour(sys.stdout)
    if args.table:
        session = SeatSession.find(args.data_dir, args.table, url=url)
        if session is not None:
            return await _seat(args, url, session, keyboard, colour)
    link = await open_link(url, rate=args.pace, cafile=args.cafile)
    if picked is not None:
        await check_announced_key(link, picked, args.data_dir)
    print("Compare this fingerprint with the one the server shows: it names the server that signs your matches.")
    if args.table:      # a seat at this server, saved when it was at another address
        session = SeatSession.find(args.data_dir, args.table, server_key=link.welcome["key"])
        if session is not None:
            await link.close()
            return await _seat(args, url, session.moved_to(url), keyboard, colour)
    seated = None
    try:
        name = args.name
        if args.table:
            what, table = "sit", args.table
        elif args.create:     # the table the flags describe, made once its creator has a name
            name = name or await ask_name(None if fullscreen.wanted(args.plain) else keyboard)
            what, table = "sit", await link.create(args.create, args.seats, args.bots, args.options,
                                                   levels=args.levels, rated=args.rated, blind=args.blind)
            print(f"Created table {table}: {describe_created(args)}.")
        elif fullscreen.wanted(args.plain):
            choice = await fullscreen.lobby(link, args.data_dir, args.name)
            what, table, seated = choice.kind, choice.table, choice.session    # it sits down itself
        else:
            what, table, name = await lobby(link, keyboard, args.data_dir, args.name)
    except EOFError:
        await link.close()
        print("\nInput closed.")
        return 0
    except BaseException:
        await link.close()
        raise
    if what == "quit":
        await link.close()
        return 0
    if seated is not None:
        return await _seat(args, url, seated, keyboard, colour, link)
    if what == "resume":
        await link.close()
        session = SeatSession.find(args.data_dir, table, server_key=link.welcome["key"])
        return await _seat(args, url, session.moved_to(url), keyboard, colour)
    if what == "watch":
        if fullscreen.wanted(args.plain):
            return await fullscreen.watch_table(link, table, args.data_dir, patience=args.patience)
        return await watch_table(link, table, args.data_dir, colour=colour, patience=args.patience)
    while True:
        try:
            name = name or await ask_name(None if fullscreen.wanted(args.plain) else keyboard)
            session = await sit(link, table, name, args.data_dir)
            break
        except ServerRefused as e:
            if e.code == "name_taken":   # names are unique at a table: ask for another
                print(e)
                name = None
                continue
            await link.close()
            print(f"Could not sit at table {table}: {e}")
            return 1
        except EOFError:
            await link.close()
            return 0
    return await _seat(args, url, session, keyboard, colour, link)


async def _seat(args, url: str, session: SeatSession, keyboard: Keyboard, colour: bool, link=None) -> int:
    """The seat played to the end: on the full screen, or in plain lines (--plain, or no terminal).
    Once the plain lobby has read the keyboard, its reading thread owns stdin: plain lines then."""
    args.table = session.table      # what a Ctrl-C's hint names from now on
    if fullscreen.wanted(args.plain) and keyboard.queue is None:
        return await fullscreen.play_seat(url, session=session, link=link, patience=args.patience,
                                          rate=args.pace, cafile=args.cafile)
    return await play_seat(Terminal(url, keyboard, colour=colour), session=session, link=link,
                           patience=args.patience, rate=args.pace, cafile=args.cafile)

