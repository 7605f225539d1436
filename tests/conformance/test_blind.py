"""Every game on a blind table (games/blind.py), played by one engine replica per party with the
oracle of blind_table.py in place of the cryptography: each reaches its end, every replica agrees
on everything public after every move, no engine ever reads a card its party was not opened, the
server's party never learns a card only a human seat held, and the result is the one a party that
sees every card (the end-of-match audit) replays."""
from __future__ import annotations

import random

import pytest

from tests.conformance.blind_table import BlindMatch

# Which seats a person plays: all of them (the server deals only for itself), or every other one
# from the first (the server also plays the rest).
SEATINGS = {"all-human": lambda n: range(n), "every-other": lambda n: range(0, n, 2)}


@pytest.mark.parametrize("seating", SEATINGS)
def test_a_blind_game_plays_to_its_end_and_agrees_with_full_sight(game, table, seating):
    players, options = table
    match = BlindMatch(game, players, options, SEATINGS[seating](players), seed=f"blind/{seating}")

    def check(m: BlindMatch) -> None:
        views = m.public_views()
        assert all(v == views[0] for v in views), f"the replicas disagree after move {len(m.moves)}"
        for seat in m.humans:
            own = game.view(m.parties[seat].state, seat)   # raises Hidden if a human cannot see its own cards
            assert own["seat"] == seat
        assert not m.leaked_to_server(), "the server's party learned a card only a human held"

    match.play(random.Random(f"blind/{seating}/moves"), check=check)
    final = [game.result(p.state) for p in match.parties.values()]
    assert all(r == final[0] for r in final)
    assert game.result(match.full_sight_replay()) == final[0]
