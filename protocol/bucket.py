"""The token bucket both sides of a connection keep: the server's limits on what a connection may
send, and the pace a client keeps to stay under them (client/link.py). In `protocol` because it
is part of what the two sides agree on, and the client never imports the server."""
from __future__ import annotations

import time


class TokenBucket:
    """`rate` messages a second on average, `burst` at once: the server's limits, and the pace a
    client keeps under them (client/link.py)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last = time.monotonic()

    def take(self, cost: float = 1) -> bool:
        """Spend `cost` messages' worth (at most the burst), if the bucket holds it."""
        cost = min(cost, self.burst)
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True

    def wait(self, cost: float = 1) -> float:
        """Seconds until the bucket holds `cost` (at most the burst) again, from when last taken."""
        return max(0.0, min(cost, self.burst) - self.tokens) / self.rate

    def full(self) -> bool:
        """As good as a fresh bucket: the burst is whole again."""
        return self.tokens + (time.monotonic() - self.last) * self.rate >= self.burst
