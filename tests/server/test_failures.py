"""Failures inside the server: a player key whose seat was given away, bots and server moves that
fail, command handlers that raise, a database that refuses a write, tables abandoned or finished,
answers queued before a close, and a bot worker process that dies."""
from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import games
from server import table_core
from protocol import wire
from protocol.codec import pack
from protocol.signing import Signer
from protocol.exchange import ServerExchange
from protocol.fairness import local_streams
from server import deciders
from server.deciders import Deciders
from server.metrics import exposition

from .rawclient import Closed, Raw, new_key, play_all
from .test_limits import _no_act
from .test_resilience import table_with

SKIP = ("status", "delta", "entry", "private")


async def next_of(p, kind: str) -> dict:
    """Handle a seat player's messages until one of `kind` comes; that one."""
    while True:
        msg = await p.step()
        if msg["type"] == kind:
            return msg


async def quiet_start(server, seats: int = 2):
    """A started match whose players answer the exchange but make no move; the one to move first."""
    table, players = await table_with(server.url, seats)
    for p in players:
        p.maybe_act = _no_act(p)
    await asyncio.gather(*(p.play(until=lambda p: p.view is not None) for p in players))
    mover = next(p for p in players if p.seat in p.view["to_act"])
    return table, players, mover


async def act(p, cid: int) -> dict:
    """Send a move decided on the player's view; the answer."""
    p.pending = p.act_message(cid, p.seq, p.bot.choose(p.view))
    await p.raw.send(p.pending)
    while True:
        msg = await p.step()
        if msg["type"] in ("ack", "reject"):
            return msg


def frozen(p) -> bool:
    return any(e["code"] in ("table_frozen", "internal_error") for e in p.errors)


# ---------------------------------------------------------------------- 1. claiming a seat

async def test_a_key_whose_seat_was_given_away_meanwhile_does_not_take_it(server, monkeypatch):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(3)
    ana = await Raw.connect(server.url)
    ana_key = Signer.generate()
    await ana.send({"type": "sit", "table": table, "name": "Ana", "key": ana_key.public_key})
    assert (await ana.expect("seated"))["seat"] == 0
    # the table's task waits on a slow database while Ana leaves, Bo sits, and Ana's key claims the seat
    gate, real = asyncio.Event(), server.store.update_seats

    async def slow(*args):
        await gate.wait()
        return await real(*args)

    monkeypatch.setattr(server.store, "update_seats", slow)
    cy = await Raw.connect(server.url)
    await cy.send({"type": "sit", "table": table, "name": "Cy", "key": new_key()})
    await asyncio.sleep(0.05)
    monkeypatch.setattr(server.store, "update_seats", real)
    await ana.send({"type": "leave"})
    await asyncio.sleep(0.05)
    bo = await Raw.connect(server.url)
    await bo.send({"type": "sit", "table": table, "name": "Bo", "key": new_key()})
    await asyncio.sleep(0.05)
    thief = await Raw.connect(server.url, claim=(table, 0, ana_key))   # still Ana's when it says hello
    gate.set()
    assert (await bo.expect("seated"))["seat"] == 0      # Ana's old seat is Bo's now
    code, _ = await thief.closed(timeout=5)
    assert code == wire.CLOSE_BAD_HELLO
    seat = server.tables[table].seats[0]
    assert seat.name == "Bo" and seat.conn is not None and seat.conn.table is server.tables[table]
    await bo.send({"type": "list"})
    await bo.expect("tables")                              # Bo was not replaced


# ---------------------------------------------------------------------- 2. the server's own moves

async def test_a_bot_whose_decision_fails_plays_a_random_move_and_the_table_is_told(server, monkeypatch, caplog):
    """Every decision of the bot raises, in the worker and again in the thread it is retried in:
    each time the table is told in words that name no card (the exception's text is not shown),
    /metrics counts it, and the match goes on to a verified end."""
    tried = []

    def broken_bot(level, seed, view, seconds=None):
        tried.append(level)
        raise KeyError("Silver smelter")      # what a careless bot's error could hold

    monkeypatch.setattr(deciders, "decide", broken_bot)
    table, (ana,) = await table_with(server.url, 2, bots=1)
    await play_all([ana], timeout=20)
    assert ana.report.ok, ana.report.text()
    assert ana.errors == [] and not server.tables[table].core.frozen
    failures = [n for n in ana.notices if n["code"] == "bot_failed"]
    assert failures and len(failures) == len(tried)     # one notice per failed decision
    assert all(n["message"].startswith("Bot 2 (random) failed: it raised KeyError; a random move")
               and "Silver" not in n["message"] for n in failures), failures[0]
    metrics = exposition(server)
    assert f'governor_bot_failures_total{{level="random"}} {len(failures)}' in metrics
    # Logged at error level by name, never with the error's text (`governor play` logs where its host reads).
    errors = [r for r in caplog.records if r.levelname == "ERROR" and "bot of seat" in r.getMessage()]
    assert errors and all("KeyError" in r.getMessage() and "Silver" not in r.getMessage() and not r.exc_info
                          for r in errors), [r.getMessage() for r in errors]


async def test_a_bot_that_cannot_move_at_all_freezes_the_table_and_says_so(server, monkeypatch):
    def no_workers(*args):
        raise RuntimeError("no bot workers can be started")

    monkeypatch.setattr(server.deciders, "submit", no_workers)
    monkeypatch.setattr(table_core, "pick_uniform", lambda *args: ["no such move"])
    table, (ana,) = await table_with(server.url, 2, bots=1)
    await ana.play(until=frozen, timeout=15)
    assert [e["code"] for e in ana.errors] == ["table_frozen"], ana.errors
    assert server.tables[table].core.frozen
    assert ana.status["frozen"]                        # the table's status says so too
    await ana.raw.send(ana.act_message(99, ana.seq, []))
    rej = await ana.raw.expect("reject", skip=SKIP + ("snapshot",))
    assert rej["code"] == "internal_error" and "frozen" in rej["message"]


async def test_an_accepted_commitment_is_never_answered_with_an_internal_error(server, monkeypatch):
    real = ServerExchange.reveal

    def reveal(self, seat, seed, sig=None):   # the server fails to reveal the bot's seed, after Ana's commit
        if seat == 1:
            raise RuntimeError("a bug in the exchange")
        return real(self, seat, seed, sig)

    monkeypatch.setattr(ServerExchange, "reveal", reveal)
    table, (ana,) = await table_with(server.url, 2, bots=1)
    await ana.play(until=frozen, timeout=10)
    assert [e["code"] for e in ana.errors] == ["table_frozen"], ana.errors
    assert server.tables[table].core.frozen


# ---------------------------------------------------------------------- 3. every command is answered

async def test_a_command_whose_handler_fails_is_rejected_and_changes_nothing(server):
    table, players, mover = await quiet_start(server)
    t = server.tables[table].core
    seat = t.seats[mover.seat]

    def broken(cid):
        raise RuntimeError("a bug in the handler")

    seat.answer = broken
    seq, rows = t.seq, t.nrows
    rej = await asyncio.wait_for(act(mover, 1), 5)
    assert rej["type"] == "reject" and rej["id"] == 1
    assert rej["code"] == "internal_error" and rej["message"]
    assert (t.seq, t.nrows) == (seq, rows)
    del seat.answer
    assert (await act(mover, 2))["type"] == "ack"
    for p in players:
        del p.maybe_act
    await play_all(players)
    assert all(p.report.ok for p in players)


# ---------------------------------------------------------------------- 4. a failed write

async def test_a_failed_write_undoes_the_move_which_no_one_is_shown(server, monkeypatch):
    table, players, mover = await quiet_start(server)
    t = server.tables[table].core
    real, failed = server.store.append, []

    async def append(*args, **kw):
        if not failed:
            failed.append(args)
            raise sqlite3.OperationalError("disk I/O error")
        return await real(*args, **kw)

    monkeypatch.setattr(server.store, "append", append)
    view, seq = mover.view, mover.seq
    rej = await act(mover, 1)
    assert failed and rej["type"] == "reject" and rej["code"] == "internal_error"
    assert len(await server.store.log(table)) == t.nrows
    await mover.raw.send({"type": "resync"})
    snap = await next_of(mover, "snapshot")
    assert snap["seq"] == seq and snap["view"] == view   # the move is not in the log, so not shown
    assert (await act(mover, 2))["type"] == "ack"         # and the table lives on
    for p in players:
        del p.maybe_act
    await play_all(players)
    assert all(p.report.ok for p in players)
    assert len(await server.store.log(table)) == t.nrows


# ---------------------------------------------------------------------- 5. and 6. tables leave

async def test_a_waiting_table_everyone_left_is_closed_after_a_while(make_server):
    server = await make_server(idle_table=1.0, max_tables=2)
    lobby = await Raw.connect(server.url)
    ana, bo = await Raw.connect(server.url), await Raw.connect(server.url)
    kept, left = await lobby.create(2), await lobby.create(2)
    await ana.send({"type": "sit", "table": kept, "name": "Ana", "key": new_key()})
    await ana.expect("seated")
    await bo.send({"type": "sit", "table": left, "name": "Bo", "key": new_key()})
    await bo.expect("seated")
    await bo.close()                                   # Bo sat down and went away
    for _ in range(100):                               # a second after, and a loaded machine's slack
        await lobby.send({"type": "list"})
        status = {t["id"]: t["status"] for t in (await lobby.expect("tables"))["tables"]}
        if status[left] != "waiting":
            break
        await asyncio.sleep(0.1)
    assert status == {kept: "waiting", left: "cancelled"}
    await lobby.create(2)                              # the table limit is free again


async def unloaded(server, table: str) -> None:
    """Wait (at most 2 s) until a finished table has left the server's memory."""
    for _ in range(200):
        if table not in server.tables:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"table {table} is still in memory")


async def test_a_finished_table_nobody_is_at_leaves_memory_and_is_rebuilt_on_demand(make_server):
    server = await make_server(finished_cache=0)   # nothing kept built: the match is replayed from its log
    table, (ana, bo) = await table_with(server.url, 2)
    await play_all([ana, bo])
    task = server.tables[table].task
    await ana.drop()
    await bo.drop()
    await unloaded(server, table)
    assert task.done()
    assert table not in server.tables
    lobby = await Raw.connect(server.url)
    await lobby.send({"type": "list"})
    [t] = [t for t in (await lobby.expect("tables"))["tables"] if t["id"] == table]
    assert t["status"] == "over" and t["seats"][0]["name"] == "Ana"
    await lobby.send({"type": "watch", "table": table})
    assert (await lobby.expect("snapshot", skip=("status", "entry")))["view"]["over"]
    again = await Raw.connect(server.url, claim=bo.claim, have=len(bo.px.record))
    assert (await again.expect("snapshot"))["view"]["over"]
    assert server.tables[table].seats[bo.seat].conn is not None
    await lobby.close()
    await again.close()
    await unloaded(server, table)


# ---------------------------------------------------------------------- 7. the last frames

async def test_answers_queued_before_a_violation_go_out_before_the_close(server):
    lobby = await Raw.connect(server.url)
    for _ in range(90):                                # listings of some 20 kB each
        await lobby.create(4)
    # a client that reads nothing for now: the replies queue up in its outbox
    raw = await Raw.connect(server.url, rcvbuf=4096, max_queue=1)
    n = 200
    for _ in range(n):
        await raw.send({"type": "list"})
    await raw.send_raw(b"\xc1")
    await asyncio.sleep(0.2)
    got = 0
    try:
        while True:
            got += (await raw.recv())["type"] == "tables"
    except Closed as e:
        assert e.code == wire.CLOSE_BAD_FRAME
    assert got == n


async def test_a_message_that_comes_while_a_request_waits_is_answered_after_it(server):
    """A connection's messages are answered in the order they were read, even behind a request
    that waits for something (here a table looked for in the store)."""
    raw = await Raw.connect(server.url)
    for _ in range(3):
        await raw.send({"type": "watch", "table": "nosuch"})
        await raw.send({"type": "list"})
        await raw.send({"type": "act", "id": 7, "seq": 0, "move": pack([0]), "sig": bytes(64)})
    answers = [await raw.recv() for _ in range(9)]
    assert [(m["type"], m.get("code")) for m in answers] == \
        [("error", "no_table"), ("tables", None), ("reject", "not_seated")] * 3
    await raw.close()


# ---------------------------------------------------------------------- 8. bot worker processes

async def test_a_dead_bot_worker_loses_no_decision():
    engine = games.get("sanjuan")
    state = engine.setup(["a", "b"], {}, local_streams(0))
    seat = engine.to_act(state)[0]
    view = engine.view(state, seat)
    deciders = Deciders(workers=2, processes=True, seconds=1.0)
    try:
        futs = [deciders.submit("ismcts", i, view) for i in range(3)]
        for _ in range(500):
            if deciders._pool is not None and deciders._pool._processes:
                break
            await asyncio.sleep(0.01)
        os.kill(next(iter(deciders._pool._processes)), signal.SIGKILL)  # every decision in flight fails with it
        actions = await asyncio.wait_for(asyncio.gather(*futs), 30)
        assert all(isinstance(a, list) for a in actions)     # each was made again, on a fresh pool
        assert deciders.failures == 1 and deciders.processes
    finally:
        deciders.shutdown()


# The full-screen client runs the server under Textual, whose sys.stderr is a capture with no
# descriptor (fileno() is -1). Starting a worker then once failed in multiprocessing's resource
# tracker, and every bot played random moves. Run in a fresh interpreter, where no tracker runs yet.
NO_DESCRIPTOR_STDERR = """
import asyncio, io, sys
import games
from protocol.fairness import local_streams
from server.deciders import Deciders

class Capture(io.StringIO):
    def fileno(self):
        return -1

async def main():
    engine = games.get("sanjuan")
    state = engine.setup(["a", "b"], {}, local_streams(0))
    view = engine.view(state, engine.to_act(state)[0])
    pool = Deciders(workers=1, processes=True, seconds=0.1)
    real, sys.stderr = sys.stderr, Capture()
    try:
        action = await asyncio.wait_for(pool.submit("ismcts", 1, view), 60)
        where = "process" if pool._pool is not None and pool._pool._processes else "none"
    finally:
        sys.stderr = real
        pool.shutdown()
    print(where, pool.failures, pool.thread_decisions, isinstance(action, list))

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_bots_think_in_worker_processes_under_a_stderr_without_a_descriptor(tmp_path):
    script = tmp_path / "no_descriptor.py"
    script.write_text(NO_DESCRIPTOR_STDERR)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parents[2])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["process", "0", "0", "True"], out.stdout + out.stderr


async def test_a_pool_that_cannot_start_is_replaced_then_the_decision_is_made_in_a_thread(monkeypatch, caplog):
    engine = games.get("sanjuan")
    state = engine.setup(["a", "b"], {}, local_streams(0))
    view = engine.view(state, engine.to_act(state)[0])
    pool = Deciders(workers=1, processes=True, seconds=0.1)

    def cannot_start():
        raise ValueError("bad value(s) in fds_to_keep")

    monkeypatch.setattr(deciders, "_tracker_running", cannot_start)
    try:
        first = await asyncio.wait_for(pool.submit("ismcts", 1, view), 30)
        second = await asyncio.wait_for(pool.submit("ismcts", 2, view), 30)
    finally:
        pool.shutdown()
    assert isinstance(first, list) and isinstance(second, list)    # made, in a thread
    assert pool.failures == 2 and pool.fell_back and pool.thread_decisions == 2
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("a new one will be started" in e for e in errors)
    assert any("bots think in threads from now on" in e for e in errors)
