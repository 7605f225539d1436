"""What `GET /metrics` reports, in Prometheus' text exposition format (version 0.0.4).

Two kinds of numbers. Those that happen are counted as they happen, cheaply (an addition, a
bisection into a dozen buckets): messages by type, the time from an `act` read to its answer
queued, the time of each store write, finished tables, lease takeovers. Those that are a state
(tables by status, seats, connections) are read off the server's memory when someone asks, so
they cost the move path nothing.

Lease takeovers count the tables this process took over because their lease had expired
(server/cluster.py): always 0 on SQLite, where one process owns every table.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter

# Upper bounds of the latency buckets, in seconds: 1 ms to 2.5 s.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Histogram:
    def __init__(self, bounds: tuple[float, ...] = BUCKETS) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)   # per bucket, not yet cumulative; the last is +Inf
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(self.bounds, seconds)] += 1
        self.sum += seconds

    def lines(self, name: str) -> list[str]:
        out, total = [], 0
        for bound, n in zip((*(f"{b:g}" for b in self.bounds), "+Inf"), self.counts):
            total += n
            out.append(f'{name}_bucket{{le="{bound}"}} {total}')
        return out + [f"{name}_sum {self.sum:.6f}", f"{name}_count {total}"]


class Metrics:
    """The counters the server adds to as things happen."""

    def __init__(self) -> None:
        self.messages: Counter[str] = Counter()   # client messages read, by type (after the hello)
        self.ack = Histogram()                    # an act read -> its ack or reject queued to send
        self.store = Histogram()                  # one write to the store, committed
        self.finished: Counter[str] = Counter()   # tables that ended since start: over, cancelled
        self.lease_takeovers = 0                  # tables taken over, their lease expired (see above)
        self.bot_failures: Counter[str] = Counter()   # bot decisions replaced by a random move, by level
        self.upgrade_cancels = 0                  # unfinished bgfair/v1 matches cancelled at restore
        self.forfeits = 0                         # seats of blind tables that forfeited
        self.records_failed = 0                   # records that could not be published, read or judged
        self.unknown_behind_proxy = 0             # a trusted proxy's connections that named no client (server/proxies.py)


def exposition(server) -> str:
    """Every metric of a running server, as the text a Prometheus scrape reads."""
    m: Metrics = server.metrics
    tables = Counter("frozen" if t.core.frozen else t.status for t in server.tables.values() if t.active)
    seats: Counter[str] = Counter()
    for t in server.tables.values():
        if t.active:
            seats.update(_seat_state(s) for s in t.seats)
    out: list[str] = []
    _family(out, "governor_tables", "gauge", "Open tables by status (frozen: refusing every command).",
            [f'{{status="{s}"}} {tables[s]}' for s in ("waiting", "playing", "frozen")])
    _family(out, "governor_tables_finished_total", "counter", "Tables that ended since the server started.",
            [f'{{status="{s}"}} {m.finished[s]}' for s in ("over", "cancelled")])
    _family(out, "governor_seats", "gauge", "Seats at open tables: a person connected, a person away, "
            "a computer player, or free.", [f'{{state="{s}"}} {seats[s]}' for s in ("connected", "away", "bot", "free")])
    _family(out, "governor_connections", "gauge", "Open sockets, counted from the moment they are accepted.",
            [f" {server.connections}"])
    _family(out, "governor_connections_refused_total", "counter", "Sockets refused as they were accepted: their "
            "address opened connections faster than conn_rate.", [f" {server.gate.refusals if server.gate else 0}"])
    _family(out, "governor_messages_total", "counter", "Messages read from clients after their hello, by type "
            "(act: a move).", [f'{{type="{k}"}} {n}' for k, n in sorted(m.messages.items())])
    _family(out, "governor_ack_seconds", "histogram", "From an act read to its ack or reject queued to send.",
            m.ack.lines("governor_ack_seconds"), named=True)
    _family(out, "governor_store_write_seconds", "histogram", "One write to the store, until it is committed.",
            m.store.lines("governor_store_write_seconds"), named=True)
    _family(out, "governor_lease_takeovers_total", "counter", "Tables taken over from another process "
            "once their lease expired.", [f" {m.lease_takeovers}"])
    _family(out, "governor_bot_failures_total", "counter", "Computer players' decisions that failed, each "
            "replaced by a random legal move (the table is told), by level.",
            [f'{{level="{k}"}} {n}' for k, n in sorted(m.bot_failures.items())])
    _family(out, "governor_upgrade_cancels_total", "counter", "Unfinished matches of the previous protocol "
            "version (bgfair/v1) cancelled when restored: they cannot go on after the upgrade.",
            [f" {m.upgrade_cancels}"])
    _family(out, "governor_forfeits_total", "counter", "Seats of blind tables that forfeited: they did not "
            "deliver a shuffle step, shares, a move or a deal seed in time (each logged).", [f" {m.forfeits}"])
    _family(out, "governor_records_failed_total", "counter", "Match records the records port could not "
            "write, read or judge (each logged at error level).", [f" {m.records_failed}"])
    _family(out, "governor_proxy_unknown_clients_total", "counter", "Connections from a trusted proxy that "
            "said no usable client address (counted as the proxy's own).", [f" {m.unknown_behind_proxy}"])
    d = server.deciders
    _family(out, "governor_bot_pool_failures_total", "counter", "Times the bot worker pool failed (a worker "
            "died, or none could start) and was replaced.", [f" {d.failures}"])
    _family(out, "governor_bot_thread_decisions_total", "counter", "Computer players' decisions made in a "
            "thread of the server because its worker processes failed.", [f" {d.thread_decisions}"])
    return "\n".join(out) + "\n"


def _seat_state(seat) -> str:
    if seat.bot is not None:
        return "bot"
    if not seat.taken:
        return "free"
    return "connected" if seat.conn is not None else "away"


def _family(out: list[str], name: str, kind: str, help: str, samples: list[str], named: bool = False) -> None:
    out += [f"# HELP {name} {help}", f"# TYPE {name} {kind}"]
    out += samples if named else [name + s for s in samples]
