"""The lobby's listing: the finished tables it shows, in memory, and its frame, packed once.

The finished tables are read from the database once, at start, and each table is added as it
finishes: a listing never touches the store, whose thread commits every move, so clients asking
for the list within their rate limit cannot hold up the tables however many finished ones there
are. Packing a listing is most of what a list request costs the event loop, and between two
changes of the lobby every request gets the same bytes: a listing equal to the last one is
answered with the frame packed for that one.
"""
from __future__ import annotations

from collections import OrderedDict

from protocol import wire

from .store import TableRow
from .table_core import summary_of


class Finished:
    """The lobby entries of the newest `size` finished tables, oldest first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, dict] = OrderedDict()

    def load(self, rows: list[TableRow]) -> None:
        """The newest finished tables in the database, oldest first (at start); not the private ones."""
        for row in rows:
            if not row.private:
                self.add(row.id, summary_of(row))

    def add(self, table_id: str, entry: dict) -> None:
        """A table finished (or its entry changed: who is still at it)."""
        self._entries[table_id] = entry
        self._entries.move_to_end(table_id)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def update(self, table_id: str, entry: dict) -> None:
        """A newer entry of a table listed, keeping its place; a table no longer listed stays out."""
        if table_id in self._entries:
            self._entries[table_id] = entry

    def entries(self) -> list[tuple[str, dict]]:
        return list(self._entries.items())


class Packed:
    """The frame of the last listing, packed again only when a listing differs from it. The
    comparison needs no word from the tables that change: the finished tables' entries are the
    same objects from one listing to the next (compared by identity, at once), and the few open
    tables' entries are compared by value."""

    def __init__(self) -> None:
        self._listed: list[dict] | None = None
        self._frame = b""

    def frame(self, listed: list[dict]) -> bytes:
        if listed != self._listed:
            self._listed, self._frame = listed, wire.encode({"type": "tables", "tables": listed})
        return self._frame
