"""The network client: one connection to a Governor server, a seat (or a spectator's chair) at one
of its tables, and everything that keeps it alive.

Three layers, so the protocol logic can be tested without a socket (DESIGN.md §6):

- `SeatSession` is what survives the process: url, table, seat, token, player id, our secret seed
  and every signed message received, in the client data directory. A client killed mid-game and
  started again with the same data directory resumes the seat from it.
- `Table` is the sans-I/O state of one table: fed one decoded server message at a time, it checks
  the signed messages through a PlayerExchange (FAIRNESS.md §4–5), applies snapshots and deltas
  (protocol.diff), keeps the game log, and returns the messages to send back (commit, reveal,
  resync).
- `Link` (one WebSocket: hello, welcome, lobby requests) and `SeatRunner` / `Spectator` (the
  asyncio loop of a seat or a spectator, with reconnection by exponential backoff) are the thin
  I/O shell around it.

Who decides for the seat is a `Player`: a person at the terminal (client/join.py) or a bot.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
import websockets
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import record, wire
from protocol.codec import pack, unpacker
from protocol.diff import PatchError, patch, view_hash
from protocol.exchange import PlayerExchange
from protocol.fairness import player_commit
from protocol.messages import ProtocolError, Signed
from protocol.signing import fingerprint
from protocol.verify import Report

PATIENCE = 120.0        # seconds a dropped connection is retried before giving up (at least 60)
BACKOFF_FIRST = 0.2     # first retry delay, doubled each time, with jitter, capped
BACKOFF_CAP = 5.0
HOLD = 2.0              # after an ack, how long an unchanged question waits for the next update
REQUEST_TIMEOUT = 15.0
RESYNC_AFTER = 1.0      # after a reconnect, how long to wait for the server's snapshot before asking
PACE_RATE, PACE_BURST = 15.0, 30   # our messages a second, and at once: under the server's default 20 and 40


def default_data_dir() -> Path:
    """$GOVERNOR_DATA, else ~/.local/share/governor/client."""
    env = os.environ.get("GOVERNOR_DATA")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "governor" / "client"


def normalize_url(url: str) -> str:
    url = url.strip()
    if "://" not in url:
        url = "ws://" + url
    return url.rstrip("/")


class ClientError(Exception):
    """Something that ends this client's run; str() is the sentence to show."""


class Leave(Exception):
    """Raised by a Player to leave the table. Before the match starts the seat is given back;
    after, it stays ours (the server lets a bot play it after its grace period) and can be resumed."""


class ServerRefused(ClientError):
    """The server answered a lobby request with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------ persistence

def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    try:
        path.chmod(0o700)
    except OSError:
        pass
    return path


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


@dataclass
class SeatSession:
    """A seat at a table of a server, as saved in the client data directory.

    `<data>/sessions/<key>.json` holds url, table, seat, token (secret: the file is 0600),
    player id, our seed (secret until revealed), the next command id, the server key seen; the
    signed messages received are appended to `<key>.msgs` in the record format as they arrive.
    """
    data_dir: Path
    url: str
    table: str
    seat: int
    token: str
    player_id: str
    name: str
    seed: bytes
    server_key: bytes | None = None
    next_id: int = 1
    finished: bool = False
    record_path: str | None = None
    messages: list[Signed] = field(default_factory=list)

    @staticmethod
    def key(url: str, table: str) -> str:
        return hashlib.sha256(f"{normalize_url(url)}\0{table}".encode()).hexdigest()[:20]

    @property
    def path(self) -> Path:
        return self.data_dir / "sessions" / f"{self.key(self.url, self.table)}.json"

    @property
    def msgs_path(self) -> Path:
        return self.path.with_suffix(".msgs")

    def save(self) -> None:
        _private_dir(self.path.parent)
        _write_json(self.path, {
            "url": self.url, "table": self.table, "seat": self.seat, "token": self.token,
            "player_id": self.player_id, "name": self.name, "seed": self.seed.hex(),
            "server_key": self.server_key.hex() if self.server_key else None,
            "next_id": self.next_id, "finished": self.finished, "record": self.record_path,
        })
        if not self.msgs_path.exists():
            fd = os.open(self.msgs_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(record.MAGIC + b"".join(_item(m) for m in self.messages))

    def append(self, msg: Signed) -> None:
        """Keep one more signed message, on disk at once (one write: a kill leaves it whole or
        absent, and a torn tail is dropped on load)."""
        self.messages.append(msg)
        if not self.msgs_path.exists():
            self.save()
            return
        with open(self.msgs_path, "ab") as f:
            f.write(_item(msg))

    def take_id(self) -> int:
        """A command id never used before by this seat, even across restarts of the process."""
        n = self.next_id
        self.next_id += 1
        self.save()
        return n

    @classmethod
    def load(cls, path: Path) -> "SeatSession":
        data = json.loads(path.read_text())
        s = cls(data_dir=path.parent.parent, url=data["url"], table=data["table"], seat=data["seat"],
                token=data["token"], player_id=data["player_id"], name=data.get("name", ""),
                seed=bytes.fromhex(data["seed"]),
                server_key=bytes.fromhex(data["server_key"]) if data.get("server_key") else None,
                next_id=data.get("next_id", 1), finished=data.get("finished", False),
                record_path=data.get("record"))
        s.messages = _read_messages(s.msgs_path)
        return s

    @classmethod
    def find(cls, data_dir: Path, url: str, table: str) -> "SeatSession | None":
        path = Path(data_dir) / "sessions" / f"{cls.key(url, table)}.json"
        return cls.load(path) if path.exists() else None

    @classmethod
    def unfinished(cls, data_dir: Path, url: str) -> list["SeatSession"]:
        """Saved seats at this server whose match we have not seen end, newest first."""
        folder = Path(data_dir) / "sessions"
        out = []
        for path in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
                if folder.exists() else []:
            try:
                s = cls.load(path)
            except (OSError, ValueError, KeyError, record.RecordError):
                continue
            if not s.finished and normalize_url(s.url) == normalize_url(url):
                out.append(s)
        return out

    def forget(self) -> None:
        for p in (self.path, self.msgs_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass


def _item(m: Signed) -> bytes:
    return pack([0 if m.kind == "entry" else 1, m.payload, m.sig])


def _read_messages(path: Path) -> list[Signed]:
    """The signed messages of a session file; a torn last item (killed mid-write) is dropped."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if not data.startswith(record.MAGIC):
        raise record.RecordError(f"{path} is not a message file")
    reader = unpacker(record.MAX_RECORD)
    reader.feed(data[len(record.MAGIC):])
    out: list[Signed] = []
    good = len(record.MAGIC)
    try:
        for raw in reader:
            if not (isinstance(raw, list) and len(raw) == 3 and raw[0] in (0, 1)):
                break
            out.append(Signed.parse(("entry", "private")[raw[0]], raw[1], raw[2]))
            good = len(record.MAGIC) + reader.tell()
    except (ValueError, ProtocolError, msgpack.UnpackException):
        pass     # a torn or damaged tail: keep what came before it
    if good != len(data):
        with open(path, "r+b") as f:
            f.truncate(good)
    return out


def save_record(data_dir: Path, items: list[Signed], game_id: bytes | None) -> Path:
    name = game_id.hex() if isinstance(game_id, bytes) else f"match-{int(time.time())}"
    return record.write(Path(data_dir) / "records" / f"{name}.govrec", items)


# ------------------------------------------------------------------ one table, no I/O

@dataclass
class Outcome:
    """How a match ended for this client."""
    finished: bool                  # a final entry (False: cancelled, or we gave up)
    report: Report | None           # the FAIRNESS.md §5 audit
    record: Path | None             # the saved record
    table: str
    seat: int | None
    names: list[str]
    result: dict | None = None      # the engine's result from the final view, when we saw it
    reason: str | None = None       # why it did not finish

    @property
    def verified(self) -> bool:
        return self.finished and self.report is not None and self.report.ok

    def as_dict(self) -> dict:
        r = self.report
        return {
            "table": self.table, "seat": self.seat, "finished": self.finished,
            "verified": self.verified, "names": self.names,
            "scores": r.scores if r and r.scores is not None else
            ([sc["total"] for sc in self.result["scores"]] if self.result else None),
            "winners": r.winners if r and r.winners is not None else
            (self.result["winners"] if self.result else None),
            "verdict": (("verified" if r.ok else f"FAILED at {r.where}: {r.what}") if r else
                        self.reason or "no record"),
            "checks": r.checks if r else [], "game_id": r.game_id if r else None,
            "server": r.server if r else None, "record": str(self.record) if self.record else None,
            "reason": self.reason,
        }


class Table:
    """One table as this client sees it. `feed(msg)` takes one decoded server message and
    returns the messages to send back; what changed is left in attributes and in `happened`,
    a list of (kind, data) the shell drains: "view", "events", "ack", "reject", "status",
    "error", "end", "notice".
    """

    def __init__(self, table: str, session: SeatSession | None = None,
                 server_key: bytes | None = None) -> None:
        self.table = table
        self.session = session
        self.exchange: PlayerExchange | None = None
        self.view: dict | None = None
        self.seq: int | None = None
        self.log: list[dict] = []           # every event shown to us, in order
        self.seats: list = []               # the latest status: who sits where, connected, bots
        self.status: str | None = None      # the table's: waiting, playing, over, cancelled
        self.want_snapshot = False          # a resync is under way: deltas are ignored until it comes
        self.pending: dict | None = None    # the act sent and not yet answered
        self.pending_prompt: dict | None = None
        self.answered: tuple | None = None  # (prompt, seq at ack, time of ack) of the last accepted act
        self.happened: list[tuple] = []
        self.ended = False
        if session is not None:
            self.exchange = PlayerExchange(session.player_id, session.seed,
                                           server_key=server_key or session.server_key)
            for m in session.messages:       # a restarted client: catch up from disk
                self.exchange.receive(m)
            self.ended = self.exchange.report is not None

    # -------------------------------------------------------------- signed messages

    @property
    def held(self) -> int:
        return len(self.session.messages) if self.session else 0

    @property
    def started(self) -> bool:
        """The seeds are revealed: the match is being played (or over), there are views."""
        ex = self.exchange
        return ex is not None and len(ex.entries) >= 3 and ex.entries[2].body["t"] == "reveals"

    @property
    def report(self) -> Report | None:
        return self.exchange.report if self.exchange is not None else None

    @property
    def header(self) -> dict | None:
        return self.exchange.header if self.exchange is not None else None

    def resume_messages(self) -> list[dict]:
        """After a reconnect: the exchange step we may owe the server (resent; the server ignores
        a repeat), and the unanswered command (same id: applied at most once)."""
        out: list[dict] = []
        ex = self.exchange
        if ex is not None and ex.report is None:
            kinds = [e.body["t"] for e in ex.entries]
            if kinds == ["header"]:
                out.append({"type": "commit", "commitment": player_commit(
                    ex.header["game_id"], ex.player_id, ex.seed)})
            elif kinds == ["header", "commits"]:
                out.append({"type": "reveal", "seed": ex.seed})
        if self.pending is not None:
            out.append(self.pending)
        return out

    def _signed(self, msg: dict) -> list[dict]:
        try:
            signed = Signed.parse(msg["type"], msg["payload"], msg["sig"])
        except ProtocolError as e:
            raise ClientError(f"the server sent a malformed signed message: {e.message}") from None
        if self.exchange is None:
            return []      # a spectator has no part in the exchange
        if self._already_held(signed):
            return []
        try:
            reply = self.exchange.receive(signed)
        except ProtocolError as e:
            if e.code == "commit_changed":
                raise ClientError("the commitment set does not hold our commitment: either we were away "
                                  "so long that the server committed a seed for our seat, or the server "
                                  "cheats. Our seed stays secret; the match goes on without us.") from None
            raise ClientError(f"the server's signed log failed a check ({e.code}): {e.message}. "
                              "Leaving the table: this match cannot be trusted.") from None
        self.session.append(signed)
        out = []
        kind = signed.body["t"]
        if kind == "header":
            self.happened.append(("notice", "The table is full: the match header is signed; "
                                  "committing to our secret seed."))
            out.append({"type": "commit", "commitment": reply})
        elif kind == "commits":
            self.happened.append(("notice", "Every seat has committed; revealing our seed."))
            out.append({"type": "reveal", "seed": reply})
        elif kind == "reveals":
            self.happened.append(("notice", "All seeds revealed and checked against their "
                                  "commitments: the deal is fixed, play begins."))
        elif kind in ("final", "cancel"):
            self.ended = True
            self.happened.append(("end", kind))
        return out

    def _already_held(self, m: Signed) -> bool:
        """A message resent after a reconnect (the server sent from an older point than `have`)."""
        ex = self.exchange
        if m.kind == "entry":
            seq = m.body["seq"]
            if seq < len(ex.entries):
                if ex.entries[seq].payload == m.payload:
                    return True
                raise ClientError(f"the server sent a different entry {seq} than before: "
                                  "this match cannot be trusted.")
            return False
        return any(p.payload == m.payload for p in ex.privates)

    # -------------------------------------------------------------- views

    def _events(self, events: list) -> None:
        new = [e for e in events if isinstance(e, dict) and isinstance(e.get("text"), str)]
        if new:
            self.log.extend(new)
            self.happened.append(("events", new))

    def _snapshot(self, msg: dict) -> list[dict]:
        if view_hash(msg["view"]) != msg["hash"]:
            self.happened.append(("notice", "a snapshot did not match its hash"))
        self.view, self.seq = msg["view"], msg["seq"]
        self.want_snapshot = False
        self._events(_unseen(self.log, msg["events"]))
        self.happened.append(("view", self.view))
        return []

    def _delta(self, msg: dict) -> list[dict]:
        if self.want_snapshot:
            return []
        if self.view is None or msg["base"] != self.seq:
            return self._resync()
        try:
            view = patch(self.view, msg["ops"])
        except PatchError:
            return self._resync()
        if view_hash(view) != msg["hash"]:
            return self._resync()
        self.view, self.seq = view, msg["seq"]
        self._events(msg["events"])
        self.happened.append(("view", self.view))
        return []

    def _resync(self) -> list[dict]:
        self.want_snapshot = True
        return [{"type": "resync"}]

    # -------------------------------------------------------------- commands

    def act(self, action: list, seq: int | None = None) -> dict:
        """The command for a decision made on the view at `seq` (default: the current one)."""
        seq = self.seq if seq is None else seq
        self.pending = {"type": "act", "id": self.session.take_id(), "seq": seq, "action": list(action)}
        self.pending_prompt = self.prompt
        return self.pending

    @property
    def prompt(self) -> dict | None:
        return self.view.get("prompt") if self.view and not self.view.get("over") else None

    def should_ask(self, now: float) -> bool | float:
        """True when our seat owes an answer to the current view; a number of seconds to wait
        before asking again when the question looks like the one just answered."""
        if self.exchange is None or self.ended or self.prompt is None or self.want_snapshot \
                or self.pending is not None:
            return False
        if self.answered is not None:
            prompt, seq, at = self.answered
            if prompt == self.prompt and seq == self.seq:
                wait = at + HOLD - now
                if wait > 0:
                    return wait
            self.answered = None
        return True

    def _answer(self, msg: dict) -> list[dict]:
        if self.pending is None or msg["id"] != self.pending["id"]:
            return []      # the answer to a command resent after a reconnect, already handled
        self.pending = None
        if msg["type"] == "ack":
            self.answered = (self.pending_prompt, self.seq, time.monotonic())
            self.happened.append(("ack", msg["id"]))
            return []
        if msg["code"] == "stale":
            self.want_snapshot = True   # the server sends one; the question is asked again on it
        self.happened.append(("reject", (msg["code"], msg["message"])))
        return []

    # -------------------------------------------------------------- dispatch

    def feed(self, msg: dict) -> list[dict]:
        kind = msg["type"]
        if "table" in msg and msg["table"] != self.table:
            return []
        if kind in ("entry", "private"):
            return self._signed(msg)
        if kind == "snapshot":
            return self._snapshot(msg)
        if kind == "delta":
            return self._delta(msg)
        if kind in ("ack", "reject"):
            return self._answer(msg)
        if kind == "status":
            self.seats = msg["seats"]
            self.status = msg.get("status", self.status)
            self.happened.append(("status", self.seats))
            return []
        if kind == "error":
            self.happened.append(("error", (msg["code"], msg["message"])))
            return []
        return []

    def drain(self) -> list[tuple]:
        out, self.happened = self.happened, []
        return out

    def names(self) -> list[str]:
        if self.header:
            return [s.get("name", "?") for s in self.header.get("seats", [])]
        if self.view:
            return [p["name"] for p in self.view["players"]]
        return []


def _unseen(log: list[dict], recent: list) -> list:
    """A snapshot carries the latest events of the log, most of which we have shown already:
    the ones after the longest overlap between the end of our log and the start of `recent`."""
    for k in range(min(len(log), len(recent)), 0, -1):
        if log[-k:] == recent[:k]:
            return recent[k:]
    return recent


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

    def __init__(self, url: str, rate: float = PACE_RATE) -> None:
        self.url = normalize_url(url)
        self.ws = None
        self.welcome: dict | None = None
        self.rate = rate          # messages a second we allow ourselves; 0: no pacing
        self.pace = Pace(rate) if rate else None

    @property
    def fingerprint(self) -> str | None:
        return self.welcome["server"] if self.welcome else None

    async def open(self, token: str | None = None, have: int | None = None,
                   timeout: float = REQUEST_TIMEOUT) -> dict:
        try:
            self.ws = await websockets.connect(self.url, max_size=wire.MAX_SERVER_FRAME,
                                               open_timeout=timeout, compression=None, proxy=None,
                                               ping_interval=10, ping_timeout=20)
        except InvalidURI:
            raise ClientError(f"{self.url!r} is not a server address: use ws://HOST:PORT") from None
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

    async def create(self, game: str, seats: int, bots: int, options: dict,
                     bot: str | None = None) -> str:
        msg = {"type": "create", "game": game, "seats": seats, "bots": bots, "options": options}
        if bot:
            msg["bot"] = bot
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
    """A seat played by bots.make(level, seed) from its own view; prints nothing itself."""

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
                 patience: float = PATIENCE, rate: float = PACE_RATE) -> None:
        self.session = session
        self.rate = link.rate if link is not None else rate
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
            link = Link(self.session.url, self.rate)
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
        self.session.record_path = str(path)
        self.session.forget()
        final = ex.entries[-1].body
        view = self.table.view or {}
        return Outcome(finished=final["t"] == "final", report=report, record=path,
                       table=self.session.table, seat=ex.seat, names=self.table.names(),
                       result=view.get("result"),
                       reason=final.get("reason") if final["t"] == "cancel" else None)


def _why(e: BaseException) -> str:
    code = close_code(e)
    if code is not None:
        reason = e.rcvd.reason
        return f"closed by the server ({code}{': ' + reason if reason else ''})"
    if isinstance(e, ConnectionClosed):
        return "connection dropped"
    return str(e) or type(e).__name__


class Spectator:
    """Watches a table (the public view) until its match ends; reconnects like a seat."""

    def __init__(self, url: str, table: str, player: Player, *, link: Link | None = None,
                 patience: float = PATIENCE) -> None:
        self.url = normalize_url(url)
        self.rate = link.rate if link is not None else PACE_RATE
        self.player = player
        self.link = link
        self.backoff = Backoff(patience)
        self.table = Table(table)

    async def run(self) -> Table:
        try:
            while not self._over():
                try:
                    if self.link is None or self.link.ws is None:
                        await self._connect()
                    await self.link.send({"type": "watch", "table": self.table.table})
                    while not self._over():
                        msg = await self.link.recv()
                        if msg["type"] == "error" and self.table.view is None:
                            raise ServerRefused(msg["code"], msg["message"])
                        for out in self.table.feed(msg):
                            await self.link.send(out)
                        happened = self.table.drain()
                        if happened:
                            self.player.update(self.table, happened)
                except _DROPPED as e:
                    if self._over():
                        break
                    self.player.connection("reconnecting", _why(e))
                    await self.link.close()
                    self.link = None
            return self.table
        finally:
            if self.link is not None:
                await self.link.close()

    def _over(self) -> bool:
        return bool((self.table.view or {}).get("over")) or self.table.status == "cancelled"

    async def _connect(self) -> None:
        while True:
            delay = self.backoff.next_delay()
            if delay is None:
                raise ClientError(f"lost the connection to {self.url} and could not get it back "
                                  f"in {self.backoff.patience:.0f} s.")
            await asyncio.sleep(delay)
            link = Link(self.url, self.rate)
            try:
                welcome = await link.open()
            except _DROPPED:
                await link.close()
                continue
            self.link = link
            self.backoff.reset()
            self.player.connection("connected", welcome["server"])
            return
