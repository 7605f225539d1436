"""Table leases and fencing on a real PostgreSQL (server/leases.py): several store processes on
one database, each writing only the tables whose lease it holds."""
from __future__ import annotations

import asyncio
import contextlib
import time

import asyncpg
import pytest

from protocol import wire
from protocol.codec import pack
from server import postgres_store
from server.leases import LeaseLost
from server.postgres_store import PostgresStore
from server.store import TableRow

from .rawclient import Closed, Raw, SeatPlayer

# Clusters of `governor serve` processes on PostgreSQL, paused and killed against lease timers:
# one such test at a time on the machine (xdist), so that no other cluster starves their timers.
pytestmark = pytest.mark.xdist_group("postgres-cluster")


def row(table_id):
    seats = [{"name": "Ana", "player_id": "id-Ana", "token_hash": f"tok-{table_id}", "bot": None},
             {"name": "Bot 1", "player_id": "bot-1", "token_hash": None, "bot": "random"}]
    return TableRow(table_id, "sanjuan", {"expansion": True, "seats": 2}, "random", seats, None, None, "waiting", 0.0)


@pytest.fixture
async def processes(database):
    """Stores on one database, as separate server processes would open them; closed at the end."""
    stores = []

    async def open_one(lease=8.0):
        store = PostgresStore(database, lease)
        await store.open()
        stores.append(store)
        return store

    yield open_one
    for store in stores:
        await store.close()


async def expire(database, *table_ids):
    """The leases of these tables run out, as when their owner stopped renewing them."""
    db = await asyncpg.connect(database)
    await db.execute("UPDATE leases SET expires = now() - interval '1 second' WHERE table_id = ANY($1)",
                     list(table_ids))
    await db.close()


async def test_a_process_whose_lease_was_taken_over_cannot_commit(database, processes):
    first, second = await processes(), await processes()
    await first.create_table(row("t1"))
    await first.start_table("t1", b"g" * 32, b"s" * 32)
    await first.append("t1", 0, "act", 0, {"n": 0})
    assert await second.take_expired() == []           # held and renewed: nobody takes it
    await expire(database, "t1")
    assert [r.id for r in await second.take_expired()] == ["t1"]
    with pytest.raises(LeaseLost, match="t1"):
        await first.append("t1", 1, "act", 0, {"n": "first"})
    with pytest.raises(LeaseLost):
        await first.set_status("t1", "cancelled")
    await second.append("t1", 1, "act", 0, {"n": "second"})
    assert [r.data for r in await second.log("t1")] == [{"n": 0}, {"n": "second"}]
    assert (await second.open_tables())[0].status == "playing"
    assert await first.renew("ws://127.0.0.1:1") == [] and await second.renew("ws://127.0.0.1:1") == []


async def test_writes_committed_together_refuse_only_the_table_whose_lease_was_taken(database, processes):
    first, second = await processes(), await processes()
    for tid in ("t1", "t2", "t3"):
        await first.create_table(row(tid))
    await expire(database, "t2")
    assert [r.id for r in await second.take_expired()] == ["t2"]
    outcomes = await asyncio.gather(*(first.append(tid, 0, "act", 0, {"by": "first"}) for tid in ("t1", "t2", "t3")),
                                    first.set_status("t2", "cancelled"), first.append("t1", 1, "act", 0, {}),
                                    return_exceptions=True)
    assert [type(o).__name__ for o in outcomes] == ["NoneType", "LeaseLost", "NoneType", "LeaseLost", "NoneType"]
    db = await asyncpg.connect(database)
    # the others' rows committed, in one transaction (one xmin), and nothing of t2's
    assert await db.fetchval("SELECT count(DISTINCT xmin::text) FROM log") == 1
    assert [tuple(r) for r in await db.fetch("SELECT table_id, n FROM log ORDER BY table_id, n")] == \
        [("t1", 0), ("t1", 1), ("t3", 0)]
    await db.close()
    await second.append("t2", 0, "act", 0, {"by": "second"})
    assert [r.data for r in await second.log("t2")] == [{"by": "second"}]
    assert "t2" not in first.leases.held and {"t1", "t3"} <= set(first.leases.held)


async def test_a_lease_that_ran_out_unrenewed_refuses_the_write_even_with_no_other_owner(database, processes):
    first = await processes()
    await first.create_table(row("t1"))
    await expire(database, "t1")
    with pytest.raises(LeaseLost):
        await first.update_seats("t1", row("t1").seats)
    assert await first.renew("ws://127.0.0.1:1") == []     # it knows the table is no longer its own


async def test_renewing_keeps_the_leases_and_names_those_taken_over(database, processes):
    first, second = await processes(lease=1.0), await processes()
    await first.create_table(row("t1"))
    await first.create_table(row("t2"))
    for _ in range(3):                   # three lease lengths, renewed every quarter of one
        for _ in range(4):
            await asyncio.sleep(0.25)
            assert await first.renew("ws://127.0.0.1:1") == []
    assert await second.take_expired() == []
    await expire(database, "t2")
    await second.take_expired()
    assert await first.renew("ws://127.0.0.1:1") == ["t2"]
    await first.append("t1", 0, "act", 0, {})     # t1 is still its own


async def test_a_renewal_never_waits_for_a_write_in_flight_and_a_takeover_takes_its_table_after_it(
        database, processes):
    first, second = await processes(), await processes()
    await first.create_table(row("t1"))
    db = await asyncpg.connect(database)
    write = db.transaction()
    await write.start()
    assert await first.leases.fence(db, ["t1"]) == set()    # a write of t1 under way: its lease checked and locked
    # renewing every lease of the process goes on beside it (it would otherwise hold up every
    # table's next write until the writes under way had committed)
    assert await asyncio.wait_for(first.renew("ws://127.0.0.1:1"), 5) == []
    await expire(database, "t1")
    # the takeover passes over the table while the write holds it, and waits for nothing ...
    assert await asyncio.wait_for(second.take_expired(), 5) == []
    await db.execute("INSERT INTO log (table_id, n, kind, seat, data) VALUES ('t1', 0, 'act', 0, $1)",
                     pack({"n": "in flight"}))
    await write.commit()
    await db.close()
    assert [r.id for r in await second.take_expired()] == ["t1"]       # ... then takes the table with it
    assert [r.data for r in await second.log("t1")] == [{"n": "in flight"}]
    with pytest.raises(LeaseLost):
        await first.append("t1", 1, "act", 0, {})
    await second.append("t1", 1, "act", 0, {"n": "second"})


async def test_a_process_frozen_inside_a_write_holds_its_table_half_a_lease_at_most(database, processes):
    """A process stopped (SIGSTOP) between two statements of a write leaves its transaction open,
    the lease locked: PostgreSQL ends it after half a lease (the session's settings), and the
    other tables are taken over meanwhile."""
    first, second = await processes(lease=2.0), await processes(lease=2.0)
    for tid in ("t1", "t2"):
        await first.create_table(row(tid))
    frozen = await first._writers.acquire()        # a write of first's, on its own connection ...
    try:
        tx = frozen.transaction()
        await tx.start()
        assert await first.leases.fence(frozen, ["t1"]) == set()
        # What bounds the hold is PostgreSQL's own timer on the session, set to half a lease:
        assert await frozen.fetchval("SHOW idle_in_transaction_session_timeout") == "1s"
        froze = time.monotonic()                   # noted before the session's idle time begins
        await frozen.execute("INSERT INTO log (table_id, n, kind, seat, data) VALUES ('t1', 0, 'act', 0, $1)",
                             pack({"n": "frozen"}))
        # ... and then not a word more from it
        await expire(database, "t1", "t2")
        assert [r.id for r in await asyncio.wait_for(second.take_expired(), 5)] == ["t2"]    # at once
        taken = []
        async with asyncio.timeout(30):            # patience, not a claim of speed: the bound is the setting above
            while not taken:
                await asyncio.sleep(0.05)
                taken = [r.id for r in await asyncio.wait_for(second.take_expired(), 5)]
        assert taken == ["t1"] and time.monotonic() - froze >= 1.0     # half a lease, not before
        assert await second.log("t1") == []        # the frozen write was undone, never committed
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError)):
            await tx.commit()                      # the process, going on, finds its session ended
    finally:
        with contextlib.suppress(asyncpg.InterfaceError):    # released by the pool once its session ended
            await first._writers.release(frozen)
    with pytest.raises(LeaseLost):
        await first.append("t1", 0, "act", 0, {"n": "late"})
    await second.append("t1", 0, "act", 0, {"n": "second"})
    assert [r.data for r in await second.log("t1")] == [{"n": "second"}]


async def test_tables_created_while_the_leases_are_renewed_are_never_counted_lost(database, processes):
    store = await processes()
    creating = asyncio.ensure_future(asyncio.gather(*(store.create_table(row(f"t{i}")) for i in range(60))))
    lost = []
    while not creating.done():       # renewals all along: each may see a lease not committed yet
        lost += await store.renew("ws://127.0.0.1:1")
    await creating
    lost += await store.renew("ws://127.0.0.1:1")
    assert lost == [] and sorted(store.leases.held) == sorted(f"t{i}" for i in range(60))


async def test_processes_taking_over_at_once_never_take_the_same_table(database, processes):
    owner = await processes()
    ids = [f"t{i}" for i in range(30)]
    for tid in ids:
        await owner.create_table(row(tid))
    await expire(database, *ids)
    takers = [await processes() for _ in range(3)]
    taken = await asyncio.gather(*(t.take_expired() for t in takers))
    names = [r.id for rows in taken for r in rows]
    assert sorted(names) == sorted(ids)          # each once, by one of them
    for taker, rows in zip(takers, taken):
        for r in rows:
            await taker.append(r.id, 0, "act", 0, {})
            others = [t for t in takers if t is not taker] + [owner]
            for other in others:
                with pytest.raises(LeaseLost):
                    await other.append(r.id, 1, "act", 0, {})


async def test_a_finished_table_lets_go_of_its_lease(database, processes):
    first, second = await processes(), await processes()
    await first.create_table(row("t1"))
    await first.start_table("t1", b"g" * 32, b"s" * 32)
    await first.append("t1", 0, "act", 0, {}, status="over")
    db = await asyncpg.connect(database)
    assert await db.fetchval("SELECT count(*) FROM leases") == 0
    await db.close()
    await expire(database, "t1")
    assert await second.take_expired() == []
    assert (await second.finished_table("t1")).status == "over"     # any process may read it


async def test_a_process_that_stops_commits_its_moves_under_way_before_it_lets_go_of_their_tables(
        database, processes):
    """A server stopping cancels its tables, perhaps while their moves are being committed or wait
    for a writing connection; every such write is kept, committed before the leases go (else the
    fence would refuse it), and nothing can be written after."""
    first, second = await processes(), await processes()
    tables = [f"t{i}" for i in range(postgres_store.WRITERS + 1)]
    for table in tables:
        await first.create_table(row(table))
        await first.start_table(table, b"g" * 32, b"s" * 32)
    holder = await asyncpg.connect(database)
    holder_tx = holder.transaction()
    await holder_tx.start()
    await holder.execute("LOCK TABLE log IN SHARE MODE")     # every move's INSERT waits
    try:
        moves = []
        for table in tables:        # a move a turn of the loop, each in a group of its own
            moves.append(asyncio.create_task(first.append(table, 0, "act", 0, {"table": table})))
            await asyncio.sleep(0.05)
        # every writing connection is held up; the last table's move waits for one
        assert len(first._groups) == postgres_store.WRITERS and len(first._pending) == 1
        for move in moves:          # their tables stop waiting, as Table.stop cancels them
            move.cancel()
        stopping = asyncio.create_task(first.gone())
        await asyncio.sleep(0.5)
    finally:
        await holder_tx.commit()
        await holder.close()
    await stopping
    with pytest.raises(RuntimeError, match="the store is closing"):
        await first.create_table(row("late"))
    assert sorted(r.id for r in await second.take_expired()) == tables      # free at once
    for table in tables:
        assert [r.data for r in await second.log(table)] == [{"table": table}]
    assert "late" not in [r.id for r in await second.open_tables()]


async def test_a_stopping_server_keeps_its_leases_while_its_connections_close(
        make_server, database, processes):
    """The leases are renewed until the tables are stopped, however long a client takes to answer
    the closing handshake, and even when the stop cuts a renewal's lobby read short: no other
    process serves a table while this one may still commit to it."""
    server = await make_server(database=database, lease=1.0)
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    silent = await Raw.connect(server.url)
    await silent.send({"type": "watch", "table": table})
    await silent.expect("status")
    silent.ws.transport.pause_reading()     # it never answers the close: the server waits for it
    other = await processes(lease=1.0)

    async def slow_live_urls():     # the renewals' last read is slow: the stop begins during one
        return await server.store._read("fetch", "SELECT pg_sleep(10)")
    server.store.live_urls = slow_live_urls
    for _ in range(500):
        if server.store._reads:
            break
        await asyncio.sleep(0.01)
    assert server.store._reads, "no renewal began its lobby read"
    stopping = asyncio.create_task(server.stop())
    await asyncio.sleep(2.5)                # two and a half leases into the stop
    assert not stopping.done()
    assert await other.take_expired() == []
    assert await other.least_loaded() is None and server.url not in await other.live_urls()   # sent nothing new
    await stopping
    assert [r.id for r in await other.take_expired()] == [table]
    silent.ws.transport.abort()


async def test_the_open_tables_of_an_older_database_are_taken_over_by_the_first_process(database, processes):
    db = await asyncpg.connect(database)
    await db.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL"
                     " DEFAULT now())")
    await db.execute(postgres_store.MIGRATIONS[0])
    await db.execute("INSERT INTO schema_version (version) VALUES (1)")
    for tid, status in (("open", "playing"), ("done", "over")):
        await db.execute("INSERT INTO tables (id, game, options, bot, seats, status, created, updated)"
                         " VALUES ($1, 'sanjuan', '{}', 'random', '[]', $2, 0, 0)", tid, status)
    await db.close()
    first = await processes()
    assert [r.id for r in await first.take_expired()] == ["open"]
    await first.append("open", 0, "act", 0, {})
    assert [r.id for r in await (await processes()).take_expired()] == []


# ---------------------------------------------------------------------- a server that loses a lease

async def test_a_server_whose_lease_is_taken_stops_serving_the_table_and_announces_nothing_more(
        make_server, database):
    server = await make_server(database=database)
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2, 0)
    await lobby.close()
    players = [SeatPlayer(server.url, table, name, seed=i) for i, name in enumerate(("Ana", "Bo"))]
    for p in players:
        await p.sit()
    await asyncio.gather(*(p.play(until=lambda p: p.seq >= 20) for p in players))
    db = await asyncpg.connect(database)
    # another process takes the lease over (as if this one had stopped renewing it), locking it
    # first as a takeover does (Leases.take_expired): a write in flight commits before, not after
    async with db.transaction():
        await db.execute("SELECT 1 FROM leases WHERE table_id = $1 FOR UPDATE", table)
        await db.execute("UPDATE leases SET owner = 'another', epoch = epoch + 1 WHERE table_id = $1", table)
    rows = await db.fetchval("SELECT count(*) FROM log WHERE table_id = $1", table)
    ends = await asyncio.gather(*(p.play() for p in players), return_exceptions=True)
    assert [getattr(e, "code", e) for e in ends] == [wire.CLOSE_MOVED, wire.CLOSE_MOVED]
    assert await db.fetchval("SELECT count(*) FROM log WHERE table_id = $1", table) == rows   # nothing committed
    assert table not in server.tables
    await db.close()
    with pytest.raises(Closed) as refused:     # its players are sent on, not refused
        await players[0].resume()
    assert refused.value.code == wire.CLOSE_MOVED and table in refused.value.reason


async def ana_at_a_server(make_server, database):
    """A server on the database, leases of 1 s, and Ana seated at a table of it against a bot."""
    server = await make_server(database=database, lease=1.0)
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    ana = SeatPlayer(server.url, table, "Ana", seed=0)
    await ana.sit()
    return server, table, ana


async def test_a_server_that_cannot_renew_its_leases_stops_serving_their_tables_in_time(make_server, database):
    server, table, ana = await ana_at_a_server(make_server, database)
    db = await asyncpg.connect(database)
    tx = db.transaction()
    await tx.start()
    await db.execute("LOCK TABLE processes IN ACCESS EXCLUSIVE MODE")   # every renewal now hangs
    try:
        code, _ = await ana.raw.closed(timeout=5)
    finally:
        await tx.rollback()
        await db.close()
    assert code == wire.CLOSE_MOVED and table not in server.tables


async def test_a_server_whose_renewal_is_held_up_after_renewing_its_leases_keeps_its_tables(
        make_server, database, processes):
    server, table, ana = await ana_at_a_server(make_server, database)
    gone = await processes(lease=1.0)       # a process that dies with a table ...
    await gone.create_table(row("gone"))
    db = await asyncpg.connect(database)
    tx = db.transaction()
    await tx.start()
    # ... whose lease, once run out, every takeover waits for: each renewal of the server renews
    # its leases, then hangs taking over
    await db.execute("SELECT 1 FROM leases WHERE table_id = 'gone' FOR UPDATE")
    try:
        with pytest.raises(asyncio.TimeoutError):     # two and a half leases: Ana is never sent away
            await ana.raw.closed(timeout=2.5)
        assert table in server.tables
    finally:
        await tx.rollback()
        await db.close()
    db = await asyncpg.connect(database)
    assert await db.fetchval("SELECT owner FROM leases WHERE table_id = $1", table) == server.store.leases.owner
    await db.close()


async def test_a_server_stopped_cleanly_lets_its_tables_go_at_once(make_server, database, tmp_path):
    first = await make_server(database=database, data_dir=tmp_path / "first")
    lobby = await Raw.connect(first.url)
    table = await lobby.create(2, 1)
    await lobby.close()
    second = await make_server(database=database, data_dir=tmp_path / "second")
    assert table not in second.tables
    await first.stop()
    db = await asyncpg.connect(database)
    assert await db.fetchval("SELECT expires < now() FROM leases WHERE table_id = $1", table)
    assert await db.fetchval("SELECT count(*) FROM processes") == 1          # the second alone
    await db.close()
    # a client asking the second for the table has it served there at once, 8 s before the lease would run out
    raw = await Raw.connect(second.url)
    await raw.send({"type": "watch", "table": table})
    assert (await raw.expect("status"))["table"] == table and table in second.tables
    await raw.close()
