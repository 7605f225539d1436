"""What the server keeps: the Store interface, and the records it reads and writes.

The action log is the truth (docs/hosting.md). A table's record holds what was decided when it was
created and started; its log holds every accepted input in order (`commit`, `reveal`, `act` and
`cancel` rows; on a blind table also every client's `shuffle`, `shares` and `deal_seed`, and the
server's `forfeit`). Replaying the log through a fresh ServerExchange with the stored game id, server
seed and server key reproduces every signed message byte for byte.

The server talks to its store only through the methods below. Every write is durable when it
returns (the server announces an input only then), and the writes of one table keep their order.
Reads may run beside writes and must never wait behind them (a client can make the server read;
it must not hold up the moves being committed); a read sees every write that returned before it
was asked for.
SQLiteStore (server/sqlite_store.py) keeps them in the data directory, the default;
PostgresStore (server/postgres_store.py) in a PostgreSQL database (`governor serve --database`).
tests/server/test_store.py holds both to this contract.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass
class TableRow:
    id: str
    game: str
    options: dict
    bot: str                   # the level of computer seats and stand-ins
    seats: list[dict]          # [{name, player_id, key (hex, a person's seat), bot}]
    game_id: bytes | None      # None until the match starts
    server_seed: bytes | None
    status: str                # waiting | playing | over | cancelled
    created: float
    private: bool = False      # never listed in the lobby (a `governor play` alone against bots)
    rated: bool = False        # the table's choice: its match counts for ratings (the header's `rated`)
    started: int | None = None  # unix seconds the match started (the header's `started`), once it has
    blind: bool = False        # dealt blind (docs/fairness.md §10): nobody, the server included, sees a hidden card
    deal_seed: bytes | None = None  # a blind match's server deal seed (secret like server_seed), once it starts


@dataclass
class LogRow:
    n: int                     # 0, 1, 2, ... per table
    kind: str                  # commit | reveal | act | cancel; on a blind table also shuffle | shares |
                               # deal_seed | forfeit
    seat: int | None
    data: dict


class Store(Protocol):
    async def open(self) -> None:
        """Make the store ready (create what is missing); called once, before anything else."""

    def stop_reading(self) -> None:
        """The server is stopping: every read asked for and not answered ends now (its caller
        gets CancelledError), and so does any asked for later. Writes go on until `close`."""

    async def close(self) -> None:
        """Finish the writes under way, stop reading, and let go of the store. A write asked for
        once close has begun raises RuntimeError and changes nothing. Once closed, closing again
        does nothing."""

    # -- writes

    async def create_table(self, row: TableRow) -> None:
        """A new table."""

    async def update_seats(self, table_id: str, seats: list[dict]) -> None:
        """The seats of a waiting table changed: someone sat down or left."""

    async def start_table(self, table_id: str, game_id: bytes, server_seed: bytes, started: int | None = None,
                          deal_seed: bytes | None = None) -> None:
        """The match starts with this game id and server seed at unix time `started` (which its
        signed header names), and on a blind table the server's deal seed; the table's status is
        `playing`."""

    async def set_status(self, table_id: str, status: str) -> None:
        """The table's new status."""

    async def append(self, table_id: str, n: int, kind: str, seat: int | None, data: dict,
                     status: str | None = None) -> None:
        """Row `n` of the table's log, and the table's new status if it changed, at once."""

    # -- reads

    async def open_tables(self) -> list[TableRow]:
        """The open tables (waiting or playing), oldest first."""

    async def finished_table(self, table_id: str) -> TableRow | None:
        """A finished table (over or cancelled), or None."""

    async def finished(self, limit: int) -> list[TableRow]:
        """The newest `limit` finished tables, oldest first."""

    async def log(self, table_id: str) -> list[LogRow]:
        """The table's log, in order; raises if a row is missing."""
