"""What one address may ask of the lobby: the requests that cost the server more than a look.

A connection's own rate limit (server/conn.py) bounds how often it speaks; these bound what an
address gets done however many connections it opens:

- connections: `conn_rate` new ones a second, in bursts of `conn_burst`, per address. Each costs
  a WebSocket handshake (and the table of the seat it claims, if it claims one); a few clients
  reconnecting in a loop would slow every other table. Checked as each socket is accepted (server/gate.py).
- tables: at most `tables_per_addr` waiting or playing tables created from one address, and at
  most `tables_per_window` created in any `table_window` seconds: without them one client could
  fill the server's table limit in seconds and hold it.
- watches: `watch_rate` a second, in bursts of `watch_burst`, per address. Watching a finished
  table not in memory reads its log and replays the whole match, signatures and all; so does a
  player claiming a seat of a finished match, which counts as a watch too. Such a read counts as
  READ_WATCHES watches: a replay takes a thread's CPU that the event loop shares, and connections
  switching between finished tables would raise every table's p99.
- tables per network: at most `tables_per_net` waiting or playing tables created from one IPv4
  /24 or IPv6 /56 (network_of), whatever its addresses: the addresses of one network, or the
  /64s of one home's /56, would otherwise fill the table limit together.
- wrong operator keys: at most `operator_failures` in any `operator_window` seconds; then the
  address's operator requests are refused unread until the window has passed (server/operator.py).
  All addresses together may send `operator_failures_all` in that window, then every address is
  refused so: many addresses cannot guess the key either, and one address alone never keeps
  the operator out of another.

An "address" is the client's IPv4 address, or the /64 network of its IPv6 address
(conn.client_address).

A refusal is a sentence naming the limit and how long to wait, for an `error` to the client.
"""
from __future__ import annotations

from collections import deque

from protocol.bucket import TokenBucket

from .conn import network_of

ALL = "*"     # the wrong operator keys of every address together are counted under this name
READ_WATCHES = 4      # watches a watch of a table read from the database counts as (at most the burst)


class Quotas:
    def __init__(self, limits) -> None:
        self.limits = limits
        self._created: dict[str, deque[float]] = {}   # address -> when it created tables, within the window
        self._wrong_keys: dict[str, deque[float]] = {}  # address -> when it sent a wrong operator key, within the window
        self._watches: dict[str, TokenBucket] = {}
        self._connections: dict[str, TokenBucket] = {}

    # -- connections

    def may_connect(self, addr: str) -> bool:
        return _bucket(self._connections, addr, self.limits.conn_rate, self.limits.conn_burst).take()

    # -- tables

    def refuse_table(self, addr: str, open_tables: int, net_tables: int, now: float) -> str | None:
        """Why `addr`, which created `open_tables` tables still waiting or playing (and its
        network, network_of, `net_tables`), may not create another now; None when it may."""
        lim = self.limits
        if open_tables >= lim.tables_per_addr:
            return (f"You have {open_tables} tables waiting or playing, the most one address may have here "
                    f"(tables_per_addr={lim.tables_per_addr}); join one, or wait until one ends.")
        if net_tables >= lim.tables_per_net:
            return (f"Your network ({network_of(addr)}) has {net_tables} tables waiting or playing, the most one "
                    f"network may have here (tables_per_net={lim.tables_per_net}); join one, or wait until one ends.")
        times = _recent(self._created, addr, now, lim.table_window)
        if len(times) >= lim.tables_per_window:
            wait = times[0] + lim.table_window - now
            return (f"You created {len(times)} tables in the last {lim.table_window:g} s, the most one address "
                    f"may (tables_per_window={lim.tables_per_window}); try again in {wait:.0f} s.")
        return None

    def created_table(self, addr: str, now: float) -> None:
        _recent(self._created, addr, now, self.limits.table_window).append(now)

    # -- watches

    def may_watch(self, addr: str, read: bool) -> bool:
        """Whether `addr` may watch a table now; `read`: one not in memory, to be read from the
        database (and its match perhaps replayed)."""
        lim = self.limits
        return _bucket(self._watches, addr, lim.watch_rate, lim.watch_burst).take(READ_WATCHES if read else 1)

    @property
    def watch_refusal(self) -> str:
        """Why an address may not watch now, when `may_watch` says so."""
        lim = self.limits
        return (f"At most {lim.watch_rate:g} watch requests a second from one address (watch_rate), "
                f"{lim.watch_burst} at once (watch_burst), a table read from the database counting as "
                f"{READ_WATCHES}; try again in a moment.")

    # -- the operator key

    def refuse_operator(self, addr: str, now: float) -> str | None:
        """Why an operator request from `addr` is refused unread now: its address sent too many
        wrong keys, or all addresses together did (many addresses may not guess the key one
        window's worth each); None when the key is to be looked at."""
        lim = self.limits
        times = _recent(self._wrong_keys, addr, now, lim.operator_window)
        if len(times) >= lim.operator_failures:
            wait = times[0] + lim.operator_window - now
            return (f"{len(times)} wrong operator keys from your address in the last {lim.operator_window:g} s "
                    f"(operator_failures={lim.operator_failures}); try again in {wait:.0f} s.")
        every = _recent(self._wrong_keys, ALL, now, lim.operator_window)
        if len(every) >= lim.operator_failures_all:
            wait = every[0] + lim.operator_window - now
            return (f"{len(every)} wrong operator keys from all addresses together in the last "
                    f"{lim.operator_window:g} s (operator_failures_all={lim.operator_failures_all}); "
                    f"try again in {wait:.0f} s.")
        return None

    def operator_failed(self, addr: str, now: float) -> None:
        _recent(self._wrong_keys, addr, now, self.limits.operator_window).append(now)
        _recent(self._wrong_keys, ALL, now, self.limits.operator_window).append(now)

    # -- housekeeping

    def sweep(self, now: float) -> None:
        """Forget addresses with nothing to remember: no table created within the window, a full
        bucket of watches (a fresh one is the same)."""
        for times, window in ((self._created, self.limits.table_window),
                              (self._wrong_keys, self.limits.operator_window)):
            for addr in [a for a in times if not _recent(times, a, now, window)]:
                del times[addr]
        for buckets in (self._watches, self._connections):
            for addr in [a for a, b in buckets.items() if b.full()]:
                del buckets[addr]


def _recent(times_of: dict[str, deque[float]], addr: str, now: float, window: float) -> deque[float]:
    """When `addr` did the thing counted in `times_of`, within the last `window` seconds."""
    times = times_of.setdefault(addr, deque())
    while times and times[0] <= now - window:
        times.popleft()
    return times


def _bucket(buckets: dict[str, TokenBucket], addr: str, rate: float, burst: int) -> TokenBucket:
    bucket = buckets.get(addr)
    if bucket is None:
        bucket = buckets[addr] = TokenBucket(rate, burst)
    return bucket
