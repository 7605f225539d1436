"""A seat played to the end over the network: `SeatRunner` connects (or claims the seat again with
the player key), feeds the sans-I/O table state (client/table.py), asks the seat's `Player` when the seat
owes a decision, and reconnects by itself when the connection drops. Who decides is a `Player`:
a person at the terminal (client/terminal.py) or a bot (client/headless.py). A server that is gone
for good after the deal was fixed leaves a record of what it signed, called abandoned.
"""
from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import time
import urllib.parse

from protocol import wire
from protocol.messages import printable
from protocol.signing import fingerprint

from .errors import ClientError
from .hints import command
from .link import (DROPPED, PACE_RATE, PATIENCE, Addresses, Backoff, Claim, Link, ServerRefused, close_code, close_reason,
                   why_dropped)
from .session import SeatSession, normalize_url, save_record
from .table import Outcome, Table

# seconds between tries while a cluster moves the table to another process: within the server's
# default quota of hellos that may read the database (watch_rate, 1 a second)
MOVING_RETRY = 1.0
RESYNC_AFTER = 1.0      # after a reconnect, how long to wait for the server's snapshot before asking
LOOKUP_EVERY = 10.0     # seconds between two looks for the server's key on the local network
HOST_LEFT = "host_left"  # the notice a `governor play` says to its friends as its host leaves (protocol/wire.py)


def on_local_network(url: str) -> bool:
    """Whether a server address is one of a local network (or this machine's), where a server
    that moved may be heard announcing itself."""
    try:
        return ipaddress.ip_address(urllib.parse.urlsplit(url).hostname or "").is_private
    except ValueError:
        return False


class Leave(Exception):
    """Raised by a Player to leave the table. Before the match starts the seat is given back;
    after, it stays ours (the server lets a bot play it after its grace period) and can be resumed."""


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

    def bind_chat(self, send) -> None:
        """`send(text) -> bool` sends a chat line to the table (False: not connected now); None
        once the seat is done. Players that never chat ignore it."""


class SeatRunner:
    """Plays one seat until its match ends: connects (or resumes), feeds the table, asks the
    Player when the seat owes a decision, reconnects on its own when the connection drops.
    `run()` returns an Outcome; the record is saved in the data directory."""

    def __init__(self, session: SeatSession, player: Player, *, link: Link | None = None,
                 patience: float = PATIENCE, rate: float = PACE_RATE, cafile: str | None = None,
                 lookup=None) -> None:
        self.session = session
        # `lookup(fingerprint)`: the addresses where a server announces that key on the local
        # network (client/discover.py), asked when nobody answers where the server was
        self.lookup = lookup
        self.looked_at: float | None = None
        self.heard: set[str] = set()     # addresses found by the lookup, not yet proven by a welcome
        self.host_left = ""              # the host's words, when its server said it stops
        self.rate = link.rate if link is not None else rate
        self.cafile = link.cafile if link is not None else cafile
        self.player = player
        self.link = link              # an open link to reuse (the one we sat down with)
        self.addresses = Addresses(session.url)    # where to come back: a cluster's processes too
        self.addresses.add(session.cluster)
        self._learn(link.welcome if link is not None else None)
        self.backoff = Backoff(patience)
        self.table = Table(session.table, session)
        self.deciding: asyncio.Task | None = None
        self.deciding_on: dict | None = None    # the question being decided ...
        self.deciding_seq: int | None = None    # ... and the seq of the view it is decided on
        self.resync_at: float | None = None
        self.chatting: set[asyncio.Task] = set()
        self.online = link is not None          # connected now (False while reconnecting)

    def chat(self, text: str) -> bool:
        """Send a chat line to the table now, beside whatever else is going on; False when there
        is no connection to send it on. The server's refusals come back as errors."""
        link = self.link
        if link is None or link.ws is None:
            return False

        async def send():
            try:
                await link.send({"type": "chat", "text": text})
            except DROPPED:
                pass
        task = asyncio.ensure_future(send())
        self.chatting.add(task)
        task.add_done_callback(self.chatting.discard)
        return True

    def _learn(self, welcome: dict | None) -> None:
        """Keep the cluster's addresses a welcome names, with the seat on disk too: a client
        started again after the process at the seat's address died comes back through another."""
        if self.addresses.learn(welcome):
            self.session.cluster = self.addresses.urls[1:]
            if self.session.saved:
                self.session.save()

    async def run(self) -> Outcome:
        fresh = self.link is not None
        self.player.bind_chat(self.chat)
        if fresh:
            self.player.connection("connected", self.link.fingerprint or "")
        try:
            while not self.table.ended:
                try:
                    if not fresh:
                        await self._connect()
                    fresh = False
                    await self._serve()
                except DROPPED as e:
                    self.online = False
                    code = close_code(e)
                    if code == wire.CLOSE_REPLACED:
                        raise ClientError("taken_over", "this seat was taken over by another connection "
                                          "with the same player key (another copy of this client?)") from None
                    if code == wire.CLOSE_BAD_HELLO:
                        raise ClientError("resume_refused", f"the server refused to resume this seat: "
                                          f"{close_reason(e) or 'the claim was refused'}") from None
                    if self.table.ended:
                        break
                    if self.host_left:
                        self.player.connection("host_left", self.host_left)
                    else:
                        self.player.connection("reconnecting", why_dropped(e))
            return await self._finish()
        except ClientError as e:
            if e.code == "connection_lost" and (kept := self._keep_abandoned()):
                raise ClientError(e.code, f"{e.message} {kept}") from None
            raise
        except asyncio.CancelledError:       # Ctrl-C, or the screen closed, while we wait
            if kept := self._keep_abandoned():
                self.player.connection("lost", kept)
            raise
        except Leave:
            if kept := self._keep_abandoned():
                self.player.connection("lost", kept)
            # Before the match starts the seat can be given back; once it started it stays ours
            # (the server lets a bot play it after its grace period, and we may come back).
            if not self.table.entries:
                if self.link is not None and self.link.ws is not None:
                    try:
                        await self.link.send({"type": "leave"})
                    except DROPPED:
                        pass
                self.session.forget()
            raise
        finally:
            self.player.bind_chat(None)
            if self.deciding is not None:
                self.deciding.cancel()
            if self.link is not None:
                await self.link.close()

    async def _connect(self) -> None:
        if self.link is not None:
            await self.link.close()
        moving = False
        while True:
            delay = self.backoff.next_delay()
            if delay is None:
                self.player.connection("lost", "gave up reconnecting")
                resume = command('join', self.session.url, '--table', self.session.table)
                if self.host_left:
                    raise ClientError("host_left", f"{self.host_left} It did not come back in "
                                      f"{self.backoff.patience:.0f} s; when it does, resume with `{resume}`.")
                raise ClientError("connection_lost", f"lost the connection to {self.session.url} and could not get it back "
                                  f"in {self.backoff.patience:.0f} s. Your seat is saved: resume with `{resume}`.")
            await asyncio.sleep(min(delay, MOVING_RETRY) if moving else delay)
            at = self.addresses.current
            link = Link(at, self.rate, self.cafile)
            try:
                welcome = await link.open(Claim(self.session.table, self.session.seat, self.session.player,
                                                self.session.server_key), self.table.held)
            except ServerRefused as e:
                await link.close()
                raise ClientError("resume_refused", f"the server refused to resume this seat: {e}") from None
            except DROPPED as e:
                await link.close()
                if close_code(e) in (wire.CLOSE_BAD_HELLO, wire.CLOSE_REPLACED):
                    raise
                # Told to connect again, or sent on to a process that is gone: the table moves
                # between processes of a cluster and is served again within seconds.
                moving = close_code(e) == wire.CLOSE_MOVED or link.at != link.url
                if not moving:    # nobody answers there (a cluster's process that died): try another
                    self.addresses.unreachable()
                    await self._look_for_server()
                continue
            if self.session.server_key and welcome["key"] != self.session.server_key:
                await link.close()
                if at in self.heard:      # a claim heard on the network that did not hold
                    self.heard.discard(at)
                    self.addresses.drop(at)
                    continue
                raise ClientError("other_key", "the server at this address now has another key "
                                  f"({welcome['server']}): it is not the server this match started on")
            if at in self.heard:          # the server moved there (a host started again on another port)
                self.heard.clear()
                self.addresses.moved(at)
                self.session.moved_to(at)
            self.host_left = ""
            self.link = link
            self.online = True
            self._learn(welcome)
            self.player.connection("connected", welcome["server"])
            self.backoff.reset()
            self.table.resumed()
            for msg in self.table.resume_messages():
                await link.send(msg)
            # The server sends a snapshot on every (re)connect once play began; ask if it does not.
            # (Not at a blind table: there our replica makes our view, and the server sends none.)
            if self.table.started and not self.table.blind:
                self.table.want_snapshot = True
                self.resync_at = time.monotonic() + RESYNC_AFTER
            return

    async def _look_for_server(self) -> None:
        """Nobody answers where the server was: look for its key on the local network (now and
        then), in case it is there at another address."""
        if self.session.server_key is None or not on_local_network(self.session.url):
            return
        now = time.monotonic()
        if self.looked_at is not None and now - self.looked_at < LOOKUP_EVERY:
            return
        self.looked_at = now
        lookup = self.lookup
        if lookup is None:
            from .discover import addresses_of    # multicast DNS is loaded only when needed
            lookup = addresses_of
        urls = [normalize_url(u) for u in await lookup(fingerprint(self.session.server_key))]
        fresh = [u for u in urls if u not in self.addresses.urls]
        if self.addresses.heard(fresh):
            self.heard.update(fresh)

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
                        act = self.table.act(action, self.deciding_seq)
                        if act is not None:
                            await link.send(act)
                        self._changed()
                if recv in done:
                    msg = recv.result()
                    if msg["type"] == "notice" and msg["code"] == HOST_LEFT:
                        self.host_left = msg["message"]
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
        # (At a blind table the last view is our replica's, made before the final entry.)
        if link is not None and not self.table.blind and not (self.table.view or {}).get("over"):
            try:
                deadline = time.monotonic() + 2.0
                while not (self.table.view or {}).get("over") and time.monotonic() < deadline:
                    msg = await asyncio.wait_for(link.recv(), deadline - time.monotonic())
                    self.table.feed(msg)
                    self._changed()
            except (*DROPPED, ClientError):
                pass
        t = self.table
        report = t.audit()     # now that the last view is in too
        path = save_record(self.session.data_dir, t.record, t.header["game_id"] if t.header else None,
                           shown=t.shown)
        # The record holds everything now; the seat's files are of no further use.
        self.session.finished = True
        self.session.forget()
        final = t.entries[-1].body
        return Outcome(finished=final["t"] == "final", report=report, record=path,
                       table=self.session.table, seat=t.seat, names=t.names(), result=t.result(),
                       reason=printable(final.get("reason")) if final["t"] == "cancel" else None,
                       own_seed=not t.seed_made_by_server, bot_failures=tuple(t.bot_failures),
                       blind=t.blind, forfeits=tuple(t.forfeits))


    def _keep_abandoned(self) -> str:
        """We give up on a server that is gone (not connected, the match neither ended nor
        cancelled) after the deal was fixed: it could have left because it disliked the deal. What
        it signed is saved as a record marked abandoned (docs/fairness.md §8), the seat is kept
        in case it comes back (then the whole record replaces this one). The words that say so,
        or "" when there is nothing to keep."""
        t = self.table
        if self.online or t.ended or not t.started:
            return ""
        try:
            path = save_record(self.session.data_dir, t.record, t.header["game_id"],
                               shown=dataclasses.replace(t.shown, abandoned=True))
        except OSError as e:
            return f"The server abandoned this match after the deal was fixed; its record could not be saved ({e})."
        return (f"The server abandoned this match after the deal was fixed: the {len(t.entries)} entries it "
                f"signed are kept in {path} (`{command('records', '--aborts')}` counts such aborts per server).")
