"""The blind server exchange's queue (protocol/blind_exchange.py BlindServerExchange), driven
in-process with the real cryptography: a person's move that reaches the server while it waits
for the clients is queued, and once the wait is over applied in order, judged by §9's rule 3 as
`act_signed` judges it, or refused into `dropped` with the reason; one input may then apply
several moves, whose events `last_events` keeps in order; every party's record verifies.

The moment needs a question open to one seat while another seat's answer waits for the clients,
which San Juan and Puerto Rico never have (tests/server/test_blind_watch.py says why): Draw Race
(drawrace.py) has it."""
from __future__ import annotations

import pytest

from games.errors import IllegalAction
from protocol.codec import pack, unpack
from protocol.messages import ProtocolError, events_digest
from protocol.signing import SIG_MOVE, move_payload

from .blind_match import Match, wire


def pump(m: Match) -> list:
    """Everything in flight reaches the server until nothing more is sent; the entries made."""
    made = []
    while m.in_flight:
        batch, m.in_flight = m.in_flight, []
        for seat, raw in batch:
            out = m.server.receive(seat, unpack(raw))
            made += out
            m.deliver(out)
    return made


def moves(entries) -> list[tuple[int, list]]:
    return [(e.body["seat"], unpack(e.body["move"])) for e in entries if e.body["t"] == "move"]


def test_moves_that_cross_a_wait_are_applied_after_it_in_order_or_refused_with_the_reason(drawrace_registered):
    m = Match("drawrace", 2, [0, 1], seed="queue")
    m.start()
    server, ana, bo = m.server, m.clients[0], m.clients[1]
    assert server.engine.to_act(server.replica.state) == [0, 1] and ana.prompt() and bo.prompt()
    seen = len(server.log) - 1

    # Round 1: Ana draws (the top card is opened: the server waits for every party's share).
    # Bo, asked at the same entry, passes, and then tries to draw too: both reach the server
    # while it waits, and are queued.
    bo_pass, bo_draw = bo.move(["pass"]), bo.move(["draw"])    # decided before Ana's move is in the log
    out = server.receive(0, unpack(pack(ana.move(["draw"]))))
    assert [e.body["t"] for e in out] == ["open", "shares"] and server.waiting[0] == "open"   # the server's own
    m.deliver(out)                                   # the clients' shares leave, in flight
    assert bo.prompt() is None                       # a move under way in the log: no question now
    assert server.receive(1, unpack(pack(bo_pass))) == []
    assert server.receive(1, unpack(pack(bo_draw))) == []
    assert [q[0] for q in server.queue] == [1, 1] and "move" not in server.owed().get(1, [])
    # A move signed before the entries its seat may have decided at is refused at once, not queued.
    with pytest.raises(ProtocolError) as stale:
        server.receive(1, {"type": "act", "seq": 1, "move": pack(["pass"]), "sig": bytes(64), "openings": None})
    assert stale.value.code == "stale" and len(server.queue) == 2

    # The shares come in: Ana's move, then Bo's pass, in one input; Bo's draw is then refused
    # (signed before his pass, it cannot follow it) and kept for the driver to tell him.
    server.last_events = []
    made = pump(m)
    assert moves(made) == [(0, ["draw"]), (1, ["pass"])]
    last = made[-1] if made[-1].body["t"] == "move" else None
    assert last is not None and last.body["seen"] == seen, "Bo's pass is signed where he decided it"
    assert server.queue == [] and [(s, e.code) for s, e in server.dropped] == [(1, "stale")]
    refusal = server.dropped[0][1].message
    assert f"decided at entry {seen} cannot follow this seat's latest move (entry {last.body['seq']})" in refusal
    shown = server.engine.visible_events(server.last_events, None)
    assert [e["text"] for e in shown][1:] == ["P1 passes.", "Round 1 ends."] and shown[0]["text"].startswith("P0 draws a")
    by_entry = [e for e in made if e.body["t"] == "move"]
    assert [e.body["events"] for e in by_entry] == [events_digest(shown[:1]), events_digest(shown[1:])]
    server.dropped.clear()

    # Round 2: Bo's draw waits for the clients. Ana, asked at the entry before it, first sends a
    # pick that is no option (signed; her client would not send it), then her pass: once the
    # wait is over the first is refused by the rules, and the pass is applied after Bo's draw,
    # since her question did not change (§9's rule 3).
    seen = len(server.log) - 1
    ana_pass = ana.move(["pass"])
    fold = pack(["fold"])
    fold_sig = m.keys[0].sign(SIG_MOVE, move_payload(server.header.hash, 0, server.log[seen].hash, fold))
    out = server.receive(1, unpack(pack(bo.move(["draw"]))))
    m.deliver(out)
    assert server.waiting[0] == "open"
    assert server.receive(0, {"type": "act", "seq": seen, "move": fold, "sig": fold_sig, "openings": None}) == []
    assert server.receive(0, unpack(pack(ana_pass))) == []
    made = pump(m)
    assert moves(made) == [(1, ["draw"]), (0, ["pass"])] and made[-1].body["seen"] == seen
    assert [(s, type(e), e.code) for s, e in server.dropped] == [(0, IllegalAction, "not_an_option")]
    assert "fold" in server.dropped[0][1].message, server.dropped[0][1].message
    server.dropped.clear()

    # The rest of the match as the clients decide it; every record verifies.
    while m.step():
        pass
    while m.in_flight:
        m.wait()
    assert server.phase == "over"
    for client in (ana, bo, m.spectator):
        assert client.report is not None and client.report.ok, client.report.text()
    assert [e.hash for e in ana.record] == [e.hash for e in server.log] == [wire(e).hash for e in bo.record]
