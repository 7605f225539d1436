"""Whole matches on a blind table through protocol/blind_exchange.py with the real cryptography
(tests/protocol/blind_match.py), and a server that tries to learn a hand it should not."""
from __future__ import annotations

import pytest

from games.choice import pick_uniform
from protocol.codec import pack

from protocol.messages import ProtocolError
from tests.protocol.blind_match import Match


class Watch:
    """After every move: every replica's public view equal; each human's client sees its own
    cards and no other seat's; the server's replica no card only a human held."""

    def __init__(self) -> None:
        self.held: dict[int, set[int]] = {}      # seat -> every card ever private to it

    def __call__(self, m: Match) -> None:
        engine, server = m.engine, m.server
        r = server.replica
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


@pytest.mark.parametrize("game, humans", [("sanjuan", [0, 2]), ("sanjuan", [0, 1, 2, 3]), ("puertorico", [1, 3])])
def test_round_trips_beyond_an_open_table_per_move_and_per_role_phase(game, humans):
    """An open table waits on a client once per move of a person. A blind table adds, per move:
    one batch of the shares its new private cards are owed (none when it deals none), one per
    `open` of cards from a pile, one per human party for each pile it makes the parties shuffle,
    and at the end one for the deal seeds. Nothing else: the figures per role phase (a role chosen
    and played out) are printed."""
    m = Match(game, 4, humans, seed=f"rt/{len(humans)}")
    m.start()
    server, k = m.server, len(humans)
    deal = m.round_trips
    assert deal <= 2 + k * sum(b.body["t"] == "shuffle" and b.body["party"] == 0 for b in server.log) + 1 + \
        sum(b.body["t"] == "open" for b in server.log), "the deal: commitments, seeds, shuffle steps, shares"
    phases: dict[tuple, list[int]] = {}      # (round, chooser, role) -> [extra round trips, moves]
    while server.phase == "play":
        state, before, at = server.replica.state, m.round_trips, len(server.log)
        if not m.step():
            break
        new = [e.body for e in server.log[at:]]
        mover = next(b["seat"] for b in new if b["t"] == "move")
        extra = m.round_trips - before - (mover in m.humans)
        shuffles = sum(b["t"] == "shuffle" and b["party"] == 0 for b in new)
        opens = sum(b["t"] == "open" for b in new)
        # the players' shares of cards the move dealt (the mover's included) follow its entry;
        # the mover's openings, which travel with its move, come before it
        moved_at = next(i for i, b in enumerate(new) if b["t"] == "move")
        shares = any(b["t"] == "shares" and b["party"] > 0 for b in new[moved_at + 1:])
        end = any(b["t"] == "final" for b in new)     # the deal seeds, sent once the game is over
        assert extra <= k * shuffles + opens + 1 + end, (new, extra)
        if not shuffles and not opens:
            assert extra == shares + end, (new, extra)
        after = server.replica.state
        key = (state.round, state.chooser, state.role or after.role)
        phase = phases.setdefault(key, [0, 0])
        phase[0] += extra
        phase[1] += 1
    by_role: dict[str, list[int]] = {}
    for (_, _, role), (extra, _) in phases.items():
        by_role.setdefault(role or "(between roles)", []).append(extra)
    print(f"{game}, {k} humans: the deal {deal} round trips; extra ones per role phase over an open table: " + "; ".join(
        f"{role} max {max(v)} mean {sum(v) / len(v):.2f}" for role, v in sorted(by_role.items())))


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
