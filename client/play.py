"""`governor play`: a game against computer players (and friends on your network), in this
terminal.

    governor play                                   San Juan against 3 computer players
    governor play --bots heuristic,ismcts            you and these two
    governor play --game puertorico --bots 2 --level random

Your game is kept as you play: leave it (q, Ctrl-C, or closing the terminal) and the next
`governor play` offers to resume it, when it matches the flags given (the game, the players, the
options, the computer players). With --host, friends join: the line they join with stays on the
screen, and when the host leaves they are told, and their clients find the game again when the
host resumes it. Every player's computer adds its own secret to the
shuffle, so nobody, not even the server, can choose the cards; at the end your copy of the game
checks that the deal was fair, and saves the match record (`governor records` lists them).
"""
from __future__ import annotations

import argparse
import secrets
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import bots
from games.errors import IllegalAction

from . import fullscreen
from .answers import number_in
from .errors import ClientError
from .interrupt import run_interruptibly
from .link import PACE_RATE, open_link
from .hints import command
from .lobby import player_name, sit
from .render import HOST_LEFT_WORDS, describe_table, plural, use_colour
from .seat import HOST_LEFT
from .session import SeatSession, default_data_dir, keep_host_port, last_host_port, server_folder
from .table_options import DEFAULT_GAME, add_bot_arguments, add_dealing_arguments, chosen_table, computer_levels
from .terminal import AutoAnswers, Keyboard, Terminal, ask_once, play_seat

# The port a host's server takes (when free): not `governor serve`'s 8765, so that a `serve` on
# the same machine never meets a `play` where it expects itself, nor the other way round. A
# server for this machine alone (--host 127.0.0.1) takes any free port: nobody dials it.
LAN_PORT = 8766
LAN_RATE = 200.0
FAREWELL = (HOST_LEFT, f"{HOST_LEFT_WORDS[0].upper()}{HOST_LEFT_WORDS[1:]}.")


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
                   help=f"port of the server (default: with --host, the port it had last time, else "
                        f"{LAN_PORT}, else a free one; for this machine alone, a free one)")
    p.add_argument("--data-dir", type=Path, default=None, metavar="FOLDER",
                   help="where your games in progress and match records are kept (default "
                        "$GOVERNOR_DATA or ~/.local/share/governor/client)")
    p.add_argument("--server-data", type=Path, default=None, metavar="FOLDER",
                   help="keep the game server's data in this folder (default: `server` in the "
                        "data folder)")
    p.add_argument("--new", action="store_true", help="start a new game without offering to resume one")
    add_dealing_arguments(p, "with seats for friends (--bots fewer than the others), the table")
    p.add_argument("--rated", action="store_true",
                   help="a rated table of people (with --bots 0): the match counts for ratings "
                        f"(`{command('ratings')}`)")
    fullscreen.add_plain_argument(p)
    # Lets a bot answer for you through the same input path: for tests and demos.
    p.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)
    for action in p._actions:
        if action.dest == "game":
            action.default = None     # given or not: a game to resume must match only what was asked
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


def hosting(args) -> bool:
    """Other machines may join: the server does not listen on a loopback address only."""
    return args.host not in ("127.0.0.1", "localhost", "::1")


def run(args: argparse.Namespace) -> int:
    if isinstance(args.bots, tuple) and args.players is None:
        args.players = len(args.bots) + 1      # a list of opponents is the whole table
    args.asked = Asked.of(args)
    args.game = args.game or DEFAULT_GAME
    try:
        args.engine, args.players, args.options = chosen_table(args)
        args.levels = computer_levels(args.bots, args.level, args.engine.INFO.id, args.players,
                                      args.players - 1)
    except IllegalAction as e:
        print(f"governor play: {e.message}", file=sys.stderr)
        return 2
    args.bots = len(args.levels)
    if args.rated and args.bots:
        print("governor play: a rated table is a table of people (a computer player's match never "
              "counts): add --bots 0.", file=sys.stderr)
        return 2
    if args.blind and args.bots == args.players - 1:
        print("governor play: --blind is for a table with seats for friends: against computer players alone "
              "the server in this process is yours, and the deal stays open. Give --bots fewer than "
              f"{args.players - 1}.", file=sys.stderr)
        return 2
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
        print(f"\nInterrupted: your game is saved; {command('play', *_resume_flags(args))} offers to resume it.",
              file=sys.stderr)
        return 130


def _ports(folder: Path, args) -> list[int]:
    """The ports to try, in order: the one asked for; for a host, the one it had last (friends'
    clients come back there first), then LAN_PORT, then any free one; else any free one."""
    if args.port is not None:
        return [args.port]
    if not hosting(args):
        return [0]
    return list(dict.fromkeys(p for p in (last_host_port(folder), LAN_PORT, 0) if p is not None))


async def _start_server(folder: str, args):
    from server.app import Server   # the server's public entry point (docs/development.md)
    ports = _ports(Path(folder), args)
    # What friends on the network hear it as (announced only when they can reach it).
    announce = f"{args.name}'s {args.engine.INFO.title}"
    for i, p in enumerate(ports):
        # A LAN party's server: people do not flood, so the rate limit can be generous; and
        # nobody is rushed (no clock): whoever holds the table up is in the same room.
        server = Server(folder, args.host, p, rate=LAN_RATE, burst=2 * int(LAN_RATE), turn_time=0,
                        announce=announce)
        try:
            port = await server.start()
        except OSError:
            await server.stop()     # releases its hold on the data directory
            if i == len(ports) - 1:
                raise
            continue
        if hosting(args):
            keep_host_port(Path(folder), port)
        return server, port


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
                await offer_resume(link, args, server)
            if session is not None:
                await link.close()
                table = server.tables.get(session.table)
                invite = _tell_others(args, port, session.table, server) \
                    if table is not None and not table.private else ""
                return await _seat(args, player, session, None, resume, invite)
            free = args.players - 1 - args.bots
            # alone against computer players: nobody else has anything to find in the lobby
            table = await link.create(args.engine.INFO.id, args.players, args.bots, args.options,
                                      levels=args.levels, private=not free, rated=args.rated,
                                      blind=args.blind if free else False)
            session = await sit(link, table, args.name, args.data_dir)
        except EOFError:
            await link.close()
            print("\nInput closed.")
            return 0
        except BaseException:
            await link.close()
            raise
        invite = _tell_others(args, port, table, server)
        print(f"You are seat {session.seat + 1} at table {table}, as {session.name}, against "
              f"{', '.join(args.levels) or 'nobody yet'}.")
        return await _seat(args, player, session, link, resume, invite)
    finally:
        # friends at the table are told why their connection closes, and that the game waits
        await server.stop(farewell=FAREWELL)


async def _seat(args, player: Terminal, session: SeatSession, link, resume: str | None, invite: str = "") -> int:
    """The seat played to its end: on the full screen on a terminal, else in plain lines.
    `invite`: how friends join, kept in sight on the full screen."""
    after = (f"Your friends are disconnected; the game is saved: {resume} offers to resume it, and "
             "their clients find it again." if invite and resume else "")
    if not args.auto and fullscreen.wanted(args.plain):
        return await fullscreen.play_seat(player.url, session=session, link=link,
                                          resumable=bool(resume), resume=resume, invite=invite,
                                          leave_words=f"Leave this game? {after}" if after else None)
    return await play_seat(player, session=session, link=link, intro=False, resume=resume or "",
                           after_leaving=after)


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


def _tell_others(args, port: int, table: str, server) -> str:
    """Say how others join (or watch) the table; the line that says how friends join, for the
    full screen to keep in sight ("" when no seat is for them or nobody else can reach it)."""
    public = lan_address() if args.host in ("0.0.0.0", "", "::") else args.host
    seats = server.tables[table].seats if table in server.tables else []
    free = sum(1 for s in seats if s.human and s.key is None)
    friends = sum(1 for s in seats if s.human) > 1
    join = command('join', f'ws://{public}:{port}', '--table', table)
    if not friends:
        print(f"Others can watch with: {command('watch', f'ws://{public}:{port}', table)}")
        return ""
    if free:
        print(f"Friends can join with: {join}")
        if server.announcement is not None:
            print(f"  or with {command('join')} alone, which finds {server.announcement.name!r} on this network")
        if not hosting(args):
            print("  (the server listens on this machine only: start with --host 0.0.0.0 "
                  "so other machines can join)")
        elif server.announcement is None:
            print(f"  (not announced on the local network: {server.not_announced})")
        print(f"The game starts when {plural(free, 'more player')} "
              f"{'has' if free == 1 else 'have'} joined.")
    if not hosting(args):
        return ""
    found = f", or {command('join')} alone" if server.announcement is not None else ""
    return f"Friends join with: {join}{found}"


@dataclass(frozen=True)
class Asked:
    """What `governor play`'s flags asked for, of the table: an unfinished game is offered to
    resume only when it matches every part given (None: not given, anything matches)."""
    game: str | None
    players: int | None
    options: dict
    bots: int | None
    levels: tuple[str, ...] | None     # every computer seat's level, as a list, when given
    level: str | None                  # the level of them all (--level)

    @classmethod
    def of(cls, args) -> "Asked":
        options = {name[len("option_"):]: value for name, value in vars(args).items()
                   if name.startswith("option_") and value is not None}
        spec = args.bots
        return cls(args.game, args.players, options, len(spec) if isinstance(spec, tuple) else spec,
                   tuple(sorted(spec)) if isinstance(spec, tuple) else None, args.level)

    def matches(self, t: dict) -> bool:
        """Whether a table's lobby entry (its game, options and seats) is what was asked."""
        seats = [s for s in t.get("seats", []) if isinstance(s, dict)]
        levels = sorted(str(s["bot"]) for s in seats if s.get("bot"))
        options = t.get("options") if isinstance(t.get("options"), dict) else {}
        return ((self.game is None or t.get("game") == self.game)
                and (self.players is None or len(seats) == self.players)
                and all(options.get(name) == value for name, value in self.options.items())
                and (self.bots is None or len(levels) == self.bots)
                and (self.levels is None or tuple(levels) == self.levels)
                and (self.level is None or all(lv == self.level for lv in levels)))


async def offer_resume(link, args, server) -> SeatSession | None:
    """The seat of an unfinished game of this server (the one kept in the data folder) that
    matches what was asked, if the player picks one to resume; its address is brought up to
    date (the port may have changed). Several are listed to choose from."""
    saved = [(s, server.tables[s.table].summary()) for s in SeatSession.unfinished(args.data_dir, link.welcome["key"])
             if s.table in server.tables]
    matching = [(s, t) for s, t in saved if args.asked.matches(t)]
    others = len(saved) - len(matching)
    if others:
        print(f"({plural(others, 'other unfinished game')} of yours {'does' if others == 1 else 'do'} not "
              "match the game, players and options asked for here: asked with theirs, "
              f"{command('play', *_resume_flags(args))} offers them.)")
    if not matching:
        return None
    if len(matching) == 1:
        s, t = matching[0]
        print(f"You have an unfinished game: {describe_table(t)}; you are seat {s.seat + 1}, {s.name}.")
        while True:
            answer = (await ask_once("Resume it? [Y/n] ")).strip().lower()
            if answer in ("", "y", "yes"):
                return s.moved_to(link.url)
            if answer in ("n", "no"):
                return None
            print(f"{answer[:20]!r} is not an answer: y resumes it, n starts a new game.")
    print("You have unfinished games that match:")
    for i, (s, t) in enumerate(matching, 1):
        print(f"  {i}. {describe_table(t)}; you are seat {s.seat + 1}, {s.name}")
    while True:
        answer = (await ask_once(f"Resume which (1-{len(matching)}), or n for a new game? ")).strip().lower()
        if answer in ("n", "no"):
            return None
        picked = number_in(answer, 1, len(matching))
        if picked is not None:
            return matching[picked - 1][0].moved_to(link.url)
        print(f"{answer[:20]!r} is not one of the choices: a number from 1 to {len(matching)}, or n.")
