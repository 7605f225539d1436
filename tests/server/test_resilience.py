"""Players who go away and come back, a seat taken over by a bot, and a server killed with
SIGKILL mid-game and restarted on the same data directory (SQLite) or the same PostgreSQL database."""
from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import wire
from protocol.codec import pack
from server.sqlite_store import DB_FILE

from .rawclient import Closed, Raw, Recorder, SeatPlayer, play_all

ROOT = Path(__file__).resolve().parents[2]


async def table_with(server_url, seats, bots=0, names=("Ana", "Bo", "Cy", "Di"), options=None):
    lobby = await Raw.connect(server_url)
    table = await lobby.create(seats, bots, options=options)
    await lobby.close()
    players = [SeatPlayer(server_url, table, names[i], seed=i) for i in range(seats - bots)]
    for p in players:
        await p.sit()
    return table, players


async def test_a_player_reconnects_mid_game_with_key_and_have(server):
    table, (ana, bo) = await table_with(server.url, 2)
    await asyncio.gather(ana.play(until=lambda p: p.seq >= 40), bo.play(until=lambda p: p.seq >= 40))
    held = len(ana.px.record)
    await ana.drop()
    await asyncio.sleep(0.1)
    assert server.tables[table].summary()["seats"][ana.seat]["connected"] is False
    await ana.resume()
    # what was missed comes first, each signed message exactly once, then a snapshot
    first = await ana.step()
    assert first["type"] in ("entry", "private", "snapshot", "status")
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok, (ana.report.text(), bo.report.text())
    assert len(ana.px.record) > held
    assert ana.snapshots >= 2
    assert ana.rejects == [] and bo.rejects == []


async def test_a_second_connection_with_the_key_replaces_the_first(server):
    table, (ana, bo) = await table_with(server.url, 2)
    await asyncio.gather(ana.play(until=lambda p: p.seq >= 20), bo.play(until=lambda p: p.seq >= 20))
    old = ana.raw
    await ana.resume()
    code, reason = await old.closed()
    assert code == wire.CLOSE_REPLACED, (code, reason)
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok


async def test_a_bot_plays_for_an_absent_player_until_they_return(make_server):
    server = await make_server(grace=0.2)
    table, (ana, bo) = await table_with(server.url, 2)
    await asyncio.gather(ana.play(until=lambda p: p.seq >= 30), bo.play(until=lambda p: p.seq >= 30))
    await ana.drop()
    # Bo plays on; after the grace period the server plays Ana's seat
    await bo.play(until=lambda p: p.seq >= 90 or p.done)
    assert any(s.standin for s in server.tables[table].seats)
    assert bo.status["seats"][ana.seat]["standin"] is True
    await ana.resume()
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok, (ana.report.text(), bo.report.text())
    assert bo.status["seats"][ana.seat]["standin"] is False


async def test_the_server_supplies_the_seed_of_a_player_gone_before_committing(make_server):
    server = await make_server(grace=0.2)
    lobby = await Raw.connect(server.url)
    table = await lobby.create(3, bots=1)
    ana, bo = SeatPlayer(server.url, table, "Ana", 0), SeatPlayer(server.url, table, "Bo", 1)
    await ana.sit()
    await ana.drop()            # gone before the match starts
    await bo.sit()              # the match starts; Ana's seed will be the server's
    await bo.play(until=lambda p: p.seq >= 10)
    assert bo.status["seats"][ana.seat]["server_seed"] is True
    assert bo.status["seats"][ana.seat]["standin"] is True
    # Ana comes back: she cannot have committed, so she audits the whole record instead
    ana.px = Recorder()
    await ana.resume()
    await play_all([ana, bo])
    assert bo.report.ok, bo.report.text()
    assert ana.report.ok, ana.report.text()
    assert ana.acks > 0  # she got her seat back and played


# ---------------------------------------------------------------------- a real process, killed

def start_server(data_dir, grace=30, database="sqlite"):
    # on PostgreSQL, a lease of 4 s: a restarted server takes the tables over within 4 s, and a
    # server held up for less than 3 s (a loaded machine, a slow database) keeps its own
    proc = subprocess.Popen([sys.executable, "-m", "client", "serve", "--port", "0", "--data-dir", str(data_dir),
                             "--grace", str(grace), "--limit", "rate=10000", "--limit", "burst=10000",
                             "--limit", "lease=4", "--limit", "watch_rate=10000", "--limit", "watch_burst=10000",
                             "--database", database],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        m = re.match(r"listening on (ws://\S+)", line)
        if m:
            return proc, m.group(1), lines
    raise AssertionError("the server did not start: " + "".join(lines) + proc.stderr.read())


async def resume_when_served(player, url, within=20.0):
    """Resume the seat; on PostgreSQL the server says "connect again" (CLOSE_MOVED) until the
    lease of the killed process has run out and it has taken the table over."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        try:
            return await player.resume(url)
        except Closed as e:
            if e.code != wire.CLOSE_MOVED or asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.2)


@pytest.fixture(params=["sqlite", "postgresql"])
def kept_in(request):
    """Where the server keeps its tables: `sqlite`, the data directory's file, or the URL of a
    fresh PostgreSQL database."""
    return request.getfixturevalue("database") if request.param == "postgresql" else "sqlite"


async def test_a_server_killed_mid_game_restarts_and_every_match_finishes(tmp_path, kept_in):
    data = tmp_path / "data"
    proc, url, lines = start_server(data, database=kept_in)
    fingerprint = next(line for line in lines if "fingerprint" in line).split()[-1]
    try:
        _, people = await table_with(url, 2)
        _, alone = await table_with(url, 3, bots=2, names=("Cy", "Di", "Ed"))
        players = people + alone

        async def until_closed(p):
            try:
                await p.play()
            except Closed:
                pass

        tasks = [asyncio.create_task(until_closed(p)) for p in players]
        while min(p.seq for p in players) < 60:
            await asyncio.sleep(0.005)
        proc.send_signal(signal.SIGKILL)   # no chance to clean up: mid-move, mid-write
        proc.wait(10)
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        assert not all(p.done for p in players)  # (a busy machine may let one match end first)

        proc, url, lines = start_server(data, database=kept_in)
        assert any(fingerprint in line for line in lines)  # the same key signs on
        assert (data / DB_FILE).exists() == (kept_in == "sqlite")   # the tables are where they were asked to be
        for p in players:
            await resume_when_served(p, url)
        await play_all(players)
        for p in players:
            assert p.report.ok, p.report.text()

        # SIGINT: a clean shutdown, connections closed with 1001
        watcher = await Raw.connect(url)
        proc.send_signal(signal.SIGINT)
        code, _ = await watcher.closed()
        assert code == wire.CLOSE_SHUTDOWN
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def serve_refused(data_dir, database):
    """`governor serve` that should not start: its exit code and what it said."""
    proc = subprocess.run([sys.executable, "-m", "client", "serve", "--port", "0", "--data-dir", str(data_dir),
                           "--database", database], cwd=ROOT, capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stderr


def test_a_database_the_server_cannot_use_is_named_and_nothing_starts(tmp_path, postgres, database):
    code, said = serve_refused(tmp_path / "a", "mysql://ana:s3cret@db.example/governor")
    assert code == 2 and "or a postgresql:// URL" in said and "s3cret" not in said, said
    missing = postgres.get_uri("missing").replace("postgres:@", "postgres:s3cret@")
    code, said = serve_refused(tmp_path / "b", missing)
    assert code == 1 and "cannot open the database" in said and "missing" in said and "does not exist" in said, said
    assert "s3cret" not in said and "Traceback" not in said, said


async def test_a_restarted_server_remembers_answered_commands(make_server, tmp_path):
    server = await make_server(data_dir=tmp_path / "d")
    table, (ana, bo) = await table_with(server.url, 2)
    await asyncio.gather(ana.play(until=lambda p: p.acks >= 5), bo.play(until=lambda p: p.acks >= 5))
    # Ana may already have sent a further command the server never saw: resend the last acked one.
    last = ana.last_acked
    fingerprint = server.fingerprint
    await server.stop()           # a clean stop: connections get 1001
    assert (await ana.raw.closed())[0] == wire.CLOSE_SHUTDOWN

    server = await make_server(data_dir=tmp_path / "d")
    assert server.fingerprint == fingerprint
    for p in (ana, bo):
        await p.resume(server.url)

    async def wait():  # Ana reads, but does not move for now
        pass
    ana.maybe_act = wait
    await ana.play(until=lambda p: p.view is not None)
    seq = server.tables[table].core.seq
    assert ana.seq == seq
    ana.pending = {"type": "act", "id": last, "seq": 0, "move": pack([]), "sig": bytes(64)}
    acks = ana.acks
    await ana.raw.send(ana.pending)
    await ana.play(until=lambda p: p.pending is None)
    assert ana.acks == acks + 1 and ana.rejects == []   # answered again with its ack ...
    assert server.tables[table].core.seq == seq       # ... and not applied again
    await ana.raw.send({"type": "resync"})
    snapshots = ana.snapshots
    await ana.play(until=lambda p: p.snapshots > snapshots)
    del ana.maybe_act
    await play_all([ana, bo])
    assert ana.report.ok and bo.report.ok


async def test_a_finished_match_is_rebuilt_byte_for_byte_for_a_returning_player(make_server):
    server = await make_server(finished_cache=0)   # nothing kept built: the match is replayed from its log
    table, (ana, bo) = await table_with(server.url, 2)
    await play_all([ana, bo])
    assert ana.report.ok
    sent = [(m.kind, m.payload, m.sig) for m in ana.px.record]
    await ana.drop()
    await bo.drop()
    for _ in range(100):  # nobody is connected: the finished match leaves memory
        if table not in server.tables:
            break
        await asyncio.sleep(0.01)
    assert table not in server.tables
    again = await Raw.connect(server.url, claim=ana.claim, have=0)
    got = []
    while len(got) < len(sent):
        msg = await again.recv()
        if msg["type"] in ("entry", "private"):
            got.append((msg["type"], msg["payload"], msg["sig"]))
    assert got == sent  # replayed from the log: the same bytes, the same signatures
    snap = await again.expect("snapshot")
    assert snap["view"]["over"]
    await again.send({"type": "list"})
    [t] = [t for t in (await again.expect("tables"))["tables"] if t["id"] == table]
    assert t["status"] == "over"
