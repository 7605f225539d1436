"""The table's core on its own: inputs in, effects out, with no socket, store, clock or sleep.

A small synchronous shell below carries out the effects the way server/table.py does: the store
is a list of rows, connections are names, timers and bot requests are only recorded, and the
tests fire the timers and answer for the bots themselves.
"""
from __future__ import annotations

import gc
import hashlib
import random
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from games.choice import pick_uniform
from protocol import wire
from protocol.codec import pack, unpack
from protocol.fairness import player_commit
from protocol.signing import (SIG_COMMIT, SIG_MOVE, SIG_REVEAL, SIG_SEAT, Signer, commit_payload, move_payload,
                              reveal_payload, seat_payload)
from games.events import Event
from server.effects import (AppendRow, AskBot, CancelTimer, Close, GraceTimer, LoadLog, PhaseClock, Persist, SaveSeats, SaveStart,
                            Send, SendBacklog, Show, Snapshot, StartTimer, TellClock, TurnClock)
from server.store import LogRow, TableRow
from server.table_core import EVENTS_IN_SNAPSHOT, TableCore

SIGNER = Signer.generate()
ANA, BO, CY = "conn-Ana", "conn-Bo", "conn-Cy"   # connections are opaque to the core


def new_core(seats: int = 2, bots: int = 0, turn_time: float = 0.0) -> TableCore:
    people = [{"name": None, "player_id": None, "key": None, "bot": None} for _ in range(seats - bots)]
    computers = [{"name": f"Bot {i + 1}", "player_id": f"bot-{i + 1}", "key": None, "bot": "random"}
                 for i in range(seats - bots, seats)]
    row = TableRow("t1", "sanjuan", {}, "random", people + computers, None, None, "waiting", 0.0)
    return TableCore(row, SIGNER, turn_time=turn_time, grace=60.0, random_bytes=random.Random(7).randbytes)


class Shell:
    """Carries out a core's effects in order, as the real shell does, and keeps what it did."""

    def __init__(self, core: TableCore) -> None:
        self.core = core
        self.rows: list[LogRow] = []       # the store's log
        self.refuse: type | None = None    # the store refuses writes of this kind
        self.done: list = []               # every effect carried out, in order
        self.timers: set = set()           # keys of the timers running

    def feed(self, effects: list) -> list:
        """Carry out an input's effects, then the server's own steps; what was carried out."""
        start = len(self.done)
        self.carry_out(effects)
        while steps := self.core.drive():
            self.carry_out(steps)
        return self.done[start:]

    def carry_out(self, effects: list) -> None:
        while effects:
            *now, last = effects
            if not isinstance(last, (Persist, LoadLog)):
                now, last = effects, None
            for e in now:
                self.done.append(e)
                if isinstance(e, StartTimer):
                    self.timers.add(e.key)
                elif isinstance(e, CancelTimer):
                    self.timers.discard(e.key)
            if last is None:
                return
            self.done.append(last)
            if isinstance(last, LoadLog):
                effects = self.core.log_loaded(list(self.rows))
            elif isinstance(last, self.refuse or ()):
                effects = self.core.not_stored()
            else:
                if isinstance(last, AppendRow):
                    self.rows.append(LogRow(last.n, last.kind, last.seat, last.data))
                effects = self.core.stored()

    def fire(self, key) -> list:
        """A timer ran out."""
        self.timers.discard(key)
        handler = {GraceTimer: self.core.grace_over, TurnClock: self.core.turn_clock_ran_out,
                   PhaseClock: self.core.phase_clock_ran_out}[type(key)]
        return self.feed(handler(key))

    def to(self, conn) -> list[dict]:
        """Every message sent to a connection so far, decoded."""
        out = []
        for e in self.done:
            if isinstance(e, Send) and e.conn == conn:
                out.append(decode(e.frame))
            elif isinstance(e, SendBacklog) and e.conn == conn:
                out += [decode(f) for f in e.frames]
        return out

    def answer(self, conn) -> dict:
        """The latest ack, reject or error sent to a connection."""
        return [m for m in self.to(conn) if m["type"] in ("ack", "reject", "error")][-1]


def decode(frame: bytes) -> dict:
    return wire.decode(frame, wire.SERVER)


def key_of(conn) -> Signer:
    """The player key of the person at a connection (another connection of that person: the same)."""
    return Signer(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(conn.split("-2")[0].encode()).digest()))


def sit(shell: Shell, conn, name: str) -> Signer:
    """Sit down with the person's key; the key."""
    shell.feed(shell.core.sit(conn, name, key_of(conn).public_key, now=0.0))
    assert [m for m in shell.to(conn) if m["type"] == "seated"]
    return key_of(conn)


def claim(core: TableCore, conn, seat: int, key: Signer, now: float, nonce: bytes = b"n" * 32) -> list:
    """Claim a seat with a key's answer to the challenge `nonce` (docs/fairness.md C13)."""
    return core.attach(conn, seat, 0, nonce, key.sign(SIG_SEAT, seat_payload(SIGNER.public_key, nonce, core.id, seat)),
                       now=now)


def seed_of(conn) -> bytes:
    return conn.encode().ljust(32, b"\0")


def _seat(core: TableCore, conn):
    return next(s for s in core.seats if s.conn == conn)


def commit(shell: Shell, conn) -> list:
    core = shell.core
    s = _seat(core, conn)
    commitment = player_commit(core.exchange.game_id, s.player_id, seed_of(conn))
    sig = key_of(conn).sign(SIG_COMMIT, commit_payload(core.exchange.header.hash, s.index, commitment))
    return shell.feed(core.commit(conn, commitment, sig))


def reveal(shell: Shell, conn) -> list:
    core = shell.core
    sig = key_of(conn).sign(SIG_REVEAL, reveal_payload(core.exchange.header.hash, _seat(core, conn).index,
                                                       seed_of(conn)))
    return shell.feed(core.reveal(conn, seed_of(conn), sig))


def act(core: TableCore, conn, cid: int, seq: int, action: list, key: Signer | None = None) -> list:
    """The effects of an act as a client sends it: the move's bytes signed (C10) by the person's
    key (or `key`) over the entry at `seq` (a seq past the log's end gets a signature of zeros)."""
    s = next((s for s in core.seats if s.conn == conn), None)
    move_bytes = pack(list(action))
    ex = core.exchange
    sig = bytes(64)
    if s is not None and ex is not None and seq < len(ex.log):
        sig = (key or key_of(conn)).sign(SIG_MOVE, move_payload(ex.header.hash, s.index, ex.log[seq].hash, move_bytes))
    return core.act(conn, cid, seq, move_bytes, sig)


def playing(seats: int = 2, bots: int = 0, turn_time: float = 0.0) -> tuple[Shell, list, list]:
    """A started match, dealt: the shell, the people's connections and their keys."""
    shell = Shell(new_core(seats, bots, turn_time))
    conns = [ANA, BO, CY][:seats - bots]
    tokens = [sit(shell, c, c.removeprefix("conn-")) for c in conns]
    for c in conns:
        commit(shell, c)
    for c in conns:
        reveal(shell, c)
    assert shell.core.exchange.phase == "play"
    return shell, conns, tokens


def move(core: TableCore, seat: int) -> list:
    p = core.seats[seat].prompt
    return pick_uniform(p["options"], p["min"], p["max"], random.Random(seat))


def mover(shell: Shell, conns: list) -> tuple[int, str]:
    """The seat of a person who is to act now, and its connection."""
    core = shell.core
    seat = next(i for i in core.engine.to_act(core.state) if core.seats[i].human)
    return seat, conns[seat]


# ---------------------------------------------------------------------- sitting down

def test_people_sit_down_and_the_match_starts_when_every_seat_is_taken():
    shell = Shell(new_core(3, bots=1))
    sit(shell, ANA, "Ana")
    assert shell.core.status == "waiting"
    sit(shell, BO, "Bo")
    assert shell.core.status == "playing" and any(isinstance(e, SaveStart) for e in shell.done)
    assert [m["type"] for m in shell.to(BO)][:2] == ["seated", "status"]
    assert shell.core.seats[2].own_seed is not None            # the server made the computer seat's seed
    assert [r.kind for r in shell.rows] == ["commit"]


def test_sitting_at_a_started_table_is_refused():
    shell = Shell(new_core(2, bots=1))
    sit(shell, ANA, "Ana")
    shell.feed(shell.core.sit(BO, "Bo", key_of(BO).public_key, now=0.0))
    assert shell.answer(BO)["code"] == "started"


def test_a_match_that_cannot_start_freezes_the_table_and_nobody_else_sits_down():
    shell = Shell(new_core(2))
    sit(shell, ANA, "Ana")
    shell.refuse = SaveStart
    sit(shell, BO, "Bo")                                        # the seat is stored, the start is not
    shell.refuse = None
    assert shell.core.frozen == "its match could not be started" and shell.core.status == "waiting"
    shell.feed(shell.core.sit(CY, "Cy", key_of(CY).public_key, now=0.0))
    assert shell.answer(CY)["code"] == "table_full"


@pytest.mark.parametrize("name", ["ana", "BOT 3"])
def test_names_differ_whatever_the_case_computer_seats_included(name):
    shell = Shell(new_core(3, bots=1))
    sit(shell, ANA, "Ana")
    shell.feed(shell.core.sit(BO, name, key_of(BO).public_key, now=0.0))
    assert shell.answer(BO)["code"] == "name_taken"
    assert [s.name for s in shell.core.seats] == ["Ana", None, "Bot 3"]


def test_a_seat_the_store_refuses_is_not_taken():
    shell = Shell(new_core(2))
    shell.refuse = SaveSeats
    shell.feed(shell.core.sit(ANA, "Ana", key_of(ANA).public_key, now=0.0))
    assert shell.answer(ANA)["code"] == "internal_error"
    assert not shell.core.seats[0].taken and shell.core.seats[0].conn is None
    assert not any(m["type"] == "seated" for m in shell.to(ANA))


def test_an_outcome_the_table_does_not_wait_for_is_refused_and_changes_nothing():
    shell = Shell(new_core(2))
    core = shell.core
    with pytest.raises(RuntimeError, match="waits for None"):
        core.stored()                                       # nothing is pending
    effects = core.sit(ANA, "Ana", key_of(ANA).public_key, now=0.0)
    assert isinstance(effects[-1], SaveSeats)
    for wrong in (lambda: core.log_loaded([]), core.log_not_loaded):   # a write is pending, not a read
        with pytest.raises(RuntimeError, match="Seating"):
            wrong()
    assert core.seats[0].conn is None and not shell.to(ANA)
    shell.feed(core.stored())                               # the write's own outcome still counts
    assert [m for m in shell.to(ANA) if m["type"] == "seated"] and core.seats[0].conn == ANA
    with pytest.raises(RuntimeError):
        core.stored()                                       # and only once

@pytest.mark.parametrize("how", ["another key", "another server", "another table", "another seat", "zeros"])
def test_a_claim_not_signed_by_the_seats_key_is_closed_and_changes_nothing(how):
    shell = Shell(new_core(2))
    sit(shell, ANA, "Ana")
    sit(shell, BO, "Bo")
    core, nonce = shell.core, b"n" * 32
    sig = {"another key": key_of(BO).sign(SIG_SEAT, seat_payload(SIGNER.public_key, nonce, core.id, 0)),
           "another server": key_of(ANA).sign(SIG_SEAT, seat_payload(bytes(32), nonce, core.id, 0)),
           "another table": key_of(ANA).sign(SIG_SEAT, seat_payload(SIGNER.public_key, nonce, "t2", 0)),
           "another seat": key_of(ANA).sign(SIG_SEAT, seat_payload(SIGNER.public_key, nonce, core.id, 1)),
           "zeros": bytes(64)}[how]
    effects = shell.feed(core.attach("conn-Eve", 0, 0, nonce, sig, now=1.0))
    assert [type(e) for e in effects] == [Close] and effects[0].code == wire.CLOSE_BAD_HELLO
    assert "not signed by its player's key" in effects[0].reason
    assert shell.core.seats[0].conn == ANA


def test_a_key_takes_one_seat_at_a_table():
    shell = Shell(new_core(3))
    sit(shell, ANA, "Ana")
    shell.feed(shell.core.sit(BO, "Bo", key_of(ANA).public_key, now=0.0))
    assert shell.answer(BO)["code"] == "already_seated"
    assert [s.name for s in shell.core.seats] == ["Ana", None, None]


def test_a_second_connection_with_the_key_replaces_the_first():
    shell = Shell(new_core(2))
    key = sit(shell, ANA, "Ana")
    effects = shell.feed(claim(shell.core, "conn-Ana-2", 0, key, now=1.0))
    assert any(isinstance(e, Close) and e.conn == ANA and e.code == wire.CLOSE_REPLACED for e in effects)
    assert shell.core.seats[0].conn == "conn-Ana-2"


# ---------------------------------------------------------------------- commands

def test_an_accepted_move_is_stored_before_anyone_hears_of_it():
    shell, conns, _ = playing()
    seat, conn = mover(shell, conns)
    effects = act(shell.core, conn, 1, shell.core.seq, move(shell.core, seat))
    assert [type(e) for e in effects] == [AppendRow]            # nothing else until it is stored
    assert effects[0].data["id"] == 1 and effects[0].n == len(shell.rows)
    done = shell.feed(effects)
    assert done[0] is effects[0] and any(isinstance(e, Send) for e in done[1:])
    assert shell.answer(conn) == {"type": "ack", "id": 1}


def test_a_move_signed_with_another_key_than_its_seats_is_rejected_and_changes_nothing():
    shell, conns, _ = playing()
    core = shell.core
    seat, conn = mover(shell, conns)
    other = conns[1 - seat]
    rows, streams = len(shell.rows), [list(s.stream) for s in core.seats]
    shell.feed(act(core, conn, 1, core.seq, move(core, seat), key=key_of(other)))
    answer = shell.answer(conn)
    assert answer["type"] == "reject" and answer["code"] == "bad_signature"
    assert f"not signed by the key of seat {seat}" in answer["message"]
    assert len(shell.rows) == rows and [s.stream for s in core.seats] == streams
    seq, action = core.seq, move(core, seat)
    shell.feed(act(core, conn, 2, seq, action))                      # signed by its own key: taken
    assert shell.answer(conn) == {"type": "ack", "id": 2}
    row = shell.rows[-1].data
    assert row["seen"] == seq and unpack(row["move"]) == action and len(row["sig"]) == 64
    entry = core.exchange.log[-1].body     # the public entry says what the player saw, never the move
    assert entry["seen"] == seq and "move" not in entry and "sig" not in entry


def test_a_resent_command_gets_the_same_answer_and_is_applied_once():
    shell, conns, _ = playing()
    seat, conn = mover(shell, conns)
    seq, action = shell.core.seq, move(shell.core, seat)
    shell.feed(act(shell.core, conn, 1, seq, action))
    rows, seq1 = len(shell.rows), shell.core.seq
    effects = shell.feed(act(shell.core, conn, 1, seq, action))
    assert [decode(e.frame) for e in effects if isinstance(e, Send)] == [{"type": "ack", "id": 1}]
    assert (len(shell.rows), shell.core.seq) == (rows, seq1)


def test_a_command_decided_on_an_old_view_is_stale_and_a_snapshot_follows():
    shell, conns, _ = playing()
    seat, conn = mover(shell, conns)
    asked_at = shell.core.seats[seat].prompt_seq
    effects = shell.feed(act(shell.core, conn, 1, asked_at - 1, move(shell.core, seat)))
    assert shell.answer(conn)["code"] == "stale"
    assert isinstance(effects[-1], Snapshot) and effects[-1].conn == conn
    assert not any(r.kind == "act" for r in shell.rows)


def test_a_command_from_a_view_the_table_never_had_is_refused():
    shell, conns, _ = playing()
    seat, conn = mover(shell, conns)
    shell.feed(act(shell.core, conn, 1, 10**6, move(shell.core, seat)))
    assert shell.answer(conn)["code"] == "bad_seq"


def test_a_command_out_of_turn_is_refused_and_changes_nothing():
    shell, conns, _ = playing()
    core = shell.core
    # the round starts with the governor's role: the other seat is not to act
    idle = next(i for i, s in enumerate(core.seats) if i not in core.engine.to_act(core.state))
    seq = core.seq
    effects = shell.feed(act(core, conns[idle], 1, seq, move(core, mover(shell, conns)[0])))
    assert shell.answer(conns[idle])["code"] == "not_your_turn"
    assert not any(isinstance(e, AppendRow) for e in effects) and core.seq == seq


def test_a_command_without_a_seat_is_refused():
    shell, _, _ = playing()
    shell.feed(act(shell.core, CY, 1, 0, []))
    assert shell.answer(CY)["code"] == "not_seated"


def test_a_failed_write_changes_nothing_and_is_answered_with_a_reject():
    shell, conns, _ = playing()
    core = shell.core
    seat, conn = mover(shell, conns)
    before = (core.seq, core.nrows, [len(s.stream) for s in core.seats], core.seats[seat].prompt)
    shell.refuse = AppendRow
    effects = shell.feed(act(core, conn, 1, core.seq, move(core, seat)))
    shell.refuse = None
    assert [type(e) for e in effects[:2]] == [AppendRow, LoadLog]   # refused: rebuilt from the log
    assert shell.answer(conn)["code"] == "internal_error"
    assert (core.seq, core.nrows, [len(s.stream) for s in core.seats], core.seats[seat].prompt) == before
    assert not any(isinstance(e, Send) and decode(e.frame)["type"] in ("entry", "private") for e in effects)
    shell.feed(act(core, conn, 1, core.seq, move(core, seat)))       # the same command: the same answer
    assert shell.answer(conn)["code"] == "internal_error"
    shell.feed(act(core, conn, 2, core.seq, move(core, seat)))       # a new one goes through
    assert shell.answer(conn) == {"type": "ack", "id": 2} and not core.frozen


def test_a_resent_commitment_changes_nothing():
    shell = Shell(new_core(2))
    sit(shell, ANA, "Ana")
    sit(shell, BO, "Bo")
    commit(shell, ANA)
    assert commit(shell, ANA) == [] and len(shell.rows) == 1


# ---------------------------------------------------------------------- players away, clocks

def test_after_the_grace_period_a_bot_plays_the_seat_until_its_player_returns():
    shell, conns, tokens = playing()
    core = shell.core
    seat, conn = mover(shell, conns)
    effects = shell.feed(core.detach(conn, now=5.0))
    [grace] = [e.key for e in effects if isinstance(e, StartTimer)]
    assert grace == GraceTimer(seat, core.seats[seat].epoch)
    effects = shell.fire(grace)
    assert core.seats[seat].standin
    assert shell.to(conns[1 - seat])[-1]["seats"][seat]["standin"] is True
    [ask] = [e for e in effects if isinstance(e, AskBot)]
    assert ask.seat == seat and ask.view["prompt"] == core.seats[seat].prompt
    effects = shell.feed(core.bot_moved(seat, ask.key, move(core, seat)))
    assert [r.seat for r in shell.rows if r.kind == "act"] == [seat]
    shell.feed(claim(core, conn, seat, tokens[seat], now=9.0))
    assert not core.seats[seat].standin and core.seats[seat].conn == conn
    assert shell.fire(grace) == []                                  # a late timer changes nothing


def test_a_return_within_the_grace_period_cancels_it():
    shell, conns, tokens = playing()
    shell.feed(shell.core.detach(ANA, now=5.0))
    grace = next(iter(shell.timers))
    effects = shell.feed(claim(shell.core, ANA, 0, tokens[0], now=6.0))
    assert CancelTimer(grace) in effects and not shell.timers
    assert shell.fire(grace) == [] and not shell.core.seats[0].standin


def test_a_question_out_of_time_is_answered_by_the_bot_and_the_player_keeps_the_seat():
    shell, conns, _ = playing(turn_time=30.0)
    core = shell.core
    seat, conn = mover(shell, conns)
    clock = TurnClock(seat, core.seats[seat].prompt_seq)
    assert clock in shell.timers
    effects = shell.fire(clock)
    assert shell.to(conn)[-1]["seats"][seat]["out_of_time"] is True
    [ask] = [e for e in effects if isinstance(e, AskBot)]
    shell.feed(core.bot_moved(seat, ask.key, move(core, seat)))
    assert [r.seat for r in shell.rows if r.kind == "act"] == [seat]
    assert core.seats[seat].conn == conn and not core.seats[seat].out_of_time


def test_a_seat_is_told_its_clock_as_it_starts_and_again_when_it_comes_back():
    """The core reads no clock: it asks its shell to tell the seat what the timer has left
    (TellClock), right after starting it, and after the snapshot of a seat that reconnects."""
    shell, conns, tokens = playing(turn_time=30.0)
    core = shell.core
    seat, conn = mover(shell, conns)
    clock = TurnClock(seat, core.seats[seat].prompt_seq)
    started = shell.done.index(StartTimer(clock, 30.0))
    assert any(isinstance(e, TellClock) and e.conn == conn and e.key == clock for e in shell.done[started:])
    shell.feed(core.detach(conn, now=5.0))
    effects = shell.feed(claim(core, conn, seat, tokens[seat], now=6.0))
    told = [i for i, e in enumerate(effects) if isinstance(e, TellClock)]
    snap = [i for i, e in enumerate(effects) if isinstance(e, Snapshot)]
    assert told and snap and snap[0] < told[0] and effects[told[0]].key == clock    # the same clock, running on
    assert StartTimer(clock, 30.0) not in effects                                  # not started again


def test_no_clock_is_told_without_a_turn_time():
    shell, conns, _ = playing()
    assert not any(isinstance(e, TellClock) for e in shell.done)


def test_a_bot_that_fails_plays_a_random_move():
    shell, conns, _ = playing(3, bots=1)
    core = shell.core
    for cid in range(100):
        if 2 in core.engine.to_act(core.state):
            break
        seat, conn = mover(shell, conns)
        shell.feed(act(core, conn, cid, core.seq, move(core, seat)))
    ask = [e for e in shell.done if isinstance(e, AskBot) and e.seat == 2][-1]
    rows = len(shell.rows)
    shell.feed(core.bot_moved(2, ask.key, None))
    assert shell.rows[rows].seat == 2 and not core.frozen


def test_a_seed_held_back_cancels_the_match():
    shell = Shell(new_core(2, turn_time=30.0))
    sit(shell, ANA, "Ana")
    sit(shell, BO, "Bo")
    commit(shell, ANA)
    assert PhaseClock("commit") in shell.timers
    shell.fire(PhaseClock("commit"))
    assert shell.core.status == "cancelled" and shell.rows[-1].kind == "cancel"
    assert shell.rows[-1].data["reason"] == "Bo did not commit to their seed within 30 s"
    entries = [unpack(m["payload"]) for m in shell.to(ANA) if m["type"] == "entry"]
    assert entries[-1]["t"] == "cancel"                         # every seed is revealed in it


def test_the_server_makes_the_seed_of_a_player_gone_before_committing():
    shell = Shell(new_core(2, turn_time=30.0))
    sit(shell, ANA, "Ana")
    shell.feed(shell.core.detach(ANA, now=1.0))
    sit(shell, BO, "Bo")                                       # the match starts without Ana
    grace = GraceTimer(0, shell.core.seats[0].epoch)
    assert grace in shell.timers
    shell.fire(grace)
    assert shell.rows[0].kind == "commit" and shell.rows[0].seat == 0 and "seed" in shell.rows[0].data
    assert shell.to(BO)[-1]["seats"][0]["server_seed"] is True
    commit(shell, BO)
    reveal(shell, BO)
    assert shell.core.exchange.phase == "play"                 # the server revealed Ana's seed too


def test_a_player_gone_after_committing_cancels_the_match_in_the_reveal():
    shell = Shell(new_core(2))
    sit(shell, ANA, "Ana")
    sit(shell, BO, "Bo")
    commit(shell, ANA)
    commit(shell, BO)
    shell.feed(shell.core.detach(ANA, now=1.0))
    shell.fire(GraceTimer(0, shell.core.seats[0].epoch))
    assert shell.core.status == "cancelled"
    assert shell.rows[-1].data["reason"] == "Ana did not reveal their seed in time"


# ---------------------------------------------------------------------- failures and restarts

def test_a_move_the_rules_fail_on_is_rejected_and_the_match_rebuilt_from_its_log(monkeypatch):
    shell, conns, _ = playing()
    core = shell.core
    seat, conn = mover(shell, conns)
    streams = [list(s.stream) for s in core.seats]

    def broken(seat, seen, move, sig):
        raise RuntimeError("a bug in the rules")

    monkeypatch.setattr(core.exchange, "act_signed", broken)
    effects = shell.feed(act(core, conn, 1, core.seq, move(core, seat)))
    assert isinstance(effects[0], LoadLog) and shell.answer(conn)["code"] == "internal_error"
    assert [s.stream for s in core.seats] == streams and core.internal_errors == 1 and not core.frozen
    shell.feed(act(core, conn, 2, core.seq, move(core, seat)))    # the rebuilt match is not the patched one
    assert shell.answer(conn) == {"type": "ack", "id": 2}


def test_a_restarted_table_rebuilds_its_match_from_the_log_byte_for_byte():
    shell, conns, tokens = playing()
    core = shell.core
    seat, conn = mover(shell, conns)
    shell.feed(act(core, conn, 1, core.seq, move(core, seat)))
    row = TableRow(core.id, core.game, core.options, core.bot_level, [s.record() for s in core.seats],
                   core.game_id, core.server_seed, core.status, core.created, started=core.started_at)
    again = Shell(TableCore(row, SIGNER, grace=60.0))
    again.rows = list(shell.rows)
    effects = again.feed(again.core.restore())
    assert isinstance(effects[0], LoadLog) and again.core.seq == core.seq
    assert [s.stream for s in again.core.seats] == [s.stream for s in core.seats]
    assert {GraceTimer(i, 0) for i in range(2)} == again.timers   # nobody is connected yet
    again.feed(claim(again.core, conn, seat, tokens[seat], now=1.0))
    again.feed(act(again.core, conn, 1, 0, []))                    # answered before the restart: the same answer
    assert again.answer(conn) == {"type": "ack", "id": 1}


def reachable(root) -> list:
    """Every object the garbage collector would walk from `root` (modules and classes aside, and
    the modules' namespaces a function reaches through its globals: what other tests left there
    is not the table's)."""
    namespaces = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
    seen, stack, out = set(), [root], []
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, (type, type(gc))) or id(o) in namespaces or not gc.is_tracked(o):
            continue
        seen.add(id(o))
        out.append(o)
        stack.extend(gc.get_referents(o))
    return out


def test_a_finished_match_rebuilt_from_its_log_keeps_what_it_shows_and_no_more():
    shell, conns, _ = playing()
    core = shell.core
    rng = random.Random(0)   # one stream for the whole match: the same pick at every prompt may never end it
    for _ in range(5_000):
        if core.status != "playing":
            break
        seat, conn = mover(shell, conns)
        p = core.seats[seat].prompt
        shell.feed(act(core, conn, len(shell.rows), core.seq, pick_uniform(p["options"], p["min"], p["max"], rng)))
    assert core.status == "over"
    shown = [e for effect in shell.done if isinstance(effect, Show) for e in effect.events]
    assert len(shown) > EVENTS_IN_SNAPSHOT
    row = TableRow(core.id, core.game, core.options, core.bot_level, [s.record() for s in core.seats],
                   core.game_id, core.server_seed, core.status, core.created, started=core.started_at)
    again = Shell(TableCore(row, SIGNER, grace=60.0))
    again.rows = list(shell.rows)
    again.feed(again.core.restore())
    for c in (core, again.core):   # the latest public events, as a snapshot carries them
        assert list(c.latest_events) == shown[-EVENTS_IN_SNAPSHOT:]
    assert [(s.stream, s.prompt) for s in again.core.seats] == [(s.stream, s.prompt) for s in core.seats]
    # A table is walked by the collector's passes: of the match's events it keeps the last move's
    # (the exchange's), no older one, and those a snapshot shows as maps of words the collector
    # does not track.
    kept = {id(o) for o in reachable(again.core) if isinstance(o, Event)}
    assert kept <= {id(e) for e in again.core.exchange.last_events}
    assert not any(gc.is_tracked(e) for c in (core, again.core) for e in c.latest_events)


def test_the_signed_messages_a_seat_is_sent_are_padded_like_every_frame_that_can_carry_its_cards():
    """Issue 11: the table sends its private messages (the dealt hand, the draws) through
    wire.encode, so they fill a size class whatever cards they name; entries carry nothing
    hidden and go out as they are."""
    shell, conns, _ = playing(2)
    sent = [(e.conn, f) for e in shell.done if isinstance(e, (Send, SendBacklog))
            for f in ([e.frame] if isinstance(e, Send) else e.frames)]
    privates = [f for c, f in sent if c == ANA and unpack(f)["type"] == "private"]
    assert privates and all(len(f) == wire.PADDED["private"] for f in privates)
    entries = [f for c, f in sent if c == ANA and unpack(f)["type"] == "entry"]
    assert entries and all("pad" not in unpack(f) for f in entries)


OPERATOR = "conn-operator"


def test_a_closed_match_is_cancelled_in_the_store_before_anyone_is_told():
    shell, conns, _ = playing()
    effects = shell.feed(shell.core.close(OPERATOR, "testing"))
    assert isinstance(effects[0], AppendRow) and effects[0].kind == "cancel" and effects[0].status == "cancelled"
    assert shell.rows[-1].data == {"reason": "closed by the server's operator: testing"}
    assert shell.core.status == "cancelled" and shell.core.exchange.phase == "cancelled"
    for conn in conns:
        told = shell.to(conn)[-3:]
        assert [m["type"] for m in told] == ["entry", "status", "error"] and told[-1]["code"] == "table_closed"
    assert shell.to(OPERATOR) == [{"type": "operator_closed", "table": "t1"}]


def test_a_close_the_store_refuses_leaves_the_table_open():
    shell, conns, _ = playing()
    shell.refuse = AppendRow
    shell.feed(shell.core.close(OPERATOR, ""))
    shell.refuse = None
    assert shell.answer(OPERATOR)["code"] == "internal_error"
    assert shell.core.status == "playing" and shell.core.exchange.phase == "play" and not shell.core.frozen
    assert not any(m["type"] == "error" for m in shell.to(conns[0]))


def test_a_frozen_or_finished_table_is_not_closed():
    shell = Shell(new_core(2))
    sit(shell, ANA, "Ana")
    shell.refuse = SaveStart
    sit(shell, BO, "Bo")
    shell.refuse = None
    shell.feed(shell.core.close(OPERATOR, ""))
    assert shell.answer(OPERATOR)["code"] == "table_frozen" and shell.core.status == "waiting"
    shell, _, _ = playing()
    shell.feed(shell.core.close(OPERATOR, ""))
    shell.feed(shell.core.close(OPERATOR, ""))
    assert shell.answer(OPERATOR)["code"] == "no_table"
