"""A bare test client that speaks protocol/wire.py over a real WebSocket, a seat player that
runs protocol.exchange.PlayerExchange and a RandomBot for its seat, checking every view it is
sent (delta base, hash) as it goes, and one that plays a seat of a blind table with
protocol.blind_exchange.BlindPlayerExchange."""
from __future__ import annotations

import asyncio
import random
import socket

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bots.random_bot import RandomBot
from protocol import wire
from protocol.codec import pack
from protocol.diff import PatchError, patch, view_hash
from protocol.exchange import PlayerExchange
from protocol.messages import Signed
from protocol.signing import (SIG_COMMIT, SIG_MOVE, SIG_REVEAL, SIG_SEAT, Signer, commit_payload, move_payload,
                              reveal_payload, seat_payload)
from protocol.verify import verify

TIMEOUT = 10.0
# Seconds a test waits for what should happen before calling it a failure: patience on a machine
# busy with other work (the suite runs in parallel), never a claim of speed.
PATIENCE = 30.0


async def until(ready, what: str = "the awaited state", timeout: float = PATIENCE) -> None:
    """Polls `ready()` until it holds; an AssertionError naming `what` once the patience runs out."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not ready():
        if loop.time() > deadline:
            raise AssertionError(f"{what} never came within {timeout:g} s")
        await asyncio.sleep(0.01)


class Closed(Exception):
    def __init__(self, code, reason):
        super().__init__(f"closed {code}: {reason}")
        self.code = code
        self.reason = reason


class Raw:
    """One connection: send messages or raw frames, receive checked server messages."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.frames: list[bytes] = []      # every frame received, as bytes
        self.welcome: dict | None = None

    @classmethod
    async def connect(cls, url: str, *, hello: bool = True, claim: tuple[str, int, Signer] | None = None,
                      have: int | None = None, rcvbuf: int | None = None, source: str | None = None,
                      **kw) -> "Raw":
        """`claim`: (table, seat, player key), a seat to claim with the key's answer to the
        server's challenge. `source`: the address to connect from (another loopback address,
        127.0.0.2, is another client as far as the server's per-address limits go)."""
        if rcvbuf is not None or source is not None:
            host, port = url.removeprefix("ws://").split(":")
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if rcvbuf is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            if source is not None:
                sock.bind((source, 0))
            sock.connect((host, int(port)))
            sock.setblocking(False)
            kw["sock"] = sock
        ws = await connect(url, max_size=wire.MAX_SERVER_FRAME, compression=None, open_timeout=TIMEOUT, **kw)
        raw = cls(ws)
        if hello:
            msg = {"type": "hello", "version": wire.VERSION}
            if claim is not None:
                msg["table"], msg["seat"] = claim[0], claim[1]
            if have is not None:
                msg["have"] = have
            await raw.send(msg)
            # a raw client follows no redirect (a cluster's): the close after it says why
            raw.welcome = await raw.expect("welcome", skip=("redirect",))
            if claim is not None:
                await raw.send({"type": "claim", "sig": claim_sig(claim, raw.welcome)})
        return raw

    async def send(self, msg: dict) -> None:
        await self.send_raw(wire.encode(msg))

    async def send_raw(self, data) -> None:
        try:
            await self.ws.send(data)
        except ConnectionClosed:
            raise Closed(self.ws.close_code, self.ws.close_reason) from None

    async def recv(self, timeout: float = TIMEOUT) -> dict:
        try:
            frame = await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed:
            raise Closed(self.ws.close_code, self.ws.close_reason) from None
        self.frames.append(frame)
        return wire.decode(frame, wire.SERVER, wire.MAX_SERVER_FRAME)

    async def expect(self, kind: str, timeout: float = TIMEOUT, skip=("status", "clock")) -> dict:
        """The next message, which must be of `kind` (messages of the types in skip are passed
        over: by default the lobby's news and the time a question has left)."""
        while True:
            msg = await self.recv(timeout)
            if msg["type"] == kind:
                return msg
            if msg["type"] not in skip:
                raise AssertionError(f"expected a {kind}, got {msg}")

    async def closed(self, timeout: float = TIMEOUT) -> tuple[int, str]:
        """Wait until the server closes the connection; its close code and reason."""
        async def drain():
            try:
                while True:
                    await self.ws.recv()
            except ConnectionClosed:
                pass
        await asyncio.wait_for(drain(), timeout)
        return self.ws.close_code, self.ws.close_reason

    async def close(self) -> None:
        """Close, reading on meanwhile so that the server's close frame is seen however many
        messages were left unread."""
        closing = asyncio.ensure_future(self.ws.close())
        try:
            await self.closed()
        finally:
            await closing

    async def create(self, seats: int, bots: int = 0, bot: str = "random", options: dict | None = None,
                     game: str = "sanjuan", blind: bool | None = False) -> str:
        """`blind`: the table's choice (None: the server's default, blind with two or more people;
        False by default here: a SeatPlayer plays the open exchange)."""
        msg = {"type": "create", "game": game, "seats": seats, "bots": bots, "bot": bot, "options": options or {}}
        if blind is not None:
            msg["blind"] = blind
        await self.send(msg)
        return (await self.expect("created"))["table"]


def claim_sig(claim: tuple[str, int, Signer], welcome: dict) -> bytes:
    """The answer of a seat's player key to the challenge of a welcome (docs/fairness.md C13)."""
    table, seat, key = claim
    return key.sign(SIG_SEAT, seat_payload(welcome["key"], welcome["nonce"], table, seat))


class Recorder:
    """Stands in for PlayerExchange for a seat whose seed the server made while its player was
    away: it keeps the signed messages and audits the whole record at the end (protocol.verify)."""

    def __init__(self) -> None:
        self.record: list[Signed] = []
        self.entries: list[Signed] = []
        self.report = None

    def receive(self, msg: Signed):
        self.record.append(msg)
        if msg.kind == "entry":
            self.entries.append(msg)
            if msg.body["t"] in ("final", "cancel"):
                self.report = verify(self.record)
        return None


class SeatPlayer:
    """Plays one seat to the end: the fair exchange, views, random legal moves, and the audit."""

    def __init__(self, url: str, table: str, name: str, seed: int = 0) -> None:
        self.url = url
        self.table = table
        self.name = name
        self.bot = RandomBot(f"{name}/{seed}")
        self.rnd = random.Random(seed)
        self.raw: Raw | None = None
        self.px: PlayerExchange | None = None
        self.seat = self.player_id = None
        self.key = Signer.generate()       # this player's key: the seat is its
        self.view = None
        self.seq = -1
        self.next_id = 1000 * (seed + 1)
        self.pending: dict | None = None   # the act sent and not yet answered
        self.acks = 0
        self.last_acked: int | None = None
        self.rejects: list[dict] = []
        self.errors: list[dict] = []
        self.chats: list[dict] = []
        self.notices: list[dict] = []
        self.snapshots = 0
        self.deltas = 0
        self.status: dict | None = None
        self.answering = True              # False: sits there and lets its questions wait

    @property
    def report(self):
        return self.px.report if self.px else None

    @property
    def done(self) -> bool:
        """The audit is in, and so is the final view (it follows the final entry)."""
        if self.report is None:
            return False
        return self.view is None or self.view["over"] or self.px.entries[-1].body["t"] == "cancel"

    async def sit(self) -> None:
        self.raw = await Raw.connect(self.url)
        await self.raw.send({"type": "sit", "table": self.table, "name": self.name, "key": self.key.public_key})
        msg = await self.raw.expect("seated")
        self.seat, self.player_id = msg["seat"], msg["player_id"]
        self.px = PlayerExchange(self.player_id, server_key=self.raw.welcome["key"], signer=self.key)

    @property
    def claim(self) -> tuple[str, int, Signer]:
        return self.table, self.seat, self.key

    async def resume(self, url: str | None = None) -> None:
        """Claim the seat again with our key, saying how many signed messages we hold."""
        self.url = url or self.url
        self.raw = await Raw.connect(self.url, claim=self.claim, have=len(self.px.record))
        self.pending = None  # an unanswered command is decided again on the fresh view
        self.view = None     # which comes as a snapshot after the signed messages we lack

    async def drop(self) -> None:
        await self.raw.close()

    async def play(self, until=None, timeout: float = 30.0) -> None:
        """Handle messages and move until the match is over (or `until(self)` holds)."""
        async def loop():
            await self.maybe_act()  # a question may be waiting already
            while not self.done and not (until and until(self)):
                await self.step()
        await asyncio.wait_for(loop(), timeout)

    async def step(self, timeout: float = TIMEOUT) -> dict:
        msg = await self.raw.recv(timeout)
        self.handle(msg)
        await self.maybe_act()
        return msg

    def handle(self, msg: dict) -> None:
        kind = msg["type"]
        if kind in ("entry", "private"):
            assert msg["table"] == self.table
            signed = Signed.parse(kind, msg["payload"], msg["sig"])
            reply = self.px.receive(signed)
            if reply is not None:
                header = self.px.entries[0].hash
                self._reply = ({"type": "commit", "commitment": reply,
                                "sig": self.key.sign(SIG_COMMIT, commit_payload(header, self.seat, reply))}
                               if signed.body["t"] == "header" else
                               {"type": "reveal", "seed": reply,
                                "sig": self.key.sign(SIG_REVEAL, reveal_payload(header, self.seat, reply))})
        elif kind == "snapshot":
            assert view_hash(msg["view"]) == msg["hash"]
            self.view, self.seq = msg["view"], msg["seq"]
            self.snapshots += 1
        elif kind == "delta":
            if msg["base"] != self.seq:
                self._resync = True
                return
            try:
                view = patch(self.view, msg["ops"])
            except PatchError:
                self._resync = True
                return
            assert view_hash(view) == msg["hash"], "a delta led to a view with another hash"
            self.view, self.seq = view, msg["seq"]
            self.deltas += 1
        elif kind == "ack":
            assert self.pending is not None and msg["id"] == self.pending["id"], (msg, self.pending)
            self.last_acked = self.pending["id"]
            self.pending = None
            self.acks += 1
        elif kind == "reject":
            self.rejects.append(msg)
            if self.pending is not None and msg["id"] == self.pending["id"]:
                self.pending = None
        elif kind == "status":
            self.status = msg
        elif kind == "error":
            self.errors.append(msg)
        elif kind == "chat":
            self.chats.append(msg)
        elif kind == "notice":
            self.notices.append(msg)

    _reply = None
    _resync = False

    async def maybe_act(self) -> None:
        if self._reply is not None:
            reply, self._reply = self._reply, None
            await self.raw.send(reply)
        if self._resync:
            self._resync = False
            await self.raw.send({"type": "resync"})
            return
        v = self.view
        if (self.answering and self.pending is None and v is not None and v.get("prompt")
                and self.seat in v["to_act"]):
            self.pending = self.act_message(self.next_id, self.seq, self.bot.choose(v))
            self.next_id += 1
            await self.raw.send(self.pending)

    def act_message(self, cid: int, seq: int, action: list, key: Signer | None = None) -> dict:
        """An act as a client sends it: the move's bytes, signed (C10) by our key (or `key`)
        over the entry at `seq`, the view it was decided on."""
        move = pack(list(action))
        entries = self.px.entries
        sig = (key or self.key).sign(SIG_MOVE, move_payload(entries[0].hash, self.seat, entries[seq].hash, move))
        return {"type": "act", "id": cid, "seq": seq, "move": move, "sig": sig}


async def play_all(players: list[SeatPlayer], timeout: float = 30.0) -> None:
    await asyncio.gather(*(p.play(timeout=timeout) for p in players))


class BlindSeatPlayer:
    """Plays one seat of a blind table over the wire: protocol.blind_exchange.BlindPlayerExchange
    checks every entry with its replica and says what to send (its commitment and deal key, seed,
    shuffle steps, shares, deal seed), and random legal moves come from its own prompt. What it
    sent and the log does not show yet is sent again when it claims its seat again (a server
    killed before storing it has forgotten it)."""

    def __init__(self, url: str, table: str, name: str, seed: int = 0) -> None:
        self.url, self.table, self.name = url, table, name
        self.rnd = random.Random(seed)
        self.key = Signer.generate()
        self.raw: Raw | None = None
        self.bx = None
        self.seat = self.player_id = None
        self.next_id = 1000 * (seed + 1)
        self.pending: dict | None = None    # an act not yet answered
        self.moved = False                  # an act acknowledged whose move entry has not come yet
        self.unconfirmed: list[dict] = []   # what we sent that no entry (or ack) shows yet
        self.outbox: list[dict] = []
        self.errors: list[dict] = []
        self.rejects: list[dict] = []
        self.stales = 0                     # moves refused as stale (§9's rule 3) and decided again
        self.notices: list[dict] = []
        self.status: dict | None = None
        self.views = self.snapshots = self.acks = 0
        self.answering = True               # False: sends nothing at all (a client that stopped)
        self.moving = True                  # False: answers what its client owes, makes no move
        self.on_entry = None                # called after every entry taken in

    @property
    def report(self):
        return self.bx.report if self.bx else None

    @property
    def done(self) -> bool:
        return self.report is not None

    async def sit(self) -> None:
        from protocol.blind_exchange import BlindPlayerExchange
        self.raw = await Raw.connect(self.url)
        await self.raw.send({"type": "sit", "table": self.table, "name": self.name, "key": self.key.public_key})
        msg = await self.raw.expect("seated")
        self.seat, self.player_id = msg["seat"], msg["player_id"]
        self.bx = BlindPlayerExchange(self.player_id, self.key, server_key=self.raw.welcome["key"])

    async def resume(self, url: str | None = None) -> None:
        self.url = url or self.url
        self.raw = await Raw.connect(self.url, claim=(self.table, self.seat, self.key), have=len(self.bx.record))
        # A move acknowledged while it waited (the server was opening cards) may have been refused
        # after, and a server killed before telling leaves nobody to say so: while our question is
        # still open, we decide again, as client/table.py asks its person again.
        self.pending, self.moved = None, False
        self.outbox = list(self.unconfirmed)

    async def play(self, until=None, timeout: float = 120.0) -> None:
        async def loop():
            await self.flush()
            while not self.done and not (until and until(self)):
                self.handle(await self.raw.recv(PATIENCE))
                await self.flush()
        try:
            await asyncio.wait_for(loop(), timeout)
        except Exception as e:  # a failure in a match of hundreds of entries says where it came
            e.add_note(self.where())
            raise

    def where(self) -> str:
        """Where this seat's client is in its match: its latest entries, what it waits for, what
        it sent that the log does not show yet, and what the server refused."""
        record = self.bx.record if self.bx is not None else []
        latest = [(i, m.body["t"], m.body.get("seat"), m.body.get("party"))
                  for i, m in enumerate(record)][-8:]
        try:
            asked = self.bx is not None and self.bx.prompt() is not None
        except Exception as e:
            asked = repr(e)
        return (f"{self.name} at seat {self.seat}: {len(record)} entries, the latest (n, t, seat, party) {latest}; "
                f"a question {asked}, move pending {self.pending is not None}, moved {self.moved}; "
                f"unconfirmed {[m['type'] for m in self.unconfirmed]}, outbox {[m['type'] for m in self.outbox]}; "
                f"{self.stales} stale, rejects {self.rejects}, errors {self.errors}")

    def handle(self, msg: dict) -> None:
        kind = msg["type"]
        if kind == "entry":
            signed = Signed.parse(kind, msg["payload"], msg["sig"])
            for reply in self.bx.receive(signed):
                self.outbox.append(reply)
            self._confirm(signed.body)
            if self.on_entry is not None:
                self.on_entry(self)
        elif kind in ("snapshot", "delta", "private"):
            self.views += 1     # a blind table sends a seated player none
        elif kind == "ack":
            self.acks += 1
            self.unconfirmed = [m for m in self.unconfirmed if m.get("id") != msg["id"]]
            if self.pending is not None and msg["id"] == self.pending["id"]:
                self.pending = None
        elif kind == "reject":
            if msg["code"] == "stale":
                self.stales += 1        # another seat's move landed first: decide again, as a client does
            else:
                self.rejects.append(msg)
            self.unconfirmed = [m for m in self.unconfirmed if m.get("id") != msg["id"]]
            if self.pending is not None and msg["id"] == self.pending["id"]:
                self.pending, self.moved = None, False
        elif kind == "error":
            self.errors.append(msg)
            if msg["message"].startswith("Your move was not applied"):
                self.moved = False
        elif kind == "notice":
            self.notices.append(msg)
        elif kind == "status":
            self.status = msg

    def _confirm(self, body: dict) -> None:
        """Drop from `unconfirmed` what this entry shows the server took."""
        party = self.bx.reader.party if self.bx.reader is not None and self.seat is not None else None
        t = body["t"]

        def shown(m: dict) -> bool:
            k = m["type"]
            if k == "commit":
                return t == "commits"
            if k == "reveal":
                return t == "reveals"
            if k == "deal_seed":
                return t == "final"
            if body.get("party") != party:
                return False
            if k == "shuffle":
                return t == "shuffle" and (body["name"], body["idx"]) == (m["name"], m["idx"])
            if k == "shares":
                return t == "shares" and set(m["cards"]) <= set(body["cards"])
            return False
        self.unconfirmed = [m for m in self.unconfirmed if not shown(m)]
        if t == "move" and body.get("seat") == self.seat:
            self.moved = False
        if t in ("forfeit", "final", "cancel"):
            self.moved = False

    async def flush(self) -> None:
        if not self.answering:
            return
        while self.outbox:
            m = self.outbox.pop(0)
            if m not in self.unconfirmed:
                self.unconfirmed.append(m)
            await self.raw.send(m)
        if self.moving and self.pending is None and not self.moved and self.bx is not None \
                and self.bx.prompt() is not None:
            from games.choice import pick_uniform
            p = self.bx.prompt()
            m = self.bx.move(pick_uniform(p["options"], p["min"], p["max"], self.rnd))
            self.pending = {**m, "id": self.next_id}
            self.next_id += 1
            self.moved = True
            self.unconfirmed.append(self.pending)
            await self.raw.send(self.pending)


def new_key() -> bytes:
    """A fresh player's public key, for a sit whose seat the test never claims again."""
    return Signer.generate().public_key
