"""A LAN party that survives its host, on real servers and real ports: `governor play` hosting a
friend's headless `governor join` (the host's server bound to 127.0.0.2, an address of this
machine that counts as hosting and is not announced), the host leaving and coming back, the
printed hints, and the ports `play` takes."""
from __future__ import annotations

import asyncio
import re
import signal
import subprocess
from argparse import Namespace

import pytest

from client.link import open_link
from client.lobby import sit
from client.play import LAN_PORT, _ports
from client.seat import Player, SeatRunner
from client.session import HOST_PORT_FILE as PORT_FILE, SeatSession
from server.settings import defaults

from .live import LiveServer, bot_seat, governor, held_messages, outcome, wait_for
from .test_lan import Output

HOST = "127.0.0.2"
HOST_LEFT = "The host left; the game is saved and resumes when the host comes back."


def host(data, *args: str, stdin: str = "") -> tuple[subprocess.Popen, Output]:
    """`governor play --host 127.0.0.2` whose answers a bot types (--auto); `stdin` answers the
    offer to resume."""
    proc = governor("play", "--auto", "--host", HOST, "--name", "Ana", "--data-dir", str(data), *args,
                    stdin=subprocess.PIPE)
    proc.stdin.write(stdin)
    proc.stdin.close()
    return proc, Output(proc)


def test_a_friend_hears_the_host_leave_and_resumes_when_it_is_back_on_another_port(tmp_path):
    ana, bo = tmp_path / "ana", tmp_path / "bo"
    first, said = host(ana, "--players", "2", "--bots", "0", "--port", "0")
    url, table = said.wait_for(rf"Friends can join with: .* join (ws://{HOST}:\d+) --table (\w+)").groups()
    friend = bot_seat(url, bo, "--table", table, "--think", "0.2", "--patience", "3")
    wait_for(lambda: held_messages(bo) >= 6, 30)          # the match is under way
    first.send_signal(signal.SIGINT)                     # the host leaves
    assert first.wait(30) == 130
    out, err = friend.communicate(timeout=60)
    # The friend is told what happened, and how to come back, with the real address and table.
    assert friend.returncode == 1 and "Traceback" not in err
    assert HOST_LEFT in err and "match is over" not in out + err
    assert re.search(rf"resume with `.*join {url} --table {table}`", err), err

    # The host comes back on another port: the friend's seat is found there by the server's key.
    second, back = host(ana, "--players", "2", "--bots", "0", "--port", "0", stdin="y\n")
    again = back.wait_for(rf"Connected to (ws://{HOST}:\d+)").group(1)
    assert again != url
    back.wait_for(r"Resuming your seat")
    resumed = bot_seat(again, bo, "--table", table)
    result = outcome(resumed)
    assert result["finished"] and result["verified"] and "Resuming your seat" in result["_stderr"]
    assert second.wait(60) == 0
    assert SeatSession.unfinished(bo) == []              # finished: nothing left to resume


# Binds LAN_PORT on 127.0.0.2, as every `play --host` without --port tries first: the tests that
# need that port run one after another (pytest-xdist's group), never beside each other.
@pytest.mark.xdist_group("lan-port")
def test_a_host_started_again_keeps_its_port(tmp_path):
    first, said = host(tmp_path, "--players", "2")       # a whole game against a computer player
    port = said.wait_for(rf"Connected to ws://{HOST}:(\d+)").group(1)
    assert first.wait(60) == 0
    assert (tmp_path / "server" / PORT_FILE).read_text().strip() == port
    second, again = host(tmp_path, "--players", "2")
    assert again.wait_for(rf"Connected to ws://{HOST}:(\d+)").group(1) == port
    assert second.wait(60) == 0


def test_plays_server_never_takes_the_port_of_serve(tmp_path):
    serve_port = defaults()["port"]
    assert LAN_PORT != serve_port
    alone = Namespace(port=None, host="127.0.0.1")
    assert _ports(tmp_path, alone) == [0]                 # for this machine alone: any free port
    lan = Namespace(port=None, host="0.0.0.0")
    assert _ports(tmp_path, lan) == [LAN_PORT, 0]
    (tmp_path / PORT_FILE).write_text("40123\n")
    assert _ports(tmp_path, lan) == [40123, LAN_PORT, 0]   # the host's port of last time first
    assert _ports(tmp_path, Namespace(port=serve_port, host="0.0.0.0")) == [serve_port]   # --port is obeyed
    proc = governor("play", "--players", "2", "--data-dir", str(tmp_path / "data"), stdin=subprocess.PIPE)
    said = Output(proc)
    port = int(said.wait_for(r"Connected to ws://127.0.0.1:(\d+)").group(1))
    proc.stdin.write("q\ny\n")
    proc.stdin.close()
    assert proc.wait(30) == 0 and port != serve_port


class Thinks(Player):
    """A player who never makes up their mind: the seat stays connected, nothing more."""

    async def decide(self, table) -> list:
        await asyncio.Event().wait()


def test_a_seat_found_by_the_servers_key_where_the_network_says_it_moved(tmp_path):
    """Nobody answers where the server was; looking its key up on the network (a stand-in for
    multicast DNS here) finds it on another port, and the seat carries on there."""
    server = LiveServer(tmp_path / "server")
    server.start()
    heard: list[str] = []

    async def run() -> None:
        link = await open_link(server.url, quiet=True, rate=0)
        table = await link.create("sanjuan", 2, 1, {}, levels=["random"])
        session = await sit(link, table, "Bo", tmp_path / "bo")
        await link.close()
        await asyncio.to_thread(server.stop)
        server.port = 0
        await asyncio.to_thread(server.start)         # the same server (its key), another port

        async def lookup(fingerprint: str) -> list[str]:
            heard.append(fingerprint)
            return ["ws://127.0.0.1:9", server.url]   # a stale claim too: nobody answers there

        runner = SeatRunner(session, Thinks(), patience=20, rate=0, lookup=lookup)
        task = asyncio.ensure_future(runner.run())
        await asyncio.to_thread(wait_for, lambda: runner.link is not None and runner.link.welcome is not None, 20)
        assert runner.link.url == server.url
        task.cancel()
        saved = SeatSession.find(tmp_path / "bo", table, server_key=session.server_key)
        assert saved.url == server.url                    # kept with its new address
    try:
        asyncio.run(run())
    finally:
        server.close()
    assert len(heard) == 1 and heard[0].count(":") == 7


def test_a_ctrl_c_hint_names_the_real_table_or_none(tmp_path):
    server = LiveServer(tmp_path / "server")
    server.start()
    try:
        async def made() -> str:
            link = await open_link(server.url, quiet=True, rate=0)
            table = await link.create("sanjuan", 2, 1, {}, levels=["random"])
            await link.close()
            return table
        table = asyncio.run(made())
        args = ("join", server.url, "--plain", "--name", "Bo")
        lobby = governor(*args, "--data-dir", str(tmp_path / "a"), stdin=subprocess.PIPE)
        Output(lobby).wait_for(rf"\n +1\. {table}  San Juan")
        lobby.send_signal(signal.SIGINT)
        assert lobby.wait(20) == 130       # stdout is the Output's to read: stderr read here
        err = lobby.stderr.read()
        assert "Interrupted." in err
        assert "TABLE" not in err and "--table" not in err       # no seat yet: nothing to resume

        seated = governor(*args, "--data-dir", str(tmp_path / "b"), stdin=subprocess.PIPE)
        said = Output(seated)
        seated.stdin.write("1\n")
        seated.stdin.flush()
        said.wait_for(r"\(\? for help, q to quit\)")
        seated.send_signal(signal.SIGINT)
        assert seated.wait(20) == 130
        err = seated.stderr.read()
        assert re.search(rf"resume with `.*join {server.url} --table {table}`", err), err
    finally:
        server.close()


JOIN = "Friends join with: governor join ws://192.168.1.20:8766 --table k7p2xq"
INVITE = f"{JOIN}, or governor join alone"


async def test_the_hosts_full_screen_keeps_the_join_line_in_sight_until_the_end():
    from client.fullscreen.app import TableApp

    from .screens import screen_text
    from .test_fullscreen import SMALL
    finish = asyncio.Event()

    async def job(app):
        await finish.wait()
        return 0, "The end."
    app = TableApp(job, title="table k7p2xq · seat 1, Ana", invite=INVITE)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert f"\n {JOIN}" in screen_text(app)          # under the status line
        app.set_connection("connected")
        await pilot.pause()
        assert f"\n {JOIN}" in screen_text(app)
        finish.set()
        await pilot.pause(0.2)
        assert JOIN not in screen_text(app) and "the match is over" in screen_text(app)


async def test_a_friends_screen_says_the_host_left_not_that_the_match_is_over():
    from client.errors import ClientError
    from client.fullscreen.app import TableApp

    from .screens import screen_text
    from .test_fullscreen import COMFY
    told = asyncio.Event()

    async def job(app):
        app.set_connection("host_left")
        await told.wait()
        raise ClientError("host_left", f"{HOST_LEFT} It did not come back in 3 s.")
    app = TableApp(job, title="table k7p2xq · seat 2, Bo")
    async with app.run_test(size=COMFY) as pilot:
        await pilot.pause()
        assert "the host left; the game is saved and resumes when the host comes back" in screen_text(app)
        told.set()
        await pilot.pause(0.2)
        shown = screen_text(app)
        assert "the table stopped" in shown and "match is over" not in shown and "It did not come back" in shown


def test_a_game_alone_against_computers_is_not_listed_to_others_and_one_with_a_free_seat_is(tmp_path):
    async def listed(url: str) -> list[str]:
        link = await open_link(url, quiet=True, rate=0)
        try:
            return [t["id"] for t in await link.tables()]
        finally:
            await link.close()

    for flags, alone in ((("--players", "2"), True), (("--players", "2", "--bots", "0"), False)):
        proc = governor("play", "--plain", "--data-dir", str(tmp_path / str(alone)), *flags, stdin=subprocess.PIPE)
        said = Output(proc)
        url = said.wait_for(r"Connected to (ws://127.0.0.1:\d+)").group(1)
        table = said.wait_for(r"You are seat 1 at table (\w+)").group(1)
        assert asyncio.run(listed(url)) == ([] if alone else [table])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
