"""The lobby on the full screen (`governor join URL` on a terminal): the server's tables, kept
up to date, to sit at, watch or take up again, a table to create, and the name to sit with. It
ends with a seat taken (saved first, by the plain lobby's `sit`), a table to watch, a saved seat
to resume, or nothing; the full-screen table comes next (client/join.py).

What is listed, asked and checked is the plain lobby's (client/lobby.py): `describe_table` for a
table's line, `table_is_open`, `player_name`, `sit`, and the create dialog's questions
(`table_spec`, from the game's INFO and the bots' levels). Here they are laid out, and each
question is a list picked with the arrows or a number and Enter, as the table's own questions
are; Esc goes back.
"""
from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static

from ..errors import ClientError
from ..link import DROPPED, Link, ServerRefused, why_dropped
from ..lobby import player_name, sit, table_id, table_is_open, table_spec
from ..render import BLIND_MEANS, describe_table
from ..session import SeatSession

REFRESH = 3.0       # seconds between two listings of the tables


@dataclass
class Choice:
    """What the lobby ended with: "sit" (with the seat taken), "watch", "resume" or "quit"."""
    kind: str
    table: str | None = None
    session: SeatSession | None = None


class Pick(ModalScreen[int | None]):
    """One question of the create dialog: a list, picked by arrows or number and Enter; Esc
    backs out (None)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "back")]
    DEFAULT_CSS = """
    Pick { align: center middle; }
    Pick > Vertical { width: 70; height: auto; max-height: 90%; border: thick $primary; background: $surface; }
    Pick #pick-title { padding: 0 1; color: $accent; text-style: bold; }
    Pick OptionList { height: auto; max-height: 16; border: none; }
    Pick #pick-keys { padding: 0 1; color: $text-muted; }
    """

    def __init__(self, title: str, labels: list[str], default: int = 0) -> None:
        super().__init__()
        self.title_text, self.labels, self.default = title, labels, default
        # Choices that are numbers (players, rounds) are picked by their own number, the others
        # by their place in the list.
        self.numbered = not any(label.split(":")[0].isdigit() for label in labels)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), id="pick-title")
            yield OptionList(*[Text(f"{i}. {label}" if self.numbered else label)
                               for i, label in enumerate(self.labels, 1)], id="pick")
            yield Static("↑↓ or a number: choose · Enter: take it · Esc: back", id="pick-keys")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.default
        options.focus()

    def on_key(self, event) -> None:
        if not (event.character and event.character.isdigit()):
            return
        d = event.character
        at = [k for k, label in enumerate(self.labels) if label == d] if not self.numbered else \
            [int(d) - 1] if 1 <= int(d) <= len(self.labels) else []
        if at:
            self.query_one(OptionList).highlighted = at[0]
            event.stop()

    def on_option_list_option_selected(self, msg: OptionList.OptionSelected) -> None:
        self.dismiss(msg.option_index)


class AskName(ModalScreen[str | None]):
    """The name to sit with, checked as the plain lobby checks it: a bad one is explained and
    stays to be corrected. Esc backs out (None)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "back")]
    DEFAULT_CSS = """
    AskName { align: center middle; }
    AskName > Vertical { width: 60; height: auto; border: thick $primary; background: $surface; padding: 0 1; }
    AskName #name-error { color: $error; height: auto; }
    """

    def __init__(self, why: str = "") -> None:
        super().__init__()
        self.why = why

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Your name at the table (Enter: sit down · Esc: back)")
            yield Input(placeholder="1 to 20 characters", id="name")
            yield Static(Text(self.why), id="name-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, msg: Input.Submitted) -> None:
        try:
            self.dismiss(player_name(msg.value))
        except argparse.ArgumentTypeError as e:
            self.query_one("#name-error", Static).update(Text(f"{str(e)[0].upper()}{str(e)[1:]}: please type another."))


class LobbyApp(App[Choice]):
    """The tables of one server, on the whole screen, until a seat is taken or a table chosen."""

    TITLE = "Governor"
    AUTO_FOCUS = "#tables"
    CSS = """
    #status { height: 1; background: $primary-background; padding: 0 1; }
    #saved { height: auto; padding: 0 1; color: $warning; }
    #tables { height: 1fr; border: none; }
    #legend { height: auto; padding: 0 1; color: $text-muted; }
    #message { height: auto; max-height: 4; padding: 0 1; color: $accent; }
    #keys { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("w", "watch", show=False),
        Binding("c", "create", show=False),
        Binding("r", "resume", show=False),
        Binding("f5", "refresh", show=False),
        Binding("q", "quit_lobby", show=False),
        Binding("ctrl+c", "quit_lobby", show=False, priority=True),
    ]

    def __init__(self, link: Link, data_dir: Path, name: str | None = None) -> None:
        super().__init__()
        self.link = link
        self.data_dir = Path(data_dir)
        self.player = name
        self.saved = SeatSession.unfinished(data_dir, link.welcome["key"])
        self.tables: list[dict] = []        # as listed, the ones waiting or being played
        self.lock = asyncio.Lock()          # one request on the link at a time
        self.listings = 0                   # listings received, for tests

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.link.url} · server key {self.link.fingerprint or '?'}"), id="status")
        yield Static(id="saved")
        yield OptionList(id="tables")
        yield Static(id="legend")
        yield Static(id="message")
        yield Static(Text("↑↓: a table · Enter: sit there · w: watch it · c: create a table"
                          + (" · r: resume your seat" if self.saved else "") + " · q: leave"), id="keys")

    def on_mount(self) -> None:
        if self.saved:
            s = self.saved[0]
            self.query_one("#saved", Static).update(Text(
                f"You have an unfinished seat here: table {s.table}, seat {s.seat + 1}, as {s.name}. r resumes it."))
        self.run_worker(self.refresh_tables())
        self.set_interval(REFRESH, lambda: self.run_worker(self.refresh_tables()))

    def say(self, text: str) -> None:
        self.query_one("#message", Static).update(Text(text))

    async def refresh_tables(self) -> None:
        if self.lock.locked():
            return                          # a request is under way: the next tick lists them
        try:
            async with self.lock:
                listed = await self.link.tables()
        except (ClientError, *DROPPED) as e:     # said, not a traceback
            self.say(f"Could not list the tables: {trouble(e)}")
            return
        self.listings += 1
        tables = [t for t in listed if t.get("status", t.get("state")) in ("waiting", "playing")]
        options = self.query_one("#tables", OptionList)
        keep = self.highlighted_id()
        self.tables = tables
        self.query_one("#legend", Static).update(
            Text(f"({BLIND_MEANS})" if any(t.get("blind") is True for t in tables) else ""))
        options.clear_options()
        if not tables:
            options.add_option(Text("No table is waiting or being played: c creates one."))
            options.disabled = True
            return
        options.disabled = False
        options.add_options([Text(f"{i:>2}. {describe_table(t)}") for i, t in enumerate(tables, 1)])
        ids = [table_id(t) for t in tables]
        options.highlighted = ids.index(keep) if keep in ids else 0

    def highlighted_id(self) -> str | None:
        k = self.query_one("#tables", OptionList).highlighted
        return table_id(self.tables[k]) if self.tables and k is not None and k < len(self.tables) else None

    # ------------------------------------------------------------ the keys

    def on_option_list_option_selected(self, msg: OptionList.OptionSelected) -> None:
        if msg.option_list.id != "tables" or not self.tables:
            return
        t = self.tables[msg.option_index]
        if not table_is_open(t):
            self.say(f"Table {table_id(t)} has no free seat: w watches it.")
            return
        self.take_seat(table_id(t))

    def on_key(self, event) -> None:
        """A number jumps to that table, as in the plain lobby's list."""
        if self.screen is self.screen_stack[0] and event.character and event.character.isdigit():
            k = int(event.character) - 1
            if 0 <= k < len(self.tables):
                self.query_one("#tables", OptionList).highlighted = k
                event.stop()

    def action_watch(self) -> None:
        table = self.highlighted_id()
        if table is None:
            self.say("There is no table to watch.")
            return
        self.exit(Choice("watch", table))

    def action_resume(self) -> None:
        if not self.saved:
            self.say("You have no unfinished seat at this server.")
            return
        self.exit(Choice("resume", self.saved[0].table))

    def action_refresh(self) -> None:
        self.run_worker(self.refresh_tables())

    def action_quit_lobby(self) -> None:
        if self.screen is not self.screen_stack[0]:
            self.screen.dismiss(None)       # a dialog open: Ctrl-C or q backs out of it first
            return
        self.exit(Choice("quit"))

    def action_create(self) -> None:
        self.create_table()

    # ------------------------------------------------------------ sitting down, creating

    async def ask_name(self, why: str = "") -> str | None:
        if self.player is not None and not why:
            return self.player
        self.player = await self.push_screen(AskName(why), wait_for_dismiss=True)
        return self.player

    @work(exclusive=True, group="dialog")
    async def take_seat(self, table: str) -> None:
        """Sit at `table` with a name; a name taken there is asked again, any other refusal is
        said and the lobby goes on."""
        why = ""
        while True:
            name = await self.ask_name(why)
            if name is None:
                return
            try:
                async with self.lock:
                    session = await sit(self.link, table, name, self.data_dir)
            except ServerRefused as e:
                if e.code == "name_taken":      # names are unique at a table
                    why = str(e)
                    continue
                self.say(f"Could not sit at table {table}: {e}")
                self.run_worker(self.refresh_tables())
                return
            except (ClientError, *DROPPED) as e:
                self.say(f"Could not sit at table {table}: {trouble(e)}")
                return
            self.exit(Choice("sit", table, session))
            return

    @work(exclusive=True, group="dialog")
    async def create_table(self) -> None:
        """The create dialog, one question at a time (the plain lobby's questions); the name
        comes first, so that a refused name never leaves an empty table behind."""
        name = await self.ask_name()
        if name is None:
            return
        spec = await table_spec(self.pick)
        if spec is None:
            self.say("No table created.")
            return
        game, seats, levels, options, rated, blind = spec
        try:
            async with self.lock:
                table = await self.link.create(game, seats, len(levels), options, levels=levels, rated=rated,
                                               blind=blind)
        except ServerRefused as e:
            self.say(f"The server refused: {e}")
            return
        except (ClientError, *DROPPED) as e:
            self.say(f"No table created: {trouble(e)}")
            return
        self.say(f"Created table {table}.")
        self.take_seat(table)

    async def pick(self, question: str, choices: list[str], default: int, about: list[str] | None = None) -> int | None:
        labels = [f"{c}: {a}" for c, a in zip(choices, about)] if about else choices
        return await self.push_screen(Pick(f"{question}?" if not question.endswith("?") else question, labels,
                                           default), wait_for_dismiss=True)


def trouble(e: BaseException) -> str:
    """What went wrong, in words: the server's refusal, or a lost connection (after which only
    leaving is left: `q`)."""
    return f"{why_dropped(e)}. q leaves." if isinstance(e, DROPPED) else str(e)
