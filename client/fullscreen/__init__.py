"""The full-screen table (and `governor join`'s lobby): `governor play`, `join`, `watch` and
`replay` use it when both stdin and stdout are terminals, unless `--plain` asks for the line mode (pipes,
scripts, screen readers).

The entry points here mirror the plain mode's (terminal.play_seat, spectator.watch_table) and
import Textual only when called, so the plain mode never pays for it."""
from __future__ import annotations

import sys
from pathlib import Path

from ..link import PACE_RATE, PATIENCE, Link
from ..render import use_colour
from ..session import SeatSession


def _drop_typed_ahead() -> None:
    """Forget the keys typed before the screen opens (in a lobby, a dialog just closed): none of
    them answers a question its player has not seen."""
    import termios
    try:
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (OSError, ValueError, termios.error):
        pass        # not a terminal: nothing typed ahead to forget


def add_plain_argument(p) -> None:
    p.add_argument("--plain", action="store_true",
                   help="plain lines instead of the full-screen table (for screen readers; "
                        "automatic when input or output is not a terminal)")


def wanted(plain: bool = False) -> bool:
    """The full screen, or the plain line mode? Plain when asked, or when either end of the
    terminal is not one (a pipe, a script, a file)."""
    return not plain and sys.stdin.isatty() and sys.stdout.isatty()


async def play_seat(url: str, *, session: SeatSession, link: Link | None = None, patience: float = PATIENCE,
                    rate: float = PACE_RATE, cafile: str | None = None, resumable: bool = True,
                    resume: str | None = None, invite: str = "", leave_words: str | None = None) -> int:
    """Play the seat to the end on the full screen; the exit code, as terminal.play_seat's.
    `resume`: the command that resumes the game when it is not `governor join` (`governor play`
    keeps its own server's games); `invite`: how friends join, kept under the status line (a
    host's); `leave_words`: the question `q` asks, when not the usual one."""
    from .app import TableApp
    from .bridge import play_job
    job = play_job(url, session, link=link, resumable=resumable, patience=patience, rate=rate, cafile=cafile,
                   resume=resume)
    title = f"table {session.table} · seat {session.seat + 1}, {session.name}"
    words = "Leave this game? It is abandoned." if not resumable else \
        f"Leave this game? It is saved: {resume} offers to resume it." if resume else \
        "Leave the table? A computer plays your seat after the server's grace period; you can come back."
    return await _run(TableApp(job, title=title, leave_words=leave_words or words, invite=invite))


async def watch_table(link: Link, table: str, data_dir: Path, *, patience: float = PATIENCE) -> int:
    """Watch the table to the end on the full screen; the exit code, as spectator.watch_table's."""
    from .app import TableApp
    from .bridge import watch_job
    return await _run(TableApp(watch_job(link, table, data_dir, patience=patience),
                               title=f"watching table {table}", leave_words="Stop watching?"))


async def lobby(link: Link, data_dir: Path, name: str | None = None):
    """The server's lobby on the full screen, until a seat is taken or a table chosen: a
    lobby.Choice (its kind "quit" too when the person leaves)."""
    from .lobby import Choice, LobbyApp
    choice = await LobbyApp(link, data_dir, name).run_async()
    return choice if choice is not None else Choice("quit")


async def replay(steps: list, heading: str) -> int:
    """Step through a finished match (client/replay.py's frames) on the table's screen until q."""
    from .replay import ReplayApp
    return await _run(ReplayApp(steps, heading))


async def _run(app) -> int:
    _drop_typed_ahead()
    code = await app.run_async()
    text = app.result[1]
    if text:
        if not use_colour(sys.stdout):
            from rich.text import Text
            text = Text.from_ansi(text).plain
        print(text)
    return app.result[0] if code is None else code
