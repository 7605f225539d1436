"""`governor join ws://HOST:PORT`: play at a table of a Governor server.

Interactive: a lobby (the tables, create one, sit with a name, or watch one), then the game on
this screen — board, cities, your hand, the log, the question with numbered options — with the
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
import asyncio
import json
import secrets
import sys
import threading
import time
from pathlib import Path

import bots
import games

from . import net
from .errors import ClientError
from .play import BadAnswer, Quit, QUIT_WORDS, parse_answer
from .render import Renderer, describe_table, seats_line, use_colour
from .session import SeatSession, default_data_dir, normalize_url
from .table import Outcome, Table

HELP = "play at a table of a Governor server (or run a headless bot seat)"


def _name(text: str) -> str:
    name = text.strip()
    if not name or len(name) > 20 or not name.isprintable():
        raise argparse.ArgumentTypeError("a name is 1 to 20 printable characters")
    return name


def _count(lo: int, hi: int, what: str):
    def check(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or not lo <= int(text) <= hi:
            raise argparse.ArgumentTypeError(f"{what} is a number from {lo} to {hi}, not {text!r}")
        return int(text)
    return check


def add_connection_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cafile", metavar="FILE",
                   help="trust the wss:// server whose certificate (or its issuer's) is in this PEM file, "
                        "e.g. a self-signed one its host gave you; default: the system's authorities")
    # How long a dropped connection is retried; only tests want it shorter.
    p.add_argument("--patience", type=float, default=net.PATIENCE, help=argparse.SUPPRESS)
    # Messages a second this client allows itself (0: no pacing), for servers with other limits.
    p.add_argument("--pace", type=float, default=net.PACE_RATE, help=argparse.SUPPRESS)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", help="the server, e.g. ws://192.168.1.20:8765")
    p.add_argument("--table", help="sit at (or resume your seat at) this table")
    p.add_argument("--name", type=_name, help="your name at the table")
    p.add_argument("--create", metavar="GAME", choices=sorted(games.GAMES),
                   help="create a table of GAME first (sanjuan) and sit at it")
    p.add_argument("--seats", type=_count(2, 4, "--seats"), default=4, help="seats of a created table (default 4)")
    p.add_argument("--bots", type=_count(0, 3, "--bots"), default=0,
                   help="computer players at a created table (default 0)")
    p.add_argument("--expansion", action="store_true", help='a created table plays with "The New Buildings"')
    p.add_argument("--setup-variant", action="store_true", help="a created table deals with the setup variant")
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


# ------------------------------------------------------------------ reading the keyboard

class Keyboard:
    """Lines from stdin, read by a daemon thread so the connection lives while you think.
    Lines typed ahead wait their turn, as with a pipe."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stdin
        self.queue: asyncio.Queue | None = None
        self.loop = None

    def _start(self) -> None:
        if self.queue is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.queue = asyncio.Queue()

        def pump():
            while True:
                line = self.stream.readline()
                try:
                    self.loop.call_soon_threadsafe(self.queue.put_nowait, line)
                except RuntimeError:     # the game is over and its loop closed
                    return
                if not line:
                    return
        threading.Thread(target=pump, daemon=True, name="keyboard").start()

    async def readline(self, prompt: str = "> ") -> str:
        self._start()
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = await self.queue.get()
        if not line:
            self.queue.put_nowait("")   # EOF stays EOF
            raise EOFError
        return line.rstrip("\n")


class AutoAnswers:
    """A bot types the answers, echoed like a person's: for tests and demos (`play --auto`)."""

    def __init__(self, bot) -> None:
        self.bot = bot

    async def answer(self, view: dict) -> str:
        options = view["prompt"]["options"]
        line = " ".join(str(options.index(a) + 1) for a in self.bot.choose(view))
        print(f"> {line}")
        return line


# ------------------------------------------------------------------ a person at the terminal

def renderer_for(view: dict, colour: bool) -> Renderer:
    engine = games.get(view.get("game", "sanjuan"))
    return Renderer(engine.catalog(bool(view["options"].get("expansion"))), colour)


class Terminal(net.Player):
    """The seat played by a person (or, with --auto, a bot typing for them) on this screen."""

    def __init__(self, url: str, keyboard: Keyboard | None = None, auto: AutoAnswers | None = None,
                 colour: bool = False, out=None) -> None:
        self.url = url
        self.keyboard = keyboard or Keyboard()
        self.auto = auto
        self.colour = colour
        self.out = out or sys.stdout
        self.screen: Renderer | None = None
        self.waiting_for: tuple | None = None
        self.status_line = ""
        self.link_state = "connecting"
        self.last_view: dict | None = None
        self.told_clock = False

    def say(self, text: str = "", style: str | None = None) -> None:
        if style and self.screen:
            text = self.screen.paint(text, style)
        print(text, file=self.out, flush=True)

    def header(self) -> str:
        """The connection line shown above the board."""
        state = {"connected": f"connected to {self.url}", "reconnecting": "reconnecting…",
                 "lost": "disconnected"}.get(self.link_state, self.link_state)
        return f"[{state}{' · ' + self.status_line if self.status_line else ''}]"

    def connection(self, state: str, detail: str = "") -> None:
        before, self.link_state = self.link_state, state
        if state == "connected":
            if before != "connecting":
                self.say(f"[connected to {self.url} again]", "dim")
        elif state == "reconnecting":
            self.say(f"[connection lost: {detail}; reconnecting…]", "warn")
        else:
            self.say(f"[connection lost: {detail}]", "warn")

    def update(self, table: Table, happened: list[tuple]) -> None:
        if table.view is not None and self.screen is None:
            self.screen = renderer_for(table.view, self.colour)
        self.last_view = table.view
        for kind, data in happened:
            if kind == "events":
                for e in data:
                    self.say(f"  {e['text']}")
            elif kind == "notice":
                self.say(f"[{data}]", "dim")
            elif kind == "status":
                line = seats_line(data, table.view.get("seat") if table.view else None)
                if line and line != self.status_line:
                    self.status_line = line
                    self.say(f"[{line}]", "dim")
                if table.turn_time and not self.told_clock:
                    self.told_clock = True
                    self.say(f"[This server gives {_duration(table.turn_time)} per decision; when it runs out, "
                             f"a computer answers that question for you.]", "dim")
            elif kind == "reject":
                code, message = data
                self.say(message if code != "stale" else
                         f"{message} (the game moved on: here is the question again)", "warn")
            elif kind == "error":
                self.say(f"[server: {data[1]}]", "warn")
        self._waiting(table)

    def _waiting(self, table: Table) -> None:
        v = table.view
        if v is None or v.get("over") or table.prompt is not None or not table.exchange:
            return
        others = tuple(v.get("to_act", ()))
        if others and others != self.waiting_for:
            names = [p["name"] for p in v["players"]]
            self.say(f"Waiting for {', '.join(names[s] for s in others)}…", "dim")
        self.waiting_for = others

    def stop_deciding(self, table: Table) -> None:
        me = table.view.get("seat") if table.view else None
        if me is not None and me < len(table.seats) and table.seats[me].get("out_of_time"):
            self.say("(Your time for that question ran out: a computer answered it for you.)", "warn")
        else:
            self.say("(That question has gone: the game moved on.)", "warn")

    async def decide(self, table: Table) -> list:
        v = table.view
        screen = self.screen = self.screen or renderer_for(v, self.colour)
        self.waiting_for = None
        self.say()
        self.say(self.header(), "dim")
        self.say(screen.view(v))
        p = v["prompt"]
        while True:
            line = (await self.auto.answer(v) if self.auto else await self.keyboard.readline()).strip()
            if line == "?":
                self.say(screen.help(v))
                continue
            if line.lower() in QUIT_WORDS:
                if (await self.keyboard.readline("Quit this game? [y/N] ")).strip().lower() in ("y", "yes"):
                    raise Quit
                continue
            try:
                picks = parse_answer(line, len(p["options"]), p["min"], p["max"])
            except BadAnswer as e:
                self.say(str(e), "warn")
                continue
            return [p["options"][i] for i in picks]

    def finished(self, outcome: Outcome, url: str) -> None:
        say = self.say
        say()
        if outcome.result and self.screen:
            if self.last_view and self.last_view.get("players"):
                say(self.screen.cities(self.last_view))
                say()
            say(self.screen.result(outcome.result, outcome.names))
        elif outcome.reason:
            say(f"The match was cancelled: {outcome.reason}", "warn")
        say()
        if outcome.report is not None:
            say(outcome.report.text())
        if outcome.caveat:
            say(outcome.caveat, "warn")
        say(f"Match record saved: {outcome.record}")
        say(f"Check it again any time, on any machine: governor verify {outcome.record}", "dim")


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' * (minutes != 1)}"
    return f"{seconds:g} seconds"


# ------------------------------------------------------------------ headless

class Headless(net.BotPlayer):
    """A bot seat that reports progress on stderr, briefly."""

    def connection(self, state: str, detail: str = "") -> None:
        print(f"[{state}{': ' + detail if detail else ''}]", file=sys.stderr, flush=True)

    def update(self, table: Table, happened: list[tuple]) -> None:
        super().update(table, happened)
        for kind, data in happened:
            if kind == "notice":
                print(f"[{data}]", file=sys.stderr, flush=True)
            elif kind == "reject" or kind == "error":
                print(f"[server: {data[1]}]", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ the lobby

async def _ask(keyboard: Keyboard, question: str, default: str = "") -> str:
    answer = (await keyboard.readline(f"{question}{f' [{default}]' if default else ''}: ")).strip()
    return answer or default


async def _ask_yes(keyboard: Keyboard, question: str) -> bool:
    return (await _ask(keyboard, f"{question} (y/N)")).lower() in ("y", "yes")


async def _ask_number(keyboard: Keyboard, question: str, lo: int, hi: int, default: int) -> int:
    while True:
        text = await _ask(keyboard, f"{question} ({lo}-{hi})", str(default))
        if text.isascii() and text.isdigit() and lo <= int(text) <= hi:
            return int(text)
        print(f"Please type a number from {lo} to {hi}.")


async def lobby(link: net.Link, keyboard: Keyboard, args) -> tuple[str, str | None]:
    """Until the person picks: ("sit", table) or ("watch", table) or ("resume", table)."""
    saved = SeatSession.unfinished(args.data_dir, link.url)
    while True:
        listed = await link.tables()
        tables = [t for t in listed if t.get("status", t.get("state")) in ("waiting", "playing")]
        print()
        if saved:
            print("Your unfinished seats at this server:")
            for s in saved:
                print(f"   r {s.table}  (seat {s.seat + 1}, as {s.name})")
        if tables:
            print("Tables:")
            for i, t in enumerate(tables, 1):
                print(f"  {i:>2}. {describe_table(t)}")
        else:
            print("No table is waiting or being played.")
        print("Type a number to sit at that table, w and a number to watch it, c to create a table,"
              + (" r to resume your seat," if saved else "") + " Enter to refresh, q to quit.")
        choice = (await keyboard.readline("lobby> ")).strip().lower()
        if choice in QUIT_WORDS:
            return "quit", None
        if choice == "":
            continue
        if choice == "r" and saved:
            return "resume", saved[0].table
        if choice == "c":
            table = await create_dialog(link, keyboard)
            if table:
                return "sit", table
            continue
        watch = choice.startswith("w")
        num = choice[1:].strip() if watch else choice
        if num.isdigit() and 1 <= int(num) <= len(tables):
            return ("watch" if watch else "sit"), net.table_id(tables[int(num) - 1])
        print(f"{choice!r} is not one of the choices.")


async def create_dialog(link: net.Link, keyboard: Keyboard) -> str | None:
    game = "sanjuan"
    engine = games.get(game)
    seats = await _ask_number(keyboard, "Players", engine.MIN_PLAYERS, engine.MAX_PLAYERS, 4)
    bots_ = await _ask_number(keyboard, "How many of them computer players", 0, seats - 1, 0)
    options = {"expansion": await _ask_yes(keyboard, 'Play with "The New Buildings" expansion?'),
               "setup_variant": await _ask_yes(keyboard, "Setup variant (draw more starting cards, keep 4)?")}
    try:
        table = await link.create(game, seats, bots_, options)
    except net.ServerRefused as e:
        print(f"The server refused: {e}")
        return None
    print(f"Created table {table}.")
    return table


# ------------------------------------------------------------------ run

def run(args: argparse.Namespace) -> int:
    args.data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    if args.no_input and not args.bot:
        print("governor join: --no-input needs --bot LEVEL (someone must decide for the seat).", file=sys.stderr)
        return 2
    if args.bot:
        try:
            bots.AnyGame(args.bot)
        except ValueError as e:
            print(f"governor join: {e}", file=sys.stderr)
            return 2
    if args.create and args.bots >= args.seats:
        print("governor join: --bots must leave at least one seat (yours).", file=sys.stderr)
        return 2
    try:
        if args.bot:
            return asyncio.run(headless(args))
        return asyncio.run(interactive(args))
    except ClientError as e:
        print(f"governor join: {e}", file=sys.stderr)
        if args.json:     # scripts get their one JSON object either way
            print(json.dumps({"finished": False, "verified": False, "verdict": str(e), "record": None},
                             sort_keys=True), flush=True)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted. If you had a seat it is saved: resume with "
              f"`governor join {normalize_url(args.url)} --table TABLE`.", file=sys.stderr)
        return 130


async def _open(url: str, quiet: bool = False, rate: float = net.PACE_RATE, cafile: str | None = None) -> net.Link:
    link = net.Link(url, rate, cafile)
    try:
        welcome = await link.open()
    except ClientError:
        await link.close()
        raise
    except (OSError, asyncio.TimeoutError, net.InvalidHandshake, net.ConnectionClosed) as e:
        await link.close()
        raise ClientError(net.unreachable(link.url, e)) from None
    line = f"Connected to {link.url}, server key fingerprint {welcome['server']}"
    print(line, file=sys.stderr if quiet else sys.stdout, flush=True)
    return link


async def _resume(session: SeatSession, player: net.Player, patience: float, rate: float,
                  cafile: str | None) -> Outcome:
    print(f"Resuming your seat at table {session.table} (seat {session.seat + 1}, as {session.name}).",
          file=sys.stderr, flush=True)
    return await net.SeatRunner(session, player, patience=patience, rate=rate, cafile=cafile).run()


async def headless(args) -> int:
    url = normalize_url(args.url)
    seed = args.seed if args.seed is not None else secrets.token_hex(8)
    player = Headless(bots.AnyGame(args.bot, seed), args.think)
    session = SeatSession.find(args.data_dir, url, args.table) if args.table else None
    if session is not None and not session.finished:
        outcome = await _resume(session, player, args.patience, args.pace, args.cafile)
    else:
        link = await _open(url, quiet=True, rate=args.pace, cafile=args.cafile)
        try:
            if args.create:
                options = {"expansion": args.expansion, "setup_variant": args.setup_variant}
                table = await link.create(args.create, args.seats, args.bots, options)
                print(table, flush=True)
                session = await _sit_as_bot(link, table, args)
            elif args.table:
                session = await _sit_as_bot(link, args.table, args)
            else:
                session = await _sit_anywhere(link, args)
        except BaseException:
            await link.close()
            raise
        print(f"Seated at table {session.table}, seat {session.seat + 1}.", file=sys.stderr, flush=True)
        outcome = await net.SeatRunner(session, player, link=link, patience=args.patience).run()
    if args.json:
        print(json.dumps(outcome.as_dict(), sort_keys=True), flush=True)
    else:
        print(outcome.report.text() if outcome.report else outcome.reason)
        if outcome.caveat:
            print(outcome.caveat)
        print(f"Match record saved: {outcome.record}")
    return 0 if outcome.verified else 1


async def _sit_as_bot(link: net.Link, table: str, args) -> SeatSession:
    """Sit as --name, or as "<Level> NNN": names are unique at a table, so when another seat has
    that one, a fresh number is drawn."""
    for _ in range(20):
        name = args.name or f"{args.bot.capitalize()} {secrets.randbelow(900) + 100}"
        try:
            return await net.sit(link, table, name, args.data_dir)
        except net.ServerRefused as e:
            if e.code != "name_taken" or args.name:
                raise
    raise ClientError(f"no free name for a bot at table {table}")


async def _sit_anywhere(link: net.Link, args) -> SeatSession:
    """The first waiting table with a free seat; wait for one to appear."""
    deadline = time.monotonic() + args.patience
    while True:
        for t in await link.tables():
            if net.table_is_open(t):
                try:
                    return await _sit_as_bot(link, net.table_id(t), args)
                except net.ServerRefused:
                    continue   # taken in the meantime, or our --name is
        if time.monotonic() > deadline:
            raise ClientError("no table with a free seat appeared on this server")
        await asyncio.sleep(0.3)


async def interactive(args) -> int:
    url = normalize_url(args.url)
    keyboard = Keyboard()
    colour = use_colour(sys.stdout)
    if args.table:
        session = SeatSession.find(args.data_dir, url, args.table)
        if session is not None and not session.finished:
            return await play_seat(Terminal(url, keyboard, colour=colour), session=session,
                                   patience=args.patience, rate=args.pace, cafile=args.cafile)
    link = await _open(url, rate=args.pace, cafile=args.cafile)
    print("Compare this fingerprint with the one the server shows: it names the server that signs your matches.")
    try:
        if args.table:
            what, table = "sit", args.table
        else:
            what, table = await lobby(link, keyboard, args)
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
    if what == "resume":
        await link.close()
        session = SeatSession.find(args.data_dir, url, table)
        return await play_seat(Terminal(url, keyboard, colour=colour), session=session,
                               patience=args.patience, rate=args.pace, cafile=args.cafile)
    if what == "watch":
        from .watch import watch_table
        return await watch_table(link, table, args.data_dir, colour=colour, patience=args.patience)
    name = args.name
    while True:
        try:
            name = name or await _ask(keyboard, "Your name", "Player")
            session = await net.sit(link, table, _name(name), args.data_dir)
            break
        except net.ServerRefused as e:
            if e.code == "name_taken":   # names are unique at a table: ask for another
                print(e)
                name = None
                continue
            await link.close()
            print(f"Could not sit at table {table}: {e}")
            return 1
        except argparse.ArgumentTypeError as e:
            await link.close()
            print(f"Could not sit at table {table}: {e}")
            return 1
        except EOFError:
            await link.close()
            return 0
    return await play_seat(Terminal(url, keyboard, colour=colour), session=session, link=link,
                           patience=args.patience)


async def play_seat(player: Terminal, *, session: SeatSession, link: net.Link | None = None,
                    patience: float = net.PATIENCE, rate: float = net.PACE_RATE, cafile: str | None = None,
                    intro: bool = True, resumable: bool = True) -> int:
    """Play the seat to the end on this screen; the exit code of `join` and `play`. With
    `resumable` false (the server lives in this process) leaving means abandoning the game."""
    url = session.url
    if intro:
        print(f"You are at table {session.table}, seat {session.seat + 1}, as {session.name}. "
              f"Others join with: governor join {url} --table {session.table}")
    if link is None:
        print("Resuming your seat…")
    try:
        try:
            outcome = await net.SeatRunner(session, player, link=link, patience=patience, rate=rate,
                                           cafile=cafile).run()
        finally:
            if not resumable:
                session.forget()     # the server goes away with this process: nothing to resume
    except EOFError:
        if not resumable:
            print("\nInput closed: the game is abandoned.")
            return 0
        print(f"\nInput closed: you left the screen, your seat is saved. Resume with "
              f"`governor join {url} --table {session.table}`.")
        return 0
    except Quit:
        if not resumable:
            print("You left the game.")
        elif session.path.exists():
            print("You left the game. A computer player takes your seat after the server's grace "
                  f"period; to come back: governor join {url} --table {session.table}")
        else:
            print("You left the table before the match began: your seat is free again.")
        return 0
    player.finished(outcome, url)
    return 0 if outcome.verified else 1
