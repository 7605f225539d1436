"""Whole matches on a blind table through protocol/blind_exchange.py with the real cryptography
(tests/protocol/blind_match.py), and a server that tries to learn a hand it should not."""
from __future__ import annotations

import pytest

from games.choice import pick_uniform
from protocol.codec import pack

from protocol.messages import ProtocolError
from tests.protocol.blind_match import Match, per_phase, phase_of


class Watch:
    """After every move: every replica's public view equal; each human's client sees its own
    cards and no other seat's; the server's replica no card only a human held."""

    def __init__(self) -> None:
        self.held: dict[int, set[int]] = {}      # seat -> every card ever private to it
        self.moves = 0                           # the moves whose states were looked at

    def __call__(self, m: Match) -> None:
        engine, server = m.engine, m.server
        r = server.replica
        # every state since the last look (one step may apply several moves: a move that waited)
        for moved in m.moved[self.moves:]:
            for state in (moved.before, moved.after):
                for seat in range(m.n):
                    self.held.setdefault(seat, set()).update(c for c in engine.private_cards(state, seat)
                                                             if c in r.cts)
        self.moves = len(m.moved)
        for card, seat in r.private().items():
            self.held.setdefault(seat, set()).add(card)
        public = set(r.streams.open_to_all)
        views = [engine.view(c.replica.state, None) for c in (*m.clients.values(), m.spectator)]
        assert all(v == engine.view(r.state, None) for v in views), "the replicas disagree"
        bot_cards = set().union(*(self.held.get(s, set()) for s in range(m.n) if s not in m.humans))
        assert set(r.streams.sight.items) <= public | bot_cards, "the server learned a card only a human held"
        for seat, client in m.clients.items():
            known = set(client.replica.streams.sight.items)
            assert known <= public | self.held.get(seat, set()), f"seat {seat} saw another seat's card"
            if client.view() is not None:
                assert client.view()["seat"] == seat
        assert not set(m.spectator.replica.streams.sight.items) - public


@pytest.mark.parametrize("game, players, humans", [
    ("sanjuan", 4, [0, 2]), ("sanjuan", 4, [0, 1, 2, 3]), ("puertorico", 4, [1, 3])])
def test_a_blind_match_plays_to_its_end_and_every_party_verifies_it(game, players, humans):
    m = Match(game, players, humans, seed=f"{game}/{len(humans)}")
    watch = Watch()
    m.play(check=watch)
    assert m.server.phase == "over"
    assert m.server.replica.streams.open_to_all, "no card was ever opened: nothing was tested"
    assert set().union(*watch.held.values()) or game == "puertorico", "no card was ever private"
    for seat, client in m.clients.items():
        assert client.report is not None and client.report.ok, client.report and client.report.text()
        held_now = set(client.replica.streams.sight.items) - set(client.replica.streams.open_to_all)
        assert held_now <= watch.held.get(seat, set())
    assert m.spectator.report.ok, m.spectator.report.text()
    from protocol.verify import verify
    assert verify(m.server.log).ok
    print(f"{game} {players} seats, {len(humans)} humans: {len(m.server.log)} entries, "
          f"{m.client_messages} client messages in {m.round_trips} round trips")


@pytest.mark.parametrize("game, humans, options", [
    ("sanjuan", [0, 2], {}), ("sanjuan", [0, 1, 2, 3], {"expansion": True}), ("puertorico", [1, 3], {})])
def test_round_trips_beyond_an_open_table_per_role_phase(game, humans, options):
    """An open table crosses to the clients once per move of a person; a blind table crosses
    again only when nobody can decide until the clients' messages in flight arrive (the model of
    tests/protocol/blind_match.py). Per role phase (a role chosen and played out), counted from
    the log: each joint shuffle costs one round trip per human party (each takes its step on the
    previous one's), each `open` (cards a move turns up) at most one, and the cards the phase's
    moves deal at most one per dealing move. The figures per role are printed."""
    m = Match(game, 4, humans, options, seed=f"rt/{len(humans)}")
    m.play()
    server, k = m.server, len(humans)
    assert server.phase == "over"
    assert {w.cause for w in m.waits} <= {"commitments", "seeds", "shares", "open", "deal seeds"} | \
        {f"shuffle {b.body['name']}" for b in server.log if b.body["t"] == "shuffle"}
    phases = per_phase(m)
    # the deal: commitments, seeds, each human party's step of each pile, the shares of the hands
    setup = [b.body for b in server.log[:m.dealt_at]]
    causes = [w.cause for w in phases["deal"]]
    assert causes[:2] == ["commitments", "seeds"] and causes.count("shares") <= 1, causes
    assert sum(c.startswith("shuffle") for c in causes) == k * sum(b["t"] == "shuffle" and b["party"] == 0 for b in setup)
    assert causes.count("open") <= sum(b["t"] == "open" for b in setup)
    assert [w.cause for w in phases["end"]] == ["deal seeds"]
    # which log entries each phase spans: from the entry after the previous phase's last move
    moves_at = [i for i, e in enumerate(server.log) if e.body["t"] == "move"]
    by_role: dict[str, list[int]] = {}
    over = 0
    for key, waits in phases.items():
        if key in ("deal", "end"):
            continue
        mine = [i for i, moved in enumerate(m.moved) if phase_of(moved) == key]
        lo = moves_at[mine[0] - 1] + 1 if mine[0] else m.dealt_at
        span = [e.body for e in server.log[lo:moves_at[mine[-1]] + 1]]
        shuffles = sum(b["t"] == "shuffle" and b["party"] == 0 for b in span)
        opens = sum(b["t"] == "open" for b in span)
        dealing = sum(m.moved[i].dealt for i in mine)
        causes = [w.cause for w in waits]
        assert sum(c.startswith("shuffle") for c in causes) == k * shuffles, (key, causes)
        assert causes.count("open") <= opens, (key, causes)
        assert causes.count("shares") <= dealing, (key, causes, dealing)
        by_role.setdefault(key[2] or "(between roles)", []).append(len(waits))
        over += len(waits) > 1
    print(f"\n{game} {options}, {k} humans: the deal {len(phases['deal'])} round trips; extra per role "
          f"phase: " + "; ".join(f"{role} max {max(v)} mean {sum(v) / len(v):.2f}" for role, v in sorted(by_role.items()))
          + f"; {over} of {sum(map(len, by_role.values()))} phases over one")


def _hostile_open(m: Match, target: str):
    """An `open` entry signed with the server's key, for a real legal move of the seat to act,
    asking for a card that move does not turn up."""
    server = m.server
    r = server.replica
    seat = m.engine.to_act(r.state)[0]
    prompt = m.clients[seat].prompt() if seat in m.humans else server.prompt(seat)
    from protocol.blind_replica import Step
    picks = [[o] for o in prompt["options"]] if prompt["min"] <= 1 <= prompt["max"] else \
        [pick_uniform(prompt["options"], prompt["min"], prompt["max"], m.rnd)]
    move = next(p for p in picks if r.asked(Step(seat, p)) is None)
    victim = m.humans[0]
    if target == "own":
        cards = [c for c, s in r.private().items() if s == victim][:1]
    elif target == "undealt":
        cards = [c for c in r.cts if c not in r.private() and c not in r.streams.open_to_all][:1]
    else:   # a card of another human's hand
        cards = [c for c, s in r.private().items() if s == m.humans[1]][:1]
    return server._append({"t": "open", "seat": seat, "move": pack(move), "cards": cards})


@pytest.mark.parametrize("target, words", [("own", "a card of our own hand"),
                                           ("undealt", "a card not dealt to anyone"),
                                           ("other", "held by P2")])
def test_a_client_refuses_to_open_what_the_rules_do_not_turn_up(target, words):
    m = Match("sanjuan", 4, [0, 2], seed=f"nosy/{target}")
    m.start()
    entry = _hostile_open(m, target)
    client = m.clients[m.humans[0]]
    before = len(client.record)
    with pytest.raises(ProtocolError) as e:
        client.receive(entry)
    message = e.value.message
    assert words in message and "refused" in message and "turns up no card" in message, message
    assert len(client.record) == before, "the client took the entry in"
