"""Which server process serves which table, when several share one PostgreSQL database: a lease
per open table, the rows of `leases` (PostgreSQL only; the SQLite store has one process).

A lease names its owner (a random id the process draws when it starts), an epoch (raised at every
change of owner) and when it expires, by the database's clock (`now()`), so the processes'
clocks never need to agree. The owner renews its leases every quarter of their length. Once one
has expired, any process may take it over, and rebuilds the table from its log.

Fencing: every write of a table checks, in its own transaction and before anything else, that
this process still holds the table's lease with the epoch it was given (`fence`: once for all the
tables whose writes commit together). It locks the lease row (FOR KEY SHARE), so a takeover, which
locks the rows it takes FOR UPDATE first, passes over that table while the write commits (SKIP
LOCKED), and takes it at its next try, with the write in its log; a write that comes after a
takeover is refused with LeaseLost and changes nothing. A takeover never waits for a lock: a
process frozen inside a write (stopped with SIGSTOP, say) would otherwise hold up every takeover
of every process, its own tables' and all the others'. Its transaction is ended by PostgreSQL
after half a lease idle (postgres_store.session_settings), so its tables are free by the time
their leases run out. A process cut off from the database, or paused for longer than a lease, can therefore
never commit a move for a table another process now serves. A renewal only pushes back
`expires` (an UPDATE of no key, whose lock FOR KEY SHARE does not conflict with): it never waits
for the writes in flight, nor holds up the next ones, which FOR SHARE would make it do every
quarter of a lease for every table at once.

A table's lease is deleted in the transaction that finishes it (over or cancelled): a finished
table is never written again, and any process may read it.
"""
from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:     # the driver is an optional extra, and a SQLite server imports LeaseLost (server/table.py)
    import asyncpg


class LeaseLost(Exception):
    """This process no longer holds the lease of the table it was writing: another one serves it."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"this process no longer holds the lease of table {table_id}")
        self.table_id = table_id


class Leases:
    """This process's leases: their SQL, and the epoch of each one it holds."""

    def __init__(self, seconds: float) -> None:
        self.owner = secrets.token_hex(8)
        self.seconds = float(seconds)
        self.held: dict[str, int] = {}      # table id -> epoch

    async def create(self, db: asyncpg.Connection, table_id: str) -> None:
        """A new table's lease, this process's, in the transaction that creates the table."""
        await db.execute("INSERT INTO leases (table_id, owner, epoch, expires)"
                         " VALUES ($1, $2, 1, now() + make_interval(secs => $3))",
                         table_id, self.owner, self.seconds)

    def created(self, table_id: str) -> None:
        """... once that transaction has committed: held from now on (a renewal under way before
        the commit cannot see the new row, and would count the lease as lost)."""
        self.held[table_id] = 1

    async def fence(self, db: asyncpg.Connection, table_ids: list[str]) -> set[str]:
        """Inside a write's transaction, first: those of the tables whose lease this process no
        longer holds (forgotten). The others' leases stay locked against a takeover until the
        transaction ends; they are locked in the order of their ids, as a takeover locks them, so
        that neither waits for the other while holding what the other waits for."""
        asked = {tid: self.held.get(tid) for tid in table_ids}
        held = {}
        if any(epoch is not None for epoch in asked.values()):
            held = dict(await db.fetch(
                "SELECT table_id, epoch FROM leases WHERE table_id = ANY($1) AND owner = $2 AND expires > now()"
                " ORDER BY table_id FOR KEY SHARE", [tid for tid, epoch in asked.items() if epoch is not None],
                self.owner))
        lost = {tid for tid, epoch in asked.items() if epoch is None or held.get(tid) != epoch}
        for tid in lost:
            if self.held.get(tid) == asked[tid]:
                self.held.pop(tid, None)
        return lost

    async def finish(self, db: asyncpg.Connection, table_ids: list[str]) -> None:
        """The write that finishes these tables lets go of their leases (committed with it)."""
        await db.execute("DELETE FROM leases WHERE table_id = ANY($1)", table_ids)

    def finished(self, table_id: str) -> None:
        """... once that write has committed."""
        self.held.pop(table_id, None)

    async def release(self, db: asyncpg.Connection) -> None:
        """This process stops serving its tables: their leases expire now, for others to take."""
        await db.execute("UPDATE leases SET expires = '-infinity' WHERE owner = $1", self.owner)
        self.held = {}

    def drop_all(self) -> list[str]:
        """Forget every lease held (they ran out unrenewed); the ids of their tables."""
        ids, self.held = list(self.held), {}
        return ids

    async def renew(self, db: asyncpg.Connection) -> list[str]:
        """Push back the expiry of every lease this process holds; the ids of the tables it
        thought it held and no longer does (taken over, or finished meanwhile)."""
        # only those it holds (see hold), as they are now: a lease held or finished while the
        # UPDATE runs is none of its business
        asked = dict(self.held)
        rows = await db.fetch("UPDATE leases SET expires = now() + make_interval(secs => $2)"
                              " WHERE owner = $1 AND table_id = ANY($3) AND expires > now() RETURNING table_id, epoch",
                              self.owner, self.seconds, list(asked))
        still = {r["table_id"]: r["epoch"] for r in rows}
        lost = [tid for tid, epoch in asked.items() if still.get(tid) != epoch and self.held.get(tid) == epoch]
        for tid in lost:
            del self.held[tid]
        return lost

    async def take_expired(self, db: asyncpg.Connection) -> dict[str, int]:
        """Take over every expired lease of an open table (a new epoch each): table id -> epoch,
        held once `hold` is told (when the tables are read, and about to be served). The leases
        are locked FOR UPDATE first; one a write in flight holds (its fence's lock), or another
        takeover, is passed over, for a later try: none is ever waited for. Two processes at it
        together never take the same one."""
        async with db.transaction():
            expired = [r[0] for r in await db.fetch(
                "SELECT l.table_id FROM leases l JOIN tables t ON t.id = l.table_id"
                " WHERE t.status NOT IN ('over', 'cancelled') AND l.expires <= now()"
                " ORDER BY l.table_id FOR UPDATE OF l SKIP LOCKED")]
            if not expired:
                return {}
            rows = await db.fetch(
                "UPDATE leases SET owner = $1, epoch = epoch + 1, expires = now() + make_interval(secs => $2)"
                " WHERE table_id = ANY($3) RETURNING table_id, epoch", self.owner, self.seconds, expired)
        return {r["table_id"]: r["epoch"] for r in rows}

    def hold(self, taken: dict[str, int]) -> None:
        """These leases are this process's now, renewed and checked by its writes. (A takeover
        cut short before this leaves leases that run out unrenewed, and are taken again.)"""
        self.held.update(taken)
