"""Finished tables nobody is at, kept built: a match is replayed from its log once, not at every
watch.

Replaying a finished match re-signs every message of it, many milliseconds of CPU: clients
switching between finished tables would make every other table wait for those replays. A table
whose last spectator or player left rests here, match and all, until someone asks for it
again (it is taken out and is in use again) or, the cache being full, the table used longest ago
is dropped; the database still has it.
"""
from __future__ import annotations

from collections import OrderedDict


class Resting:
    def __init__(self, size: int) -> None:
        self.size = size
        self._tables: OrderedDict = OrderedDict()   # table id -> Table, the one used last at the end

    def __contains__(self, table_id: str) -> bool:
        return table_id in self._tables

    def put(self, table) -> None:
        if self.size <= 0:
            return
        self._tables[table.id] = table
        self._tables.move_to_end(table.id)
        while len(self._tables) > self.size:
            self._tables.popitem(last=False)

    def take(self, table_id: str):
        """The resting table with this id, taken out (it is in use again); None if there is none."""
        return self._tables.pop(table_id, None)
