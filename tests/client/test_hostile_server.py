"""A server's strings reach the terminal without control characters: a hostile server cannot
clear the screen, ring the bell or move the cursor through a name, a reason or an event text, and
what is hashed or signed is checked as it came."""
import asyncio
import re

from websockets.exceptions import ConnectionClosed
from websockets.frames import Close

from client.link import Link, why_dropped
from protocol import wire
from protocol.diff import view_hash
from protocol.verify import Report

from tests.server.rawclient import Raw

from .live import LiveServer, bot_seat, governor, outcome

EVIL = "Ev\x1b[2Jil\x07"      # clears the screen and rings the bell, as it reaches a terminal
SHOWN = "Ev[2Jil"


class Frames:
    """Stands in for a WebSocket: hands out the frames it was given."""

    def __init__(self, *messages: dict) -> None:
        self.frames = [wire.encode(m) for m in messages]

    async def recv(self) -> bytes:
        return self.frames.pop(0)


def test_what_the_link_hands_on_has_no_control_characters_but_a_view_stays_as_hashed():
    view = {"players": [{"name": EVIL}]}
    link = Link("ws://127.0.0.1:9")
    link.ws = Frames({"type": "reject", "id": 1, "code": "bad", "message": f"No, {EVIL}."},
                     {"type": "status", "table": "t1", "seats": [{"name": EVIL, "connected": True}]},
                     {"type": "snapshot", "table": "t1", "seq": 3, "view": view, "hash": view_hash(view),
                      "events": [{"type": "build", "text": f"{EVIL} builds\na smithy"}]})

    async def three():
        return [await link.recv() for _ in range(3)]

    reject, status, snapshot = asyncio.run(three())
    assert reject["message"] == f"No, {SHOWN}."
    assert status["seats"][0]["name"] == SHOWN
    assert snapshot["events"][0]["text"] == f"{SHOWN} buildsa smithy"
    assert snapshot["view"] == view and view_hash(snapshot["view"]) == snapshot["hash"]


def test_a_close_reason_and_a_report_are_shown_without_control_characters():
    closed = ConnectionClosed(Close(4000, f"bye {EVIL}"), None)
    assert why_dropped(closed) == f"closed by the server (4000: bye {SHOWN})"
    report = Report(ok=True, names=[EVIL, "Bo"], scores=[10, 12], winners=[1])
    assert "\x1b" not in report.text() and f"Players: {SHOWN} 10, Bo 12" in report.text()


def test_a_spectator_sees_a_hostile_name_in_the_status_board_log_and_result_without_escapes(tmp_path):
    """The server in this test is hostile in one way: a seat's name carries escape sequences, in
    the status, the views, the event texts and the signed header alike."""
    live = LiveServer(tmp_path / "server")
    live.start()
    try:
        async def create():
            raw = await Raw.connect(live.url)
            table = await raw.create(2, bots=1)
            await raw.close()
            return table

        async def rename(table):
            live.server.tables[table].core.seats[1].name = EVIL

        table = asyncio.run(create())
        live._call(rename(table))
        player = bot_seat(live.url, tmp_path / "p", "--table", table, "--think", "0.01")
        watcher = governor("watch", live.url, table, "--data-dir", str(tmp_path / "w"))
        out, err = watcher.communicate(timeout=60)
        assert watcher.returncode == 0, err
        assert outcome(player)["names"][1] == EVIL      # the signed header names it as it was
        assert "[Seats — Random" in out and f"; {SHOWN}: computer]" in out         # the status
        assert f"\n  {SHOWN} chooses the" in out and f"Waiting for {SHOWN}…" in out   # events, views
        assert re.search(rf"Players: .*, {re.escape(SHOWN)} \d+\n", out)             # the audit
        assert "\x1b" not in out + err and "\x07" not in out + err
    finally:
        live.close()
