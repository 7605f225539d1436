"""The full-screen table (Textual): a status line (with the clock the server says our question
has), the board (its head, the round and the roles, kept in place above the rest on a screen
tall enough), and under it the question as a list with a line of help for the highlighted
option, beside a column with the seat's own things (a hand, one's money and goods) over the log
of the game and who the table waits for; the keys at the bottom. `?` opens a help pane in the
board's place, which scrolls, and leaves the question in sight.

The rows are shared out here (`_fit`), on every question and resize: the question gets the rows
its options take, the column beside it the seat's own things whole (or as many lines as fit,
with a count of the rest) and a log of at least LOG_ROWS lines on a screen tall enough, and the
board what is left. The board and the seat's own things are drawn by the game's Text for the
width of their pane.

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
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, RichLog, Static

from protocol.messages import printable

from ..answers import QUESTION_SETTLE, SETTLING, no_option
from ..render import HOST_LEFT_WORDS, plural, time_left
from ..terminal import passing_question
from .question import BadAnswer, Question

TALL = 30       # from this many rows the board's head (round, roles) stays in place above the
                # rest of the board, which scrolls under it; below, all of it scrolls together,
                # or the rest would have no room at all
LOG_ROWS = 8    # the log's lines on a screen of TALL + 2 rows and more (a round of the game) ...
SHORT_LOG = 5   # ... and on a shorter one, unless the seat's own things need them
BOARD_ROWS = 3  # the fewest rows the board keeps
GUTTER = 1      # the column a pane keeps for its scroll bar, so that its text never moves

# The full screen's own keys, for `?` (docs/playing.md says the same in prose).
KEYS_HELP = """\
Keys
  ↑ ↓           move through the options (in a focused pane: scroll it)
  1 … 9, 0      highlight an option by its number (1, 2: option 12); 0: none
  Space         mark or unmark the highlighted option, where you pick several
  Enter         send the highlighted option, or the marked ones
  b, Backspace  go back to the start of a decision asked in steps
  Tab           move the focus to the board, your own things, the log, in
                turn (a bar marks the focused pane); ↑ ↓ PgUp PgDn scroll it
  Esc           close this help, give the focus back to the options
  PgUp, PgDn    scroll the board (this help while it is open)
  ?             this help; ? and a name or its first letters (? tow, ? score):
                a card, building, role or the score; ? and a number: an option
  !             ! and a line: chat to the table
  q             leave the game (it asks first)"""


class Log(RichLog):
    """The log pane: its lines wrapped again whenever its width changes (RichLog wraps a line
    once, as it is written)."""

    def __init__(self, lines: list[Text], **kwargs) -> None:
        super().__init__(**kwargs)
        self.source = lines
        self.wrapped_at = 0

    def add(self, line: Text) -> None:
        self.source.append(line)
        self.write(line, scroll_end=True)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self.wrapped_at and self.wrapped_at:
            self.call_after_refresh(self.reflow)
        self.wrapped_at = event.size.width

    def reflow(self) -> None:
        self.clear()
        for line in self.source:
            self.write(line, scroll_end=True)


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
    #board, #help, #mine { scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    #board { height: 1fr; padding: 0 0 0 1; }
    #help { display: none; height: 1fr; padding: 0 0 0 1; border-top: solid $accent; }
    #bottom { height: 16; border-top: solid $primary; }
    #question-box { width: 1fr; }
    #qtext { height: auto; color: $accent; text-style: bold; padding: 0 1; }
    #options { height: auto; border: none; padding: 0; }
    #note { height: auto; max-height: 3; color: $text-muted; padding: 0 1; }
    #ask { display: none; height: 3; }
    #side { width: 40; border-left: solid $primary; }
    #mine { height: auto; padding: 0 0 0 1; border-bottom: solid $primary; }
    #log { height: 1fr; padding: 0 0 0 1; scrollbar-size-vertical: 1; }
    #waiting { height: 1; color: $text-muted; padding: 0 1; }
    #keys { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    #board:focus, #help:focus, #mine:focus, #log:focus { outline-left: thick $accent; background-tint: $accent 8%; }
    .ended #side { display: none; }
    .ended #options { display: none; }
    .ended #note { height: 1fr; max-height: 100%; color: $text; }
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

    def __init__(self, job, *, title: str = "", leave_words: str = "Leave this game?", invite: str = "",
                 settle: float = QUESTION_SETTLE) -> None:
        super().__init__()
        self.settle = settle            # how long a question just opened takes no answer
        self.job = job
        self.heading = title
        self.invite = invite            # how friends join the host's table: a line under the status
        self.status_rows = 1            # the status line, and the invitation's under it
        self.leave_words = leave_words
        self.renderer = None            # the Renderer, once the first view tells the game
        self.view: dict | None = None
        self.question: Question | None = None
        self.answer: asyncio.Future | None = None
        self.connection = "connecting"
        self.blind = False              # the table deals blind (docs/fairness.md §10): said on the status line
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
        self.help_for: Question | None = None   # the question the help pane was opened on
        self.question_rows = 0          # the rows the last question took (kept while none is open)
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
        with VerticalScroll(id="help"):
            yield Static(id="help-text", markup=False)
        with Horizontal(id="bottom"):
            with Vertical(id="question-box"):
                yield Static(id="qtext", markup=False)
                yield OptionList(id="options", disabled=True)
                with VerticalScroll(id="note"):
                    yield Static(id="note-text", markup=False)
                yield Input(id="ask", placeholder="a name or its first letters, or an option's number; "
                                                  "Enter alone: the keys and every option; ! and a line: chat",
                        select_on_focus=False)   # a line opened by `!` starts with it: keep it
            with Vertical(id="side"):
                with VerticalScroll(id="mine"):
                    yield Static(id="mine-text", markup=False)
                yield Log(self.logged, id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
                yield Static(id="waiting", markup=False)
        yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        self.query_one("#options").can_focus = False    # its keys are the app's (priority)
        self.query_one("#note").can_focus = False       # a line or two; Tab goes to the panes
        self.query_one("#help").border_title = "Help · Esc: close"
        self._layout()
        self._status()
        self._keys()
        self.set_interval(1.0, self._tick)
        self.job_task = asyncio.ensure_future(self._run_job())

    def on_unmount(self) -> None:
        if self.job_task is not None:
            self.job_task.cancel()

    def on_resize(self, event) -> None:
        self._layout(event.size)

    def _layout(self, size: Size | None = None) -> None:
        self.screen.set_class((size or self.size).height < TALL, "short")
        self._draw_board(size)

    def side_width(self, width: int) -> int:
        """The column of the seat's own things and the log: two fifths of the screen, within reason."""
        return max(35, min(52, round(width * 0.4)))

    def _draw_board(self, size: Size | None = None) -> None:
        """The board and the seat's own things, each drawn by the game for its pane's width, and
        the rows shared out (`_fit`). The board keeps its scroll position: it stays in place as
        it changes."""
        if self.renderer is None or not (self.view or {}).get("players"):
            return
        size = size or self.size
        side = self.side_width(size.width)
        head, rest, _ = self.renderer.board_parts(self.view, size.width - 1 - GUTTER)   # the padding
        mine = self.renderer.board_parts(self.view, side - 2 - GUTTER)[2]       # the border, padding
        self.query_one("#side").styles.width = side
        self.query_one("#mine").display = bool(mine)
        self.query_one("#mine-text", Static).update(ansi(mine))
        pinned = self._fit(size, head, rest, mine)
        shown = self.query_one("#board-head", Static)
        shown.display = pinned
        if pinned:
            shown.update(ansi(head))
        else:
            rest = head + "\n\n" + rest if head else rest
        self.query_one("#board-text", Static).update(ansi(rest))

    def _fit(self, size: Size, head: str, rest: str, mine: str) -> bool:
        """Share the rows out: the question the rows of its text, options and help line (those
        of the last question while none is open: the board does not jump between questions);
        the column beside it the seat's own things whole, a log of LOG_ROWS (fewer on a short
        screen) and the line of who the table waits for; the board the rest, at least
        BOARD_ROWS, with its head pinned above it where that leaves the board BOARD_ROWS (and
        the screen is TALL). When that cannot all be, the seat's own things are cut to the rows
        left (their first line tells the count: a hand says its size) with a note of how many
        lines are below, and the options scroll. True when the head is pinned."""
        rows = size.height - 1 - self.status_rows               # the keys line, the status lines
        bottom = self.query_one("#bottom")
        if self.screen.has_class("ended"):
            bottom.styles.height = max(rows * 3 // 4, 3)
            return bool(head) and not self.screen.has_class("short")
        words = 0                   # the rows of the question's text and its help line
        if self.question is not None:
            width = size.width - self.side_width(size.width) - 1
            q = self.question
            words = self._rows(q.text, width - 2) + min(3, self._rows(q.help_line(), width - 2))
            self.question_rows = words + sum(self._rows(q.entry_text(k), width) for k in range(len(q.entries)))
        mine_rows = len(mine.splitlines()) + 1 if mine else 0       # and its line under it
        log_rows = (LOG_ROWS if size.height >= TALL + 2 else SHORT_LOG) + 1     # and who is waited for
        if self._helping() and size.height < TALL + 2:
            log_rows = 4            # the help pane takes the log's rows but 3 (and the spare ones)
        want = 1 + max(self.question_rows, mine_rows + log_rows)      # 1: the line above
        head_rows = len(head.splitlines()) if head else 0
        pinned = bool(head) and not self.screen.has_class("short") and rows - head_rows - want >= BOARD_ROWS
        board_rows = len(rest.splitlines()) + (0 if pinned else head_rows + 1)
        rows -= head_rows if pinned else 0
        spare = 0 if self._helping() else rows - board_rows                     # spare rows: to the log
        height = min(max(rows - BOARD_ROWS, 4), max(want, spare))
        bottom.styles.height = height
        fits = max(height - 1 - 4, 2)            # the seat's own things leave the log 3 lines at least
        shown = self.query_one("#mine", VerticalScroll)
        shown.styles.height = min(mine_rows, fits) if mine else 0
        hidden = mine_rows - fits
        shown.border_subtitle = f"{plural(hidden, 'more line')} below: Tab, then ↓" if hidden > 0 else ""
        self.query_one("#options", OptionList).styles.max_height = max(height - 1 - words, 2)
        return pinned

    def _rows(self, text: str, width: int) -> int:
        """The lines `text` takes wrapped at `width` columns."""
        return len(Text(text).wrap(self.console, max(width, 10))) if text else 0

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
        self.query_one("#log", Log).add(ansi(text))

    def set_connection(self, state: str) -> None:
        self.connection = state
        self._status()

    def set_blind(self, blind: bool) -> None:
        self.blind = blind
        self._status()

    def show_view(self, view: dict, renderer, waiting: str, deadline: float | None = None) -> None:
        """The table as it is now; `deadline`: when our question's clock runs out, as the server
        told (client/table.py), shown only while the question is open."""
        self.view, self.renderer, self.waiting, self.deadline = view, renderer, waiting, deadline
        # Who the table waits for: one line under the log, changed in place (not a line a move).
        self.query_one("#waiting", Static).update(Text(waiting, style="dim"))
        if not view.get("players"):
            return
        self._draw_board()
        self._status()

    def show_end(self, text: str, headline: str) -> None:
        """The end: the score table and the audit's verdict where the question was (the board
        above keeps the last view), the verdict also on the line above them; Enter or q closes."""
        self.screen.add_class("ended")
        self.query_one("#note").can_focus = True        # now the score table and the verdict
        self._close_help()
        self._draw_board()
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
        self._draw_board()          # the rows shared out again, for this question's options
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
        if self.help_for is not None and self.help_for is self.question:
            self._close_help()      # it told of this question's options
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
        """`?`: the help pane (the keys, the question's options) and the line that explains a
        name; `!`: the same line, started with `!`, chats."""
        if self.screen is not self.screen_stack[0] or self._typing():
            raise SkipAction()
        if not start:
            self._show_help(self._help())
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
            self.query_one("#note-text", Static).update(ansi(text))
            return
        if not words:
            text = self._help()
        elif self.renderer is None or self.view is None:
            text = "Nothing is on the table yet."
        elif words.isdigit() and self.question is not None:
            text = self._about_option(int(words))
        else:
            text = _unwrap(self.renderer.explain(self.view, words))
        self._show_help(text)

    def _help(self) -> str:
        """The help pane's first page: the keys, and the open question's options."""
        q = self.question
        if q is None or self.renderer is None:
            return KEYS_HELP + "\n\nNo question is open now."
        return f"{KEYS_HELP}\n\nThis question: {q.text}\n{q.how()}\n{self.renderer.options_help(self.view)}"

    def _show_help(self, text: str) -> None:
        """The help pane, in the board's place: the question and its options stay in sight."""
        self.query_one("#help-text", Static).update(ansi(text))
        shown = self.query_one("#help", VerticalScroll)
        shown.display = True
        shown.scroll_home(animate=False)
        self.query_one("#board").display = False
        self.help_for = self.question
        self._draw_board()
        self._keys()

    def _close_help(self) -> None:
        self.query_one("#help").display = False
        self.query_one("#board").display = True
        self.help_for = None
        self._draw_board()
        self._keys()

    def _helping(self) -> bool:
        return self.query_one("#help").display

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
        self._close_help()
        if self.question is not None:
            self._show_cursor()

    # ------------------------------------------------------------ the rest of the keys

    def action_board(self, step: int) -> None:
        """PgUp, PgDn: scroll the board, or the help pane in its place."""
        board = self.query_one("#help" if self._helping() else "#board", VerticalScroll)
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
        if self.blind:
            parts.append("blind dealing")
        parts.append({"connected": "connected", "reconnecting": "reconnecting…", "lost": "disconnected",
                      "host_left": HOST_LEFT_WORDS,
                      }.get(self.connection, self.connection))
        if self.over:
            parts.append("the table stopped" if self.stopped else "the match is over")
        elif self.question is not None:
            parts.append("your turn")
        elif self.waiting:
            parts.append(self.waiting)
        if self.question is not None and not self.over and self.deadline is not None:
            parts.append(f"clock {time_left(self.deadline)}")
        invite = f"\n{self.invite}" if self.invite and not self.over else ""
        status = self.query_one("#status", Static)
        rows = 1 + self._rows(self.invite, self.size.width - 2) if invite else 1
        if rows != self.status_rows:
            self.status_rows = status.styles.height = rows
            self._draw_board()          # the rows left for the rest are fewer (or more)
        status.update(" · ".join(parts) + invite)

    def on_descendant_focus(self, event) -> None:
        self._keys()        # Tab: the keys line says which pane has the focus

    def on_descendant_blur(self, event) -> None:
        self._keys()

    def _keys(self) -> None:
        pane = PANES.get(self.focused.id) if self.focused is not None else None
        if self.over:
            text = "Enter or q: close"
        elif pane:
            text = f"▌{pane}: ↑↓ PgUp PgDn scroll · Tab: next pane · Esc: back to the options"
        elif self._typing():
            text = "type a name · Enter: explain · Esc: back"
        elif self._helping():
            text = (self.question.how() + " · " if self.question is not None else "") + \
                "PgUp/PgDn: help · Esc: close"
        elif self.question is not None:
            text = self.question.how() + " · ? explain · q leave"
        else:
            text = "? name: explain · PgUp/PgDn: board · Tab: board, log · q: leave"
        self.query_one("#keys", Static).update(text)


PANES = {"board": "the board", "mine": "your own things", "log": "the log", "help": "the help"}


def _unwrap(text: str) -> str:
    """An explanation is a paragraph made for a 100-column terminal: let the note wrap it to
    its own width."""
    return "\n\n".join(" ".join(block.split()) for block in text.split("\n\n"))

