"""Protocol violations close with a clear code and reason; refused requests and commands are
answered as data; limits hold; one broken table or one slow client harms nobody else."""
from __future__ import annotations

import asyncio
import random
import resource
import socket
import time
import types

import pytest
from websockets.exceptions import InvalidMessage

from protocol import wire
from protocol.codec import pack
from protocol.diff import view_hash
from protocol.exchange import PlayerExchange
from protocol.messages import Signed
from server import app as server_app
from server.app import HELLO_SPREAD, raise_file_limit
from server.metrics import exposition
from server.conn import CLOSE_OVERFLOW

from .rawclient import PATIENCE, Closed, Raw, SeatPlayer, new_key, play_all, until
from .test_resilience import table_with

# What a seat is sent as the match goes on, besides the answers a test waits for.
MATCH_NEWS = ("status", "delta", "entry", "private", "clock")


# ---------------------------------------------------------------------- frames

@pytest.mark.parametrize("frame,reason", [
    (b"\xc1\x00\x01", "not a valid msgpack"),
    (b"\x93\x01\x02", "not a valid msgpack"),           # a truncated array
    (pack([1, 2, 3]), "a msgpack map"),
    (pack({"type": "teleport"}), "unknown message type"),
    (pack({"type": "act", "id": 1, "seq": 0, "sig": bytes(64)}), "needs the field 'move'"),
    (pack({"type": "act", "id": 1, "seq": 0, "move": pack([1]), "sig": bytes(65)}), "must be a 64-byte signature"),
    (pack({"type": "act", "id": 1, "seq": 0, "move": pack([1]), "sig": bytes(63)}), "must be a 64-byte signature"),
    (pack({"type": "act", "id": 1, "seq": 0, "move": pack([1]), "sig": bytes(60 << 10)}), "must be a 64-byte"),
    (pack({"type": "act", "id": 1, "seq": 0, "move": pack([1]), "sig": "text"}), "'sig' of a act message must be bytes"),
    (pack({"type": "act", "id": 1, "seq": 0, "move": b"\xc1", "sig": bytes(64)}), "the move of an act is not msgpack"),
    (pack({"type": "act", "id": 1, "seq": 0, "move": pack({"a": 1}), "sig": bytes(64)}), "a list of options"),
    (pack({"type": "commit", "commitment": bytes(32), "sig": bytes(10)}), "must be a 64-byte signature"),
    (pack({"type": "reveal", "seed": bytes(32)}), "needs the field 'sig'"),
    (pack({"type": "claim", "sig": bytes(64)}), "claim comes only first"),
    (pack({"type": "sit", "table": "t", "name": "x", "key": bytes(31)}), "must be a 32-byte public key"),
    # A fixed key: a parameter's bytes name its test, which must be the same in every xdist worker.
    (pack({"type": "sit", "table": 5, "name": "x", "key": bytes(range(32))}), "'table' of a sit message must be str"),
    ("{\"type\": \"list\"}", "text frames"),
])
async def test_malformed_frames_close_with_bad_frame_and_the_reason(server, frame, reason):
    raw = await Raw.connect(server.url)
    await raw.send_raw(frame)
    code, why = await raw.closed()
    assert code == wire.CLOSE_BAD_FRAME and reason in why, (code, why)


async def test_garbage_instead_of_a_hello_is_a_bad_frame(server):
    raw = await Raw.connect(server.url, hello=False)
    await raw.send_raw(b"\xff" * 10)
    code, why = await raw.closed()
    assert code == wire.CLOSE_BAD_FRAME and "msgpack" in why


async def test_an_oversized_frame_is_refused_by_the_frame_limit(server):
    raw = await Raw.connect(server.url)
    await raw.send_raw(pack({"type": "list", "pad": b"x" * wire.MAX_FRAME}))
    code, _ = await raw.closed()
    assert code == 1009  # "message too big": websockets enforces max_size = wire.MAX_FRAME


@pytest.mark.parametrize("hello,reason", [
    ({"type": "list"}, "first message must be a hello"),
    ({"type": "hello", "version": "governor/4"}, f"protocol 'governor/4' is not spoken here: this server speaks "
                                                 f"{wire.VERSION}"),
    ({"type": "hello", "version": wire.VERSION, "table": "nope", "seat": 0}, "there is no table 'nope'"),
    ({"type": "hello", "version": wire.VERSION, "table": "nope"}, "names the seat too"),
])
async def test_a_bad_hello_closes_with_bad_hello(server, hello, reason):
    raw = await Raw.connect(server.url, hello=False)
    await raw.send(hello)
    code, why = await raw.closed()
    assert code == wire.CLOSE_BAD_HELLO and reason in why, (code, why)


async def test_a_second_hello_is_a_bad_frame(server):
    raw = await Raw.connect(server.url)
    await raw.send({"type": "hello", "version": wire.VERSION})
    code, _ = await raw.closed()
    assert code == wire.CLOSE_BAD_FRAME


async def test_a_missing_hello_times_out(make_server):
    server = await make_server(hello_timeout=0.2)
    raw = await Raw.connect(server.url, hello=False)
    code, _ = await raw.closed()
    assert code == wire.CLOSE_BAD_HELLO


# ---------------------------------------------------------------------- rates and counts

async def test_flooding_closes_the_connection(make_server):
    server = await make_server(rate=20.0, burst=40)
    raw = await Raw.connect(server.url, max_queue=None)  # reads the close frame however many replies wait
    try:
        for _ in range(200):
            await raw.send({"type": "list"})
    except Closed:
        pass
    code, reason = await raw.closed()
    assert code == wire.CLOSE_FLOODING, (code, reason)
    # a client within the rate is fine
    calm = await Raw.connect(server.url)
    for _ in range(30):
        await calm.send({"type": "list"})
        await calm.expect("tables")


async def test_connections_per_address_are_limited(make_server):
    server = await make_server(conns_per_addr=3)
    conns = [await Raw.connect(server.url) for _ in range(3)]
    extra = await Raw.connect(server.url, hello=False)
    code, _ = await extra.closed()
    assert code == wire.CLOSE_TOO_MANY
    await conns[0].close()
    await until(lambda: server._per_addr["127.0.0.1"] == 2)     # the server has seen it go
    await Raw.connect(server.url)  # a freed slot can be used again


async def test_a_socket_that_never_opens_the_websocket_is_cut_after_the_hello_timeout(make_server):
    server = await make_server(hello_timeout=0.3)
    loop = asyncio.get_running_loop()
    start = loop.time()         # before the accept, from which the server counts its deadline
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:        # the deadline is patience, not a claim of speed
        assert await asyncio.wait_for(reader.read(1), PATIENCE) == b""
    except ConnectionResetError:
        pass
    assert loop.time() - start >= 0.3      # cut by its hello deadline, not before it
    writer.close()
    await until(lambda: server.connections == 0)


async def test_idle_sockets_opened_together_are_cut_apart_and_hold_no_handshake(make_server, monkeypatch):
    """900 idle sockets cut at the same instant once held every table's moves for a moment: each
    gets a deadline of its own, between hello_timeout and HELLO_SPREAD times it, and until it
    says a word websockets has nothing of it to run."""
    draws = []      # each connection's deadline, in hello timeouts from its accept

    def uniform(a: float, b: float) -> float:
        draws.append(random.uniform(a, b))
        return draws[-1]
    monkeypatch.setattr(server_app, "random", types.SimpleNamespace(uniform=uniform))
    server = await make_server(hello_timeout=1.0)
    loop = asyncio.get_running_loop()
    opened = loop.time()        # before the first accept
    idle = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(20)]
    await until(lambda: server.connections == 20)
    all_in = loop.time()        # after the last accept
    assert not server._ws.handler_tasks       # no handshake waits for them
    assert len(draws) == 20 and all(1.0 <= d <= HELLO_SPREAD for d in draws), draws
    assert max(draws) - min(draws) > 0.1, draws   # 20 draws within a fifth of the spread: about 1 in 10^12
    for conn, drawn in zip(server.unopened, draws, strict=True):     # both in the order accepted
        assert opened <= conn.hello_deadline - 1.0 * drawn <= all_in   # its deadline is its draw from its accept

    async def cut(reader) -> float:
        try:        # the deadline is patience, not a claim of speed
            await asyncio.wait_for(reader.read(1), PATIENCE)
        except ConnectionResetError:
            pass
        return loop.time()
    times = sorted(await asyncio.gather(*(cut(reader) for reader, _ in idle)))
    assert times[0] - opened >= 1.0, times     # none cut before its deadline
    for _, writer in idle:
        writer.close()
    await until(lambda: server.connections == 0)


async def test_a_stopping_server_cuts_sockets_that_never_said_hello_at_once(make_server):
    server = await make_server(hello_timeout=60.0)
    silent = await asyncio.open_connection("127.0.0.1", server.port)
    halfway = await asyncio.open_connection("127.0.0.1", server.port)
    halfway[1].write(b"GET / HTTP/1.1\r\n")     # an opening handshake begun, never ended
    await until(lambda: server.connections == 2)
    # Their hello deadlines are a minute away: a stop that waited for them would not end by the
    # deadline here (patience, well short of the minute, not a claim of speed).
    await asyncio.wait_for(server.stop(), 30)
    for reader, writer in (silent, halfway):
        try:
            assert await asyncio.wait_for(reader.read(1), 5) == b""
        except ConnectionResetError:
            pass
        writer.close()


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    try:
        return await asyncio.wait_for(reader.read(1), 5) == b""
    except ConnectionResetError:
        return True


async def test_idle_sockets_that_fill_the_total_make_room_for_a_client_while_a_table_plays_on(make_server):
    """Idle sockets from many addresses once used up the server's files. The total is counted from
    a socket's first byte and never passed: when it is full, the socket that has waited longest
    without opening its WebSocket is cut to make room for a new one, so idle sockets cannot keep
    an honest client out; only when every connection is open is a new one cut. The players at a
    table play on throughout."""
    server = await make_server(max_connections=6, conns_per_addr=100)
    table, players = await table_with(server.url, 2)
    while server.connections > 2:     # the lobby connection of table_with is closing
        await asyncio.sleep(0.01)
    idle = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(4)]
    while server.connections < 6:
        await asyncio.sleep(0.01)
    clients = [await Raw.connect(server.url)]          # full: the oldest idle socket made room
    assert await closed_by_server(idle[0][0])
    assert server.connections == 6
    clients += [await Raw.connect(server.url) for _ in range(3)]   # and the next, in order
    for reader, _ in idle[1:]:
        assert await closed_by_server(reader)
    assert server.connections == 6 and not server.unopened
    with pytest.raises((InvalidMessage, OSError)):   # every connection open: cut before the handshake
        await Raw.connect(server.url)
    await play_all(players)
    assert all(p.report.ok for p in players)
    for client in clients:
        await client.ws.close()
    for _, writer in idle:
        writer.close()
    while server.connections > 2:
        await asyncio.sleep(0.01)
    await Raw.connect(server.url)     # room again


def test_the_file_limit_is_raised_toward_the_hard_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 600:
        pytest.skip(f"the hard limit here is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        assert raise_file_limit(600) == 600 == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert raise_file_limit(300) == 600          # never lowered
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_tables_per_server_are_limited(make_server):
    server = await make_server(max_tables=2)
    raw = await Raw.connect(server.url)
    await raw.create(2)
    await raw.create(2)
    await raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0})
    err = await raw.expect("error")
    assert err["code"] == "too_many_tables"


# ---------------------------------------------------------------------- the lobby

@pytest.mark.parametrize("msg,code", [
    ({"type": "create", "game": "chess", "seats": 2, "bots": 0}, "unknown_game"),
    ({"type": "create", "game": "sanjuan", "seats": 5, "bots": 0}, "bad_table"),
    ({"type": "create", "game": "sanjuan", "seats": 2, "bots": 2}, "bad_table"),
    ({"type": "create", "game": "sanjuan", "seats": 2, "bots": 1, "bot": "oracle"}, "unknown_bot"),
    ({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0, "options": {"fog": True}}, "bad_options"),
    ({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0, "options": {"expansion": "no"}}, "bad_options"),
    ({"type": "sit", "table": "nope", "name": "Ana", "key": new_key()}, "no_table"),
    ({"type": "watch", "table": "nope"}, "no_table"),
    ({"type": "leave"}, "not_seated"),
    ({"type": "commit", "commitment": b"x" * 32, "sig": bytes(64)}, "not_seated"),
    ({"type": "resync"}, "not_seated"),
])
async def test_refused_lobby_requests_are_errors_not_closes(server, msg, code):
    """Refused, named, nothing created, and the connection stays."""
    raw = await Raw.connect(server.url)
    await raw.send(msg)
    err = await raw.expect("error")
    assert err["code"] == code and err["message"]
    await raw.send({"type": "list"})
    await raw.expect("tables")  # still connected


async def test_sit_leave_and_listing(server):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(3, bots=1)
    ana = await Raw.connect(server.url)
    await ana.send({"type": "sit", "table": table, "name": "  ", "key": new_key()})
    assert (await ana.expect("error"))["code"] == "bad_name"
    await ana.send({"type": "sit", "table": table, "name": "Ana", "key": new_key()})
    seated = await ana.expect("seated")
    assert seated["seat"] == 0 and "token" not in seated
    await ana.send({"type": "sit", "table": table, "name": "Ana", "key": new_key()})
    assert (await ana.expect("error"))["code"] == "already_seated"
    # names tell the players apart in the game log: no second Ana, and nobody poses as a bot
    cy = await Raw.connect(server.url)
    for name in ("ANA", "Bot 3"):
        await cy.send({"type": "sit", "table": table, "name": name, "key": new_key()})
        assert (await cy.expect("error"))["code"] == "name_taken"
    await lobby.send({"type": "list"})
    [t] = [t for t in (await lobby.expect("tables"))["tables"] if t["id"] == table]
    assert t["status"] == "waiting" and t["game"] == "sanjuan"
    assert t["seats"][0]["name"] == "Ana" and t["seats"][0]["connected"]
    assert t["seats"][1]["name"] is None and t["seats"][2]["bot"] == "random"
    # leaving before the start frees the seat and forgets the key
    await ana.send({"type": "leave"})
    status = await ana.expect("status", skip=())
    assert status["seats"][0]["name"] is None
    assert server.tables[table].seats[0].key is None
    # a spectator can take a free seat
    await lobby.send({"type": "watch", "table": table})
    await lobby.expect("status", skip=())
    await lobby.send({"type": "resync"})
    assert (await lobby.expect("error"))["code"] == "not_started"
    await lobby.send({"type": "sit", "table": table, "name": "Bo", "key": new_key()})
    assert (await lobby.expect("seated"))["seat"] == 0


async def test_a_finished_match_can_be_left_for_another_table(server):
    table, (ana, bo) = await table_with(server.url, 2)
    await play_all([ana, bo])
    await ana.raw.send({"type": "leave"})
    late = ("delta", "snapshot", "ack", "entry", "private")   # the end of the match, still arriving
    status = await ana.raw.expect("status", skip=late)
    assert status["status"] == "over" and status["seats"][ana.seat]["name"] == "Ana"  # the record keeps it
    await ana.raw.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0, "options": {}})
    other = (await ana.raw.expect("created", skip=late + ("status",)))["table"]
    await ana.raw.send({"type": "sit", "table": other, "name": "Ana", "key": new_key()})
    assert (await ana.raw.expect("seated", skip=late + ("status",)))["table"] == other


# ---------------------------------------------------------------------- commands

async def test_commands_before_the_start_out_of_turn_stale_and_duplicate(server):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(2)
    ana = SeatPlayer(server.url, table, "Ana", 0)
    await ana.sit()
    await ana.raw.send({"type": "act", "id": 1, "seq": 0, "move": pack(["builder"]), "sig": bytes(64)})
    assert (await ana.raw.expect("reject"))["code"] == "not_started"
    bo = SeatPlayer(server.url, table, "Bo", 1)
    await bo.sit()
    # play until someone has a question, without answering it
    quiet = [ana, bo]
    for p in quiet:
        p.maybe_act = _no_act(p)
    await asyncio.gather(*(p.play(until=lambda p: p.view is not None) for p in quiet))
    first = quiet[0].view["to_act"][0]
    mover = next(p for p in quiet if p.seat == first)
    other = next(p for p in quiet if p.seat != first)
    role = mover.view["prompt"]["options"][0]
    # out of turn
    await other.raw.send(other.act_message(7, other.seq, [role]))
    rej = await other.raw.expect("reject")
    assert rej["code"] == "not_your_turn" and rej["id"] == 7
    # illegal: not an option
    await mover.raw.send(mover.act_message(8, mover.seq, ["banquet"]))
    rej = await mover.raw.expect("reject")
    assert rej["code"] in ("not_an_option", "bad_action") and rej["message"]
    # accepted, then the same command again: the same answer, applied once
    seq0 = mover.seq
    mover.pending = mover.act_message(9, seq0, [role])
    await mover.raw.send(mover.pending)
    while True:
        msg = await mover.step()
        if msg["type"] == "ack":
            break
    assert msg == {"type": "ack", "id": 9}
    table_seq = server.tables[table].core.seq
    await mover.raw.send(mover.act_message(9, seq0, [role]))
    assert await mover.raw.expect("ack", skip=MATCH_NEWS) == {"type": "ack", "id": 9}
    assert server.tables[table].core.seq == table_seq
    # stale: a new command decided on the view before the question changed
    await mover.raw.send(mover.act_message(10, seq0, [role]))
    rej = await mover.raw.expect("reject", skip=MATCH_NEWS)
    assert rej["code"] == "stale"
    snap = await mover.raw.expect("snapshot", skip=MATCH_NEWS)
    assert snap["seq"] == server.tables[table].core.seq
    # from the future: a view the table never had
    await mover.raw.send({"type": "act", "id": 11, "seq": 10**6, "move": pack([role]), "sig": bytes(64)})
    rej = await mover.raw.expect("reject", skip=MATCH_NEWS)
    assert rej["code"] == "bad_seq" and f"the table is at seq {server.tables[table].core.seq}" in rej["message"]
    snap = await mover.raw.expect("snapshot", skip=MATCH_NEWS)
    assert snap["seq"] == server.tables[table].core.seq == table_seq


def _no_act(p):
    async def nothing():
        if p._reply is not None:
            reply, p._reply = p._reply, None
            await p.raw.send(reply)
    return nothing


async def test_answers_to_a_simultaneous_decision_are_not_stale(server):
    # with the setup variant everyone first keeps 4 of the cards dealt, all at once
    lobby = await Raw.connect(server.url)
    table = await lobby.create(3, options={"setup_variant": True})
    players = [SeatPlayer(server.url, table, n, i) for i, n in enumerate(["Ana", "Bo", "Cy"])]
    for p in players:
        await p.sit()
        p.maybe_act = _no_act(p)
    await asyncio.gather(*(p.play(until=lambda p: p.view is not None) for p in players))
    decided = [(p, p.seq, p.bot.choose(p.view)) for p in players]
    assert all(p.view["prompt"]["kind"] == "keep" for p in players)
    for i, (p, seq, action) in enumerate(decided):
        await p.raw.send(p.act_message(1, seq, action))
        ack = await p.raw.expect("ack", skip=MATCH_NEWS + ("snapshot",))
        assert ack["id"] == 1
    assert server.tables[table].core.seq == decided[0][1] + 3


async def test_an_exception_in_the_rules_rejects_the_command_and_the_table_lives_on(server):
    table, players = await table_with(server.url, 2)
    await asyncio.gather(*(p.play(until=lambda p: p.seq >= 10) for p in players))
    t = server.tables[table].core
    real = t.exchange.act_signed
    calls = []

    def broken(seat, seen, move, sig):
        calls.append(seat)
        raise RuntimeError("a bug in the rules")

    t.exchange.act_signed = broken
    await play_all(players)  # the failed command is rejected; the table is rebuilt from its log
    assert calls and t.exchange.act_signed != broken
    rejects = [r for p in players for r in p.rejects]
    assert [r["code"] for r in rejects] == ["internal_error"]
    assert all(p.report.ok for p in players)
    del real


async def test_deeply_nested_actions_harm_neither_their_table_nor_another(server, caplog):
    """An action a thousand lists deep once reached the rules, whose refusal failed on it: a
    traceback in the log each time, and twenty froze the table. It is a malformed frame now."""
    table, (ana, bo) = await table_with(server.url, 2)
    _, others = await table_with(server.url, 2, names=("Cy", "Di"))
    await asyncio.gather(*(p.play(until=lambda p: p.seq >= 10) for p in (ana, bo, *others)))
    nested = [1]
    for _ in range(1000):
        nested = [nested]
    for i in range(20):
        await ana.raw.send(ana.act_message(90_000 + i, ana.seq, nested))
        code, why = await ana.raw.closed()
        assert code == wire.CLOSE_BAD_FRAME and "flat list of options" in why, (code, why)
        await ana.resume()
    await play_all([ana, bo, *others])
    assert all(p.report.ok for p in (ana, bo, *others))
    core = server.tables[table].core
    assert core.frozen is None and core.internal_errors == 0
    assert not [r for r in caplog.records if r.levelname == "ERROR" or r.exc_info]


# ---------------------------------------------------------------------- slow clients

async def test_a_client_that_stops_reading_slows_no_one(make_server):
    server = await make_server(outbox=8)
    # a spectator with a tiny socket buffer that never reads, on a busy table
    table_a, players_a = await table_with(server.url, 2)
    sleeper = await Raw.connect(server.url, rcvbuf=1024, max_queue=1)
    await sleeper.send({"type": "watch", "table": table_a})
    await sleeper.expect("status", skip=("entry",))
    [conn] = server.tables[table_a].core.spectators
    # small buffers on both ends, so that not reading soon blocks the server's writes to it
    conn.ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    conn.ws.transport.set_write_buffer_limits(high=4096)
    table_b, players_b = await table_with(server.url, 2, names=("Cy", "Di"))
    start = time.monotonic()

    async def pace(players) -> float:
        """Entries a second that a table's players got through, from the start to their end."""
        await play_all(players, timeout=60)
        return players[0].seq / (time.monotonic() - start)

    pace_a, pace_b = await asyncio.gather(pace(players_a), pace(players_b))
    assert all(p.report.ok for p in players_a + players_b)
    assert len(conn.outbox) <= 8             # bounded, whatever the client does
    assert conn.dropped > 0                  # view updates were dropped, not queued without end
    # Both tables share the one event loop, so a loaded machine slows them alike; a table that
    # waited on the spectator who does not read would fall far behind the other.
    assert pace_a > pace_b / 3, (pace_a, pace_b)
    # The signed entries cannot be dropped: a spectator that leaves them unread is let go ...
    code, _ = await sleeper.closed(timeout=20)
    assert code == CLOSE_OVERFLOW
    held = [m for m in map(lambda f: wire.decode(f, wire.SERVER, wire.MAX_SERVER_FRAME), sleeper.frames)
            if m["type"] == "entry"]
    # ... and watching again, saying what it holds, it gets the rest and a consistent view.
    again = await Raw.connect(server.url)
    await again.send({"type": "watch", "table": table_a, "have": len(held)})
    audit = PlayerExchange(None)
    for m in held:
        audit.receive(Signed.parse("entry", m["payload"], m["sig"]))
    view = None
    while audit.report is None or view is None:
        msg = await again.recv()
        if msg["type"] == "entry":
            audit.receive(Signed.parse("entry", msg["payload"], msg["sig"]))
        elif msg["type"] == "snapshot":
            view = msg["view"]
            assert view_hash(view) == msg["hash"] and msg["seq"] == server.tables[table_a].core.seq
    assert audit.report.ok and view["over"]
    await again.close()


async def test_a_table_nobody_sits_at_is_closed_after_a_while(make_server):
    server = await make_server(idle_table=0.1, max_tables=1)
    raw = await Raw.connect(server.url)
    table = await raw.create(2)

    async def listed() -> list:
        await raw.send({"type": "list"})
        return [(t["id"], t["status"]) for t in (await raw.expect("tables"))["tables"]]
    async with asyncio.timeout(PATIENCE):
        while (tables := await listed()) == [(table, "waiting")]:
            await asyncio.sleep(0.02)
    assert tables == [(table, "cancelled")]
    await raw.create(2)  # it no longer counts against the table limit


# ---------------------------------------------------------------------- limits that fit real networks

OPERATOR_KEY = "an-operator-key-long-enough-to-be-safe"


async def via_proxy(server, client: str, proxy: str = "127.0.0.1") -> Raw:
    """A connection from `proxy` that says it carries `client`'s (X-Forwarded-For)."""
    return await Raw.connect(server.url, source=proxy, additional_headers={"X-Forwarded-For": f"10.9.9.9, {client}"})


async def with_proxy_header(server, line: bytes) -> Raw:
    """A connection that opens with a PROXY protocol header, as HAProxy sends it."""
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(line)
    sock.setblocking(False)
    return await Raw.connect(server.url, sock=sock)


async def test_behind_a_trusted_proxy_each_client_is_counted_by_its_own_address(make_server):
    server = await make_server(trusted_proxies="127.0.0.1, 192.0.2.0/24", conns_per_addr=2, tables_per_addr=1,
                               tables_per_net=1000)
    # through the proxy: 3 clients, each its own connections and tables
    raws = [await via_proxy(server, f"203.0.113.{i}") for i in range(1, 4)]
    for raw in raws:
        await raw.create(2)
    assert sorted(t.creator for t in server.tables.values()) == ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
    again = await via_proxy(server, "203.0.113.1")         # the same client again: its own limit
    await again.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0})
    assert "tables_per_addr=1" in (await again.expect("error"))["message"]
    with pytest.raises(Closed) as third:                    # a third connection of that client
        await via_proxy(server, "203.0.113.1")
    assert third.value.code == wire.CLOSE_TOO_MANY
    # a PROXY protocol header says who the client is, IPv6 too; the X-Forwarded-For of a peer
    # the server does not trust counts for nothing: anyone may send it
    headed = await with_proxy_header(server, b"PROXY TCP6 2001:db8:1:2::7 ::1 40000 8765\r\n")
    await headed.create(2)
    stranger = await via_proxy(server, "203.0.113.9", proxy="127.0.0.2")
    await stranger.create(2)
    creators = {t.creator for t in server.tables.values()}
    assert "2001:db8:1:2::/64" in creators and "127.0.0.2" in creators and "203.0.113.9" not in creators
    # a bad header from a trusted proxy is cut, not taken for a WebSocket request
    with pytest.raises((OSError, InvalidMessage, EOFError)):
        await with_proxy_header(server, b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n")
    for raw in [*raws, again, headed, stranger]:
        await raw.close()


@pytest.mark.parametrize("hop, address", [("203.0.113.7", "203.0.113.7"), ("203.0.113.7:5678", "203.0.113.7"),
                                          ("2001:db8::7", "2001:db8::7"), ("[2001:db8::7]", "2001:db8::7"),
                                          ("[2001:db8::7]:80", "2001:db8::7"), ("unknown", None),
                                          ("203.0.113.7:http", None), ("[2001:db8::7", None),
                                          ("[2001:db8::7]80", None), ("203.0.113.7:123456", None)])
def test_an_x_forwarded_for_hop_is_read_in_each_form_proxies_write(hop, address):
    from server.proxies import forwarded_for, networks
    trusted = networks("192.0.2.0/24, 2001:db8:ffff::/48")
    assert forwarded_for(trusted, [f"198.51.100.1, {hop}"]) == address
    # a trusted proxy's own hop is passed over, whatever its form
    for proxy in ("192.0.2.5", "192.0.2.5:443", "[2001:db8:ffff::1]:443"):
        assert forwarded_for(trusted, [f"198.51.100.1, {hop}", proxy]) == address


async def test_a_trusted_proxy_that_names_no_client_is_counted_warned_of_and_its_own_address(make_server, caplog):
    """Its connections share the proxy's limits: not in silence. One warning a minute at most."""
    server = await make_server(trusted_proxies="127.0.0.1")
    with caplog.at_level("WARNING", logger="governor.server"):
        bare = await Raw.connect(server.url)
        named = await via_proxy(server, "203.0.113.1")
        nameless = await Raw.connect(server.url, additional_headers={"X-Forwarded-For": "203.0.113.2, unknown"})
        for raw in (bare, named, nameless):
            await raw.create(2)
    assert sorted(t.creator for t in server.tables.values()) == ["127.0.0.1", "127.0.0.1", "203.0.113.1"]
    warned = [r.getMessage() for r in caplog.records if "trusted proxy" in r.getMessage()]
    assert len(warned) == 1 and "from the trusted proxy 127.0.0.1 came with no PROXY header and no " \
        "X-Forwarded-For: it counts as the proxy's own address" in warned[0]
    assert "governor_proxy_unknown_clients_total 2" in exposition(server)
    for raw in (bare, named, nameless):
        await raw.close()


async def tls_via_proxy(server, context, first: bytes = b"", **kw) -> Raw:
    """A TLS connection through a proxy that passes it on, sending `first` (a PROXY header) before it."""
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(first)
    sock.setblocking(False)
    return await Raw.connect(server.url, sock=sock, ssl=context, server_hostname="localhost", **kw)


async def test_a_tls_listener_reads_a_trusted_proxys_header_before_the_handshake(make_server, tmp_path, caplog):
    import ssl

    from server.app import server_tls
    from tests.client.test_tls import self_signed
    cert, key = self_signed(tmp_path)
    context = ssl.create_default_context(cafile=str(cert))
    server = await make_server(trusted_proxies="127.0.0.1", tls=server_tls(str(cert), str(key)))
    # the header and the TLS handshake in one segment, as HAProxy often sends them
    headed = await tls_via_proxy(server, context, b"PROXY TCP4 203.0.113.1 127.0.0.1 40000 443\r\n")
    await headed.create(2)
    # a header sent a few bytes at a time
    sock = socket.create_connection(("127.0.0.1", server.port))
    for part in (b"PR", b"OXY TCP6 2001:db8:1:2::7 ", b"::1 40000 443\r", b"\n"):
        sock.sendall(part)
        await asyncio.sleep(0.05)
    sock.setblocking(False)
    split = await Raw.connect(server.url, sock=sock, ssl=context, server_hostname="localhost")
    await split.create(2)
    # no header: the X-Forwarded-For inside TLS says it
    forwarded = await tls_via_proxy(server, context, additional_headers={"X-Forwarded-For": "198.51.100.9"})
    await forwarded.create(2)
    assert sorted(t.creator for t in server.tables.values()) == ["198.51.100.9", "2001:db8:1:2::/64",
                                                                 "203.0.113.1"]
    with caplog.at_level("WARNING", logger="governor.server"), pytest.raises((OSError, InvalidMessage, EOFError)):
        await tls_via_proxy(server, context, b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n")
    assert any("its PROXY header is bad ('not-an-address' is no IP address)" in r.getMessage()
               for r in caplog.records)
    for raw in (headed, split, forwarded):
        await raw.close()


async def test_tables_are_limited_per_network_as_well_as_per_address(make_server):
    server = await make_server(trusted_proxies="127.0.0.1", tables_per_addr=2, tables_per_net=3)
    for client in ("198.51.100.1", "198.51.100.1", "198.51.100.2"):     # one /24
        await (await via_proxy(server, client)).create(2)
    late = await via_proxy(server, "198.51.100.3")
    await late.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0})
    refused = await late.expect("error")
    assert refused["code"] == "too_many_tables" and "198.51.100.0/24" in refused["message"] \
        and "tables_per_net=3" in refused["message"]
    for client in ("2001:db8:0:1::1", "2001:db8:0:2::1", "2001:db8:0:3::1"):   # three /64s of one /56
        await (await via_proxy(server, client)).create(2)
    late = await via_proxy(server, "2001:db8:0:4::1")
    await late.send({"type": "create", "game": "sanjuan", "seats": 2, "bots": 0})
    assert "2001:db8::/56" in (await late.expect("error"))["message"]
    await (await via_proxy(server, "198.51.101.1")).create(2)     # the next network is another


async def test_a_waiting_table_is_closed_after_its_lifetime_even_with_someone_at_it(make_server):
    server = await make_server(waiting_table=0.5, idle_table=60)
    raw = await Raw.connect(server.url)
    table = await raw.create(2)
    await raw.send({"type": "sit", "table": table, "name": "Ana", "key": new_key()})
    await raw.expect("seated")
    deadline = time.monotonic() + 5
    while (status := (await raw.expect("status"))["status"]) != "cancelled":     # Ana stays, reading
        assert time.monotonic() < deadline and status == "waiting"
    assert (await server.store.finished_table(table)).status == "cancelled"
    await raw.close()


async def test_wrong_operator_keys_hold_off_their_address_not_the_operator_and_many_addresses_not_forever(
        make_server):
    server = await make_server(operator_key=OPERATOR_KEY, trusted_proxies="127.0.0.1", operator_failures=3,
                               operator_failures_all=5)

    async def operator(client: str, key: str) -> dict:
        raw = await via_proxy(server, client)
        await raw.send({"type": "operator", "key": key, "do": "tables"})
        reply = await raw.recv()
        await raw.close()
        return reply

    for _ in range(3):      # a stranger behind the proxy sends wrong keys ...
        assert (await operator("203.0.113.66", "not-the-operator-key"))["code"] == "bad_operator_key"
    assert (await operator("203.0.113.66", OPERATOR_KEY))["code"] == "slow_down"       # ... and is held off
    assert (await operator("203.0.113.5", OPERATOR_KEY))["type"] == "operator_tables"   # the operator is not
    for _ in range(2):      # another stranger: five wrong keys in all, from two addresses
        assert (await operator("198.51.100.7", "not-the-operator-key"))["code"] == "bad_operator_key"
    refused = await operator("192.0.2.8", "yet-another-guess-at-it")       # nobody may guess now
    assert refused["code"] == "slow_down" and "operator_failures_all=5" in refused["message"]
