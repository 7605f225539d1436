"""A server process among others on one PostgreSQL database: it keeps the leases of the tables it
serves, hands over those it lost, takes over those whose owner went away (server/leases.py), and
knows the open tables the others serve, for the lobby and for redirects.

Every quarter of a lease it renews its own row in `processes` (alive, at its public address) and
its leases, and stops serving any table whose lease it no longer holds (its clients are told to
connect again, see Table.hand_over); then it takes over every open table whose lease expired and
rebuilds it from its log; then it reads the open tables of the others, which the lobby lists (a
table created elsewhere is listed here within a renewal), and the addresses of the live
processes, which its welcome tells clients (to come back through when the one they used is
gone). When the database cannot be reached, it keeps trying; once its leases have run out
unrenewed it stops serving their tables, as another process may serve them by then (fencing
refuses its writes in any case).
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from protocol.signing import from_pem

from .postgres_store import PostgresStore
from .table_core import summary_of

if TYPE_CHECKING:
    from .hosts import ClusterHost

log = logging.getLogger("governor.server")


class Cluster:
    def __init__(self, server: ClusterHost, store: PostgresStore) -> None:
        self.server = server
        self.store = store
        self.every = store.leases.seconds / 4
        self.url = ""     # this process's public address, known once it listens
        self.elsewhere: list[tuple[float, dict]] = []     # (created, lobby entry) of the others' open tables
        self.urls: list[str] = []     # the public addresses of the live processes, this one's too
        self.renewed = time.monotonic()     # when the last renewal of the leases began
        self._task: asyncio.Task | None = None
        self._taking = True     # tables whose lease expired are taken over, until the server stops

    async def start(self) -> None:
        """Sign with the database's key; take over the tables no live process serves (all of them
        for the first process). Before the server listens."""
        pem = await self.store.server_key(self.server.signer.pem())
        self.server.signer = from_pem(pem, "the database's server_key")
        await self.take_over()

    async def run(self, url: str) -> None:
        """Once the server listens at `url` (its public address): say so, and keep the leases in
        the background."""
        self.url = url
        await self._renew()
        self._task = asyncio.get_running_loop().create_task(self._keep())

    def stop(self) -> None:
        """The server is stopping: it takes no table over and is given no new one from now on
        (other processes no longer count it alive). It still renews the leases it holds, until
        `release`: its tables' last moves are committed under them, however long its
        connections take to close."""
        self._taking = False

    async def release(self) -> None:
        """Once the server's tables are stopped: keep the leases no more, and let them go at once,
        for the others to take."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        try:
            await self.store.gone()
        except Exception as e:   # they run out by themselves
            log.warning("could not let go of this process's tables: %r", e)

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                # a renewal that hangs (a database unreachable, or locked) is cut short; in this
                # task, not another (as wait_for would), so that release's cancel is never lost
                async with asyncio.timeout(self.every):
                    await self._renew()
            except asyncio.CancelledError:
                if asyncio.current_task().cancelling():
                    raise       # release: the leases are let go
                # a lobby read cut short by the server stopping (PostgresStore.stop_reading)
            except Exception as e:   # the database is away: try again; give up the tables in time
                log.warning("the leases could not be renewed: %r", e)
            if time.monotonic() - self.renewed >= self.store.leases.seconds:
                for table_id in self.store.leases.drop_all():
                    self._hand_over(table_id, "its lease ran out unrenewed")

    async def _renew(self) -> None:
        began = time.monotonic()
        lost = await self.store.renew(self.url, stopping=not self._taking)
        # The leases now run a lease from `began` at least, whatever holds up the rest: a slow
        # takeover or lobby read must not make the process give up tables it still holds.
        self.renewed = began
        for table_id in lost:
            self._hand_over(table_id, "its lease was taken over")
        if not self._taking:    # the server is stopping: it keeps its leases, and reads no more
            return
        await self.take_over()
        self.elsewhere = [(row.created, summary_of(row)) for row in await self.store.open_elsewhere()
                          if not row.private]
        self.urls = await self.store.live_urls()

    async def take_over(self) -> None:
        """Serve every open table whose lease has expired: at every renewal, and at once when a
        client asks for one; not once the server is stopping."""
        if not self._taking:
            return
        for row in await self.store.take_expired():
            if row.id in self.server.tables:   # still here from before its lease ran out: build it anew
                self.server.tables[row.id].hand_over()
            self.server.metrics.lease_takeovers += 1
            log.info("table %s taken over (its lease had expired)", row.id, extra={"table": row.id})
            self.server.adopt(row).ensure_running()

    async def find(self, table_id: str):
        """An open table this process does not have in memory: (the table, when this process
        has just taken it over, else None; the address of the live process that serves it, ""
        while it moves to another, None when this process has it or it is no open table)."""
        url = await self.store.owner_url(table_id)
        if url == "":   # it moves: this process takes it, if it is free
            await self.take_over()
            table = await self.server.table(table_id)
            if table is not None:
                return table, None
            url = await self.store.owner_url(table_id)
        return None, url

    async def place(self) -> str | None:
        """Where a new table goes: the address of the live process that holds the fewest tables,
        or None when this one does (on a tie too)."""
        return await self.store.least_loaded()

    def _hand_over(self, table_id: str, why: str) -> None:
        table = self.server.tables.get(table_id)
        if table is not None:
            log.warning("table %s handed over: %s", table_id, why, extra={"table": table_id})
            table.hand_over()
