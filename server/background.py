"""Work on a thread of its own that a stopping server drops: replaying a finished match, reading
the database.

No accepted move waits for such work (a move waits only for the store's writer, which a shutdown
lets finish), so a shutdown waits for none of it either: `cut` ends every wait at once, work not
begun never begins, and the work under way ends on its thread for nobody, or sooner where its
owner can interrupt it (SQLite reads can be: server/sqlite_store.py). A long replay or read once
held `Server.stop` until it was done.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Callable


class Background:
    def __init__(self, name: str) -> None:
        self.name = name
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._waits: set[asyncio.Future] = set()   # the work asked for and not done yet
        self.cut_off = False

    async def run(self, fn: Callable, *args):
        """fn(*args) on the thread, once the work asked for before it is done. Raises
        CancelledError if the server stops first (or has stopped)."""
        if self.cut_off:
            raise asyncio.CancelledError(f"{self.name}: the server is stopping")
        future = asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)
        self._waits.add(future)
        future.add_done_callback(self._waits.discard)
        return await future

    def cut(self) -> None:
        """Every wait ends now, with CancelledError; work not begun never begins."""
        self.cut_off = True
        for future in list(self._waits):
            future.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def ended(self, interrupt: Callable[[], None]) -> None:
        """Once cut: wait until the work under way, if any, is over, interrupting it meanwhile
        (again and again: it may not have reached the point where it can be interrupted)."""
        joined = asyncio.ensure_future(asyncio.to_thread(self._pool.shutdown))
        while not joined.done():
            interrupt()
            await asyncio.wait({joined}, timeout=0.01)
