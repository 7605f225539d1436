"""Between the network and the full-screen table: `ScreenPlayer` is the Player a SeatRunner (or a
Spectator) drives. It hands the log to the plain mode's Terminal, whose lines go to the log panel
instead of stdout (so both modes log the same words, but for who the table waits for, which the
app keeps on one line), and the view and the question to the app.
`play_job` and `watch_job` are the app's jobs: a seat played, or a table watched, to the end."""
from __future__ import annotations

import asyncio
import io
from pathlib import Path

from games.choice import is_back

from ..hints import command
from ..link import Link
from ..render import renderer_for
from ..seat import Player, SeatRunner
from ..session import SeatSession, save_record
from ..spectator import Spectator
from ..table import Table
from ..terminal import Quit, Terminal
from .app import Ask, Leaving, TableApp, Withdraw


class LogOut(io.TextIOBase):
    """A file the plain Terminal prints to: each finished line goes to the log panel."""

    def __init__(self, app: TableApp) -> None:
        self.app = app
        self.partial = ""

    def write(self, text: str) -> int:
        lines = (self.partial + text).split("\n")
        self.partial = lines.pop()
        for line in lines:
            self.app.log_line(line)
        return len(text)


class LogTerminal(Terminal):
    """The plain mode's Terminal writing to the log pane, less its "Waiting for …" lines: the app
    shows who the table waits for on one line under the log that changes in place (one line a
    move would fill the log with them)."""

    def _waiting(self, table: Table) -> None:
        pass


class ScreenPlayer(Player):
    def __init__(self, app: TableApp, url: str) -> None:
        self.app = app
        self.url = url
        self.plain = LogTerminal(url, colour=True, out=LogOut(app))

    def connection(self, state: str, detail: str = "") -> None:
        self.plain.connection(state, detail)
        self.app.set_connection(state)

    def update(self, table: Table, happened: list[tuple]) -> None:
        self.plain.update(table, happened)
        if (table.dealing == "blind") != self.app.blind:
            self.app.set_blind(table.dealing == "blind")
        v = table.view
        if v is not None:
            renderer = self.plain.screen or renderer_for(v, True)
            waiting = renderer.waiting(v) if v.get("to_act") and not v.get("prompt") and not v.get("over") else ""
            self.app.show_view(v, renderer, waiting, table.deadline)

    async def decide(self, table: Table) -> list:
        v = table.view
        answer = asyncio.get_running_loop().create_future()
        self.app.post_message(Ask(v, answer))
        try:
            picks = await answer
        except Leaving:
            raise Quit from None
        finally:
            if not answer.done():
                answer.cancel()
                self.app.post_message(Withdraw())
        if is_back(picks):          # `b`: the move itself (question.py), no option indices
            return picks
        options = v["prompt"]["options"]
        return [options[i] for i in picks]

    def bind_chat(self, send) -> None:
        self.app.send_chat = send

    def stop_deciding(self, table: Table) -> None:
        self.plain.stop_deciding(table)
        self.app.post_message(Withdraw())

    def ending(self) -> io.StringIO:
        """From now on the plain mode prints here: what it says at the end is shown in the app
        and left on the terminal after it."""
        out = io.StringIO()
        self.plain.out = out
        return out


def play_job(url: str, session: SeatSession, *, link: Link | None, resumable: bool,
             resume: str | None = None, **runner):
    """The app's job for a seat: play it to the end; (exit code, the text to leave behind)."""
    async def job(app: TableApp) -> tuple[int, str]:
        player = ScreenPlayer(app, url)
        try:
            try:
                outcome = await SeatRunner(session, player, link=link, **runner).run()
            finally:
                if not resumable:
                    session.forget()     # the server goes away with this process
        except (Quit, asyncio.CancelledError):
            return 0, _left(url, session, resumable, resume)
        out = player.ending()
        player.plain.last_view = None       # the board is on the screen already: the rest
        player.plain.finished(outcome, url)
        app.headline = (outcome.report.text().splitlines()[-1] if outcome.report is not None
                        else f"It was cancelled: {outcome.reason}" if outcome.reason else "")
        return (0 if outcome.verified else 1), out.getvalue().strip("\n")
    return job


def _left(url: str, session: SeatSession, resumable: bool, resume: str | None = None) -> str:
    if not resumable:
        return "You left the game."
    if resume and session.saved:
        return f"You left the game. The game is saved: {resume} offers to resume it."
    if session.saved:
        return ("You left the game. A computer player takes your seat after the server's grace period; "
                f"to come back: {command('join', url, '--table', session.table)}")
    return "You left the table before the match began: your seat is free again."


def watch_job(link: Link, table: str, data_dir: Path, *, patience: float):
    """The app's job for a spectator: watch to the end, audit, save the public record."""
    async def job(app: TableApp) -> tuple[int, str]:
        player = ScreenPlayer(app, link.url)
        app.set_connection("connected")     # the link is open; a Spectator tells only of reconnects
        try:
            t = await Spectator(link.url, table, player, link=link, patience=patience).run()
        except asyncio.CancelledError:
            return 0, "You stopped watching."
        if t.header is None:
            return 0, "The table was closed before its match began."
        v, screen, lines = t.view or {}, player.plain.screen, []
        if v.get("result") and screen:
            lines += [screen.result(v["result"], [p["name"] for p in v["players"]]), ""]
        report = t.audit()
        app.headline = report.text().splitlines()[-1]
        path = save_record(data_dir, t.exchange.record, t.header["game_id"], "public", shown=t.shown)
        lines += [report.text(), f"Public match record saved: {path}"]
        return (0 if report.ok else 1), "\n".join(lines)
    return job
