"""Choosing opponents: a level per computer seat from `--bots` (a count and `--level`, or a list
of levels), checked against the game's levels; the server seats each computer player at its
level; an interactive `join --create` makes the table its flags describe."""
import argparse
import os
import subprocess
import sys

import pytest

import bots
from client.cli import parser
from client.link import ServerRefused, open_link
from client.table_options import bots_value, computer_levels
from games.errors import IllegalAction
from server.app import Server
from tests.client.live import ROOT


@pytest.mark.parametrize("spec, level, players, default, levels", [
    (None, None, 4, 3, ["heuristic"] * 3),
    (2, "ismcts", 4, 3, ["ismcts", "ismcts"]),
    (("random", "ismcts"), None, 3, 2, ["random", "ismcts"]),
    (0, None, 2, 1, []),
])
def test_levels_per_computer_seat(spec, level, players, default, levels):
    assert computer_levels(spec, level, "sanjuan", players, default) == levels


@pytest.mark.parametrize("spec, level, players, sentence", [
    (("heuristic", "genius"), None, 4, "San Juan has no computer player of level 'genius'; there is: random, heuristic, ismcts."),
    (3, None, 3, "3 computer players leave no seat for you at a table of 3."),
    (("random",), "ismcts", 4, "--level is for --bots given as a number"),
])
def test_levels_that_do_not_fit_are_named(spec, level, players, sentence):
    with pytest.raises(IllegalAction) as e:
        computer_levels(spec, level, "sanjuan", players, 0)
    assert e.value.message.startswith(sentence)


@pytest.mark.parametrize("text", ["many!", "heuristic,,random", "123", "a" * 30])
def test_bots_flag_refuses_what_is_neither_a_count_nor_levels(text):
    with pytest.raises(argparse.ArgumentTypeError):
        bots_value(text)


def test_the_help_says_what_each_level_is():
    text = parser()._subparsers._group_actions[0].choices["play"].format_help()
    for level in bots.all_levels():
        assert level in text
    assert "Monte Carlo tree search" in " ".join(text.split())
    assert set(bots.DESCRIPTIONS) >= set(bots.all_levels())      # one line for every level


async def test_the_server_seats_each_computer_player_at_its_level(tmp_path):
    server = Server(tmp_path, "127.0.0.1", 0, bot_processes=False)
    port = await server.start()
    link = await open_link(f"ws://127.0.0.1:{port}", quiet=True, rate=0)
    try:
        table = await link.create("sanjuan", 4, 2, {}, levels=["ismcts", "random"])
        seats = next(t for t in await link.tables() if t["id"] == table)["seats"]
        assert [s["bot"] for s in seats] == [None, None, "ismcts", "random"]
        same = await link.create("sanjuan", 3, 2, {}, levels=["random", "random"])    # sent as `bot`
        seats = next(t for t in await link.tables() if t["id"] == same)["seats"]
        assert [s["bot"] for s in seats] == [None, "random", "random"]
        with pytest.raises(ServerRefused, match="No bot level 'genius' for San Juan"):
            await link.create("sanjuan", 4, 2, {}, levels=["random", "genius"])
        with pytest.raises(ServerRefused, match="1 bot levels for 2 computer seats"):
            await link.request({"type": "create", "game": "sanjuan", "seats": 4, "bots": 2, "levels": ["ismcts"]},
                               ("created",))
        with pytest.raises(ServerRefused, match="No bot level 'genius' for San Juan"):
            await link.create("sanjuan", 3, 1, {}, levels=["genius"])
    finally:
        await link.close()
        await server.stop()


def _governor(*args, stdin="", data=None):
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "client", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120, env=env)


def test_play_against_the_levels_named(tmp_path):
    proc = _governor("play", "--port", "0", "--data-dir", str(tmp_path), "--bots", "ismcts,random",
                     stdin="q\ny\n")
    assert proc.returncode == 0, proc.stderr
    assert "at table" in proc.stdout and "against ismcts, random." in proc.stdout
    assert "San Juan — round 1" in proc.stdout and "Bot 3" in proc.stdout    # 3 players: you and two


def test_join_flags_need_create(tmp_path):
    proc = _governor("join", "ws://127.0.0.1:9", "--bots", "2")
    assert proc.returncode == 2
    assert "describe a table you create: add --create GAME" in proc.stderr


def test_an_interactive_join_create_makes_the_table_its_flags_describe(tmp_path):
    from tests.client.live import LiveServer
    live = LiveServer(tmp_path / "server")
    live.start()
    try:
        proc = _governor("join", live.url, "--data-dir", str(tmp_path / "me"), "--create", "sanjuan",
                         "--seats", "3", "--bots", "heuristic,random", stdin="Ana\nq\ny\n")
    finally:
        live.close()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "San Juan, 3 seats, computer players: heuristic, random." in proc.stdout
    assert "You left the game." in proc.stdout


async def test_the_lobby_refuses_a_long_name_before_it_creates_a_table(tmp_path, capsys):
    import io

    from client.lobby import lobby
    from client.terminal import Keyboard

    class Link:
        url = "ws://x:1"
        welcome = {"key": b"k" * 32}       # a connected link's: the saved seats are found by it
        created = []

        async def tables(self):
            return []

        async def create(self, game, seats, bots, options, levels=None, rated=False, blind=None):
            self.created.append((game, seats, bots, levels))
            return "t1"

    sanjuan = list(__import__("games").GAMES).index("sanjuan") + 1
    answers = "c\n" + "x" * 300 + f"\nAna\n{sanjuan}\n3\n2\nismcts\n\n\n\n"
    got = await lobby(Link(), Keyboard(io.StringIO(answers)), tmp_path)
    out = capsys.readouterr().out
    assert "A name is 1 to 20 printable characters (yours has 300): please type another." in out
    assert got == ("sit", "t1", "Ana")
    assert Link.created == [("sanjuan", 3, 2, ["ismcts", "ismcts"])]     # one table, made once named
    assert "ismcts: searches ahead" in out
