"""One table's decisions, with no I/O: fed inputs, it returns effects (server/effects.py).

TableCore owns a table's match (a ServerExchange), its seats and spectators, and decides
everything: who may sit, leave or take a seat back, which commitment, seed or move is accepted
and how each command is answered (a stale or out-of-turn one refused, a resent one answered again
without being applied twice), which clock runs, when a player away or out of time is played by
the table's bot, which seeds the server makes, when the match is cancelled or over. It reads no
clock (the time comes as an argument), touches no socket, store or event loop, and makes its
secrets from `random_bytes`. Its shell, server/table.py, feeds it one input at a time and carries
out the effects in order.

An accepted input is applied to the match, then written to the store (the core returns a
`Persist` and waits), and only once stored announced: signed messages to the seats, then view
updates and the answer. A refused input changes nothing. When the rules or the store fail on an
input, the match is rebuilt from its log (`LoadLog`), which does not hold it, and the input is
answered as failed. When the server cannot take a step of its own (a seed, a bot's move: a bot
that fails plays a random legal move instead), the table is frozen: logged, everyone at it is
told, every command is refused, and a restarted server tries again from the log.

`seq` is the sequence number of the latest signed public entry of the match (the header is 0,
the commitment set 1, the reveal set 2, then one per move and the final entry). A seat's views
are numbered with it; each seat remembers the seq at which its current question was put, and a
command decided on an older view is "stale".

The clocks: a connected player who never answers must not hold a table forever. After
`turn_time` seconds on one question the table's bot answers that question for them (they keep
the seat); a seed not committed or revealed in time cancels the match, naming who held it up
(before the reveal set nobody knows the deal, so nothing is given away). Players away are left
to the grace period: after `grace` seconds the bot plays their seat until they come back.
"""
from __future__ import annotations

import logging
import random
import secrets
import time
from collections import deque
from dataclasses import dataclass
from types import UnionType
from typing import Callable

import games
from games.choice import pick_uniform
from games.errors import IllegalAction
from protocol import wire
from protocol.blind_exchange import BlindServerExchange
from protocol.exchange import SEED_BYTES, ServerExchange
from protocol.fairness import player_commit
from protocol.messages import ProtocolError, late_seed_reason
from protocol.signing import SIG_SEAT, seat_payload, verify_signature

from .effects import (AppendRow, AskBot, Bind, BotFailure, CancelTimer, Close, Effect, Forfeited, GraceTimer, LoadLog,
                      OwedClock, PhaseClock, Persist, SaveSeats, SaveStart, SaveStatus, Send, SendBacklog, Show,
                      Snapshot, StartTimer, TellClock, TurnClock, Unbind, UpgradeCancel)
from .seats import Seat, seat_info
from .store import LogRow, TableRow

log = logging.getLogger("governor.server")

# The cancel entry's reason for a match a server of bgfair/v1 left unfinished (see _cancel_v1).
UPGRADE_REASON = ("the server was upgraded to a version whose players sign their moves (bgfair/v2); a match "
                  "begun before, under bgfair/v1, could not continue")
MAX_INTERNAL_ERRORS = 20  # a table with more is frozen
EVENTS_IN_SNAPSHOT = 50   # the latest public events a snapshot carries: the game log a client shows

Effects = list[Effect]

# ---------------------------------------------------------------------- what the table waits for
# An input that must be stored first, or that needs the log, ends its effects with a Persist or a
# LoadLog and leaves one of these in `TableCore.pending`: what the table waits for, with what it
# needs to go on when the shell reports the outcome.


@dataclass(frozen=True, eq=False)
class Seating:
    """A person sits down in `seat`, already filled in (emptied again if the write fails)."""
    conn: object
    seat: Seat
    now: float


@dataclass(frozen=True, eq=False)
class Leaving:
    """A person leaves `seat` of a waiting table, already emptied (`was`: its name, player id and
    key, put back if the write fails)."""
    conn: object
    seat: Seat
    was: tuple
    now: float


@dataclass(frozen=True, eq=False)
class Cancelling:
    """A waiting table is cancelled (no match, so no log entry: its status is written)."""
    by: Expiry | OperatorClose


@dataclass(frozen=True)
class Starting:
    """The last seat is taken: the match starts with these once they are stored."""
    game_id: bytes
    server_seed: bytes
    started: int
    deal_seed: bytes | None


@dataclass(frozen=True, eq=False)
class Appending:
    """An input applied to the match, its log row being written: `n0`, the messages the exchange
    had sent before it; `status`, the table's once it stands."""
    kind: str
    seat: int | None
    data: dict
    n0: int
    status: str
    by: Origin


@dataclass(frozen=True)
class Restoring:
    """A started match is rebuilt from its log before it goes on."""


@dataclass(frozen=True, eq=False)
class Recovering:
    """The rules or the store failed on an input by `by`: the match is rebuilt from its log, which
    must give each seat the `lengths` of signed messages it was sent; then the input is answered
    as failed."""
    lengths: list[int]
    by: Origin


PendingWrite = Seating | Leaving | Cancelling | Starting | Appending   # a Persist's
PendingRead = Restoring | Recovering                                     # a LoadLog's
Pending = PendingWrite | PendingRead

# Whose an input that changes the match (or cancels a waiting table) is: that decides what
# follows it once it stands (`TableCore._succeeded`) and when it fails (`TableCore._failed`).


@dataclass(frozen=True, eq=False)
class PlayerMove:
    """A seat's act, its command `cid`: acknowledged, or rejected as not applied."""
    seat: Seat
    cid: int


@dataclass(frozen=True, eq=False)
class PlayerSeed:
    """A seat's commitment or seed (`what`, the word for it in the error if it fails)."""
    conn: object
    what: str


@dataclass(frozen=True, eq=False)
class OperatorClose:
    """The operator closes the table: everyone is told and the operator answered, or told it
    could not be closed."""
    conn: object
    why: str


@dataclass(frozen=True)
class Expiry:
    """A waiting table nobody came to is closed (if the write fails, it stays open)."""
    why: str


@dataclass(frozen=True)
class ServerStep:
    """A step of the server's own: a seed it makes, a cancel when a seed cannot come. If it fails,
    the table freezes."""


@dataclass(frozen=True, eq=False)
class BotDecision:
    """The move of a seat's bot. If it fails, a random move is played."""
    seat: Seat


@dataclass(frozen=True, eq=False)
class RandomMove:
    """A random move for a seat whose bot failed. If it fails, the table freezes."""
    seat: Seat


@dataclass(frozen=True)
class Forfeit:
    """Seats of a blind table that did not deliver what they owed in time forfeit (or, before
    the deal is done, the match is cancelled): everyone is told. If it fails, the table freezes."""
    seats: tuple[int, ...]
    why: str


@dataclass(frozen=True)
class Upgraded:
    """The end of a match begun under bgfair/v1, which cannot go on (`_cancel_v1`). If it fails,
    the table freezes."""


Origin = PlayerMove | PlayerSeed | OperatorClose | Expiry | ServerStep | BotDecision | RandomMove | Upgraded | Forfeit


class TableCore:
    """Inputs, each a method returning effects: from the lobby and the connections `sit`,
    `leave`, `watch`, `attach`, `detach`, `expire`, `close`; the seats' commands `commit`,
    `reveal`, `act`, `resync`; the timers `grace_over`, `turn_clock_ran_out`,
    `phase_clock_ran_out`; a bot's `bot_moved`; `restore` (a started match from its log) and
    `drive` (the server's own next step); and the outcome of the write or read it waits for:
    `stored` or `not_stored`, `log_loaded` or `log_not_loaded`.

    What an input has written or read before it goes on (`pending` holds it until the shell
    reports the outcome), and what follows each outcome:

    | input             | waits for              | stored (or loaded)               | not stored (or not loaded)       |
    |-------------------|------------------------|----------------------------------|----------------------------------|
    | sit               | SaveSeats: Seating     | seated; status to all; the last  | seat free again; error           |
    |                   |                        | seat taken starts the match      |                                  |
    | leave a waiting   | SaveSeats: Leaving     | unbound; status to all           | seat as it was; error            |
    | table             |                        |                                  |                                  |
    | expire            | SaveStatus: Cancelling | cancelled; status to all         | stays open                       |
    | close a waiting   | SaveStatus: Cancelling | cancelled; status and            | error                            |
    | table             |                        | table_closed to all;             |                                  |
    |                   |                        | operator_closed                  |                                  |
    | the last seat     | SaveStart: Starting    | the header to the seats; status  | frozen                           |
    | taken             |                        | to all; grace for those away     |                                  |
    | commit, reveal,   | AppendRow: Appending   | announced, then by its origin    | rebuilt (Recovering), then by    |
    | act, close a      |                        | (`_succeeded`): an act acked, a  | its origin (`_failed`): an act   |
    | started match,    |                        | close as above                   | rejected; a commitment, seed or  |
    | bot_moved, drive  |                        |                                  | close: error; a bot's move: a    |
    |                   |                        |                                  | random move; the rest: frozen    |
    | restore           | LoadLog: Restoring     | rebuilt; grace for those away    | frozen                           |
    | the rules failed  | LoadLog: Recovering    | rebuilt (frozen if it differs    | frozen; answered as failed       |
    | on an input, or   |                        | from what was sent, or after too |                                  |
    | the store on its  |                        | many errors); answered as failed |                                  |
    | row               |                        |                                  |                                  |

    A refused input (a rule broken, a stale command) writes nothing and is answered at once. A
    frozen table (`frozen` is why) refuses every command until a restarted server rebuilds it."""

    def __init__(self, row: TableRow, signer, *, turn_time: float = 0.0, grace: float = 60.0, now: float = 0.0,
                 random_bytes: Callable[[int], bytes] = secrets.token_bytes,
                 wall: Callable[[], float] = time.time) -> None:
        self.id = row.id
        self.game = row.game
        self.engine = games.get(row.game)
        self.options = row.options
        self.bot_level = row.bot
        self.created = row.created
        self.private = row.private      # never listed in the lobby
        self.seats = _seats(row)
        self.spectators: set = set()
        self.signer = signer
        self.turn_time = turn_time          # seconds per question (0: no clock)
        self.grace = grace                  # seconds a player away keeps the seat before the bot plays it
        self.random_bytes = random_bytes
        self.wall = wall                    # the time of day, read once: when the match starts
        self.rated = row.rated
        self.blind = row.blind              # dealt blind: a BlindServerExchange, no view of a seat's
        self.deal_seed = row.deal_seed      # its server deal seed: secret, like the server seed
        self.started_at = row.started       # unix seconds, in the signed header
        self.game_id = row.game_id
        self.server_seed = row.server_seed
        self.status = row.status
        self.exchange: ServerExchange | None = None
        self.restored = row.status == "waiting"   # a started match is rebuilt from its log first
        self.nrows = 0                      # rows in the log
        self.seq = 0
        # The latest public events, all that a snapshot shows, as the plain maps it sends: not
        # every event of the match, which a finished table at rest would keep for nothing, and not
        # the engine's events, each with the function that wrote its words and what that refers
        # to. A map of words is one the garbage collector does not track (server/heap.py).
        self.latest_events: deque[dict] = deque(maxlen=EVENTS_IN_SNAPSHOT)
        self.phase_clock: PhaseClock | None = None   # the time to commit, then to reveal, running
        self.frozen: str | None = None      # why the table is frozen, if it is
        self.internal_errors = 0
        self.touched = now                  # the last time someone sat down, left or came back
        self.pending: Pending | None = None  # what the Persist or LoadLog returned last is for

    # ------------------------------------------------------------------ the table as seen from outside

    @property
    def active(self) -> bool:
        return self.status in ("waiting", "playing")

    @property
    def state(self):
        """The match state (None before the deal). On a blind table, the server's replica's:
        the cards in it that the server has not seen are handles, which it cannot read."""
        ex = self.exchange
        if ex is None:
            return None
        if self.blind:
            return ex.replica.state if ex.replica is not None else None
        return ex.state

    @property
    def idle(self) -> bool:
        """Finished, and nobody is at the table: it may leave memory."""
        return not self.active and not self.spectators and all(s.conn is None for s in self.seats)

    def summary(self) -> dict:
        out = {"id": self.id, "game": self.game, "options": self.options, "seats": seat_info(self.seats),
               "status": self.status, "rated": self.rated, "blind": self.blind}
        if self.frozen:
            out["frozen"] = self.frozen
        return out

    def status_frame(self) -> bytes:
        msg = {"type": "status", "table": self.id, "seats": seat_info(self.seats), "status": self.status,
               "blind": self.blind}
        if self.turn_time:
            msg["turn_time"] = self.turn_time
        if self.frozen:
            msg["frozen"] = self.frozen
        return wire.encode(msg)

    # ------------------------------------------------------------------ what the shell reports back

    def _wait(self, io: Persist | LoadLog, pending: Pending) -> Effects:
        """Return `io` as the last effect; `pending` says what follows its outcome."""
        self.pending = pending
        return [io]

    def _take_pending(self, kind: UnionType) -> Pending:
        """What waited for this outcome, of a write or a read (`kind`); no longer pending. An
        outcome of something the table does not wait for is a fault of the shell's: it changes
        nothing."""
        if not isinstance(self.pending, kind):
            raise RuntimeError(f"the table waits for {self.pending!r}, not for this outcome")
        pending, self.pending = self.pending, None
        return pending

    def stored(self) -> Effects:
        """The Persist returned last is in the store: what it was for goes on."""
        match self._take_pending(PendingWrite):
            case Seating(conn, seat, now):
                return self._seated(conn, seat, now)
            case Leaving(conn, seat, _, now):
                return self._left(conn, seat, now)
            case Cancelling(by):
                return self._cancelled(by)
            case Starting(game_id, server_seed, started, deal_seed):
                return self._started(game_id, server_seed, started, deal_seed)
            case Appending() as appending:
                return self._appended(appending)

    def not_stored(self) -> Effects:
        """The store refused the Persist returned last: what it would have changed is undone."""
        match self._take_pending(PendingWrite):
            case Seating(conn, seat, _):
                seat.name = seat.player_id = seat.key = None
                return [_error(conn, "internal_error", "The server failed to handle this request.")]
            case Leaving(conn, seat, was, _):
                seat.name, seat.player_id, seat.key = was
                return [_error(conn, "internal_error", "The server failed to handle this request.")]
            case Cancelling(by):
                return self._failed(by)
            case Starting():
                return self.freeze("its match could not be started")
            case Appending(kind, seat, by=by):
                log.error("table %s: the store refused %s by seat %s; it is undone", self.id, kind, seat)
                return self._recover(by)

    def log_loaded(self, rows: list[LogRow]) -> Effects:
        """The table's log, as the LoadLog returned last asked."""
        match self._take_pending(PendingRead):
            case Restoring():
                return self._restored(rows)
            case Recovering(lengths, by):
                return self._recovered(rows, lengths, by)

    def log_not_loaded(self) -> Effects:
        match self._take_pending(PendingRead):
            case Restoring():
                return self.freeze("it could not be rebuilt from its log")
            case Recovering(_, by):
                return self.freeze("it could not be rebuilt after an internal error") + self._failed(by)

    # ------------------------------------------------------------------ rebuilding the match

    @property
    def started(self) -> bool:
        return self.status != "waiting" and self.game_id is not None

    def restore(self) -> Effects:
        """A started match is rebuilt from its log before it goes on (after a restart, or when
        someone asks for a finished table); then every player away has their grace period."""
        self.restored = True
        if not self.started:
            return []
        return self._wait(LoadLog(), Restoring())

    def _restored(self, rows: list[LogRow]) -> Effects:
        try:
            self._build(rows)
        except Exception:
            log.exception("table %s could not be rebuilt from its log", self.id)
            return self.freeze("it could not be rebuilt from its log")
        if self.status == "playing" and self.exchange.v1:
            return self._cancel_v1()
        if self.status != "playing":
            return []
        return [e for s in self.seats if s.human and s.conn is None for e in self._start_grace(s)]

    def _new_exchange(self) -> ServerExchange:
        """The match before its first input; with the same game id, seeds and key, it signs the
        same messages every time. A started match whose row has no start time was stored by a
        server of bgfair/v1, which kept none (the column came with the stores' migrations to
        bgfair/v2): it is rebuilt as that server signed it."""
        seats = [(s.player_id, s.name) for s in self.seats]
        if self.blind:
            return BlindServerExchange(self.game, self.options, seats, self.signer, game_id=self.game_id,
                                       server_seed=self.server_seed, deal_seed=self.deal_seed,
                                       players=[s.key if s.human else s.bot for s in self.seats], rated=self.rated,
                                       started=self.started_at)
        if self.started_at is None:
            return ServerExchange(self.game, self.options, seats, self.signer, game_id=self.game_id,
                                  server_seed=self.server_seed, protocol="bgfair/v1")
        return ServerExchange(self.game, self.options, seats, self.signer, game_id=self.game_id,
                              server_seed=self.server_seed, players=[s.key if s.human else s.bot for s in self.seats],
                              rated=self.rated, started=self.started_at)

    def _cancel_v1(self) -> Effects:
        """An unfinished bgfair/v1 match cannot go on: its seats were claimed with seat tokens,
        which this server no longer knows, and its players signed nothing. It ends with a signed
        cancel entry saying why, so its record is complete and verifies."""
        return self._accept("cancel", None, {"reason": UPGRADE_REASON}, Upgraded())

    def _build(self, rows: list[LogRow]) -> None:
        """The match from its log: every signed message comes out exactly as first sent. A
        finished match asks nobody anything again: its questions are not put to the seats move
        after move (a fifth of a replay's work), only the last ones are, once."""
        finished = not self.active
        self.exchange = self._new_exchange()
        self.latest_events.clear()
        for s in self.seats:
            s.stream = []
            s.prompt = None
            s.own_seed = None
        self._absorb(0, [], None, announce=False, ask=not finished)
        for row in rows:
            n0 = len(self.exchange.sent)
            self._apply(row.kind, row.seat, row.data)
            act = row.kind == "act"
            self._absorb(n0, self._events(row.kind), row.seat if act else None, announce=False, ask=not finished)
            if act and "id" in row.data:
                self.seats[row.seat].remember(row.data["id"], _ack(row.data["id"]))
        if self.blind:
            self.exchange.dropped.clear()   # their players were told when it happened
        if finished:
            self._ask(None)
        self.nrows = len(rows)
        self.status = self._phase_status()

    def _recover(self, by: Origin) -> Effects:
        """After the rules or the store failed on an input by `by`: rebuild the match from the
        log, which does not hold it, so that memory and store agree again; then the input is
        answered as failed."""
        self.internal_errors += 1
        return self._wait(LoadLog(), Recovering([len(s.stream) for s in self.seats], by))

    def _recovered(self, rows: list[LogRow], lengths: list[int], by: Origin) -> Effects:
        try:
            self._build(rows)
        except Exception:
            log.exception("table %s could not be rebuilt", self.id)
            return self.freeze("it could not be rebuilt after an internal error") + self._failed(by)
        out = []
        if [len(s.stream) for s in self.seats] != lengths:
            out = self.freeze("its rebuilt match differs from what was sent")
        elif self.internal_errors >= MAX_INTERNAL_ERRORS:
            out = self.freeze("too many internal errors")
        return out + self._failed(by)

    def freeze(self, reason: str) -> Effects:
        """Refuse every command from now on (a restarted server rebuilds the table from its log
        and tries again); logged, and everyone at the table is told."""
        if self.frozen:
            return []
        self.frozen = reason
        log.error("table %s is frozen: %s", self.id, reason, extra={"table": self.id, "frozen": reason})
        notice = wire.encode({"type": "error", "code": "table_frozen",
                              "message": f"Table {self.id} is frozen: {reason}. Its log is kept; it can go "
                                         "on when the server is restarted."})
        return self._to_everyone(self.status_frame()) + self._to_everyone(notice)

    # ------------------------------------------------------------------ accepting inputs

    def _phase_status(self) -> str:
        ex = self.exchange
        if ex is None:
            return "waiting"
        return {"over": "over", "cancelled": "cancelled"}.get(ex.phase, "playing")

    def _apply(self, kind: str, seat, data: dict) -> None:
        ex = self.exchange
        if self.blind:
            ex.last_events = []     # the exchange adds the events of every move the input applies
        if kind == "commit" and self.blind and "deal_key" in data:
            ex.commit(seat, data["commitment"], data["sig"], data["deal_key"], data["deal_proof"], data["deal_sig"])
        elif kind == "commit":
            ex.commit(seat, data["commitment"], data.get("sig"))
            if "seed" in data:
                self.seats[seat].own_seed = data["seed"]
        elif kind == "reveal":
            ex.reveal(seat, data["seed"], data.get("sig"))
        elif kind == "act" and "sig" in data and self.blind:
            ex.act_signed(seat, data["seen"], data["move"], data["sig"], data.get("openings"))
        elif kind == "act" and "sig" in data:     # a player's move, as it signed it
            ex.act_signed(seat, data["seen"], data["move"], data["sig"])
        elif kind == "act":                       # the server's own move for the seat
            ex.act(seat, data["action"])
        elif kind == "shuffle" and self.blind:
            ex.shuffle_step(seat, data["name"], data["idx"], data["pile"], data["sig"])
        elif kind == "shares" and self.blind:
            ex.shares(seat, data["cards"], data["parts"], data["proofs"], data["sig"])
        elif kind == "deal_seed" and self.blind:
            ex.reveal_deal_seed(seat, data["seed"], data["sig"])
        elif kind == "forfeit" and self.blind:
            ex.forfeit(data["seats"], data["reason"])
        elif kind == "cancel":
            ex.cancel(data["reason"])
        else:
            raise ValueError(f"unknown log row {kind!r}")

    def _events(self, kind: str) -> list[dict]:
        """The engine events of the move an input applied: on a blind table any input may apply
        one (the shares that open its cards, a move waiting for them), elsewhere only an act."""
        return self.exchange.last_events if kind == "act" or self.blind else []

    def _accept(self, kind: str, seat, data: dict, by: Origin) -> Effects:
        """Apply an input by `by` and have it stored; once stored, it is announced and answered
        (`_appended`). Raises IllegalAction or ProtocolError, changing nothing, when it is refused.
        When the rules or the store fail on it, the match is rebuilt from the log, which does not
        hold it, and it is answered as failed (`_recover`)."""
        n0 = len(self.exchange.sent)
        try:
            self._apply(kind, seat, data)
        except (IllegalAction, ProtocolError):
            raise
        except Exception:
            log.exception("table %s: the rules failed on %s by seat %s: %r", self.id, kind, seat, data)
            return self._recover(by)
        status = self._phase_status()
        write = AppendRow(self.nrows, kind, seat, data, status if status != self.status else None)
        return self._wait(write, Appending(kind, seat, data, n0, status, by))

    def _appended(self, a: Appending) -> Effects:
        """The input stands: everyone hears of it, then whoever made it. A failure while
        announcing it freezes the table."""
        self.nrows += 1
        if a.seat is not None:
            self.seats[a.seat].delivered += 1
        changed, self.status = a.status != self.status, a.status
        if changed:
            log.info("table %s is %s", self.id, a.status, extra={"table": self.id, "status": a.status})
        act = a.kind == "act"
        try:
            out = self._absorb(a.n0, self._events(a.kind), a.seat if act else None)
            if self.blind:
                out += self._tell_dropped()
            if changed or (a.kind == "commit" and "seed" in a.data and self.seats[a.seat].human):
                out += self._to_everyone(self.status_frame())
        except Exception:
            log.exception("table %s: announcing %s by seat %s failed", self.id, a.kind, a.seat)
            out = self.freeze("an accepted input could not be announced")
        return out + self._succeeded(a.by)

    def _succeeded(self, by: Origin) -> Effects:
        """What follows an input that stands, for whoever made it (a seed, a step of the
        server's, a bot's or a random move: nothing more than its announcement)."""
        match by:
            case PlayerMove(seat, cid):
                return self._answer(seat, cid, _ack(cid))
            case OperatorClose(conn, why):
                log.info("table %s is %s", self.id, why, extra={"table": self.id, "status": "cancelled"})
                notice = wire.encode({"type": "error", "code": "table_closed", "message": f"Table {self.id} was {why}."})
                return self._to_everyone(notice) + [Send(conn, wire.encode({"type": "operator_closed",
                                                                            "table": self.id}))]
            case Expiry(why):
                log.info("table %s: %s; it is closed", self.id, why, extra={"table": self.id, "status": "cancelled"})
            case Upgraded():
                log.warning("table %s: its match of the previous server version is cancelled: %s", self.id,
                            UPGRADE_REASON, extra={"table": self.id, "status": "cancelled"})
                return [UpgradeCancel()]
            case Forfeit(seats, why):
                names = ", ".join(self.seats[i].name or f"seat {i + 1}" for i in seats)
                ended = "forfeits" if self.exchange.phase != "cancelled" else "held up the deal: the match is cancelled"
                log.warning("table %s: %s %s: %s", self.id, names, ended, why,
                            extra={"table": self.id, "forfeit": list(seats)})
                notice = wire.encode({"type": "notice", "table": self.id, "code": "forfeit",
                                      "message": f"{names} {ended}: {why}."})
                counted = [Forfeited(seats)] if self.exchange.phase != "cancelled" else []
                return counted + self._to_everyone(notice)
        return []

    def _failed(self, by: Origin) -> Effects:
        """What follows an input the rules or the store failed on, changing nothing."""
        match by:
            case PlayerMove(seat, cid):
                return self._answer(seat, cid, _reject(cid, "internal_error", "The server failed on this command; "
                                                                              "it was not applied."))
            case PlayerSeed(conn, what):
                return [_error(conn, "internal_error", f"The server failed to take your {what}.")]
            case OperatorClose(conn, _):
                return [_error(conn, "internal_error", f"Table {self.id} could not be closed; it is as it was.")]
            case Expiry():
                return []
            case ServerStep() | Upgraded() | Forfeit():
                return self.freeze("the server could not take a step of its own")
            case BotDecision(seat):
                return self._random_move(seat)
            case RandomMove(seat):
                return self.freeze(f"no move could be made for seat {seat.index + 1} ({seat.name})")
        raise TypeError(f"no input comes from {by!r}")

    def _absorb(self, n0: int, events: list[dict], actor, announce: bool = True, ask: bool = True) -> Effects:
        """Take in what the exchange produced since message n0: signed messages into the seats'
        streams, the events, with `ask` the new questions; with `announce`, the effects that tell
        everyone."""
        ex = self.exchange
        out = []
        humans = [s for s in self.seats if s.human]
        for m in ex.sent[n0:]:
            frame = self._frame(m)
            for s in humans if m.kind == "entry" else [self.seats[m.body["seat"]]]:
                if s.human:
                    s.stream.append(frame)
                    if announce and s.conn is not None:
                        out.append(Send(s.conn, frame))
            if announce and m.kind == "entry":
                out += [Send(c, frame) for c in self.spectators]
        self.seq = len(ex.log) - 1
        shown = self.engine.visible_events(events, None)
        self.latest_events.extend(shown)
        answered_late = self._ask(actor) if ask else False
        if announce and self.state is not None:
            out.append(Show(shown, actor))
            if answered_late:
                out += self._to_everyone(self.status_frame())
        return out

    def _ask(self, actor) -> bool:
        """Each seat's question now (one put anew, or to the seat that just answered, dates from
        this seq); whether a question that had run out of time was answered."""
        if self.state is None:
            return False
        answered_late = False
        for s in self.seats:
            p = self._prompt(s)
            if p != s.prompt or s.index == actor:
                s.prompt, s.prompt_seq = p, self.seq
            if s.overtime is not None and not s.out_of_time:
                s.overtime = None   # the question that ran out of time is answered
                answered_late = True
        return answered_late

    def _prompt(self, s: Seat):
        """The seat's question now. On a blind table the server knows only its computer seats':
        a person's client makes its own from its replica."""
        if not self.blind:
            return self.engine.prompt(self.exchange.state, s.index)
        return self.exchange.prompt(s.index) if s.bot is not None else None

    def _tell_dropped(self) -> Effects:
        """A move that waited on a blind table (the server was opening cards) and was refused
        when its turn came: its player is told why (it was acknowledged as received)."""
        out = []
        for index, e in self.exchange.dropped:
            s = self.seats[index]
            log.info("table %s: a waiting move of seat %d was refused (%s)", self.id, index, e.code)
            if s.conn is not None:
                out.append(_error(s.conn, e.code, f"Your move was not applied: {e.message}"))
        self.exchange.dropped.clear()
        return out

    def _frame(self, m) -> bytes:
        """A signed message as sent on the wire."""
        return wire.signed_frame(self.id, m)

    # ------------------------------------------------------------------ who is at the table

    def _seat_of(self, conn) -> Seat | None:
        """The seat this connection holds here, if any."""
        return next((s for s in self.seats if s.conn is conn), None)

    def connections(self) -> list:
        """Everyone at the table now: its seated connections and its spectators."""
        return [s.conn for s in self.seats if s.conn is not None] + list(self.spectators)

    def _to_everyone(self, frame: bytes) -> Effects:
        return [Send(c, frame) for c in self.connections()]

    def sit(self, conn, name: str, key: bytes, now: float) -> Effects:
        """A person, known by their player key, sits down at a waiting table, in the first free
        seat; the match starts when the last one is taken."""
        if self.status == "cancelled" and not self.started:
            return [_error(conn, "table_closed", f"Table {self.id} was closed before its match began: no person was "
                                                 "at it for a while. Create another.")]
        if self.status != "waiting":
            return [_error(conn, "started", f"Table {self.id} has already started.")]
        free = next((s for s in self.seats if not s.taken), None)
        if free is None:
            return [_error(conn, "table_full", f"Every seat at table {self.id} is taken.")]
        mine = next((s for s in self.seats if s.key == key), None)
        if mine is not None:
            return [_error(conn, "already_seated", f"Your player key already holds seat {mine.index + 1} at table "
                                                   f"{self.id}: one player, one seat.")]
        if any(s.name is not None and s.name.casefold() == name.casefold() for s in self.seats):
            # the game log names players: two of one name (or a person called "Bot 2") would muddle it
            return [_error(conn, "name_taken", f"Someone at table {self.id} is already called {name!r}; "
                                               "pick another name.")]
        free.name, free.player_id, free.key = name, "p-" + self.random_bytes(8).hex(), key
        return self._wait(SaveSeats([s.record() for s in self.seats]), Seating(conn, free, now))

    def _seated(self, conn, seat: Seat, now: float) -> Effects:
        self.touched = now
        self.spectators.discard(conn)
        seat.conn = conn
        seated = wire.encode({"type": "seated", "table": self.id, "seat": seat.index, "player_id": seat.player_id})
        out = [Bind(conn, seat.index), Send(conn, seated)]
        out += self._to_everyone(self.status_frame())
        if all(s.taken for s in self.seats) and not self.frozen:
            out += self._start()
        return out

    def leave(self, conn, now: float) -> Effects:
        """A spectator stops watching; a person leaves a waiting table (the seat is free again)
        or a finished one (the seat stays in the record)."""
        if conn in self.spectators:
            self.spectators.discard(conn)
            return [Unbind(conn)]
        s = self._seat_of(conn)
        if s is None:
            return [_error(conn, "not_seated", "You have no seat at this table.")]
        if not self.active:
            s.conn = None
            return [Unbind(conn), Send(conn, self.status_frame())]
        if self.status != "waiting":
            return [_error(conn, "started", "The match has started: the seat stays yours; reconnect with your "
                                            "player key to play on.")]
        was = (s.name, s.player_id, s.key)
        s.name = s.player_id = s.key = None
        return self._wait(SaveSeats([x.record() for x in self.seats]), Leaving(conn, s, was, now))

    def _left(self, conn, seat: Seat, now: float) -> Effects:
        seat.conn = None
        self.touched = now
        return [Unbind(conn)] + self._to_everyone(self.status_frame()) + [Send(conn, self.status_frame())]

    def watch(self, conn, have: int = 0) -> Effects:
        """A spectator: the signed public entries it lacks (every entry is public, so anyone
        can audit the match as a player does, bar the hands), then the status and the view."""
        out = [Bind(conn, None)]
        if self.exchange is not None:
            out.append(SendBacklog(conn, [self._frame(m) for m in self.exchange.log[max(0, have):]]))
        self.spectators.add(conn)
        out.append(Send(conn, self.status_frame()))
        if self.state is not None:
            out.append(Snapshot(conn))
        return out

    def attach(self, conn, index: int, have: int, nonce: bytes, sig: bytes, now: float) -> Effects:
        """A connection claims seat `index`: it is the seat's if `sig` is the signature of the
        seat's player key over the challenge this server sent it (docs/fairness.md C13). The
        signed messages it lacks come first, then a snapshot of its view."""
        s = self.seats[index] if 0 <= index < len(self.seats) else None
        if s is None or s.key is None:
            return [Close(conn, wire.CLOSE_BAD_HELLO, f"table {self.id} has no seat {index + 1} held by a player")]
        if not verify_signature(s.key, SIG_SEAT, seat_payload(self.signer.public_key, nonce, self.id, index), sig):
            return [Close(conn, wire.CLOSE_BAD_HELLO, f"the claim of seat {index + 1} is not signed by its player's key")]
        self.touched = now
        out = []
        if s.conn is not None and s.conn is not conn:
            out += [Unbind(s.conn), Close(s.conn, wire.CLOSE_REPLACED, "this seat connected again elsewhere")]
        s.conn = conn
        out.append(Bind(conn, index))
        if s.grace is not None:
            out.append(CancelTimer(s.grace))
            s.grace = None
        s.epoch += 1
        s.standin = False
        # The status first: it tells a returning player whether the server made their seed
        # while they were away, which the signed messages in the backlog depend on.
        out.append(Send(conn, self.status_frame()))
        out.append(SendBacklog(conn, s.stream[max(0, min(have, len(s.stream))):]))
        if self.state is not None:
            out.append(Snapshot(conn))
        if s.clock is not None and s.clock.seq == s.prompt_seq and not s.server_plays and not self.blind:
            out.append(TellClock(conn, s.clock))     # the question's clock runs on
        return out + self._to_everyone(self.status_frame())

    def detach(self, conn, now: float) -> Effects:
        """A connection closed. A seat keeps its player for the grace period. The connection no
        longer names the table: what the table keeps of it (the views last sent to it) would
        otherwise make a cycle with it, which a server process does not collect (server/heap.py)."""
        if conn in self.spectators:
            self.spectators.discard(conn)
            return [Unbind(conn)]
        s = self._seat_of(conn)
        if s is None:
            return [Unbind(conn)]
        s.conn = None
        self.touched = now
        s.epoch += 1
        out = self._start_grace(s) if self.status == "playing" else []
        return [Unbind(conn)] + out + self._to_everyone(self.status_frame())

    def expire(self, idle: float, lifetime: float, now: float, wall: float) -> Effects:
        """A waiting table no person has been at for `idle` seconds (nobody sat down, or all who
        did are disconnected), or that has waited `lifetime` seconds since it was created (`wall`
        is the time of day), is closed, so that abandoned tables, and tables held open by a
        client that sits and waits, do not hold the server's table limit."""
        if self.status != "waiting":
            return []
        if wall - self.created >= lifetime:
            why = f"it waited {lifetime:.0f} s for its players"
        elif not any(s.human and s.conn is not None for s in self.seats) and now - self.touched >= idle:
            why = f"nobody has been at it for {idle:.0f} s"
        else:
            return []
        return self._wait(SaveStatus("cancelled"), Cancelling(Expiry(why)))

    def close(self, conn, reason: str) -> Effects:
        """The server's operator closes the table (`conn` is the operator's connection): a
        waiting table is cancelled; a started match is cancelled as a match is when a seed never
        comes, with a signed cancel entry that names the reason and reveals every seed, so the
        record is kept and still verifies. Everyone at the table is told."""
        why = "closed by the server's operator" + (f": {reason}" if reason else "")
        if not self.active:
            return [_error(conn, "no_table", f"Table {self.id} is {self.status}, not open.")]
        if self.frozen:
            # its match in memory is not to be trusted: a restarted server rebuilds it from the log
            return [_error(conn, "table_frozen", f"Table {self.id} is frozen ({self.frozen}); restart the server, "
                                                 "then close it.")]
        if not self.started:
            return self._wait(SaveStatus("cancelled"), Cancelling(OperatorClose(conn, why)))
        try:
            return self._accept("cancel", None, {"reason": why}, OperatorClose(conn, why))
        except (ProtocolError, IllegalAction) as e:
            return [_error(conn, e.code, e.message)]

    def _cancelled(self, by: Expiry | OperatorClose) -> Effects:
        """A waiting table is closed, by its expiry or its operator."""
        self.status = "cancelled"
        return self._to_everyone(self.status_frame()) + self._succeeded(by)

    # ------------------------------------------------------------------ seats' commands

    def commit(self, conn, commitment: bytes, sig: bytes, deal: dict | None = None) -> Effects:
        """A seat's commitment; on a blind table `deal` holds its deal key, the key's proof and
        their signature (protocol/blind_exchange.py)."""
        s = self._seat_of(conn)
        ex = self.exchange
        if s is None:
            return [_error(conn, "not_seated", "Only a seated player commits.")]
        if ex is None:
            return [_error(conn, "not_started", "The match has not started yet.")]
        if ex.commits[s.index] == commitment:
            return []   # a resent commitment changes nothing
        if s.own_seed is not None:
            return [_error(conn, "already_committed", "The server committed a seed for this seat while you were away.")]
        if self.blind and deal is None:
            return [_error(conn, "bad_commit", "This table is dealt blind: a commitment carries the seat's deal key, "
                                               "its proof and their signature.")]
        by = PlayerSeed(conn, "commitment")
        if self.frozen:
            return self._failed(by)
        data = {"commitment": commitment, "sig": sig, **(deal if self.blind and deal else {})}
        try:
            return self._accept("commit", s.index, data, by)
        except (ProtocolError, IllegalAction) as e:
            return [_error(conn, e.code, e.message)]

    def reveal(self, conn, seed: bytes, sig: bytes) -> Effects:
        s = self._seat_of(conn)
        ex = self.exchange
        if s is None:
            return [_error(conn, "not_seated", "Only a seated player reveals a seed.")]
        if ex is None:
            return [_error(conn, "not_started", "The match has not started yet.")]
        if ex.seeds[s.index] == seed:
            return []
        by = PlayerSeed(conn, "seed")
        if self.frozen:
            return self._failed(by)
        try:
            return self._accept("reveal", s.index, {"seed": seed, "sig": sig}, by)
        except (ProtocolError, IllegalAction) as e:
            return [_error(conn, e.code, e.message)]

    def act(self, conn, cid: int, seq: int, move: bytes, sig: bytes, openings: dict | None = None) -> Effects:
        """A decision: `move` the msgpack bytes of the options picked, `sig` the player's signature
        over them and the entry `seq` it decided on (the exchange checks it before anything
        changes). Every act is answered exactly once: an ack, or a reject with nothing changed; a
        resent one (the same command id) gets the same answer again, applied once."""
        s = self._seat_of(conn)
        if s is None:
            return [Send(conn, _reject(cid, "not_seated", "You have no seat at this table."))]
        try:
            answered = s.answer(cid)
            if answered is not None:
                return [Send(conn, answered)]
            return self._judge(s, cid, seq, move, sig, openings)
        except Exception:
            log.exception("table %s: command %d of seat %d failed", self.id, cid, s.index)
            return [Send(conn, _reject(cid, "internal_error", "The server failed on this command; it was not "
                                                              "applied."))]

    def _judge(self, s: Seat, cid: int, seq: int, move: bytes, sig: bytes, openings: dict | None) -> Effects:
        ex = self.exchange
        if self.frozen:
            return self._answer(s, cid, _reject(cid, "internal_error", f"This table is frozen: {self.frozen}."))
        if ex is None or ex.phase in ("commit", "reveal"):
            return self._answer(s, cid, _reject(cid, "not_started", "The match has not started yet."))
        if ex.phase != "play":
            return self._answer(s, cid, _reject(cid, "game_over", f"The match is {ex.phase}."))
        if seq > self.seq:
            return self._answer(s, cid, _reject(cid, "bad_seq", f"This was decided on a view at seq {seq}, but the "
                                                                f"table is at seq {self.seq}: there is no such view; "
                                                                "a fresh snapshot follows."), stale=True)
        # On a blind table the exchange judges the entry a move was decided at: the server has no
        # view of the seat to date its question.
        if seq < s.prompt_seq and not self.blind:
            return self._answer(s, cid, _reject(cid, "stale", f"This was decided on the view at seq {seq}, but the "
                                                              f"question changed at seq {s.prompt_seq}; a fresh "
                                                              "snapshot follows."), stale=True)
        if openings is not None and not self.blind:
            return self._answer(s, cid, _reject(cid, "not_blind", "Only a move at a table dealt blind carries "
                                                                  "openings."))
        data = {"seen": seq, "move": move, "sig": sig, "id": cid}
        if openings is not None:
            data["openings"] = openings
        try:
            return self._accept("act", s.index, data, PlayerMove(s, cid))
        except (IllegalAction, ProtocolError) as e:
            return self._answer(s, cid, _reject(cid, e.code, e.message))

    def _answer(self, s: Seat, cid: int, answer: bytes, stale: bool = False) -> Effects:
        """Remember the answer to command `cid` and send it; a stale command is followed by a
        fresh snapshot."""
        s.remember(cid, answer)
        if s.conn is None:
            return []
        return [Send(s.conn, answer)] + ([Snapshot(s.conn)] if stale else [])

    def deliver(self, conn, kind: str, data: dict) -> Effects:
        """What a seat's client owes on a blind table (a shuffle step, shares, its deal seed),
        sent unasked: taken into the log, or refused with an error that names what is wrong."""
        s = self._seat_of(conn)
        ex = self.exchange
        word = {"shuffle": "shuffle step", "shares": "shares", "deal_seed": "deal seed"}[kind]
        if s is None:
            return [_error(conn, "not_seated", f"Only a seated player sends a {word}.")]
        if not self.blind:
            return [_error(conn, "not_blind", f"Table {self.id} is not dealt blind: it takes no {word}.")]
        if ex is None:
            return [_error(conn, "not_started", "The match has not started yet.")]
        by = PlayerSeed(conn, word)
        if self.frozen:
            return self._failed(by)
        try:
            return self._accept(kind, s.index, data, by)
        except (ProtocolError, IllegalAction) as e:
            if e.code == "late":
                # Shares that crossed the move ending the game: owed when sent, refused without a
                # word (the client did nothing wrong), never stored nor counted as an answer.
                return []
            log.info("table %s: the %s of seat %d was refused (%s)", self.id, word, s.index, e.code)
            return [_error(conn, e.code, f"Your {word} {'were' if kind == 'shares' else 'was'} refused: {e.message}")]

    def resync(self, conn) -> Effects:
        if self.state is None:
            return [_error(conn, "not_started", "There is no view before the match starts.")]
        if self.blind and self._seat_of(conn) is not None:
            return []   # a seat's client makes its own view from its replica of the log
        if self._seat_of(conn) is not None or conn in self.spectators:
            return [Snapshot(conn)]
        return []

    # ------------------------------------------------------------------ the server's own moves

    def _start(self) -> Effects:
        """Every seat is taken: the match starts with a fresh game id and server seed."""
        game_id, server_seed, started = self.random_bytes(16), self.random_bytes(SEED_BYTES), int(self.wall())
        deal_seed = self.random_bytes(SEED_BYTES) if self.blind else None
        return self._wait(SaveStart(game_id, server_seed, started, deal_seed),
                          Starting(game_id, server_seed, started, deal_seed))

    def _started(self, game_id: bytes, server_seed: bytes, started: int, deal_seed: bytes | None) -> Effects:
        try:
            self.game_id, self.server_seed, self.started_at = game_id, server_seed, started
            self.deal_seed = deal_seed
            self.exchange = self._new_exchange()
            self.status = "playing"
            log.info("table %s starts: %s", self.id, ", ".join(s.name for s in self.seats),
                     extra={"table": self.id, "status": "playing"})
            out = self._absorb(0, [], None) + self._to_everyone(self.status_frame())
        except Exception:
            log.exception("table %s: the match could not be started", self.id)
            return self.freeze("its match could not be started")
        return out + [e for s in self.seats if s.human and s.conn is None for e in self._start_grace(s)]

    def drive(self) -> Effects:
        """The next step that is the server's to take, if any: the seeds of computer seats (and
        of players away), the cancel when a seed can no longer come, a bot's decision to ask for,
        a clock to wind. The shell calls it after every input until it returns nothing. Never
        raises: a step that fails freezes the table."""
        try:
            return self._next_step()
        except Exception:
            log.exception("table %s: a step of the server's own failed", self.id)
            return self._failed(ServerStep())

    def _next_step(self) -> Effects:
        ex = self.exchange
        if self.frozen or ex is None:
            return []
        if self.blind:
            return self._next_blind_step()
        if ex.phase == "commit":
            s = next((s for s in self.seats if ex.commits[s.index] is None and s.server_plays), None)
            if s is None:
                return self._wind_phase_clock("commit")
            seed = self.random_bytes(SEED_BYTES)
            return self._accept("commit", s.index, {"commitment": player_commit(ex.game_id, s.player_id, seed),
                                                    "seed": seed}, ServerStep())
        if ex.phase == "reveal":
            s = next((s for s in self.seats if ex.seeds[s.index] is None and s.own_seed is not None), None)
            if s is not None:
                return self._accept("reveal", s.index, {"seed": s.own_seed}, ServerStep())
            # a player who committed but is gone cannot be replaced: only they know their seed
            gone = next((s for s in self.seats if ex.seeds[s.index] is None and s.standin), None)
            if gone is not None:
                return self._accept("cancel", None, {"reason": late_seed_reason([gone.name], "reveal")}, ServerStep())
            return self._wind_phase_clock("reveal")
        out = []
        if ex.phase == "play":
            for i in self.engine.to_act(ex.state):
                s = self.seats[i]
                if not s.server_plays:
                    out += self._wind_clock(s)
                elif s.job != (s.prompt_seq, s.epoch):
                    out += self._ask_bot(s)
        return out

    def _next_blind_step(self) -> Effects:
        """On a blind table: the seeds of computer seats, their bots' decisions once the server's
        replica shows their cards and no step of the server's waits for the clients, and the
        clock of every person's seat that owes something. Nobody plays a person's seat: only its
        client can open its cards."""
        ex = self.exchange
        if ex.phase in ("commit", "reveal"):
            owed = ex.commits if ex.phase == "commit" else ex.seeds
            s = next((s for s in self.seats if s.bot is not None and owed[s.index] is None), None)
            if s is not None and ex.phase == "commit":
                seed = self.random_bytes(SEED_BYTES)
                return self._accept("commit", s.index, {"commitment": player_commit(ex.game_id, s.player_id, seed),
                                                        "seed": seed}, ServerStep())
            if s is not None:
                return self._accept("reveal", s.index, {"seed": s.own_seed}, ServerStep())
        out = []
        if ex.phase == "play" and ex.step is None and self.state is not None:
            for i in self.engine.to_act(self.state):
                s = self.seats[i]
                if s.bot is not None and s.job != (s.prompt_seq, s.epoch) and s.prompt is not None:
                    out += self._ask_bot(s)
        return out + self._wind_owed_clocks()

    def _wind_owed_clocks(self) -> Effects:
        """Start the clock of every person's seat that owes something (a new debt, or the same
        after it delivered something or (dis)connected), stop that of every seat that owes nothing."""
        ex = self.exchange
        owed = ex.owed() if ex.phase in ("commit", "reveal", "play", "seeds") else {}
        out: Effects = []
        for s in self.seats:
            if s.bot is not None:
                continue
            owes = tuple(owed.get(s.index, ()))
            seconds = self._time_to_deliver(s, owes)
            if seconds is None:
                if s.clock is not None:
                    out.append(CancelTimer(s.clock))
                    s.clock = None
                continue
            key = OwedClock(s.index, (s.delivered, s.epoch, owes), self.seq)
            if s.clock == key:
                continue
            if s.clock is not None:
                out.append(CancelTimer(s.clock))
            s.clock = key
            out.append(StartTimer(key, seconds))
            if "move" in owes and s.conn is not None:
                out.append(TellClock(s.conn, key))
        return out

    def _time_to_deliver(self, s: Seat, owes: tuple[str, ...]) -> float | None:
        """How long a seat has to deliver what it owes: its client sends a commitment, seed,
        shuffle step, shares or deal seed unasked, within the grace period; a move is a person's
        decision, on the turn clock when one is set, and within the grace period while they are
        away. None: no limit (a person thinking, connected, with no turn clock)."""
        if not owes:
            return None
        if set(owes) - {"move"}:
            return self.grace
        limits = [self.turn_time] if self.turn_time else []
        if s.conn is None:
            limits.append(self.grace)
        return min(limits) if limits else None

    def owed_clock_ran_out(self, key: OwedClock) -> Effects:
        """A seat of a blind table did not deliver what it owed in time: it forfeits (before the
        deal is done, the match is cancelled, naming it). Nobody can play its seat for it."""
        s = self.seats[key.seat]
        if s.clock != key:
            return []
        s.clock = None
        ex = self.exchange
        if self.frozen or ex is None:
            return []
        owes = ex.owed().get(s.index)
        if not owes:
            return []
        away = "" if s.conn is not None else ", away"
        why = f"{s.name} did not send {' and '.join(_THE[o] for o in owes)} in time{away}"
        if ex.phase in ("commit", "reveal") or ex.phase == "play" and self.state is None:
            return self._accept("cancel", None, {"reason": why}, Forfeit((s.index,), why))
        return self._accept("forfeit", None, {"seats": [s.index], "reason": why}, Forfeit((s.index,), why))

    def _start_grace(self, s: Seat) -> Effects:
        out = [CancelTimer(s.grace)] if s.grace is not None else []
        s.grace = GraceTimer(s.index, s.epoch)
        return out + [StartTimer(s.grace, self.grace)]

    def grace_over(self, key: GraceTimer) -> Effects:
        """A player has been away for the grace period: the table's bot plays their seat until
        they come back (and, before the commitments are complete, the server makes their seed)."""
        s = self.seats[key.seat]
        if s.grace == key:
            s.grace = None
        if s.epoch != key.epoch or s.conn is not None or self.status != "playing" or self.blind:
            return []   # on a blind table the seat's clock (_wind_owed_clocks) ends in a forfeit instead
        log.info("table %s: seat %d (%s) has been away for %s s; a bot plays for it", self.id, s.index, s.name,
                 self.grace)
        s.standin = True
        return self._to_everyone(self.status_frame())

    def _wind_clock(self, s: Seat) -> Effects:
        """Start the clock of a person's question, unless it already runs for that question."""
        if not self.turn_time or s.clock == TurnClock(s.index, s.prompt_seq):
            return []
        out = [CancelTimer(s.clock)] if s.clock is not None else []
        s.clock = TurnClock(s.index, s.prompt_seq)
        out.append(StartTimer(s.clock, self.turn_time))
        return out + ([TellClock(s.conn, s.clock)] if s.conn is not None else [])

    def _wind_phase_clock(self, phase: str) -> Effects:
        if not self.turn_time or self.phase_clock == PhaseClock(phase):
            return []
        out = [CancelTimer(self.phase_clock)] if self.phase_clock is not None else []
        self.phase_clock = PhaseClock(phase)
        return out + [StartTimer(self.phase_clock, self.turn_time)]

    def turn_clock_ran_out(self, key: TurnClock) -> Effects:
        """A person took `turn_time` over one question: the table's bot answers that one (they
        keep the seat and answer the next)."""
        s = self.seats[key.seat]
        if s.clock == key:
            s.clock = None
        ex = self.exchange
        if (self.frozen or ex is None or ex.phase != "play" or s.prompt_seq != key.seq or s.server_plays
                or self.blind or s.index not in self.engine.to_act(ex.state)):
            return []
        log.info("table %s: seat %d (%s) took more than %s s; the bot answers this question", self.id, s.index,
                 s.name, self.turn_time)
        s.overtime = key.seq
        return self._to_everyone(self.status_frame())

    def phase_clock_ran_out(self, key: PhaseClock) -> Effects:
        """The commit or reveal step ran out of time: the match is cancelled, naming who held it
        up. Those away are the grace period's: it gives their seat a seed, or cancels in the reveal."""
        if self.phase_clock == key:
            self.phase_clock = None
        ex = self.exchange
        if self.frozen or ex is None or ex.phase != key.phase or self.blind:
            return []
        owed = ex.commits if key.phase == "commit" else ex.seeds
        late = [s.name for s in self.seats
                if s.human and owed[s.index] is None and not s.server_plays and s.conn is not None]
        if not late:
            return []
        verb = "commit to" if key.phase == "commit" else "reveal"
        log.info("table %s: %s did not %s a seed in %s s; the match is cancelled", self.id, ", ".join(late), verb,
                 self.turn_time)
        return self._accept("cancel", None, {"reason": late_seed_reason(late, key.phase, self.turn_time)}, ServerStep())

    def _ask_bot(self, s: Seat) -> Effects:
        s.job = (s.prompt_seq, s.epoch)
        view = self.engine.view(self.state, s.index)   # what a client would hold
        return [AskBot(s.index, s.job, s.bot or self.bot_level, int.from_bytes(self.random_bytes(8)) >> 1, view)]

    def bot_moved(self, index: int, key: tuple, action: list | None, why: str = "") -> Effects:
        """A bot's decision for the question `key` (None: the bot failed, for the reason `why`). It
        is played if it still answers the seat's question and can be played; otherwise everyone at
        the table is told, and a random legal move is played."""
        s = self.seats[index]
        if s.job == key:
            s.job = None
        ex = self.exchange
        if (self.frozen or ex is None or ex.phase != "play" or key != (s.prompt_seq, s.epoch)
                or not s.server_plays or index not in self.engine.to_act(self.state)):
            return []
        if self.blind and ex.step is not None:
            s.job = None    # a step waits for the clients: the bot is asked again once it is done
            return []
        if action is None:
            return self._bot_failed(s, why)
        try:
            return self._accept("act", index, {"action": action}, BotDecision(s))
        except (IllegalAction, ProtocolError) as e:
            # Its code alone at error level: the move and the refusal's sentence may name what the
            # bot holds, and `governor play`'s server logs where its host reads.
            log.error("table %s: the move of the bot of seat %d was refused (%s)", self.id, index, e.code)
            log.debug("table %s: the refused move of seat %d: %r (%s)", self.id, index, action, e)
            # The code only: the refusal's sentence may name what the bot holds.
            return self._bot_failed(s, f"its move was refused ({e.code})")

    def _bot_failed(self, s: Seat, why: str) -> Effects:
        """Everyone at the table is told that the seat's bot failed and a random move stands in."""
        level = s.bot or self.bot_level
        notice = wire.encode({"type": "notice", "table": self.id, "code": "bot_failed",
                              "message": f"{s.name} ({level}) failed: {why}; a random move is played for it."})
        return [BotFailure(level), *self._to_everyone(notice), *self._random_move(s)]

    def _random_move(self, s: Seat) -> Effects:
        """A random legal move for a seat whose bot failed; if even that fails, the table freezes."""
        if self.frozen:
            return []
        try:
            p = s.prompt
            action = pick_uniform(p["options"], p["min"], p["max"], random.Random(self.random_bytes(8)))
            return self._accept("act", s.index, {"action": action}, RandomMove(s))
        except Exception:
            log.exception("table %s: a random move for seat %d failed too", self.id, s.index)
            return self._failed(RandomMove(s))


def _seats(row: TableRow) -> list[Seat]:
    seats = [Seat.of_record(i, s) for i, s in enumerate(row.seats)]
    if row.status == "waiting":
        # A person who sat down under bgfair/v1 held the seat by a seat token, which is gone: the
        # seat is free, their name too (they sit down again with their key).
        for s in seats:
            if s.human and s.key is None:
                s.name = s.player_id = None
    return seats


def summary_of(row: TableRow) -> dict:
    """A table's entry in a listing, from its record (a finished table not in memory)."""
    return {"id": row.id, "game": row.game, "options": row.options, "seats": seat_info(_seats(row)),
            "status": row.status, "rated": row.rated, "blind": row.blind}


# What a seat of a blind table owes (BlindServerExchange.owed), in a sentence.
_THE = {"commitment": "its commitment", "seed": "its seed", "shuffle step": "its shuffle step",
        "shares": "its decryption shares", "move": "its move", "deal seed": "its deal seed"}


def _error(conn, code: str, message: str) -> Send:
    return Send(conn, wire.encode({"type": "error", "code": code, "message": message}))


def _ack(cid: int) -> bytes:
    return wire.encode({"type": "ack", "id": cid})


def _reject(cid: int, code: str, message: str) -> bytes:
    return wire.encode({"type": "reject", "id": cid, "code": code, "message": message})
