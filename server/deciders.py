"""Computer players' decisions, made outside the event loop.

A bot sees only its seat's view (prompt included) and is made fresh for every decision with
`bots.make(game, level, seed)`. Searching bots (`bots.SEARCHING`) are CPU-bound, so by default
their decisions run in a pool of worker processes, never on the event loop (a thread pool is
available for embedding and tests: `processes=False`). The other levels decide in a fraction of a
millisecond (docs/hosting.md, `bot_answer`): they are decided in a thread of this process at once,
so that they never wait behind a search.

The workers are shared fairly. Each searching decision belongs to an owner (the client that created its
table). A free worker goes to the waiting owner served longest ago (a newcomer first), and no
owner has more than all workers but one thinking at once while another owner waits. So one client with a dozen
tables of searching bots queues behind itself, and another table's bot waits at most for one
decision to finish, never for the whole queue. (The pool's own queue is FIFO: decisions are
handed to it only when a worker is free.)

A decision the pool cannot make (a worker died, which breaks the whole ProcessPoolExecutor and
every decision in it; or workers that cannot start) is made again on a fresh pool (started once,
however many decisions report the same broken pool), and then, if that fails too, in a thread of
this process. Every such failure is logged at error level and counted (/metrics). A decision
that still fails, or whose bot raised (the same bot on the same view and seed would raise again,
so that is not retried), raises BotFailed, whose `public` words say why without telling anything
the bot saw; its table says so to everyone at it and plays a random legal move
(server/table_core.py). After two pools have failed, decisions are made in threads from then on.

Workers are spawned, and multiprocessing's resource tracker, which every spawned worker needs,
is handed this process's standard error. Under the full-screen client, sys.stderr is Textual's
capture, whose fileno() is -1, and the tracker could not start; so it is started with the
process's real standard error (`_tracker_running`).
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from contextlib import contextmanager
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker

import bots

log = logging.getLogger("governor.server")

WORKER_NICENESS = 10   # how much lower than the server's a bot worker's CPU priority is


def _start_worker(parent: int) -> None:
    """Runs in each worker as it starts. It thinks at a lower priority than the server, so that a
    machine busy with bots still answers every table's commands at once (the event loop is
    scheduled before any thinking). It ignores Ctrl-C: a Ctrl-C at the terminal reaches every
    process of its group, and the server, which got it too, stops its workers (else each prints
    a KeyboardInterrupt traceback). And it exits when the server is gone (even killed with
    SIGKILL, which gives it no chance to stop its pool), instead of lingering as an orphan.
    Last, it loads the games and bots and settles its heap (server/heap.py), so that no full
    garbage collection walks the modules in the middle of a bot's timed decision."""
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(WORKER_NICENESS)
    except OSError:   # not allowed here: think at the server's priority
        pass

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="governor-parent-watch", daemon=True).start()

    import bots  # noqa: F401  (every game's rules and bots, imported once and frozen with the rest)

    from . import heap
    heap.settle_worker()


@contextmanager
def _born_ignoring_ctrl_c():
    """Worker processes started in here begin life with Ctrl-C ignored (an ignored signal stays
    ignored through exec, and Python leaves an ignored SIGINT alone as it starts), so that a
    Ctrl-C that comes while a worker is still starting, before _start_worker runs, prints no
    traceback either. Only the main thread may change a handler; a Ctrl-C in the few
    milliseconds a worker takes to start is lost."""
    old = signal.getsignal(signal.SIGINT)
    if old is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _tracker_running() -> None:
    """Start multiprocessing's resource tracker if it is not running, handing it a standard error
    that has a descriptor: the process's own when sys.stderr is a capture without one (Textual's
    fileno() is -1, and spawning with it raises ValueError). Swapped only for this call, on the
    event loop's thread."""
    try:
        usable = sys.stderr.fileno() >= 0
    except (AttributeError, ValueError, OSError):
        usable = False
    if usable or sys.__stderr__ is None:
        resource_tracker.ensure_running()
        return
    captured, sys.stderr = sys.stderr, sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


class BotFailed(Exception):
    """A decision that no worker could make. `public` says why in words that tell nothing the bot
    saw (no exception text, which could name a card): its table shows them to everyone."""

    def __init__(self, public: str, cause: BaseException) -> None:
        super().__init__(f"{public}: {cause!r}")
        self.public = public

    @classmethod
    def raised(cls, e: Exception) -> "BotFailed":
        """The bot (or its thread) raised `e`: named by its type alone."""
        return cls(f"it raised {type(e).__name__}", e)


class _PoolFailed(Exception):
    """The pool, not the bot, failed to make a decision: another pool or a thread may."""


def decide(level: str, seed: int, view: dict, seconds: float | None = None) -> list:
    """Runs in a worker: one decision of a fresh bot."""
    import bots
    budget = {} if seconds is None else {"seconds": seconds}   # a searching level's cap
    return bots.make(view["game"], level, seed, **budget).choose(view)


class Deciders:
    def __init__(self, workers: int | None = None, processes: bool = True,
                 seconds: float | None = None) -> None:
        self.workers = workers or max(1, min(4, os.cpu_count() or 1))
        self.processes = processes      # think in worker processes (False: threads, as asked or after failures)
        self.seconds = seconds
        self._pool: Executor | None = None
        self._thread_pool: Executor | None = None
        self._quick_pool: Executor | None = None
        self.failures = 0               # process pools that failed and were replaced (/metrics)
        self.thread_decisions = 0       # decisions made in a thread although processes were asked (/metrics)
        self._waiting: dict[str, deque] = {}   # owner -> its decisions not handed to a worker yet
        self._thinking: dict[str, int] = {}    # owner -> its decisions in a worker now
        self._served: dict[str, int] = {}      # owner with work here -> when it last got a worker
        self._clock = 0                           # counts the decisions handed to workers
        self._tasks: set[asyncio.Task] = set()    # the loop keeps only weak references to tasks

    @property
    def fell_back(self) -> bool:
        """Processes were asked for, and failed twice: threads from now on."""
        return self.failures >= 2

    @property
    def per_owner(self) -> int:
        """The most workers one owner may hold while another owner waits: all but one."""
        return max(1, self.workers - 1)

    def submit(self, level: str, seed: int, view: dict, owner: str = "") -> asyncio.Future:
        """The decision of a fresh bot of `level` on `view`, a future. A searching level waits its
        `owner`'s turn for a worker. Any other level decides in a fraction of a millisecond, so it
        is decided in a thread at once and never waits behind somebody's search."""
        if level not in bots.SEARCHING:
            task = asyncio.ensure_future(self._quick(level, seed, view))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return task
        decision = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(owner, deque()).append((level, seed, view, decision))
        self._dispatch()
        return decision

    def _dispatch(self) -> None:
        """Hand waiting decisions to free workers, owners taking turns."""
        while self._waiting and sum(self._thinking.values()) < self.workers:
            owner = self._next_owner()
            if owner is None:
                return
            queue = self._waiting[owner]
            level, seed, view, decision = queue.popleft()
            if not queue:
                del self._waiting[owner]
            if decision.cancelled():
                continue
            self._clock += 1
            self._served[owner] = self._clock
            self._thinking[owner] = self._thinking.get(owner, 0) + 1
            task = asyncio.ensure_future(self._think(owner, level, seed, view, decision))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _next_owner(self) -> str | None:
        """The waiting owner served longest ago, among those who may take another worker: under
        the per-owner cap, or anyone when nobody else is waiting."""
        alone = len(self._waiting) == 1
        may = [o for o in self._waiting if alone or self._thinking.get(o, 0) < self.per_owner]
        return min(may, key=lambda o: self._served.get(o, 0), default=None)

    async def _think(self, owner: str, level: str, seed: int, view: dict, decision: asyncio.Future) -> None:
        try:
            action = await self._decide(level, seed, view)
        except asyncio.CancelledError:
            decision.cancel()
            raise
        except Exception as e:   # BotFailed: its table says so and plays a random move instead
            if not decision.done():
                decision.set_exception(e)
        else:
            if not decision.done():
                decision.set_result(action)
        finally:
            self._thinking[owner] -= 1
            if not self._thinking[owner]:
                del self._thinking[owner]
                if owner not in self._waiting:
                    del self._served[owner]   # nothing here: it comes back as a newcomer
            self._dispatch()

    async def _quick(self, level: str, seed: int, view: dict) -> list:
        try:
            if self._quick_pool is None:     # its own threads: those of searches may all be busy
                self._quick_pool = ThreadPoolExecutor(2, thread_name_prefix="governor-quick-bot")
            return await asyncio.get_running_loop().run_in_executor(self._quick_pool, decide, level, seed, view)
        except Exception as e:
            raise BotFailed.raised(e) from e

    async def _decide(self, level: str, seed: int, view: dict) -> list:
        """The decision, from the pool; on a fresh pool if that one failed; in a thread if that
        failed too. A bot's own exception is not retried: it would raise again."""
        for _ in range(2):
            if not self.processes:
                break
            try:
                return await self._in_pool(level, seed, view)
            except _PoolFailed:
                continue
        if self.fell_back or self.processes:     # processes were asked for, and failed (logged as they did)
            self.thread_decisions += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._threads(), decide, level, seed, view,
                                                                    self.seconds)
        except Exception as e:
            raise BotFailed.raised(e) from e

    async def _in_pool(self, level: str, seed: int, view: dict) -> list:
        """One try in the process pool; _PoolFailed when the pool, not the bot, failed."""
        loop = asyncio.get_running_loop()
        try:
            _tracker_running()     # before the pool, whose queues register with the tracker
            pool = self._executor()
            with _born_ignoring_ctrl_c():      # the pool may start a worker here
                work = loop.run_in_executor(pool, decide, level, seed, view, self.seconds)
        except Exception as e:    # a broken pool, or worker processes that cannot start
            self._replace(self._pool, e)
            raise _PoolFailed() from e
        try:
            return await work
        except BrokenProcessPool as e:   # a worker died, perhaps thinking for another table
            self._replace(pool, e)
            raise _PoolFailed() from e
        except Exception as e:
            raise BotFailed.raised(e) from e

    def _executor(self) -> Executor:
        if self._pool is None:
            # "spawn": a clean interpreter per worker, never a fork of a process with threads.
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_start_worker, initargs=(os.getpid(),))
        return self._pool

    def _threads(self) -> Executor:
        if self._thread_pool is None:
            self._thread_pool = ThreadPoolExecutor(self.workers, thread_name_prefix="governor-bot")
        return self._thread_pool

    def _replace(self, pool: Executor | None, exc: BaseException) -> None:
        """Drop a pool that failed, if it is still the one in use; after two failures, think in
        threads from now on. Its other work is left to finish (or to fail with it), not cancelled."""
        if pool is not self._pool:
            return   # replaced already, for another decision it took down
        if pool is not None:   # (None: the pool itself could not be made)
            self._pool = None
            pool.shutdown(wait=False)
        self.failures += 1
        if self.fell_back:
            log.error("bot worker processes keep failing (%r); bots think in threads from now on. A program "
                      "that embeds the server needs the `if __name__ == '__main__':` guard", exc)
            self.processes = False
        else:
            log.error("the bot worker pool failed (%r); a new one will be started", exc)

    def shutdown(self) -> None:
        for pool in (self._pool, self._thread_pool, self._quick_pool):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._thread_pool = self._quick_pool = None
