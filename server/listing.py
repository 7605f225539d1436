"""The finished tables the lobby lists: the newest few, in memory.

A listing once read the finished tables from the database, on the thread that commits every move:
with tens of thousands of them, a few clients asking for the list within their rate limit held up
every table on the server. The server now reads them once, at start, and adds each table as it
finishes; a listing never touches the store.
"""
from __future__ import annotations

from collections import OrderedDict

from .store import TableRow
from .table_core import summary_of


class Finished:
    """The lobby entries of the newest `size` finished tables, oldest first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, dict] = OrderedDict()

    def load(self, rows: list[TableRow]) -> None:
        """The newest finished tables in the database, oldest first (at start)."""
        for row in rows:
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
