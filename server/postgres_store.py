"""The store in a PostgreSQL database: PostgresStore, the server's Store (server/store.py) when it
is started with `--database postgresql://…`, and the only code that touches that database.

It keeps what the SQLite store keeps (server/sqlite_store.py), in the same shape: `tables` (one
row a table: game, options, seats, game id, server seed, blind and the deal seed, status), `log` (every accepted input of
a table, in order).

The Store's guarantees, and how they are kept here:
- Every write is committed before it returns. The writes asked for in one turn of the event loop,
  or while every writing connection is busy, are committed together in one transaction (as the
  SQLite store does): one fence for all their tables, their log rows in one INSERT, their
  statuses in one UPDATE, one COMMIT. Up to WRITERS such groups commit at once, each on a
  connection of its own, and PostgreSQL flushes their commits together. Each connection sets
  `synchronous_commit = on`, whatever the database's default, so a commit that returned is on
  PostgreSQL's disk: a killed server, or a killed database server, loses no accepted move.
- A write the database refuses fails alone: its group is committed again one write at a time. A
  write of a table whose lease this process lost fails alone too (LeaseLost), and writes nothing.
- The writes of one table keep their order: a table's write waits while a group commits an
  earlier one, and within a group the writes are carried out in the order they were asked for.
- Reads never wait behind writes: they have a pool of connections of their own, so writes held up
  never hold up a read.
- A process frozen inside a transaction (stopped, paused) holds its locks for half a lease at
  most: every connection sets PostgreSQL's timeouts for an idle transaction and a lock wait
  (session_settings), and a takeover skips the leases locked meanwhile.

Schema versions: `schema_version` holds one row per migration applied; `MIGRATIONS` is the
ordered list of them, and `open` applies the missing ones, each in one transaction, under an
advisory lock so that two servers starting together never migrate twice. A database written by a
newer server is refused.

Several server processes may share one database: each open table is served by the one process
that holds its lease, and every write checks that lease in its own transaction (server/leases.py).
`take_expired` is how a process comes to serve tables: at start, and whenever another process's
leases expire (it died, or lost the database); `renew` keeps this process's.
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import asyncpg

from protocol.codec import pack, unpack

from .leases import LeaseLost, Leases
from .settings import redacted
from .store import LogRow, TableRow

# The advisory lock key (any fixed 64-bit number, the same in every Governor server).
MIGRATION_LOCK = 0x676f76_0001    # held while the schema is brought up to date

FINISHES = ("over", "cancelled")     # the statuses of finished tables
FINISHED = "(" + ", ".join(f"'{s}'" for s in FINISHES) + ")"    # the same, in SQL
WRITERS = 4      # groups of writes committed at once (PostgreSQL flushes their commits together)
READERS = 4      # connections for reads, never taken by a write

# MIGRATIONS[i] brings a database from version i to i + 1 (version 0: empty).
MIGRATIONS = [
    # 1: the tables, their logs and the index of seat tokens; tables found by status.
    """
    CREATE TABLE tables (
        id          TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        options     JSONB NOT NULL,
        bot         TEXT NOT NULL,               -- level of computer seats and stand-ins
        seats       JSONB NOT NULL,              -- [{name, player_id, token_hash, bot}] (key since 7)
        game_id     BYTEA,
        server_seed BYTEA,
        status      TEXT NOT NULL,               -- waiting | playing | over | cancelled
        created     DOUBLE PRECISION NOT NULL,   -- seconds since the epoch, as TableRow.created
        updated     DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX tables_by_status ON tables (status, created);
    CREATE TABLE log (
        table_id    TEXT NOT NULL REFERENCES tables (id),
        n           INTEGER NOT NULL,            -- 0, 1, 2, ... per table
        kind        TEXT NOT NULL,               -- commit | reveal | act | cancel
        seat        INTEGER,
        data        BYTEA NOT NULL,              -- msgpack map
        PRIMARY KEY (table_id, n)
    );
    CREATE TABLE seat_tokens (
        token_hash  TEXT PRIMARY KEY,            -- SHA-256 of the seat token, as in the seats of `tables`
        table_id    TEXT NOT NULL REFERENCES tables (id),
        seat        INTEGER NOT NULL
    );
    CREATE INDEX seat_tokens_by_table ON seat_tokens (table_id);
    """,
    # 2: a lease per open table (server/leases.py); the open tables of a database written before
    # get one that has already expired, so the first process to start takes them over.
    """
    CREATE TABLE leases (
        table_id    TEXT PRIMARY KEY REFERENCES tables (id),
        owner       TEXT NOT NULL,               -- the id the owning process drew when it started
        epoch       BIGINT NOT NULL,             -- raised at every change of owner
        expires     TIMESTAMPTZ NOT NULL         -- by the database's clock
    );
    CREATE INDEX leases_by_owner ON leases (owner);
    INSERT INTO leases (table_id, owner, epoch, expires)
        SELECT id, '', 0, '-infinity' FROM tables WHERE status NOT IN ('over', 'cancelled');
    """,
    # 3: the server processes, each with the address its players reach it at, alive while it
    # renews its row with its leases; the key every process of the database signs with.
    """
    CREATE TABLE processes (
        id          TEXT PRIMARY KEY,            -- as leases.owner
        url         TEXT NOT NULL,               -- its public address (ws:// or wss://)
        expires     TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE server_key (
        single      BOOLEAN PRIMARY KEY DEFAULT true CHECK (single),   -- one row
        pem         BYTEA NOT NULL               -- the Ed25519 private key, PKCS#8 PEM
    );
    """,
    # 4: when each process last renewed its row: new tables go only to a process that did within
    # half its lease (a killed process's row looks alive until its lease runs out).
    """
    ALTER TABLE processes ADD COLUMN renewed TIMESTAMPTZ NOT NULL DEFAULT now();
    """,
    # 5: tables the lobby does not list (TableRow.private); every table before was listed.
    """
    ALTER TABLE tables ADD COLUMN private BOOLEAN NOT NULL DEFAULT false;
    """,
    # 6: when each match started and whether it is rated (TableRow.started, TableRow.rated): the
    # signed header of a bgfair/v2 match names both, and a rebuilt match must sign the same one.
    """
    ALTER TABLE tables ADD COLUMN started BIGINT;
    ALTER TABLE tables ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
    """,
    # 7: seats are claimed with the player's key (docs/fairness.md §9), not a token, and each
    # seat's key is kept with it in `seats` ({name, player_id, key (hex), bot}): the index of
    # tokens goes.
    """
    DROP TABLE seat_tokens;
    """,
    # 8: tables dealt blind (TableRow.blind) and the server's deal seed of their match
    # (TableRow.deal_seed, secret like the server seed); every table before was open.
    """
    ALTER TABLE tables ADD COLUMN blind BOOLEAN NOT NULL DEFAULT false;
    ALTER TABLE tables ADD COLUMN deal_seed BYTEA;
    """,
]
VERSION = len(MIGRATIONS)


@dataclass
class Write:
    """One write asked of the store: `statements` carried out one after the other (a new table,
    seats, a start), or a log row and a status, carried out with those of the other tables."""
    table_id: str
    statements: list[tuple[str, tuple]] = field(default_factory=list)
    row: tuple | None = None            # (table id, n, kind, seat, data): a log row
    status: str | None = None           # the table's new status
    new: bool = False                   # the statements create the table (and its lease)
    done: asyncio.Future | None = None  # its outcome, once its group has committed


class PostgresStore:
    """The Store of server/store.py in PostgreSQL, at `url` (postgresql://user:password@host/db),
    for a process whose leases last `lease` seconds."""

    def __init__(self, url: str, lease: float = 8.0) -> None:
        self.url = url
        self.leases = Leases(lease)
        self._writers: asyncpg.Pool | None = None
        self._readers: asyncpg.Pool | None = None
        self._pending: list[Write] = []                     # writes not yet in a group
        self._groups: set[asyncio.Task] = set()             # the groups being committed
        self._writing: set[str] = set()                     # the tables they write
        self._starting = False                              # _start_groups is due at the next turn
        self._reads: set[asyncio.Task] = set()              # reads asked for and not answered
        self._reading = True                                # until stop_reading
        self._closing = False                               # close or gone has begun: no more writes

    async def open(self) -> None:
        """Connect and bring the schema up to date. Raises RuntimeError naming what is wrong when
        it cannot be done."""
        try:
            session = session_settings(self.leases.seconds)
            # the migration's advisory lock may wait for another server's migration, however long
            db = await asyncpg.connect(self.url, server_settings={**session, "lock_timeout": "0"})
            try:
                await migrate(db)
            finally:
                await db.close()
            self._writers = await asyncpg.create_pool(self.url, min_size=1, max_size=WRITERS, init=_codecs,
                                                      reset=_as_it_was,
                                                      server_settings={**session, "synchronous_commit": "on"})
            self._readers = await asyncpg.create_pool(self.url, min_size=1, max_size=READERS, init=_codecs,
                                                      reset=_as_it_was, server_settings=session)
        except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            await self.close()
            raise RuntimeError(f"cannot open the database {redacted(self.url)}: {e}") from None
        except BaseException:
            await self.close()
            raise

    def stop_reading(self) -> None:
        self._reading = False
        for task in list(self._reads):
            task.cancel()               # asyncpg asks PostgreSQL to cancel the query under way

    async def close(self) -> None:
        self._closing = True
        self.stop_reading()
        await self._finish_writes()
        for pool in (self._writers, self._readers):
            if pool is not None:
                await pool.close()
        self._writers = self._readers = None

    async def _finish_writes(self) -> None:
        """Every write asked for is committed (or refused), those of this turn of the loop too,
        whether or not its caller still waits for it."""
        while self._groups or self._pending:
            if not self._groups:
                self._start_groups()
            await asyncio.wait(set(self._groups))

    async def _write(self, write: Write) -> None:
        """Committed when this returns, with other writes asked for meanwhile (see _start_groups)."""
        if self._closing:
            raise RuntimeError("the store is closing: no more writes")
        loop = asyncio.get_running_loop()
        write.done = loop.create_future()
        self._pending.append(write)
        if not self._starting:     # at the next turn of the loop: that turn's writes join
            self._starting = True
            loop.call_soon(self._start_groups)
        await write.done

    def _start_groups(self) -> None:
        """Commit the writes asked for in a group, on a writing connection of its own, while one
        is free: all of them but those of a table whose earlier write a group commits now (they
        wait for it, and go in a later group, in order)."""
        self._starting = False
        while self._pending and len(self._groups) < WRITERS:
            group = [w for w in self._pending if w.table_id not in self._writing]
            if not group:
                return
            self._pending = [w for w in self._pending if w.table_id in self._writing]
            tables = {w.table_id for w in group}
            self._writing |= tables
            task = asyncio.get_running_loop().create_task(self._commit_group(group, tables))
            self._groups.add(task)
            task.add_done_callback(self._groups.discard)

    async def _commit_group(self, group: list[Write], tables: set[str]) -> None:
        outcomes = await self._commit(group)
        self._writing -= tables
        for write, outcome in zip(group, outcomes):
            if write.done.done():
                continue   # its caller stopped waiting
            if outcome is None:
                write.done.set_result(None)
            else:
                write.done.set_exception(outcome)
        self._start_groups()

    async def _commit(self, group: list[Write]) -> list[Exception | None]:
        """The group in one transaction; what became of each write (None: committed). When the
        database refuses a statement, each write is committed again in a group of its own, so
        that the one refused fails alone."""
        try:
            async with self._writers.acquire() as db:
                async with db.transaction():
                    outcomes = await self._carry_out(db, group)
        except asyncpg.PostgresError as e:
            if len(group) == 1:
                return [e]
            return [(await self._commit([write]))[0] for write in group]
        except Exception as e:     # the database is out of reach: the group is not committed
            return [e] * len(group)
        for write, outcome in zip(group, outcomes):
            if outcome is None and write.new:
                self.leases.created(write.table_id)
            if outcome is None and write.status in FINISHES:
                self.leases.finished(write.table_id)
        return outcomes

    async def _carry_out(self, db: asyncpg.Connection, group: list[Write]) -> list[Exception | None]:
        """Inside the group's transaction: fence its tables (but those it creates), then carry out
        the writes of the tables still held, in order; what became of each."""
        first = {}
        for write in group:
            first.setdefault(write.table_id, write)
        shut = await self.leases.fence(db, [tid for tid, write in first.items() if not write.new])
        outcomes: list[Exception | None] = []
        batch: list[Write] = []      # log rows and statuses of different tables, written together
        batched: set[str] = set()    # their tables
        for write in group:
            if write.table_id in shut:
                outcomes.append(LeaseLost(write.table_id))
                continue
            if write.table_id in batched:    # its table's earlier write first
                await self._write_batch(db, batch)
                batch, batched = [], set()
            if write.statements:
                for sql, args in write.statements:
                    await db.execute(sql, *args)
                if write.new:
                    await self.leases.create(db, write.table_id)
            else:
                batch.append(write)
                batched.add(write.table_id)
            if write.status in FINISHES:    # its lease goes with the batch: nothing more may be written
                shut.add(write.table_id)
            outcomes.append(None)
        await self._write_batch(db, batch)
        return outcomes

    async def _write_batch(self, db: asyncpg.Connection, batch: list[Write]) -> None:
        """The log rows and statuses of these writes, each of another table, in one statement each;
        the leases of the tables they finish let go of."""
        rows = [write.row for write in batch if write.row is not None]
        if rows:
            await db.execute("INSERT INTO log (table_id, n, kind, seat, data)"
                             " SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::integer[], $5::bytea[])",
                             *map(list, zip(*rows)))
        statuses = [(write.table_id, write.status) for write in batch if write.status is not None]
        if statuses:
            ids, values = map(list, zip(*statuses))
            await db.execute("UPDATE tables SET status = u.status, updated = $3"
                             " FROM unnest($1::text[], $2::text[]) AS u (id, status) WHERE tables.id = u.id",
                             ids, values, time.time())
        finishing = [tid for tid, status in statuses if status in FINISHES]
        if finishing:
            await self.leases.finish(db, finishing)

    # -- the cluster's (server/cluster.py)

    async def server_key(self, candidate: bytes) -> bytes:
        """The key every process of this database signs with, in PEM: `candidate` if none was
        stored yet (the first process's), else the one stored."""
        async with self._readers.acquire() as db:
            await db.execute("INSERT INTO server_key (pem) VALUES ($1) ON CONFLICT DO NOTHING", candidate)
            return await db.fetchval("SELECT pem FROM server_key")

    async def renew(self, url: str, stopping: bool = False) -> list[str]:
        """This process is alive at `url` (or `stopping`: no longer, for placement and the
        addresses clients are given); renew its leases. The tables it no longer holds."""
        async with self._readers.acquire() as db:
            if stopping:
                await db.execute("UPDATE processes SET expires = now(), renewed = now() WHERE id = $1",
                                 self.leases.owner)
            else:
                await db.execute("INSERT INTO processes (id, url, expires, renewed)"
                                 " VALUES ($1, $2, now() + make_interval(secs => $3), now()) ON CONFLICT (id)"
                                 " DO UPDATE SET url = EXCLUDED.url, expires = EXCLUDED.expires,"
                                 " renewed = EXCLUDED.renewed", self.leases.owner, url, self.leases.seconds)
            return await self.leases.renew(db)

    async def gone(self) -> None:
        """This process stops, its tables stopped: it takes no more writes, it is no longer alive,
        and its leases are free. The writes asked for before are committed first, while the
        leases still let them: a write still queued (every writing connection busy) or not yet
        past its fence would otherwise be refused, and the move it holds lost."""
        self._closing = True
        await self._finish_writes()
        async with self._readers.acquire() as db:
            async with db.transaction():
                await db.execute("DELETE FROM processes WHERE id = $1", self.leases.owner)
                await self.leases.release(db)

    async def open_elsewhere(self) -> list[TableRow]:
        """The open tables other processes hold the lease of (or held it, until one takes it over)."""
        return await self._tables(f"WHERE status NOT IN {FINISHED} AND id NOT IN (SELECT table_id FROM leases"
                                  f" WHERE owner = $1) ORDER BY created", self.leases.owner)

    async def live_urls(self) -> list[str]:
        """The public addresses of the live processes (this one's among them), in order."""
        rows = await self._read("fetch", "SELECT url FROM processes WHERE expires > now() ORDER BY url")
        return [r[0] for r in rows]

    async def least_loaded(self) -> str | None:
        """The public address of the process that holds the fewest leases among those that
        renewed within half their lease (a killed one is left out within half a lease), when it
        is not this one (a tie goes to this one); None when this one holds the fewest."""
        row = await self._read(
            "fetchrow", "SELECT p.id = $1, p.url FROM processes p LEFT JOIN leases l ON l.owner = p.id"
            " AND l.expires > now() WHERE now() < p.renewed + (p.expires - p.renewed) / 2 GROUP BY p.id, p.url"
            " ORDER BY count(l.table_id), p.id <> $1, p.id LIMIT 1", self.leases.owner)
        return None if row is None or row[0] else row[1]

    async def owner_url(self, table_id: str) -> str | None:
        """The address of the live process that serves this open table; "" when its lease has
        run out (a process takes it over within a renewal) or this process has just taken it
        (and is still reading it); None when it is no open table."""
        row = await self._read(
            "fetchrow", "SELECT l.owner = $2 OR l.expires <= now() OR p.expires IS NULL OR p.expires <= now(), p.url"
            " FROM leases l LEFT JOIN processes p ON p.id = l.owner WHERE l.table_id = $1",
            table_id, self.leases.owner)
        if row is None:
            return None
        return "" if row[0] else row[1]

    async def take_expired(self) -> list[TableRow]:
        """Take over the open tables whose lease expired; their rows."""
        async with self._readers.acquire() as db:
            taken = await self.leases.take_expired(db)
        if not taken:
            return []
        rows = await self._tables("WHERE id = ANY($1) ORDER BY created", list(taken))
        self.leases.hold(taken)
        return rows

    # -- writes

    async def create_table(self, row: TableRow) -> None:
        now = time.time()
        await self._write(Write(row.id, [(
            "INSERT INTO tables (id, game, options, bot, seats, game_id, server_seed, status, created, updated,"
            " private, rated, started, blind, deal_seed)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
            (row.id, row.game, row.options, row.bot, row.seats, row.game_id, row.server_seed, row.status,
             now, now, row.private, row.rated, row.started, row.blind, row.deal_seed))], new=True))

    async def update_seats(self, table_id: str, seats: list[dict]) -> None:
        await self._write(Write(table_id, [("UPDATE tables SET seats = $1, updated = $2 WHERE id = $3",
                                            (seats, time.time(), table_id))]))

    async def start_table(self, table_id: str, game_id: bytes, server_seed: bytes, started: int | None = None,
                          deal_seed: bytes | None = None) -> None:
        await self._write(Write(table_id, [(
            "UPDATE tables SET game_id = $1, server_seed = $2, started = $3, deal_seed = $4, status = 'playing',"
            " updated = $5 WHERE id = $6", (game_id, server_seed, started, deal_seed, time.time(), table_id))]))

    async def set_status(self, table_id: str, status: str) -> None:
        await self._write(Write(table_id, status=status))

    async def append(self, table_id: str, n: int, kind: str, seat: int | None, data: dict,
                     status: str | None = None) -> None:
        await self._write(Write(table_id, row=(table_id, n, kind, seat, pack(data)), status=status))

    # -- reads (on the readers' pool)

    async def open_tables(self) -> list[TableRow]:
        return await self._tables(f"WHERE status NOT IN {FINISHED} ORDER BY created")

    async def finished_table(self, table_id: str) -> TableRow | None:
        rows = await self._tables(f"WHERE id = $1 AND status IN {FINISHED}", table_id)
        return rows[0] if rows else None

    async def finished(self, limit: int) -> list[TableRow]:
        rows = await self._tables(f"WHERE status IN {FINISHED} ORDER BY created DESC LIMIT $1", limit)
        return rows[::-1]

    async def _tables(self, where: str, *args) -> list[TableRow]:
        rows = await self._read("fetch", "SELECT id, game, options, bot, seats, game_id, server_seed, status,"
                                         " created, private, rated, started, blind, deal_seed FROM tables " + where,
                                *args)
        return [TableRow(*r) for r in rows]

    async def _read(self, how: str, query: str, *args):
        """A query on the readers' pool that stop_reading can end (CancelledError)."""
        if not self._reading:
            raise asyncio.CancelledError("the server is stopping")
        task = asyncio.ensure_future(getattr(self._readers, how)(query, *args))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)
        return await task

    async def log(self, table_id: str) -> list[LogRow]:
        rows = await self._read("fetch", "SELECT n, kind, seat, data FROM log WHERE table_id = $1 ORDER BY n",
                                         table_id)
        out = []
        for i, (n, kind, seat, data) in enumerate(rows):
            if n != i:
                raise ValueError(f"the log of table {table_id} has a gap at row {i}")
            out.append(LogRow(n, kind, seat, unpack(data)))
        return out


def session_settings(lease: float) -> dict[str, str]:
    """What every connection of a process whose leases last `lease` seconds sets, so that a
    process frozen in the middle of a transaction (stopped, paused, its machine gone) holds no
    lock for long: PostgreSQL ends a session left idle inside a transaction, and a statement that
    waits for a lock, after half a lease (its transaction is rolled back, its locks let go), and
    notices within a lease that the machine at the other end of a connection is gone (TCP
    keepalives, on TCP connections). A takeover then finds the frozen process's leases free by
    the time they run out. (Values in milliseconds and seconds, as PostgreSQL takes them.)"""
    half = max(1, round(lease * 500))
    return {
        "lock_timeout": str(half),
        "idle_in_transaction_session_timeout": str(half),
        "tcp_keepalives_idle": str(max(1, round(lease / 2))),
        "tcp_keepalives_interval": str(max(1, round(lease / 4))),
        "tcp_keepalives_count": "2",
    }


async def _codecs(db: asyncpg.Connection) -> None:
    """JSONB columns read and written as Python values."""
    await db.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


async def _as_it_was(db: asyncpg.Connection) -> None:
    """A connection goes back to its pool as it is (asyncpg still rolls back a transaction left
    open): the store never changes a session's settings, cursors or locks, so asyncpg's reset
    query would cost every write and read a round trip for nothing."""


async def migrate(db: asyncpg.Connection) -> None:
    """Bring the database up to VERSION, one migration and one transaction at a time; refuse a
    database written by a newer server (it would not know what that one keeps)."""
    while True:
        async with db.transaction():
            # held until the transaction ends: a second server starting now waits here, then
            # finds the migration done
            await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await db.execute("CREATE TABLE IF NOT EXISTS schema_version ("
                             " version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())")
            version = await db.fetchval("SELECT coalesce(max(version), 0) FROM schema_version")
            if version > VERSION:
                raise RuntimeError(f"the database was written by a newer server (schema {version}; "
                                   f"this one knows up to {VERSION})")
            if version == VERSION:
                return
            await db.execute(MIGRATIONS[version])
            await db.execute("INSERT INTO schema_version (version) VALUES ($1)", version + 1)
