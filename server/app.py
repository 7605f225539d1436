"""The authoritative Governor server: lobby, tables, seats, persistence, bots, over WebSocket.

In-process (the one-command LAN game runs it inside the client):

    server = Server("/path/to/data", "127.0.0.1", 0, grace=60)
    port = await server.start()          # the bound port (useful with port 0)
    ...
    await server.stop()                  # connections are closed with 1001

From the command line: `governor serve [--config FILE] [--host H] [--port P] ...`, which calls
`main(settings)` with the settings of server/settings.py. With a certificate the server speaks TLS
(wss://), as it should on any network its players do not own. The same port answers plain HTTP
GETs of /healthz and /metrics (server/metrics.py), and the operator's requests (server/operator.py).
Given a name to announce, a server other machines can reach tells the local network it is there
(server/announce.py), for `governor join` with no address.

Connections only decode, rate-limit and route: the hello and lobby requests to the lobby's
decisions (server/lobby.py), whose answers this shell carries out (handing a sit or watch to the
table it names), a seat's commands to its table's inbox. Each table is owned by its own task
(server/table.py), which sends through its broadcaster (server/broadcast.py); persistence is a
Store (server/store.py): SQLite in the data directory (server/sqlite_store.py), or PostgreSQL
with a `database` URL (server/postgres_store.py); bots think in worker processes (server/deciders.py).

Open tables are kept in memory; a finished one while someone is at it and, once they are gone,
among the `finished_cache` used last (server/cache.py). Any other is loaded from the database
when someone watches it, claims a seat of it with its player key, or sits down at it; its match is
replayed on a thread of its own, off the event loop. The lobby's listing is kept in memory
(server/listing.py): it never reads the database.

No client can slow another table: the database's reads never queue in front of its writes
(server/sqlite_store.py, server/postgres_store.py), and what one address may ask of the lobby,
tables created and tables watched, is bounded (server/quotas.py).
"""
from __future__ import annotations

import asyncio
import dataclasses
import fcntl
import logging
import os
import random
import resource
import secrets
import signal
import socket
import ssl
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol import wire
from protocol.signing import load_or_create

from . import heap, logs
from .announce import Announcement, NotAnnounced
from .background import Background
from .cache import Resting
from .conn import Conn, client_address
from .deciders import Deciders
from .gate import HELD_REFUSALS, Gate, refusal
from .inbox import Detach, Expire, Leave, seat_command
from .listing import Packed
from .lobby import LISTED_FINISHED, Cut, Lobby, Redirect, Refuse
from .metrics import CONTENT_TYPE, Metrics, exposition
from .operator import Operator, read_key
from .private import make_private
from .proxies import PROXY_MAX, PROXY_PREFIX, ProxyError, forwarded_for, networks, proxy_header, trusted
from .published import MAX_VISITORS, Published
from .quotas import Quotas
from .settings import Limits, redacted
from .sqlite_store import SQLiteStore
from .store import Store, TableRow
from .table import Table

if TYPE_CHECKING:
    from .cluster import Cluster

log = logging.getLogger("governor.server")

SPARE_FILES = 64          # files the server needs besides its connections: database, bot workers, logs
CLOSE_TIMEOUT = 5         # seconds a closing handshake may take
PROXY_WARN_EVERY = 60.0   # seconds between two warnings of a trusted proxy's connections that name no client
HELLO_SPREAD = 1.5        # a connection's deadline for its hello: between hello_timeout and this many times it
# How long a thread that computes (a replay) may keep the interpreter from the event loop, in a
# process of its own (`governor serve`); Python's default is 5 ms. The loop lets the interpreter go
# at each of its system calls (a send, a poll) and waits this long to have it back, so with the
# default a reply of a few system calls would wait many times its own work behind a replay.
SWITCH_INTERVAL = 0.001


class NoDriver(RuntimeError):
    """A PostgreSQL database was asked for, and its driver is not installed."""


def default_data_dir() -> Path:
    env = os.environ.get("GOVERNOR_DATA")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".local" / "share" / "governor" / "server"


class Server:
    def __init__(self, data_dir: str | os.PathLike | None = None, host: str = "127.0.0.1", port: int = 8765, *,
                 grace: float = 60.0, limits: Limits | None = None, bot_workers: int | None = None,
                 bot_processes: bool = True, synchronous: str = "NORMAL", tls: ssl.SSLContext | None = None,
                 operator_key: str | None = None, announce: str | None = None, database: str = "sqlite",
                 public_url: str | None = None, trusted_proxies: str | None = None, records_port: int | None = None,
                 **limit_overrides) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.host = host
        self.port = port
        self.tls = tls
        self.public_url = public_url      # the address players reach it at, if not its own (a proxy, a name)
        self.announce = announce          # the name to announce on the local network (None: do not)
        # the proxies whose word is taken for the client's address (server/proxies.py)
        self.proxies = networks(trusted_proxies)
        self._proxy_warned_at = -PROXY_WARN_EVERY     # when a proxy's connection naming no client was last warned of
        self.announcement: Announcement | None = None
        # the port of the finished matches' records and the standings page (None: not served)
        self.records_port = records_port
        self.published: Published | None = None
        self.not_announced: str | None = None             # why not, when it was asked for
        self.grace = float(grace)
        self.limits = dataclasses.replace(limits or Limits(), **limit_overrides)
        # the data directory keeps the server key either way; the tables live in the data
        # directory's SQLite file, or in the PostgreSQL database of a postgresql:// URL
        self.database = database
        self.store: Store
        self.cluster: Cluster | None = None
        if database == "sqlite":
            self.store = SQLiteStore(self.data_dir, synchronous)
        else:
            # imported only here: their driver, asyncpg, is the optional extra `postgres`, which
            # playing (on SQLite) never needs
            try:
                from .cluster import Cluster
                from .postgres_store import PostgresStore
            except ModuleNotFoundError as e:
                if e.name != "asyncpg":
                    raise
                raise NoDriver("a PostgreSQL database needs the driver asyncpg, which is not installed: "
                               "pip install 'governor[postgres]' (in a checkout of the source, `make test` "
                               "installs it)") from None
            self.store = store = PostgresStore(database, self.limits.lease)
            # the process keeps the leases of the tables it serves (server/cluster.py)
            self.cluster = Cluster(self, store)
        self.deciders = Deciders(bot_workers, bot_processes, self.limits.bot_seconds)
        self.signer = None
        self.tables: dict[str, Table] = {}                # open tables, and finished ones in use
        self.resting = Resting(self.limits.finished_cache)   # finished tables nobody is at, kept built
        self.listed = Packed()                            # the listing's frame, packed once per change
        self.quotas = Quotas(self.limits)
        self.lobby = Lobby(self.limits, self.quotas)      # what the lobby answers (server/lobby.py)
        self.metrics = Metrics()
        self.operator = Operator(operator_key, self.quotas, self.tables, self.cluster)
        # Replaying a match from its log is CPU work of many milliseconds: one thread does it, so
        # the event loop never does, and several replays at once never take turns with it.
        self.replayer = Background("governor-replay")
        self._per_addr: Counter[str] = Counter()
        self.connections = 0                              # open sockets, see _Counted
        # of those, the ones whose WebSocket is not open yet, oldest first (a dict keeps the order)
        self.unopened: dict[_Counted, None] = {}
        self.max_connections = self.limits.max_connections   # lowered at start if files are short
        self._ws = None
        self.gate: Gate | None = None                     # accepts the connections (server/gate.py)
        self._lock_file = None
        self._janitor: asyncio.Task | None = None

    # ------------------------------------------------------------------ life cycle

    @property
    def fingerprint(self) -> str:
        return self.signer.fingerprint

    @property
    def url(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://{self.host}:{self.port}"

    async def start(self) -> int:
        """Open the data directory, rebuild every unfinished table, listen. Returns the port."""
        make_private(self.data_dir)     # the key and the database are for no other user (server/private.py)
        self._lock()
        self.signer = load_or_create(self.data_dir)
        await self.store.open()
        if self.cluster is not None:
            await self.cluster.start()    # the tables whose lease it takes, rebuilt by their tasks
        else:
            for row in await self.store.open_tables():
                self.adopt(row).ensure_running()  # a started match is rebuilt from its log by its task
        self.lobby.finished.load(await self.store.finished(LISTED_FINISHED))
        spare = SPARE_FILES + HELD_REFUSALS + (MAX_VISITORS if self.records_port is not None else 0)
        files = raise_file_limit(self.limits.max_connections + spare)
        if files < self.limits.max_connections + spare:
            self.max_connections = max(1, files - spare)
            log.warning("this process may open %d files: at most %d connections, not %d", files,
                        self.max_connections, self.limits.max_connections)
        # The gate accepts the connections (server/gate.py), asyncio never does: nothing is
        # awaited between the two. The opening handshake's deadline is each connection's own
        # (_Counted), not websockets' one for all.
        self._ws = await serve(self._handler, self.host, self.port, open_timeout=None, process_request=self._http)
        self.gate = Gate(self._ws.sockets, self._may_connect,
                         refusal(self.limits.conn_rate, self.limits.conn_burst), self._open_socket)
        self.port = self._ws.sockets[0].getsockname()[1]
        self._janitor = asyncio.get_running_loop().create_task(self._sweep())
        if self.records_port is not None:
            self.published = Published(self.data_dir, self.fingerprint, self.metrics)
            self.records_port = await self.published.start(self.host, self.records_port, self.tls)
        if self.cluster is not None:
            await self.cluster.run(self.public_url or self.url)
        if self.announce is not None:
            try:
                self.announcement = await Announcement.start(self.announce, self.host, self.port,
                                                             self.tls is not None, self.fingerprint)
            except NotAnnounced as e:
                self.not_announced = str(e)
        log.info("listening on %s (server key %s)", self.url, self.fingerprint,
                 extra={"url": self.url, "fingerprint": self.fingerprint})
        return self.port

    async def _sweep(self) -> None:
        """Now and then, close waiting tables no person is at, or that waited too long (they
        would hold the table limit), and let the quotas forget addresses with nothing to remember."""
        idle, lifetime = self.limits.idle_table, self.limits.waiting_table
        while True:
            await asyncio.sleep(max(0.05, min(15.0, idle / 4, lifetime / 4)))
            self._expire_waiting(idle, lifetime)
            self.quotas.sweep(time.monotonic())

    def _expire_waiting(self, idle: float, lifetime: float) -> None:
        # not in _sweep's loop, whose sleep would keep the last table looked at from being freed
        for table in list(self.tables.values()):
            if table.status == "waiting":
                table.post(Expire(idle, lifetime))

    def adopt(self, row: TableRow) -> Table:
        """A table from the database, in memory."""
        return self._in_use(Table(self, row))

    def _in_use(self, table: Table) -> Table:
        """The table is among those in use: found by its id."""
        self.tables[table.id] = table
        return table

    def finished_now(self, table: Table) -> None:
        """A table's match ended (called by the table's task): the lobby lists it, unless it is private."""
        self.metrics.finished[table.status] += 1
        if not table.private:
            self.lobby.finished.add(table.id, table.summary())
            if self.published is not None and table.core.exchange is not None:
                self.published.add(table.id, table.core.exchange.log)

    def forget(self, table: Table) -> None:
        """A finished table nobody is at is no longer in use (called by the table's task): it
        rests, built, until it is asked for again or others push it out. A frozen one does not."""
        self.out_of_use(table)
        if table.core.frozen:
            return   # perhaps a read that failed once: rebuilt from the log when asked for again
        self.lobby.finished.update(table.id, table.summary())
        self.resting.put(table)

    def out_of_use(self, table: Table) -> None:
        """The table is no longer among those in use (it rests, or another process serves it)."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]

    def in_memory(self, table_id: str) -> Table | None:
        """The table with this id if it is in use or resting (then it is in use again)."""
        table = self.tables.get(table_id)
        if table is None:
            table = self.resting.take(table_id)
            if table is not None:
                self._in_use(table)
        return table

    async def table(self, table_id: str) -> Table | None:
        """The table with this id, loaded from the database if it is finished and not in memory."""
        table = self.in_memory(table_id)
        if table is None:
            row = await self.store.finished_table(table_id)
            table = self.in_memory(table_id)  # someone else may have loaded it meanwhile
            if table is None and row is not None:
                table = self.adopt(row)
        return table

    def _lock(self) -> None:
        """One server per data directory: two would write the same logs."""
        f = open(self.data_dir / "server.lock", "a+", opener=lambda path, flags: os.open(path, flags, 0o600))
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise RuntimeError(f"another server is running on the data directory {self.data_dir}") from None
        self._lock_file = f

    async def stop(self, farewell: tuple[str, str] | None = None) -> None:
        """Withdraw the announcement, close every connection with 1001 (going away), stop the
        tables, close the database. Moves being committed are finished; reads and replays, which
        no accepted move waits for, are not waited for (server/background.py). `farewell`, a
        notice's (code, message), is said to everyone at a table first (`governor play`'s host
        leaving: "host_left")."""
        if farewell is not None:
            await self._say_farewell(*farewell)
        if self.announcement is not None:
            await self.announcement.stop()
            self.announcement = None
        if self._janitor is not None:
            self._janitor.cancel()
            self._janitor = None
        if self.cluster is not None:
            self.cluster.stop()
        if self.gate is not None:
            self.gate.close()
        if self.published is not None:
            await self.published.stop()
            self.published = None
        if self._ws is not None:
            self._ws.close(code=wire.CLOSE_SHUTDOWN, reason="server shutting down")
            for connection in list(self.unopened):   # nothing to lose: no hello yet
                connection.cut_unopened()
        # A connection may be waiting for a read or a replay: it ends now, so that its handler does.
        self.store.stop_reading()
        self.replayer.cut()
        if self._ws is not None:
            try:
                await asyncio.wait_for(self._ws.wait_closed(), 10)
            except asyncio.TimeoutError:
                log.warning("some connections did not close in time")
            self._ws = None
        for table in list(self.tables.values()):
            await table.stop()
        if self.cluster is not None:
            await self.cluster.release()
        self.deciders.shutdown()
        await self.store.close()
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    async def _say_farewell(self, code: str, message: str) -> None:
        """Tell everyone at a table why the server stops, and close their connections once it
        went out (a moment at most each: conn.py's flush)."""
        closing = []
        for table in list(self.tables.values()):
            frame = wire.encode({"type": "notice", "table": table.id, "code": code, "message": message})
            for conn in table.core.connections():
                conn.push(frame)
                closing.append(conn.close(wire.CLOSE_SHUTDOWN, message))
        closing = [task for task in closing if task is not None]
        if closing:
            await asyncio.wait(closing, timeout=5)

    # ------------------------------------------------------------------ connections

    def _may_connect(self, ip: str) -> bool:
        """Whether the gate lets a socket from `ip` in: a trusted proxy's always (its clients'
        addresses are known only once it says them, and are counted then, in _handler)."""
        return trusted(self.proxies, ip) or self.quotas.may_connect(client_address(ip))

    def _unknown_behind_proxy(self, proxy: str, said: list[str]) -> None:
        """A trusted proxy's connection that names no client: counted, and warned of at most
        once a minute, for the operator, whose players behind it now share one address's limits."""
        self.metrics.unknown_behind_proxy += 1
        now = time.monotonic()
        if now < self._proxy_warned_at + PROXY_WARN_EVERY:
            return
        self._proxy_warned_at = now
        what = f"an X-Forwarded-For whose last hop is no address ({said[-1][-60:]!r})" if said else \
            "no X-Forwarded-For"
        log.warning("a connection from the trusted proxy %s came with no PROXY header and %s: it counts as the "
                    "proxy's own address, whose limits every client it carries then shares (%d such connections "
                    "since the server started; see governor_proxy_unknown_clients_total)", proxy, what,
                    self.metrics.unknown_behind_proxy)

    def _open_socket(self, sock: socket.socket) -> None:
        """A socket the gate let in: asyncio makes its transport (after TLS's handshake, if the
        server speaks TLS, which has `hello_timeout`), websockets its connection."""
        asyncio.get_running_loop().create_task(self._open(sock))

    async def _open(self, sock: socket.socket) -> None:
        tls_timeouts = {"ssl_handshake_timeout": self.limits.hello_timeout,
                        "ssl_shutdown_timeout": CLOSE_TIMEOUT} if self.tls else {}
        proxied: list[str | None] = []      # a TLS listener's trusted proxy: the PROXY header's word, if one came
        try:
            if self.tls is not None and trusted(self.proxies, sock.getpeername()[0]):
                proxied = await asyncio.wait_for(_proxy_before_tls(sock), self.limits.hello_timeout)
            await asyncio.get_running_loop().connect_accepted_socket(lambda: self._connection(proxied), sock,
                                                                     ssl=self.tls, **tls_timeouts)
        except ProxyError as e:
            log.warning("a trusted proxy's connection cut: its PROXY header is bad (%s)", e)
            sock.close()
        except Exception:    # its TLS handshake failed, or it is gone: nothing to serve, nobody to tell
            sock.close()

    def _connection(self, proxied: list[str | None]) -> _Counted:
        """A socket's connection, as websockets' serve would make it (its own maker is never
        called: the gate accepts, not asyncio). `proxied`: the address in a PROXY header read
        before TLS, in a list (empty: none was sent)."""
        conn = _Counted(self, ServerProtocol(max_size=self.limits.max_frame), self._ws, ping_interval=20,
                        ping_timeout=20, close_timeout=CLOSE_TIMEOUT)
        if proxied:
            conn.proxied_ip = proxied[0]
        return conn

    def _http(self, connection: ServerConnection, request):
        """A plain HTTP GET of /healthz or /metrics is answered here, before any WebSocket
        handshake; any other request goes on to be one."""
        path = request.path.partition("?")[0]
        if path == "/healthz":
            return connection.respond(200, "ok\n")
        if path == "/metrics":
            response = connection.respond(200, exposition(self))
            del response.headers["Content-Type"]     # respond()'s plain text, without Prometheus' version
            response.headers["Content-Type"] = CONTENT_TYPE
            return response
        return None

    async def _handler(self, ws: _Counted) -> None:
        ws.opened()
        conn = Conn(ws, self.limits.outbox, self.limits.rate, self.limits.burst, self.limits.chat_rate,
                    self.limits.chat_burst)
        if ws.via_proxy:    # the client is who the proxy says (server/proxies.py)
            said = ws.request.headers.get_all("X-Forwarded-For")
            ip = ws.proxied_ip or forwarded_for(self.proxies, said)
            if ip is not None:
                conn.addr = client_address(ip)
            else:
                self._unknown_behind_proxy(conn.addr, said)
            if not self.quotas.may_connect(conn.addr):
                await ws.close(wire.CLOSE_FLOODING, f"more than {self.limits.conn_rate:g} new connections a second "
                                                    f"from your address (conn_rate)")
                return
        if self._per_addr[conn.addr] >= self.limits.conns_per_addr:
            await ws.close(wire.CLOSE_TOO_MANY, f"more than {self.limits.conns_per_addr} connections from one address")
            return
        self._per_addr[conn.addr] += 1
        try:
            await self._session(conn)
        except ConnectionClosed:
            pass
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise
            # not this task: the read or replay it waited for, which a stopping server cuts
            # (server/background.py); the client is told the server is going away
            await ws.close(wire.CLOSE_SHUTDOWN, "server shutting down")
        finally:
            self._per_addr[conn.addr] -= 1
            if not self._per_addr[conn.addr]:
                del self._per_addr[conn.addr]
            if conn.table is not None:
                conn.table.post(Detach(conn))
            conn.closed = True      # nothing more is queued ...
            await conn.flush()      # ... and what is goes out first, briefly (at once if closed)

    async def _violation(self, conn: Conn, code: int, reason: str) -> None:
        """Close with a code and a reason, once what is queued went out (for a moment at most).
        Frames the client sent meanwhile are read and dropped, so its close frame gets through
        and the close handshake ends at once."""
        closing = conn.close(code, reason)
        try:
            async for _ in conn.ws:
                pass
        except ConnectionClosed:
            pass
        if closing is not None:
            await closing

    async def _session(self, conn: Conn) -> None:
        ws = conn.ws
        try:
            async with asyncio.timeout_at(ws.hello_deadline):
                first = await ws.recv()
        except TimeoutError:
            return await self._violation(conn, wire.CLOSE_BAD_HELLO, "no hello in time")
        try:
            hello = wire.decode(first, max_size=self.limits.max_frame)
        except wire.WireError as e:
            return await self._violation(conn, e.close, e.message)
        claim = self.lobby.hello(hello)
        if isinstance(claim, Cut):
            return await self._cut(conn, claim)
        table = None
        if claim is not None:   # a claim of a seat there, answered once the challenge is out
            if claim.table not in self.tables and claim.table not in self.resting:
                refused = self.lobby.claim_read(conn.addr)
                if refused is not None:
                    return await self._cut(conn, refused)
            table = await self.table(claim.table)
            url = None
            if table is None and self.cluster is not None:
                table, url = await self.cluster.find(claim.table)
            if table is None:
                return await self._carry_out(conn, *self.lobby.claim_not_here(claim, url))
        nonce = secrets.token_bytes(32)
        conn.push(self.lobby.welcome(self.fingerprint, self.signer.public_key, nonce,
                                     self.cluster.urls if self.cluster is not None else None))
        if table is not None:   # the table checks the answer against its seat's key
            try:
                async with asyncio.timeout_at(ws.hello_deadline + self.limits.hello_timeout):
                    answer = wire.decode(await ws.recv(), max_size=self.limits.max_frame)
            except TimeoutError:
                return await self._violation(conn, wire.CLOSE_BAD_HELLO, "no claim in time")
            except wire.WireError as e:
                return await self._violation(conn, e.close, e.message)
            attach = self.lobby.claim(claim, answer, conn, nonce)
            if isinstance(attach, Cut):
                return await self._cut(conn, attach)
            await table.request(attach)
        async for frame in ws:
            if conn.closed:
                continue  # closing (replaced, overflowed): read on until the close frame comes
            if not conn.bucket.take():
                return await self._violation(conn, wire.CLOSE_FLOODING, f"more than {self.limits.rate:g} messages "
                                                                        f"a second")
            try:
                msg = wire.decode(frame, max_size=self.limits.max_frame)
            except wire.WireError as e:
                return await self._violation(conn, e.close, e.message)
            refused = self.lobby.later(msg)
            if refused is not None:
                return await self._cut(conn, refused)
            await self._dispatch(conn, msg)

    async def _cut(self, conn: Conn, cut: Cut) -> None:
        await self._violation(conn, cut.code, cut.reason)

    async def _carry_out(self, conn: Conn, *answers: Refuse | Redirect | Cut) -> None:
        """The lobby's answers, in order: frames sent, a Cut closing the connection."""
        for answer in answers:
            if isinstance(answer, Cut):
                await self._cut(conn, answer)
            else:
                conn.push(answer.frame)

    # ------------------------------------------------------------------ routing and the lobby

    async def _dispatch(self, conn: Conn, msg: dict) -> None:
        kind = msg["type"]
        self.metrics.messages[kind] += 1
        if kind == "list":
            return conn.push(self.listed.frame(self.listing()))
        if kind == "create":
            return await self._create(conn, msg)
        if kind in ("sit", "watch"):
            approach = self.lobby.approach(msg, conn, conn.table.id if conn.table is not None and conn.seat is not None
                                           else None, self._kept, conn.addr)
            if isinstance(approach, Refuse):
                return conn.push(approach.frame)
            tid = approach.table
            table = await self.table(tid)
            url = None
            if table is None and self.cluster is not None:
                table, url = await self.cluster.find(tid)
            if table is None:
                return await self._carry_out(conn, self.lobby.not_here(tid, url))
            if conn.table is not None and conn.table is not table:  # stop watching the other table
                await conn.table.request(Leave(conn))
                table = await self.table(tid) or table  # a finished one may have left memory meanwhile
            return await table.request(approach.request)
        if kind == "leave":
            refused = self.lobby.leave(conn.table is not None)
            if refused is not None:
                return conn.push(refused.frame)
            return await conn.table.request(Leave(conn))
        if kind == "chat":
            return self._chat(conn, msg["text"])
        if kind == "operator":
            return await self.operator.handle(conn, msg)
        # a seat's commands go to its table's inbox; the table answers
        table = conn.table
        if table is None or (conn.seat is None and kind != "resync"):
            return conn.push(self.lobby.unseated(msg))
        if not table.post_command(seat_command(conn, msg, time.perf_counter())):
            conn.push(self.lobby.busy(msg))

    def _chat(self, conn: Conn, text: str) -> None:
        """A seated player's line to everyone at its table, or the lobby's refusal to its sender."""
        said = self.lobby.chat(conn, conn.table, conn.seat, text, conn.chat)
        if isinstance(said, Refuse):
            return conn.push(said.frame)
        for c in conn.table.core.connections():
            conn.table.broadcaster.send(c, said)

    def listing(self) -> list[dict]:
        """The lobby's listing (server/lobby.py), from memory only."""
        return self.lobby.listing(self.tables, self.cluster.elsewhere if self.cluster is not None else ())

    def _kept(self, table_id: str) -> bool:
        """The table is in memory: in use or resting (else it is read from the database)."""
        return table_id in self.tables or table_id in self.resting

    async def _create(self, conn: Conn, msg: dict) -> None:
        asked = self.lobby.ask_table(msg)
        if isinstance(asked, Refuse):
            return conn.push(asked.frame)
        if self.cluster is not None and not asked.here:   # on the least loaded process
            url = await self.cluster.place()
            if url is not None:
                return conn.push(Redirect(url).frame)
        row = self.lobby.admit(asked, conn.addr, [t.creator for t in self.tables.values() if t.active],
                               self.tables.__contains__, time.monotonic(), time.time())
        if isinstance(row, Refuse):
            return conn.push(row.frame)
        try:
            await self.store.create_table(row)
        finally:
            self.lobby.stored(conn.addr)
        table = Table(self, row, creator=conn.addr)
        self.tables[row.id] = table
        table.ensure_running()
        nbots = len(asked.levels)
        log.info("table %s created by %s: %s, %d seats, %d bots (%s)", row.id, conn.addr, row.game, asked.seats, nbots,
                 ", ".join(asked.levels) or asked.level, extra={"table": row.id, "address": conn.addr,
                                                                "game": row.game, "seats": asked.seats, "bots": nbots,
                                                                "status": "waiting"})
        conn.push(self.lobby.created(row.id, self.limits.idle_table))


async def _proxy_before_tls(sock: socket.socket) -> list[str | None]:
    """A trusted proxy's PROXY header on a TLS listener, where it comes before the TLS handshake:
    read off the socket, byte for byte what it is and nothing of the handshake after it, so that
    TLS then starts on the handshake's first byte. [the client's address] (None inside for
    `PROXY UNKNOWN`), or [] when the connection starts with no header (a TLS handshake never
    starts with the letter P). Raises ProxyError for a bad header, ConnectionError when the
    socket closes first."""
    loop = asyncio.get_running_loop()
    line = b""
    while True:
        readable = loop.create_future()
        loop.add_reader(sock.fileno(), lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(sock.fileno())
        ahead = sock.recv(PROXY_MAX - len(line), socket.MSG_PEEK)
        if not ahead:
            raise ConnectionError("closed before its TLS handshake")
        if not line and not ahead.startswith(PROXY_PREFIX[:1]):
            return []
        end = ahead.find(b"\n")
        line += sock.recv(len(ahead) if end < 0 else end + 1)      # the header's bytes only
        if end >= 0 or len(line) >= PROXY_MAX:
            break
    if not line.startswith(PROXY_PREFIX) or not line.endswith(b"\r\n"):
        raise ProxyError(f"no PROXY header ending in CRLF within {PROXY_MAX} bytes")
    return [proxy_header(line)]


class _Counted(ServerConnection):
    """A connection counted in its server's total from the moment it is accepted, before any
    handshake (a socket that never says a word holds a file all the same), and never over the
    total: a flood of idle sockets can then never leave the server without files for its
    database or for the players at its tables. When the total is full, the connection that has
    waited longest without opening its WebSocket is cut to make room for the new one, and only
    when every connection is open is the new one cut: idle sockets from many addresses then
    cannot keep out an honest client, who opens its WebSocket within milliseconds. (A socket
    from an address that opens them faster than its quota never gets this far: server/gate.py.)

    An idle socket costs as little as it can: websockets sets a connection up (its handshake
    task, its buffers) only once the client's first bytes arrive, and from the moment it is
    accepted a connection has until its `hello_deadline` to open the WebSocket and say hello, a
    deadline drawn between `hello_timeout` and HELLO_SPREAD times it. Past it, a connection not
    yet open is cut, with no closing handshake (there is nothing to say it in). Sockets opened
    together are thus cut, and come back, a few at a time: 900 idle sockets cut at the same
    instant once held every table's moves for 0.1-0.5 s."""

    def __init__(self, server: Server, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.owner = server
        self.counted = False    # in the server's total (until it is lost, or cut to make room)
        self.heard = False      # websockets has it: the client's first bytes came
        self.unheard: asyncio.Transport | None = None   # its transport until the client's first bytes
        self.hello_deadline = 0.0     # the event loop's time by which its hello must have come
        self._deadline: asyncio.TimerHandle | None = None
        self.via_proxy = False        # from a trusted proxy (server/proxies.py)
        self.proxied_ip: str | None = None    # the client's address, as its PROXY header said
        self._proxy_line: bytes | None = None     # a PROXY header being read (plain connections only)

    def connection_made(self, transport) -> None:
        if self.owner.connections >= self.owner.max_connections:
            if not self.owner.unopened:
                transport.abort()
                return
            oldest = next(iter(self.owner.unopened))
            oldest.uncount()
            oldest.cut_unopened()
        self.owner.connections += 1
        self.owner.unopened[self] = None
        self.counted = True
        self.unheard = transport
        peer = transport.get_extra_info("peername")
        self.via_proxy = bool(peer) and trusted(self.owner.proxies, peer[0])
        if self.via_proxy and self.owner.tls is None:    # with TLS, the handshake comes first: no header
            self._proxy_line = b""
        self.hello_deadline = self.loop.time() + self.owner.limits.hello_timeout * random.uniform(1, HELLO_SPREAD)
        self._deadline = self.loop.call_at(self.hello_deadline, self.cut_unopened)

    def data_received(self, data: bytes) -> None:
        if self._proxy_line is not None:
            data = self._proxy_header(data)
            if not data:
                return
        if self.unheard is not None:
            transport, self.unheard = self.unheard, None
            self.heard = True
            super().connection_made(transport)
        super().data_received(data)

    def _proxy_header(self, data: bytes) -> bytes:
        """A trusted proxy's first bytes: its PROXY header, if it sends one, is read off (the
        client's address kept); what follows, or all of it without a header, is returned."""
        line = self._proxy_line + data
        if len(line) < len(PROXY_PREFIX) and PROXY_PREFIX.startswith(line):
            self._proxy_line = line      # perhaps the start of a header
            return b""
        self._proxy_line = None
        if not line.startswith(PROXY_PREFIX):
            return line                  # no header: X-Forwarded-For, or the proxy's own address
        end = line.find(b"\r\n", 0, PROXY_MAX)
        if end < 0 and len(line) < PROXY_MAX:
            self._proxy_line = line
            return b""
        try:
            if end < 0:
                raise ProxyError(f"no end of line within {PROXY_MAX} bytes")
            self.proxied_ip = proxy_header(line[:end + 2])
        except ProxyError as e:
            log.warning("a trusted proxy's connection cut: its PROXY header is bad (%s)", e)
            self.unheard.abort()
            return b""
        return line[end + 2:]

    def eof_received(self) -> bool | None:
        if self.unheard is not None:
            return None     # the socket closes
        return super().eof_received()

    def opened(self) -> None:
        """The WebSocket is open: its hello is awaited in Server._session, to the same deadline."""
        self.owner.unopened.pop(self, None)

    def cut_unopened(self) -> None:
        """Cut it if its WebSocket is not open yet (past its deadline, or the server stopping)."""
        if self.unheard is not None:
            self.unheard.abort()
        elif self.protocol.state is State.CONNECTING:
            self.transport.abort()

    def uncount(self) -> None:
        """Out of the server's total: lost, or about to be cut to make room."""
        if self.counted:
            self.counted = False
            self._deadline.cancel()
            self.owner.connections -= 1
            self.owner.unopened.pop(self, None)

    def connection_lost(self, exc) -> None:
        self.uncount()
        if self.heard:
            super().connection_lost(exc)
        # websockets' parser is a generator of its protocol's, which it refers to: a cycle, which
        # a server process does not collect (server/heap.py). Nothing is parsed any more: it is
        # closed. A connection cut short stopped it on an exception, which the protocol keeps,
        # whose traceback holds the parser's frame: the exception stays, bar its traceback.
        self.protocol.parser.close()
        if self.protocol.parser_exc is not None:
            self.protocol.parser_exc.__traceback__ = None
        # Lost on an error (a reset), the connection hands that one exception to every task
        # waiting to write to it (a slow reader's writer, a close handshake, a ping), and keeps it:
        # raised there, it gathers their frames in its traceback, which refer to the connection, a
        # cycle. Those tasks run first (woken before this is called back), then the traceback goes.
        if exc is not None:
            self.loop.call_soon(setattr, exc, "__traceback__", None)


def raise_file_limit(want: int) -> int:
    """Let this process open `want` files if the system allows it (the soft limit is often 1024,
    the hard one far higher); the files it may open now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return want if soft == resource.RLIM_INFINITY else soft


# ---------------------------------------------------------------------- command line

def server_tls(cert: str, key: str | None = None) -> ssl.SSLContext:
    """The TLS side of wss://: a certificate chain in PEM, its private key in the same file or in
    `key`. Raises OSError or ssl.SSLError when they cannot be read or do not match."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


def settle_process() -> None:
    """What a server in a process of its own does once it has started (`governor serve`, and the
    benchmarks that run it as it runs): its collector off (server/heap.py) and the interpreter
    handed back to the event loop within SWITCH_INTERVAL."""
    heap.settle()
    sys.setswitchinterval(SWITCH_INTERVAL)


async def _serve(server: Server) -> int:
    await server.start()          # binds the port (a real one for --port 0): server.url says it
    settle_process()
    print(f"server key fingerprint: {server.fingerprint}", flush=True)
    print(f"data directory: {server.data_dir}", flush=True)
    if server.database != "sqlite":
        print(f"database: {redacted(server.database)}", flush=True)
    print(f"listening on {server.url}", flush=True)
    if server.public_url:
        print(f"players join {server.public_url}", flush=True)
    if server.published is not None:
        scheme = "https" if server.tls else "http"
        print(f"records and standings on {scheme}://{server.host}:{server.records_port}/", flush=True)
    if server.announcement is not None:
        print(f"announced on the local network as {server.announcement.name!r}", flush=True)
    elif server.not_announced is not None:
        print(f"not announced on the local network: {server.not_announced}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        await stop.wait()
    finally:
        print("shutting down", flush=True)
        await server.stop()
    return 0


def main(settings: dict) -> int:
    """`governor serve` with its settings (server/settings.py: every name of SETTINGS, and
    `limits`, a dict of Limits to change), checked."""
    cert, key = settings["cert"], settings["key"]
    try:
        tls = server_tls(cert, key) if cert else None
    except (OSError, ssl.SSLError) as e:
        print(f"governor serve: cannot use the certificate {cert!r}"
              f"{f' with the key {key!r}' if key else ''}: {e.strerror or e}", file=sys.stderr)
        return 2
    try:
        operator_key = read_key(settings["operator_key_file"]) if settings["operator_key_file"] else None
    except ValueError as e:
        print(f"governor serve: {e}", file=sys.stderr)
        return 2
    logs.setup(settings["log_format"])
    host, port = settings["host"], settings["port"]
    # Players on the network hear the server as its machine's name (client/discover.py).
    announce = f"Governor on {socket.gethostname().split('.')[0]}" if settings["announce"] else None
    try:
        server = Server(settings["data_dir"], host, port, grace=settings["grace"], tls=tls,
                        operator_key=operator_key, announce=announce, database=settings["database"],
                        public_url=settings["public_url"], trusted_proxies=settings["trusted_proxies"],
                        records_port=settings["records_port"] if settings["records"] else None,
                        **settings["limits"])
    except NoDriver as e:
        print(f"governor serve: {e}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(server))
    except RuntimeError as e:
        print(f"governor serve: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"governor serve: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        return 1
