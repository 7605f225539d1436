"""The full-screen table (Textual): a status line (with the clock the server says our question
has), the board (its head, the round and the roles, kept in place above the rest on a screen
tall enough), the log of the whole game, the question as a list, a line of help for the
highlighted option, and the keys.

Everything drawn comes from the plain mode's pieces: the board and the score table from the
game's Text through client/render.py's Renderer, the log lines from client/terminal.py's
Terminal (bridge.py feeds it), the question's meaning from question.py. This module only
places them on the screen and turns keys into picks.

Input you can trust: a question is opened by a message posted to the app's queue (`Ask`), so a
key that reached the app before the question did is handled first, while no question is open,
and is dropped. The question keys are app-wide "priority" bindings for the same reason: they are
handled in the app's queue, in order with `Ask`, never in a widget's queue of its own. A
question just opened takes no answer for a moment (QUESTION_SETTLE, as in the plain mode): a key
that answers (Enter, a number, Space, `b`, Backspace) pressed meanwhile, by the time Textual
stamped it with as it arrived, is dropped and the screen says so; the arrows still move. A
yes-or-no question (`Confirm`: leaving, or picking nothing in one's own phase) likewise takes
only keys pressed after it opened.
"""
from __future__ import annotations

import asyncio

from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, RichLog, Static

from protocol.messages import printable

from ..answers import QUESTION_SETTLE, SETTLING, no_option
from ..render import time_left
from ..terminal import passing_question
from .question import BadAnswer, Question

WIDE = 110      # from this many columns the log sits beside the question, not under it
TALL = 30       # from this many rows the board's head (round, roles) stays in place above the
                # rest of the board, which scrolls under it; below, all of it scrolls together,
                # or the rest would have no room at all


# The keys that answer a question, dropped while it is new (see the module's docstring).
ANSWER_KEYS = frozenset({"enter", "space", "b", "backspace", *map(str, range(10))})


def now() -> float:
    """Textual's clock, which stamps every key with the time it arrived: a new message reads it."""
    return Message().time


def ansi(text: str) -> Text:
    """The plain mode's text, coloured with ANSI codes by the Renderer, as Rich text."""
    return Text.from_ansi(text)


class Ask(Message):
    """Open a question: the view it is asked on, and the future its answer goes to."""

    def __init__(self, view: dict, answer: asyncio.Future) -> None:
        super().__init__()
        self.view, self.answer = view, answer


class Withdraw(Message):
    """The open question went away (the game moved on, or our time ran out)."""


class Leaving(Exception):
    """The person confirmed they leave, while a question was open."""


class Confirm(ModalScreen[bool]):
    """A yes-or-no question over the table: leaving (a stray `q` must not end a game), or
    picking nothing in a phase one chose. Only keys pressed after it opened answer it: a `y`
    typed ahead, still in the queue behind the key that opened it, is dropped."""

    BINDINGS = [Binding("y", "answer(True)", "yes"), Binding("n", "answer(False)", "no"),
                Binding("escape", "answer(False)", "no"), Binding("enter", "answer(False)", "no")]
    DEFAULT_CSS = """
    Confirm { align: center middle; }
    Confirm > Static { width: 60; height: auto; padding: 1 2; border: thick $warning; background: $surface; }
    """

    def __init__(self, words: str, yes: str, no: str) -> None:
        super().__init__()
        self.words, self.yes, self.no = words, yes, no
        self.opened = now()     # on the clock the keys are stamped with

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.words}\n\ny: {self.yes}    n, Enter or Esc: {self.no}"))

    def typed_ahead(self, event: events.Event) -> bool:
        """A key that arrived before this question was shown (TableApp.on_event drops it)."""
        return isinstance(event, events.Key) and event.time < self.opened

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TableApp(App):
    """One table on the whole screen. `job(app)` is the coroutine that plays the seat (or watches
    the table) and returns (exit code, the text to leave on the terminal afterwards)."""

    TITLE = "Governor"
    AUTO_FOCUS = ""          # nothing focused: the arrows move through the question
    CSS = """
    #status { height: 1; background: $primary-background; color: $text; padding: 0 1; }
    #board-head { height: auto; padding: 0 1; }
    #board { height: 1fr; padding: 0 1; }
    #bottom { height: 16; border-top: solid $primary; }
    #question-box { width: 3fr; }
    #qtext { height: auto; color: $accent; text-style: bold; padding: 0 1; }
    #options { height: 1fr; border: none; padding: 0; }
    #note { height: auto; max-height: 5; color: $text-muted; padding: 0 1; }
    #ask { display: none; height: 3; }
    #log { width: 2fr; border-left: solid $primary; padding: 0 1; }
    #keys { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    .ended #bottom { height: 75%; }
    .ended #options { display: none; }
    .ended #question-box { height: 1fr; }
    .ended #note { height: 1fr; max-height: 100%; color: $text; }
    .narrow #bottom { layout: vertical; height: auto; }
    .narrow #question-box { width: 1fr; height: auto; }
    .narrow #options { height: auto; max-height: 7; }
    .narrow #note { max-height: 2; }
    .narrow #log { width: 1fr; height: 4; border-left: none; border-top: solid $primary; }
    .narrow.ended #log { display: none; }
    .narrow.ended #bottom { height: 75%; }
    .narrow.ended #note { max-height: 100%; }
    """
    # The question's keys are priority bindings of the app: see the module's docstring.
    BINDINGS = [
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        *[Binding(str(d), f"digit('{d}')", show=False, priority=True) for d in range(10)],
        Binding("space", "toggle", show=False, priority=True),
        Binding("enter", "send", show=False, priority=True),
        Binding("b", "back", show=False, priority=True),
        Binding("backspace", "back", show=False, priority=True),
        Binding("question_mark", "ask", show=False, priority=True),
        Binding("exclamation_mark", "ask('!')", show=False, priority=True),
        Binding("escape", "escape", show=False, priority=True),
        Binding("pageup", "board(-1)", show=False),
        Binding("pagedown", "board(1)", show=False),
        Binding("q", "quit_table", show=False),
        Binding("ctrl+c", "quit_table", show=False, priority=True),
        Binding("ctrl+q", "quit_table", show=False, priority=True),
    ]

    def __init__(self, job, *, title: str = "", leave_words: str = "Leave this game?",
                 settle: float = QUESTION_SETTLE) -> None:
        super().__init__()
        self.settle = settle            # how long a question just opened takes no answer
        self.job = job
        self.heading = title
        self.leave_words = leave_words
        self.renderer = None            # the Renderer, once the first view tells the game
        self.view: dict | None = None
        self.question: Question | None = None
        self.answer: asyncio.Future | None = None
        self.connection = "connecting"
        self.waiting = ""
        self.deadline: float | None = None   # when the open question's clock runs out (the server's)
        self.job_task: asyncio.Task | None = None
        self.over = False
        self.left = False               # the person chose to leave
        self.result: tuple[int, str] = (0, "")     # the job's exit code and its last words
        self.headline = ""              # the job's verdict in a line, for the end
        self.stopped = False            # the job ended with an error, not with the match
        self.asked = 0                  # questions opened, for tests
        self.sent = 0                   # answers sent
        self.logged: list[Text] = []     # the whole log, to wrap again at a new width
        self.changed = asyncio.Event()  # set on every question opened, settled or closed, and at the end
        self.send_chat = None           # text -> bool: a chat line to the table, while seated

    async def on_event(self, event: events.Event) -> None:
        # Every key comes here first: one typed before a yes-or-no question opened never answers it.
        top = self.screen_stack[-1] if self.screen_stack else None
        if isinstance(top, Confirm) and top.typed_ahead(event):
            return
        if isinstance(event, events.Key) and self._too_soon(event):
            return
        await super().on_event(event)

    def _too_soon(self, key: events.Key) -> bool:
        """A key that would answer the open question before it settled: said, and dropped."""
        q = self.question
        if (q is None or key.key not in ANSWER_KEYS or q.settled(key.time)
                or self.screen is not self.screen_stack[0] or self._typing()):
            return False
        self.query_one("#note-text", Static).update(Text(SETTLING, style="bold yellow"))
        return True

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="status", markup=False)
        yield Static(id="board-head", markup=False)
        with VerticalScroll(id="board"):
            yield Static(id="board-text", markup=False)
        with Horizontal(id="bottom"):
            with Vertical(id="question-box"):
                yield Static(id="qtext", markup=False)
                yield OptionList(id="options", disabled=True)
                with VerticalScroll(id="note"):
                    yield Static(id="note-text", markup=False)
                yield Input(id="ask", placeholder="a name or its first letters, or an option's number; "
                                                  "Enter alone: help on every option; ! and a line: chat",
                        select_on_focus=False)   # a line opened by `!` starts with it: keep it
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        self.query_one("#options").can_focus = False    # its keys are the app's (priority)
        self._layout()
        self._status()
        self._keys()
        self.set_interval(1.0, self._tick)
        self.job_task = asyncio.ensure_future(self._run_job())

    def on_unmount(self) -> None:
        if self.job_task is not None:
            self.job_task.cancel()

    def on_resize(self, event) -> None:
        self._layout(event.size.width, event.size.height)
        # RichLog wraps a line once, as it is written: at a new width, write them all again.
        self.call_after_refresh(self._rewrap)

    def _layout(self, width: int | None = None, height: int | None = None) -> None:
        self.screen.set_class((width or self.size.width) < WIDE, "narrow")
        self.screen.set_class((height or self.size.height) < TALL, "short")
        self._draw_board()

    def _rewrap(self) -> None:
        log = self.query_one("#log", RichLog)
        log.clear()
        for line in self.logged:
            log.write(line, scroll_end=True)

    async def _run_job(self) -> None:
        try:
            self.result = await self.job(self)
        except asyncio.CancelledError:
            self.result = (0, "")
        except Exception as e:              # a ClientError and the like: said, not a traceback
            self.result = (1, str(e))
            self.headline = "The table could not go on:"
            self.stopped = True
        if not self.is_running:             # the app closed first (a test, or an error in it)
            return
        self.over = True
        self._close_question()
        if self.left:
            self.exit(self.result[0])
            return
        self.show_end(self.result[1], self.headline)

    # ------------------------------------------------------------ what the job tells

    def log_line(self, text: str) -> None:
        self.logged.append(ansi(text))
        self.query_one("#log", RichLog).write(self.logged[-1], scroll_end=True)

    def set_connection(self, state: str) -> None:
        self.connection = state
        self._status()

    def show_view(self, view: dict, renderer, waiting: str, deadline: float | None = None) -> None:
        """The table as it is now; `deadline`: when our question's clock runs out, as the server
        told (client/table.py), shown only while the question is open."""
        self.view, self.renderer, self.waiting, self.deadline = view, renderer, waiting, deadline
        if not view.get("players"):
            return
        self._draw_board()
        self._status()

    def _draw_board(self) -> None:
        """The board: its head pinned above the rest on a tall screen, all in the scrolling pane
        on a short one. The pane keeps its scroll position: the board stays in place as it changes."""
        if self.renderer is None or not (self.view or {}).get("players"):
            return
        head, rest = self.renderer.board_parts(self.view)
        pinned = bool(head) and not self.screen.has_class("short")
        shown = self.query_one("#board-head", Static)
        shown.display = pinned
        if pinned:
            shown.update(ansi(head))
        else:
            rest = self.renderer.board(self.view)
        self.query_one("#board-text", Static).update(ansi(rest))

    def show_end(self, text: str, headline: str) -> None:
        """The end: the score table and the audit's verdict where the question was (the board
        above keeps the last view), the verdict also on the line above them; Enter or q closes."""
        self.screen.add_class("ended")
        first = "" if self.stopped else "The match is over. "
        self.query_one("#qtext", Static).update(ansi(f"{first}{headline}".strip()))
        self.query_one("#note-text", Static).update(ansi(text))
        self._status()
        self._keys()
        self.changed.set()

    # ------------------------------------------------------------ the question

    def on_ask(self, msg: Ask) -> None:
        if msg.answer.done():
            return
        q = Question(msg.view["prompt"], shown_at=now(), settle=self.settle)
        self.question, self.answer, self.view = q, msg.answer, msg.view
        self.asked += 1
        self._show_text()
        if not q.settled(q.shown_at):
            self.set_timer(self.settle, lambda: self._settled(q))
        options = self.query_one("#options", OptionList)
        options.clear_options()
        options.add_options([Text(self.question.entry_text(k)) for k in range(len(self.question.entries))])
        options.disabled = False
        self._show_cursor()
        self._status()
        self._keys()
        self.changed.set()

    def _show_text(self) -> None:
        """The question's words, marked as new until it takes answers."""
        q = self.question
        if q.settled(now()):
            self.query_one("#qtext", Static).update(q.text)
        else:
            self.query_one("#qtext", Static).update(Text.assemble(("new question", "reverse"), " ", q.text))

    def _settled(self, q: Question) -> None:
        if self.question is q:
            self._show_text()
            self.changed.set()

    def on_withdraw(self, msg: Withdraw) -> None:
        self._close_question()

    def _close_question(self) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.cancel()
        self.question = self.answer = None
        options = self.query_one("#options", OptionList)
        options.clear_options()
        options.disabled = True
        self.query_one("#qtext", Static).update("")
        self.query_one("#note-text", Static).update("")
        self._status()
        self._keys()
        self.changed.set()

    def _show_cursor(self) -> None:
        q = self.question
        self.query_one("#options", OptionList).highlighted = q.highlighted()
        self.query_one("#note-text", Static).update(Text(q.refused, style="bold red") if q.refused
                                                    else q.help_line())

    def _question_keys(self) -> Question:
        """The open question, for a question key; else the key is not ours (SkipAction lets it
        go on: to the quit dialog, the name being typed, or nowhere)."""
        if self.question is None or self.screen is not self.screen_stack[0] or self._typing():
            raise SkipAction()
        return self.question

    def _typing(self) -> bool:
        return self.query_one("#ask", Input).display

    def action_move(self, step: int) -> None:
        if self.focused is not None and not self._typing():
            raise SkipAction()      # the board or the log has the focus (Tab): arrows scroll it
        self._question_keys().move(step)
        self._show_cursor()

    def action_digit(self, d: str) -> None:
        self._question_keys().digit(d)
        self._show_cursor()

    def action_toggle(self) -> None:
        q = self._question_keys()
        q.toggle()
        self.query_one("#options", OptionList).replace_option_prompt_at_index(q.cursor, Text(q.entry_text(q.cursor)))
        self._show_cursor()

    def action_send(self) -> None:
        if self.over and self.screen is self.screen_stack[0]:
            self.exit(self.result[0])
            return
        q = self._question_keys()
        try:
            picks = q.answer()
        except BadAnswer as e:
            self.query_one("#note-text", Static).update(Text(str(e), style="bold red"))
            return
        sure = passing_question(self.view, picks)
        if not sure:
            self._send(picks)
            return

        def chosen(yes: bool | None) -> None:
            if yes and self.question is q:      # still open: the game may have moved on meanwhile
                self._send(picks)
        self.push_screen(Confirm(sure, "pick nothing", "choose again"), chosen)

    def _send(self, action: list) -> None:
        self.answer.set_result(action)
        self.sent += 1
        self._close_question()

    def action_back(self) -> None:
        """`b` or Backspace: the move back, where the question offers it."""
        q = self._question_keys()
        try:
            action = q.go_back()
        except BadAnswer as e:
            self.query_one("#note-text", Static).update(Text(str(e), style="bold red"))
            return
        self._send(action)

    def on_option_list_option_selected(self, msg: OptionList.OptionSelected) -> None:
        """A click on an option: highlight it, as the arrows would."""
        if self.question is not None:
            self.question.click(msg.option_index)
            self._show_cursor()

    # ------------------------------------------------------------ `?`: help by name

    def action_ask(self, start: str = "") -> None:
        """`?`: the line that explains; `!`: the same line, started with `!`, chats."""
        if self.screen is not self.screen_stack[0] or self._typing():
            raise SkipAction()
        ask = self.query_one("#ask", Input)
        ask.display = True
        ask.value = start
        ask.focus()
        ask.cursor_position = len(start)
        self._keys()

    def on_input_submitted(self, msg: Input.Submitted) -> None:
        words = msg.value.strip()
        self._stop_typing()
        if words.startswith("!"):           # a chat line: it comes back in the log, as everyone sees it
            line = words[1:].strip()
            if not line:
                text = "To chat, type ! and your line, e.g. `! hello all`."
            elif self.send_chat is None:
                text = "Chat is for the players seated at the table."
            elif self.send_chat(line):
                return
            else:
                text = "Not connected: the chat line was not sent."
        elif self.renderer is None or self.view is None:
            text = "Nothing is on the table yet."
        elif not words:
            text = self.renderer.help(self.view) if self.view.get("prompt") else \
                "No question is open: type ? and a name to hear what a card or building is."
        elif words.isdigit() and self.question is not None:
            text = self._about_option(int(words))
        else:
            text = _unwrap(self.renderer.explain(self.view, words))
        self.query_one("#note-text", Static).update(ansi(text))
        note = self.query_one("#note", VerticalScroll)
        note.styles.max_height = 12
        note.scroll_home(animate=False)

    def _about_option(self, n: int) -> str:
        """`?` and an option's number: its help, and what the game's Text says of the thing
        its label names (the longest name of the Text's that the label holds)."""
        q = self.question
        if not q.first <= n < q.first + len(q.labels):
            return no_option(n, len(q.labels), q.first)
        label, text = q.labels[n - q.first], q.helps[n - q.first]
        about = ""
        names = getattr(self.renderer.text, "names", None)
        if names is not None:
            said = label.lower()
            found = sorted((name for name in names(printable(self.view)) if name in said), key=len)
            if found:
                about = _unwrap(self.renderer.explain(self.view, found[-1]))
        if text and text not in about:      # a role's help may be its explanation already
            label += f": {text}"
        return f"{n}. {label}" + (f"\n{about}" if about else "")

    def _stop_typing(self) -> None:
        ask = self.query_one("#ask", Input)
        ask.display = False
        self.set_focus(None)
        self._keys()

    def action_escape(self) -> None:
        if self.screen is not self.screen_stack[0]:
            raise SkipAction()
        if self._typing():
            self._stop_typing()
        else:
            self.set_focus(None)
        self.query_one("#note", VerticalScroll).styles.max_height = None   # back to the CSS's
        if self.question is not None:
            self._show_cursor()

    # ------------------------------------------------------------ the rest of the keys

    def action_board(self, step: int) -> None:
        board = self.query_one("#board", VerticalScroll)
        (board.scroll_page_down if step > 0 else board.scroll_page_up)(animate=False)

    def action_quit_table(self) -> None:
        if self.over:
            self.exit(self.result[0])
            return
        if self.screen is not self.screen_stack[0]:
            raise SkipAction()
        if self._typing():
            raise SkipAction()      # a q in a name being typed

        def chosen(yes: bool | None) -> None:
            if not yes:
                return
            self.left = True
            if self.answer is not None and not self.answer.done():
                self.answer.set_exception(Leaving())    # the seat's own way out of a question
            elif self.job_task is not None:
                self.job_task.cancel()                      # waiting for others: stop the job
        self.push_screen(Confirm(self.leave_words, "leave", "stay"), chosen)

    def _tick(self) -> None:
        if self.deadline is not None and self.question is not None:
            self._status()

    def _status(self) -> None:
        parts = [self.heading] if self.heading else []
        parts.append({"connected": "connected", "reconnecting": "reconnecting…",
                      "lost": "disconnected"}.get(self.connection, self.connection))
        if self.over:
            parts.append("the match is over")
        elif self.question is not None:
            parts.append("your turn")
        elif self.waiting:
            parts.append(self.waiting)
        if self.question is not None and not self.over and self.deadline is not None:
            parts.append(f"clock {time_left(self.deadline)}")
        self.query_one("#status", Static).update(" · ".join(parts))

    def _keys(self) -> None:
        if self.over:
            text = "Enter or q: close"
        elif self._typing():
            text = "type a name · Enter: explain · Esc: back"
        elif self.question is not None:
            text = self.question.how() + " · ? explain · q leave"
        else:
            text = "? name: explain · PgUp/PgDn: board · Tab: board, log · q: leave"
        self.query_one("#keys", Static).update(text)


def _unwrap(text: str) -> str:
    """An explanation is a paragraph made for a 100-column terminal: let the note wrap it to
    its own width."""
    return "\n\n".join(" ".join(block.split()) for block in text.split("\n\n"))

