"""The store in one SQLite file (WAL mode) in the data directory: SQLiteStore, the server's
Store (server/store.py) and the only code that touches the database.

A table's row holds what was decided when it was created and started (game, options, seats with
names, player ids, player keys and bot levels, game id, server seed, when the match started,
whether it is rated, whether it is dealt blind and then the server's deal seed, status); the `log` table holds every accepted input in order: `commit`,
`reveal`, `act` and `cancel` rows. A seat is claimed by its table and its player's key, so no
index of seats is kept.

Every write is one transaction, committed before the table tells anyone about it. WAL with
`synchronous=NORMAL` survives a killed process (the write-ahead log is in the operating system's
hands as soon as the commit returns); pass `synchronous="FULL"` to survive power loss as well.

Writes run on one dedicated thread with its own connection, so the event loop never waits for the
disk and every write keeps its order. They go there together: the writes asked for while the
thread commits others are committed next, all in one transaction, each in a savepoint of its own
when there are several, so that one that fails is undone alone (a write alone is undone with its
transaction). Handing a write to a thread costs more than committing
it, and a busy server asks for dozens meanwhile: one hand-off and one commit serve them all.
Each write still returns only once it is committed. Reads run on another thread with a second connection (WAL
lets it read while the writer commits): whatever a client makes the server read, it never queues
in front of the moves being committed. A read sees every write that returned before it started.
Closing the store finishes the writes under way, but interrupts the read under way and drops
those queued (server/background.py): no accepted move waits for a read.

The file's schema version is SQLite's `user_version`; `MIGRATIONS` bring an older file up to
date when the store opens it, each in one transaction.
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from protocol.codec import pack, unpack

from .background import Background
from .private import create_private
from .store import LogRow, TableRow

DB_FILE = "governor.db"
FINISHED = "('over', 'cancelled')"   # the statuses of finished tables, in SQL

# Version 0: the tables and their logs. A file without them gets them first, then every migration.
SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,      -- JSON
    bot         TEXT NOT NULL,      -- level of computer seats and stand-ins
    seats       TEXT NOT NULL,      -- JSON: [{name, player_id, key (hex), bot}]
    game_id     BLOB,
    server_seed BLOB,
    status      TEXT NOT NULL,      -- waiting | playing | over | cancelled
    created     REAL NOT NULL,
    updated     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS log (
    table_id    TEXT NOT NULL,
    n           INTEGER NOT NULL,   -- 0, 1, 2, ... per table
    kind        TEXT NOT NULL,      -- commit | reveal | act | cancel
    seat        INTEGER,
    data        BLOB NOT NULL,      -- msgpack map
    PRIMARY KEY (table_id, n)
);
"""


def _v1_token_index(db: sqlite3.Connection) -> None:
    """An index of seat tokens (left empty here: seats are no longer claimed by a token, and
    _v5_no_seat_tokens drops it); tables by status (the open ones at start, the newest finished
    ones for the lobby)."""
    db.execute("""
        CREATE TABLE seat_tokens (
            token_hash  TEXT PRIMARY KEY,   -- SHA-256 of the seat token, as in the seats of `tables`
            table_id    TEXT NOT NULL,
            seat        INTEGER NOT NULL
        )""")
    db.execute("CREATE INDEX seat_tokens_by_table ON seat_tokens (table_id)")
    db.execute("CREATE INDEX tables_by_status ON tables (status, created)")


def _v2_noted_seats(db: sqlite3.Connection) -> None:
    """A server of the release before the index knows no schema version, so it opens a newer file
    without a word, and writes seats without indexing their tokens: a player who sat down there
    would not be found again, a token given up there would still be. Triggers now note every
    table whose seats anyone writes; this store's own writes clear the note in the same
    transaction, and opening the file indexes the tables still noted. Every table is noted once
    here: a file of version 1 may have been written by such a server already."""
    db.execute("CREATE TABLE seat_tokens_noted (table_id TEXT PRIMARY KEY)")
    for name, event in (("seats_inserted", "INSERT"), ("seats_updated", "UPDATE OF seats")):
        db.execute(f"CREATE TRIGGER {name} AFTER {event} ON tables"
                   " BEGIN INSERT OR IGNORE INTO seat_tokens_noted (table_id) VALUES (NEW.id); END")
    db.execute("INSERT INTO seat_tokens_noted (table_id) SELECT id FROM tables")


def _v3_private(db: sqlite3.Connection) -> None:
    """Tables the lobby does not list (TableRow.private); every table before was listed."""
    db.execute("ALTER TABLE tables ADD COLUMN private INTEGER NOT NULL DEFAULT 0")


def _v4_started_rated(db: sqlite3.Connection) -> None:
    """When each match started and whether it is rated (TableRow.started, TableRow.rated): the
    signed header of a bgfair/v2 match names both, and a rebuilt match must sign the same one."""
    db.execute("ALTER TABLE tables ADD COLUMN started INTEGER")
    db.execute("ALTER TABLE tables ADD COLUMN rated INTEGER NOT NULL DEFAULT 0")


def _v5_no_seat_tokens(db: sqlite3.Connection) -> None:
    """Seats are claimed with the player's key (docs/fairness.md §9), not a token: the index of
    tokens, and the triggers that noted seats written without it, go."""
    db.execute("DROP TRIGGER seats_inserted")
    db.execute("DROP TRIGGER seats_updated")
    db.execute("DROP TABLE seat_tokens_noted")
    db.execute("DROP TABLE seat_tokens")


def _v6_blind(db: sqlite3.Connection) -> None:
    """Tables dealt blind (TableRow.blind) and the server's deal seed of their match
    (TableRow.deal_seed, secret like the server seed); every table before was open."""
    db.execute("ALTER TABLE tables ADD COLUMN blind INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE tables ADD COLUMN deal_seed BLOB")


# MIGRATIONS[i] brings a file from version i to i + 1.
MIGRATIONS = [_v1_token_index, _v2_noted_seats, _v3_private, _v4_started_rated, _v5_no_seat_tokens, _v6_blind]
VERSION = len(MIGRATIONS)


class SQLiteStore:
    """The Store of server/store.py in SQLite; the schema above is the on-disk format."""

    def __init__(self, data_dir: str | Path, synchronous: str = "NORMAL") -> None:
        if synchronous.upper() not in ("NORMAL", "FULL", "EXTRA"):
            raise ValueError("synchronous is NORMAL, FULL or EXTRA")
        self.path = Path(data_dir) / DB_FILE
        self.synchronous = synchronous.upper()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="governor-db")
        self._reader = Background("governor-db-read")
        self._db: sqlite3.Connection | None = None      # the writer's, used on its thread only
        self._pending: list[tuple[list, asyncio.Future]] = []   # writes not yet handed to the writer
        self._committing: asyncio.Future | None = None  # the writes the writer commits now, if any
        self._closing = False                           # close has begun: no more writes
        self._rdb: sqlite3.Connection | None = None     # the reader's, used on its thread only

    # -- plumbing: writes on the writer's thread, reads on the reader's

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _read(self, fn, *args):
        return await self._reader.run(fn, *args)

    async def open(self) -> None:
        await self._run(self._open)
        await self._read(self._open_reader)

    def _open(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        create_private(self.path)      # SQLite gives its -wal and -shm files the database's mode
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
        migrate(db)
        self._db = db

    def _open_reader(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA query_only=ON")
        self._rdb = db

    def stop_reading(self) -> None:
        self._reader.cut()
        if self._rdb is not None:
            self._rdb.interrupt()   # the read under way ends now, or at the interrupts in close()

    async def close(self) -> None:
        self._closing = True
        self.stop_reading()
        while self._committing is not None:    # the writes asked for are committed first
            await asyncio.wait([self._committing])
        if self._rdb is not None:
            await self._reader.ended(self._rdb.interrupt)
            self._rdb.close()
            self._rdb = None
        if self._db is not None:
            await self._run(self._db.close)
            self._db = None
        self._pool.shutdown(wait=True)

    async def _tx(self, statements: list[tuple[str, tuple]]) -> None:
        """One write, committed when this returns: with every other write asked for meanwhile."""
        if self._closing:
            raise RuntimeError("the store is closing: no more writes")
        done = asyncio.get_running_loop().create_future()
        self._pending.append((statements, done))
        if self._committing is None:
            self._commit_pending()
        await done

    def _commit_pending(self) -> None:
        batch, self._pending = self._pending, []
        loop = asyncio.get_running_loop()
        # The pool is shut down only by close, after every batch is committed and while _tx
        # refuses new writes (_closing), so it is never shut down here and submit cannot fail.
        self._pool.submit(self._commit_and_answer, loop, batch)
        # Only once the writer has the batch: a future nobody will answer would hold up close.
        self._committing = loop.create_future()

    def _commit_and_answer(self, loop: asyncio.AbstractEventLoop, batch: list[tuple[list, asyncio.Future]]) -> None:
        """On the writer's thread: the batch committed, and its outcomes handed straight to the
        event loop (one round of it, where an executor's future takes three before the writes'
        tables hear)."""
        try:
            outcomes = self._commit([w for w, _ in batch])
        except BaseException as error:
            outcomes = [error] * len(batch)
        loop.call_soon_threadsafe(self._committed, batch, outcomes)

    def _committed(self, batch: list[tuple[list, asyncio.Future]], outcomes: list[BaseException | None]) -> None:
        for (_, done), outcome in zip(batch, outcomes):
            if done.done():
                continue   # its caller stopped waiting
            if outcome is None:
                done.set_result(None)
            else:
                done.set_exception(outcome)
        committing, self._committing = self._committing, None
        committing.set_result(None)
        if self._pending:
            self._commit_pending()

    def _commit(self, writes: list[list[tuple[str, tuple]]]) -> list[Exception | None]:
        """On the writer's thread: the writes in one transaction, each in a savepoint when there
        are several (a write alone is undone with its transaction); what became of each (None:
        committed)."""
        db = self._db
        outcomes: list[Exception | None] = []
        # A write alone needs no savepoint: its transaction is undone with it. Each statement
        # lets the interpreter go while SQLite works, and waits for the event loop to hand it
        # back; a write at a time (the common case when players think) waits for three, not five.
        several = len(writes) > 1
        db.execute("BEGIN IMMEDIATE")
        try:
            for statements in writes:
                if several:
                    db.execute("SAVEPOINT write")
                try:
                    for sql, args in statements:
                        db.execute(sql, args)
                except Exception as e:
                    if not several:
                        raise       # undone with the transaction, and its outcome
                    db.execute("ROLLBACK TO write")
                    outcomes.append(e)
                else:
                    outcomes.append(None)
                if several:
                    db.execute("RELEASE write")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return outcomes

    # -- writes

    async def create_table(self, row: TableRow) -> None:
        now = time.time()
        await self._tx([(
            "INSERT INTO tables (id, game, options, bot, seats, game_id, server_seed, status, created, updated,"
            " private, rated, started, blind, deal_seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.game, json.dumps(row.options), row.bot, json.dumps(row.seats), row.game_id,
             row.server_seed, row.status, now, now, int(row.private), int(row.rated), row.started, int(row.blind),
             row.deal_seed))])

    async def update_seats(self, table_id: str, seats: list[dict]) -> None:
        await self._tx([("UPDATE tables SET seats = ?, updated = ? WHERE id = ?",
                                    (json.dumps(seats), time.time(), table_id))])

    async def start_table(self, table_id: str, game_id: bytes, server_seed: bytes, started: int | None = None,
                          deal_seed: bytes | None = None) -> None:
        await self._tx([(
            "UPDATE tables SET game_id = ?, server_seed = ?, started = ?, deal_seed = ?, status = 'playing',"
            " updated = ? WHERE id = ?", (game_id, server_seed, started, deal_seed, time.time(), table_id))])

    async def set_status(self, table_id: str, status: str) -> None:
        await self._tx([("UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                                    (status, time.time(), table_id))])

    async def append(self, table_id: str, n: int, kind: str, seat: int | None, data: dict,
                     status: str | None = None) -> None:
        # the row and the status in one transaction
        statements = [("INSERT INTO log (table_id, n, kind, seat, data) VALUES (?, ?, ?, ?, ?)",
                       (table_id, n, kind, seat, pack(data)))]
        if status is not None:
            statements.append(("UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                               (status, time.time(), table_id)))
        await self._tx(statements)

    # -- reads (on the reader's thread)

    async def open_tables(self) -> list[TableRow]:
        return await self._read(self._tables, f"WHERE status NOT IN {FINISHED} ORDER BY created")

    async def finished_table(self, table_id: str) -> TableRow | None:
        rows = await self._read(self._tables, f"WHERE id = ? AND status IN {FINISHED}", table_id)
        return rows[0] if rows else None

    async def finished(self, limit: int) -> list[TableRow]:
        rows = await self._read(self._tables, f"WHERE status IN {FINISHED} ORDER BY created DESC LIMIT ?", limit)
        return rows[::-1]

    def _tables(self, where: str, *args) -> list[TableRow]:
        rows = self._rdb.execute("SELECT id, game, options, bot, seats, game_id, server_seed, status, created,"
                                " private, rated, started, blind, deal_seed FROM tables " + where, args).fetchall()
        return [TableRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7], r[8], bool(r[9]),
                         bool(r[10]), r[11], bool(r[12]), r[13]) for r in rows]

    async def log(self, table_id: str) -> list[LogRow]:
        return await self._read(self._log, table_id)

    def _log(self, table_id: str) -> list[LogRow]:
        rows = self._rdb.execute("SELECT n, kind, seat, data FROM log WHERE table_id = ? ORDER BY n",
                                (table_id,)).fetchall()
        out = []
        for i, (n, kind, seat, data) in enumerate(rows):
            if n != i:
                raise ValueError(f"the log of table {table_id} has a gap at row {i}")
            out.append(LogRow(n, kind, seat, unpack(data)))
        return out


def migrate(db: sqlite3.Connection) -> None:
    """Bring the file up to VERSION, one migration and one transaction at a time; refuse a file
    written by a newer server (it would not know what that one keeps)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > VERSION:
        raise RuntimeError(f"the database was written by a newer server (schema {version}; this one knows "
                           f"up to {VERSION})")
    for i in range(version, VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[i](db)
            db.execute(f"PRAGMA user_version = {i + 1}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
