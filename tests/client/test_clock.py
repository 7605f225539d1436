"""The table's clock on a real server with a turn time: the client counts down from the time
the server says the question has left (a `clock` message, from the server's own timer), in the
full-screen status line and in the plain mode's answer prompt; a seat taken up again later
sees the time that is really left, not the whole turn time again."""
import asyncio
import io
import re
import time
import types

import pytest

from client.lobby import sit
from client.link import open_link
from client.seat import SeatRunner
from client.session import SeatSession
from client.terminal import Keyboard, Terminal

from .live import LiveServer, wait_for
from .test_fullscreen import LIMIT, SMALL, open_question, seated_app
from .test_input import Typed
from .screens import screen_text

TURN = 30.0


@pytest.fixture
def server(tmp_path):
    s = LiveServer(tmp_path / "server", turn_time=TURN)
    s.start()
    yield s
    s.close()


def server_time_left(server: LiveServer, table: str) -> float:
    """What the server's timer of the (only) running turn clock at `table` has left."""
    t = server.server.tables[table]
    [handle] = [h for key, h in t.timers.items() if type(key).__name__ == "TurnClock"]
    return handle.when() - server.loop.time()


async def prompted(out: io.StringIO) -> None:
    """Until the plain mode has asked a question with the time it has left."""
    async def asked():
        while " left) > " not in out.getvalue():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(asked(), LIMIT)


async def test_the_full_screen_counts_down_from_the_servers_deadline(server, tmp_path):
    app = await seated_app(server, tmp_path, "sanjuan", "random")
    async with app.run_test(size=SMALL) as pilot:
        await open_question(app)
        await pilot.pause()
        table = next(iter(server.server.tables))
        # The app's deadline is the server's timer, on this machine's clock (one process here).
        assert app.deadline is not None
        assert abs((app.deadline - time.monotonic()) - server_time_left(server, table)) < 0.5
        status = screen_text(app).splitlines()[0]
        assert re.search(r"your turn · clock 0:(30|29)", status), status


async def test_the_plain_prompt_shows_the_time_really_left_after_a_resume(server, tmp_path):
    link = await open_link(server.url, quiet=True, rate=0)
    reply = await link.request({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "options": {},
                                "bot": "random"}, ("created",))
    table, data = reply["table"], tmp_path / "client"
    session = await sit(link, table, "Ana", data)
    out = io.StringIO()
    first = asyncio.ensure_future(SeatRunner(session, Terminal(link.url, Keyboard(Typed(), out=out), out=out),
                                             link=link).run())
    await prompted(out)
    assert re.search(r"\(0:(30|29) left\) > ", out.getvalue()), out.getvalue()[-300:]
    first.cancel()                          # the client goes away mid-question; the seat is saved
    with pytest.raises(asyncio.CancelledError):
        await first
    # The server's clock runs on meanwhile: come back once it has used two seconds of it.
    await asyncio.to_thread(wait_for, lambda: server_time_left(server, table) < TURN - 2.0, LIMIT)
    out = io.StringIO()
    again = SeatSession.find(data, table, url=link.url)
    second = asyncio.ensure_future(SeatRunner(again, Terminal(link.url, Keyboard(Typed(), out=out), out=out),
                                              patience=10).run())
    try:
        await prompted(out)
        shown = re.search(r"\((\d+):(\d\d) left\) > ", out.getvalue())
        seconds = int(shown[1]) * 60 + int(shown[2])
        assert seconds <= TURN - 1 and abs(seconds - server_time_left(server, table)) <= 1.5, out.getvalue()[-300:]
    finally:
        second.cancel()


def test_a_clock_belongs_to_its_question_and_nonsense_is_not_a_clock(tmp_path, monkeypatch):
    """The table's own bookkeeping, with no I/O: the deadline holds while its question is open
    and goes with it; a time left that is not a number of seconds is ignored or bounded."""
    from protocol.diff import view_hash
    from client import table as table_module
    from client.table import CLOCK_WAIT, Table

    now = 1000.0       # the table's clock, stopped: deadlines are exact sums, whatever the load
    monkeypatch.setattr(table_module, "time", types.SimpleNamespace(monotonic=lambda: now))
    session = SeatSession(tmp_path, "ws://x", "t1", 0, "p0", "Ana", bytes(32))
    table = Table("t1", session)
    asked = {"prompt": {"text": "Pick", "options": [1, 2], "min": 1, "max": 1}, "players": []}
    table.feed({"type": "status", "table": "t1", "seats": [], "turn_time": 30.0})
    table.feed({"type": "snapshot", "table": "t1", "seq": 3, "view": asked, "hash": view_hash(asked), "events": []})
    assert 0 < table.should_ask(now) <= CLOCK_WAIT      # a clocked question waits a moment for its clock
    table.feed({"type": "clock", "table": "t1", "seq": 3, "left": 12.5})
    assert table.should_ask(now) is True
    assert table.deadline == now + 12.5
    before = table.deadline
    for nonsense in (float("nan"), float("inf")):       # not a time: ignored
        table.feed({"type": "clock", "table": "t1", "seq": 3, "left": nonsense})
        assert table.deadline == before
    for said, left in ((-5.0, 0.0), (1e12, 24 * 3600.0)):   # bounded to what can be shown
        table.feed({"type": "clock", "table": "t1", "seq": 3, "left": said})
        assert table.deadline == now + left
    moved = {"prompt": None, "players": []}
    table.feed({"type": "snapshot", "table": "t1", "seq": 4, "view": moved, "hash": view_hash(moved), "events": []})
    assert table.deadline is None                        # the question went: its clock with it


async def test_when_the_clock_runs_out_a_computer_answers_and_the_screen_says_so(tmp_path):
    """A short turn time: the question left alone counts down to 0:00, a computer answers it,
    and the log says so; the seat is still ours for the next question."""
    server = LiveServer(tmp_path / "server", turn_time=1.5)
    server.start()
    try:
        app = await seated_app(server, tmp_path, "sanjuan", "random")
        async with app.run_test(size=SMALL) as pilot:
            await open_question(app)
            await pilot.pause()
            assert re.search(r"clock 0:0[0-2]", screen_text(app).splitlines()[0])   # counting down (a slow machine may be at 0:00)
            first = app.asked

            async def ran_out():
                while not any("ran out" in line.plain for line in app.logged):
                    await asyncio.sleep(0.05)
            await asyncio.wait_for(ran_out(), LIMIT)
            assert app.sent == 0                       # nothing was sent by us: a computer answered
            await asyncio.wait_for(open_question(app), LIMIT)
            assert app.asked > first                   # and the next question is ours again
            await pilot.press("q", "y")
            await app.job_task
    finally:
        server.close()
