"""What the parties of a blind match keep as it goes: a player's client forgets the states no move
can be checked against any more (its memory stays bounded however long the match), and what the
server's replica and exchange keep between inputs (private cards, debts, whose cards are open)
always equals what a fresh computation finds."""
import pytest

from games.blind import is_handle

from tests.protocol.blind_match import Match


def test_a_clients_replica_keeps_few_states_over_a_whole_match():
    m = Match("sanjuan", 4, [0, 2], seed="memory")
    most: dict = {}

    def check(m: Match) -> None:
        for who, client in [*m.clients.items(), ("spectator", m.spectator)]:
            reader = client.reader
            r = client.replica
            most[who] = max(most.get(who, 0), len(r.history))
            # every state kept is one a move may still be checked against: from the state standing
            # at the earliest of the human seats' latest moves on
            earliest = min(reader.last_move.get(s, 2) for s in reader.humans)
            assert len(r.history) == 1 or r.history[1][0] > earliest
            assert r.state_at(len(reader.entries) - 1) is r.state
        for client in m.clients.values():   # our moves already logged or overtaken are forgotten
            assert len(client.sent_moves) <= 1

    m.play(check)
    moves = sum(1 for e in m.clients[0].record if e.body["t"] == "move")
    assert moves > 150
    assert all(client.report is not None and client.report.ok for client in m.clients.values())
    assert max(most.values()) <= 30, most     # without forgetting: one state per move


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
def test_what_the_server_keeps_between_inputs_is_what_it_would_find_anew(game):
    m = Match(game, 4, [1, 3], seed=f"kept/{game}")

    def check(m: Match) -> None:
        ex, r = m.server, m.server.replica
        assert ex.owed() == ex._find_owed()
        fresh = {c: seat for seat in range(len(r.names)) for c in r.engine.private_cards(r.state, seat)
                 if is_handle(c)}
        assert r.private() == fresh
        for party in range(r.parties):
            assert r.owed(party) == sorted(c for c, seat in fresh.items()
                                           if r.holders[seat] != party and party not in r.parts.get(c, {}))
        for client in m.clients.values():
            cr = client.replica
            assert cr.private() == fresh
            for seat in range(len(cr.names)):
                others = set(range(cr.parties)) - {cr.holders[seat]}
                assert cr.open_to(seat) == all(others <= set(cr.parts.get(c, {}))
                                               for c in cr.engine.private_cards(cr.state, seat) if c in cr.cts)

    m.play(check)
    assert all(client.report is not None and client.report.ok for client in m.clients.values())
