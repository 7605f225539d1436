"""Randomness for play that is imagined rather than dealt: the playouts of a search and the
states its samplers build. Every game's search support uses it (games/contract.Search.streams).
"""
from __future__ import annotations

import random
from functools import partial
from itertools import repeat, starmap

from games.blind import Open


def shuffled(items, rnd: random.Random) -> list:
    """The items in a uniformly random order: sorted by a random key each, which takes a quarter
    of the time of random.shuffle (whose exact integer draws an imagined deal does not need).
    The key is the next of an endless stream of draws, so that no Python function runs per item."""
    return sorted(items, key=partial(next, starmap(rnd.random, repeat(()))))


class ImaginedStreams(Open):
    """Named streams drawn from a plain seeded generator, with the interface of the fair-dealing
    streams (protocol.fairness) that `apply` expects. Those are for real deals only; their keyed
    hashing would only slow a search, and an imagined deal needs no audit: names and indexes are
    ignored."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    def shuffle(self, name: str, idx: int, items: list) -> list:
        return shuffled(items, self.rnd)

    def randbelow(self, name: str, idx: int, n: int) -> int:
        return self.rnd.randrange(n)
