"""The store in one SQLite file (WAL mode) in the data directory: SQLiteStore, the server's
Store (server/store.py) and the only code that touches the database.

A table's row holds what was decided when it was created and started (game, options, seats with
names, player ids, hashed seat tokens and bot levels, game id, server seed, status); the `log`
table holds every accepted input in order: `commit`, `reveal`, `act` and `cancel` rows.

Every write is one transaction, committed before the table tells anyone about it. WAL with
`synchronous=NORMAL` survives a killed process (the write-ahead log is in the operating system's
hands as soon as the commit returns); pass `synchronous="FULL"` to survive power loss as well.

All database work runs on one dedicated thread, so the event loop never waits for the disk and
every write keeps its order.
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from protocol.codec import pack, unpack

from .store import LogRow, TableRow

DB_FILE = "governor.db"
FINISHED = "('over', 'cancelled')"   # the statuses of finished tables, in SQL

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


class SQLiteStore:
    """The Store of server/store.py in SQLite; the schema above is the on-disk format."""

    def __init__(self, data_dir: str | Path, synchronous: str = "NORMAL") -> None:
        if synchronous.upper() not in ("NORMAL", "FULL", "EXTRA"):
            raise ValueError("synchronous is NORMAL, FULL or EXTRA")
        self.path = Path(data_dir) / DB_FILE
        self.synchronous = synchronous.upper()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="governor-db")
        self._db: sqlite3.Connection | None = None

    # -- plumbing: everything runs on the one database thread

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def open(self) -> None:
        await self._run(self._open)

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
        self._db = db

    async def close(self) -> None:
        if self._db is not None:
            await self._run(self._db.close)
            self._db = None
        self._pool.shutdown(wait=True)

    def _tx(self, statements: list[tuple[str, tuple]]) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in statements:
                db.execute(sql, args)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # -- writes

    async def create_table(self, row: TableRow) -> None:
        now = time.time()
        await self._run(self._tx, [(
            "INSERT INTO tables (id, game, options, bot, seats, game_id, server_seed, status, created, updated)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.game, json.dumps(row.options), row.bot, json.dumps(row.seats), row.game_id,
             row.server_seed, row.status, now, now))])

    async def update_seats(self, table_id: str, seats: list[dict]) -> None:
        await self._run(self._tx, [("UPDATE tables SET seats = ?, updated = ? WHERE id = ?",
                                    (json.dumps(seats), time.time(), table_id))])

    async def start_table(self, table_id: str, game_id: bytes, server_seed: bytes) -> None:
        await self._run(self._tx, [(
            "UPDATE tables SET game_id = ?, server_seed = ?, status = 'playing', updated = ? WHERE id = ?",
            (game_id, server_seed, time.time(), table_id))])

    async def set_status(self, table_id: str, status: str) -> None:
        await self._run(self._tx, [("UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                                    (status, time.time(), table_id))])

    async def append(self, table_id: str, n: int, kind: str, seat: int | None, data: dict,
                     status: str | None = None) -> None:
        # the row and the status in one transaction
        statements = [("INSERT INTO log (table_id, n, kind, seat, data) VALUES (?, ?, ?, ?, ?)",
                       (table_id, n, kind, seat, pack(data)))]
        if status is not None:
            statements.append(("UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                               (status, time.time(), table_id)))
        await self._run(self._tx, statements)

    # -- reads

    async def open_tables(self) -> list[TableRow]:
        return await self._run(self._tables, f"WHERE status NOT IN {FINISHED} ORDER BY created")

    async def finished_table(self, table_id: str) -> TableRow | None:
        rows = await self._run(self._tables, f"WHERE id = ? AND status IN {FINISHED}", table_id)
        return rows[0] if rows else None

    async def finished(self, limit: int) -> list[TableRow]:
        rows = await self._run(self._tables, f"WHERE status IN {FINISHED} ORDER BY created DESC LIMIT ?", limit)
        return rows[::-1]

    async def seat_of_token(self, token_hash: str) -> tuple[str, int] | None:
        for row in await self._run(self._tables, f"WHERE status IN {FINISHED} AND instr(seats, ?) > 0", token_hash):
            for i, seat in enumerate(row.seats):
                if seat["token_hash"] == token_hash:
                    return row.id, i
        return None

    def _tables(self, where: str, *args) -> list[TableRow]:
        rows = self._db.execute("SELECT id, game, options, bot, seats, game_id, server_seed, status, created"
                                " FROM tables " + where, args).fetchall()
        return [TableRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7], r[8])
                for r in rows]

    async def log(self, table_id: str) -> list[LogRow]:
        return await self._run(self._log, table_id)

    def _log(self, table_id: str) -> list[LogRow]:
        rows = self._db.execute("SELECT n, kind, seat, data FROM log WHERE table_id = ? ORDER BY n",
                                (table_id,)).fetchall()
        out = []
        for i, (n, kind, seat, data) in enumerate(rows):
            if n != i:
                raise ValueError(f"the log of table {table_id} has a gap at row {i}")
            out.append(LogRow(n, kind, seat, unpack(data)))
        return out
