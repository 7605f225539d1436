"""Cheating on a blind table: refused at once where it can be, named by the audit where it cannot
(docs/fairness.md §10.6), and a party that stops answering forfeits."""
from __future__ import annotations

import pytest

from games.contract import places
from protocol.blind_exchange import BlindPlayerExchange
from protocol.codec import pack
from protocol.messages import ProtocolError, Signed
from protocol.shown import Shown
from protocol.signing import SIG_ENTRY, SIG_MOVE, SIG_SHUFFLE, move_payload, shuffle_payload
from protocol.verify import verify
from protocol import blind
from protocol.blind_replica import LogReader, read_pile
from tests.protocol.blind_match import Match


def resign(log: list[Signed], signer, at: int, body: dict) -> list[Signed]:
    """The log with entry `at` replaced by `body`, it and every later entry signed and chained
    again by the server's key: what a server that lies can make."""
    out = list(log[:at])
    for i in range(at, len(log)):
        b = dict(body if i == at else log[i].body)
        b["prev"] = out[-1].hash
        payload = pack(b)
        out.append(Signed("entry", payload, signer.sign(SIG_ENTRY, payload), b))
    return out


def finished(seed: str = "audit") -> Match:
    m = Match("sanjuan", 4, [0, 2], seed=seed)
    m.play()
    assert m.server.phase == "over"
    return m


def test_a_finished_record_verifies_and_a_move_its_player_never_signed_fails_at_that_entry():
    m = finished()
    log = m.server.log
    assert verify(log).ok
    at = next(i for i, e in enumerate(log) if e.body["t"] == "move" and e.body["seat"] == 0)
    body = {k: v for k, v in log[at].body.items() if k not in ("seen", "sig")}
    report = verify(resign(log, m.server.signer, at, {**body, "bot": True}))
    assert not report.ok and report.where == f"entry {at} (move by P0)"
    assert "P0" in report.what and "never signed" in report.what


def test_a_deal_seed_that_does_not_give_its_key_is_refused_and_fails_the_audit():
    m = finished("seed")
    log = m.server.log
    final = dict(log[-1].body)
    final["deal_seeds"] = [final["deal_seeds"][0], bytes(32), final["deal_seeds"][2]]
    report = verify(resign(log, m.server.signer, len(log) - 1, final))
    assert not report.ok and "P0 (party 1)" in report.what and "does not give" in report.what


def test_a_false_share_is_refused_by_the_server_and_by_every_client_at_once():
    m = Match("sanjuan", 4, [0, 2], seed="false")
    m.start()
    server, r = m.server, m.server.replica
    # A client's share with another card's part: the server refuses it, naming the card.
    card = next(c for c, s in r.private().items() if s == 3)   # a computer seat's card: clients share it
    other = next(c for c in r.private() if c != card)
    client = m.clients[0]
    msg = client._shares_message([other])
    msg["cards"] = [card]
    with pytest.raises(ProtocolError):
        server.receive(0, msg)
    # The server's own false share, signed into the log: every client refuses it, naming the server.
    victim_card = next(c for c, s in r.private().items() if s == 0 and 0 not in r.parts.get(c, {})) \
        if any(s == 0 and 0 not in r.parts.get(c, {}) for c, s in r.private().items()) else None
    target = victim_card or next(c for c in r.cts if c not in r.parts or 0 not in r.parts[c])
    part, proof = server.me.share(other, r.cts[other])
    entry = server._append({"t": "shares", "party": 0, "cards": [target], "parts": part, "proofs": proof,
                            "sig": None})
    for c in m.clients.values():
        with pytest.raises(ProtocolError) as e:
            c.receive(entry)
        assert "the server" in e.value.message and f"card {target}" in e.value.message
    # ... and the audit names it at that entry.
    report = verify(server.log[:-1] + [entry] + [server._append({"t": "cancel", "reason": "x"})])
    assert not report.ok


class Swapper(BlindPlayerExchange):
    """A client whose shuffle step swaps (or duplicates) two cards of its honest output."""
    how = "swap"

    def _react(self, body):
        out = super()._react(body)
        for msg in out:
            if msg["type"] == "shuffle" and msg["name"] == "deck" or msg["type"] == "shuffle" and not getattr(self, "done", 0):
                self.done = 1
                pile = bytearray(msg["pile"])
                a, b = pile[0:64], pile[64:128]
                pile[0:64] = b
                if self.how == "swap":
                    pile[64:128] = a
                pile = bytes(pile)
                cts = read_pile(pile, len(pile) // 64, 1, "x")
                msg["pile"] = pile
                msg["sig"] = self.signer.sign(SIG_SHUFFLE, shuffle_payload(
                    self.reader.header_hash, self.seat, msg["name"], msg["idx"], blind.pile_hash(cts)))
                self.sent_steps[(msg["name"], msg["idx"])] = pile
        return out


@pytest.mark.parametrize("how", ["swap", "duplicate"])
def test_a_shuffle_step_that_swaps_or_duplicates_a_card_is_named_by_the_audit(how):
    m = Match("sanjuan", 4, [0, 2], seed=f"cheat/{how}")
    key = m.keys[0]
    cheat = type("C", (Swapper,), {"how": how})("id0", key, server_key=m.server.signer.public_key)
    m.clients[0] = cheat
    m.play()
    assert m.server.phase == "over"
    report = verify(m.server.log)
    assert not report.ok
    assert "shuffle by P0 (party 1)" in report.where and "party 1" in report.what and "slot 0" in report.what, \
        (report.where, report.what)


def test_a_silent_player_forfeits_placed_last_and_the_record_verifies_with_its_steps_not_checked():
    m = Match("sanjuan", 4, [0, 2], seed="forfeit")
    m.start()
    for _ in range(20):
        m.step()
    server = m.server
    assert server.owed() is not None
    m.pump()    # what is in flight arrives first: the forfeit ends the play
    m.deliver(server.forfeit([2], "P2 stopped answering"))
    with pytest.raises(ProtocolError, match="does not give its deal key"):
        server.receive(0, {"type": "deal_seed", "seed": bytes(32), "sig": bytes(64)})
    m.pump()
    assert server.phase == "over"
    final = server.log[-1].body
    assert final["t"] == "final" and final["forfeit"] == [2] and final["deal_seeds"][2] is None
    assert places(server.result)[2] == 3 and 2 not in final["winners"]
    report = verify(server.log)
    assert report.ok, report.text()
    assert any("NOT CHECKED" in c and "P2 (party 2)" in c for c in report.checks), report.checks
    assert report.places[2] == 3
    assert m.clients[0].report.ok


def test_a_false_share_of_the_server_in_a_record_that_ends_normally_is_named_at_its_entry():
    """The server swaps its part of one card for its part of another (with that card's proof) in a
    finished match and signs the whole log again: the audit names that entry and the server."""
    m = finished("false-final")
    log = m.server.log
    at = next(i for i, e in enumerate(log) if e.body["t"] == "shares" and e.body["party"] == 0
              and len(e.body["cards"]) >= 2)
    body = dict(log[at].body)
    parts, proofs = body["parts"], body["proofs"]
    body["parts"] = parts[32:64] + parts[32:]            # card 0's part is card 1's
    body["proofs"] = proofs[64:128] + proofs[64:]
    forged = resign(log, m.server.signer, at, body)
    assert forged[-1].body["t"] == "final"
    report = verify(forged)
    assert not report.ok
    assert report.where == f"entry {at} (shares)", report.where
    assert "the server" in report.what and f"card {body['cards'][0]}" in report.what, report.what


def _question_changed(m: Match, seat: int):
    """A move of `seat` at entry i and an earlier entry k (at or after its previous move) at which
    the seat was asked another question, or none, as its own replica (which sees its cards) puts it."""
    log, client = m.server.log, m.clients[seat]
    engine = m.engine
    # the state just after each entry: the client's record read again (its replica keeps only the
    # states a move may still be checked against)
    reader, states = LogReader(seat, client.deal_seed), []
    for e in client.record:
        reader.accept(e)
        states.append(None if reader.replica is None else reader.replica.state)
    previous = 2
    for i, e in enumerate(log):
        if e.body["t"] != "move" or e.body["seat"] != seat:
            continue
        now = engine.prompt(states[i - 1], seat)
        for k in range(previous, i - 1):
            before = states[k]
            if before is not None and (engine.prompt(before, seat) if seat in engine.to_act(before) else None) != now:
                return i, k
        previous = i
    raise AssertionError("no move of this seat was ever asked another question since an earlier entry")


def test_a_signed_move_played_for_another_question_than_the_one_it_answered_fails_at_its_entry():
    """§9's rule 3 on a blind table: the player really signed the move, at an earlier entry where
    its question was another; the server played it later. The audit names the move's entry."""
    m = finished("rule3")
    log = m.server.log
    i, k = _question_changed(m, 0)
    body = dict(log[i].body)
    body["seen"] = k
    body["sig"] = m.keys[0].sign(SIG_MOVE, move_payload(log[0].hash, 0, log[k].hash, body["move"]))
    report = verify(resign(log, m.server.signer, i, body))
    assert not report.ok
    assert report.where == f"entry {i} (move by P0)", report.where
    assert "question of entry" in report.what and "P0" in report.what, report.what
    # The same move at its own question stands (the signature, not the rule, was the only change).
    assert verify(log).ok


def test_a_players_own_record_opens_its_cards_from_the_logged_shares_and_its_own_part():
    m = finished("own")
    own = verify(m.server.log, Shown(0))
    public = verify(m.server.log)
    assert own.ok and public.ok, own.text()
    line = "every card opened to P0 by the others' shares and their own part"
    assert any(line in c for c in own.checks) and not any(line in c for c in public.checks)
    assert any(line in c for c in m.clients[0].report.checks), "the client's own audit reads as its own"
    # A record whose deal seed for P0 does not give P0's key is refused for P0 as for anyone.
    final = dict(m.server.log[-1].body)
    final["deal_seeds"] = [final["deal_seeds"][0], bytes(32), final["deal_seeds"][2]]
    report = verify(resign(m.server.log, m.server.signer, len(m.server.log) - 1, final), Shown(0))
    assert not report.ok and "P0" in report.what
