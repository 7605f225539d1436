"""A quick speed check, printed, not asserted (run with -s to see it): random 4-player games per
second on one core (target 240) and the copy of a mid-game state (target under 20 µs)."""
from __future__ import annotations

import random
import time
import timeit

from games import puertorico
from protocol.fairness import local_streams

GAMES = 40


def _play(seed: int, stop_after: int | None = None):
    rng = local_streams(seed)
    s = puertorico.setup(["A", "B", "C", "D"], {}, rng)
    moves = random.Random(seed)
    decisions = 0
    while puertorico.to_act(s) and decisions != stop_after:
        seat = puertorico.to_act(s)[0]
        puertorico.apply(s, seat, puertorico.random_action(s, seat, moves), rng)
        decisions += 1
    return s, decisions


def test_print_speed():
    start = time.perf_counter()
    total = sum(_play(seed)[1] for seed in range(GAMES))
    elapsed = time.perf_counter() - start
    s, _ = _play(1, stop_after=_play(1)[1] // 2)
    reps = 20000
    copy_us = min(timeit.repeat(lambda: puertorico.copy(s), number=reps, repeat=5)) / reps * 1e6
    print(f"\nPuerto Rico, 4 players: {GAMES / elapsed:.0f} random games/s "
          f"({total / GAMES:.0f} decisions a game), mid-game copy {copy_us:.1f} µs")
