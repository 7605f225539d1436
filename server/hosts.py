"""What a table and a cluster need of the server that holds them: narrow interfaces, so that
each can be built and tested with a stand-in, and what they may touch is written down.
server/app.py's Server is the one real host of both."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from protocol.signing import Signer

    from .background import Background
    from .deciders import Deciders
    from .metrics import Metrics
    from .settings import Limits
    from .store import Store, TableRow
    from .table import Table


class TableHost(Protocol):
    """What a table's task (server/table.py) uses of its server."""
    signer: Signer          # signs the table's messages
    limits: Limits
    grace: float            # seconds an absent player's seat waits before a bot plays it
    store: Store
    metrics: Metrics
    replayer: Background    # the thread a match is rebuilt from its log on
    deciders: Deciders      # where bots think

    def finished_now(self, table: Table) -> None:
        """The table's match ended: the lobby lists it."""

    def forget(self, table: Table) -> None:
        """A finished table nobody is at: it rests, out of use."""

    def out_of_use(self, table: Table) -> None:
        """The table is no longer among those in use (another process serves it)."""


class ClusterHost(Protocol):
    """What a cluster (server/cluster.py) uses of its server."""
    signer: Signer          # replaced by the database's key: every process signs as one server
    tables: dict[str, Table]    # in use, by id
    metrics: Metrics

    def adopt(self, row: TableRow) -> Table:
        """A table from the database, in use here."""

    async def table(self, table_id: str) -> Table | None:
        """The table with this id, loaded from the database if it is finished and not in memory."""
