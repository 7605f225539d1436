"""`governor join URL` on a terminal: the lobby on the full screen, driven through Textual's
pilot against a real server. The tables are listed as the plain lobby lists them; Enter sits at
one with a name (a bad name is explained, a taken one asked again); `c` creates a table one
question at a time, with a level for each computer player; `w` watches; Esc backs out of a
dialog; `q` leaves. The seat taken goes on into the full-screen table."""
import asyncio

import pytest
from textual.widgets import Input

import games
from client.fullscreen.app import TableApp
from client.fullscreen.bridge import play_job
from client.fullscreen.lobby import LobbyApp
from client.link import open_link
from client.lobby import sit
from client.render import describe_table

from .live import LiveServer
from .screens import screen_text
from .test_fullscreen import COMFY, LIMIT, SMALL, check_screen, open_question


@pytest.fixture
def server(tmp_path):
    s = LiveServer(tmp_path / "server", turn_time=0)
    s.start()
    yield s
    s.close()


async def made_table(server, game: str = "sanjuan", seats: int = 2, bots: int = 1) -> str:
    link = await open_link(server.url, quiet=True, rate=0)
    reply = await link.request({"type": "create", "game": game, "seats": seats, "bots": bots, "options": {},
                                "bot": "random"}, ("created",))
    await link.close()
    return reply["table"]


async def until(pilot, ready) -> None:
    """Let the app work until `ready()`; a test stuck here fails after LIMIT seconds."""
    async def wait():
        while not ready():
            await pilot.pause(0.02)
    await asyncio.wait_for(wait(), LIMIT)


async def test_sitting_at_a_listed_table_goes_on_into_the_full_screen_table(server, tmp_path):
    table = await made_table(server)
    link = await open_link(server.url, quiet=True, rate=0)
    app = LobbyApp(link, tmp_path / "client")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.tables)
        listed = describe_table(app.tables[0])
        check_screen(app, [listed[:70], "Enter: sit there"])
        assert table in listed and "San Juan, 2 seats, 1 computer (random), 1 free, waiting" in listed
        await pilot.press("enter")
        await pilot.press(*"x" * 25, "enter")          # too long: said, and asked again
        await pilot.pause()
        check_screen(app, ["A name is 1 to 20 printable characters (yours has 25)"])
        assert app.return_value is None
        await pilot.press(*["backspace"] * 25, *"Ana", "enter")
        await until(pilot, lambda: app.return_value is not None)
    choice = app.return_value
    assert choice.kind == "sit" and choice.table == table and choice.session.name == "Ana"
    assert choice.session.saved
    # The same connection goes on into the table, on the full screen.
    game = TableApp(play_job(link.url, choice.session, link=link, resumable=True), title="test")
    async with game.run_test(size=SMALL) as pilot:
        await open_question(game)
        await pilot.pause()
        check_screen(game, ["San Juan — round 1", game.question.text[:30]])
        await pilot.press("q", "y")
        await game.job_task


async def test_a_table_created_with_a_level_for_each_computer_player(server, tmp_path):
    link = await open_link(server.url, quiet=True, rate=0)
    app = LobbyApp(link, tmp_path / "client", name="Ana")
    pr = str(list(games.GAMES).index("puertorico") + 1)
    async with app.run_test(size=COMFY) as pilot:
        await until(pilot, lambda: app.listings)
        check_screen(app, ["No table is waiting or being played: c creates one."])
        await pilot.press("c")
        await pilot.pause()
        check_screen(app, ["Game?", "1. San Juan"])
        await pilot.press(pr, "enter")                  # Puerto Rico
        await pilot.pause()
        check_screen(app, ["Players?"])
        await pilot.press("3", "enter")                 # 3 players: the choice named 3
        await pilot.press("2", "enter")                 # 2 of them computer players
        await pilot.pause()
        check_screen(app, ["Level of computer player 1?", "random: picks any legal move"])
        await pilot.press("1", "enter")                 # random
        await pilot.press("2", "enter")                 # heuristic
        await until(pilot, lambda: app.return_value is not None)
    choice = app.return_value
    assert choice.kind == "sit" and choice.session.name == "Ana"
    [t] = [t for t in await link.tables() if t["id"] == choice.table]
    assert t["game"] == "puertorico" and [s["bot"] for s in t["seats"]] == [None, "random", "heuristic"]
    assert t["seats"][0]["name"] == "Ana"
    await link.close()


async def test_the_name_dialog_has_the_keys_and_enter_sits_down(server, tmp_path):
    table = await made_table(server)
    link = await open_link(server.url, quiet=True, rate=0)
    app = LobbyApp(link, tmp_path / "client")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.tables)
        await pilot.press("enter")
        await until(pilot, lambda: "Your name at the table" in screen_text(app))
        assert isinstance(app.focused, Input) and app.focused.id == "name"    # typing goes there at once
        await pilot.press("B", "o", "enter")
        await until(pilot, lambda: app.return_value is not None)
    choice = app.return_value
    assert (choice.kind, choice.table, choice.session.name) == ("sit", table, "Bo")
    await link.close()


async def test_a_taken_name_is_asked_again(server, tmp_path):
    table = await made_table(server, seats=3)
    other = await open_link(server.url, quiet=True, rate=0)
    await sit(other, table, "Ana", tmp_path / "other")
    link = await open_link(server.url, quiet=True, rate=0)
    app = LobbyApp(link, tmp_path / "client", name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.tables)
        await pilot.press("enter")
        await until(pilot, lambda: "Ana" in screen_text(app) and "Your name" in screen_text(app))
        check_screen(app, ["Your name at the table"])
        await pilot.press(*"Quincy w", "enter")        # q, w and c are letters of a name here
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value.kind == "sit" and app.return_value.session.name == "Quincy w"
    await other.close()
    await link.close()


async def test_esc_backs_out_w_watches_and_q_leaves(server, tmp_path):
    table = await made_table(server)
    link = await open_link(server.url, quiet=True, rate=0)
    app = LobbyApp(link, tmp_path / "client", name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.tables)
        await pilot.press("c", "escape")                # out of the create dialog
        await pilot.pause()
        check_screen(app, ["No table created."])
        assert len(app.tables) == 1 and app.return_value is None
        await pilot.press("w")
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value.kind == "watch" and app.return_value.table == table
    app = LobbyApp(link, tmp_path / "client")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.listings)
        await pilot.press("q")
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value.kind == "quit"
    await link.close()


async def test_a_server_gone_is_said_and_q_still_leaves(server, tmp_path):
    link = await open_link(server.url, quiet=True, rate=0)
    app = LobbyApp(link, tmp_path / "client", name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.listings)
        await asyncio.to_thread(server.stop)
        # San Juan, 4 players, no computer, no options, not rated, blind dealing
        await pilot.press("c", *["enter"] * 7)
        await until(pilot, lambda: "No table created: closed by the server" in screen_text(app))
        await pilot.press("r")                      # no saved seat: said
        await until(pilot, lambda: "You have no unfinished seat" in screen_text(app))
        await pilot.press("q")
        await until(pilot, lambda: app.return_value is not None)
    assert app.return_value.kind == "quit"
    await link.close()
