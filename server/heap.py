"""The garbage collector of a server process, tuned for a heap of long-lived tables.

CPython's cyclic collector looks at young objects often and, now and then, at the whole heap. A
server's heap is mostly its tables (their states, logs and the views last sent), which live for
the whole match, and every full collection walks all of it: with a few hundred tables in
memory that held the event loop, and every table's next move, for 80 to 240 ms. So, once the
server has started:

- what start-up made (modules, rules data, the tables rebuilt from the store) is frozen out of
  the collector's sight: it is never garbage, and never looked at again;
- the young generation is collected every YOUNG net allocations instead of every 700: a move
  makes and drops thousands of short-lived containers (views, frames), whose cycles, if any,
  still die young, and the older generations follow at the usual ratios, so that the full walks
  come some thirty times less often.

Objects are still freed as soon as nothing refers to them; only cycles wait for the collector.

What a pass costs is the objects it walks, and at think 1 s a young pass walks nearly every
table's live objects (each table's views and state are replaced between two passes). So what a
table keeps is kept in forms the collector has no work with: the parts of its views that did not
change stay the objects it kept before, out of the young generation (protocol.diff,
server/broadcast.py); its latest events are maps of words, which the collector does not track
(server/table_core.py); the moves of its match are bytes (protocol/exchange.py).

A bot worker process (server/deciders.py) settles the same way once it has imported the games and
bots: a searching bot has a time cap per decision, and a full collection that walks every module
as well as the search's caches took tens of milliseconds in the middle of a decision.
"""
from __future__ import annotations

import gc

YOUNG = 20_000     # net allocations of tracked objects between two collections of the young generation


def settle() -> None:
    """Freeze what exists now and space the collections out (once start-up is done)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
