"""No client can slow another table (issue 11, items 1, 3 and 4): each attack, reproduced on a
real server on 127.0.0.1, is refused or costs the other tables nothing. Behaviour, not timing:
bench/isolation.py measures what each attack does to a victim table's latency.

- reads never queue behind the writes of moves;
- the lobby's listing never touches the store, and is packed once per change;
- one address can neither fill the table limit nor keep empty tables;
- a finished match is replayed once, off the event loop, and watching is rate-bounded.
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time

import pytest
from websockets.exceptions import InvalidStatus

from protocol import wire
from server import sqlite_store
from server.gate import HELD_REFUSALS, REFUSAL_DELAY
from server.quotas import READ_WATCHES
from server.table_core import TableCore

from .rawclient import PATIENCE, Raw, SeatPlayer, new_key, play_all
from .test_resilience import table_with


async def finished_table(server) -> tuple[str, list]:
    """A match played to its end; its players have gone and it is no longer in use."""
    table, players = await table_with(server.url, 2)
    await play_all(players)
    for p in players:
        await p.drop()
    for _ in range(200):
        if table not in server.tables:
            return table, players
        await asyncio.sleep(0.01)
    raise AssertionError(f"table {table} is still in use")


# ---------------------------------------------------------------------- 1. the database

async def test_an_old_database_is_migrated(make_server, tmp_path):
    """A file of schema 0 (no private tables, no match start time, nor rating) is brought up to
    date, its tables kept: an open one is served again."""
    data = tmp_path / "old"
    data.mkdir()
    db = sqlite3.connect(data / sqlite_store.DB_FILE)
    db.executescript(sqlite_store.SCHEMA)
    seats = [{"name": None, "player_id": None, "key": None, "bot": None}] * 2
    db.execute("INSERT INTO tables (id, game, options, bot, seats, status, created, updated) VALUES"
               " ('old001', 'sanjuan', '{}', 'random', ?, 'waiting', ?, ?)", (json.dumps(seats), time.time(),
                                                                            time.time()))
    db.commit()
    db.close()
    server = await make_server(data_dir=data)
    db = sqlite3.connect(data / sqlite_store.DB_FILE)
    assert db.execute("PRAGMA user_version").fetchone()[0] == sqlite_store.VERSION
    assert not db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'seat_tokens%'").fetchall()
    db.close()
    players = [SeatPlayer(server.url, "old001", name, seed=i) for i, name in enumerate(("Ana", "Bo"))]
    for p in players:
        await p.sit()
    await play_all(players)
    assert all(p.report.ok for p in players)


async def test_a_newer_database_is_refused(make_server, tmp_path):
    data = tmp_path / "new"
    data.mkdir()
    db = sqlite3.connect(data / sqlite_store.DB_FILE)
    db.execute(f"PRAGMA user_version = {sqlite_store.VERSION + 1}")
    db.close()
    try:
        await make_server(data_dir=data)
    except RuntimeError as e:
        assert "newer server" in str(e)
    else:
        raise AssertionError("a database of a newer schema was opened")


async def test_reads_never_wait_for_the_writer(make_server):
    """A claim of a seat at an unknown table, a returning player at a finished table and a watch
    of one are answered while the writer is busy: what a client makes the server read never
    queues in front of the moves being committed."""
    server = await make_server(finished_cache=0)
    table, (ana, _) = await finished_table(server)
    busy = threading.Event()
    server.store._pool.submit(busy.wait)          # the writer's thread, in a long commit
    try:
        stranger = await Raw.connect(server.url, hello=False)
        await stranger.send({"type": "hello", "version": wire.VERSION, "table": "zzzzzz", "seat": 0})
        assert await stranger.closed(timeout=5) == (wire.CLOSE_BAD_HELLO, "there is no table 'zzzzzz'")
        again = await Raw.connect(server.url, claim=ana.claim, have=0)
        assert (await again.expect("snapshot", timeout=5, skip=("status", "entry", "private")))["view"]["over"]
        watcher = await Raw.connect(server.url)
        await watcher.send({"type": "list"})
        assert any(t["id"] == table for t in (await watcher.expect("tables", timeout=5))["tables"])
    finally:
        busy.set()


async def test_a_listing_never_touches_the_store(make_server, monkeypatch, tmp_path):
    data = tmp_path / "listing"
    server = await make_server(data_dir=data, finished_cache=0)
    done, _ = await finished_table(server)
    await server.stop()
    server = await make_server(data_dir=data)      # finished tables read once, at start
    waiting = await (await Raw.connect(server.url)).create(2)
    reads = []

    async def read(*args):
        reads.append(args)
        raise AssertionError("the store was read")

    for name in ("open_tables", "finished_table", "finished", "log"):
        monkeypatch.setattr(server.store, name, read)
    lobby = await Raw.connect(server.url)
    for _ in range(20):
        await lobby.send({"type": "list"})
        listed = {t["id"]: t["status"] for t in (await lobby.expect("tables"))["tables"]}
        assert listed == {waiting: "waiting", done: "over"}
    assert reads == []
    # a table that finishes now is listed too, still without a read
    monkeypatch.undo()
    later, _ = await finished_table(server)
    monkeypatch.setattr(server.store, "finished", read)
    await lobby.send({"type": "list"})
    assert {t["id"] for t in (await lobby.expect("tables"))["tables"]} == {waiting, done, later}
    assert reads == []


async def test_a_listing_is_packed_once_per_change_of_the_lobby(make_server):
    """The list requests between two changes of the lobby are answered with one frame, packed
    once; and every change (a table created, a seat taken, a player gone) is in the next listing."""
    server = await make_server()
    lobby = await Raw.connect(server.url)

    async def listed() -> dict:
        await lobby.send({"type": "list"})
        return {t["id"]: [(s["name"], s["connected"]) for s in t["seats"]]
                for t in (await lobby.expect("tables"))["tables"]}

    assert await listed() == {}
    table = await lobby.create(2)
    assert await listed() == {table: [(None, False), (None, False)]}
    frame = server.listed.frame(server.listing())
    assert server.listed.frame(server.listing()) is frame
    ana = SeatPlayer(server.url, table, "Ana", seed=0)
    await ana.sit()
    assert await listed() == {table: [("Ana", True), (None, False)]}
    assert server.listed.frame(server.listing()) is not frame
    await ana.drop()
    async with asyncio.timeout(10):     # once the server has seen it go
        while await listed() != {table: [("Ana", False), (None, False)]}:
            await asyncio.sleep(0.01)
    await lobby.close()


async def test_an_address_opening_connections_too_fast_is_refused_at_the_accept(make_server):
    """Eight clients reconnecting in a loop (claiming seats of unknown tables, say) once cost the event loop a
    handshake each, then a transport and a websockets connection each, cut only then; past its
    burst, an address's socket is answered with an HTTP 429 the moment it is accepted, before it
    has said a word, and nothing else is made for it."""
    server = await make_server(conn_rate=0.1, conn_burst=3)
    kept = [await Raw.connect(server.url) for _ in range(3)]
    loop = asyncio.get_running_loop()
    # Noted before connecting, so before the server's accept starts the hold: the hold is a lower
    # bound the server keeps on the loop's clock, whatever the load.
    asked = loop.time()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)    # says nothing
    answer = await reader.read()       # until the server closes it
    assert loop.time() - asked >= REFUSAL_DELAY    # held a while: a client retrying in a loop slows down
    writer.close()
    assert answer.startswith(b"HTTP/1.1 429 Too Many Requests\r\n"), answer
    assert b"\r\nRetry-After: 10\r\n" in answer and answer.endswith(b"(conn_rate); try again in a moment.\n")
    assert server.connections == 3     # it never became a connection
    with pytest.raises(InvalidStatus) as refused:     # a WebSocket client reads it as a refusal
        await Raw.connect(server.url)
    assert refused.value.response.status_code == 429 and b"conn_rate" in refused.value.response.body
    assert server.gate.refusals == 2
    await Raw.connect(server.url, source="127.0.0.2")     # someone else is not refused
    await kept[0].send({"type": "list"})                  # and those let in are served
    await kept[0].expect("tables")


async def test_refused_sockets_held_for_their_answer_are_bounded(make_server):
    """Each refused socket waiting for its answer holds a file: past HELD_REFUSALS, the rest are
    answered at once."""
    server = await make_server(conn_rate=0.1, conn_burst=1)
    sockets = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(HELD_REFUSALS + 9)]
    async with asyncio.timeout(10):
        while server.gate.refusals < HELD_REFUSALS + 8:     # the first one was let in
            await asyncio.sleep(0.01)
    assert len(server.gate.held) == HELD_REFUSALS
    answered = [await reader.read() for reader, _ in sockets[-8:]]
    assert all(a.startswith(b"HTTP/1.1 429 ") for a in answered)
    for _, writer in sockets:
        writer.close()


# ---------------------------------------------------------------------- 3. the table limit

async def test_one_address_cannot_fill_the_table_limit(make_server):
    server = await make_server(tables_per_addr=2, tables_per_window=3, max_tables=100)
    flood = await Raw.connect(server.url)
    first = await flood.create(2)
    second = await flood.create(2)
    await flood.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0})
    err = await flood.expect("error")
    assert err["code"] == "too_many_tables" and "tables_per_addr=2" in err["message"], err
    # a table that ends frees its place, but not the window's count
    server.tables[first].core.status = "cancelled"
    await flood.create(2)
    server.tables[second].core.status = "cancelled"
    await flood.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0})
    err = await flood.expect("error")
    assert err["code"] == "too_many_tables" and "tables_per_window=3" in err["message"], err
    assert "try again in" in err["message"]
    # another address is someone else: it may create tables
    other = await Raw.connect(server.url, source="127.0.0.2")
    await other.create(2)


async def test_creates_sent_together_cannot_pass_the_table_limits_at_once(make_server, tmp_path):
    """Each create waits for the store before its table is in memory: creates in flight count."""
    server = await make_server(tables_per_addr=3, tables_per_window=100, max_tables=100)
    flood = [await Raw.connect(server.url) for _ in range(8)]
    for raw in flood:
        await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1})
    answers = [await raw.recv() for raw in flood]
    assert sorted(a["type"] for a in answers) == ["created"] * 3 + ["error"] * 5, answers
    assert sum(t.active and t.creator == "127.0.0.1" for t in server.tables.values()) == 3
    everyone = await make_server(tables_per_addr=100, tables_per_window=100, max_tables=2,
                                 data_dir=tmp_path / "everyone")
    crowd = [await Raw.connect(everyone.url, source=f"127.0.0.{i + 2}") for i in range(5)]
    for raw in crowd:
        await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1})
    answers = [await raw.recv() for raw in crowd]
    assert sorted(a["type"] for a in answers) == ["created"] * 2 + ["error"] * 3, answers


async def test_an_empty_table_closes_soon_and_its_creator_is_told_when(make_server):
    server = await make_server(idle_table=0.3, tables_per_addr=1)
    raw = await Raw.connect(server.url)
    await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1})
    created = await raw.expect("created")
    assert created["expires"] == 0.3
    table = created["table"]
    async with asyncio.timeout(PATIENCE):
        while True:
            await raw.send({"type": "list"})
            listed = {t["id"]: t["status"] for t in (await raw.expect("tables"))["tables"]}
            if listed[table] != "waiting":
                break
            await asyncio.sleep(0.02)
    assert listed == {table: "cancelled"}
    await raw.send({"type": "sit", "table": table, "name": "Late", "key": new_key()})
    err = await raw.expect("error")
    assert err["code"] == "table_closed" and "was closed before its match began" in err["message"]
    await raw.create(2)                           # it no longer counts against the address's limit


async def test_the_default_limits_close_an_empty_table_within_a_minute():
    from server.app import Limits
    limits = Limits()
    assert limits.idle_table <= 60 and limits.tables_per_addr * 25 <= limits.max_tables


# ---------------------------------------------------------------------- 4. watching finished tables

async def test_a_finished_match_is_replayed_once_and_off_the_event_loop(make_server, monkeypatch, tmp_path):
    data = tmp_path / "watch"
    server = await make_server(data_dir=data)
    table, _ = await finished_table(server)
    await server.stop()
    server = await make_server(data_dir=data)     # the finished table is in the database only
    replays = []
    real = TableCore._build

    def build(core, rows):
        replays.append(threading.current_thread().name)
        return real(core, rows)

    monkeypatch.setattr(TableCore, "_build", build)
    late = await Raw.connect(server.url)          # a sit at a finished table is refused without a replay
    await late.send({"type": "sit", "table": table, "name": "Late", "key": new_key()})
    assert (await late.expect("error"))["code"] == "started"
    assert replays == []
    for _ in range(3):                            # watch, go away, watch again
        watcher = await Raw.connect(server.url)
        await watcher.send({"type": "watch", "table": table, "have": 0})
        assert (await watcher.expect("snapshot", skip=("status", "entry")))["view"]["over"]
        await watcher.close()
        while table in server.tables:
            await asyncio.sleep(0.01)
    assert len(replays) == 1 and replays[0].startswith("governor-replay"), replays


async def test_a_table_frozen_by_a_failed_read_is_not_kept_frozen(make_server, tmp_path):
    data = tmp_path / "flaky"
    server = await make_server(data_dir=data)
    table, _ = await finished_table(server)
    await server.stop()
    server = await make_server(data_dir=data)
    real, failures = server.store.log, [OSError("a read that fails once")]

    async def flaky(table_id):
        if failures:
            raise failures.pop()
        return await real(table_id)

    server.store.log = flaky
    for frozen in (True, False):                  # the second watch finds the store healthy again
        watcher = await Raw.connect(server.url)
        await watcher.send({"type": "watch", "table": table, "have": 0})
        status = await watcher.expect("status", skip=("entry", "snapshot"))
        assert ("frozen" in status) == frozen, status
        await watcher.close()
        while table in server.tables:
            await asyncio.sleep(0.01)
    assert not any(t.get("frozen") for t in server.listing())


async def test_watch_requests_are_rate_bounded_per_address(make_server):
    server = await make_server(watch_rate=0.5, watch_burst=3)
    table, _ = await finished_table(server)
    flood = [await Raw.connect(server.url) for _ in range(2)]   # more connections do not help
    for i in range(3):
        await flood[i % 2].send({"type": "watch", "table": table})
        await flood[i % 2].expect("status", skip=("entry", "snapshot"))
    await flood[1].send({"type": "watch", "table": table})
    err = await flood[1].expect("error", skip=("entry", "snapshot", "status"))
    assert err["code"] == "slow_down" and "watch_rate" in err["message"], err
    # a sit naming a table the server would have to read is bounded the same way ...
    await flood[0].send({"type": "sit", "table": "zzzzzz", "name": "Eve", "key": new_key()})
    assert (await flood[0].expect("error", skip=("entry", "snapshot", "status")))["code"] == "slow_down"
    # ... and someone else is not
    other = await Raw.connect(server.url, source="127.0.0.2")
    await other.send({"type": "watch", "table": table})
    assert (await other.expect("snapshot", skip=("status", "entry")))["view"]["over"]


async def test_a_watch_the_server_must_read_from_its_database_counts_as_several(make_server):
    """Watching a table not in memory reads it and replays its match: it takes READ_WATCHES from
    the address's watch quota, where watching a table in memory takes one."""
    assert READ_WATCHES == 4
    server = await make_server(watch_rate=0.01, watch_burst=5, finished_cache=0)   # a read and one more
    first, _ = await finished_table(server)
    second, _ = await finished_table(server)
    watcher = await Raw.connect(server.url)
    await watcher.send({"type": "watch", "table": first})      # read: all of the burst but one
    assert (await watcher.expect("snapshot", skip=("status", "entry")))["view"]["over"]
    await watcher.send({"type": "watch", "table": first})      # in memory now, watched: the last one
    assert (await watcher.expect("snapshot", skip=("status", "entry")))["view"]["over"]
    await watcher.send({"type": "watch", "table": second})     # to be read: over the quota
    err = await watcher.expect("error", skip=("status", "entry", "snapshot"))
    assert err["code"] == "slow_down" and "watch_rate" in err["message"], err


async def test_a_claim_of_a_seat_of_a_finished_match_counts_as_a_watch(make_server):
    """Coming back to the seat of a finished match reads it from the database and replays it,
    as a watch does: it takes from the same quota, and past it the connection is closed with
    4002, not 4003 (which would tell the client its seat is gone), so that the client retries."""
    server = await make_server(watch_rate=0.01, watch_burst=2 * READ_WATCHES, finished_cache=0)
    table, (ana, bo) = await finished_table(server)
    for p in (ana, bo):                           # two comebacks: the burst
        again = await Raw.connect(server.url, claim=p.claim, have=0)
        assert (await again.expect("snapshot", skip=("status", "entry", "private")))["view"]["over"]
        await again.close()
    while table in server.tables:
        await asyncio.sleep(0.01)
    late = await Raw.connect(server.url, hello=False)
    await late.send({"type": "hello", "version": wire.VERSION, "table": table, "seat": ana.seat, "have": 0})
    code, reason = await late.closed()
    assert code == wire.CLOSE_FLOODING and "watch_rate" in reason, (code, reason)
    await late.close()
    watcher = await Raw.connect(server.url)       # and the quota is the watches' own
    await watcher.send({"type": "watch", "table": table})
    assert (await watcher.expect("error"))["code"] == "slow_down"
    other = await Raw.connect(server.url, claim=ana.claim, have=0, source="127.0.0.2")   # someone else's is not
    assert (await other.expect("snapshot", skip=("status", "entry", "private")))["view"]["over"]


def test_the_listing_of_finished_tables_is_bounded():
    from server.listing import Finished
    listed = Finished(3)
    for i in range(10):
        listed.add(f"t{i}", {"id": f"t{i}"})
    assert [tid for tid, _ in listed.entries()] == ["t7", "t8", "t9"]
    listed.update("t1", {"id": "t1", "late": True})      # gone from the list: stays gone
    assert "t1" not in dict(listed.entries())



@pytest.mark.parametrize("ip, counted_as", [
    ("203.0.113.7", "203.0.113.7"),
    ("2001:db8::1", "2001:db8::/64"),
    ("2001:db8::ffff:9", "2001:db8::/64"),        # another address of the same host's /64
    ("2001:db8:0:1::9", "2001:db8:0:1::/64"),     # another /64: someone else
    ("::ffff:198.51.100.2", "198.51.100.2"),      # IPv4 on a dual-stack socket
])
def test_an_ipv6_host_cannot_take_a_fresh_quota_with_each_address(ip, counted_as):
    from server.conn import client_address
    assert client_address(ip) == counted_as


# ---------------------------------------------------------------------- shutting down

# A read of some twenty seconds on the reader's connection, as a huge database on a slow disk
# would give: SQLite counts to a hundred million.
LONG_READ = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) SELECT count(*) FROM c"


async def test_a_long_read_does_not_hold_up_the_shutdown(make_server):
    """No accepted move waits for a read, so stopping the server waits for none: the read under
    way is interrupted and those queued behind it (here a player coming back to a finished
    match) never run."""
    server = await make_server(finished_cache=0)
    table, (ana, _) = await finished_table(server)
    reading = threading.Event()

    def long_read():
        reading.set()
        return server.store._rdb.execute(LONG_READ).fetchone()

    under_way = server.store._reader._pool.submit(long_read)
    comeback = await Raw.connect(server.url, hello=False)
    await comeback.send({"type": "hello", "version": wire.VERSION, "table": table, "seat": ana.seat, "have": 0})
    assert await asyncio.to_thread(reading.wait, 5)
    await asyncio.sleep(0.1)                      # the comeback's lookup is queued behind the read
    # The stop is given all the patience it could want; what shows it waited for no read is that
    # the read did not end on its own: it was interrupted.
    await asyncio.wait_for(server.stop(), 60)
    assert isinstance(under_way.exception(timeout=1), sqlite3.OperationalError)   # interrupted
    assert (await comeback.closed())[0] == wire.CLOSE_SHUTDOWN


async def test_a_long_replay_does_not_hold_up_the_shutdown(make_server, monkeypatch):
    """A replay only signs in memory: stopping the server waits neither for the one under way
    (it ends on its own thread, for nobody) nor for those queued behind it. The replay is made
    long here (as a far longer match would make it) by holding it before it begins."""
    server = await make_server(finished_cache=0)
    table, _ = await finished_table(server)
    replaying, release = threading.Event(), threading.Event()
    real = TableCore._build

    def long_build(core, rows):
        replaying.set()
        release.wait(60)
        return real(core, rows)

    monkeypatch.setattr(TableCore, "_build", long_build)
    watcher = await Raw.connect(server.url)
    await watcher.send({"type": "watch", "table": table, "have": 0})
    try:
        assert await asyncio.to_thread(replaying.wait, 5)
        # The replay is held until this test lets it go, after the stop: a stop that waited for it
        # would not end before the deadline (patience, not a claim of speed).
        await asyncio.wait_for(server.stop(), 30)
        assert (await watcher.closed())[0] == wire.CLOSE_SHUTDOWN
    finally:
        release.set()
