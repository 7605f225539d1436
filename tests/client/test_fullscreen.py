"""The full-screen table, headless through Textual's pilot: whole games against bots on a real
server, keys pressed as a person would; type-ahead dropped; a question just opened takes no
answer; `?` and a name; what the screen shows at 80×24 and 120×40. Nothing here waits a fixed
time: the test waits for the app to say that a question opened, settled or closed, or that the
match ended."""
import asyncio
import time
import types

import pytest
from rich.text import Text
from textual import events
from textual.widgets import Static

from client.fullscreen import wanted
from client.answers import QUESTION_SETTLE, SETTLING
from client.fullscreen.app import Ask, TableApp, now
from client.fullscreen.bridge import play_job
from client.fullscreen.question import NONE, Question
from client.lobby import sit
from client.link import open_link
from client.session import player_key

from .live import LiveServer
from .screens import pane_words, screen_text

SMALL = (80, 24)
COMFY = (120, 40)
LIMIT = 60          # seconds a whole test may take before it is called stuck (not a timing test)
QUICK = 0.05        # the settle time of whole games played here: keys wait for it all the same


@pytest.fixture
def server(tmp_path):
    s = LiveServer(tmp_path / "server", turn_time=0)
    s.start()
    yield s
    s.close()


async def seated_app(server, tmp_path, game: str, bot: str) -> TableApp:
    link = await open_link(server.url, quiet=True, rate=0)
    reply = await link.request({"type": "create", "game": game, "seats": 2, "bots": 1, "options": {},
                                "bot": bot}, ("created",))
    session = await sit(link, reply["table"], "Ana", tmp_path / "client")
    return TableApp(play_job(link.url, session, link=link, resumable=True), title="test", settle=QUICK)


async def next_change(app: TableApp) -> None:
    await asyncio.wait_for(app.changed.wait(), LIMIT)
    app.changed.clear()


def plain(text: str) -> str:
    return Text.from_ansi(text).plain


def type_keys(app: TableApp, *keys: str) -> None:
    """Keys pressed, through Textual's `App.simulate_key` (as the pilot's `press` does, without
    its wait for the whole process to idle after each key, which a server in the same process
    makes slow). The app handles them in order, after whatever is already in its queue."""
    for key in keys:
        app.simulate_key(key)


def answer_keys(q: Question) -> list[str]:
    """Answer as a person would: the first option by its number (1, or its count where the
    options are counts), or mark the first ones with Space when the question wants several, or
    Enter when there is nothing to choose."""
    if q.hi == 0:
        return ["enter"]
    if q.lo >= 2:
        return ["space", "down"] * q.lo + ["enter"]
    return [*str(q.first), "enter"]


async def play_through(app: TableApp, at_first=None) -> int:
    """Play the seat to the end; at the first question await `at_first()`. After each answer,
    type stray keys (a number, Enter, Space) while no question is open: they must not answer
    the next one. Returns the number of questions answered."""
    answered = 0
    while not app.over:
        await next_change(app)
        q = app.question
        if q is None or not q.settled(now()):
            continue
        if answered == 0 and at_first is not None:
            await at_first()
        type_keys(app, *answer_keys(q))
        while app.sent == answered and not app.over:
            await next_change(app)
        answered += 1
        if app.question is None and not app.over:
            type_keys(app, "2", "enter", "space")      # typed ahead, while waiting
    assert app.sent == answered == app.asked
    return answered


def check_screen(app: TableApp, want: list[str]) -> str:
    text = screen_text(app)
    for line in want:
        assert line in text, f"{line!r} not on the screen:\n{text}"
    return text


SCROLLBAR = str.maketrans("", "", "▁▂▃▄▅▆▇█▔▕▏▎▍▌▋▊▉")


def log_column(app: TableApp) -> str:
    """The screen's rows with the log pane's part of each (right of the question's `│` when the
    pane is beside the question, the whole row when it is below), joined: the pane wraps long
    lines wherever its width falls, so a logged line is looked for with its spaces collapsed."""
    rows = [line.split("│", 1)[-1] for line in screen_text(app).splitlines()]
    return " ".join(" ".join(rows).translate(SCROLLBAR).split())


@pytest.mark.parametrize("game, bot, size, name, says", [
    ("sanjuan", "random", SMALL, "chapel", "Chapel: city building"),
    ("puertorico", "heuristic", COMFY, "small market", "Small market: violet building"),
])
async def test_a_whole_game_played_with_keys(server, tmp_path, game, bot, size, name, says):
    app = await seated_app(server, tmp_path, game, bot)
    async with app.run_test(size=size) as pilot:
        async def first():
            await pilot.pause()
            # The board's first line, the question and the log, all on one screen.
            board = plain(app.renderer.board(app.view)).splitlines()[0].strip()
            logged = " ".join(app.logged[-1].plain.split())[:20]
            check_screen(app, [board[:60], app.question.text[:30]])
            assert logged in log_column(app)
            other = COMFY if size == SMALL else SMALL     # and at the other size
            await pilot.resize_terminal(*other)
            await pilot.pause()
            check_screen(app, [board[:60], app.question.text[:30]])
            assert logged in log_column(app)
            await pilot.resize_terminal(*size)
            # Ana's name with her key's short fingerprint, in the seats line the log shows
            short = ":".join(player_key(tmp_path / "client").fingerprint.split(":")[:4])
            assert any(line.plain.startswith(f"[Seats — Ana [{short}]") for line in app.logged)
            # `?` and a name: what the game's Text says of it, on the screen.
            await pilot.press("question_mark", *name, "enter")
            assert says in check_screen(app, [says])
            assert app.question is not None       # asking did not answer
        answered = await play_through(app, first)
        assert answered > 10
        await pilot.pause()
        end = check_screen(app, ["total", "VERIFIED"])
        assert "The match is over" in end
        await pilot.press("enter")
    assert app.return_code == 0
    assert "Match record saved" in app.result[1]


async def test_keys_typed_before_a_question_do_not_answer_it():
    """Keys that reach the app before the question do are dropped, even when they are still
    waiting in its queue as the question comes."""
    async def idle(app):
        await asyncio.Event().wait()
    app = TableApp(idle)
    view = {"prompt": {"kind": "k", "text": "Pick one", "options": ["a", "b"], "min": 1, "max": 1,
                       "labels": ["A", "B"], "help": ["", ""]}}
    async with app.run_test(size=SMALL) as pilot:
        answer = asyncio.get_running_loop().create_future()
        for key in ("2", "enter"):
            app.post_message(events.Key(key, key if key == "2" else "\r"))
        app.post_message(Ask(view, answer))
        await open_question(app)
        assert not answer.done()
        await pilot.press("2", "enter")
        assert answer.result() == [1]


def stamped(key: str, at: float) -> events.Key:
    """A key as Textual makes it when it arrives, stamped with the time `at` (its own clock)."""
    event = events.Key(key, {"enter": "\r", "space": " ", "backspace": "\x7f"}.get(key, key))
    event.time = at
    return event


def asking_only(view: dict):
    """A job for TableApp that asks the question of `view` (a prompt without a game's board)."""
    async def job(app):
        app.post_message(Ask(view, asyncio.get_running_loop().create_future()))
        await asyncio.Event().wait()
    return job


async def drawn(pilot, text: str) -> None:
    """Until `text` is on the screen (the app draws a question a refresh or two after opening it)."""
    while text not in screen_text(pilot.app):
        await pilot.pause()


PICK_ONE = {"prompt": {"kind": "k", "text": "Pick one", "options": ["a", "b", "c"], "min": 1, "max": 1,
                       "labels": ["A", "B", "C"], "help": ["", "", ""]}}


@pytest.mark.parametrize("key", ["enter", "2", "space", "b", "backspace"])
async def test_a_key_that_answers_is_dropped_while_the_question_is_new(key):
    """Enter, a number, Space, b or Backspace 0.1 s or 0.45 s after the question opened (a key
    meant for the question before) answer nothing, and the screen says why; the arrows still
    move; the same keys from QUESTION_SETTLE on answer as always."""
    app = TableApp(asking_only(PICK_ONE))
    async with app.run_test(size=SMALL) as pilot:
        while app.question is None:
            await next_change(app)
        q, answer = app.question, app.answer
        await drawn(pilot, "Pick one")
        for late in (0.1, 0.45):
            app.post_message(stamped(key, q.shown_at + late))
        app.post_message(stamped("down", q.shown_at + 0.2))
        await pilot.pause()
        app.post_message(stamped(key, q.shown_at + 0.3))
        await pilot.pause()
        assert SETTLING in pane_words(app, "#question-box")
        assert not answer.done() and q.cursor == 1 and q.typed == "" and app.sent == 0
        for k in ("down", "enter"):
            app.post_message(stamped(k, q.shown_at + QUESTION_SETTLE))
        await pilot.pause()
        assert answer.result() == [2]


async def test_a_new_question_says_it_is_new_until_it_takes_keys():
    """A real wait: the question opens marked as new, an Enter at once is dropped with a note,
    and once it settles the mark goes and an Enter sends."""
    app = TableApp(asking_only(PICK_ONE))
    async with app.run_test(size=SMALL) as pilot:
        while app.question is None:
            await next_change(app)
        await drawn(pilot, "Pick one")
        assert not app.question.settled(now()) and "new question Pick one" in screen_text(app)
        await pilot.press("enter")
        assert app.sent == 0 and SETTLING in pane_words(app, "#question-box")
        await open_question(app)
        await pilot.pause()
        assert "new question" not in screen_text(app) and "Pick one" in screen_text(app)
        await pilot.press("enter")
        assert app.sent == 1 and app.question is None


async def test_a_number_that_is_no_option_is_said_and_sends_nothing():
    """As the plain mode says it: a 7 among three options highlights nothing, Enter then sends
    nothing and says it again; an option picked again (a number, or the arrows) is sent."""
    from client.answers import BadAnswer, parse_answer
    with pytest.raises(BadAnswer) as plain_says:
        parse_answer("7", 3, 1, 1)
    for again, picked in ((("3",), 2), (("up",), 0)):     # up: from the 2 highlighted before
        app = TableApp(asking_only(PICK_ONE))
        async with app.run_test(size=SMALL) as pilot:
            await open_question(app)
            answer = app.answer
            await pilot.press("2", "7")
            assert str(plain_says.value) in pane_words(app, "#question-box")
            assert app.query_one("#options").highlighted is None
            await pilot.press("enter")
            assert not answer.done() and str(plain_says.value) in pane_words(app, "#question-box")
            await pilot.press(*again, "enter")
            assert answer.result() == [picked]


def test_the_question_keys():
    q = Question({"kind": "k", "text": "T", "options": list(range(12)), "min": 0, "max": 3,
                  "labels": [f"L{i}" for i in range(12)], "help": ["h"] * 12})
    assert q.entries[-1] == NONE and "None" in q.entry_text(len(q.entries) - 1)
    q.digit("1")
    q.digit("2")
    assert q.entries[q.cursor] == 11               # "1" then "2": option 12
    q.digit("3")
    assert q.entries[q.cursor] == 2                # no option 123: a new number
    q.toggle()
    q.move(1)
    q.toggle()
    assert "[x]" in q.entry_text(2) and q.answer() == [2, 3]
    q.digit("0")
    assert q.answer() == []                        # the explicit "none" entry
    single = Question({"kind": "k", "text": "T", "options": ["a", "b"], "min": 1, "max": 1,
                       "labels": ["A", "B"], "help": ["", ""]})
    assert NONE not in single.entries              # no pass where none is allowed
    with pytest.raises(Exception) as e:
        Question({"kind": "k", "text": "T", "options": ["a", "b", "c"], "min": 2, "max": 2,
                  "labels": ["A", "B", "C"], "help": ["", "", ""]}).answer()
    assert "exactly 2 options" in str(e.value)


def test_plain_when_asked_or_not_on_a_terminal():
    assert wanted(plain=True) is False
    assert wanted() is False           # pytest's stdin is not a terminal


async def test_leaving_asks_first_and_gives_the_seat_back_words(server, tmp_path):
    app = await seated_app(server, tmp_path, "sanjuan", "random")
    async with app.run_test(size=SMALL) as pilot:
        await open_question(app)
        await pilot.press("q")
        assert "Leave this game?" in screen_text(app)
        await pilot.press("n")                       # stay: the question is still open
        assert app.question is not None and app.sent == 0
        await pilot.press("q", "y")
        await app.job_task
    assert app.left and app.sent == 0
    assert app.result[1].startswith("You left the game.")


# ------------------------------------------------------------ fixed screens (test_snapshots.py too)

def fixed_view(game: str = "sanjuan") -> dict:
    """A table of two at its first question, dealt from a fixed seed: the same every run."""
    import games
    from protocol.fairness import local_streams
    engine = games.get(game)
    state = engine.setup(["Ana", "Bo"], {}, local_streams(7))
    return engine.view(state, engine.to_act(state)[0])


def asking(view: dict, clock: float | None = None, log: tuple[str, ...] = ()):
    """A job for TableApp: show `view` (with `log` lines and a `clock`), ask its question and
    wait for ever."""
    from client.render import renderer_for

    async def job(app):
        app.set_connection("connected")     # as the seat's job says once its link is up
        app.show_view(view, renderer_for(view, True), "", clock)
        for line in log:
            app.log_line(line)
        app.post_message(Ask(view, asyncio.get_running_loop().create_future()))
        await asyncio.Event().wait()
    return job


async def open_question(app) -> None:
    """Until a question is open, takes answers and is drawn so: its "new question" mark is taken
    off by the app's timer, which a loaded machine may run after the clock says it settled."""
    while app.question is None or not app.question.settled(now()) or \
            str(app.query_one("#qtext", Static).content).startswith("new question"):
        await next_change(app)


async def test_watching_a_table_to_its_end(server, tmp_path):
    from client.fullscreen.bridge import watch_job
    from .live import bot_seat
    link = await open_link(server.url, quiet=True, rate=0)
    reply = await link.request({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "options": {},
                                "bot": "random"}, ("created",))
    app = TableApp(watch_job(link, reply["table"], tmp_path / "watcher", patience=10), title="watching")
    seat = bot_seat(server.url, tmp_path / "bot", "--table", reply["table"])
    try:
        async with app.run_test(size=COMFY) as pilot:
            while not app.over:
                await next_change(app)
            await pilot.pause()
            check_screen(app, ["watching · connected", "The match is over. VERIFIED", "total"])
            assert app.asked == 0             # a spectator is never asked
            await pilot.press("enter")
    finally:
        seat.communicate(timeout=LIMIT)
    assert "Public match record saved" in app.result[1]


async def test_the_clock_counts_down_while_a_question_is_open():
    """With a deadline for the open question (the server's: tests/client/test_clock.py), the
    status line shows the time left."""
    import re
    app = TableApp(asking(fixed_view(), clock=time.monotonic() + 300.0))
    async with app.run_test(size=SMALL) as pilot:
        await open_question(app)
        await pilot.pause()
        assert re.search(r"your turn · clock (5:00|4:5\d)", screen_text(app))
        await pilot.press("1", "enter")
        assert "clock" not in screen_text(app).splitlines()[0]     # answered: no clock


async def test_question_mark_and_an_option_number_explains_what_it_names():
    app = TableApp(asking(fixed_view("puertorico")))
    async with app.run_test(size=COMFY) as pilot:
        await open_question(app)
        await pilot.press("question_mark", "1", "enter")
        await pilot.pause()
        check_screen(app, ["1. Take the settler", "Settler: "])
        assert app.question is not None and app.sent == 0     # asking answered nothing
        await pilot.press("question_mark", "9", "9", "enter")
        await pilot.pause()
        assert "There is no option 99" in screen_text(app)


async def test_bang_in_the_ask_line_chats_and_answers_nothing():
    """`!` opens the line already started with `!`; Enter sends the rest to the table. Chat that
    comes back is in the log, as the plain mode prints it."""
    from client.fullscreen.bridge import ScreenPlayer
    view = fixed_view()
    sent: list[str] = []
    app = TableApp(asking(view))
    async with app.run_test(size=COMFY) as pilot:
        await open_question(app)
        player = ScreenPlayer(app, "ws://x")
        player.bind_chat(lambda text: sent.append(text) or True)
        await pilot.press("exclamation_mark", "h", "i", "space", "2", "enter")
        await pilot.pause()
        assert sent == ["hi 2"] and app.question is not None and app.sent == 0
        player.plain.update(type("T", (), {"view": None, "prompt": None, "exchange": None, "dealing": "open"})(),
                            [("chat", {"seat": 1, "name": "Bo", "text": "well played"})])
        await pilot.pause()
        assert "[chat] Bo: well played" in screen_text(app)


def trader_view() -> dict:
    """San Juan, seat 0 has chosen the trader and holds an indigo to sell: its own phase."""
    from games import sanjuan
    from tests.games.sanjuan.scenario import make, start_round
    s, rng = make([{"city": ["indigo_plant"], "goods": ["indigo_plant"]}, {"city": ["indigo_plant"]}])
    start_round(s, rng, governor=0)
    sanjuan.apply(s, 0, ["trader"], rng)
    return sanjuan.view(s, 0)


async def test_passing_in_ones_own_phase_is_confirmed():
    """As in the plain mode: "none" in the trader phase one chose asks first; `n` goes back to
    the question, `y` sends the empty pick; a `y` typed ahead of the dialog answers nothing."""
    view = trader_view()
    assert view["prompt"]["kind"] == "sell" and view["prompt"]["min"] == 0
    app = TableApp(asking(view))
    async with app.run_test(size=SMALL) as pilot:
        await open_question(app)
        answer = app.answer
        await pilot.press("0", "enter")
        assert "You chose the trader yourself: pick nothing?" in screen_text(app)
        await pilot.press("n")
        assert app.question is not None and not answer.done()
        type_keys(app, "0", "enter", "y")       # the y is in the queue before the dialog opens
        await pilot.pause()
        assert "pick nothing?" in screen_text(app) and not answer.done()
        await pilot.press("y")
        assert answer.result() == [] and app.sent == 1


async def test_a_q_and_y_typed_while_waiting_do_not_leave():
    """Keys typed ahead never act: a stray `q` opens the question, the `y` behind it in the
    queue does not answer it; a `y` pressed once it is shown leaves."""
    from client.render import renderer_for
    view = fixed_view()

    async def waiting(app):
        app.show_view(view, renderer_for(view, True), "waiting for Bo")
        await asyncio.Event().wait()
    app = TableApp(waiting)
    async with app.run_test(size=SMALL) as pilot:
        type_keys(app, "q", "y")
        await pilot.pause()
        assert "Leave this game?" in screen_text(app) and not app.left
        await pilot.press("y")
        await app.job_task
    assert app.left


@pytest.mark.parametrize("typed, colonists", [("0", 0), ("2", 2)])
async def test_the_mayor_count_typed_is_the_count_placed(typed, colonists):
    """Puerto Rico's placement on the full screen: the entries are numbered by their count, and
    the number typed is the number of colonists the seat sends."""
    from client.fullscreen.bridge import ScreenPlayer
    from client.render import renderer_for
    from games import puertorico
    from tests.games.puertorico.scenario import make, play
    s, rng = make([{"island": {"corn": (2, 2), "quarry": (1, 1)}, "city": {"indigo_plant": 0, "harbor": 0},
                    "san_juan": 1}, {}, {}], colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    v = puertorico.view(s, 0)
    assert v["prompt"]["options"] == [0, 1, 2]
    app = TableApp(lambda app: asyncio.Event().wait())
    async with app.run_test(size=COMFY) as pilot:
        app.show_view(v, renderer_for(v, True), "", None)
        table = types.SimpleNamespace(view=v, deadline=None)
        deciding = asyncio.ensure_future(ScreenPlayer(app, "ws://x").decide(table))
        await open_question(app)
        await drawn(pilot, "2. 2 colonists")
        check_screen(app, ["0. 0 colonists", "1. 1 colonist"])
        await pilot.press(typed, "enter")
        assert await asyncio.wait_for(deciding, LIMIT) == [colonists]
