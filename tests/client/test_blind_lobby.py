"""Where people choose blind dealing and see it: the lobby's line of a blind table and what the
word means under the listing (plain and full screen), and the full-screen create dialog's switch,
driven through Textual's pilot. The server here is a stand-in that lists what it is given and
keeps what it is asked to create: a real server's side of `blind` is the server's tests', and
tests/client/test_blind_play.py plays it end to end."""
from __future__ import annotations

import asyncio
import io

import games
from client.fullscreen.lobby import LobbyApp
from client.lobby import lobby
from client.render import BLIND_MEANS, describe_table
from client.terminal import Keyboard

from .screens import screen_text
from .test_fullscreen import COMFY, LIMIT, check_screen

SEATS = [{"name": "Ana", "bot": None}, {"name": None, "bot": None}, {"name": None, "bot": "random"}]
BLIND = {"id": "b1", "game": "sanjuan", "seats": SEATS, "status": "waiting", "blind": True}
OPEN = {"id": "o1", "game": "sanjuan", "seats": SEATS, "status": "waiting", "blind": False}


class Lobby:
    """What LobbyApp and the plain lobby ask of a link."""

    url = "ws://127.0.0.1:9"
    fingerprint = "SHA256:test"
    welcome = {"key": b"k" * 32}

    def __init__(self, tables: list[dict]) -> None:
        self.listed = tables
        self.created: list[dict] = []

    async def tables(self) -> list[dict]:
        return list(self.listed)

    async def create(self, game, seats, bots, options, levels=None, private=False, rated=False, blind=None):
        self.created.append({"game": game, "seats": seats, "bots": bots, "rated": rated, "blind": blind})
        return "new1"

    async def request(self, msg, expect, on_other=None):
        assert msg["type"] == "sit"
        return {"type": "seated", "table": msg["table"], "seat": 0, "player_id": "p1"}


def test_a_blind_table_is_marked_in_its_lobby_line():
    assert describe_table(BLIND) == "b1  San Juan, 3 seats, 1 computer (random), 1 free, blind, waiting — Ana"
    assert "blind" not in describe_table(OPEN)


def test_the_plain_lobby_says_what_blind_means_when_a_table_is(tmp_path, capsys):
    for tables, said in (([OPEN], False), ([OPEN, BLIND], True)):
        assert asyncio.run(lobby(Lobby(tables), Keyboard(io.StringIO("q\n")), tmp_path)) == ("quit", None, None)
        out = capsys.readouterr().out
        assert (f"({BLIND_MEANS})" in out) is said
        assert ("blind, waiting" in out) is said


async def until(pilot, ready) -> None:
    async def wait():
        while not ready():
            await pilot.pause(0.02)
    await asyncio.wait_for(wait(), LIMIT)


async def test_the_full_screen_lobby_marks_blind_tables_and_its_create_dialog_has_the_switch(tmp_path):
    link = Lobby([OPEN, BLIND])
    app = LobbyApp(link, tmp_path / "client", name="Ana")
    sj = str(list(games.GAMES).index("sanjuan") + 1)
    async with app.run_test(size=COMFY) as pilot:
        await until(pilot, lambda: app.listings)
        check_screen(app, ["blind, waiting", BLIND_MEANS[:60]])
        await pilot.press("c")
        await pilot.press(sj, "enter")           # San Juan
        await pilot.press("3", "enter")          # 3 players
        await pilot.press("1", "enter")          # 1 of them a computer player: two people's seats
        await pilot.press("1", "enter")          # its level
        await pilot.press("enter")               # not the expansion
        await pilot.press("enter")               # nor the setup variant
        await until(pilot, lambda: "Blind dealing" in screen_text(app))
        check_screen(app, ["Blind dealing (nobody, the server included, knows a card", "1. no", "2. yes"])
        await pilot.press("1", "enter")          # no: this table deals open
        await until(pilot, lambda: app.return_value is not None)
    assert link.created == [{"game": "sanjuan", "seats": 3, "bots": 1, "rated": False, "blind": False}]
    assert app.return_value.kind == "sit" and app.return_value.table == "new1"

    # Enter takes the switch as it stands: on.
    link = Lobby([])
    app = LobbyApp(link, tmp_path / "client2", name="Ana")
    async with app.run_test(size=COMFY) as pilot:
        await until(pilot, lambda: app.listings)
        assert BLIND_MEANS not in screen_text(app)
        await pilot.press("c", sj, "enter", "2", "enter", "0", "enter", "enter", "enter", "enter")
        await until(pilot, lambda: "Blind dealing" in screen_text(app))    # after "Rated?" (people only)
        await pilot.press("enter")
        await until(pilot, lambda: app.return_value is not None)
    assert link.created == [{"game": "sanjuan", "seats": 2, "bots": 0, "rated": False, "blind": True}]
