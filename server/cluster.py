"""A server process among others on one PostgreSQL database: it keeps the leases of the tables it
serves, hands over those it lost, and takes over those whose owner went away (server/leases.py).

Every quarter of a lease it renews its leases, and stops serving any table whose lease it no
longer holds (its clients are told to connect again, see Table.hand_over); then it takes over
every open table whose lease expired and rebuilds it from its log. When the database cannot be
reached, it keeps trying; once its leases have run out unrenewed it stops serving their tables,
as another process may serve them by then (fencing refuses its writes in any case).
"""
from __future__ import annotations

import asyncio
import logging
import time

from .postgres_store import PostgresStore

log = logging.getLogger("governor.server")


class Cluster:
    def __init__(self, server, store: PostgresStore) -> None:
        self.server = server
        self.store = store
        self.every = store.leases.seconds / 4
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        """Take over the tables no live process serves (all of them for the first process), then
        keep the leases in the background."""
        await self._take_over()
        self._task = asyncio.get_running_loop().create_task(self._keep())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _keep(self) -> None:
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(self.every)
            try:
                lost = await self.store.renew()
                renewed = time.monotonic()
                for table_id in lost:
                    self._hand_over(table_id, "its lease was taken over")
                await self._take_over()
            except Exception as e:   # the database is away: try again; give up the tables in time
                log.warning("the leases could not be renewed: %s", e)
                if time.monotonic() - renewed >= self.store.leases.seconds:
                    for table_id in list(self.store.leases.held):
                        del self.store.leases.held[table_id]
                        self._hand_over(table_id, "its lease ran out unrenewed")

    async def _take_over(self) -> None:
        for row in await self.store.take_expired():
            if row.id in self.server.tables:   # still here from before its lease ran out: build it anew
                self.server.tables[row.id].hand_over()
            self.server.metrics.lease_takeovers += 1
            log.info("table %s taken over (its lease had expired)", row.id, extra={"table": row.id})
            self.server.adopt(row).ensure_running()

    async def served_elsewhere(self, token_hash: str) -> str | None:
        """The open table of this seat token when another process serves it (or will, once its
        lease runs out and one of them takes it over); None when no open table has the token."""
        return await self.store.open_table_of_token(token_hash)

    def _hand_over(self, table_id: str, why: str) -> None:
        table = self.server.tables.get(table_id)
        if table is not None:
            log.warning("table %s handed over: %s", table_id, why, extra={"table": table_id})
            table.hand_over()
