"""A player is a key (docs/fairness.md §9), over a real WebSocket: the header names each seat's
key, every move is signed by it and checked before it is applied, a move signed with another key
is refused with a reason and changes nothing, and a seat is claimed by answering the server's
challenge with the seat's key: an answer read on the way is of no use on another connection."""
from __future__ import annotations

import asyncio

from protocol import wire
from protocol.signing import SIG_SEAT, Signer, seat_payload

from .rawclient import Raw, claim_sig, play_all
from .test_limits import MATCH_NEWS, _no_act
from .test_resilience import table_with


async def test_the_header_names_each_players_key_and_every_move_is_theirs(server):
    table, (ana, bo) = await table_with(server.url, 3, bots=1)
    await play_all([ana, bo])
    header = ana.px.header
    assert header["protocol"] == "bgfair/v2" and header["rated"] is False and header["started"] > 0
    assert [s.get("key") for s in header["seats"]] == [ana.key.public_key, bo.key.public_key, None]
    assert header["seats"][2]["bot"] == "random"
    moves = [e.body for e in ana.px.entries if e.body["t"] == "move"]
    assert {b["seat"] for b in moves if "seen" in b} == {0, 1} and all(b.get("bot") for b in moves if b["seat"] == 2)
    assert not any("move" in b or "sig" in b for b in moves)   # a pick of hidden cards is nobody else's
    final = ana.px.entries[-1].body   # which lists every player's move as signed, once nothing is hidden
    assert [s is not None for s in final["signed"]] == ["seen" in b for b in moves]
    assert ana.report.ok and ana.report.keys == [ana.key.fingerprint, bo.key.fingerprint, None]
    assert bo.report.ok


async def test_a_move_signed_with_another_key_is_refused_with_a_reason_and_changes_nothing(server):
    table, players = await table_with(server.url, 2)
    for p in players:
        p.maybe_act = _no_act(p)
    await asyncio.gather(*(p.play(until=lambda p: p.view is not None) for p in players))
    ana, bo = sorted(players, key=lambda p: p.seat not in p.view["to_act"])   # Ana: a seat asked now
    core = server.tables[table].core
    seq, entries = core.seq, len(core.exchange.log)
    action = ana.bot.choose(ana.view)
    await ana.raw.send(ana.act_message(1, ana.seq, action, key=bo.key))     # Bo's key, Ana's seat
    reject = await ana.raw.expect("reject", skip=MATCH_NEWS + ("snapshot",))
    assert reject["code"] == "bad_signature" and f"not signed by the key of seat {ana.seat}" in reject["message"]
    assert core.seq == seq and len(core.exchange.log) == entries
    await ana.raw.send(ana.act_message(2, ana.seq, action))
    assert (await ana.raw.expect("ack", skip=MATCH_NEWS + ("snapshot",)))["id"] == 2
    assert core.exchange.log[-1].body["seat"] == ana.seat and "seen" in core.exchange.log[-1].body


async def test_a_claim_read_on_the_way_cannot_be_used_on_another_connection(server):
    """A relay that reads Ana's claim (ws:// in clear) and sends it on a connection of its own
    gets another challenge, which the answer it read does not sign: the seat stays Ana's."""
    table, (ana, bo) = await table_with(server.url, 2)
    await ana.drop()
    first = await Raw.connect(server.url, claim=ana.claim, have=0)
    seen = claim_sig(ana.claim, first.welcome)        # what the relay read on the way
    await first.expect("status", skip=())              # the claim is taken: the seat's status comes
    relay = await Raw.connect(server.url, hello=False)
    await relay.send({"type": "hello", "version": wire.VERSION, "table": table, "seat": ana.seat, "have": 0})
    welcome = await relay.expect("welcome")
    assert welcome["nonce"] != first.welcome["nonce"]
    await relay.send({"type": "claim", "sig": seen})
    code, why = await relay.closed()
    assert code == wire.CLOSE_BAD_HELLO and "not signed by its player's key" in why
    assert server.tables[table].seats[ana.seat].conn is not None       # the first connection holds it still
    await first.send({"type": "list"})
    await first.expect("tables", skip=MATCH_NEWS + ("snapshot", "status"))


async def test_a_claim_by_another_key_or_for_another_server_is_closed(server):
    table, (ana, bo) = await table_with(server.url, 2)
    eve = Signer.generate()
    closed = []
    for key, server_key in ((eve, None), (bo.key, None), (ana.key, bytes(32))):
        raw = await Raw.connect(server.url, hello=False)
        await raw.send({"type": "hello", "version": wire.VERSION, "table": table, "seat": ana.seat})
        welcome = await raw.expect("welcome")
        sig = key.sign(SIG_SEAT, seat_payload(server_key or welcome["key"], welcome["nonce"], table, ana.seat))
        await raw.send({"type": "claim", "sig": sig})
        closed.append(await raw.closed())
    assert all(code == wire.CLOSE_BAD_HELLO and "not signed by its player's key" in why for code, why in closed)
    await play_all([ana, bo])        # the seat was never anyone else's
    assert ana.report.ok and bo.report.ok


async def test_a_hello_that_claims_a_seat_must_be_followed_by_its_claim(server):
    table, (ana, bo) = await table_with(server.url, 2)
    raw = await Raw.connect(server.url, hello=False)
    await raw.send({"type": "hello", "version": wire.VERSION, "table": table, "seat": 0})
    await raw.expect("welcome")
    await raw.send({"type": "list"})
    code, why = await raw.closed()
    assert code == wire.CLOSE_BAD_HELLO and "followed by its claim, not a list" in why
