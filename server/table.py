"""One table's life: its match, its seats' commands and the lobby's requests, one task owning it.

Everything that changes a table arrives as an item in its inbox (a seat's command, a lobby
request, a connection coming or going, a bot's decision, a grace timer) and is handled by the
table's task, one item at a time. An accepted input is applied to the match (a ServerExchange),
written to the database, and only then announced: signed messages to the seats, then view
updates and the answer to the command, all through the table's Broadcaster (server/broadcast.py).
A match that was started is rebuilt from its log when the server restarts, byte for byte.
A finished table nobody is connected to leaves memory (its task ends); the server rebuilds it
from the database when someone asks for it again.

What fails inside a table stays there. A refused or failed input changes nothing (after a failure
the match is rebuilt from its log, which does not hold it) and a seat's command is answered with
a reject. When the server cannot take a step of its own (a seed, a bot's move: a bot that fails
plays a random legal move instead), the table is frozen: logged, everyone at it is told, every
command is refused, and a restarted server tries again from the log.

`seq` is the sequence number of the latest signed public entry of the match (the header is 0,
the commitment set 1, the reveal set 2, then one per move and the final entry). A seat's views
are numbered with it; each seat remembers the seq at which its current question was put, and a
command decided on an older view is "stale".
"""
from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time

import games
from games.choice import pick_uniform
from games.errors import IllegalAction
from protocol import wire
from protocol.exchange import SEED_BYTES, ServerExchange
from protocol.fairness import player_commit
from protocol.messages import ProtocolError

from .broadcast import Broadcaster, decoded_view
from .conn import Conn
from .seats import Seat, hash_token, seat_info
from .store import TableRow

log = logging.getLogger("governor.server")

MAX_INTERNAL_ERRORS = 20  # a table with more is frozen


class InternalError(Exception):
    """Something broke inside the table's rules; the command is rejected, the table rebuilt."""


class Table:
    def __init__(self, server, row: TableRow) -> None:
        self.server = server
        self.id = row.id
        self.game = row.game
        self.engine = games.get(row.game)
        self.options = row.options
        self.bot_level = row.bot
        self.created = row.created
        self.seats = _seats(row)
        self.game_id = row.game_id
        self.server_seed = row.server_seed
        self.status = row.status
        self.exchange: ServerExchange | None = None
        self.restored = row.status == "waiting"   # a started match is rebuilt from its log first
        self.nrows = 0
        self.seq = 0
        self.turn_time = server.limits.turn_time
        self.broadcaster = Broadcaster(self.id, self.engine, self.seats, self.turn_time)
        self.phase_clock: asyncio.TimerHandle | None = None   # the time to commit, then to reveal ...
        self.phase_clock_for: str | None = None                # ... for this phase
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None
        self.broken: str | None = None
        self.internal_errors = 0
        self.touched = time.monotonic()   # the last time someone sat down or left

    # ------------------------------------------------------------------ outside view

    @property
    def active(self) -> bool:
        return self.status in ("waiting", "playing")

    def summary(self) -> dict:
        out = {"id": self.id, "game": self.game, "options": self.options, "seats": seat_info(self.seats),
               "status": self.status}
        if self.broken:
            out["frozen"] = self.broken
        return out

    def ensure_running(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")

    def post(self, item: tuple) -> None:
        """An item (op, *args) for the table's task."""
        self.inbox.put_nowait((item, None))

    def post_command(self, item: tuple) -> bool:
        """A connection's command; False when the table is too far behind to take more."""
        if self.inbox.qsize() >= self.server.limits.inbox:
            return False
        self.ensure_running()
        self.inbox.put_nowait((item, None))
        return True

    async def request(self, op: str, conn: Conn, *args) -> None:
        """A lobby request handled by the table's task; returns once it is handled."""
        fut = asyncio.get_running_loop().create_future()
        self.ensure_running()
        self.inbox.put_nowait(((op, conn, *args), fut))
        await fut

    async def stop(self) -> None:
        self._stop_timers()
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass

    # ------------------------------------------------------------------ the task

    async def _run(self) -> None:
        if self.active:
            await self._restore_safely()   # an unfinished match goes on at once
        while True:
            item, fut = await self.inbox.get()
            args = item[1:]
            if not self.restored and item[0] not in ("detach", "expire", "bot", "grace", "clock"):
                await self._restore_safely()  # a finished match, rebuilt when someone asks for it
            try:
                await getattr(self, "_on_" + item[0])(*args)
            except Exception:
                log.exception("table %s: handling %s failed", self.id, item[0])
                conn = args[0] if args and isinstance(args[0], Conn) else None
                if conn is not None and item[0] != "act":
                    self.broadcaster.error(conn, "internal_error", "The server failed to handle this request.")
            finally:
                if fut is not None and not fut.done():
                    fut.set_result(None)
            if self._unload_if_idle():
                return

    def _stop_timers(self) -> None:
        for s in self.seats:
            s.stop_timers()
        if self.phase_clock is not None:
            self.phase_clock.cancel()
            self.phase_clock = None

    def _unload_if_idle(self) -> bool:
        """A finished table nobody is connected to, with nothing left to do, leaves memory: the
        server forgets it and its task ends. It is rebuilt from the database on demand."""
        if (self.active or self.broadcaster.spectators or any(s.conn is not None for s in self.seats)
                or not self.inbox.empty()):
            return False
        self._stop_timers()
        self.server.forget(self)
        self.task = None
        return True

    async def _restore_safely(self) -> None:
        try:
            await self._restore()
        except Exception:
            log.exception("table %s could not be rebuilt from its log", self.id)
            self._freeze("it could not be rebuilt from its log")

    def _freeze(self, reason: str) -> None:
        """Refuse every command from now on (a restarted server rebuilds the table from its log
        and tries again); logged, and everyone at the table is told."""
        if self.broken:
            return
        self.broken = reason
        log.error("table %s is frozen: %s", self.id, reason)
        self.broadcaster.frozen = reason
        self.broadcaster.broadcast_status(self.status)
        notice = wire.encode({"type": "error", "code": "table_frozen",
                              "message": f"Table {self.id} is frozen: {reason}. Its log is kept; it can go "
                                         "on when the server is restarted."})
        for conn in [s.conn for s in self.seats if s.conn is not None] + list(self.broadcaster.spectators):
            self.broadcaster.send(conn, notice)

    async def _restore(self) -> None:
        self.restored = True
        if self.status == "waiting" or self.game_id is None:  # never started: nothing to replay
            return
        rows = await self.server.store.log(self.id)
        self._build(rows)
        if self.status == "playing":
            for s in self.seats:
                if s.human and s.conn is None:
                    self._schedule_grace(s)
            await self._drive()

    def _new_exchange(self) -> ServerExchange:
        """The match before its first input; with the same game id, seeds and key, it signs the
        same messages every time."""
        return ServerExchange(self.game, self.options, [(s.player_id, s.name) for s in self.seats],
                              self.server.signer, game_id=self.game_id, server_seed=self.server_seed)

    def _build(self, rows) -> None:
        """The match from its log: every signed message comes out exactly as first sent."""
        self.exchange = self._new_exchange()
        self.broadcaster.restart()
        for s in self.seats:
            s.stream = []
            s.prompt = None
            s.own_seed = None
        self._absorb(0, [], None, push=False)
        for row in rows:
            n0 = len(self.exchange.sent)
            self._apply(row.kind, row.seat, row.data)
            act = row.kind == "act"
            self._absorb(n0, self.exchange.last_events if act else [], row.seat if act else None, push=False)
            if act and "id" in row.data:
                self.seats[row.seat].remember(row.data["id"], wire.encode({"type": "ack", "id": row.data["id"]}))
        self.nrows = len(rows)
        self.status = self._phase_status()

    async def _recover(self) -> None:
        """After an unexpected exception inside the rules: rebuild the match from the log, which
        does not hold the failed input, so memory and database agree again."""
        self.internal_errors += 1
        lengths = [len(s.stream) for s in self.seats]
        try:
            self._build(await self.server.store.log(self.id))
        except Exception:
            log.exception("table %s could not be rebuilt", self.id)
            self._freeze("it could not be rebuilt after an internal error")
            return
        if [len(s.stream) for s in self.seats] != lengths:
            self._freeze("its rebuilt match differs from what was sent")
        elif self.internal_errors >= MAX_INTERNAL_ERRORS:
            self._freeze("too many internal errors")

    # ------------------------------------------------------------------ accepting inputs

    def _phase_status(self) -> str:
        ex = self.exchange
        if ex is None:
            return "waiting"
        return {"over": "over", "cancelled": "cancelled"}.get(ex.phase, "playing")

    def _apply(self, kind: str, seat, data: dict) -> None:
        ex = self.exchange
        if kind == "commit":
            ex.commit(seat, data["commitment"])
            if "seed" in data:
                self.seats[seat].own_seed = data["seed"]
        elif kind == "reveal":
            ex.reveal(seat, data["seed"])
        elif kind == "act":
            ex.act(seat, data["action"])
        elif kind == "cancel":
            ex.cancel(data["reason"])
        else:
            raise ValueError(f"unknown log row {kind!r}")

    async def _accept(self, kind: str, seat, data: dict) -> None:
        """Apply, persist, announce. Raises IllegalAction or ProtocolError when refused, and
        InternalError when the rules or the database failed; either way nothing changed (after a
        failure the match is rebuilt from the log, which does not hold the input). Once stored,
        the input stands: a failure while announcing it freezes the table and is not raised."""
        if self.broken:
            raise InternalError(self.broken)
        ex = self.exchange
        n0 = len(ex.sent)
        try:
            self._apply(kind, seat, data)
        except (IllegalAction, ProtocolError):
            raise
        except Exception as e:
            log.exception("table %s: the rules failed on %s by seat %s: %r", self.id, kind, seat, data)
            await self._recover()
            raise InternalError(str(e)) from None
        status = self._phase_status()
        try:
            await self.server.store.append(self.id, self.nrows, kind, seat, data,
                                           status if status != self.status else None)
        except Exception:
            log.exception("table %s: the database refused a write; the input is undone", self.id)
            await self._recover()   # memory never runs ahead of the log
            raise InternalError("the database refused a write") from None
        self.nrows += 1
        changed, self.status = status != self.status, status
        if changed:
            log.info("table %s is %s", self.id, status)
        act = kind == "act"
        try:
            self._absorb(n0, ex.last_events if act else [], seat if act else None, push=True)
            if changed or (kind == "commit" and "seed" in data and self.seats[seat].human):
                self.broadcaster.broadcast_status(self.status)
        except Exception:
            log.exception("table %s: announcing %s by seat %s failed", self.id, kind, seat)
            self._freeze("an accepted input could not be announced")

    def _absorb(self, n0: int, events: list[dict], actor, push: bool) -> None:
        """Take in what the exchange produced since message n0: signed messages into the seats'
        streams, new questions, the match as the broadcaster shows it; with push, send it all."""
        ex = self.exchange
        humans = [s for s in self.seats if s.human]
        for m in ex.sent[n0:]:
            frame = self._frame(m)
            targets = humans if m.kind == "entry" else [self.seats[m.body["seat"]]]
            for s in targets:
                if s.human:
                    s.stream.append(frame)
                    if push and s.conn is not None:
                        self.broadcaster.send(s.conn, frame)
            if push and m.kind == "entry":
                for c in list(self.broadcaster.spectators):
                    self.broadcaster.send(c, frame)
        self.seq = len(ex.log) - 1
        answered_late = False
        if ex.state is not None:
            for s in self.seats:
                p = self.engine.prompt(ex.state, s.index)
                if p != s.prompt or s.index == actor:
                    s.prompt, s.prompt_seq = p, self.seq
                if s.overtime is not None and not s.out_of_time:
                    s.overtime = None   # the question that ran out of time is answered
                    answered_late = True
        if push:
            self.broadcaster.show(ex.state, self.seq, events, actor)
            if answered_late:
                self.broadcaster.broadcast_status(self.status)
        else:
            self.broadcaster.follow(ex.state, self.seq, events)

    def _frame(self, m) -> bytes:
        """A signed message as sent on the wire."""
        return wire.encode({"type": m.kind, "table": self.id, "payload": m.payload, "sig": m.sig})

    def _seat_of(self, conn: Conn) -> Seat | None:
        """The seat this connection holds here, if any."""
        if conn.table is not self or conn.seat is None:
            return None
        s = self.seats[conn.seat]
        return s if s.conn is conn else None

    # ------------------------------------------------------------------ lobby requests

    async def _on_sit(self, conn: Conn, name: str) -> None:
        if self.status != "waiting":
            return self.broadcaster.error(conn, "started", f"Table {self.id} has already started.")
        free = next((s for s in self.seats if not s.taken), None)
        if free is None:
            return self.broadcaster.error(conn, "table_full", f"Every seat at table {self.id} is taken.")
        if any(s.name is not None and s.name.casefold() == name.casefold() for s in self.seats):
            # the game log names players: two of one name (or a person called "Bot 2") would muddle it
            return self.broadcaster.error(conn, "name_taken", f"Someone at table {self.id} is already "
                                                              f"called {name!r}; pick another name.")
        token = secrets.token_urlsafe(32)
        free.name, free.player_id, free.token_hash = name, "p-" + secrets.token_hex(8), hash_token(token)
        try:
            await self.server.store.update_seats(self.id, [s.record() for s in self.seats])
        except Exception:
            free.name = free.player_id = free.token_hash = None
            raise
        self.server.tokens[free.token_hash] = (self, free.index)
        self.touched = time.monotonic()
        self.broadcaster.unwatch(conn)
        conn.table, conn.seat = self, free.index
        free.conn = conn
        conn.push(wire.encode({"type": "seated", "table": self.id, "seat": free.index, "token": token,
                               "player_id": free.player_id}))
        self.broadcaster.broadcast_status(self.status)
        if all(s.taken for s in self.seats) and not self.broken:
            await self._start()

    async def _on_leave(self, conn: Conn) -> None:
        if self.broadcaster.unwatch(conn):
            conn.table = None
            return
        s = self._seat_of(conn)
        if s is None:
            return self.broadcaster.error(conn, "not_seated", "You have no seat at this table.")
        if self.status in ("over", "cancelled"):   # the seat stays in the record; the connection is free
            s.conn = None
            conn.table, conn.seat = None, None
            return conn.push(self.broadcaster.status_frame(self.status))
        if self.status != "waiting":
            return self.broadcaster.error(conn, "started", "The match has started: the seat stays yours; "
                                                           "reconnect with your seat token to play on.")
        self.server.tokens.pop(s.token_hash, None)
        old = (s.name, s.player_id, s.token_hash)
        s.name = s.player_id = s.token_hash = None
        try:
            await self.server.store.update_seats(self.id, [x.record() for x in self.seats])
        except Exception:
            s.name, s.player_id, s.token_hash = old
            self.server.tokens[s.token_hash] = (self, s.index)
            raise
        s.conn = None
        conn.table, conn.seat = None, None
        self.touched = time.monotonic()
        self.broadcaster.broadcast_status(self.status)
        conn.push(self.broadcaster.status_frame(self.status))

    async def _on_watch(self, conn: Conn, have: int = 0) -> None:
        """A spectator: the signed public entries it lacks (every entry is public, so anyone
        can audit the match as a player does, bar the hands), then the status and the view."""
        conn.table, conn.seat = self, None
        if self.exchange is not None:
            entries = [m for m in self.exchange.sent if m.kind == "entry"]
            conn.push_backlog([self._frame(m) for m in entries[max(0, have):]])
        self.broadcaster.watch(conn, self.status)

    async def _on_attach(self, conn: Conn, index: int, have: int, token_hash: str) -> None:
        """A seat token said hello: this connection is now the seat's, if the token still is (its
        player may have left the seat to someone else meanwhile). The signed messages it lacks
        come first, then a snapshot of its view."""
        s = self.seats[index]
        if s.token_hash != token_hash:
            conn.close(wire.CLOSE_BAD_HELLO, "unknown seat token")
            return
        self.touched = time.monotonic()
        old = s.conn
        if old is not None and old is not conn:
            old.table, old.seat = None, None
            old.close(wire.CLOSE_REPLACED, "this seat connected again elsewhere")
        s.conn = conn
        conn.table, conn.seat = self, index
        s.epoch += 1
        if s.timer:
            s.timer.cancel()
            s.timer = None
        s.standin = False
        # The status first: it tells a returning player whether the server made their seed
        # while they were away, which the signed messages in the backlog depend on.
        conn.push(self.broadcaster.status_frame(self.status))
        have = max(0, min(have, len(s.stream)))
        conn.push_backlog(s.stream[have:])
        if self.exchange is not None and self.exchange.state is not None:
            self.broadcaster.snapshot_to(s)
        self.broadcaster.broadcast_status(self.status)

    async def _on_detach(self, conn: Conn) -> None:
        if self.broadcaster.unwatch(conn):
            return
        s = self._seat_of(conn)
        if s is None:
            return
        s.conn = None
        self.touched = time.monotonic()
        self.broadcaster.forget(s)
        s.epoch += 1
        if self.status == "playing":
            self._schedule_grace(s)
        self.broadcaster.broadcast_status(self.status)

    async def _on_expire(self, idle: float) -> None:
        """A waiting table no person has been at for `idle` seconds (nobody sat down, or all who
        did are disconnected) is closed, so that abandoned tables do not hold the server's table
        limit."""
        if (self.status != "waiting" or any(s.human and s.conn is not None for s in self.seats)
                or time.monotonic() - self.touched < idle):
            return
        await self.server.store.set_status(self.id, "cancelled")
        self.status = "cancelled"
        log.info("table %s: nobody has been at it for %.0f s; it is closed", self.id, idle)
        self.broadcaster.broadcast_status(self.status)

    # ------------------------------------------------------------------ seats' commands

    async def _on_commit(self, conn: Conn, msg: dict) -> None:
        s = self._seat_of(conn)
        ex = self.exchange
        if s is None:
            return self.broadcaster.error(conn, "not_seated", "Only a seated player commits.")
        if ex is None:
            return self.broadcaster.error(conn, "not_started", "The match has not started yet.")
        if ex.commits[s.index] == msg["commitment"]:
            return  # a resent commitment changes nothing
        if s.own_seed is not None:
            return self.broadcaster.error(conn, "already_committed",
                                          "The server committed a seed for this seat while you were away.")
        try:
            await self._accept("commit", s.index, {"commitment": msg["commitment"]})
        except (ProtocolError, IllegalAction) as e:
            return self.broadcaster.error(conn, e.code, e.message)
        except InternalError:
            return self.broadcaster.error(conn, "internal_error", "The server failed to take your commitment.")
        await self._drive()

    async def _on_reveal(self, conn: Conn, msg: dict) -> None:
        s = self._seat_of(conn)
        ex = self.exchange
        if s is None:
            return self.broadcaster.error(conn, "not_seated", "Only a seated player reveals a seed.")
        if ex is None:
            return self.broadcaster.error(conn, "not_started", "The match has not started yet.")
        if ex.seeds[s.index] == msg["seed"]:
            return
        try:
            await self._accept("reveal", s.index, {"seed": msg["seed"]})
        except (ProtocolError, IllegalAction) as e:
            return self.broadcaster.error(conn, e.code, e.message)
        except InternalError:
            return self.broadcaster.error(conn, "internal_error", "The server failed to take your seed.")
        await self._drive()

    async def _on_act(self, conn: Conn, msg: dict) -> None:
        """Every act is answered exactly once: an ack, or a reject with nothing changed."""
        cid, rows = msg["id"], self.nrows
        s = self._seat_of(conn)
        if s is None:
            return self.broadcaster.send(conn, _reject(cid, "not_seated", "You have no seat at this table."))
        try:
            answered = s.answer(cid)
            if answered is not None:  # a resent command: the same answer again, applied once
                return self.broadcaster.send(conn, answered)
            answer, stale = await self._judge(s, msg)
            s.remember(cid, answer)
        except Exception:
            log.exception("table %s: command %d of seat %d failed", self.id, cid, s.index)
            stale = False
            answer = _ack(cid) if self.nrows > rows else _reject(cid, "internal_error", "The server failed on this "
                                                                                       "command; it was not applied.")
        if s.conn is conn:
            self.broadcaster.send(conn, answer)
            if stale:
                self.broadcaster.snapshot_to(s)
        await self._drive()

    async def _judge(self, s: Seat, msg: dict) -> tuple[bytes, bool]:
        """The answer to a new command of seat s, applied if it is an ack; and whether the
        command was stale."""
        cid, ex = msg["id"], self.exchange
        if self.broken:
            return _reject(cid, "internal_error", f"This table is frozen: {self.broken}."), False
        if ex is None or ex.phase in ("commit", "reveal"):
            return _reject(cid, "not_started", "The match has not started yet."), False
        if ex.phase != "play":
            return _reject(cid, "game_over", f"The match is {ex.phase}."), False
        if msg["seq"] > self.seq:
            return _reject(cid, "bad_seq", f"This was decided on a view at seq {msg['seq']}, but the table is at "
                                           f"seq {self.seq}: there is no such view; a fresh snapshot follows."), True
        if msg["seq"] < s.prompt_seq:
            return _reject(cid, "stale", f"This was decided on the view at seq {msg['seq']}, but the question "
                                         f"changed at seq {s.prompt_seq}; a fresh snapshot follows."), True
        try:
            await self._accept("act", s.index, {"action": msg["action"], "id": cid})
        except (IllegalAction, ProtocolError) as e:
            return _reject(cid, e.code, e.message), False
        except InternalError:
            return _reject(cid, "internal_error", "The server failed on this command; it was not applied."), False
        return _ack(cid), False

    async def _on_resync(self, conn: Conn, msg: dict | None = None) -> None:
        if self.exchange is None or self.exchange.state is None:
            return self.broadcaster.error(conn, "not_started", "There is no view before the match starts.")
        s = self._seat_of(conn)
        if s is not None:
            self.broadcaster.snapshot_to(s)
        elif conn in self.broadcaster.spectators:
            self.broadcaster.public_snapshot_to(conn)

    # ------------------------------------------------------------------ the server's own moves

    def _schedule_grace(self, s: Seat) -> None:
        if s.timer:
            s.timer.cancel()
        s.timer = asyncio.get_running_loop().call_later(self.server.grace, self.post, ("grace", s.index, s.epoch))

    async def _on_grace(self, index: int, epoch: int) -> None:
        s = self.seats[index]
        s.timer = None
        if s.epoch != epoch or s.conn is not None or self.status != "playing":
            return
        log.info("table %s: seat %d (%s) has been away for %s s; a bot plays for it", self.id, index,
                 s.name, self.server.grace)
        s.standin = True
        self.broadcaster.broadcast_status(self.status)
        await self._drive()

    async def _start(self) -> None:
        try:
            self.game_id, self.server_seed = secrets.token_bytes(16), secrets.token_bytes(SEED_BYTES)
            await self.server.store.start_table(self.id, self.game_id, self.server_seed)
            self.exchange = self._new_exchange()
            self.status = "playing"
            log.info("table %s starts: %s", self.id, ", ".join(s.name for s in self.seats))
            self._absorb(0, [], None, push=True)
            self.broadcaster.broadcast_status(self.status)
        except Exception:
            log.exception("table %s: the match could not be started", self.id)
            return self._freeze("its match could not be started")
        for s in self.seats:
            if s.human and s.conn is None:
                self._schedule_grace(s)
        await self._drive()

    async def _drive(self) -> None:
        """Take every step that is the server's to take: seeds of computer seats (and of absent
        players), and bot decisions, which are computed away from the event loop. Never raises:
        a step that fails freezes the table."""
        try:
            await self._steps()
        except Exception:
            log.exception("table %s: a step of the server's own failed", self.id)
            self._freeze("the server could not take a step of its own")

    async def _steps(self) -> None:
        while not self.broken and self.exchange is not None:
            ex = self.exchange
            if ex.phase == "commit":
                s = next((s for s in self.seats if ex.commits[s.index] is None and s.server_plays), None)
                if s is None:
                    return self._wind_phase_clock(ex.phase)
                seed = secrets.token_bytes(SEED_BYTES)
                await self._accept("commit", s.index, {"commitment": player_commit(ex.game_id, s.player_id, seed),
                                                       "seed": seed})
            elif ex.phase == "reveal":
                s = next((s for s in self.seats if ex.seeds[s.index] is None and s.own_seed is not None), None)
                if s is not None:
                    await self._accept("reveal", s.index, {"seed": s.own_seed})
                    continue
                gone = next((s for s in self.seats if ex.seeds[s.index] is None and s.standin), None)
                if gone is not None:
                    await self._accept("cancel", None, {"reason": f"{gone.name} did not reveal their seed in time"})
                    return
                return self._wind_phase_clock(ex.phase)
            else:
                if ex.phase == "play":
                    for i in self.engine.to_act(ex.state):
                        s = self.seats[i]
                        if not s.server_plays:
                            self._wind_clock(s)
                        elif s.job != (s.prompt_seq, s.epoch):
                            self._submit(s)
                return

    # The clocks. A connected player who never answers must not hold a table forever: after
    # turn_time seconds on one question the table's bot answers that question for them (they
    # keep the seat); a seed not committed or revealed in time cancels the match, naming who
    # held it up (before the reveal set nobody knows the deal, so nothing is given away). The
    # clocks are not persisted: after a restart they run again from zero.

    def _wind_clock(self, s: Seat) -> None:
        """Start the clock of a person's question, unless it already runs for that question."""
        if not self.turn_time or s.clock_for == s.prompt_seq:
            return
        if s.clock is not None:
            s.clock.cancel()
        s.clock_for = s.prompt_seq
        s.clock = asyncio.get_running_loop().call_later(self.turn_time, self.post, ("clock", s.index, s.prompt_seq))

    def _wind_phase_clock(self, phase: str) -> None:
        if not self.turn_time or self.phase_clock is not None and self.phase_clock_for == phase:
            return
        if self.phase_clock is not None:
            self.phase_clock.cancel()
        self.phase_clock_for = phase
        self.phase_clock = asyncio.get_running_loop().call_later(self.turn_time, self.post, ("clock", None, phase))

    async def _on_clock(self, index: int | None, key) -> None:
        ex = self.exchange
        if self.broken or ex is None:
            return
        if index is None:   # the commit or reveal phase ran out of time
            if self.phase_clock_for == key:
                self.phase_clock = self.phase_clock_for = None
            if ex.phase != key:
                return
            owed = ex.commits if key == "commit" else ex.seeds
            # Those away are the grace period's: it gives their seat a seed, or cancels in the reveal.
            late = [s.name for s in self.seats
                    if s.human and owed[s.index] is None and not s.server_plays and s.conn is not None]
            if late:
                verb = "commit to" if key == "commit" else "reveal"
                log.info("table %s: %s did not %s a seed in %s s; the match is cancelled",
                         self.id, ", ".join(late), verb, self.turn_time)
                await self._accept("cancel", None, {"reason": f"{' and '.join(late)} did not {verb} "
                                                              f"their seed within {self.turn_time:g} s"})
            return
        s = self.seats[index]
        if s.clock_for == key:
            s.clock = s.clock_for = None
        if (ex.phase != "play" or s.prompt_seq != key or s.server_plays
                or index not in self.engine.to_act(ex.state)):
            return
        log.info("table %s: seat %d (%s) took more than %s s; the bot answers this question", self.id,
                 index, s.name, self.turn_time)
        s.overtime = key
        self.broadcaster.broadcast_status(self.status)
        await self._drive()

    def _submit(self, s: Seat) -> None:
        key = (s.prompt_seq, s.epoch)
        s.job = key
        try:
            view = decoded_view(self.engine, self.exchange.state, s.index)  # what a client would hold
            fut = self.server.deciders.submit(s.bot or self.bot_level, secrets.randbits(63), view)
        except Exception as e:  # no decision can be asked for: it fails, and a random move is played
            fut = asyncio.get_running_loop().create_future()
            fut.set_exception(e)
        fut.add_done_callback(lambda f: self.post(("bot", s.index, key, f)))

    async def _on_bot(self, index: int, key: tuple, fut: asyncio.Future) -> None:
        """A bot's decision: played if it can be, else a random legal move is."""
        s = self.seats[index]
        if s.job == key:
            s.job = None
        ex = self.exchange
        if (self.broken or ex is None or ex.phase != "play" or key != (s.prompt_seq, s.epoch)
                or not s.server_plays or index not in self.engine.to_act(ex.state)):
            return await self._drive()
        action = None
        try:
            action = list(fut.result())
        except (Exception, asyncio.CancelledError) as e:
            log.error("table %s: the %s bot of seat %d failed: %r; it plays a random move",
                      self.id, s.bot or self.bot_level, index, e)
        if action is not None:
            try:
                await self._accept("act", index, {"action": action})
            except Exception as e:  # refused, or the rules failed on it (the match was rebuilt)
                log.error("table %s: the move %r of the bot of seat %d failed (%s); it plays a random one",
                          self.id, action, index, e)
                action = None
        if action is None:
            await self._random_move(s)
        await self._drive()

    async def _random_move(self, s: Seat) -> None:
        """A random legal move for a seat whose bot failed; if even that fails, the table freezes."""
        if self.broken:
            return
        try:
            p = s.prompt
            action = pick_uniform(p["options"], p["min"], p["max"], random.Random(secrets.randbits(64)))
            await self._accept("act", s.index, {"action": action})
        except Exception:
            log.exception("table %s: a random move for seat %d failed too", self.id, s.index)
            self._freeze(f"no move could be made for seat {s.index + 1} ({s.name})")


def _seats(row: TableRow) -> list[Seat]:
    return [Seat(i, s["name"], s["player_id"], s["token_hash"], s["bot"]) for i, s in enumerate(row.seats)]


def summary_of(row: TableRow) -> dict:
    """A table's entry in a listing, from its database row (a finished table not in memory)."""
    return {"id": row.id, "game": row.game, "options": row.options, "seats": seat_info(_seats(row)),
            "status": row.status}


def _ack(cid: int) -> bytes:
    return wire.encode({"type": "ack", "id": cid})


def _reject(cid: int, code: str, message: str) -> bytes:
    return wire.encode({"type": "reject", "id": cid, "code": code, "message": message})
