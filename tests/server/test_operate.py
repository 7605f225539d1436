"""Operating a server: /healthz and /metrics over real HTTP on the server's own port, and the
operator's `tables` and `close` over a real WebSocket, with right and wrong keys."""
from __future__ import annotations

import asyncio
import ipaddress
import socket
import subprocess
import sys
import urllib.error
import urllib.request

from websockets.asyncio.server import serve

from protocol import wire
from protocol.signing import fingerprint
from server.app import Server
from tests.client.live import ROOT

from .rawclient import Raw, SeatPlayer, new_key, play_all

KEY = "an-operator-key-long-enough-to-be-safe"


async def play_some(players: list[SeatPlayer], acks: int) -> None:
    """Play until the players' acks add up to `acks` (each stops at the first message after)."""
    enough = lambda _: sum(p.acks for p in players) >= acks   # noqa: E731
    await asyncio.gather(*(p.play(until=enough) for p in players))


async def read_until(player: SeatPlayer, told) -> None:
    """Read on (a player whose match ended) until `told(player)` holds."""
    while not told(player):
        await player.step()


def get(url: str) -> tuple[int, str, str]:
    """(status, content type, body) of a plain HTTP GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


async def metrics(server) -> dict[str, float]:
    """Every sample of /metrics: 'name{labels}' -> value."""
    status, kind, body = await asyncio.to_thread(get, f"http://127.0.0.1:{server.port}/metrics")
    assert status == 200 and kind.startswith("text/plain; version=0.0.4")
    samples = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


async def test_healthz_answers_plain_http_on_the_game_port(server):
    status, kind, body = await asyncio.to_thread(get, f"http://127.0.0.1:{server.port}/healthz")
    assert (status, body) == (200, "ok\n") and kind.startswith("text/plain")
    # and the same port still speaks the game's protocol
    raw = await Raw.connect(f"ws://127.0.0.1:{server.port}")
    assert raw.welcome["server"] == server.fingerprint
    await raw.close()


async def test_metrics_follow_a_match_as_it_is_played(server):
    url = f"ws://127.0.0.1:{server.port}"
    before = await metrics(server)
    assert before['governor_tables{status="playing"}'] == 0
    assert before["governor_lease_takeovers_total"] == 0
    assert before["governor_ack_seconds_count"] == 0
    creator = await Raw.connect(url)
    table = await creator.create(3, bots=1)
    waiting = await metrics(server)
    assert waiting['governor_tables{status="waiting"}'] == 1
    assert waiting['governor_seats{state="free"}'] == 2 and waiting['governor_seats{state="bot"}'] == 1
    ana, bo = SeatPlayer(url, table, "Ana", 1), SeatPlayer(url, table, "Bo", 2)
    await ana.sit()
    await bo.sit()
    await play_some([ana, bo], 3)
    playing = await metrics(server)
    assert playing['governor_tables{status="playing"}'] == 1 and playing['governor_tables{status="waiting"}'] == 0
    assert playing['governor_seats{state="connected"}'] == 2
    assert playing["governor_connections"] >= 3      # the creator, two players (and this scrape)
    assert playing['governor_messages_total{type="act"}'] >= 3
    await bo.drop()
    await asyncio.sleep(0.2)
    assert (await metrics(server))['governor_seats{state="away"}'] == 1
    await bo.resume()
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok
    after = await metrics(server)
    acts = after['governor_messages_total{type="act"}']
    assert acts >= ana.acks + bo.acks
    # every act was answered, each answer timed once; buckets are cumulative up to +Inf
    assert after["governor_ack_seconds_count"] == acts == after['governor_ack_seconds_bucket{le="+Inf"}']
    assert after['governor_ack_seconds_bucket{le="0.001"}'] <= after['governor_ack_seconds_bucket{le="0.1"}']
    assert after["governor_ack_seconds_sum"] > 0
    # every move, the bot's too, and the commitments and seeds were written to the store
    assert after["governor_store_write_seconds_count"] > acts
    assert after['governor_tables_finished_total{status="over"}'] == 1
    assert after['governor_tables{status="playing"}'] == 0
    await creator.close()


async def operator(server, msg: dict, source: str | None = None) -> dict:
    raw = await Raw.connect(f"ws://127.0.0.1:{server.port}", source=source)
    try:
        await raw.send({"type": "operator", **msg})
        return await raw.recv()
    finally:
        await raw.close()


async def test_the_operator_sees_who_holds_which_seat(make_server):
    server = await make_server(operator_key=KEY)
    url = f"ws://127.0.0.1:{server.port}"
    creator = await Raw.connect(url)
    table = await creator.create(4, bots=1, bot="heuristic")
    ana, bo = SeatPlayer(url, table, "Ana", 1), SeatPlayer(url, table, "Bo", 2)
    await ana.sit()
    await bo.sit()
    await bo.drop()
    watcher = await Raw.connect(url)
    await watcher.send({"type": "watch", "table": table})
    await watcher.expect("status", skip=())
    reply = await operator(server, {"key": KEY, "do": "tables"})
    assert reply["type"] == "operator_tables"
    [t] = reply["tables"]
    assert (t["id"], t["game"], t["status"], t["spectators"]) == (table, "sanjuan", "waiting", 1)
    assert t["seats"] == [
        {"seat": 0, "name": "Ana", "bot": None, "connected": True, "standin": False, "address": "127.0.0.1"},
        {"seat": 1, "name": "Bo", "bot": None, "connected": False, "standin": False},   # Bo dropped: away
        {"seat": 2, "name": None, "bot": None, "connected": False, "standin": False},
        {"seat": 3, "name": "Bot 4", "bot": "heuristic", "connected": False, "standin": False},
    ]
    for raw in (creator, watcher, ana.raw):
        await raw.close()


async def test_the_operator_closes_a_match_which_is_kept_cancelled_and_verifies(make_server):
    server = await make_server(operator_key=KEY)
    url = f"ws://127.0.0.1:{server.port}"
    creator = await Raw.connect(url)
    table = await creator.create(3, bots=1)
    ana, bo = SeatPlayer(url, table, "Ana", 1), SeatPlayer(url, table, "Bo", 2)
    await ana.sit()
    await bo.sit()
    await play_some([ana, bo], 2)
    reply = await operator(server, {"key": KEY, "do": "close", "table": table, "reason": "cheating reported"})
    assert reply == {"type": "operator_closed", "table": table}
    await play_all([ana, bo])      # until the audit of the cancel entry
    for p in (ana, bo):
        await read_until(p, lambda p: p.status["status"] == "cancelled" and p.errors)
        final = p.px.entries[-1].body
        assert final["t"] == "cancel" and final["reason"] == "closed by the server's operator: cheating reported"
        assert p.report.ok                          # every seed revealed: the cancelled match verifies
        assert p.status["status"] == "cancelled"
        assert any(e["code"] == "table_closed" and "cheating reported" in e["message"] for e in p.errors)
    row = await server.store.finished_table(table)
    assert row.status == "cancelled"
    assert (await server.store.log(table))[-1].kind == "cancel"
    assert (await metrics(server))['governor_tables_finished_total{status="cancelled"}'] == 1
    again = await operator(server, {"key": KEY, "do": "close", "table": table})
    assert again["type"] == "error" and again["code"] == "no_table"
    await creator.close()


async def test_the_operator_closes_a_waiting_table(make_server):
    server = await make_server(operator_key=KEY)
    url = f"ws://127.0.0.1:{server.port}"
    creator = await Raw.connect(url)
    table = await creator.create(3)
    ana = SeatPlayer(url, table, "Ana", 1)
    await ana.sit()
    reply = await operator(server, {"key": KEY, "do": "close", "table": table})
    assert reply["type"] == "operator_closed"
    await read_until(ana, lambda p: p.status and p.status["status"] == "cancelled" and p.errors)
    assert ana.errors[0]["code"] == "table_closed"
    assert (await server.store.finished_table(table)).status == "cancelled"
    await creator.send({"type": "sit", "table": table, "name": "Late", "key": new_key()})
    assert (await creator.expect("error"))["code"] == "table_closed"
    await creator.close()
    await ana.raw.close()


async def test_a_wrong_operator_key_is_refused_and_then_the_address_is_held_off(make_server):
    server = await make_server(operator_key=KEY, operator_failures=3)
    url = f"ws://127.0.0.1:{server.port}"
    creator = await Raw.connect(url)
    table = await creator.create(2)
    for wrong in ("not-the-key", KEY + "x", KEY[:-1]):
        reply = await operator(server, {"key": wrong, "do": "close", "table": table})
        assert (reply["type"], reply["code"]) == ("error", "bad_operator_key")
    # three wrong keys: even the right one is refused unread from this address now
    reply = await operator(server, {"key": KEY, "do": "tables"})
    assert (reply["type"], reply["code"]) == ("error", "slow_down") and "operator_failures=3" in reply["message"]
    assert server.tables[table].status == "waiting"          # nothing was closed
    # another address is not held off
    reply = await operator(server, {"key": KEY, "do": "tables"}, source="127.0.0.2")
    assert reply["type"] == "operator_tables" and reply["tables"][0]["id"] == table
    await creator.close()


async def test_without_an_operator_key_nobody_operates(server):
    reply = await operator(server, {"key": KEY, "do": "tables"})
    assert (reply["type"], reply["code"]) == ("error", "no_operator")


async def test_operator_requests_that_make_no_sense_are_refused(make_server):
    server = await make_server(operator_key=KEY)
    reply = await operator(server, {"key": KEY, "do": "reboot"})
    assert (reply["type"], reply["code"]) == ("error", "bad_operator_request")
    reply = await operator(server, {"key": KEY, "do": "close", "table": "nosuch"})
    assert (reply["type"], reply["code"]) == ("error", "no_table")
    reply = await operator(server, {"key": KEY, "do": "close"})
    assert (reply["type"], reply["code"]) == ("error", "no_table")


def outward_address() -> str:
    """This machine's address on its network (not a loopback one): where a route out leaves from."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))      # no packet is sent: a route is chosen
        return s.getsockname()[0]


async def test_governor_admin_sends_the_key_over_ws_only_to_this_machine_unless_told(tmp_path):
    server = Server(tmp_path / "data", "0.0.0.0", 0, operator_key=KEY, bot_processes=False)
    await server.start()
    try:
        key_file = tmp_path / "operator.key"
        key_file.write_text(KEY + "\n")
        key_file.chmod(0o600)
        outside = f"ws://{outward_address()}:{server.port}"
        assert not ipaddress.ip_address(outward_address()).is_loopback

        async def admin(url: str, *args: str) -> subprocess.CompletedProcess:
            return await asyncio.get_running_loop().run_in_executor(None, lambda: subprocess.run(
                [sys.executable, "-m", "client", "admin", url, "tables", "--key-file", str(key_file), *args],
                cwd=ROOT, capture_output=True, text=True, timeout=30))

        refused = await admin(outside)
        assert refused.returncode == 2 and f"the operator key is not sent to {outside}: over ws://" in refused.stderr
        assert "--insecure" in refused.stderr and server.metrics.messages["operator"] == 0    # nothing was sent
        told = await admin(outside, "--insecure")
        assert (told.returncode, told.stdout) == (0, "No open tables.\n"), told.stderr
        near = await admin(f"ws://127.0.0.1:{server.port}")      # this machine: nobody on the way
        assert (near.returncode, near.stdout) == (0, "No open tables.\n"), near.stderr
        assert server.metrics.messages["operator"] == 2
    finally:
        await server.stop()


async def test_governor_admin_follows_no_redirect_that_would_send_the_key_over_ws_elsewhere(tmp_path):
    """A server (or whoever answers at its address) that sends the close on to a plain ws://
    address of another machine gets no key sent there."""
    async def redirecting(ws):
        await ws.recv()
        await ws.send(wire.encode({"type": "welcome", "version": wire.VERSION, "server": fingerprint(b"k" * 32),
                                   "key": b"k" * 32, "nonce": bytes(32)}))
        await ws.recv()
        await ws.send(wire.encode({"type": "redirect", "url": "ws://192.0.2.77:8765", "table": "abcdef"}))
        await ws.wait_closed()

    async with serve(redirecting, "127.0.0.1", 0) as fake:
        port = fake.sockets[0].getsockname()[1]
        key_file = tmp_path / "operator.key"
        key_file.write_text(KEY + "\n")
        key_file.chmod(0o600)
        done = await asyncio.get_running_loop().run_in_executor(None, lambda: subprocess.run(
            [sys.executable, "-m", "client", "admin", f"ws://127.0.0.1:{port}", "close", "abcdef",
             "--key-file", str(key_file)], cwd=ROOT, capture_output=True, text=True, timeout=30))
    assert done.returncode == 1
    assert "the operator key is not sent to ws://192.0.2.77:8765" in done.stderr, done.stderr
