"""One client connection: its bounded outbox, how it is written to the socket, its rate limit.

Tables never write to a socket. They put encoded frames in the connection's outbox without
waiting; once the table has answered the input (`write_now`), or else at the end of that round
of the event loop, the outbox goes to the socket in one write while the socket takes everything
at once, and otherwise a writer task of the connection's own
sends it as the socket drains: only that task waits for the network. When the outbox is full
(the client stopped reading), the queued view updates are dropped and `stale_view` tells the
table to follow with one fresh snapshot; the signed messages, answers and statuses in the outbox
are kept, because they cannot be rebuilt from a snapshot. A client so far behind that even those
fill the outbox is closed: it can reconnect, claim its seat with its key, say `have` and catch up.

Before a close frame goes out, what is queued goes out first, so that a client learns the answers
and errors that came before the close: for as long as the client keeps taking frames (at least one
every FLUSH_SECONDS), and FLUSH_MAX_SECONDS at most, so a client that reads slowly cannot keep its
connection open by it.
"""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import struct
import time
from collections import deque

from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol.bucket import TokenBucket

log = logging.getLogger("governor.server")

CLOSE_OVERFLOW = 1008  # policy violation: the client does not read what it is sent
FLUSH_SECONDS = 1.0    # before a close: how long the client may take no frame before we give up
FLUSH_MAX_SECONDS = 10.0   # ... and how long the flush may take in all
WRITE_FRAMES = 16      # frames written to the socket together, at most


def client_address(ip: str) -> str:
    """What the per-address limits count by: an IPv4 address itself; an IPv6 address's /64, since
    one IPv6 host usually holds a whole /64 and could take a fresh address for every connection."""
    if ":" not in ip:       # IPv4 (or not an address at all), as it is: asked of every socket accepted
        return ip
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if address.version == 4:
        return ip
    if address.ipv4_mapped is not None:     # an IPv4 client on a dual-stack socket
        return str(address.ipv4_mapped)
    return str(ipaddress.ip_network(f"{address}/64", strict=False))


def network_of(addr: str) -> str:
    """The network a per-address limit's address (client_address) is in, for the limits that
    count a neighbourhood: an IPv4 address's /24, an IPv6 /64's /56 (a home or an office is
    given one; each of its /64s would otherwise count as a client of its own)."""
    try:
        net = ipaddress.ip_network(addr, strict=False)
    except ValueError:
        return addr
    return str(net.supernet(new_prefix=24 if net.version == 4 else 56))


class Conn:
    def __init__(self, ws, outbox: int, rate: float, burst: int, chat_rate: float = 1.0,
                 chat_burst: int = 5) -> None:
        self.ws = ws
        self.outbox: deque[tuple[bool, bytes | None]] = deque()   # (droppable, frame), not yet written
        self.limit = outbox         # frames the outbox holds at most
        self.bucket = TokenBucket(rate, burst)
        self.chat = TokenBucket(chat_rate, chat_burst)   # chat lines: over it, refused, not closed
        self.closed = False
        self.stale_view = False     # view updates were dropped: the next one must be a snapshot
        self.dropped = 0            # view updates dropped so far (for tests and logs)
        self.table = None           # the Table this connection takes part in, if any
        self.seat: int | None = None  # its seat there; None with a table = spectator
        self.seq = -1               # spectators: the seq of the last public view sent
        self.backlog: deque[bytes] = deque()  # signed messages a resumed seat lacks, sent first
        self.sent = 0               # frames written to the socket so far: a flush's progress
        self._due = False           # _write runs at the end of this round of the event loop, if not before
        self._writer: asyncio.Task | None = None   # writing to a socket that did not take it all
        self._empty: asyncio.Future | None = None  # a flush waits on it: the outbox was written
        try:
            self.addr = client_address(ws.remote_address[0])   # what the per-address limits count by
        except (TypeError, IndexError, AttributeError):
            self.addr = "?"

    def __repr__(self) -> str:
        return f"<Conn {self.addr} table={getattr(self.table, 'id', None)} seat={self.seat}>"

    def push(self, frame: bytes, droppable: bool = False) -> None:
        """Queue a frame without waiting. Droppable frames are view updates (snapshot/delta)."""
        if self.closed:
            return
        if len(self.outbox) >= self.limit:
            self._drop_views()
            if len(self.outbox) >= self.limit:
                self.close(CLOSE_OVERFLOW, "outbox overflow: the client does not read its messages")
                return
            if droppable:
                self.dropped += 1
                return
        self.outbox.append((droppable, frame))
        if not self._due and self._writer is None:
            self._due = True
            asyncio.get_running_loop().call_soon(self._write)

    def push_backlog(self, frames: list[bytes]) -> None:
        """Frames to send before anything queued after them, outside the outbox's bound (a
        resuming seat may lack a whole match's signed messages; they cannot be dropped)."""
        if self.closed or not frames:
            return
        self.backlog.extend(frames)
        self.push(None)  # the marker: the backlog is sent when the outbox gets here

    def _drop_views(self) -> None:
        kept = [item for item in self.outbox if not item[0]]
        self.dropped += len(self.outbox) - len(kept)
        self.outbox = deque(kept)
        self.stale_view = True

    def _write(self) -> None:
        """Write the outbox to the socket, in this round of the event loop: what a move pushes to a
        seat (its signed entry, its view update, perhaps an answer) goes out in one write, one
        system call, with no task to wake. Only while the socket takes everything at once: what is
        left when it does not (the client reads slowly, or not at all) the writer task sends, as
        the socket drains, and everything pushed meanwhile after it, in order."""
        if not self._due:       # written already in this round (write_now)
            return
        self._due = False
        ws = self.ws
        if ws.protocol.state is not State.OPEN:    # closing or closed: nothing more can go out
            self.outbox.clear()
            self.backlog.clear()
        transport = ws.transport
        while self.outbox and not transport.get_write_buffer_size() and not transport.is_closing():
            frames = self._take()
            transport.write(framed(frames))
            self.sent += len(frames)
        if self.outbox:
            self._writer = asyncio.get_running_loop().create_task(self._write_slowly())
        else:
            self._emptied()

    def write_now(self) -> None:
        """Write what was pushed now, not at the end of the loop's round: a table that has
        answered an input sends its frames before the loop turns to the other tables' inputs of
        the same round (each would otherwise wait for all of them)."""
        if self._due:
            self._write()

    async def _write_slowly(self) -> None:
        """Send the outbox as the socket drains (websockets' flow control), until it is empty."""
        try:
            while self.outbox:
                frames = self._take()
                async with self.ws.send_context():    # it checks that the connection is open, and
                    self.ws.transport.write(framed(frames))   # waits while the socket's buffer is full
                self.sent += len(frames)
        except ConnectionClosed:
            self.outbox.clear()
            self.backlog.clear()
        finally:
            self._writer = None
        self._emptied()

    def _take(self) -> list[bytes]:
        """The frames at the front of the outbox, WRITE_FRAMES at most (so that a flush sees a slow
        reader's progress), the backlog's in place of its marker."""
        frames = []
        outbox = self.outbox
        while outbox and len(frames) < WRITE_FRAMES:
            frame = outbox[0][1]
            if frame is None:
                backlog = self.backlog
                while backlog and len(frames) < WRITE_FRAMES:
                    frames.append(backlog.popleft())
                if backlog:
                    break       # the marker stays at the front for the rest
            else:
                frames.append(frame)
            outbox.popleft()
        return frames

    def _emptied(self) -> None:
        if self._empty is not None:
            self._empty.set_result(None)
            self._empty = None

    async def flush(self) -> None:
        """Wait until what is queued has been sent: while frames keep going out (one at least
        every FLUSH_SECONDS), FLUSH_MAX_SECONDS at most, and not at all once the socket is
        closing (nothing more can be sent then). A busy machine may take more than a second to
        send a long queue to a client that reads it; one that stopped reading gains a second."""
        if self.ws.state is not State.OPEN or not (self.outbox or self._writer):
            return
        if self._empty is None:
            self._empty = asyncio.get_running_loop().create_future()
        done = self._empty
        closed = asyncio.ensure_future(self.ws.wait_closed())
        give_up = time.monotonic() + FLUSH_MAX_SECONDS
        try:
            while not (done.done() or closed.done()):
                before = self.sent
                wait = min(FLUSH_SECONDS, give_up - time.monotonic())
                if wait <= 0:
                    return
                await asyncio.wait((done, closed), timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                if self.sent == before:
                    return
        finally:
            closed.cancel()

    def close(self, code: int, reason: str) -> asyncio.Task | None:
        """Close from anywhere without waiting: nothing more is queued; what is queued has a
        moment to go out, then the close handshake runs, in a task of its own (returned; None
        when the connection was closing already)."""
        if self.closed:
            return None
        self.closed = True
        reason = reason.encode()[:120].decode(errors="ignore")
        task = asyncio.get_running_loop().create_task(self._close(code, reason))
        _background.add(task)
        task.add_done_callback(_background.discard)
        return task

    async def _close(self, code: int, reason: str) -> None:
        await self.flush()
        try:
            await self.ws.close(code, reason)
        except Exception:  # already gone
            log.debug("closing %r failed", self, exc_info=True)


_background: set[asyncio.Task] = set()

# A server's binary message in one frame (RFC 6455 section 5.2): FIN and the binary opcode, no mask,
# the payload's length in 7, 7 + 16 or 7 + 64 bits, then the payload. The server negotiates no
# extension (server/app.py), so these are the bytes websockets' own framing makes (a test holds
# them to it), without the frame object it builds and checks for each message: a move's four
# frames to a seat are framed in about a quarter of the time.
_SHORT = [bytes((0x82, n)) for n in range(126)]
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def framed(frames: list[bytes]) -> bytes:
    """Binary messages, one WebSocket frame each: the bytes of one write to the socket."""
    return b"".join(piece for frame in frames for piece in (_header(len(frame)), frame))


def _header(length: int) -> bytes:
    if length < 126:
        return _SHORT[length]
    if length < 65536:
        return _MEDIUM.pack(0x82, 126, length)
    return _LONG.pack(0x82, 127, length)
