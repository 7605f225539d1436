"""One WebSocket to a Governor server: `Link` (hello/welcome, then messages in and out, paced
under the server's rate limit by `Pace`), the lobby requests it carries, the `Backoff` that
spaces out reconnection attempts, why a connection failed in words, and the command-line flags
that configure a connection (shared by `governor join` and `governor watch`), and the
`Addresses` of a cluster a client comes back through.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import socket
import ssl
import sys
import time
from dataclasses import dataclass

import websockets
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import wire
from protocol.messages import printable
from protocol.signing import SIG_SEAT, Signer, fingerprint, seat_payload
from protocol.bucket import TokenBucket

from .errors import ClientError
from .session import normalize_url, read_cafile

PATIENCE = 120.0        # seconds a dropped connection is retried before giving up (at least 60)
BACKOFF_FIRST = 0.2     # first retry delay, doubled each time, with jitter, capped
BACKOFF_CAP = 5.0
REQUEST_TIMEOUT = 15.0
MAX_REDIRECTS = 3       # processes of a cluster a request is sent on to before giving up
PACE_RATE, PACE_BURST = 15.0, 30   # our messages a second, and at once: under the server's default 20 and 40

# What a dropped or unreachable connection raises: the loops retry on these.
DROPPED = (ConnectionClosed, OSError, InvalidHandshake, asyncio.TimeoutError)


class ServerRefused(ClientError):
    """The server answered a lobby request with an error."""


def add_connection_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cafile", metavar="FILE",
                   help="trust the wss:// server whose certificate (or its issuer's) is in this PEM file, "
                        "e.g. a self-signed one its host gave you; default: the system's authorities")
    # How long a dropped connection is retried; only tests want it shorter.
    p.add_argument("--patience", type=float, default=PATIENCE, help=argparse.SUPPRESS)
    # Messages a second this client allows itself (0: no pacing), for servers with other limits.
    p.add_argument("--pace", type=float, default=PACE_RATE, help=argparse.SUPPRESS)


class Pace:
    """Keeps our messages under the server's rate limit (it closes a flooding connection): at
    most `burst` at once, `rate` a second on average, the server's own bucket. Only fast bots
    ever wait here."""

    def __init__(self, rate: float = PACE_RATE, burst: int = PACE_BURST) -> None:
        self.bucket = TokenBucket(rate, burst)

    async def take(self) -> None:
        while not self.bucket.take():
            await asyncio.sleep(self.bucket.wait())


@dataclass(frozen=True)
class Claim:
    """A seat to claim when saying hello: its table and number, the player key that holds it, and
    the key of the server expected to hold it (None: whichever answers)."""
    table: str
    seat: int
    player: Signer
    server_key: bytes | None = None


class Link:
    """One WebSocket to the server: hello/welcome, then messages in and out."""

    def __init__(self, url: str, rate: float = PACE_RATE, cafile: str | None = None) -> None:
        self.url = normalize_url(url)   # the address asked for: a seat saved comes back through it
        self.at = self.url              # where the socket is: another process of a cluster, redirected
        self.cafile = cafile      # wss:// trusts the certificates in this file, not the system's
        self.ws = None
        self.welcome: dict | None = None
        self.rate = rate          # messages a second we allow ourselves; 0: no pacing
        self.pace = Pace(rate) if rate else None

    @property
    def fingerprint(self) -> str | None:
        return self.welcome["server"] if self.welcome else None

    def _tls(self) -> ssl.SSLContext | None:
        """wss:// trusts the system's authorities or, with --cafile, only the certificates in it."""
        if not self.at.startswith("wss://"):
            if self.cafile:
                raise ClientError("no_tls", f"--cafile is for wss:// servers; {self.at} does not use TLS")
            return None
        if self.cafile is None:
            return ssl.create_default_context()
        try:
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)    # checks names and certificates, trusts none yet
            tls.load_verify_locations(cadata=read_cafile(self.cafile))
            return tls
        except (OSError, ValueError) as e:     # not a dropped connection: nothing to retry
            raise ClientError("bad_cafile", f"cannot use --cafile {self.cafile}: {getattr(e, 'strerror', None) or e}") from None

    async def open(self, claim: "Claim | None" = None, have: int | None = None,
                   timeout: float = REQUEST_TIMEOUT) -> dict:
        """Connect and say hello; claiming a seat, to the server process that serves its table,
        following the redirects of a cluster (docs/protocol.md)."""
        for _ in range(MAX_REDIRECTS):
            msg = await self._hello(claim, have, timeout)
            if msg["type"] != "redirect":
                return msg
            await self.go(msg["url"])
        raise ClientError("too_many_redirects", f"the servers at {self.url} sent this client on more than "
                          f"{MAX_REDIRECTS} times")

    async def go(self, url: str) -> None:
        """Leave this server process for another of its cluster (the next open connects there)."""
        await self.close()
        self.at = normalize_url(url)

    async def _hello(self, claim: "Claim | None", have: int | None, timeout: float) -> dict:
        tls = self._tls()
        try:
            self.ws = await websockets.connect(self.at, ssl=tls, max_size=wire.MAX_SERVER_FRAME,
                                               open_timeout=timeout, compression=None, proxy=None,
                                               ping_interval=10, ping_timeout=20)
        except InvalidURI:
            raise ClientError("bad_address", f"{self.at!r} is not a server address: use ws://HOST:PORT "
                              f"(wss://HOST:PORT for a server with TLS)") from None
        except ssl.SSLCertVerificationError as e:
            # Not a dropped connection to retry: the server is not who we trust it to be.
            hint = ("pass the certificate it was given with --cafile FILE" if self.cafile is None
                    else f"it is not signed by a certificate in {self.cafile}")
            raise ClientError("untrusted_certificate", f"the TLS certificate of {self.at} is not trusted ({e.verify_message}); "
                              f"if this is the right server, {hint}") from None
        except ssl.SSLError as e:
            raise ClientError("no_tls", f"no TLS at {self.at} ({e.reason or e}): if the server does not use "
                              f"TLS, its address starts with ws://") from None
        hello = {"type": "hello", "version": wire.VERSION}
        if claim is not None:
            hello.update(table=claim.table, seat=claim.seat, have=have or 0)
        await self.send(hello)
        msg = await asyncio.wait_for(self.recv(), timeout)
        if msg["type"] == "error":
            raise ServerRefused(msg["code"], msg["message"])
        if msg["type"] == "redirect":
            return msg
        if msg["type"] != "welcome":
            raise ClientError("bad_welcome", f"the server answered hello with {msg['type']!r}, not welcome")
        if msg["version"] != wire.VERSION:
            raise ClientError("wrong_version", f"the server speaks {msg['version']}, this client {wire.VERSION}")
        if fingerprint(msg["key"]) != msg["server"]:
            raise ClientError("bad_fingerprint", "the server's fingerprint does not belong to its key")
        self.welcome = msg
        if claim is not None:
            # Signed over the key of the server we mean to reach: a server with another key, or a
            # relay, cannot pass the answer on, and the nonce makes it good for this connection only.
            server_key = claim.server_key or msg["key"]
            await self.send({"type": "claim", "sig": claim.player.sign(
                SIG_SEAT, seat_payload(server_key, msg["nonce"], claim.table, claim.seat))})
        return msg

    async def send(self, msg: dict) -> None:
        if self.pace is not None:
            await self.pace.take()
        await self.ws.send(wire.encode(msg))

    async def recv(self) -> dict:
        """The server's next message, its strings fit for the terminal. Not a view, nor the ops
        that patch one: they must stay what the server hashed (the Renderer cleans a view as it
        draws it); the signed payloads are bytes, untouched."""
        frame = await self.ws.recv()
        try:
            msg = wire.decode(frame, wire.SERVER, wire.MAX_SERVER_FRAME)
        except wire.WireError as e:
            raise ClientError("bad_message", f"the server sent a bad message: {e}") from None
        return {k: v if k in ("view", "ops") else printable(v) for k, v in msg.items()}

    async def request(self, msg: dict, expect: tuple[str, ...], on_other=None,
                      timeout: float = REQUEST_TIMEOUT) -> dict:
        """Send a lobby request and wait for its reply (or the server's error). Sent on, to ask
        again, when another process of the server's cluster serves the table it names."""
        await self.send(msg)
        deadline = time.monotonic() + timeout
        hops = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClientError("no_answer", f"the server did not answer {msg['type']!r} in time")
            reply = await asyncio.wait_for(self.recv(), left)
            if reply["type"] in expect:
                return reply
            if reply["type"] == "redirect" and hops < MAX_REDIRECTS:
                hops += 1
                await self.go(reply["url"])
                await self.open()
                if msg["type"] == "create":   # the cluster placed it there: created there, not placed again
                    msg = {**msg, "here": True}
                await self.send(msg)
                continue
            if reply["type"] == "error":
                raise ServerRefused(reply["code"], reply["message"])
            if on_other is not None:
                on_other(reply)

    async def tables(self) -> list[dict]:
        """The lobby's tables; an item that is not a map (a server's mistake) is left out."""
        return [t for t in (await self.request({"type": "list"}, ("tables",)))["tables"] if isinstance(t, dict)]

    async def create(self, game: str, seats: int, bots: int, options: dict,
                     levels: list[str] | None = None, private: bool = False, rated: bool = False,
                     blind: bool | None = None) -> str:
        """A new table; `levels` names the level of each of its `bots` computer seats; a
        `private` one is never listed in the lobby; a `rated` one's match counts for ratings;
        `blind` deals blind or not (docs/fairness.md §10; None: the server's default, blind
        with two or more people's seats)."""
        msg = {"type": "create", "game": game, "seats": seats, "bots": bots, "options": options}
        if private:
            msg["private"] = True
        if rated:
            msg["rated"] = True
        if blind is not None:
            msg["blind"] = blind
        if levels and len(set(levels)) == 1:
            msg["bot"] = levels[0]       # one level for all: what every server version understands
        elif levels:
            msg["levels"] = list(levels)
        return (await self.request(msg, ("created",)))["table"]

    async def close(self) -> None:
        if self.ws is not None:
            try:
                await self.ws.close()
            except Exception:
                pass


class Addresses:
    """The addresses a client may come back to its table through: the one it was given, then
    the other processes of the server's cluster as its welcomes name them (`cluster`), since the
    process behind the first address may be gone for good. One is tried at a time; `unreachable`
    moves on to the next, round and round."""

    def __init__(self, url: str) -> None:
        self.urls = [normalize_url(url)]
        self.at = 0

    @property
    def current(self) -> str:
        return self.urls[self.at]

    def learn(self, welcome: dict | None) -> bool:
        """Add the addresses a welcome names; whether any was new."""
        return self.add((welcome or {}).get("cluster", ()))

    def add(self, urls) -> bool:
        """Add these addresses (a welcome's, or those saved with a seat); whether any was new."""
        known = len(self.urls)
        for url in urls:
            if isinstance(url, str) and url.startswith(("ws://", "wss://")) and normalize_url(url) not in self.urls:
                self.urls.append(normalize_url(url))
        return len(self.urls) > known

    def unreachable(self) -> None:
        """Nobody answered at the current address: the next one is tried."""
        self.at = (self.at + 1) % len(self.urls)

    def heard(self, urls) -> bool:
        """The server was heard announcing itself at these addresses (it moved): the first new
        one is tried next; whether there was one."""
        new = [normalize_url(u) for u in urls if normalize_url(u) not in self.urls]
        if not new:
            return False
        self.urls += new
        self.at = self.urls.index(new[0])
        return True

    def drop(self, url: str) -> None:
        """Not the server after all (another key answered there): never tried again."""
        url = normalize_url(url)
        if url in self.urls[1:]:
            self.urls.remove(url)
            self.at = 0

    def moved(self, url: str) -> None:
        """The server is at `url` now, in place of the address it was given."""
        url = normalize_url(url)
        self.urls = [url] + [u for u in self.urls[1:] if u != url]
        self.at = 0


async def open_link(url: str, quiet: bool = False, rate: float = PACE_RATE, cafile: str | None = None) -> Link:
    """The first connection to a server, its fingerprint printed (on stderr when `quiet`) for the
    person to compare; a server that cannot be reached is a ClientError saying why."""
    link = Link(url, rate, cafile)
    try:
        welcome = await link.open()
    except ClientError:
        await link.close()
        raise
    except DROPPED as e:
        await link.close()
        raise ClientError("unreachable", unreachable(link.url, e)) from None
    line = f"Connected to {link.url}, server key fingerprint {welcome['server']}"
    print(line, file=sys.stderr if quiet else sys.stdout, flush=True)
    return link


class Backoff:
    """Exponential backoff with jitter and a cap, for at most `patience` seconds in all."""

    def __init__(self, patience: float = PATIENCE, first: float = BACKOFF_FIRST,
                 cap: float = BACKOFF_CAP) -> None:
        self.patience, self.first, self.cap = patience, first, cap
        self.reset()

    def reset(self) -> None:
        self.tries = 0
        self.since = None

    def next_delay(self) -> float | None:
        """Seconds to wait before the next try, or None when patience is exhausted."""
        now = time.monotonic()
        if self.since is None:
            self.since = now
        if now - self.since >= self.patience:
            return None
        delay = min(self.cap, self.first * 2 ** self.tries) * random.uniform(0.5, 1.0)
        self.tries += 1
        return min(delay, max(0.0, self.since + self.patience - now))


def close_code(e: BaseException) -> int | None:
    rcvd = getattr(e, "rcvd", None)
    return rcvd.code if rcvd is not None else None


def close_reason(e: BaseException) -> str:
    """The reason the server gave when it closed the connection, fit for the terminal."""
    rcvd = getattr(e, "rcvd", None)
    return printable(rcvd.reason) if rcvd is not None else ""


def unreachable(url: str, e: BaseException) -> str:
    """Why the first connection to a server failed, in words; when something answered but not
    as a Governor server would, the likely mistake is ws:// for wss:// or the other way round."""
    why = f"cannot reach a Governor server at {url}: {why_dropped(e)}"
    if isinstance(e, (ConnectionRefusedError, socket.gaierror, asyncio.TimeoutError)):
        return why   # nothing listens there, no such host, or no answer at all
    if url.startswith("wss://"):
        return f"{why} (if the server does not use TLS, its address starts with ws://)"
    return f"{why} (if the server uses TLS, its address starts with wss://)"


def why_dropped(e: BaseException) -> str:
    """Why a connection ended, in words."""
    code = close_code(e)
    if code is not None:
        reason = close_reason(e)
        return f"closed by the server ({code}{': ' + reason if reason else ''})"
    if isinstance(e, ConnectionClosed):
        return "connection dropped"
    return str(e) or type(e).__name__
