"""Uniform random choice among the legal actions of a "pick lo..hi of these options" decision."""
from __future__ import annotations

import random
from functools import lru_cache
from math import comb


@lru_cache(maxsize=None)
def _size_weights(n: int, lo: int, hi: int) -> tuple[int, tuple[int, ...]]:
    """For subsets of n options with a size from lo to hi: how many there are in all, and how
    many have each size lo, lo + 1, ..., hi - 1 (the last size takes whatever is left). Only a
    few hundred (n, lo, hi) ever occur, so each is worked out once."""
    return sum(comb(n, k) for k in range(lo, hi + 1)), tuple(comb(n, k) for k in range(lo, hi))


def pick_uniform(options, lo: int, hi: int, rnd: random.Random) -> list:
    """A uniformly random legal action without listing them all: every subset of the options
    with a size between lo and hi is legal, so draw the size weighted by how many subsets have
    it, then the subset. Random playouts call this once per decision, hence the short cuts."""
    n = len(options)
    if hi == 1:  # the commonest decisions: one option, or one or none (n + 1 actions)
        x = int(rnd.random() * (n + 1 - lo)) - 1 + lo
        return [options[x]] if x >= 0 else []
    size = lo
    if lo != hi:
        # Subsets of size k number comb(n, k): draw a size with those weights.
        total, counts = _size_weights(n, lo, hi)
        x = rnd.random() * total
        for count in counts:
            x -= count
            if x < 0:
                break
            size += 1
    if size == 0:
        return []
    if size == 1:
        return [options[int(rnd.random() * n)]]
    return rnd.sample(options, size)
