"""The store in one SQLite file (WAL mode) in the data directory: SQLiteStore, the server's
Store (server/store.py) and the only code that touches the database.

A table's row holds what was decided when it was created and started (game, options, seats with
names, player ids, hashed seat tokens and bot levels, game id, server seed, status); the `log`
table holds every accepted input in order: `commit`, `reveal`, `act` and `cancel` rows.

`seat_tokens` indexes the seats' token hashes (a player coming back to a finished match is found
by one lookup, not by reading every table); it is written in the same transaction as the seats.
Seats written by a server that does not keep the index (the release before it) are noted by
triggers and indexed when the file is opened next (`index_noted`).

Every write is one transaction, committed before the table tells anyone about it. WAL with
`synchronous=NORMAL` survives a killed process (the write-ahead log is in the operating system's
hands as soon as the commit returns); pass `synchronous="FULL"` to survive power loss as well.

Writes commit on the event loop: with `synchronous=NORMAL` a commit writes the log to the
operating system and waits for no disk (about 50 µs), far less than handing it to a thread and
waking the loop again when it is done, which a move served alone paid in full. The first write
since the loop last came round commits at once (a move served alone waits for nothing); the
others asked for in the same round are committed together at its end, in one transaction, each
in a savepoint of its own so that one that fails is undone alone (a busy server asks for several
in a round). What waits for the disk is kept off the loop: the WAL's checkpoints (which copy it
into the database file and flush both) are not made by commits on the loop's connection, but by
the store's thread on a connection of its own, every CHECKPOINT_COMMITS commits: a passive pass
that never holds up a write, then a full one for the little written meanwhile, which holds the
writes for that moment, so that the log starts over from its beginning instead of growing. A
write that finds the file's write lock taken (by that last pass, or by another program) is not
waited for on the loop: it goes to the thread, which commits it as soon as it may, with the
others sent there meanwhile, and every write after it goes the same way until the thread has
caught up, so that writes keep their order. With `synchronous` FULL or EXTRA every commit waits
for the disk, so every write goes to the thread. Each write returns only once it is committed.
Reads run on another thread with a second connection (WAL
lets it read while the writer commits): whatever a client makes the server read, it never queues
in front of the moves being committed. A read sees every write that returned before it started.
Closing the store finishes the writes under way, but interrupts the read under way and drops
those queued (server/background.py): no accepted move waits for a read. The thread's
connection, closed last, checkpoints the whole log (and SQLite then removes it); a killed
process leaves the log beside the file, and SQLite replays it when the file is opened next.

The file's schema version is SQLite's `user_version`; `MIGRATIONS` bring an older file up to
date when the store opens it, each in one transaction.
"""
from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from protocol.codec import pack, unpack

from .background import Background
from .store import LogRow, TableRow

log = logging.getLogger("governor.server")

DB_FILE = "governor.db"
FINISHED = "('over', 'cancelled')"   # the statuses of finished tables, in SQL

# Version 0: the tables and their logs. A file without them gets them first, then every migration.
SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,      -- JSON
    bot         TEXT NOT NULL,      -- level of computer seats and stand-ins
    seats       TEXT NOT NULL,      -- JSON: [{name, player_id, token_hash, bot}]
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
    """Seat tokens found by an index (they were found by reading every finished table's seats),
    and rewritten by table (a sit or a leave) without reading the others; tables by status (the
    open ones at start, the newest finished ones for the lobby). The index is filled in Python,
    not with SQLite's JSON functions, which not every build has."""
    db.execute("""
        CREATE TABLE seat_tokens (
            token_hash  TEXT PRIMARY KEY,   -- SHA-256 of the seat token, as in the seats of `tables`
            table_id    TEXT NOT NULL,
            seat        INTEGER NOT NULL
        )""")
    db.execute("CREATE INDEX seat_tokens_by_table ON seat_tokens (table_id)")
    for table_id, seats in db.execute("SELECT id, seats FROM tables").fetchall():
        for sql, args in _token_rows(table_id, json.loads(seats)):
            db.execute(sql, args)
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


# MIGRATIONS[i] brings a file from version i to i + 1.
MIGRATIONS = [_v1_token_index, _v2_noted_seats]
VERSION = len(MIGRATIONS)


# Commits on the loop between two checkpoints: each adds a few pages to the log (SQLite's own
# automatic checkpoint comes at 1,000 pages), so the log stays at a few megabytes.
CHECKPOINT_COMMITS = 500
# The longest the full pass waits for the write lock (a commit on the loop holds it some 50 µs)
# and for reads of an older snapshot; the writes asked for meanwhile go to the thread.
CHECKPOINT_WAIT_MS = 100


class SQLiteStore:
    """The Store of server/store.py in SQLite; the schema above is the on-disk format."""

    def __init__(self, data_dir: str | Path, synchronous: str = "NORMAL") -> None:
        if synchronous.upper() not in ("NORMAL", "FULL", "EXTRA"):
            raise ValueError("synchronous is NORMAL, FULL or EXTRA")
        self.path = Path(data_dir) / DB_FILE
        self.synchronous = synchronous.upper()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="governor-db")
        self._reader = Background("governor-db-read")
        self._db: sqlite3.Connection | None = None      # the loop's, for the writes it commits itself
        self._tdb: sqlite3.Connection | None = None     # the thread's: checkpoints, and the writes sent there
        self._pending: list[tuple[list, asyncio.Future]] = []   # writes waiting for the round's end or the thread
        self._committing: asyncio.Future | None = None  # the writes the thread commits now, if any
        self._lately = False          # the loop committed since it last came round: the next waits for the round's end
        self._commits = 0                                # commits on the loop since the last checkpoint
        self._checkpointing: asyncio.Future | None = None
        self._rdb: sqlite3.Connection | None = None     # the reader's, used on its thread only

    # -- plumbing: writes on the loop or the store's thread, reads on the reader's

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _read(self, fn, *args):
        return await self._reader.run(fn, *args)

    async def open(self) -> None:
        await self._run(self._open)
        await self._read(self._open_reader)

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = self._connect(timeout=5.0)
        db.executescript(SCHEMA)
        migrate(db)
        index_noted(db)
        self._tdb = db
        if self.synchronous == "NORMAL":
            # timeout 0: a write that finds the write lock taken goes to the thread, the loop never waits
            self._db = self._connect(timeout=0.0)
            self._db.execute("PRAGMA wal_autocheckpoint=0")   # the thread checkpoints (_checkpoint)

    def _connect(self, timeout: float) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=timeout)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _open_reader(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA query_only=ON")
        self._rdb = db

    def stop_reading(self) -> None:
        self._reader.cut()
        if self._rdb is not None:
            self._rdb.interrupt()   # the read under way ends now, or at the interrupts in close()

    async def close(self) -> None:
        self.stop_reading()
        while self._pending or self._committing is not None or self._checkpointing is not None:
            if self._pending and self._committing is None:   # the writes asked for first, this round's too
                self._commit_round()
                continue
            await asyncio.wait([f for f in (self._committing, self._checkpointing) if f is not None])
        if self._rdb is not None:
            await self._reader.ended(self._rdb.interrupt)
            self._rdb.close()
            self._rdb = None
        if self._db is not None:
            self._db.close()      # not the last connection to the file: it leaves the log to the thread's
            self._db = None
        if self._tdb is not None:
            await self._run(self._tdb.close)    # the last: SQLite checkpoints the log, then removes it
            self._tdb = None
        self._pool.shutdown(wait=True)

    async def _tx(self, statements: list[tuple[str, tuple]]) -> None:
        """One write, committed when this returns. On the loop: at once if it is the first since
        the loop last came round (a move served alone waits for nothing), else with the others
        asked for in the same round, in one transaction at its end. On the thread when the file's
        write lock is taken, and while writes wait there, so that they keep their order."""
        if self._db is not None and self._committing is None and not self._pending and not self._lately:
            outcomes = self._commit_here([statements])
            if outcomes is not None:
                if outcomes[0] is not None:
                    raise outcomes[0]
                return
        done = asyncio.get_running_loop().create_future()
        self._pending.append((statements, done))
        if len(self._pending) == 1 and self._committing is None:
            if self._db is not None:
                asyncio.get_running_loop().call_soon(self._commit_round)
            else:
                self._commit_pending()
        await done

    def _commit_here(self, writes: list[list[tuple[str, tuple]]]) -> list[Exception | None] | None:
        """The writes committed on the loop's connection (what became of each, as _commit says);
        None, having done nothing, if the file's write lock is taken."""
        try:
            outcomes = self._commit(self._db, writes)
        except sqlite3.OperationalError as e:
            if e.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY and not self._db.in_transaction:
                return None
            raise
        loop = asyncio.get_running_loop()
        if not self._lately:
            self._lately = True
            loop.call_soon(self._came_round)
        self._commits += 1
        if self._commits >= CHECKPOINT_COMMITS and self._checkpointing is None:
            self._commits = 0
            self._checkpointing = loop.run_in_executor(self._pool, self._checkpoint)
            self._checkpointing.add_done_callback(self._checkpointed)
        return outcomes

    def _came_round(self) -> None:
        self._lately = False

    def _commit_round(self) -> None:
        """At the end of a round of the loop: the writes asked for in it, together."""
        if self._committing is not None or not self._pending:
            return   # the thread has them
        batch, self._pending = self._pending, []
        try:
            outcomes = self._commit_here([w for w, _ in batch])
        except Exception as e:
            outcomes = [e] * len(batch)
        if outcomes is None:      # the file's write lock is taken: the thread waits for it
            self._pending = batch + self._pending
            self._commit_pending()
            return
        self._settle(batch, outcomes)

    def _checkpoint(self) -> None:
        """On the thread: the log copied into the database file. The passive pass copies what was
        committed before it without holding up any write; the full one then holds the writes
        (they go to this thread, and wait their turn behind it) while it copies the few committed
        meanwhile, so that the next commit starts the log over. It waits CHECKPOINT_WAIT_MS at most
        for the commit under way on the loop and for the reads of an older snapshot, then gives
        up: the next checkpoint tries again."""
        self._tdb.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self._tdb.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
        try:
            self._tdb.execute("PRAGMA wal_checkpoint(FULL)").fetchall()
        finally:
            self._tdb.execute("PRAGMA busy_timeout=5000")

    def _checkpointed(self, checkpointing: asyncio.Future) -> None:
        self._checkpointing = None
        if not checkpointing.cancelled() and checkpointing.exception() is not None:
            log.warning("the SQLite log could not be checkpointed: %r", checkpointing.exception())

    def _commit_pending(self) -> None:
        batch, self._pending = self._pending, []
        self._committing = asyncio.get_running_loop().run_in_executor(self._pool, self._commit, self._tdb,
                                                                       [w for w, _ in batch])
        self._committing.add_done_callback(lambda f: self._committed(batch, f))

    def _committed(self, batch: list[tuple[list, asyncio.Future]], committing: asyncio.Future) -> None:
        error = committing.exception()
        self._settle(batch, [error] * len(batch) if error is not None else committing.result())
        self._committing = None
        if self._pending:
            self._commit_pending()

    @staticmethod
    def _settle(batch: list[tuple[list, asyncio.Future]], outcomes: list[Exception | None]) -> None:
        for (_, done), outcome in zip(batch, outcomes):
            if done.done():
                continue   # its caller stopped waiting
            if outcome is None:
                done.set_result(None)
            else:
                done.set_exception(outcome)

    @staticmethod
    def _commit(db: sqlite3.Connection, writes: list[list[tuple[str, tuple]]]) -> list[Exception | None]:
        """The writes in one transaction, each in a savepoint; what became of each (None:
        committed)."""
        outcomes: list[Exception | None] = []
        db.execute("BEGIN IMMEDIATE")
        try:
            for statements in writes:
                db.execute("SAVEPOINT write")
                try:
                    for sql, args in statements:
                        db.execute(sql, args)
                except Exception as e:
                    db.execute("ROLLBACK TO write")
                    outcomes.append(e)
                else:
                    outcomes.append(None)
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
            "INSERT INTO tables (id, game, options, bot, seats, game_id, server_seed, status, created, updated)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.game, json.dumps(row.options), row.bot, json.dumps(row.seats), row.game_id,
             row.server_seed, row.status, now, now))] + _seats_indexed(row.id, row.seats))

    async def update_seats(self, table_id: str, seats: list[dict]) -> None:
        await self._tx([("UPDATE tables SET seats = ?, updated = ? WHERE id = ?",
                                    (json.dumps(seats), time.time(), table_id))] + _seats_indexed(table_id, seats))

    async def start_table(self, table_id: str, game_id: bytes, server_seed: bytes) -> None:
        await self._tx([(
            "UPDATE tables SET game_id = ?, server_seed = ?, status = 'playing', updated = ? WHERE id = ?",
            (game_id, server_seed, time.time(), table_id))])

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

    async def seat_of_token(self, token_hash: str) -> tuple[str, int] | None:
        return await self._read(self._seat_of_token, token_hash)

    def _seat_of_token(self, token_hash: str) -> tuple[str, int] | None:
        row = self._rdb.execute(SEAT_OF_TOKEN, (token_hash,)).fetchone()
        return (row[0], row[1]) if row else None

    def _tables(self, where: str, *args) -> list[TableRow]:
        rows = self._rdb.execute("SELECT id, game, options, bot, seats, game_id, server_seed, status, created"
                                " FROM tables " + where, args).fetchall()
        return [TableRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7], r[8])
                for r in rows]

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


# A token's seat at a finished table: one lookup in seat_tokens' primary key, one in tables'.
SEAT_OF_TOKEN = (f"SELECT k.table_id, k.seat FROM seat_tokens k JOIN tables t ON t.id = k.table_id"
                 f" WHERE k.token_hash = ? AND t.status IN {FINISHED}")


def _token_rows(table_id: str, seats: list[dict]) -> list[tuple[str, tuple]]:
    """The statements that make seat_tokens say what these seats say (a seat given up loses its
    token; a token is a fresh random value, so it names one seat only)."""
    out = [("DELETE FROM seat_tokens WHERE table_id = ?", (table_id,))]
    out += [("INSERT OR REPLACE INTO seat_tokens (token_hash, table_id, seat) VALUES (?, ?, ?)",
             (seat["token_hash"], table_id, i)) for i, seat in enumerate(seats) if seat["token_hash"]]
    return out


def _seats_indexed(table_id: str, seats: list[dict]) -> list[tuple[str, tuple]]:
    """What goes with every write of a table's seats: their tokens indexed, and the note the
    trigger left of the write cleared (see _v2_noted_seats)."""
    return _token_rows(table_id, seats) + [("DELETE FROM seat_tokens_noted WHERE table_id = ?", (table_id,))]


def index_noted(db: sqlite3.Connection) -> None:
    """Index the seats of every table noted as written without its tokens indexed, in one
    transaction (nothing, when no other server wrote to the file)."""
    noted = db.execute("SELECT t.id, t.seats FROM seat_tokens_noted n JOIN tables t ON t.id = n.table_id").fetchall()
    if not noted:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        for table_id, seats in noted:
            for sql, args in _seats_indexed(table_id, json.loads(seats)):
                db.execute(sql, args)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


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
