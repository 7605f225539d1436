"""The Store's contract (server/store.py), the same tests for every store: SQLite in a real file,
PostgreSQL on a real server (tests/server/conftest.py). Then what only PostgreSQL has to say:
its migrations and a database that cannot be opened (its leases: test_leases.py)."""
from __future__ import annotations

import asyncio
import contextlib
import sqlite3

import asyncpg
import pytest

from server import postgres_store
from server.postgres_store import PostgresStore
from server.settings import redacted
from server.sqlite_store import DB_FILE, SQLiteStore
from server.store import LogRow, TableRow


class SQLite:
    def __init__(self, folder):
        self.folder = folder

    def store(self):
        return SQLiteStore(self.folder)

    @contextlib.asynccontextmanager
    async def writes_blocked(self):
        """Another connection holds the file's write lock (reads go on in WAL mode)."""
        db = sqlite3.connect(self.folder / DB_FILE, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            db.execute("ROLLBACK")
            db.close()

    @staticmethod
    async def long_read(store):
        """A read of many seconds on the store's reading thread (SQLite counts to 10^8)."""
        count = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) " \
                "SELECT count(*) FROM c"
        return await store._reader.run(lambda: store._rdb.execute(count).fetchone())


class Postgres:
    def __init__(self, url):
        self.url = url

    def store(self):
        return PostgresStore(self.url)

    @contextlib.asynccontextmanager
    async def writes_blocked(self):
        """Another connection locks `tables` against every write (plain reads may go on)."""
        db = await asyncpg.connect(self.url)
        tx = db.transaction()
        await tx.start()
        await db.execute("LOCK TABLE tables IN EXCLUSIVE MODE")
        try:
            yield
        finally:
            await tx.rollback()
            await db.close()

    @staticmethod
    async def long_read(store):
        """A read of many seconds on the store's readers' pool."""
        return await store._read("fetchval", "SELECT pg_sleep(30)")


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    if request.param == "sqlite":
        return SQLite(tmp_path)
    return Postgres(request.getfixturevalue("database"))


@pytest.fixture
async def opened(backend):
    """Opens a store on the backend (again, for the tests that reopen it); all closed at the end."""
    stores = []

    async def open_one():
        store = backend.store()
        await store.open()
        stores.append(store)
        return store

    yield open_one
    for store in stores:
        await store.close()


@pytest.fixture
async def store(opened):
    return await opened()


def seat(name, key=None, bot=None):
    return {"name": name, "player_id": f"id-{name}" if not bot else None, "key": key, "bot": bot}


def row(table_id, seats=None, status="waiting"):
    seats = seats if seats is not None else [seat("Ana", f"key-{table_id}-0"), seat(None)]
    return TableRow(table_id, "sanjuan", {"expansion": True, "seats": 2}, "heuristic", seats, None, None,
                    status, 0.0)


async def finish(store, table_id, status="over"):
    await store.start_table(table_id, b"g" * 32, b"s" * 32)
    await store.set_status(table_id, status)


# ---------------------------------------------------------------------- writes and reads

async def test_a_new_table_reads_back_as_it_was_written(store):
    written = row("t1", [seat("Ana", "h0"), seat("Bot 1", bot="ismcts")])
    await store.create_table(written)
    [read] = await store.open_tables()
    assert (read.id, read.game, read.options, read.bot, read.seats, read.game_id, read.server_seed, read.status) == \
        ("t1", "sanjuan", {"expansion": True, "seats": 2}, "heuristic", written.seats, None, None, "waiting")
    assert read.created > 0       # the store's clock, not the row's
    assert await store.log("t1") == []


async def test_a_private_table_stays_private_open_and_finished(store):
    await store.create_table(row("t1"))
    private = row("t2")
    private.private = True
    await store.create_table(private)
    assert [(r.id, r.private) for r in await store.open_tables()] == [("t1", False), ("t2", True)]
    await finish(store, "t2")
    assert (await store.finished_table("t2")).private is True
    assert [(r.id, r.private) for r in await store.finished(10)] == [("t2", True)]


async def test_a_rated_table_stays_rated_open_and_finished(store):
    await store.create_table(row("t1"))
    rated = row("t2")
    rated.rated = True
    await store.create_table(rated)
    assert [(r.id, r.rated) for r in await store.open_tables()] == [("t1", False), ("t2", True)]
    await finish(store, "t2")
    assert (await store.finished_table("t2")).rated is True
    assert [(r.id, r.rated) for r in await store.finished(10)] == [("t2", True)]


async def test_seats_the_start_and_the_status_change_the_table(store):
    await store.create_table(row("t1"))
    seats = [seat("Ana", "h0"), seat("Bo", "h1")]
    await store.update_seats("t1", seats)
    await store.start_table("t1", b"\x00" * 32, b"\xff" * 32)
    [read] = await store.open_tables()
    assert (read.seats, read.game_id, read.server_seed, read.status) == (seats, b"\x00" * 32, b"\xff" * 32, "playing")
    assert await store.finished_table("t1") is None          # open: not among the finished
    await store.set_status("t1", "over")
    assert await store.open_tables() == []
    assert (await store.finished_table("t1")).status == "over"
    assert await store.finished_table("nope") is None


async def test_open_tables_come_oldest_first_and_finished_ones_newest_last(store):
    for i in range(5):
        await store.create_table(row(f"t{i}"))
    for i in (3, 0, 1, 4):
        await finish(store, f"t{i}", "cancelled" if i == 1 else "over")
    assert [t.id for t in await store.open_tables()] == ["t2"]
    assert [t.id for t in await store.finished(3)] == ["t1", "t3", "t4"]     # by creation: the newest 3
    assert [t.id for t in await store.finished(10)] == ["t0", "t1", "t3", "t4"]


async def test_when_a_match_started_and_whether_it_is_rated_read_back(store):
    """The signed header of a match names both: a rebuilt match must sign the same one."""
    rated = row("t1")
    rated.rated = True
    await store.create_table(rated)
    await store.create_table(row("t2"))
    assert [(r.rated, r.started) for r in await store.open_tables()] == [(True, None), (False, None)]
    await store.start_table("t1", b"g" * 32, b"s" * 32, 1_767_225_600)
    [t1, _] = await store.open_tables()
    assert (t1.rated, t1.started, t1.status) == (True, 1_767_225_600, "playing")
    await store.set_status("t1", "over")
    assert ((await store.finished_table("t1")).rated, (await store.finished_table("t1")).started) == \
        (True, 1_767_225_600)


async def test_a_blind_table_and_its_deal_seed_read_back(store):
    """A blind match is rebuilt with the server's deal seed, kept with the table like its seed."""
    blind = row("t1")
    blind.blind = True
    await store.create_table(blind)
    await store.create_table(row("t2"))
    assert [(r.blind, r.deal_seed) for r in await store.open_tables()] == [(True, None), (False, None)]
    await store.start_table("t1", b"g" * 32, b"s" * 32, 1_767_225_600, deal_seed=b"d" * 32)
    await store.start_table("t2", b"h" * 32, b"s" * 32, 1_767_225_600)
    [t1, t2] = await store.open_tables()
    assert (t1.blind, t1.deal_seed, t1.server_seed) == (True, b"d" * 32, b"s" * 32)
    assert (t2.blind, t2.deal_seed) == (False, None)
    await store.set_status("t1", "over")
    assert ((await store.finished_table("t1")).blind, (await store.finished_table("t1")).deal_seed) == \
        (True, b"d" * 32)


async def test_the_log_reads_back_in_order_with_its_status_written_at_once(store):
    await store.create_table(row("t1"))
    await store.start_table("t1", b"g" * 32, b"s" * 32)
    data = [{"commit": b"\x01" * 32}, {"seed": b"\x02" * 32, "n": [1, 2]}, {"action": [3], "id": 7}]
    await store.append("t1", 0, "commit", 0, data[0])
    await store.append("t1", 1, "reveal", None, data[1])
    await store.append("t1", 2, "act", 1, data[2], status="over")
    assert await store.log("t1") == [LogRow(0, "commit", 0, data[0]), LogRow(1, "reveal", None, data[1]),
                                     LogRow(2, "act", 1, data[2])]
    assert (await store.finished_table("t1")).status == "over"


async def test_a_log_row_written_twice_is_refused_and_changes_nothing(store):
    await store.create_table(row("t1"))
    await store.start_table("t1", b"g" * 32, b"s" * 32)
    await store.append("t1", 0, "act", 0, {"first": True})
    with pytest.raises(Exception):
        await store.append("t1", 0, "act", 1, {"second": True}, status="over")
    assert await store.log("t1") == [LogRow(0, "act", 0, {"first": True})]
    assert [t.status for t in await store.open_tables()] == ["playing"]      # the status neither


async def test_a_write_refused_among_others_asked_at_once_is_undone_alone(store):
    """Writes asked for together (SQLite commits them in one transaction): the one refused
    changes nothing, and the others, before and after it, stand."""
    for t in ("t1", "t2"):
        await store.create_table(row(t))
        await store.start_table(t, b"g" * 32, b"s" * 32)
    await store.append("t1", 0, "act", 0, {"first": True})
    outcomes = await asyncio.gather(store.append("t2", 0, "act", 0, {"a": 1}),
                                    store.append("t1", 0, "act", 1, {"second": True}, status="over"),
                                    store.append("t2", 1, "act", 1, {"b": 2}, status="over"),
                                    store.append("t1", 1, "act", 1, {"third": True}),
                                    return_exceptions=True)
    assert outcomes[0] is None and isinstance(outcomes[1], Exception) and outcomes[2:] == [None, None]
    assert await store.log("t1") == [LogRow(0, "act", 0, {"first": True}), LogRow(1, "act", 1, {"third": True})]
    assert await store.log("t2") == [LogRow(0, "act", 0, {"a": 1}), LogRow(1, "act", 1, {"b": 2})]
    assert [t.id for t in await store.open_tables()] == ["t1"] and (await store.finished_table("t2")) is not None


async def test_a_log_with_a_gap_is_refused_when_read(store):
    await store.create_table(row("t1"))
    await store.append("t1", 0, "act", 0, {})
    await store.append("t1", 2, "act", 0, {})
    with pytest.raises(ValueError, match="gap at row 1"):
        await store.log("t1")


async def test_everything_written_is_there_when_the_store_is_opened_again(opened):
    store = await opened()
    await store.create_table(row("t1", [seat("Ana", "ha"), seat("Bo", "hb")]))
    await store.start_table("t1", b"g" * 32, b"s" * 32)
    await store.append("t1", 0, "act", 1, {"x": 1}, status="over")
    await store.create_table(row("t2"))
    before = (await store.open_tables(), await store.finished(10), await store.log("t1"))
    await store.close()
    again = await opened()
    assert (await again.open_tables(), await again.finished(10), await again.log("t1")) == before
    assert (await again.finished(10))[0].seats[1]["key"] == "hb"


async def test_close_commits_the_writes_asked_for_before_it(opened):
    """Writes asked for in the same turn of the loop as the close, some of them not yet on their
    way to the database: close returns once every one is committed, and none fails."""
    store = await opened()
    await store.create_table(row("t1"))
    await store.start_table("t1", b"g" * 32, b"s" * 32)
    writes = [asyncio.ensure_future(store.append("t1", i, "act", 0, {"i": i})) for i in range(30)]
    writes += [asyncio.ensure_future(store.create_table(row(f"u{i}"))) for i in range(10)]
    await asyncio.sleep(0)      # the writes have started and wait for their commits
    await store.close()
    assert all(w.done() and w.exception() is None for w in writes)
    again = await opened()
    assert [r.data["i"] for r in await again.log("t1")] == list(range(30))
    assert {t.id for t in await again.open_tables()} == {"t1"} | {f"u{i}" for i in range(10)}


async def test_a_write_after_close_is_refused_and_a_second_close_returns(opened):
    """Nothing waits forever on a closed store: a write is refused at once, naming why, and
    leaves the store as it was; closing it again ends at once."""
    store = await opened()
    await store.create_table(row("t1"))
    await store.close()
    with pytest.raises(RuntimeError, match="the store is closing"):
        await asyncio.wait_for(store.create_table(row("t2")), 5)
    await asyncio.wait_for(store.close(), 5)
    again = await opened()
    assert [t.id for t in await again.open_tables()] == ["t1"]


# ---------------------------------------------------------------------- order and waiting

async def test_the_writes_of_one_table_keep_the_order_they_were_asked_in(store):
    """Asked for all at once, without waiting for one another: a table's writes land in the order
    they were asked for, and the last status and seats asked for are the ones kept."""
    for t in [f"t{i}" for i in range(5)]:
        await store.create_table(row(t))
        await store.start_table(t, b"g" * 32, b"s" * 32)
        writes = []
        for i in range(40):
            writes.append(store.set_status(t, "waiting" if i % 2 else "playing"))
            writes.append(store.update_seats(t, [seat("Ana", f"{t}-{i}"), seat(None)]))
            writes.append(store.append(t, i, "act", 0, {"i": i}, status="playing" if i % 2 else "waiting"))
        writes.append(store.set_status(t, "over"))
        await asyncio.gather(*writes)
        finished = await store.finished_table(t)
        assert finished is not None and finished.seats[0]["key"] == f"{t}-39"
        assert [r.data["i"] for r in await store.log(t)] == list(range(40))


async def test_reads_never_wait_behind_writes(backend, store):
    """Writes held up by another connection, more of them than any store commits at once: every
    kind of read is answered meanwhile, and the writes all land once they may."""
    await store.create_table(row("done", [seat("Ana", "ha"), seat(None)]))
    await store.append("done", 0, "act", 0, {"x": 1})
    await finish(store, "done")
    for i in range(12):
        await store.create_table(row(f"t{i}"))
    async with backend.writes_blocked():
        writes = [asyncio.ensure_future(store.update_seats(f"t{i}", [seat("Bo", f"h{i}"), seat(None)]))
                  for i in range(12)]
        await asyncio.sleep(0.3)
        assert not any(w.done() for w in writes)                  # they are held up indeed
        reads = await asyncio.wait_for(asyncio.gather(
            store.open_tables(), store.finished_table("done"), store.finished(5), store.log("done")), timeout=3)
        assert len(reads[0]) == 12 and reads[1].id == "done" and reads[2][-1].id == "done" and len(reads[3]) == 1
    await asyncio.wait_for(asyncio.gather(*writes), timeout=10)
    assert sorted(t.seats[0]["key"] for t in await store.open_tables()) == sorted(f"h{i}" for i in range(12))


# ---------------------------------------------------------------------- PostgreSQL's own

async def schema_versions(url):
    db = await asyncpg.connect(url)
    try:
        return [r[0] for r in await db.fetch("SELECT version FROM schema_version ORDER BY version")]
    finally:
        await db.close()


async def test_a_stopped_reader_ends_the_read_under_way_and_refuses_more_while_writes_go_on(backend, store):
    """What lets a stopping server go at once: no read holds it up, and the writes still land."""
    await store.create_table(row("t1"))
    reading = asyncio.ensure_future(backend.long_read(store))
    await asyncio.sleep(0.3)                      # the read is under way
    assert not reading.done()
    store.stop_reading()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(reading, 5)
    with pytest.raises(asyncio.CancelledError):
        await store.open_tables()
    await store.update_seats("t1", [seat("Ana", "tok"), seat("Bea", "tok2")])
    await store.close()
    reopened = backend.store()
    await reopened.open()
    try:
        assert [s["name"] for s in (await reopened.open_tables())[0].seats] == ["Ana", "Bea"]
    finally:
        await reopened.close()


async def test_writes_asked_for_at_once_commit_in_one_transaction_each_table_in_order(database):
    """PostgreSQL commits the writes asked for together as one group: their log rows, statuses and
    seats land in one transaction, each table's in the order asked for."""
    store = PostgresStore(database)
    await store.open()
    try:
        ids = ["t1", "t2", "t3"]
        for t in ids:
            await store.create_table(row(t))
            await store.start_table(t, b"g" * 32, b"s" * 32)
        writes = [store.append(t, i, "act", 0, {"i": i}, status="waiting" if i % 2 else "playing")
                  for i in range(4) for t in ids]
        writes += [store.update_seats("t2", [seat("Ana", "new"), seat(None)]), store.append("t2", 4, "act", 1, {"i": 4}),
                   store.set_status("t3", "over")]
        await asyncio.gather(*writes)
        assert [[r.data["i"] for r in await store.log(t)] for t in ids] == [[0, 1, 2, 3], [0, 1, 2, 3, 4], [0, 1, 2, 3]]
        assert [(t.id, t.status) for t in await store.open_tables()] == [("t1", "waiting"), ("t2", "waiting")]
        assert (await store.finished_table("t3")).status == "over"
        db = await asyncpg.connect(database)
        try:
            assert await db.fetchval("SELECT count(DISTINCT xmin::text) FROM (SELECT xmin FROM log UNION ALL"
                                     " SELECT xmin FROM tables) AS rows") == 1
            assert await db.fetchval("SELECT count(*) FROM pg_tables WHERE tablename = 'seat_tokens'") == 0
        finally:
            await db.close()
    finally:
        await store.close()


async def test_an_empty_database_gets_every_migration_once(database):
    store = PostgresStore(database)
    await store.open()
    await store.close()
    await store.open()        # opened again: nothing left to do
    await store.close()
    assert await schema_versions(database) == list(range(1, postgres_store.VERSION + 1))


async def test_servers_migrating_at_once_apply_each_migration_once(database):
    connections = [await asyncpg.connect(database) for _ in range(3)]
    try:
        await asyncio.gather(*(postgres_store.migrate(db) for db in connections))
    finally:
        for db in connections:
            await db.close()
    assert await schema_versions(database) == list(range(1, postgres_store.VERSION + 1))


async def test_a_database_of_a_newer_server_is_refused_and_left_alone(database):
    db = await asyncpg.connect(database)
    await db.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied TIMESTAMPTZ)")
    await db.execute("INSERT INTO schema_version VALUES ($1, now())", postgres_store.VERSION + 1)
    store = PostgresStore(database)
    with pytest.raises(RuntimeError, match="written by a newer server"):
        await store.open()
    assert await db.fetchval("SELECT to_regclass('tables')") is None         # nothing was created
    await db.close()
    await PostgresStore(database).close()     # closing a store that never opened is harmless


async def test_a_database_that_cannot_be_opened_is_named_without_its_password(postgres):
    url = postgres.get_uri("no_such_database").replace("postgres:@", "postgres:s3cret@")
    with pytest.raises(RuntimeError) as refused:
        await PostgresStore(url).open()
    message = str(refused.value)
    assert "cannot open the database" in message and "no_such_database" in message and "does not exist" in message
    assert "s3cret" not in message and "postgres:***@" in message


def test_a_password_is_never_shown_wherever_the_url_holds_it():
    assert redacted("postgresql://ana:s3cret@db.example:5432/gov?sslmode=require") == \
        "postgresql://ana:***@db.example:5432/gov?sslmode=require"
    assert redacted("postgresql://db.example/gov?password=s3cret&host=/run/pg") == \
        "postgresql://db.example/gov?password=***&host=/run/pg"
    assert redacted("postgresql://ana@db.example/gov") == "postgresql://ana@db.example/gov"
