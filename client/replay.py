"""`governor replay RECORD`: step through a finished match, forward and back, seeing the board
as the record's holder saw it after each move (their hand too: the record holds what they were
shown), with the log of what happened. In a terminal it is the table's full screen, as it
looked to the player; `--plain` (or a pipe) prints each step as lines instead.

    governor replay 1                  the newest record of `governor records`
    governor replay FILE.govrec        any record file
    governor replay 1 --seat 2         a record that holds several seats' cards (selfplay's)

Keys on the full screen: → or n (or Enter), the next move; ← or p, the move before; Home, the
deal; End, the last move; `?` and a name explains it; q quits.
Plain lines: Enter or n, the next move; p, the move before; a number, that move; q, quit.
RECORD is a file, a number of the `governor records` list, or part of a record's name.
The record is audited first, and only an honest one is replayed: the moves are played again
through the rules, from the seeds the record reveals, exactly as the audit does.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

from games.choice import is_back
from protocol import record
from protocol.fairness import Streams, master_key
from protocol.messages import check_header, printable
from protocol.verify import verify

from . import fullscreen
from .answers import QUIT_WORDS, number_in
from .hints import command
from .render import Renderer, renderer_for, use_colour
from .session import add_data_dir, default_data_dir, find_record, read_record

LOG_LINES = 12       # the log shown under the board: the latest lines, so a screen holds it


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help=f"a record file, its number in `{command('records')}`, or part of its name")
    p.add_argument("--seat", type=int, default=None, metavar="N",
                   help="whose view to show (1 for the first seat), when the record holds several")
    fullscreen.add_plain_argument(p)
    add_data_dir(p)


@dataclass
class Frame:
    """The match after one move (or after the deal): what to show."""
    title: str           # "Move 12 of 230: Bo" or "The deal"
    view: dict           # the match as the holder saw it
    log: list[str]       # the log lines of this move
    screen: Renderer     # draws the view (one for every frame of a replay)

    @property
    def board(self) -> str:
        return self.screen.board(self.view)

    @property
    def result(self) -> str:
        """The score table, after the last move; "" before."""
        result = self.view.get("result")
        return self.screen.result(result, [p["name"] for p in self.view["players"]]) if result else ""


def frames(items: list, seat: int | None, colour: bool = False) -> tuple[list[Frame], list[str]]:
    """Every step of an audited, finished record, as `seat` (None: a spectator) saw it, and the
    players' names. Replays the way the audit does (protocol/verify.py); the audit has checked
    every field used here, so nothing is checked again."""
    entries = [m for m in items if m.kind == "entry"]
    header, end = entries[0].body, entries[-1].body
    engine = check_header(header)
    options = engine.INFO.check_options(header["options"])
    seats = header["seats"]
    names = [s["name"] for s in seats]
    seeds = entries[2].body["seeds"]
    streams = Streams(master_key(entries[0].hash, end["server_seed"],
                                 [(s["id"], seed) for s, seed in zip(seats, seeds)]))
    state = engine.setup(names, options, streams)
    view = engine.view(state, seat)
    screen = renderer_for(view, colour)
    out = [Frame("The deal", view, [], screen)]
    moves = end["moves"]
    for i, (who, action) in enumerate(moves, 1):
        events = engine.apply(state, who, action, streams)
        seen = [e["text"] for e in events if e["to"] is None or (seat is not None and e["to"] == seat)]
        # A move back tells nobody anything: its title is all that says what it was.
        went_back = " goes back to the start of a decision" if is_back(action) else ""
        out.append(Frame(f"Move {i} of {len(moves)}: {names[who]}{went_back}", engine.view(state, seat), seen,
                         screen))
    return out, names


def holder(report, wanted: int | None, names: list[str]) -> int | None:
    """The seat whose view to show: the one asked for, else the one whose private messages the
    record holds (a player's own record), else None: a spectator's view."""
    if wanted is not None:
        if not 1 <= wanted <= len(names):
            raise LookupError(f"--seat {wanted}: this match has seats 1 to {len(names)}")
        return wanted - 1
    return report.seats_checked[0] if report.seats_checked else None


def show(frame: Frame, at: int, frames_: list[Frame], heading: str) -> None:
    log = [line for f in frames_[max(0, at - 8):at + 1] for line in f.log][-LOG_LINES:]
    print()
    print(heading)
    print(f"— {frame.title} —")
    print(frame.board)
    if frame.result:
        print()
        print(frame.result)
    print()
    print("Log (latest last):")
    for line in log or ["(nothing yet)"]:
        print(f"  {printable(line)}")
    print("Enter or n: next move   p: back   a number: that move   q: quit")


def run(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    try:
        path = find_record(data_dir, args.record, command("records"))
        items, shown = read_record(str(path))
    except LookupError as e:
        print(f"governor replay: {e.args[0]}", file=sys.stderr)
        return 2
    except (OSError, record.RecordError) as e:
        print(f"governor replay: {args.record[:80]} is not a readable match record: {e}", file=sys.stderr)
        return 2
    report = verify(items, shown)
    if not report.ok:
        print(report.text())
        print(f"governor replay: {path.name} does not pass its audit: it is not replayed.", file=sys.stderr)
        return 1
    if report.scores is None:
        print(f"governor replay: {path.name} is of a match that was cancelled: there is nothing to step "
              "through.", file=sys.stderr)
        return 1
    try:
        seat = holder(report, args.seat, report.names)
    except LookupError as e:
        print(f"governor replay: {e.args[0]}", file=sys.stderr)
        return 2
    full = fullscreen.wanted(args.plain)
    steps, names = frames(items, seat, full or use_colour(sys.stdout))
    who = f"as {names[seat]} saw it" if seat is not None else "as a spectator saw it (no hand is shown)"
    heading = printable(f"Replay of {report.game}, {', '.join(names)}: {who}")
    if full:
        return asyncio.run(fullscreen.replay(steps, heading))
    return step_through(steps, heading)


def step_through(steps: list[Frame], heading: str) -> int:
    """The plain mode: a step printed, then a line read, until q or the end of input."""
    at, redraw = 0, True
    while True:
        if redraw:
            show(steps[at], at, steps, heading)
        redraw = True
        sys.stdout.write("replay> ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:                     # the end of input: as q
            print()
            return 0
        word = line.strip().lower()
        if word in QUIT_WORDS:
            return 0
        if word in ("", "n", "next"):
            if at == len(steps) - 1:
                print("That was the last move: p goes back, q quits.")
                redraw = False
                continue
            at += 1
        elif word in ("p", "b", "back", "prev"):
            if at == 0:
                print("This is the deal, before the first move: Enter goes forward, q quits.")
                redraw = False
                continue
            at -= 1
        elif number_in(word, 0, len(steps) - 1) is not None:
            at = number_in(word, 0, len(steps) - 1)
        else:
            shown = word if len(word) <= 20 else word[:17] + "..."
            print(f"{shown!r}: type Enter or n for the next move, p for the one before, a number from 0 "
                  f"to {len(steps) - 1} for that move, or q to quit.")
            redraw = False
