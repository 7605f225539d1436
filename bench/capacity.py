"""The search for the most load a setup holds, apart from any measuring, so that it can be tested
alone (tests/bench/test_capacity.py)."""
from __future__ import annotations

import time


def largest_passing(measure, passes, start: int, steps: int, deadline: float,
                    within: float = 0.1) -> tuple[dict | None, list[dict]]:
    """The result of the largest N for which passes(measure(N)) held, and every result measured:
    N doubles from `start` until one fails, then the gap between the largest passing N and the
    smallest failing one is halved until it is within `within` (10%) of the passing one. At most
    `steps` measures, and none begun after `deadline` (time.monotonic()) once one is done."""
    good, bad, n = None, None, start
    tried = []
    while len(tried) < steps and n > 0 and not (tried and time.monotonic() >= deadline):
        result = measure(n)
        tried.append(result)
        if passes(result):
            good = (n, result)
        else:
            bad = n
        low = good[0] if good else 0
        if bad is None:
            n *= 2
        elif bad - low <= max(1, int(low * within)):
            break
        else:
            n = (low + bad) // 2
    return (good[1] if good else None), tried
