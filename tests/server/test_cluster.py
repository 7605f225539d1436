"""Several `governor serve` processes on one PostgreSQL database (server/cluster.py): the lobby of
the whole cluster, redirects to a table's owner, and failover when the owner is killed. Real
processes, a real PostgreSQL, headless `governor join --bot` clients that audit their match."""
from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import asyncpg
import pytest

from client.link import Link
from protocol import record, wire
from protocol.verify import verify
from websockets.sync.client import connect

from tests.client.live import bot_seat, governor, outcome

from .rawclient import PATIENCE, Raw, SeatPlayer, new_key
from .test_resilience import resume_when_served

# Clusters of `governor serve` processes on PostgreSQL, paused and killed against lease timers:
# one such test at a time on the machine (xdist), so that no other cluster starves their timers.
pytestmark = pytest.mark.xdist_group("postgres-cluster")

ROOT = Path(__file__).resolve().parents[2]
LEASE = 2.0      # seconds: a killed process's tables are taken over within about this


class Process:
    """`governor serve` on a port of its own and a data directory of its own, on `database`.
    What it prints is read all along (a pipe left unread would stop it once full) and kept, for
    the test to wait for a line and to show when it fails."""

    def __init__(self, data_dir, database, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "client", "serve", "--port", "0", "--data-dir", str(data_dir), "--no-announce",
             "--database", database, "--limit", f"lease={LEASE}", *(f"--limit={x}" for x in FAST), *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.new_line = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        m = self.wait_for(lambda line: re.match(r"listening on (ws://\S+)", line), "the server to listen")
        self.url = m.group(1)

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self.new_line:
                self.lines.append(line)
                self.new_line.notify_all()
        with self.new_line:
            self.new_line.notify_all()

    def wait_for(self, match, what: str, within: float = PATIENCE):
        """The first truthy `match(line)` of a line it printed, once it has printed one."""
        deadline = time.monotonic() + within
        with self.new_line:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    if m := match(line):
                        return m
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or not self.reader.is_alive():
                    raise AssertionError(f"waited in vain for {what}: " + "".join(self.lines))
                self.new_line.wait(left)

    @property
    def fingerprint(self) -> str:
        return next(line for line in self.lines if "fingerprint" in line).split()[-1]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.reader.join(10)


def formed(processes: list[Process], within: float = PATIENCE) -> None:
    """Until every process names them all as the cluster's in its welcome: a client learns the
    cluster's addresses from the welcomes it gets, and one that came before a process was known
    would never try it (each process reads who is alive every quarter of a lease)."""
    deadline = time.monotonic() + within
    for p in processes:
        while True:
            with connect(p.url, compression=None) as ws:
                ws.send(wire.encode({"type": "hello", "version": wire.VERSION}))
                welcome = wire.decode(ws.recv(), wire.SERVER, wire.MAX_SERVER_FRAME)
            if set(welcome.get("cluster", ())) >= {q.url for q in processes}:
                break
            assert time.monotonic() < deadline, f"{p.url} names only {welcome.get('cluster')} of the cluster"
            time.sleep(0.1)


FAST = ["rate=10000", "burst=10000", "conn_rate=10000", "conn_burst=10000", "tables_per_addr=1000",
        "tables_per_window=1000", "watch_rate=10000", "watch_burst=10000"]


@pytest.fixture
def cluster(tmp_path, database):
    started = []

    def start(n, *args):
        for _ in range(n):
            started.append(Process(tmp_path / f"server{len(started)}", database, *args))
        formed(started)
        return started[-n:]

    yield start
    for p in started:
        p.kill()
    for i, p in enumerate(started):     # shown with the test's output when it fails
        print(f"---- governor serve {i} at {p.url}, exit {p.proc.returncode}:\n" + "".join(p.lines))


async def listed(url: str, table: str, within: float = PATIENCE) -> dict:
    """The table's entry in the lobby of the process at `url`, once it lists it."""
    deadline = time.monotonic() + within
    while True:
        lobby = await Raw.connect(url)
        await lobby.send({"type": "list"})
        tables = (await lobby.recv())["tables"]
        await lobby.close()
        entry = next((t for t in tables if t["id"] == table), None)
        if entry is not None:
            return entry
        assert time.monotonic() < deadline, f"{table} never listed at {url}"
        await asyncio.sleep(0.1)


async def test_every_process_lists_the_clusters_tables_and_sends_a_client_to_the_owner(cluster):
    a, b, c = cluster(3)
    assert a.fingerprint == b.fingerprint == c.fingerprint      # one key, kept in the database
    lobby = await Raw.connect(b.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    for p in (a, c):
        assert (await listed(p.url, table))["status"] == "waiting"
    raw = await Raw.connect(a.url)
    await raw.send({"type": "sit", "table": table, "name": "Ana", "key": new_key()})
    assert await raw.recv() == {"type": "redirect", "url": b.url, "table": table}
    await raw.close()


async def log_rows(database: str, table: str, at_least: int, within: float = 60) -> int:
    """The number of rows of the table's log, once it has at least `at_least`."""
    db = await asyncpg.connect(database)
    try:
        deadline = time.monotonic() + within
        while (n := await db.fetchval("SELECT count(*) FROM log WHERE table_id = $1", table)) < at_least:
            assert time.monotonic() < deadline, f"the match of {table} did not get under way"
            await asyncio.sleep(0.05)
        return n
    finally:
        await db.close()


async def owner(database: str, table: str) -> str | None:
    db = await asyncpg.connect(database)
    try:
        return await db.fetchval("SELECT p.url FROM leases l JOIN processes p ON p.id = l.owner"
                                 " WHERE l.table_id = $1", table)
    finally:
        await db.close()


@pytest.mark.parametrize("entry_killed, clients_killed", [(False, False), (True, False), (True, True)],
                         ids=["owner-killed", "owner-and-entry-killed", "clients-started-again"])
async def test_a_match_finishes_and_verifies_on_another_process_after_its_owner_is_killed(
        cluster, database, tmp_path, entry_killed, clients_killed):
    a, b, c = cluster(3)
    lobby = await Raw.connect(b.url)
    table = await lobby.create(3, 1)        # on B (no process holds a table yet); two people and a computer
    await lobby.close()
    # both players and a spectator come in through A and are sent on to B, the table's owner
    # (at full speed: the kill below comes at the 30th of some 300 rows, read every 50 ms)
    seat_args = [(tmp_path / name, "--table", table, "--name", name) for name in ("Ana", "Bo")]
    players = [bot_seat(a.url, *args) for args in seat_args]
    watcher = governor("watch", a.url, table, "--data-dir", str(tmp_path / "watcher"))
    assert await owner(database, table) == b.url
    await log_rows(database, table, at_least=30)     # well into the match
    if clients_killed:  # the players' clients die too, and are started again once A and B are gone
        for p in players:
            p.kill()
            p.wait(10)
    b.kill()
    if entry_killed:    # the address they first used is gone too: C is the one left
        a.kill()
    db = await asyncpg.connect(database)
    assert await db.fetchval("SELECT status FROM tables WHERE id = $1", table) == "playing"   # killed mid-game
    await db.close()
    deadline = time.monotonic() + PATIENCE
    while (now := await owner(database, table)) == b.url:
        assert time.monotonic() < deadline, "nobody took the table over"
        await asyncio.sleep(0.1)
    assert now in ((c.url, None) if entry_killed else (a.url, c.url, None))   # None: finished on it already
    if clients_killed:  # the same command again: the saved seat names C, from the welcomes it had
        players = [bot_seat(a.url, *args) for args in seat_args]
    # Their connections drop; they come back through A, which says "connect again" until B's
    # lease has run out and A or C has taken the table over; then they are sent to it. With A
    # gone too, they come back through C, which A's welcome named as a process of the cluster.
    loop = asyncio.get_running_loop()
    results = await asyncio.gather(*(loop.run_in_executor(None, outcome, p, 120) for p in players))
    assert await owner(database, table) is None      # finished: its lease is gone
    for r in results:
        assert r["verified"] and r["finished"] and r["verdict"] == "verified", r
        assert ("Resuming your seat" if clients_killed else "[reconnecting") in r["_stderr"]
        report = verify(record.read(r["record"]))
        assert report.ok and report.scores == r["scores"]
    assert results[0]["game_id"] == results[1]["game_id"] and results[0]["scores"] == results[1]["scores"]
    try:
        out, err = await loop.run_in_executor(None, lambda: watcher.communicate(timeout=20))
    except subprocess.TimeoutExpired:
        watcher.kill()
        out, err = watcher.communicate()
        raise AssertionError(out[-3000:] + err[-3000:])
    assert watcher.returncode == 0 and "VERIFIED, the public part:" in out, (out, err)
    # every accepted move once: the log has no gap (read checks it) and replays to what both verified
    db = await asyncpg.connect(database)
    ns = [r[0] for r in await db.fetch("SELECT n FROM log WHERE table_id = $1 ORDER BY n", table)]
    status = await db.fetchval("SELECT status FROM tables WHERE id = $1", table)
    await db.close()
    assert ns == list(range(len(ns))) and status == "over"


async def test_a_new_table_goes_to_the_least_loaded_process_and_its_creator_is_sent_there(cluster, database):
    a, b, c = cluster(3)
    raw = await Raw.connect(a.url)
    first = await raw.create(2, 1)      # no process holds a table: the one asked keeps it
    assert await owner(database, first) == a.url
    create = {"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "options": {}}
    await raw.send(create)
    sent = await raw.expect("redirect")        # A holds one, B and C none
    assert sent["url"] in (b.url, c.url) and "table" not in sent
    await raw.send({**create, "here": True})   # what a client sent there by a redirect asks
    second = (await raw.expect("created"))["table"]
    assert await owner(database, second) == a.url
    await raw.close()
    # the client's own code follows the redirect and creates the table where it was sent
    placed = []
    for _ in range(2):
        link = Link(a.url, rate=0)
        await link.open()
        table = await link.create("sanjuan", 2, 1, {})
        assert await owner(database, table) == link.at != a.url
        placed.append(link.at)
        await link.close()
    assert sorted(placed) == sorted([b.url, c.url])     # B and C one each: the least loaded each time


async def admin(*args: str) -> tuple[int, str, str]:
    proc = governor("admin", *args)
    out, err = await asyncio.get_running_loop().run_in_executor(None, lambda: proc.communicate(timeout=30))
    return proc.returncode, out, err


async def test_the_operator_sees_every_process_tables_and_closes_one_through_any_process(cluster, database, tmp_path):
    key = tmp_path / "operator.key"
    key.write_text("an-operator-key-long-enough-to-be-safe\n")
    key.chmod(0o600)
    a, b = cluster(2, "--operator-key-file", str(key))
    lobby = await Raw.connect(a.url)
    on_a = await lobby.create(2, 1)
    await lobby.close()
    ana = await Raw.connect(b.url)
    on_b = await ana.create(2, 1)       # B holds fewer than A: B keeps it
    await ana.send({"type": "sit", "table": on_b, "name": "Ana", "key": new_key()})
    await ana.expect("seated")
    assert (await owner(database, on_a), await owner(database, on_b)) == (a.url, b.url)
    deadline = time.monotonic() + PATIENCE
    while True:     # A names B among the live processes from its next renewal on
        code, out, err = await admin(a.url, "tables", "--json", "--key-file", str(key))
        tables = {t["id"]: t for t in json.loads(out)} if code == 0 else {}
        if len(tables) == 2 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert code == 0 and set(tables) == {on_a, on_b}, (out, err)
    assert (tables[on_a]["process"], tables[on_b]["process"]) == (a.url, b.url)
    seat = tables[on_b]["seats"][0]
    assert (seat["name"], seat["connected"], seat["address"]) == ("Ana", True, "127.0.0.1")
    # closed through A: sent on to B, which checks the key and closes it
    code, out, err = await admin(a.url, "close", on_b, "--reason", "testing", "--key-file", str(key))
    assert code == 0 and f"Table {on_b} is closed." in out, (out, err)
    closed = await ana.expect("error", skip=("status", "snapshot", "delta", "entry", "private"))
    assert closed["code"] == "table_closed" and "testing" in closed["message"]
    db = await asyncpg.connect(database)
    assert await db.fetchval("SELECT status FROM tables WHERE id = $1", on_b) == "cancelled"
    await db.close()
    code, out, err = await admin(b.url, "tables", "--json", "--key-file", str(key))
    assert code == 0 and [t["id"] for t in json.loads(out)] == [on_a], (out, err)
    # a wrong key is refused by the first process asked, and nothing is closed
    bad = tmp_path / "bad.key"
    bad.write_text("not-the-operator-key-at-all\n")
    bad.chmod(0o600)
    code, out, err = await admin(b.url, "close", on_a, "--key-file", str(bad))
    assert code == 1 and "operator key" in err, (out, err)
    assert await owner(database, on_a) == a.url


async def test_a_killed_process_gets_no_new_table_once_half_its_lease_has_passed(cluster, database):
    a, b = cluster(2)
    raw = await Raw.connect(a.url)
    await raw.create(2, 1)              # A holds one, B none: B would get the next
    b.kill()
    db = await asyncpg.connect(database)
    deadline = time.monotonic() + PATIENCE
    # B's row of `processes` says it is alive until its lease runs out
    while await db.fetchval("SELECT now() < renewed + (expires - renewed) / 2 FROM processes WHERE url = $1", b.url):
        assert time.monotonic() < deadline, "B's row was never half a lease old"
        await asyncio.sleep(0.05)
    assert await db.fetchval("SELECT expires > now() FROM processes WHERE url = $1", b.url)   # still "alive"
    await db.close()
    table = await raw.create(2, 1)      # kept by A, not sent to B
    assert await owner(database, table) == a.url
    await raw.close()


async def test_a_process_paused_inside_a_write_holds_none_of_its_tables(cluster, database):
    """A process stopped (SIGSTOP) between two statements of a write keeps its transaction open
    and its leases locked: its tables still move to another process within the failover bound
    (a lease and a renewal), and once it runs again it commits nothing for them."""
    a, = cluster(1)
    players = []
    for i in range(3):      # three tables on A, Ana against a bot at each, well under way
        lobby = await Raw.connect(a.url)
        table = await lobby.create(2, 1)
        await lobby.close()
        players.append(SeatPlayer(a.url, table, "Ana", seed=i))
        await players[-1].sit()
    await asyncio.gather(*(p.play(until=lambda p: p.acks >= 3) for p in players))
    tables = [p.table for p in players]
    b, = cluster(1)
    holder = await asyncpg.connect(database)
    hold = holder.transaction()
    await hold.start()
    await holder.execute("LOCK TABLE log IN SHARE MODE")     # A's next moves wait inside their write ...
    playing = [asyncio.create_task(p.play(until=lambda p: False, timeout=60)) for p in players]
    try:
        deadline = time.monotonic() + 10
        while not await holder.fetchval("SELECT count(*) FROM pg_locks WHERE NOT granted"
                                        " AND relation = 'log'::regclass"):
            assert time.monotonic() < deadline, "A never began writing a move"
            await asyncio.sleep(0.02)
        a.proc.send_signal(signal.SIGSTOP)     # ... where A stops
    finally:
        await hold.rollback()       # A's write goes on, and its transaction then waits for A
        await holder.close()
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
    try:
        # its tables move to B, as if A were killed: within a lease and a renewal on a calm machine
        # (PostgreSQL's timers, which bound it, are checked in test_leases.py); the deadline here is
        # patience on a busy one, not that bound.
        deadline = time.monotonic() + PATIENCE
        while (owners := [await owner(database, t) for t in tables]) != [b.url] * 3:
            assert time.monotonic() < deadline, f"the owners of {tables} are {owners}, not B ({b.url})"
            await asyncio.sleep(0.1)
        for p in players:           # their players are served there, and make a move; then wait
            # (B says "connect again" from taking a lease until it has read the table)
            await resume_when_served(p, b.url)
            await p.play(until=lambda p, acks=p.acks: p.acks > acks)
            p.answering = False
            # until the player's silence is all the match waits for: an act it sent before falling
            # silent is answered (an ack comes after the views it changed), and the bots' moves are in
            await p.play(until=lambda p: p.pending is None and p.view is not None and p.view["to_act"] == [p.seat]
                         and p.view.get("prompt"))
        rows = await log_counts(database, tables)
    finally:
        a.proc.send_signal(signal.SIGCONT)
    for t in tables:    # A runs again: its write in flight, and any after it, are refused, and it lets go
        await asyncio.to_thread(a.wait_for, lambda line, t=t: f"table {t} handed over" in line, f"A to hand {t} over")
    after = await log_counts(database, tables)     # nothing of A's was committed
    assert after == rows, [await log_rows_from(database, t, n) for t, n in zip(tables, rows)]
    for p in players:               # and A sends their players to B
        raw = await Raw.connect(a.url)
        await raw.send({"type": "watch", "table": p.table})
        assert await raw.recv() == {"type": "redirect", "url": b.url, "table": p.table}
        await raw.close()
        p.answering = True
    await asyncio.gather(*(p.play(timeout=120) for p in players))
    for p in players:
        assert p.report.ok, p.report
    db = await asyncpg.connect(database)
    for p in players:     # every move once, in order, the match over
        ns = [r[0] for r in await db.fetch("SELECT n FROM log WHERE table_id = $1 ORDER BY n", p.table)]
        assert ns == list(range(len(ns)))
        assert await db.fetchval("SELECT status FROM tables WHERE id = $1", p.table) == "over"
    await db.close()
    assert a.proc.poll() is None        # and A still runs


async def log_counts(database: str, tables: list[str]) -> list[int]:
    db = await asyncpg.connect(database)
    try:
        return [await db.fetchval("SELECT count(*) FROM log WHERE table_id = $1", t) for t in tables]
    finally:
        await db.close()


async def log_rows_from(database: str, table: str, n: int) -> list[tuple]:
    """(n, kind, seat) of the table's log rows from the n-th on: what a failure shows."""
    db = await asyncpg.connect(database)
    try:
        return [tuple(r) for r in await db.fetch("SELECT n, kind, seat FROM log WHERE table_id = $1 AND n >= $2"
                                                 " ORDER BY n", table, n)]
    finally:
        await db.close()
