"""One table's task: the asyncio shell around its core (server/table_core.py).

Everything that changes a table arrives as a message in its inbox (server/inbox.py: a seat's
command, a lobby request, a connection coming or going, a bot's decision, a timer) and is
handled by the table's task, one at a time: it feeds the message to the core and carries out
the effects the core returns (server/effects.py), in order. A store write or a log read is
awaited and its outcome fed back before anything after it, so every accepted input is in the
store before anyone hears of it. After each message the core is asked for the server's own next
steps (seeds, bot decisions, clocks) until it has none.

Frames go out through the table's Broadcaster (server/broadcast.py), bots think in worker
processes (server/deciders.py), timers are the event loop's. A finished table nobody is connected
to is no longer in use (its task ends; the server keeps it built a while, server/cache.py); the
server rebuilds it from the store when someone asks for one it no longer has.

The match is rebuilt from its log (after a restart, for a finished table, after a failure) on the
server's replay thread, not on the event loop: it re-signs every message, milliseconds of work
that would hold up every other table. Meanwhile the table's task waits, as for any read, so
nothing else touches the core.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import bots
from protocol import wire

from .broadcast import Broadcaster
from .deciders import BotFailed
from .effects import (AppendRow, AskBot, Bind, BotFailure, CancelTimer, Close, Effect, Forfeited, GraceTimer, LoadLog,
                      OwedClock, PhaseClock, Persist, SaveSeats, SaveStart, SaveStatus, Send, SendBacklog, Show,
                      Snapshot, StartTimer, TellClock, TurnClock, Unbind, UpgradeCancel)
from .inbox import (Act, Attach, BotMove, CloseTable, Commit, Deliver, Detach, Expire, Leave, Resync, Reveal, Sit,
                    Watch)
from .leases import LeaseLost
from .store import TableRow
from .table_core import TableCore

if TYPE_CHECKING:
    from .hosts import TableHost

log = logging.getLogger("governor.server")

# What a connection asks of a table needs its match: a finished one is rebuilt from its log first.
# Not a sit: only a waiting table takes one, and a waiting table has no match yet (a sit at a
# finished table is refused without replaying it).
NEEDS_MATCH = (Leave, Watch, Attach, Commit, Reveal, Act, Deliver, Resync, CloseTable)


class Table:
    def __init__(self, server: TableHost, row: TableRow, creator: str | None = None) -> None:
        self.server = server
        self.creator = creator    # the address that created the table (None: it came from the store)
        # Whose turn this table's bots wait for a worker in (server/deciders.py): the address that
        # created it, or, once rebuilt from the store, the table itself.
        self.bot_owner = creator or row.id
        self.core = TableCore(row, server.signer, turn_time=server.limits.turn_time, grace=server.grace,
                              now=time.monotonic())
        self.broadcaster = Broadcaster(self.core)
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None
        self.timers: dict = {}    # timer key -> its asyncio.TimerHandle, while it runs
        self.held_moves: set = set()   # TimerHandles of searching bots' moves held to `bot_answer`

    # ------------------------------------------------------------------ outside view

    @property
    def id(self) -> str:
        return self.core.id

    @property
    def created(self) -> float:
        return self.core.created

    @property
    def status(self) -> str:
        return self.core.status

    @property
    def active(self) -> bool:
        return self.core.active

    @property
    def private(self) -> bool:
        return self.core.private

    @property
    def seats(self):
        return self.core.seats

    def summary(self) -> dict:
        return self.core.summary()

    def ensure_running(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")

    def post(self, message) -> None:
        """A message for the table's task."""
        self.inbox.put_nowait((message, None))

    def post_command(self, message) -> bool:
        """A connection's command; False when the table is too far behind to take more."""
        if self.inbox.qsize() >= self.server.limits.inbox:
            return False
        self.ensure_running()
        self.inbox.put_nowait((message, None))
        return True

    async def request(self, message) -> None:
        """A lobby request handled by the table's task; returns once it is handled."""
        done = asyncio.get_running_loop().create_future()
        self.ensure_running()
        self.inbox.put_nowait((message, done))
        await done

    def hand_over(self) -> None:
        """Another server process serves this table now (server/cluster.py): everyone at it is
        told to connect again, which brings them to it, and this process forgets the table."""
        self._stop_timers()
        for conn in self.core.connections():
            conn.close(wire.CLOSE_MOVED, "another server process serves this table now: connect again")
        self.server.out_of_use(self)
        task, self.task = self.task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

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
        if self.core.active and not self.core.restored:
            await self._feed(self.core.restore())   # an unfinished match goes on at once
        while True:
            message, done = await self.inbox.get()
            try:
                if not self.core.restored and isinstance(message, NEEDS_MATCH):
                    await self._feed(self.core.restore())
                await self._feed(self._handle(message))
                for conn in self.core.connections():
                    conn.write_now()
                if type(message) is Act:   # answered by now: the ack (or reject) is queued
                    self.server.metrics.ack.observe(time.perf_counter() - message.received)
            except LeaseLost:   # the write was refused and announced to no one; another process serves it
                log.warning("table %s handed over: its lease was taken over", self.id, extra={"table": self.id})
                self.hand_over()
                return
            except Exception:
                log.exception("table %s: handling %r failed", self.id, message, extra={"table": self.id})
                conn = getattr(message, "conn", None)
                if conn is not None and not isinstance(message, Act):   # an act is always answered by the core
                    self.broadcaster.send(conn, INTERNAL_ERROR)
            finally:
                if done is not None and not done.done():
                    done.set_result(None)
            if self._unload_if_idle():
                return

    def _handle(self, message) -> list[Effect]:
        core, now = self.core, time.monotonic()
        match message:
            case Sit(conn, name, key):
                return core.sit(conn, name, key, now)
            case Leave(conn):
                return core.leave(conn, now)
            case Watch(conn, have):
                return core.watch(conn, have)
            case Attach(conn, seat, have, nonce, sig):
                return core.attach(conn, seat, have, nonce, sig, now)
            case Detach(conn):
                return core.detach(conn, now)
            case Expire(idle, lifetime):
                return core.expire(idle, lifetime, now, time.time())
            case Commit(conn, commitment, sig, deal):
                return core.commit(conn, commitment, sig, deal)
            case Reveal(conn, seed, sig):
                return core.reveal(conn, seed, sig)
            case Act(conn, cid, seq, move, sig, _, openings):
                return core.act(conn, cid, seq, move, sig, openings)
            case Deliver(conn, kind, data):
                return core.deliver(conn, kind, data)
            case Resync(conn):
                return core.resync(conn)
            case CloseTable(conn, reason):
                return core.close(conn, reason)
            case BotMove(seat, key, action, why):
                return core.bot_moved(seat, key, action, why)
            case GraceTimer():
                return core.grace_over(message)
            case TurnClock():
                return core.turn_clock_ran_out(message)
            case PhaseClock():
                return core.phase_clock_ran_out(message)
            case OwedClock():
                return core.owed_clock_ran_out(message)
        raise TypeError(f"a table has no use for {message!r}")

    async def _feed(self, effects: list[Effect]) -> None:
        """Carry out what the core returned for an input, then the server's own steps."""
        was_active = self.core.active
        await self._carry_out(effects)
        while effects := self.core.drive():
            await self._carry_out(effects)
        if was_active and not self.core.active:
            self.server.finished_now(self)

    async def _carry_out(self, effects: list[Effect]) -> None:
        """The effects in order. A write or a read ends its list: its outcome goes back to the
        core, which returns what follows."""
        while effects:
            last = effects[-1]
            waits = isinstance(last, (Persist, LoadLog))
            for effect in effects[:-1] if waits else effects:
                self._do(effect)
            if not waits:
                return
            effects = await (self._store(last) if isinstance(last, Persist) else self._load_log())

    async def _store(self, write: Persist) -> list[Effect]:
        store, tid = self.server.store, self.id
        started = time.perf_counter()
        try:
            match write:
                case SaveSeats(seats):
                    await store.update_seats(tid, seats)
                case SaveStart(game_id, server_seed, started, deal_seed):
                    await store.start_table(tid, game_id, server_seed, started, deal_seed)
                case SaveStatus(status):
                    await store.set_status(tid, status)
                case AppendRow(n, kind, seat, data, status):
                    await store.append(tid, n, kind, seat, data, status)
        except LeaseLost:
            raise
        except Exception:
            log.exception("table %s: the store refused a write (%s)", self.id, type(write).__name__,
                          extra={"table": self.id})
            return self.core.not_stored()
        finally:
            self.server.metrics.store.observe(time.perf_counter() - started)
        return self.core.stored()

    async def _load_log(self) -> list[Effect]:
        try:
            rows = await self.server.store.log(self.id)
        except Exception:
            log.exception("table %s: its log could not be read", self.id)
            return self.core.log_not_loaded()
        return await self.server.replayer.run(self.core.log_loaded, rows)

    def _do(self, effect: Effect) -> None:
        match effect:
            case Send(conn, frame):
                self.broadcaster.send(conn, frame)
            case SendBacklog(conn, frames):
                conn.push_backlog(frames)
            case Show(events, actor):
                try:
                    self.broadcaster.show(events, actor)
                except Exception:
                    log.exception("table %s: its views could not be sent", self.id)
                    for notice in self.core.freeze("an accepted input could not be announced"):
                        self._do(notice)
            case Snapshot(conn):
                self.broadcaster.snapshot_to(conn)
            case Close(conn, code, reason):
                conn.close(code, reason)
            case Bind(conn, seat):
                conn.table, conn.seat, conn.seq = self, seat, -1
            case Unbind(conn):
                if conn.table is self:    # not bound meanwhile to another table (a Detach is queued)
                    conn.table = conn.seat = None
            case StartTimer(key, seconds):
                self._cancel_timer(key)
                self.timers[key] = asyncio.get_running_loop().call_later(seconds, self._timer_fired, key)
            case CancelTimer(key):
                self._cancel_timer(key)
            case TellClock(conn, key):
                self._tell_clock(conn, key)
            case AskBot():
                self._ask_bot(effect)
            case BotFailure(level):
                self.server.metrics.bot_failures[level] += 1
            case UpgradeCancel():
                self.server.metrics.upgrade_cancels += 1
            case Forfeited(seats):
                self.server.metrics.forfeits += len(seats)
            case _:
                raise TypeError(f"a table cannot carry out {effect!r}")

    # ------------------------------------------------------------------ timers and bots

    def _timer_fired(self, key) -> None:
        self.timers.pop(key, None)
        self.post(key)

    def _cancel_timer(self, key) -> None:
        handle = self.timers.pop(key, None)
        if handle is not None:
            handle.cancel()

    def _tell_clock(self, conn, key: TurnClock | OwedClock) -> None:
        """The time a turn clock has left, from its timer, to the seat's connection: the client
        counts down from it (its own clock need not agree with ours: only a duration travels)."""
        handle = self.timers.get(key)
        if handle is None:
            return
        left = max(0.0, handle.when() - asyncio.get_running_loop().time())
        self.broadcaster.send(conn, wire.encode({"type": "clock", "table": self.id, "seq": key.seq,
                                                 "left": float(left)}))

    def _stop_timers(self) -> None:
        for handle in (*self.timers.values(), *self.held_moves):
            handle.cancel()
        self.timers.clear()
        self.held_moves.clear()

    def _ask_bot(self, ask: AskBot) -> None:
        asked = asyncio.get_running_loop().time()
        try:
            decision = self.server.deciders.submit(ask.level, ask.seed, ask.view, self.bot_owner)
        except Exception as e:   # no decision can be asked for: it fails, and a random move is played
            decision = asyncio.get_running_loop().create_future()
            decision.set_exception(BotFailed("no decision could be asked for", e))
        decision.add_done_callback(lambda f: self._bot_decided(ask, f, asked))

    def _bot_decided(self, ask: AskBot, decision: asyncio.Future, asked: float) -> None:
        """Posts the bot's move, or its failure (the core tells the table and plays a random move).
        A decision cancelled because the server stops is no move at all: a restarted server asks
        the bot again. A searching bot's move waits until `bot_answer` seconds after its question:
        a search runs only where there is a choice, so an early answer would tell that its seat
        had none (it can afford nothing, say)."""
        if decision.cancelled():
            return
        e = decision.exception()
        if isinstance(e, asyncio.CancelledError):
            return
        if e is None:
            move = BotMove(ask.seat, ask.key, list(decision.result()))
        else:
            # What failed, by name, at error level; its text and traceback (which may name a card
            # the bot holds) only at debug: `governor play`'s server logs where its host reads.
            cause = e.__cause__ if isinstance(e, BotFailed) and e.__cause__ is not None else e
            log.error("table %s: the %s bot of seat %d failed: %s (%s)", self.id, ask.level, ask.seat,
                      e.public if isinstance(e, BotFailed) else "it failed", type(cause).__name__)
            log.debug("table %s: the bot's failure in full", self.id, exc_info=e)
            move = BotMove(ask.seat, ask.key, None, e.public if isinstance(e, BotFailed) else "it failed")
        loop = asyncio.get_running_loop()
        hold = asked + self.server.limits.bot_answer - loop.time() if ask.level in bots.SEARCHING else 0
        if hold <= 0:
            self.post(move)
            return
        handle = loop.call_later(hold, lambda: (self.held_moves.discard(handle), self.post(move)))
        self.held_moves.add(handle)

    def _unload_if_idle(self) -> bool:
        """A finished table nobody is connected to, with nothing left to do, is no longer in use:
        the server lets it rest (server/cache.py) and its task ends."""
        if not self.core.idle or not self.inbox.empty():
            return False
        self._stop_timers()
        self.server.forget(self)
        self.task = None
        return True


INTERNAL_ERROR = wire.encode({"type": "error", "code": "internal_error",
                              "message": "The server failed to handle this request."})
