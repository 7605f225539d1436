"""Randomness for play that is imagined rather than dealt: the playouts of a search and the
states its samplers build. Every game's search support uses it (games/contract.Search.streams).
"""
from __future__ import annotations

import random


class ImaginedStreams:
    """Named streams drawn from a plain seeded generator, with the interface of the fair-dealing
    streams (protocol.fairness) that `apply` expects. Those are for real deals only; their keyed
    hashing would only slow a search, and an imagined deal needs no audit: names and indexes are
    ignored."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    def shuffle(self, name: str, idx: int, items: list) -> list:
        items = list(items)
        self.rnd.shuffle(items)
        return items

    def randbelow(self, name: str, idx: int, n: int) -> int:
        return self.rnd.randrange(n)
