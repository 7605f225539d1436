"""The records port of `governor serve`: its finished matches' public records and the standings
page they give, over plain HTTP (docs/hosting.md, 'Records and standings').

    GET /                the standings page: plain HTML, each game's table as `governor ratings
                         URL` prints it, then every record published and whether it counted
    GET /records.json    {"records": [name, ...]}: every record published, by name
    GET /records/NAME    one record, as `governor verify` and `governor ratings` read it

A record is published when a match on a table the lobby lists ends (over, or cancelled after it
started): the public entries its exchange signed and nothing else (no seat's private messages),
written to `records/TABLE.govrec` in the data directory. Everything else is done when a match
ends, never when someone asks: on a thread of its own, the new record is audited like any other
(protocol.standings), the standings are computed again from every record judged, and the page and
the list are made as bytes, which every request then gets as they are. A record asked for is read
from its file on a thread. So the work of a request is bounded, and nothing a visitor asks reaches
a table; the port takes at most MAX_VISITORS connections at once, each with OPEN_TIMEOUT seconds
to send its request (at most MAX_HEAD bytes of it) and SEND_TIMEOUT to take the answer. Only GET
is answered, one request per connection (HTTP/1.1 with `Connection: close`); a path not above is
a 404, a request that is not HTTP/1 a 400, another method a 405, never with a traceback.
"""
from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import re
import ssl
from pathlib import Path

from protocol import record
from protocol.messages import Signed
from protocol.standings import COUNTED, Judged, Standings, judge, standings, title

from .background import Background

log = logging.getLogger("governor.records")

FOLDER = "records"              # in the data directory
SUFFIX = ".govrec"
MAX_VISITORS = 64               # connections open at once on the records port
OPEN_TIMEOUT = 10.0             # seconds a connection has to send its request
SEND_TIMEOUT = 30.0             # seconds an answer may take to go out
MAX_HEAD = 16 << 10             # bytes of a request's line and headers
RECORD_PATH = re.compile(rb"/records/([A-Za-z0-9]{1,32}\.govrec)")
HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           431: "Request Header Fields Too Large", 500: "Internal Server Error", 503: "Service Unavailable"}


class Published:
    """The records of one server and what they give, kept for the records port."""

    def __init__(self, data_dir: Path, fingerprint: str, metrics) -> None:
        self.folder = data_dir / FOLDER
        self.fingerprint = fingerprint
        self.metrics = metrics
        self.worker = Background("governor-records")
        self.judged: dict[str, Judged] = {}    # record name -> its verdict; the worker's alone
        self.page = _page(None, fingerprint)   # until the records kept are judged
        self.index: bytes | None = None          # until the records kept are judged
        self.visitors = 0
        self._http = None
        self._work: set[asyncio.Task] = set()    # publishing and judging under way

    async def start(self, host: str, port: int, tls: ssl.SSLContext | None) -> int:
        """Listen on the records port, and judge the records kept (on the worker). Returns the port."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._http = await asyncio.start_server(self._visit, host, port, ssl=tls, limit=MAX_HEAD,
                                                ssl_handshake_timeout=OPEN_TIMEOUT if tls else None)
        self._start("the records kept could not be judged", self._load)
        return self._http.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.worker.cut()
        for task in list(self._work):
            task.cancel()
        if self._http is not None:
            self._http.close()
            await self._http.wait_closed()
            self._http = None

    def add(self, table_id: str, entries: list[Signed]) -> None:
        """A listed table's match ended: publish its public record, then judge it."""
        name = table_id + SUFFIX
        self._start(f"the record {name} could not be published", self._publish, name, record.dumps(entries))

    def _start(self, failure: str, work, *args) -> None:
        """`work(*args)` on the worker, then its page and list in use; `failure` is what is logged
        if it fails."""
        task = asyncio.get_running_loop().create_task(self._refresh(failure, work, *args))
        self._work.add(task)
        task.add_done_callback(self._work.discard)

    # ---------------------------------------------------------------- on the worker's thread

    async def _refresh(self, failure: str, work, *args) -> None:
        try:
            page, index = await self.worker.run(work, *args)
        except asyncio.CancelledError:
            return      # the server is stopping
        except Exception as e:
            self.metrics.records_failed += 1
            log.error("%s: %s", failure, e, exc_info=not isinstance(e, OSError))   # a disk's trouble needs no traceback
            return
        self.page, self.index = page, index

    def _load(self) -> tuple[bytes, bytes]:
        for path in sorted(self.folder.glob("*" + SUFFIX)):
            try:
                data = _read(path)
            except OSError as e:
                log.error("the record %s cannot be read: %s", path, e.strerror or e)
                self.metrics.records_failed += 1
                continue
            self.judged[path.name] = judge(path.name, data)
        return self._made()

    def _publish(self, name: str, data: bytes) -> tuple[bytes, bytes]:
        path = self.folder / name
        tmp = path.with_name(name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        self.judged[name] = judge(name, data)
        return self._made()

    def _made(self) -> tuple[bytes, bytes]:
        result = standings(list(self.judged.values()))
        index = json.dumps({"records": sorted(self.judged)}).encode()
        return _page(result, self.fingerprint), index

    # ---------------------------------------------------------------- requests

    async def _visit(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.visitors >= MAX_VISITORS:
            writer.transport.abort()
            return
        self.visitors += 1
        try:
            async with asyncio.timeout(OPEN_TIMEOUT):
                status, body, kind = await self._request(reader)
            writer.write(_head(status, len(body), kind) + body)
            async with asyncio.timeout(SEND_TIMEOUT):
                await writer.drain()
            writer.close()
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            writer.transport.abort()    # too slow, or gone: nothing more to say to it
        finally:
            self.visitors -= 1

    async def _request(self, reader: asyncio.StreamReader) -> tuple[int, bytes, str]:
        """(status, body, content type) for the request the reader holds."""
        try:
            line = await reader.readuntil(b"\r\n")
            head = len(line)
            while (header := await reader.readuntil(b"\r\n")) != b"\r\n":
                head += len(header)
                if head > MAX_HEAD:
                    return 431, b"The request's headers are too long.\n", TEXT
        except asyncio.LimitOverrunError:
            return 431, b"The request's line or a header is too long.\n", TEXT
        parts = line.split()
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            return 400, b"Not an HTTP/1 request.\n", TEXT
        if parts[0] != b"GET":
            return 405, b"Only GET is answered here.\n", TEXT
        path = parts[1].partition(b"?")[0]
        if path == b"/":
            return 200, self.page, HTML
        if path == b"/records.json":
            if self.index is None:
                return 503, b"The records are being audited; ask again in a moment.\n", TEXT
            return 200, self.index, "application/json"
        found = RECORD_PATH.fullmatch(path)
        if found:
            try:
                data = await asyncio.to_thread(_read, self.folder / found.group(1).decode())
                return 200, data, "application/octet-stream"
            except FileNotFoundError:
                pass
            except OSError as e:
                log.error("the record %s cannot be read: %s", found.group(1).decode(), e.strerror or e)
                self.metrics.records_failed += 1
                return 500, b"The record cannot be read now.\n", TEXT
        return 404, b"Not found: this port serves / (the standings), /records.json and /records/NAME.govrec.\n", TEXT


def _read(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(record.MAX_RECORD + 1)


def _head(status: int, length: int, kind: str) -> bytes:
    return (f"HTTP/1.1 {status} {REASONS[status]}\r\nConnection: close\r\nContent-Length: {length}\r\n"
            f"Content-Type: {kind}\r\nCache-Control: no-cache\r\n\r\n").encode()


def _page(result: Standings | None, fingerprint: str) -> bytes:
    """The standings page: plain HTML, every name escaped."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>Governor standings</title></head><body>", "<h1>Standings</h1>",
           f"<p>The matches of the server with key <code>{e(fingerprint)}</code>. Each record below was "
           "audited, and only the verified rated matches whose every seat held a player key count. "
           "Anyone can compute the same standings: <code>governor ratings</code> with this page's address.</p>"]
    if result is None:
        out.append("<p>The records are being audited; the standings follow in a moment.</p>")
    else:
        for game, players in result.games.items():
            n = result.matches[game]
            out.append(f'<h2 id="{e(game)}">{e(title(game))}: {n} rated match{"es" * (n != 1)}</h2>')
            out.append(f'<table class="standings" data-game="{e(game)}">')
            out.append("<thead><tr><th>rank</th><th>name</th><th>fingerprint</th><th>rating</th><th>games</th>"
                       "</tr></thead><tbody>")
            out += [f"<tr><td>{p.rank}</td><td>{e(p.name)}</td><td><code>{e(p.fingerprint)}</code></td>"
                    f"<td>{p.rating}</td><td>{p.games}</td></tr>" for p in players]
            out.append("</tbody></table>")
        if not result.games:
            out.append("<p>No rated match yet.</p>")
        out.append("<h2>Records</h2>")
        out.append('<table class="records"><thead><tr><th>record</th><th>counted</th></tr></thead><tbody>')
        for j in result.records:
            verdict = "yes" if j.verdict == COUNTED else f"no: {j.verdict}, {j.why}"
            out.append(f'<tr><td><a href="records/{e(j.record)}">{e(j.record)}</a></td><td>{e(verdict)}</td></tr>')
        out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out).encode()
