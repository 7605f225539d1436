"""Accepting connections: an address that opens them faster than its quota is refused at the
accept, before anything is made for it.

asyncio's own accept makes, for every socket it accepts, a task, a transport and its protocol
(websockets': a connection, a handshake parser, a logger), and only then could the server look at
the address: the event loop's time for a socket cut at once, which one address reconnecting in a
loop would multiply into a large share of a core. The gate accepts
the listening sockets' connections itself. A socket from an address over `conn_rate` is sent a
fixed HTTP 429 and closed: a few system calls in all, and a client that reads it learns why
(`Retry-After` says when to try again). Any other socket is handed to asyncio (TLS, if the server
speaks it, starts only then) and to websockets, which open it as they would have.

The refusal comes REFUSAL_DELAY after the accept, not at once: a client that waits for its
answer before it tries again (as clients do) then tries about once a second per connection it
keeps trying with, not hundreds of times, and each of its tries costs the server's machine less
(its own work too shares the cores). At most HELD_REFUSALS sockets wait so, each holding a file;
past that a refused socket is answered at once.

asyncio serves a listening socket with a reader on its file descriptor, which accepts and makes
all of that; right after the websockets server starts listening, with nothing awaited between
(so asyncio never accepts one), the gate's own reader takes its place there (`add_reader`
replaces it), and accepts through a copy of the socket. The websockets server still owns the
listening sockets, the handshake and the connections, and closes them all.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import math
import socket
from collections import deque
from typing import Callable

log = logging.getLogger("governor.server")

ACCEPTS_PER_WAKE = 100       # sockets accepted at most each time a listening socket is ready (as asyncio)
RETRY_ACCEPT = 1.0           # seconds: out of files, the gate accepts again after this (as asyncio)
OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
REFUSAL_DELAY = 1.0          # seconds from a refused socket's accept to its answer
HELD_REFUSALS = 64           # refused sockets waiting for their answer, at most (each holds a file)
REQUEST_BYTES = 4096         # read from a refused socket before it is closed (a handshake request)


def refusal(conn_rate: float, conn_burst: int) -> bytes:
    """The answer to a socket over its address's connection quota, whole: one send."""
    text = (f"More than {conn_rate:g} new connections a second (a burst of {conn_burst}) from your address "
            f"(conn_rate); try again in a moment.\n").encode()
    return (b"HTTP/1.1 429 Too Many Requests\r\n"
            b"Retry-After: %d\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\n"
            b"Connection: close\r\n\r\n" % (math.ceil(1 / conn_rate), len(text))) + text


class Gate:
    """Accepts on `listeners` (the sockets asyncio listens on) in asyncio's place: a socket whose
    address `may_connect` refuses gets `refused` REFUSAL_DELAY later and is closed; any other is
    opened with `open_socket`."""

    def __init__(self, listeners, may_connect: Callable[[str], bool], refused: bytes,
                 open_socket: Callable[[socket.socket], None]) -> None:
        self.loop = asyncio.get_running_loop()
        self.may_connect = may_connect
        self.refused = refused
        self.open_socket = open_socket
        self.refusals = 0
        self.held: deque[tuple[float, socket.socket]] = deque()   # (when to answer, socket), oldest first
        self._answering: asyncio.TimerHandle | None = None        # the timer of the oldest's answer
        # file descriptor -> a copy of its socket, to accept with (asyncio's own has no accept)
        self.listeners: dict[int, socket.socket] = {}
        for s in listeners:
            copy = s.dup()
            copy.setblocking(False)
            self.listeners[s.fileno()] = copy
            self.loop.add_reader(s.fileno(), self._accept, s.fileno())

    def _accept(self, fd: int) -> None:
        listener = self.listeners[fd]
        for _ in range(ACCEPTS_PER_WAKE):
            try:
                sock, peer = listener.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as e:
                if e.errno not in OUT_OF_FILES:
                    raise
                log.warning("no file for a new connection (%s): accepting again in %g s", e.strerror, RETRY_ACCEPT)
                self.loop.remove_reader(fd)
                self.loop.call_later(RETRY_ACCEPT, self._again, fd)
                return
            if self.may_connect(peer[0]):
                self.open_socket(sock)
                continue
            self.refusals += 1
            if len(self.held) >= HELD_REFUSALS:
                self._answer(sock)
                continue
            self.held.append((self.loop.time() + REFUSAL_DELAY, sock))
            if self._answering is None:
                self._answering = self.loop.call_at(self.held[0][0], self._answer_due)

    def _answer_due(self) -> None:
        now = self.loop.time()
        while self.held and self.held[0][0] <= now:
            self._answer(self.held.popleft()[1])
        self._answering = self.loop.call_at(self.held[0][0], self._answer_due) if self.held else None

    def _answer(self, sock: socket.socket) -> None:
        """The refusal, and the close. What the client sent is read first, so that the close is
        an end of stream after the answer, not a reset that may overtake it."""
        try:
            sock.recv(REQUEST_BYTES, socket.MSG_DONTWAIT)
        except OSError:
            pass     # nothing sent yet, or gone already
        try:
            sock.send(self.refused, socket.MSG_DONTWAIT)
        except OSError:
            pass     # gone already: the close says it all the same
        sock.close()

    def _again(self, fd: int) -> None:
        if fd in self.listeners:
            self.loop.add_reader(fd, self._accept, fd)

    def close(self) -> None:
        """Accept no more, and answer the refused sockets now: the websockets server closes the
        listening sockets themselves."""
        for fd, copy in self.listeners.items():
            self.loop.remove_reader(fd)
            copy.close()
        self.listeners = {}
        if self._answering is not None:
            self._answering.cancel()
            self._answering = None
        while self.held:
            self._answer(self.held.popleft()[1])
