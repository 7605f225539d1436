"""The lobby's decisions with no I/O: fed what a connection asked and what the server holds,
they return what to answer or what to do; the server (server/app.py) reads the sockets, looks
tables up, awaits the store and the cluster, and carries the answers out.

- the hello: the protocol version, whether it claims a seat and which, the welcome with its
  challenge, and the claim that answers it (whose signature the table checks against its seat's
  key, server/table_core.py `attach`);
- create: the game, seats, options and bot levels checked, whether it is dealt blind (by default
  when two or more seats are people's), then the table limits and the quotas of the address and
  its network (server/quotas.py), then a fresh table id and the table's row;
- sit and watch: a connection with a seat asks for no other, a name is printable and short, a
  watch (or a table to be read from the database) is within the address's watch quota; then what
  to answer when the table was not found here;
- leave, a seat's command from a connection without a seat, and a table too busy to take one;
- list: which tables the listing holds, in which order, and how many finished ones;
- chat: who may say something at a table, how often, and what a line may hold.

A refusal changes nothing: it is an `error` frame (Refuse), or, where the protocol says the
connection ends, a close code and its reason (Cut).
"""
from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import bots
import games
from games.errors import IllegalAction
from protocol import wire

from protocol.bucket import TokenBucket

from .conn import network_of
from .inbox import Attach, Sit, Watch
from .listing import Finished
from .quotas import Quotas
from .store import TableRow

TABLE_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
TABLE_ID_LENGTH = 6
NAME_MAX = 24
LISTED_FINISHED = 50      # finished tables shown in a listing (the newest)


class Listed(Protocol):
    """A table in memory as the listing reads it (server/table.py, server/table_core.py)."""
    @property
    def created(self) -> float: ...
    @property
    def active(self) -> bool: ...
    @property
    def private(self) -> bool: ...

    def summary(self) -> dict: ...


class Seated(Protocol):
    """A table as chat reads it: its id, and who holds each seat under which name."""
    @property
    def id(self) -> str: ...
    @property
    def seats(self) -> Sequence: ...


@dataclass(frozen=True)
class Refuse:
    """An `error` to the client; nothing changed."""
    code: str
    message: str

    @cached_property
    def frame(self) -> bytes:
        return wire.encode({"type": "error", "code": self.code, "message": self.message})


@dataclass(frozen=True)
class Cut:
    """Close the connection with this code and reason, once what is queued went out."""
    code: int
    reason: str


@dataclass(frozen=True)
class Redirect:
    """The client goes to another server process (`table`: for that table)."""
    url: str
    table: str | None = None

    @property
    def frame(self) -> bytes:
        return wire.encode({"type": "redirect", "url": self.url} | ({"table": self.table} if self.table else {}))


@dataclass(frozen=True)
class Claim:
    """A hello that claims seat `seat` of table `table`; `have`: the signed messages its client holds."""
    table: str
    seat: int
    have: int


@dataclass(frozen=True)
class TableAsked:
    """A create request, checked: what the new table is to be."""
    game: str
    title: str
    seats: int
    options: dict
    level: str              # of the bot that plays for an absent person
    levels: list[str]       # of each computer seat in turn
    private: bool
    rated: bool             # the match counts for ratings (protocol/standings.py)
    blind: bool             # dealt blind (docs/fairness.md §10): nobody, the server included, sees a hidden card
    here: bool              # on this process, whatever the cluster's load


@dataclass(frozen=True)
class Approach:
    """A sit or watch to hand to table `table` once it is found."""
    table: str
    request: Sit | Watch


class Lobby:
    def __init__(self, limits, quotas: Quotas, choice: Callable[[str], str] = secrets.choice) -> None:
        self.limits = limits
        self.quotas = quotas
        self._choice = choice     # draws each character of a table id
        # address -> its creates waiting for the store: counted as open tables, or creates sent
        # together would all pass the table limits before any of them is stored
        self.creating: Counter[str] = Counter()
        # a watch over the quota is refused with the same frame every time: packed once (a flood of
        # them once cost the loop a sentence and a frame each)
        self.watch_refused = Refuse("slow_down", quotas.watch_refusal)
        self.finished = Finished(LISTED_FINISHED)     # the finished tables the listing shows
        self.chat_refused = Refuse("slow_down", f"At most {limits.chat_rate:g} chat line(s) a second (a burst of "
                                                f"{limits.chat_burst}); wait a moment.")

    # ------------------------------------------------------------------ the hello

    def hello(self, msg: dict) -> Cut | Claim | None:
        """The first message: a Cut when it is no hello this server takes; the Claim of a seat
        when it names one; None for a hello that claims nothing."""
        if msg["type"] != "hello":
            return Cut(wire.CLOSE_BAD_HELLO, f"the first message must be a hello, not a {msg['type']}")
        if msg["version"] != wire.VERSION:
            return Cut(wire.CLOSE_BAD_HELLO, f"protocol {msg['version']!r} is not spoken here: this server "
                                             f"speaks {wire.VERSION}")
        if "table" not in msg:
            return None
        if "seat" not in msg:
            return Cut(wire.CLOSE_BAD_HELLO, "a hello that names a table claims a seat there: it names the seat too")
        return Claim(msg["table"], msg["seat"], max(0, msg.get("have", 0)))

    def claim_read(self, addr: str) -> Cut | None:
        """A claim of a seat of a table not in memory, which is read from the database (perhaps
        replayed): it counts against the address's watches. Not 4003 when refused (the seat is
        there): the client tries again."""
        if not self.quotas.may_watch(addr, read=True):
            return Cut(wire.CLOSE_FLOODING, self.quotas.watch_refusal)
        return None

    def claim_not_here(self, claim: Claim, url: str | None) -> list[Redirect | Cut]:
        """The claimed table is not served by this process: `url`, the process that serves it
        ("" while it moves between processes, None when it is no table of the cluster's, or
        there is no cluster)."""
        if url is None:
            return [Cut(wire.CLOSE_BAD_HELLO, f"there is no table {claim.table!r}")]
        moved = Cut(wire.CLOSE_MOVED, f"table {claim.table} is served by another server process, or will be "
                                      "once its lease runs out: connect again")
        return [Redirect(url, claim.table), moved] if url else [moved]

    @staticmethod
    def welcome(fingerprint: str, public_key: bytes, nonce: bytes, cluster: list[str] | None) -> bytes:
        """The answer to a hello. `nonce`, the challenge of a seat claim, is fresh for every
        connection, so that an answer read on the way is of no use on another one; `cluster`:
        where the client may come back when this process is gone."""
        welcome = {"type": "welcome", "version": wire.VERSION, "server": fingerprint, "key": public_key,
                   "nonce": nonce}
        if cluster is not None:
            welcome["cluster"] = cluster
        return wire.encode(welcome)

    @staticmethod
    def claim(claim: Claim, msg: dict, conn, nonce: bytes) -> Cut | Attach:
        """The message after the welcome of a hello that claims a seat: its answer to the
        challenge, for the table to check against the seat's key."""
        if msg["type"] != "claim":
            return Cut(wire.CLOSE_BAD_HELLO, f"a hello that claims a seat is followed by its claim, not a {msg['type']}")
        return Attach(conn, claim.seat, claim.have, nonce, msg["sig"])

    @staticmethod
    def later(msg: dict) -> Cut | None:
        """A message after the hello (and its claim): never another of them."""
        if msg["type"] in ("hello", "claim"):
            return Cut(wire.CLOSE_BAD_FRAME, f"{msg['type']} comes only first")
        return None

    # ------------------------------------------------------------------ create

    def ask_table(self, msg: dict) -> Refuse | TableAsked:
        """A create request checked against its game: what the table is to be, or why not."""
        try:
            engine = games.get(msg["game"])
        except IllegalAction as e:
            return Refuse(e.code, e.message)
        info = engine.INFO
        n, nbots = msg["seats"], msg["bots"]
        try:
            info.check_players(n)
            options = info.check_options(msg.get("options"))
        except IllegalAction as e:
            return Refuse(e.code, e.message)
        if not 0 <= nbots < n:
            return Refuse("bad_table", f"A table of {n} has 0 to {n - 1} computer seats: at least one seat is "
                                       "for a person.")
        level = msg.get("bot") or bots.default_level(info.id)
        # `levels`, when given, names the level of each computer seat in turn; `bot` is the
        # level of them all otherwise, and always of the bot that plays for an absent person.
        levels = msg.get("levels") or [level] * nbots
        if len(levels) != nbots:
            return Refuse("bad_table", f"{len(levels)} bot levels for {nbots} computer seats: give one level per "
                                       "computer seat.")
        for lv in [level, *levels]:
            if lv not in bots.levels(info.id):
                return Refuse("unknown_bot", f"No bot level {str(lv)[:40]!r} for {info.title}; "
                                             f"there is: {', '.join(bots.levels(info.id))}.")
        # Blind by default where two or more people play: then a server that saw every hand could
        # tell one person's cards to another.
        blind = msg.get("blind", n - nbots >= 2)
        return TableAsked(info.id, info.title, n, options, level, list(levels), msg.get("private", False),
                          msg.get("rated", False), blind, bool(msg.get("here")))

    def admit(self, asked: TableAsked, addr: str, open_creators: Iterable[str | None], taken: Callable[[str], bool],
              now: float, wall: float) -> Refuse | TableRow:
        """Whether `addr` may create the table now, given the creator of every open table here
        (None: one that came from the store); if it may, the new table's row, with an id
        `taken` says no table has, and the create counts (quota and table limits) until
        `stored(addr)`."""
        creators = list(open_creators)
        if len(creators) + self.creating.total() >= self.limits.max_tables:
            return Refuse("too_many_tables", f"This server holds at most {self.limits.max_tables} open tables; "
                                             "join one or try later.")
        mine = sum(c == addr for c in creators) + self.creating[addr]
        net = network_of(addr)
        ours = sum(c is not None and network_of(c) == net for c in creators) \
            + sum(n for a, n in self.creating.items() if network_of(a) == net)
        refusal = self.quotas.refuse_table(addr, mine, ours, now)
        if refusal is not None:
            return Refuse("too_many_tables", refusal)
        self.quotas.created_table(addr, now)
        self.creating[addr] += 1
        humans = asked.seats - len(asked.levels)
        seats = [{"name": None, "player_id": None, "key": None, "bot": None} for _ in range(humans)]
        seats += [{"name": f"Bot {i + 1}", "player_id": f"bot-{i + 1}-{secrets.token_hex(4)}", "key": None,
                   "bot": level} for i, level in enumerate(asked.levels, humans)]
        return TableRow(self.new_id(taken), asked.game, asked.options, asked.level, seats, None, None, "waiting",
                        wall, private=asked.private, rated=asked.rated, blind=asked.blind)

    def stored(self, addr: str) -> None:
        """A create admitted for `addr` is stored, or failed to be: no longer counted as pending."""
        self.creating[addr] -= 1
        if not self.creating[addr]:
            del self.creating[addr]

    def new_id(self, taken: Callable[[str], bool]) -> str:
        while True:
            tid = "".join(self._choice(TABLE_ID_ALPHABET) for _ in range(TABLE_ID_LENGTH))
            if not taken(tid):
                return tid

    @staticmethod
    def created(table_id: str, idle: float) -> bytes:
        """The creator's answer; `expires`: a table no person is at does not wait for long."""
        return wire.encode({"type": "created", "table": table_id, "expires": float(idle)})

    # ------------------------------------------------------------------ sit, watch, leave

    def approach(self, msg: dict, conn, seated_at: str | None, kept: Callable[[str], bool], addr: str) \
            -> Refuse | Approach:
        """A sit or watch from a connection with a seat at `seated_at` (None: none), from `addr`;
        `kept`: whether a table is in memory (else it is read from the database, and perhaps
        replayed). Everything that can refuse it without the table: a table brought into memory
        is always handed the request, and so leaves memory again when it is done."""
        if seated_at is not None:
            return Refuse("already_seated", f"This connection has a seat at table {seated_at}; open another "
                                            "connection.")
        if msg["type"] == "sit":
            name = msg["name"].strip()
            if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
                return Refuse("bad_name", f"A name is 1 to {NAME_MAX} printable characters.")
            request: Sit | Watch = Sit(conn, name, msg["key"])
        else:
            request = Watch(conn, msg.get("have", 0))   # the signed entries the spectator holds already
        tid = msg["table"]
        read = not kept(tid)
        if (msg["type"] == "watch" or read) and not self.quotas.may_watch(addr, read):
            return self.watch_refused
        return Approach(tid, request)

    @staticmethod
    def not_here(table_id: str, url: str | None) -> Refuse | Redirect | Cut:
        """A sit or watch of a table this process does not serve: `url`, the process that does
        ("" while it moves between processes, None when it is no table of the cluster's or
        there is no cluster)."""
        if url:
            return Redirect(url, table_id)
        if url == "":   # another process took it first, or this one is still reading it
            return Cut(wire.CLOSE_MOVED, f"table {table_id} is being taken over by another server process: "
                                         "connect again")
        return Refuse("no_table", f"There is no table {table_id!r}.")

    @staticmethod
    def leave(at_table: bool) -> Refuse | None:
        if not at_table:
            return Refuse("not_seated", "This connection has no seat and watches no table.")
        return None

    # ------------------------------------------------------------------ list and chat

    def listing(self, tables: Mapping[str, Listed], elsewhere: Iterable[tuple[float, dict]] = ()) -> list[dict]:
        """The open tables, oldest first, then the newest finished ones: `tables`, those in memory
        by id; `elsewhere`, (created, entry) of the other processes' open tables (a renewal old).
        Private tables are never listed: they are watched or resumed by their id."""
        active = [(t.created, t.summary()) for t in tables.values() if t.active and not t.private]
        active += [(created, entry) for created, entry in elsewhere if entry["id"] not in tables]
        listed = [entry for _, entry in sorted(active, key=lambda pair: pair[0])]
        for tid, entry in self.finished.entries():
            table = tables.get(tid)     # in use: its entry as it is now (who is still at it)
            listed.append(table.summary() if table is not None else entry)
        return listed

    def chat(self, conn, table: Seated | None, seat: int | None, text: str, pace: TokenBucket) -> Refuse | bytes:
        """A chat line from `conn`, which takes part in `table` (None: none) at `seat` (None: as a
        spectator), paced by `pace`: the `chat` frame for everyone at the table, or why not. Not a
        command: it never reaches the table's task, its match or its log, and nothing of it is
        signed or stored."""
        if table is None or seat is None or table.seats[seat].conn is not conn:
            return Refuse("not_seated", "Only a player seated at a table can chat there.")
        text = wire.chat_text(text)
        if not text:
            return Refuse("bad_chat", "A chat line needs some text.")
        if len(text) > wire.MAX_CHAT:
            return Refuse("bad_chat", f"A chat line is at most {wire.MAX_CHAT} characters, not {len(text)}.")
        if not pace.take():     # only a line that would be said counts against the rate
            return self.chat_refused
        return wire.encode({"type": "chat", "table": table.id, "seat": seat,
                            "name": table.seats[seat].name or f"Seat {seat + 1}", "text": text})

    # ------------------------------------------------------------------ a seat's commands

    @staticmethod
    def unseated(msg: dict) -> bytes:
        """A seat's command from a connection without a seat."""
        return _refusal(msg, "not_seated", "You have no seat at a table.", "You have no seat at a table.")

    @staticmethod
    def busy(msg: dict) -> bytes:
        """A seat's command its table's inbox had no room for."""
        return _refusal(msg, "busy", "The table is busy; send the command again.", "The table is busy; send it again.")


def _refusal(msg: dict, code: str, rejected: str, refused: str) -> bytes:
    """A move is answered with a `reject` of its id, any other command with an `error`."""
    if msg["type"] == "act":
        return wire.encode({"type": "reject", "id": msg["id"], "code": code, "message": rejected})
    return Refuse(code, refused).frame

