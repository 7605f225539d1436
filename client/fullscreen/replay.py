"""`governor replay` on the table's screen: the TableApp that a player sees, fed a finished
match's steps (client/replay.py's frames) instead of a live table. The board is the step's view,
as the record's holder saw it; the log holds every line up to the step; where the question goes,
the step's title and the question the holder was asked there, and after the last move the
score table. No question is ever open: the keys step through the match."""
from __future__ import annotations

import asyncio

from textual.actions import SkipAction
from textual.binding import Binding
from textual.widgets import OptionList, Static

from protocol.messages import printable

from .app import Log, TableApp, ansi


def asked(view: dict) -> str:
    """The question the view's seat had open at this step, as words (it is not answered here)."""
    prompt = view.get("prompt")
    if not prompt:
        return ""
    p = printable(prompt)
    return "\n".join([f"Asked: {p['text']}", *(f"  {i}. {' '.join(label.split())}"
                                                 for i, label in enumerate(p["labels"], 1))])


class ReplayApp(TableApp):
    BINDINGS = [
        Binding("right", "step(1)", show=False),
        Binding("n", "step(1)", show=False),
        Binding("left", "step(-1)", show=False),
        Binding("p", "step(-1)", show=False),
        Binding("home", "go(0)", show=False),
        Binding("end", "go(-1)", show=False),
    ]

    def __init__(self, steps: list, heading: str) -> None:
        super().__init__(self._show_first, title=heading)
        self.steps = steps
        self.at = 0

    async def _show_first(self, app) -> tuple[int, str]:
        """The app's job: the deal on the screen, then nothing until q (which ends the app)."""
        self.query_one("#options", OptionList).display = False
        self.action_go(0)
        await asyncio.Event().wait()
        return 0, ""

    def _not_typing(self) -> None:
        """A key of the replay's is not one while a name is typed after `?`: it goes to the line."""
        if self._typing():
            raise SkipAction()

    def action_step(self, by: int) -> None:
        self._not_typing()
        self.action_go(min(max(self.at + by, 0), len(self.steps) - 1))

    def action_go(self, at: int) -> None:
        """Show step `at` (-1: the last)."""
        self._not_typing()
        at = at % len(self.steps)
        forward_one = at == self.at + 1
        self.at = at
        step = self.steps[at]
        self.show_view(step.view, step.screen, "")
        if forward_one:          # the log so far is on the screen: add this move's lines
            for line in step.log:
                self.log_line(printable(line))
        else:
            self.logged[:] = [ansi(printable(line)) for s in self.steps[:at + 1] for line in s.log]
            self.query_one("#log", Log).reflow()
        self.screen.set_class(bool(step.result), "ended")     # the score table where the question was
        self.query_one("#qtext", Static).update(step.title)
        self.query_one("#note-text", Static).update(ansi(step.result) if step.result else asked(step.view))
        self._status()

    def action_send(self) -> None:
        """Enter: the next move, as in the plain mode."""
        self.action_step(1)

    def action_quit_table(self) -> None:
        """q: a replay changes nothing, so it ends without asking."""
        self._not_typing()
        self.exit(0)

    def _status(self) -> None:
        self.query_one("#status", Static).update(f"{self.heading} · {self.steps[self.at].title}")

    def _keys(self) -> None:
        text = ("type a name · Enter: explain · Esc: back" if self._typing() else
                "→/n next · ←/p back · Home/End: deal, last · PgUp/PgDn board · q quit")
        self.query_one("#keys", Static).update(text)
