"""The server's operator: who holds which seat at every open table, and closing a table.

An `operator {key, do, table?, reason?}` message may come over any connection, but is obeyed only
with the operator key (`serve --operator-key-file FILE`); without one configured, there is no
operator. The key is compared in constant time (as SHA-256 digests, so its length does not show
either), and an address that sent `operator_failures` wrong keys within `operator_window`
seconds is refused without the key being looked at (server/quotas.py) until the window has
passed: the key cannot be guessed by trying.

`do: "tables"` answers `operator_tables {tables}`: every open table with its seats, who sits
there, connected or not, computer players, and the address of each connected person (for abuse
reports). In a cluster these are the tables of this process, each with its public address, and
`processes` names the other live processes, which the operator asks in turn (`governor admin`
does). `do: "close"` cancels an open table (server/table_core.py `close`) and answers
`operator_closed {table}` once the cancel is stored and everyone at the table has been told; a
table another process serves is answered `redirect` to that process, which checks the key again.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING

from protocol import wire

from .inbox import CloseTable
from .quotas import Quotas

if TYPE_CHECKING:
    from .cluster import Cluster
    from .table import Table

log = logging.getLogger("governor.server")

KEY_MIN = 16        # characters: a key shorter than this is too easy to guess
KEY_KINDS = 8       # different characters at least: "aaaaaaaaaaaaaaaa" is no key
MAKE_KEY = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
REASON_MAX = 200


def read_key(path: str | Path) -> str:
    """The operator key in its file (the first line, whitespace stripped), as the server and
    `governor admin` read it; raises ValueError saying what is wrong with the file: one that
    other users may read or change, or a key too short or of too few different characters."""
    path = Path(path).expanduser()
    try:
        with open(path, "rb") as f:
            mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read the operator key file {path}: {getattr(e, 'strerror', None) or e}") from None
    if mode & 0o077:
        raise ValueError(f"the operator key file {path} may be read or changed by other users (mode {mode:04o}); "
                         f"make it yours alone: chmod 600 {path}")
    key = text.strip().splitlines()[0].strip() if text.strip() else ""
    if len(key) < KEY_MIN:
        raise ValueError(f"the operator key in {path} is {len(key)} characters long; it needs at least {KEY_MIN} "
                         f"(e.g. the output of: {MAKE_KEY})")
    if len(set(key)) < KEY_KINDS:
        raise ValueError(f"the operator key in {path} has only {len(set(key))} different characters; it needs at "
                         f"least {KEY_KINDS} (e.g. the output of: {MAKE_KEY})")
    return key


class Operator:
    """`tables`: the server's tables in use, by id (the same dict, kept up to date by the server);
    `quotas`: what counts the wrong keys; `cluster`: the server's, or None."""

    def __init__(self, key: str | None, quotas: Quotas, tables: dict[str, Table], cluster: Cluster | None) -> None:
        self.quotas = quotas
        self._tables = tables
        self.cluster = cluster
        self._digest = hashlib.sha256(key.encode()).digest() if key else None

    async def handle(self, conn, msg: dict) -> None:
        if self._digest is None:
            return _error(conn, "no_operator", "This server has no operator key: nobody may operate it from afar.")
        now = time.monotonic()
        refusal = self.quotas.refuse_operator(conn.addr, now)
        if refusal is not None:
            return _error(conn, "slow_down", refusal)
        if not hmac.compare_digest(hashlib.sha256(msg["key"].encode()).digest(), self._digest):
            self.quotas.operator_failed(conn.addr, now)
            log.warning("a wrong operator key from %s", conn.addr, extra={"address": conn.addr})
            return _error(conn, "bad_operator_key", "That is not this server's operator key.")
        do = msg["do"]
        if do == "tables":
            reply = {"type": "operator_tables", "tables": self.tables()}
            cluster = self.cluster
            if cluster is not None:   # the operator asks the others for theirs
                reply["processes"] = [url for url in cluster.urls if url != cluster.url]
            return conn.push(wire.encode(reply))
        if do == "close":
            return await self._close(conn, msg.get("table", ""), msg.get("reason", ""))
        return _error(conn, "bad_operator_request", f"An operator may do 'tables' or 'close', not {do[:40]!r}.")

    def tables(self) -> list[dict]:
        """Every open table of this process, oldest first, with who holds each seat (and, in a
        cluster, the public address of this process)."""
        active = sorted((t for t in self._tables.values() if t.active), key=lambda t: t.created)
        cluster = self.cluster
        return [_table_report(t) | ({"process": cluster.url} if cluster is not None else {}) for t in active]

    async def _close(self, conn, table_id: str, reason: str) -> None:
        reason = wire.chat_text(reason)
        if len(reason) > REASON_MAX:
            return _error(conn, "bad_reason", f"A reason is at most {REASON_MAX} characters, not {len(reason)}.")
        table = self._tables.get(table_id)
        if table is None and self.cluster is not None:   # perhaps another process serves it
            table, url = await self.cluster.find(table_id)
            if url:    # it closes it, with its own operator key: the operator asks there
                return conn.push(wire.encode({"type": "redirect", "url": url, "table": table_id}))
            if url == "":
                return _error(conn, "moving", f"Table {table_id[:40]} is being taken over by another server "
                                              "process; try again in a few seconds.")
        if table is None or not table.active:
            return _error(conn, "no_table", f"There is no open table {table_id[:40]!r}.")
        log.info("table %s: the operator at %s closes it%s", table.id, conn.addr, f" ({reason})" if reason else "",
                 extra={"table": table.id, "address": conn.addr})
        await table.request(CloseTable(conn, reason))


def _table_report(table) -> dict:
    core = table.core
    seats = []
    for s in core.seats:
        seat = {"seat": s.index, "name": s.name, "bot": s.bot, "connected": s.conn is not None,
                "standin": s.standin}
        if s.conn is not None:
            seat["address"] = s.conn.addr
        seats.append(seat)
    report = {"id": core.id, "game": core.game, "status": core.status, "created": core.created,
              "seats": seats, "spectators": len(core.spectators)}
    if core.frozen:
        report["frozen"] = core.frozen
    return report


def _error(conn, code: str, message: str) -> None:
    conn.push(wire.encode({"type": "error", "code": code, "message": message}))
