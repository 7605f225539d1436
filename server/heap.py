"""The garbage collector of a server process: it walks nothing while the tables play.

CPython frees an object as soon as nothing refers to it; its cyclic collector is only for objects
that refer to one another in a cycle that nothing else refers to. Each of its passes holds the
event loop, and every table's next command, for as long as it walks: a young pass walks what
every table made since the last one and still keeps, a full pass the whole heap, and at hundreds
of tables a full pass alone outlasts p99's target of 50 ms (docs/benchmarks.md, 'Server capacity
and latency per action').

A server at play makes no cyclic garbage (tests/server/test_heap.py holds it to that). What
would make cycles when a connection or a table goes is taken apart as it goes:

- a closed connection stops naming its table (TableCore.detach), which keeps what it sent to
  it (its views, each naming the connection): the table and its connections would be one cycle;
- a lost socket transport drops the bound methods of its own it keeps (`_let_transports_go`);
- a lost connection closes websockets' parser, a generator of its protocol's that refers to the
  protocol, and drops the traceback of the exception that stopped it if it was cut short, which
  holds the parser's frame (server/app.py).

So once the server has started, `settle()` turns the automatic collector off: an object is still
freed the moment nothing refers to it, but the collector walks nothing. The heap is still
bounded, should anything leave cycles unforeseen: every CHECK seconds, when the objects the
collector tracks have grown by as many as were alive after the last full collection (GROWTH at
least), a full collection runs. That happens a few times while a server fills up to its load,
the heap doubling in between, at most once every CHECK seconds; at a steady load, seldom (the
count never goes below zero, so it can creep up under churn). Each holds the loop for as long
as it walks every object, which at hundreds of tables is a long pause: hence seldom.

A bot worker process (server/deciders.py) does not play tables: a search makes and drops cyclic
trees, so its collector runs, but what start-up made is frozen out of its sight and its young
generation is collected less often (`settle_worker`): a full collection that walked every module
as well as the search's caches would take a share of a timed decision's budget.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import time
from asyncio import selector_events

log = logging.getLogger("governor.server")

CHECK = 600.0         # seconds between two looks at how far the heap has grown
GROWTH = 100_000      # tracked objects the heap grows by, at least, before a full collection
WORKER_YOUNG = 20_000  # a bot worker's net allocations of tracked objects between two young collections


def settle() -> None:
    """The collector of a server process, once start-up is done (on its event loop): off, but
    for a full collection when the heap has grown (see above)."""
    _let_transports_go()
    growth = Growth()
    gc.disable()
    growth.watch(asyncio.get_running_loop())


class Growth:
    """How far the heap has grown since the last full collection, and that collection when it
    has grown by as many objects as were alive after the last one (GROWTH at least).

    The growth is the collector's own count (`gc.get_count()`): the tracked objects made less
    those freed since the last collection, never below zero. It may count more growth than there
    was, never less, and costs nothing to read."""

    def __init__(self) -> None:
        self.live = 0      # tracked objects alive after the last full collection
        self.collect()

    @property
    def due(self) -> int:
        """The growth, in tracked objects, that makes the next full collection."""
        return max(GROWTH, self.live)

    def check(self) -> bool:
        """A full collection if the heap has grown enough; whether it ran."""
        grown = gc.get_count()[0]
        if grown < self.due:
            return False
        started = time.perf_counter()
        found = self.collect()
        log.info("the heap grew by %d objects: a full collection took %.0f ms, found %d in cycles, left %d",
                 grown, 1000 * (time.perf_counter() - started), found, self.live,
                 extra={"grown": grown, "garbage": found, "alive": self.live})
        return True

    def collect(self) -> int:
        """A full collection; the objects it found unreachable."""
        found = gc.collect()
        self.live = len(gc.get_objects())
        return found

    def watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Check every CHECK seconds on this loop, as long as it runs."""
        def tick() -> None:
            self.check()
            loop.call_later(CHECK, tick)
        loop.call_later(CHECK, tick)


def _let_transports_go() -> None:
    """asyncio's socket transports keep bound methods of their own (the read callback, from
    Python 3.12 the write one too), each referring to the transport: every connection left a
    cycle once closed (CPython issue 100348; 3.12 drops them when the transport is closed, but
    not when it is aborted). Here a transport drops them once its connection is lost, however
    it ended, in this process only."""
    cls = selector_events._SelectorSocketTransport
    lost = cls._call_connection_lost

    def _call_connection_lost(self, exc) -> None:
        try:
            lost(self, exc)
        finally:
            for name, value in list(vars(self).items()):
                if getattr(value, "__self__", None) is self:
                    setattr(self, name, None)

    cls._call_connection_lost = _call_connection_lost


def settle_worker() -> None:
    """The collector of a bot worker process, once it has imported the games and bots: what
    exists now frozen, the young generation collected every WORKER_YOUNG net allocations."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(WORKER_YOUNG, middle, old)
