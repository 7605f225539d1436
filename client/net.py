"""The network client's connection side: one WebSocket to a Governor server (`Link`, paced under
the server's rate limit), the lobby requests, and the asyncio loops of a seat (`SeatRunner`) or a
spectator (`Spectator`) that reconnect by exponential backoff when the connection drops.

They are the thin I/O shell around the sans-I/O table state (client/table.py); what survives the
process is in client/session.py. Who decides for the seat is a `Player`: a person at the
terminal (client/join.py) or a bot.
"""
from __future__ import annotations

import asyncio
import os
import random
import socket
import ssl
import time
from pathlib import Path

import websockets
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import wire
from protocol.signing import fingerprint

from .errors import ClientError
from .session import SeatSession, normalize_url, save_record
from .table import Outcome, Table

PATIENCE = 120.0        # seconds a dropped connection is retried before giving up (at least 60)
BACKOFF_FIRST = 0.2     # first retry delay, doubled each time, with jitter, capped
BACKOFF_CAP = 5.0
REQUEST_TIMEOUT = 15.0
RESYNC_AFTER = 1.0      # after a reconnect, how long to wait for the server's snapshot before asking
PACE_RATE, PACE_BURST = 15.0, 30   # our messages a second, and at once: under the server's default 20 and 40


class Leave(Exception):
    """Raised by a Player to leave the table. Before the match starts the seat is given back;
    after, it stays ours (the server lets a bot play it after its grace period) and can be resumed."""


class ServerRefused(ClientError):
    """The server answered a lobby request with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------ the socket

class Pace:
    """Keeps our messages under the server's rate limit (it closes a flooding connection): at
    most `burst` at once, `rate` a second on average. Only fast bots ever wait here."""

    def __init__(self, rate: float = PACE_RATE, burst: int = PACE_BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.last = time.monotonic()

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


class Link:
    """One WebSocket to the server: hello/welcome, then messages in and out."""

    def __init__(self, url: str, rate: float = PACE_RATE, cafile: str | None = None) -> None:
        self.url = normalize_url(url)
        self.cafile = cafile      # wss:// trusts the certificates in this file, not the system's
        self.ws = None
        self.welcome: dict | None = None
        self.rate = rate          # messages a second we allow ourselves; 0: no pacing
        self.pace = Pace(rate) if rate else None

    @property
    def fingerprint(self) -> str | None:
        return self.welcome["server"] if self.welcome else None

    async def open(self, token: str | None = None, have: int | None = None,
                   timeout: float = REQUEST_TIMEOUT) -> dict:
        tls = None
        if self.url.startswith("wss://"):
            try:
                tls = ssl.create_default_context(cafile=self.cafile)
            except (OSError, ssl.SSLError) as e:   # not a dropped connection: nothing to retry
                raise ClientError(f"cannot use --cafile {self.cafile}: {getattr(e, 'strerror', None) or e}") from None
        elif self.cafile:
            raise ClientError(f"--cafile is for wss:// servers; {self.url} does not use TLS")
        try:
            self.ws = await websockets.connect(self.url, ssl=tls, max_size=wire.MAX_SERVER_FRAME,
                                               open_timeout=timeout, compression=None, proxy=None,
                                               ping_interval=10, ping_timeout=20)
        except InvalidURI:
            raise ClientError(f"{self.url!r} is not a server address: use ws://HOST:PORT "
                              f"(wss://HOST:PORT for a server with TLS)") from None
        except ssl.SSLCertVerificationError as e:
            # Not a dropped connection to retry: the server is not who we trust it to be.
            hint = ("pass the certificate it was given with --cafile FILE" if self.cafile is None
                    else f"it is not signed by a certificate in {self.cafile}")
            raise ClientError(f"the TLS certificate of {self.url} is not trusted ({e.verify_message}); "
                              f"if this is the right server, {hint}") from None
        except ssl.SSLError as e:
            raise ClientError(f"no TLS at {self.url} ({e.reason or e}): if the server does not use "
                              f"TLS, its address starts with ws://") from None
        hello = {"type": "hello", "version": wire.VERSION}
        if token is not None:
            hello["token"] = token
            hello["have"] = have or 0
        await self.send(hello)
        msg = await asyncio.wait_for(self.recv(), timeout)
        if msg["type"] == "error":
            raise ServerRefused(msg["code"], msg["message"])
        if msg["type"] != "welcome":
            raise ClientError(f"the server answered hello with {msg['type']!r}, not welcome")
        if msg["version"] != wire.VERSION:
            raise ClientError(f"the server speaks {msg['version']}, this client {wire.VERSION}")
        if fingerprint(msg["key"]) != msg["server"]:
            raise ClientError("the server's fingerprint does not belong to its key")
        self.welcome = msg
        return msg

    async def send(self, msg: dict) -> None:
        if self.pace is not None:
            await self.pace.take()
        await self.ws.send(wire.encode(msg))

    async def recv(self) -> dict:
        frame = await self.ws.recv()
        try:
            return wire.decode(frame, wire.SERVER, wire.MAX_SERVER_FRAME)
        except wire.WireError as e:
            raise ClientError(f"the server sent a bad message: {e}") from None

    async def request(self, msg: dict, expect: tuple[str, ...], on_other=None,
                      timeout: float = REQUEST_TIMEOUT) -> dict:
        """Send a lobby request and wait for its reply (or the server's error)."""
        await self.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClientError(f"the server did not answer {msg['type']!r} in time")
            reply = await asyncio.wait_for(self.recv(), left)
            if reply["type"] in expect:
                return reply
            if reply["type"] == "error":
                raise ServerRefused(reply["code"], reply["message"])
            if on_other is not None:
                on_other(reply)

    async def tables(self) -> list[dict]:
        return (await self.request({"type": "list"}, ("tables",)))["tables"]

    async def create(self, game: str, seats: int, bots: int, options: dict) -> str:
        msg = {"type": "create", "game": game, "seats": seats, "bots": bots, "options": options}
        return (await self.request(msg, ("created",)))["table"]

    async def close(self) -> None:
        if self.ws is not None:
            try:
                await self.ws.close()
            except Exception:
                pass


def close_code(e: BaseException) -> int | None:
    rcvd = getattr(e, "rcvd", None)
    return rcvd.code if rcvd is not None else None


async def sit(link: Link, table: str, name: str, data_dir: Path) -> SeatSession:
    """Take a free seat; the session is saved (with a fresh secret seed) before anything else."""
    reply = await link.request({"type": "sit", "table": table, "name": name}, ("seated",))
    session = SeatSession(Path(data_dir), link.url, reply["table"], reply["seat"], reply["token"],
                          reply["player_id"], name, os.urandom(32), server_key=link.welcome["key"])
    session.save()
    return session


def table_is_open(t: dict) -> bool:
    """A listed table that is waiting for players and has a free seat."""
    if t.get("status", t.get("state", "waiting")) != "waiting":
        return False
    seats = t.get("seats")
    if isinstance(seats, list):
        return any(seat_is_free(s) for s in seats)
    return True


def seat_is_free(s) -> bool:
    return isinstance(s, dict) and not s.get("name") and not s.get("bot")


def table_id(t: dict) -> str:
    return str(t.get("table", t.get("id", "?")))


# ------------------------------------------------------------------ who decides

class Player:
    """Who plays a seat (or watches). Override what you need; everything but decide is optional."""

    def connection(self, state: str, detail: str = "") -> None:
        """state: "connected", "reconnecting", "lost"."""

    def update(self, table: Table, happened: list[tuple]) -> None:
        """The table changed: happened is the list of (kind, data) since the last call."""

    async def decide(self, table: Table) -> list:
        raise NotImplementedError

    def stop_deciding(self, table: Table) -> None:
        """The question being decided went away (a snapshot changed it)."""


class BotPlayer(Player):
    """A seat played by a bot (bots.make or bots.AnyGame) from its own view; prints nothing itself."""

    def __init__(self, bot, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay
        self.rejects = 0

    async def decide(self, table: Table) -> list:
        if self.delay:
            await asyncio.sleep(self.delay)
        return self.bot.choose(table.view)

    def update(self, table: Table, happened: list[tuple]) -> None:
        for kind, data in happened:
            if kind == "reject" and data[0] != "stale":
                self.rejects += 1
                if self.rejects > 20:
                    raise ClientError(f"the server keeps refusing the bot's moves: {data[1]}")
            elif kind == "ack":
                self.rejects = 0


# ------------------------------------------------------------------ the I/O loops

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


_DROPPED = (ConnectionClosed, OSError, InvalidHandshake, asyncio.TimeoutError)


class SeatRunner:
    """Plays one seat until its match ends: connects (or resumes), feeds the table, asks the
    Player when the seat owes a decision, reconnects on its own when the connection drops.
    `run()` returns an Outcome; the record is saved in the data directory."""

    def __init__(self, session: SeatSession, player: Player, *, link: Link | None = None,
                 patience: float = PATIENCE, rate: float = PACE_RATE, cafile: str | None = None) -> None:
        self.session = session
        self.rate = link.rate if link is not None else rate
        self.cafile = link.cafile if link is not None else cafile
        self.player = player
        self.link = link              # an open link to reuse (the one we sat down with)
        self.backoff = Backoff(patience)
        self.table = Table(session.table, session)
        self.deciding: asyncio.Task | None = None
        self.deciding_on: dict | None = None    # the question being decided ...
        self.deciding_seq: int | None = None    # ... and the seq of the view it is decided on
        self.resync_at: float | None = None

    async def run(self) -> Outcome:
        fresh = self.link is not None
        if fresh:
            self.player.connection("connected", self.link.fingerprint or "")
        try:
            while not self.table.ended:
                try:
                    if not fresh:
                        await self._connect()
                    fresh = False
                    await self._serve()
                except _DROPPED as e:
                    code = close_code(e)
                    if code == wire.CLOSE_REPLACED:
                        raise ClientError("this seat was taken over by another connection "
                                          "with the same token (another copy of this client?)") from None
                    if code == wire.CLOSE_BAD_HELLO:
                        raise ClientError(f"the server refused to resume this seat: "
                                          f"{getattr(e.rcvd, 'reason', '') or 'unknown token'}") from None
                    if self.table.ended:
                        break
                    self.player.connection("reconnecting", _why(e))
            return await self._finish()
        except Leave:
            # Before the match starts the seat can be given back; once it started it stays ours
            # (the server lets a bot play it after its grace period, and we may come back).
            if not self.table.exchange.entries:
                if self.link is not None and self.link.ws is not None:
                    try:
                        await self.link.send({"type": "leave"})
                    except _DROPPED:
                        pass
                self.session.forget()
            raise
        finally:
            if self.deciding is not None:
                self.deciding.cancel()
            if self.link is not None:
                await self.link.close()

    async def _connect(self) -> None:
        if self.link is not None:
            await self.link.close()
        while True:
            delay = self.backoff.next_delay()
            if delay is None:
                self.player.connection("lost", "gave up reconnecting")
                raise ClientError(f"lost the connection to {self.session.url} and could not get it back "
                                  f"in {self.backoff.patience:.0f} s. Your seat is saved: resume with "
                                  f"`governor join {self.session.url} --table {self.session.table}`.")
            await asyncio.sleep(delay)
            link = Link(self.session.url, self.rate, self.cafile)
            try:
                welcome = await link.open(self.session.token, self.table.held)
            except ServerRefused as e:
                await link.close()
                raise ClientError(f"the server refused to resume this seat: {e}") from None
            except _DROPPED as e:
                await link.close()
                if close_code(e) in (wire.CLOSE_BAD_HELLO, wire.CLOSE_REPLACED):
                    raise
                continue
            if self.session.server_key and welcome["key"] != self.session.server_key:
                await link.close()
                raise ClientError("the server at this address now has another key "
                                  f"({welcome['server']}): it is not the server this match started on")
            self.link = link
            self.player.connection("connected", welcome["server"])
            self.backoff.reset()
            self.table.resumed()
            for msg in self.table.resume_messages():
                await link.send(msg)
            # The server sends a snapshot on every (re)connect once play began; ask if it does not.
            if self.table.started:
                self.table.want_snapshot = True
                self.resync_at = time.monotonic() + RESYNC_AFTER
            return

    async def _serve(self) -> None:
        link = self.link
        recv = asyncio.ensure_future(link.recv())
        try:
            while not self.table.ended:
                wait = self._maybe_ask()
                if self.resync_at is not None:
                    if not self.table.want_snapshot:
                        self.resync_at = None
                    elif time.monotonic() >= self.resync_at:
                        self.resync_at = None
                        await link.send({"type": "resync"})
                    else:
                        left = self.resync_at - time.monotonic()
                        wait = left if wait is None else min(wait, left)
                tasks = {recv} | ({self.deciding} if self.deciding else set())
                done, _ = await asyncio.wait(tasks, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                if self.deciding is not None and self.deciding in done:
                    task, self.deciding = self.deciding, None
                    action = task.result()
                    if self.table.prompt == self.deciding_on and self.table.pending is None:
                        await link.send(self.table.act(action, self.deciding_seq))
                if recv in done:
                    msg = recv.result()
                    for out in self.table.feed(msg):
                        await link.send(out)
                    self._changed()
                    recv = asyncio.ensure_future(link.recv())
        finally:
            recv.cancel()

    def _changed(self) -> None:
        happened = self.table.drain()
        if not happened:
            return
        if self.deciding is not None and self.table.prompt != self.deciding_on:
            self.deciding.cancel()
            self.deciding = None
            self.player.stop_deciding(self.table)
        self.player.update(self.table, happened)

    def _maybe_ask(self) -> float | None:
        if self.deciding is not None:
            return None
        ask = self.table.should_ask(time.monotonic())
        if ask is True:
            self.deciding_on, self.deciding_seq = self.table.prompt, self.table.seq
            self.deciding = asyncio.ensure_future(self.player.decide(self.table))
            return None
        if ask is False:
            return None
        return ask

    async def _finish(self) -> Outcome:
        # The final entry and the last view may arrive in either order: wait a little for the
        # view that shows the result, which the screen wants.
        link = self.link
        if link is not None and not (self.table.view or {}).get("over"):
            try:
                deadline = time.monotonic() + 2.0
                while not (self.table.view or {}).get("over") and time.monotonic() < deadline:
                    msg = await asyncio.wait_for(link.recv(), deadline - time.monotonic())
                    self.table.feed(msg)
                    self._changed()
            except (*_DROPPED, ClientError):
                pass
        ex = self.table.exchange
        report = ex.report
        path = save_record(self.session.data_dir, ex.record, ex.header["game_id"] if ex.header else None)
        # The record holds everything now; the seat's token and files are of no further use.
        self.session.finished = True
        self.session.forget()
        final = ex.entries[-1].body
        view = self.table.view or {}
        return Outcome(finished=final["t"] == "final", report=report, record=path,
                       table=self.session.table, seat=ex.seat, names=self.table.names(),
                       result=view.get("result"),
                       reason=final.get("reason") if final["t"] == "cancel" else None,
                       own_seed=not ex.seed_made_by_server)


def unreachable(url: str, e: BaseException) -> str:
    """Why the first connection to a server failed, in words; when something answered but not
    as a Governor server would, the likely mistake is ws:// for wss:// or the other way round."""
    why = f"cannot reach a Governor server at {url}: {_why(e)}"
    if isinstance(e, (ConnectionRefusedError, socket.gaierror, asyncio.TimeoutError)):
        return why   # nothing listens there, no such host, or no answer at all
    if url.startswith("wss://"):
        return f"{why} (if the server does not use TLS, its address starts with ws://)"
    return f"{why} (if the server uses TLS, its address starts with wss://)"


def _why(e: BaseException) -> str:
    code = close_code(e)
    if code is not None:
        reason = e.rcvd.reason
        return f"closed by the server ({code}{': ' + reason if reason else ''})"
    if isinstance(e, ConnectionClosed):
        return "connection dropped"
    return str(e) or type(e).__name__


class Spectator:
    """Watches a table (the public view) until its match ends; reconnects like a seat. It is
    sent every signed public entry too, and audits the match at its end as a player does (bar
    the hands: FAIRNESS.md §5 without private messages)."""

    def __init__(self, url: str, table: str, player: Player, *, link: Link | None = None,
                 patience: float = PATIENCE, cafile: str | None = None) -> None:
        self.url = normalize_url(url)
        self.rate = link.rate if link is not None else PACE_RATE
        self.cafile = link.cafile if link is not None else cafile
        self.player = player
        self.link = link
        self.backoff = Backoff(patience)
        self.server_key = link.welcome["key"] if link is not None and link.welcome else None
        self.table = Table(table, server_key=self.server_key)

    async def run(self) -> Table:
        try:
            while not self._over():
                try:
                    if self.link is None or self.link.ws is None:
                        await self._connect()
                    await self.link.send({"type": "watch", "table": self.table.table, "have": self.table.held})
                    while not self._over():
                        await self._step(await self.link.recv())
                except _DROPPED as e:
                    if self._over():
                        break
                    self.player.connection("reconnecting", _why(e))
                    await self.link.close()
                    self.link = None
            await self._last_view()
            return self.table
        finally:
            if self.link is not None:
                await self.link.close()

    def _over(self) -> bool:
        """The match ended (its last signed entry is in), or the table closed before it began."""
        return self.table.ended or (self.table.header is None and self.table.status in ("cancelled", "over"))

    async def _step(self, msg: dict) -> None:
        if msg["type"] == "error" and self.table.view is None:
            raise ServerRefused(msg["code"], msg["message"])
        for out in self.table.feed(msg):
            await self.link.send(out)
        happened = self.table.drain()
        if happened:
            self.player.update(self.table, happened)

    async def _last_view(self) -> None:
        """The final entry and the view that shows the result may come in either order: wait a
        little for that view (a cancelled match has none)."""
        deadline = time.monotonic() + 2.0
        try:
            while (self.link is not None and self.table.status != "cancelled"
                   and not (self.table.view or {}).get("over") and time.monotonic() < deadline):
                await self._step(await asyncio.wait_for(self.link.recv(), deadline - time.monotonic()))
        except (*_DROPPED, ClientError):
            pass

    async def _connect(self) -> None:
        while True:
            delay = self.backoff.next_delay()
            if delay is None:
                raise ClientError(f"lost the connection to {self.url} and could not get it back "
                                  f"in {self.backoff.patience:.0f} s.")
            await asyncio.sleep(delay)
            link = Link(self.url, self.rate, self.cafile)
            try:
                welcome = await link.open()
            except _DROPPED:
                await link.close()
                continue
            if self.server_key is None:
                self.server_key = self.table.exchange.pinned_key = welcome["key"]
            elif welcome["key"] != self.server_key:
                await link.close()
                raise ClientError("the server at this address now has another key "
                                  f"({welcome['server']}): it is not the server this match is played on")
            self.link = link
            self.backoff.reset()
            self.player.connection("connected", welcome["server"])
            return
