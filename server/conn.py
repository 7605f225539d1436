"""One client connection: its bounded outbox, the task that writes it to the socket, its rate limit.

Tables never write to a socket. They put encoded frames in the connection's outbox without
waiting; only the connection's own writer task waits for the network. When the outbox is full
(the client stopped reading), the queued view updates are dropped and `stale_view` tells the
table to follow with one fresh snapshot; the signed messages, answers and statuses in the outbox
are kept, because they cannot be rebuilt from a snapshot. A client so far behind that even those
fill the outbox is closed: it can reconnect with its seat token and `have` and catch up.

Before a close frame goes out, what is queued goes out first, so that a client learns the answers
and errors that came before the close: for as long as the client keeps taking frames (at least one
every FLUSH_SECONDS), and FLUSH_MAX_SECONDS at most, so a client that reads slowly cannot keep its
connection open by it.
"""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from collections import deque

from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

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


class TokenBucket:
    """`rate` messages a second on average, `burst` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last = time.monotonic()

    def take(self, cost: float = 1) -> bool:
        """Spend `cost` messages' worth (at most the burst), if the bucket holds it."""
        cost = min(cost, self.burst)
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True

    def full(self) -> bool:
        """As good as a fresh bucket: the burst is whole again."""
        return self.tokens + (time.monotonic() - self.last) * self.rate >= self.burst


class Conn:
    def __init__(self, ws, outbox: int, rate: float, burst: int, chat_rate: float = 1.0,
                 chat_burst: int = 5) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[tuple[bool, bytes]] = asyncio.Queue(maxsize=outbox)
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
        if self.queue.full():
            self._drop_views()
            if self.queue.full():
                self.close(CLOSE_OVERFLOW, "outbox overflow: the client does not read its messages")
                return
            if droppable:
                self.dropped += 1
                return
        self.queue.put_nowait((droppable, frame))

    def push_backlog(self, frames: list[bytes]) -> None:
        """Frames to send before anything queued after them, outside the outbox's bound (a
        resuming seat may lack a whole match's signed messages; they cannot be dropped)."""
        if self.closed or not frames:
            return
        self.backlog.extend(frames)
        self.push(None)  # the marker: the writer sends the backlog when it gets here

    def _drop_views(self) -> None:
        kept = []
        while not self.queue.empty():
            item = self.queue.get_nowait()
            self.queue.task_done()
            if item[0]:
                self.dropped += 1
            else:
                kept.append(item)
        for item in kept:
            self.queue.put_nowait(item)
        self.stale_view = True

    async def writer(self) -> None:
        """Send what is queued, what is there at once together: a move brings a seat its signed
        entry, its view update and perhaps an answer, queued together, and they go out in one
        write to the socket (one system call, not one each); WRITE_FRAMES at most, so that a
        flush sees a slow reader's progress."""
        try:
            while True:
                taken = [(await self.queue.get())[1]]
                while not self.queue.empty() and len(taken) < WRITE_FRAMES:
                    taken.append(self.queue.get_nowait()[1])
                frames = []
                for frame in taken:
                    if frame is None:
                        frames += self.backlog
                        self.backlog.clear()
                    else:
                        frames.append(frame)
                for i in range(0, len(frames), WRITE_FRAMES):
                    await self._send(frames[i:i + WRITE_FRAMES])
                    self.sent += len(frames[i:i + WRITE_FRAMES])
                for _ in taken:
                    self.queue.task_done()
        except ConnectionClosed:
            pass

    async def _send(self, frames: list[bytes]) -> None:
        """Binary messages, one WebSocket frame each, written to the socket together. websockets
        writes each frame by itself (ws.send), so they are framed by its protocol object here and
        written at once, in the context its own send uses (it checks that the connection is open
        and waits while the socket's buffer is full)."""
        ws = self.ws
        async with ws.send_context():
            for frame in frames:
                ws.protocol.send_binary(frame)
            ws.transport.write(b"".join(ws.protocol.data_to_send()))

    async def flush(self) -> None:
        """Wait until what is queued has been sent: while frames keep going out (one at least
        every FLUSH_SECONDS), FLUSH_MAX_SECONDS at most, and not at all once the socket is
        closing (nothing more can be sent then). A busy machine may take more than a second to
        send a long queue to a client that reads it; one that stopped reading gains a second."""
        if self.ws.state is not State.OPEN:
            return
        done = asyncio.ensure_future(self.queue.join())
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
            done.cancel()
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
