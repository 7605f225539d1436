"""A seat played by a person on this screen: `Keyboard` reads the lines typed (or `AutoAnswers`
lets a bot type them), `Terminal` shows the board, the log and the question and turns the answer
into the picked options, and `play_seat` plays the seat to its end and tells how it went. Shared
by `governor join` and `governor play`.
"""
from __future__ import annotations

import asyncio
import sys
import termios
import threading
import time
from collections import Counter

from .hints import command
from .answers import (BACK_WORDS, NOTHING, QUESTION_SETTLE, QUIT_WORDS, BadAnswer, going_back,
                      parse_answer, settled)
from .link import PACE_RATE, PATIENCE, Link
from .render import Renderer, first_number, plural, renderer_for, seats_line, time_left
from .seat import Leave, Player, SeatRunner
from .session import SeatSession
from .table import Outcome, Table


class Quit(Leave):
    """The player confirmed they want to leave."""


class TooSoon(Exception):
    """A line that came within the settle time of a new question (Keyboard.readline): typed for
    the one before, most likely. `line` is what was typed."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def shown(line: str) -> str:
    """A line typed, as a note names it."""
    line = line.strip()
    return "an empty line" if not line else f'"{line if len(line) <= 20 else line[:17] + "..."}"'


class Keyboard:
    """Lines from stdin, read by a daemon thread so the connection lives while you think.

    Type-ahead: on a terminal, a line typed before a question is shown (a `2` pressed while
    waiting for another player) is dropped when the question appears, and so is a half-typed
    line, so that nothing answers a question its player never saw; and so is a line that comes
    within `settle` seconds after it appeared (QUESTION_SETTLE: an Enter pressed twice, the
    second one landing on the question a bot's quick move brought), where the reader asks for
    that (readline's `fresh`). Lines from a pipe or a file were written on purpose, in order, by
    a script: they wait their turn and answer the questions one by one. `clock` stamps each line
    as it arrives."""

    def __init__(self, stream=None, drop_typeahead: bool | None = None, out=None,
                 settle: float = QUESTION_SETTLE, clock=time.monotonic) -> None:
        self.stream = stream or sys.stdin
        self.out = out or sys.stdout
        self.drop_typeahead = _is_terminal(self.stream) if drop_typeahead is None else drop_typeahead
        self.settle, self.clock = settle, clock
        self.queue: asyncio.Queue | None = None
        self.loop = None
        # Where a line starting with `!` goes instead of the answers (a seat's chat), when set:
        # such a line is never an answer, never type-ahead, whatever is being asked.
        self.on_chat = None

    def _line(self, line: str, at: float) -> None:
        if line and self.on_chat is not None and line.lstrip().startswith("!"):
            self.on_chat(line.lstrip()[1:].strip())
        else:
            self.queue.put_nowait((line, at))

    def _start(self) -> None:
        if self.queue is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.queue = asyncio.Queue()

        def pump():
            while True:
                try:
                    line = self.stream.readline()
                except (OSError, ValueError, UnicodeDecodeError):   # a closed or garbled input: its end
                    line = ""
                try:
                    self.loop.call_soon_threadsafe(self._line, line, self.clock())
                except RuntimeError:     # the game is over and its loop closed
                    return
                if not line:
                    return
        threading.Thread(target=pump, daemon=True, name="keyboard").start()

    def drop_typed_ahead(self) -> list[str]:
        """Forget what was typed before now (see the class); the whole lines dropped."""
        dropped, end = [], None
        while not self.queue.empty():
            line, at = self.queue.get_nowait()
            if line:
                dropped.append(line.rstrip("\n"))
            else:
                end = (line, at)
        if end is not None:
            self.queue.put_nowait(end)    # the end of input is not type-ahead: it stays
        try:
            termios.tcflush(self.stream.fileno(), termios.TCIFLUSH)   # the half-typed line too
        except (OSError, ValueError, AttributeError, termios.error):
            pass     # not a real terminal (a test's stand-in): its lines were dropped above
        return dropped

    async def readline(self, prompt: str = "> ", fresh: bool = False) -> str:
        """The next line typed after `prompt` is shown (without its newline); EOFError at the end.
        `fresh`: the question was just shown, so a line within the settle time after it raises
        TooSoon (on a terminal: see the class)."""
        self._start()
        if self.drop_typeahead:
            dropped = self.drop_typed_ahead()
            if dropped:
                print(f"(Ignored {', '.join(map(shown, dropped))}: typed before this question appeared.)",
                      file=self.out)
        self.out.write(prompt)
        self.out.flush()
        asked_at = self.clock()
        line, at = await self.queue.get()
        if not line:
            self.queue.put_nowait((line, at))   # EOF stays EOF
            raise EOFError
        line = line.rstrip("\n")
        if fresh and self.drop_typeahead and not settled(asked_at, at, self.settle):
            raise TooSoon(line)
        return line


async def ask_once(prompt: str, stream=None, out=None) -> str:
    """One line typed after `prompt` (without its newline), read by a thread that ends with it:
    unlike a Keyboard, nothing keeps reading afterwards, so the full-screen table can have the
    keys next. Type-ahead is dropped on a terminal, as a Keyboard does; EOFError at the end."""
    stream, out = stream or sys.stdin, out or sys.stdout
    if _is_terminal(stream):
        try:
            termios.tcflush(stream.fileno(), termios.TCIFLUSH)
        except (OSError, ValueError, termios.error):
            pass
    out.write(prompt)
    out.flush()
    loop = asyncio.get_running_loop()
    answer = loop.create_future()

    def read():
        try:
            line = stream.readline()
        except (OSError, ValueError, UnicodeDecodeError):
            line = ""
        try:
            loop.call_soon_threadsafe(lambda: answer.done() or answer.set_result(line))
        except RuntimeError:      # the loop is gone (Ctrl-C): nobody waits for the answer
            pass
    # A daemon thread: a Ctrl-C while it waits for a line must not wait for that line to end.
    threading.Thread(target=read, daemon=True, name="ask-once").start()
    line = await answer
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class AutoAnswers:
    """A bot types the answers, echoed like a person's: for tests and demos (`play --auto`)."""

    def __init__(self, bot) -> None:
        self.bot = bot

    async def answer(self, view: dict) -> str:
        options = view["prompt"]["options"]
        first = first_number(view["prompt"])
        line = " ".join(str(options.index(a) + first) for a in self.bot.choose(view)) or NOTHING
        print(f"> {line}")
        return line


class Terminal(Player):
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
        self.blind = False              # the table deals blind: the header line says so
        self.told_clock = False
        # What leaving means for this seat, said before asking to confirm (play_seat sets it).
        self.leaving = "If you leave, a computer player takes your seat."

    def say(self, text: str = "", style: str | None = None) -> None:
        if style and self.screen:
            text = self.screen.paint(text, style)
        print(text, file=self.out, flush=True)

    def bind_chat(self, send) -> None:
        self._send_chat = send
        self.keyboard.on_chat = self._chat if send is not None else None

    _send_chat = None

    def _chat(self, text: str) -> None:
        if not text:
            self.say("To chat, type ! and your line, e.g. `! hello all`.", "dim")
        elif self._send_chat is None or not self._send_chat(text):
            self.say("[chat not sent: not connected]", "warn")

    def header(self) -> str:
        """The connection line shown above the board."""
        state = {"connected": f"connected to {self.url}", "reconnecting": "reconnecting…",
                 "lost": "disconnected"}.get(self.link_state, self.link_state)
        dealing = " · blind dealing" if self.blind else ""
        return f"[{state}{dealing}{' · ' + self.status_line if self.status_line else ''}]"

    def connection(self, state: str, detail: str = "") -> None:
        before, self.link_state = self.link_state, state
        if state == "connected":
            if before != "connecting":
                self.say(f"[connected to {self.url} again]", "dim")
        elif state == "reconnecting":
            self.say(f"[connection lost: {detail}; reconnecting…]", "warn")
        elif state == "host_left":
            self.say("[waiting for the host to come back…]", "warn")
        else:
            self.say(f"[connection lost: {detail}]", "warn")

    def update(self, table: Table, happened: list[tuple]) -> None:
        if table.view is not None and self.screen is None:
            self.screen = renderer_for(table.view, self.colour)
        self.last_view = table.view
        self.blind = table.dealing == "blind"
        for kind, data in happened:
            if kind == "events":
                for e in data:
                    self.say(f"  {e['text']}")
            elif kind == "notice":
                self.say(f"[{data}]", "dim")
            elif kind == "alert":
                self.say(f"[{data}]", "warn")
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
            elif kind == "chat":
                self.say(f"[chat] {data['name']}: {data['text']}")
        self._waiting(table)

    def _waiting(self, table: Table) -> None:
        v = table.view
        if v is None or v.get("over") or table.prompt is not None or not table.exchange:
            return
        others = tuple(v.get("to_act", ()))
        if others and others != self.waiting_for:
            self.say(self.screen.waiting(v), "dim")   # update() made the screen for this view
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
        fresh = True        # the question was just shown: see Keyboard
        while True:
            try:
                line = (await self.auto.answer(v) if self.auto else
                        await self.keyboard.readline(answer_prompt(table), fresh)).strip()
            except TooSoon as e:
                self.say(f"(Ignored {shown(e.line)}: this question had just appeared. Here it is again.)",
                         "warn")
                self.say(screen.prompt(v))
                continue
            fresh = False
            if line == "?":
                self.say(screen.help(v))
                continue
            if line.startswith("!"):        # chat (the keyboard sends it when seated): never an answer
                self.say("Chat is not available here.", "dim")
                continue
            if line.startswith("?"):        # "? small market": about a thing on the board
                self.say(screen.explain(v, line[1:].strip()))
                continue
            if line.lower() in QUIT_WORDS:
                self.say(self.leaving, "warn")
                if await self._yes("Leave this game? [y/N] "):
                    raise Quit
                self.say("You stay: here is the question again.", "dim")
                self.say(screen.prompt(v))
                continue
            try:
                if line.lower() in BACK_WORDS:
                    return going_back(p)
                picks = parse_answer(line, len(p["options"]), p["min"], p["max"], first_number(p))
            except BadAnswer as e:
                self.say(str(e), "warn")
                continue
            sure = passing_question(v, picks)
            if sure and not self.auto and not await self._yes(f"{sure} [y/N] "):
                self.say(screen.prompt(v))
                continue
            return [p["options"][i] for i in picks]

    async def _yes(self, question: str) -> bool:
        return (await self.keyboard.readline(question)).strip().lower() in ("y", "yes")

    def finished(self, outcome: Outcome, url: str) -> None:
        say = self.say
        say()
        if outcome.result and self.screen:
            if self.last_view and self.last_view.get("players"):
                say(self.screen.board(self.last_view))
                say()
            say(self.screen.result(outcome.result, outcome.names))
        elif outcome.reason:
            say(f"The match was cancelled: {outcome.reason}", "warn")
        for words in outcome.forfeits:
            say(words, "warn")
        say()
        if outcome.report is not None:
            say(outcome.report.text())
        if outcome.caveat:
            say(outcome.caveat, "warn")
        if outcome.bot_failures:
            say(f"Computer players failed {plural(len(outcome.bot_failures), 'time')} in this match, "
                "and a random move was played each time:", "warn")
            for line, n in Counter(outcome.bot_failures).items():    # the same words, counted once
                say(f"  {line}" + (f" ({n} times)" if n > 1 else ""), "warn")
        say(f"Match record saved: {outcome.record}")
        say(f"Check it again any time, on any machine: {command('verify', outcome.record)}", "dim")


def answer_prompt(table: Table) -> str:
    """What the answer is typed after: with the time the question has left when a clock runs."""
    left = time_left(table.deadline)
    return f"({left} left) > " if left else "> "


def own_phase(v: dict) -> bool:
    """The question belongs to a phase whose role this seat chose (both games name the role and
    its chooser in the view): picking nothing there is likely a slip, so it is confirmed."""
    return v.get("role") is not None and v.get("chooser") == v.get("seat")


def passing_question(v: dict, picks: list) -> str:
    """The yes-or-no question that confirms picking nothing in one's own phase, asked by both
    screens before the answer is sent; "" when the answer needs no confirmation."""
    if picks or not (v.get("prompt") or {}).get("options") or not own_phase(v):
        return ""
    return f"You chose the {v['role']} yourself: pick nothing?"


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return plural(minutes, "minute")
    return f"{seconds:g} seconds"


async def play_seat(player: Terminal, *, session: SeatSession, link: Link | None = None,
                    patience: float = PATIENCE, rate: float = PACE_RATE, cafile: str | None = None,
                    intro: bool = True, resume: str | None = None, after_leaving: str = "") -> int:
    """Play the seat to the end on this screen; the exit code of `join` and `play`. `resume` is
    the command that takes the seat up again after leaving (default: `governor join` of it);
    `governor play`, whose server lives in this process, gives its own, or "" when its game
    cannot be resumed (its server's data is temporary). `after_leaving`: what leaving does, when
    more than that (a host's friends are disconnected)."""
    url = session.url
    join_again = command("join", url, "--table", session.table)
    resume = join_again if resume is None else resume
    if intro:
        print(f"You are at table {session.table}, seat {session.seat + 1}, as {session.name}. "
              f"Others join with: {join_again}")
    if link is None:
        print("Resuming your seat…")
    if not resume:
        after = "The game is abandoned: it cannot be resumed."
    elif resume != join_again:     # the server stops with this process: no bot takes over
        after = f"The game is saved: {resume} offers to resume it."
    else:
        after = ("A computer player takes your seat after the server's grace period; you can come "
                 f"back with: {resume}")
    after = after_leaving or after
    player.leaving = f"If you leave, {after[0].lower()}{after[1:]}"
    try:
        try:
            outcome = await SeatRunner(session, player, link=link, patience=patience, rate=rate,
                                       cafile=cafile).run()
        finally:
            if not resume:
                session.forget()     # its server goes away with this process: nothing to resume
    except EOFError:
        print(f"\nInput closed. {after}" if not resume or resume != join_again else
              f"\nInput closed: your seat is saved. Resume with: {resume}")
        return 0
    except Quit:
        if session.saved or not resume:
            print(f"You left the game. {after}")
        else:
            print("You left the table before the match began: your seat is free again.")
        return 0
    player.finished(outcome, url)
    return 0 if outcome.verified else 1
