"""The real `governor` program in a real (pseudo-)terminal, for tests and benchmarks that play it
as a person does: the installed console script runs in a pty of a chosen size, with its own
temporary data folders; everything it writes is fed, as it comes, to a pyte screen (a terminal
emulator); keys are typed with a person's pauses between them; a test reads the screen as lines
and waits for text to appear on it (polling the screen, never sleeping a fixed time). At the
end the program's whole process group is killed, so nothing it started outlives the test.

    with RealTerminal(play_args("--players", "2", "--bots", "heuristic"), tmp_path, 80, 24) as term:
        term.wait_for("your turn")
        term.type("down", "enter")
        played = play_to_the_end(term)

Every failure (a timeout, the program gone) raises TerminalError with the screen's text in its
message. RealTerminal knows nothing of governor's screens: a test says what to wait for and what
to type. Below it, `play_to_the_end` plays a seat on the full-screen table as a person would,
from what the screen shows (tests/client/conftest.py has the fixture, docs/development.md how to
write a test with it).
"""
from __future__ import annotations

import copy
import errno
import fcntl
import itertools
import os
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import pyte

# The console script of the environment the tests run in: the installed program, as
# `make play` starts it (not the modules imported into the test's own process).
GOVERNOR = Path(sys.executable).with_name("governor")
SIZES = ((80, 24), (100, 32), (120, 40))    # columns × rows the tests play at
KEY_GAP = 0.06          # seconds between two keys typed: a fast typist, never a paste
POLL = 0.05             # how often a wait looks at the screen again

KEYS = {"enter": "\r", "up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
        "space": " ", "backspace": "\x7f", "tab": "\t", "escape": "\x1b", "pageup": "\x1b[5~",
        "pagedown": "\x1b[6~", "ctrl+c": "\x03"}


def play_args(*more: str, new: bool = True) -> list[str]:
    """`governor play`'s arguments for a test: a new game (unless `new` is False: then a saved
    one is offered), a free port, its data folders `client` and `server` in the program's home
    (its working folder); `more` says the rest (game, players, bots)."""
    return ["play", *["--new"] * new, "--port", "0", "--data-dir", "client", "--server-data", "server", *more]


class Screen(pyte.Screen):
    """pyte's screen with the alternate screen a full-screen program draws on (xterm's private
    modes 47, 1047, 1049): while it is on, the main screen is kept aside, and it comes back when
    the program leaves, as in a real terminal; what the program prints as it ends then reads
    on the main screen, under what it printed before, not over the table's last frame."""

    ALTERNATE = (47, 1047, 1049)

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.main: tuple | None = None      # the main screen's rows and cursor, while aside

    def set_mode(self, *modes: int, **kwargs) -> None:
        if kwargs.get("private") and self.main is None and any(m in self.ALTERNATE for m in modes):
            self.main = (copy.deepcopy(self.buffer), copy.copy(self.cursor))
            self.erase_in_display(2)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs) -> None:
        super().reset_mode(*modes, **kwargs)
        if kwargs.get("private") and self.main is not None and any(m in self.ALTERNATE for m in modes):
            self.buffer.clear()
            self.buffer.update(self.main[0])
            self.cursor = self.main[1]
            self.main = None
            self.dirty.update(range(self.lines))


# Run in the new session: its stdin, the pty, becomes its controlling terminal; then it becomes
# the program named by its arguments.
TAKE_TERMINAL = ("import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
                 "os.execv(sys.argv[1], sys.argv[1:])")


class TerminalError(AssertionError):
    """A wait that timed out, or a program that ended or failed; the message holds the screen."""


class RealTerminal:
    """One `governor` process in a pty of `cols` × `rows`. `args` are governor's arguments;
    `home` is a temporary folder: HOME, GOVERNOR_DATA and the data folders live under it, so
    nothing of the person running the tests is read or written."""

    def __init__(self, args: list[str], home: Path, cols: int = 80, rows: int = 24,
                 env: dict[str, str] | None = None, key_gap: float = KEY_GAP) -> None:
        self.args = list(args)
        self.home = Path(home)
        self.key_gap = key_gap
        self.screen = Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()        # the reader thread feeds the screen, tests read it
        self.output = bytearray()           # everything the program wrote, for a failure's message
        self.process: subprocess.Popen | None = None
        self.master = -1
        self.reader: threading.Thread | None = None
        self.env = {**os.environ, "HOME": str(self.home), "GOVERNOR_DATA": str(self.home / "data"),
                    "TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8",
                    "LC_ALL": "C.UTF-8", **(env or {})}
        for name in ("NO_COLOR", "TEXTUAL", "TEXTUAL_DRIVER", "COLUMNS", "LINES"):
            self.env.pop(name, None)  # a developer's settings must not change what is drawn

    # ------------------------------------------------------------ start and stop

    def start(self) -> RealTerminal:
        if not GOVERNOR.exists():
            raise TerminalError(f"{GOVERNOR} is missing: install the project (`make .venv/.installed`)")
        self.home.mkdir(parents=True, exist_ok=True)
        self.master, slave = os.openpty()
        self._set_size(self.master, self.screen.columns, self.screen.lines)
        try:
            # A session of its own with the pty as its controlling terminal, as a shell gives a
            # program: SIGWINCH reaches it on a resize, and killpg reaches all it started. The
            # terminal is taken by a few lines of Python that then become the program (exec:
            # the same process), not by a preexec_fn, which is unsafe in a process with threads.
            self.process = subprocess.Popen(
                [sys.executable, "-c", TAKE_TERMINAL, str(GOVERNOR), *self.args],
                stdin=slave, stdout=slave, stderr=slave, cwd=self.home, env=self.env,
                start_new_session=True, close_fds=True)
        finally:
            os.close(slave)
        self.reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self.reader.start()
        return self

    def close(self) -> None:
        """Kill the program's whole process group (its bot workers included) and wait for it."""
        p = self.process
        if p is not None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=3)
                    break
                except subprocess.TimeoutExpired:
                    continue
            try:
                os.killpg(p.pid, signal.SIGKILL)     # whatever of the group is still there
            except ProcessLookupError:
                pass
            if p.poll() is None:
                p.wait(timeout=5)
            end = time.monotonic() + 5      # a killed process's children go as the kernel gets to them
            while group(p.pid) and time.monotonic() < end:
                time.sleep(POLL)
        if self.reader is not None:
            self.reader.join(timeout=5)
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def pid(self) -> int:
        assert self.process is not None, "the program was not started"
        return self.process.pid

    def exit_code(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError as e:        # EIO: every process holding the pty's other end is gone
                if e.errno in (errno.EIO, errno.EBADF):
                    return
                raise
            if not data:
                return
            with self.lock:
                self.output += data
                self.stream.feed(data)

    # ------------------------------------------------------------ the screen

    def lines(self) -> list[str]:
        """The screen as it is now, one string per row, trailing spaces cut."""
        with self.lock:
            return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def look(self) -> Look:
        """The screen now, with each cell's background and boldness: for the table's checks below."""
        with self.lock:
            buffer, width = self.screen.buffer, self.screen.columns
            return Look(list(self.screen.display), [[(buffer[y][x].bg, buffer[y][x].bold) for x in range(width)]
                                                    for y in range(self.screen.lines)])

    def flowing(self) -> str:
        """The screen's text with the lines the terminal wrapped joined again (a row filled to
        its last column goes on in the next): what a program printed, whatever the width."""
        with self.lock:
            rows = list(self.screen.display)
        return "".join(row if len(row.rstrip()) == self.screen.columns else row.rstrip() + "\n"
                       for row in rows)

    def contains(self, pattern: str | re.Pattern) -> bool:
        text = self.text()
        if isinstance(pattern, re.Pattern):
            return pattern.search(text) is not None
        return pattern in text

    def wait_until(self, ready: Callable[[], object], what: str, timeout: float = 30.0):
        """Poll `ready()` until it returns something true, and return that; TerminalError (with
        the screen) when `timeout` seconds pass, or when the program ends first."""
        end = time.monotonic() + timeout
        while True:
            found = ready()
            if found:
                return found
            code = self.exit_code()
            if code is not None:
                time.sleep(0.2)             # its last words, still in the pty
                found = ready()
                if found:
                    return found
                self.fail(f"the program ended (exit code {code}) while waiting for {what}")
            if time.monotonic() > end:
                self.fail(f"no {what} after {timeout:.0f} s")
            time.sleep(POLL)

    def wait_for(self, pattern: str | re.Pattern, timeout: float = 30.0) -> str:
        """Wait until `pattern` (text, or a regular expression) is on the screen; the screen's text."""
        shown = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
        return self.wait_until(lambda: self.text() if self.contains(pattern) else "", repr(shown), timeout)

    def wait_exit(self, timeout: float = 30.0) -> int:
        end = time.monotonic() + timeout
        while (code := self.exit_code()) is None:
            if time.monotonic() > end:
                self.fail(f"the program is still running after {timeout:.0f} s")
            time.sleep(POLL)
        return code

    def fail(self, why: str) -> None:
        raise TerminalError(f"{why}. `governor {' '.join(self.args)}` at "
                            f"{self.screen.columns}×{self.screen.lines}; the screen:\n"
                            + _framed(self.lines()))

    # ------------------------------------------------------------ keys

    def type(self, *keys: str) -> None:
        """Type keys one by one, a person's pause after each: a name of KEYS ("enter", "down"),
        or text, typed a character at a time."""
        for key in keys:
            chars = [KEYS[key]] if key in KEYS else list(key)
            for c in chars:
                self._write(c.encode())
                time.sleep(self.key_gap)

    def type_at(self, *timed: tuple[float, str], start: float | None = None) -> None:
        """Each key (a name of KEYS, or a character) at its time, in seconds after `start` (a
        time.monotonic(); default now): keys pressed a known moment after another."""
        start = time.monotonic() if start is None else start
        for at, key in sorted(timed, key=lambda t: t[0]):
            time.sleep(max(0.0, start + at - time.monotonic()))
            self._write(KEYS.get(key, key).encode())

    def enter(self) -> None:
        self.type("enter")

    def _write(self, data: bytes) -> None:
        if self.exit_code() is not None:
            self.fail(f"the program ended (exit code {self.exit_code()}) before the key {data!r}")
        os.write(self.master, data)

    # ------------------------------------------------------------ size

    def resize(self, cols: int, rows: int) -> None:
        """Change the terminal's size as a terminal window does: the pty's size (TIOCSWINSZ),
        then SIGWINCH to the program's foreground process group (the kernel sends one too, to
        a controlling terminal's group; sent here as well, so no program misses it)."""
        with self.lock:
            self.screen.resize(rows, cols)
        self._set_size(self.master, cols, rows)
        try:
            os.killpg(os.tcgetpgrp(self.master), signal.SIGWINCH)
        except OSError:
            os.killpg(self.pid, signal.SIGWINCH)

    @staticmethod
    def _set_size(fd: int, cols: int, rows: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    # ------------------------------------------------------------ processes

    def descendants(self) -> list[Process]:
        """Every process under the program, from /proc: its children, theirs, and so on."""
        return descendants(self.pid)

    def leftovers(self) -> list[Process]:
        """Processes of the program's group still alive (after close: none, or something escaped)."""
        return group(self.pid)

    def port(self) -> int | None:
        """The port of the server `governor play` started, as it printed it before the full
        screen (its "Others can watch with" line), or None if it has not yet."""
        with self.lock:
            found = re.search(rb"ws://127\.0\.0\.1:(\d+)", self.output)
        return int(found.group(1)) if found else None


def _framed(lines: list[str]) -> str:
    width = max([len(line) for line in lines] + [1])
    return "\n".join(["+" + "-" * width + "+", *[f"|{line:<{width}}|" for line in lines],
                      "+" + "-" * width + "+"])


class Process:
    """One process as /proc tells it: its id, its parent's, its process group, its state (R, S,
    Z for a zombie…) and its command line."""

    def __init__(self, pid: int, ppid: int, pgid: int, state: str, cmdline: str) -> None:
        self.pid, self.ppid, self.pgid, self.state, self.cmdline = pid, ppid, pgid, state, cmdline

    def __repr__(self) -> str:
        return f"Process({self.pid}, parent {self.ppid}, {self.state}: {self.cmdline[:80]!r})"


def processes() -> list[Process]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:         # gone meanwhile
            continue
        # The command's name, in parentheses, may hold spaces: the fields after it are fixed.
        state, ppid, pgid = stat[stat.rindex(")") + 2:].split()[:3]
        found.append(Process(int(entry.name), int(ppid), int(pgid), state, cmdline))
    return found


def group(pgid: int) -> list[Process]:
    """The live processes of a process group (a zombie, dead and waiting for its parent to read
    its exit, is not counted)."""
    return [p for p in processes() if p.pgid == pgid and p.state != "Z"]


def descendants(pid: int) -> list[Process]:
    every = processes()
    found, parents = [], {pid}
    while True:
        more = [p for p in every if p.ppid in parents]
        if not more:
            return found
        found += more
        parents = {p.pid for p in more}


# ---------------------------------------------------------------- a seat played on the full screen

# What the full-screen table shows (client/fullscreen/app.py): the key line of an open question,
# of a multi-pick, of the yes-or-no question of passing in one's own phase, of the end; the mark
# of a question too new to take an answer; the rule above the question; an option's number.
ASKING = re.compile(r"Enter: (send|go on)")
MARK = re.compile(r"Space: mark (?:(\d+) to \d+|up to \d+|(\d+))")
CONFIRM = "y: pick nothing"
OVER = "Enter or q: close"
NEW = "new question"
RULE = "────"
OPTION = re.compile(r"^\s*(\d+)\. ")
RETYPE = 2.0        # seconds after which an answer the screen did not take is typed again


def options_shown(text: str) -> list[int]:
    """The numbers of the question's options in sight: the lines under the rule above the
    question, left of the log where the log is beside it."""
    lines = text.splitlines()
    below = next((i for i, line in enumerate(lines) if RULE in line), len(lines))
    return sorted({int(m.group(1)) for line in lines[below + 1:]
                   if (m := OPTION.match(line.split("│")[0]))})


def marks_needed(text: str) -> int:
    """How many options a multi-pick needs marked (0: one highlighted option will do)."""
    mark = MARK.search(text)
    return int(mark.group(1) or mark.group(2) or 0) if mark else 0


def first_option(term: RealTerminal, text: str) -> list[str]:
    """A person who takes the highlighted option (the first, as a question opens): Enter; or,
    where several must be marked, the first ones, marked with Space."""
    return ["space", "down"] * marks_needed(text) + ["enter"]


def any_option(rnd) -> Callable[[RealTerminal, str], list[str]]:
    """A person who picks at random among the options in sight by their numbers, marking as
    many as the question needs; `rnd` is a random.Random."""
    def keys(term: RealTerminal, text: str) -> list[str]:
        shown = options_shown(text)
        if "Enter: go on" in text or not shown:
            return ["enter"]
        need = marks_needed(text)
        if need:
            return [k for n in rnd.sample(shown, min(need, len(shown))) for k in (str(n), "space")] + ["enter"]
        return [str(rnd.choice(shown)), "enter"]
    return keys


# ---------------------------------------------------------------- the table as a person reads it

@dataclass
class Look:
    """The screen at one moment: its rows, each as wide as the screen, and each cell's
    background colour and boldness (what tells the question's words, the options list and its
    scroll bar apart, where the text alone does not)."""
    rows: list[str]
    cells: list[list[tuple[str, bool]]]

    @property
    def lines(self) -> list[str]:
        return [row.rstrip() for row in self.rows]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def size(self) -> tuple[int, int]:
        return len(self.rows[0]), len(self.rows)


@dataclass
class Table:
    """The full-screen table's parts, as read from a Look (`read_table`): rows of text, each
    without its pane's padding."""
    look: Look
    rule: int                   # the row of the rule above the question
    side: int                   # the column of the line between the question and the side column
    board: list[str]            # the rows above the rule, under the status line
    question: list[str]         # the question's words (bold), row by row
    options: list[str]          # the options list's rows (an option may take two)
    numbers: list[int]          # the numbers of the options in sight, top to bottom
    scrolls: bool               # the options list shows a scroll bar: more options than rows
    mine_scrolls: bool          # so does the pane of the seat's own things: more lines than rows
    after: list[str]            # the question column's rows under the options (the help line first)
    mine: list[str]             # the seat's own things (the pane over the log)
    hint: str                   # the line under them (its "N more lines below" when they are cut)
    log: list[str]              # the log pane's rows, under the seat's own things

    @property
    def words(self) -> str:
        """The question's words, with the mark of a question too new to answer taken off."""
        return " ".join(" ".join(self.question).replace(NEW, "").split())


class Unreadable(ValueError):
    """A screen whose parts are not where the table puts them; the message says which."""


def read_table(look: Look) -> Table:
    """The parts of the full-screen table on `look`: the rule above the question is the lowest
    row of "─" the screen's width; the side column starts at the column that holds "│" on
    every row between it and the keys line; in the question's column, the bold rows are the
    question's words, the rows with the options list's own background its options (the list
    is scrolled where its right edge has another background: its scroll bar)."""
    cols, height = look.size
    rules = [y for y, line in enumerate(look.lines) if line == "─" * cols]
    if not rules:
        raise Unreadable("no rule across the screen above the question")
    rule = rules[-1]
    middle = range(rule + 1, height - 1)
    if not middle:
        raise Unreadable("no row between the rule above the question and the keys line")
    bars = set.intersection(*({x for x, c in enumerate(look.rows[y]) if c == "│"} for y in middle))
    if not bars:
        raise Unreadable("no line between the question and the column beside it")
    side = min(bars)
    left = [look.rows[y][:side].rstrip() for y in middle]
    words = 0
    while words < len(left) and left[words].strip() and look.cells[rule + 1 + words][_indent(left[words])][1]:
        words += 1
    ground = look.cells[rule][0][0]           # the screen's own background, under the rule
    listed = words
    while listed < len(left) and look.cells[rule + 1 + listed][0][0] != ground:
        listed += 1
    options = left[words:listed]
    scrolls = any(look.cells[rule + 1 + i][side - 1][0] != look.cells[rule + 1 + i][0][0]
                  for i in range(words, listed))
    # The side column's rows without the line, the panes' padding and their scroll bar's column.
    right = [look.rows[y][side + 2:-1].rstrip() for y in middle]
    border = next((i for i, row in enumerate(right) if row.startswith("─")), None)
    if border is None:
        raise Unreadable("no line under the seat's own things in the side column")
    pane = look.cells[rule + 1][side + 2][0]         # the side column's background
    mine_scrolls = any(look.cells[y][cols - 1][0] != pane for y in range(rule + 1, rule + 1 + border))
    return Table(look, rule, side, [row[1:-1].rstrip() for row in look.rows[1:rule]],
                 [row.strip() for row in left[:words]], options,
                 [int(m.group(1)) for row in options if (m := OPTION.match(row))], scrolls, mine_scrolls,
                 left[listed:], right[:border], right[border].strip("─ "), right[border + 1:-1])


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip())


def table_problems(look: Look, game: str = "", log_rows: int = 0, logged: int = 0) -> list[str]:
    """What a person at an open question could not read on `look`, in sentences ([]: all is
    there): the status line on the first row; the keys line on the last; the question's words;
    its options numbered in order (the "none" entry, 0, last), with the help line under them,
    so the list is not cut by the screen's edge; the seat's own things whole, or the hint of
    the lines below where their pane scrolls; `game`'s own checks (San Juan: the whole hand,
    `hand_problems`; Puerto Rico: the building table and the cities in whole rows,
    `row_problems`); a log pane of at least `log_rows` rows, `logged` of them with text."""
    problems = []
    lines = look.lines
    if not re.match(r"\s*table \w+ · seat \d+", lines[0]):
        problems.append(f"the status line is not on the first row: {lines[0]!r}")
    if not ASKING.search(lines[-1]):
        problems.append(f"the keys line is not on the last row: {lines[-1]!r}")
    try:
        table = read_table(look)
    except Unreadable as e:
        return problems + [str(e)]
    if not table.question:
        problems.append("the question's words are not under the rule")
    numbers = table.numbers
    counted = numbers[:-1] if len(numbers) > 1 and numbers[-1] == 0 else numbers   # 0: none, last
    if counted != list(range(counted[0], counted[0] + len(counted)) if counted else []):
        problems.append(f"the options are not numbered in order: {numbers}")
    if numbers and not (table.after and table.after[0].strip()):   # a question with nothing to choose has no list
        problems.append("no help line under the options: the question is cut by the screen's edge")
    if table.mine_scrolls and not HIDDEN.search(table.hint):
        problems.append(f"your own things scroll, with no hint of the lines below: {table.hint!r}")
    if game == "sanjuan":
        problems += hand_problems(table)
    elif game == "puertorico":
        problems += row_problems(table.board) + row_problems(table.mine)
    if len(table.log) < log_rows:
        problems.append(f"the log has {len(table.log)} rows, fewer than {log_rows}")
    if sum(bool(row.strip()) for row in table.log) < logged:
        problems.append(f"the log shows fewer than {logged} lines")
    return problems


HAND = re.compile(r"Your hand \((\d+) cards?")
HIDDEN = re.compile(r"(\d+) more lines? below")


def hand_problems(table: Table) -> list[str]:
    """San Juan: the hand over the log, its heading "Your hand (N cards …" and a line for each
    of the N cards (a card's line starts two spaces in, a long one goes on further in; the
    lines after the cards, as the ones under the chapel, start at the edge), or as many as fit
    and the hint of the lines below."""
    heading = next((i for i, row in enumerate(table.mine) if HAND.match(row)), None)
    if heading is None:
        return ["no \"Your hand (N cards\" heading beside the question"]
    count = int(HAND.match(table.mine[heading]).group(1))
    listed = list(itertools.takewhile(lambda row: row.startswith("  "), table.mine[heading + 1:]))
    cards = sum(1 for row in listed if re.match(r"  [^ (]", row))     # not "(empty)", not a card's rest
    hidden = HIDDEN.search(table.hint)
    if hidden is None and cards != count:
        return [f"the hand holds {count} cards but {cards} are in sight, and no hint of more lines below"]
    if hidden is not None and not cards < count <= cards + int(hidden.group(1)):
        return [f"the hand holds {count} cards, {cards} are in sight and {table.hint!r}"]
    return []


BUILDING = re.compile(r"(?P<name>[A-Z][a-z]+(?: [a-z]+)*) +(?:\d{1,2}(?: ×\d)?|–)")
CITY = re.compile(r"( *)city +\d+/12(?:  (.*))?$")
ITEM = re.compile(r"[a-z][a-z ]*[a-z] [○●]+")


def row_problems(rows: list[str]) -> list[str]:
    """Puerto Rico: the building table's rows and the cities' rows, whole on each screen row.
    A row of the table holds as many cells (a building with its price and copies, or the
    legend "←") as the others, each cell whole (the last row may hold one less: the last
    column is the shortest, and the legend then has a row of its own, "↑"); a city's buildings
    (each with its circles) stand on its row and on the rows under it further in, none broken
    across two."""
    from games.puertorico.components import BUILDINGS    # the building names: the game's own
    names = {b.name for b in BUILDINGS}
    problems, cells_in = [], []
    for row in rows:
        cells = [cell.strip() for cell in row.split(" │ ")]
        first = BUILDING.fullmatch(cells[0])
        if not first or first.group("name") not in names:
            if any(name in row for name in names) or row.strip().startswith("←"):
                problems.append(f"a piece of the building table out of its row: {row.strip()!r}")
            continue
        cells_in.append(len(cells))
        for cell in cells:
            found = BUILDING.fullmatch(cell)
            if not (cell.startswith("← ") or found and found.group("name") in names):
                problems.append(f"a cell of the building table cut: {cell!r} in {row.strip()!r}")
    if cells_in and (any(n != cells_in[0] for n in cells_in[:-1]) or not 0 <= cells_in[0] - cells_in[-1] <= 1):
        problems.append(f"the building table's rows hold {cells_in} cells: a row was split")
    for at, row in enumerate(rows):
        city = CITY.match(row)
        if not city:
            continue
        items = city.group(2) or ""
        for below in rows[at + 1:]:
            if not (below.startswith(city.group(1) + "    ") and below.strip()[:1].islower()):
                break
            items += "  " + below.strip()
        for item in filter(None, (i.strip() for i in items.split("  "))):
            if item != "empty" and not ITEM.fullmatch(item):
                problems.append(f"a building of a city broken across two rows: {item!r} in {row.strip()!r}")
    return problems


def wait_for_table(term: RealTerminal, what: str, timeout: float = 15.0, **checks) -> Table:
    """Wait for the table to show an open question that takes answers, drawn whole (the same on
    two looks in a row) at the terminal's size, with nothing `table_problems(look, **checks)`
    misses; TerminalError with the last problems and the screen after `timeout` seconds."""
    seen = [None, []]

    def ready() -> Table | None:
        look = term.look()
        before, seen[0] = seen[0], look.rows
        if look.rows != before or look.size != (term.screen.columns, term.screen.lines) or not _asking(look.text):
            return None
        seen[1] = table_problems(look, **checks)
        return None if seen[1] else read_table(look)
    try:
        return term.wait_until(ready, what, timeout)
    except TerminalError as e:
        raise TerminalError(f"{e}\nwhat is missing: " + "; ".join(seen[1])) from None


@dataclass
class Asked:
    """A question as the screen showed it (`Table`), for comparing with the record afterwards."""
    size: tuple[int, int]
    words: str
    numbers: list[int]
    scrolls: bool
    screen: str


def asked_in_record(path: Path, seat: int) -> list[dict]:
    """The questions `seat` (from 0) was asked, in order: the prompt of its view before each of
    its moves, replayed from the record as `governor replay` does."""
    from client.replay import frames
    from client.session import read_record
    from protocol.messages import printable
    from protocol.verify import verify
    items, shown = read_record(str(path))
    report = verify(items, shown)
    assert report.ok, report.text()
    steps, _ = frames(items, seat)
    moves = [m for m in items if m.kind == "entry"][-1].body["moves"]
    return [printable(steps[i].view["prompt"]) for i, (who, _) in enumerate(moves) if who == seat]


def entries(prompt: dict) -> list[int]:
    """The numbers a question's options are shown with: from its first number (1, or the first
    count where they are counts), and 0 for "none" where nothing may be picked."""
    from client.render import first_number
    first = first_number(prompt)
    return [first + i for i in range(len(prompt["options"]))] + [0] * (prompt["min"] == 0 < prompt["max"])


def unlike_record(asked: list[Asked], prompts: list[dict]) -> list[str]:
    """Where the questions shown differ from the ones the record says were asked: a question's
    words not all in sight, or an option missing from sight while the list shows no scroll bar."""
    if len(asked) != len(prompts):
        return [f"{len(asked)} questions shown, the record asked {len(prompts)}"]
    problems = []
    for n, (shown, prompt) in enumerate(zip(asked, prompts), 1):
        words = " ".join(prompt["text"].split())
        where = f"question {n} at {shown.size[0]}×{shown.size[1]}"
        if shown.words != words:
            problems.append(f"{where}: {shown.words!r} shown, the question is {words!r}\n{shown.screen}")
        want = entries(prompt)
        if shown.numbers != want and not (shown.scrolls and shown.numbers == want[:len(shown.numbers)]):
            problems.append(f"{where}: options {shown.numbers} in sight (scroll bar: {shown.scrolls}), "
                            f"the question has {want}\n{shown.screen}")
    return problems


class Played:
    """What a seat played to the end on the full screen saw: the questions answered, the most
    bot worker processes seen at once under the program, every line the screen showed (the log
    scrolls: a line may be gone by the end), and the end screen's text."""

    def __init__(self) -> None:
        self.questions = 0
        self.workers = 0
        self.seen: set[str] = set()
        self.end = ""

    def look(self, term: RealTerminal) -> str:
        text = term.text()
        self.seen.update(text.splitlines())
        return text


def bot_workers(term: RealTerminal) -> list[Process]:
    """The program's bot worker processes (server/deciders.py's pool: multiprocessing's spawned
    interpreters), among the processes under it."""
    return [p for p in term.descendants() if "multiprocessing.spawn" in p.cmdline]


def _asking(text: str) -> str:
    """The screen's text when it asks something that takes an answer now (or shows the end), else ""."""
    if OVER in text or CONFIRM in text or (ASKING.search(text) and NEW not in text):
        return text
    return ""


def play_to_the_end(term: RealTerminal, answer=first_option, limit: float = 120.0,
                    at_question: Callable[[RealTerminal, str], str] | None = None,
                    questions: int | None = None) -> Played:
    """Answer every question of the seat on the full screen until the end screen: wait for a
    question to be shown and to take answers (no longer marked new: a person's time to read it),
    type `answer(term, text)`'s keys, and wait for the screen to take them (typed again if it did not
    change within RETYPE seconds: a key the table dropped). `at_question(term, text)`, where
    given, reads each question first (once, not again for keys typed again) and returns the
    screen to answer from (it may resize the terminal). `questions`: stop once that many are
    answered, before the end (`Played.end` is then ""). Counts the bot workers under the
    program as it goes. TerminalError (with the screen) when the game has not ended after
    `limit` seconds."""
    played = Played()
    end = time.monotonic() + limit

    def left() -> float:
        return max(0.1, end - time.monotonic())

    shown = [""]
    untaken = ""        # the screen the keys typed last did not change

    def asking() -> str:
        """The screen, once it asks and is drawn whole: the same on two looks in a row."""
        text = played.look(term)
        before, shown[0] = shown[0], text
        return _asking(text) if text == before else ""

    while True:
        played.workers = max(played.workers, len(bot_workers(term)))
        text = term.wait_until(asking, "question or end of the game", left())
        if OVER in text:
            played.end = text
            return played
        if questions is not None and played.questions >= questions:
            return played
        new = CONFIRM not in text and text != untaken
        if new and at_question is not None:
            text = at_question(term, text)
        keys = ["y"] if CONFIRM in text else answer(term, text)
        term.type(*keys)
        played.questions += new
        took = time.monotonic() + min(RETYPE, left())
        while played.look(term) == text and time.monotonic() < took:
            time.sleep(POLL)
        untaken = text if played.look(term) == text else ""     # the keys are typed again
        if time.monotonic() > end:
            term.fail(f"the game is not over after {limit:.0f} s ({played.questions} questions answered)")
