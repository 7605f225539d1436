"""High Card on a blind table (games/blind.py): its deck is shuffled jointly, each hand is opened
to its holder alone (`private_cards`), and a card is opened to everyone as it is played. Played
on the suite's blind table (blind_table.py): an engine replica per party, an oracle in place of
the cryptography."""
from __future__ import annotations

import random

import pytest

import games
from games.contract import PRIVATE
from protocol.codec import pack
from tests.conformance import highcard
from tests.conformance.blind_table import SERVER, BlindMatch


@pytest.fixture(autouse=True)
def registered():
    """High Card in the registry while a test plays it, as the suite's conftest puts it there."""
    if highcard.INFO.id in games.GAMES:
        yield
        return
    games.register(highcard)
    try:
        yield
    finally:
        del games.GAMES[highcard.INFO.id]


def _check(match: BlindMatch) -> None:
    """After every move: every party makes the same public view; a human seat's party reads its
    whole hand in its own view, within the room its public fields leave it (handles are longer
    numbers than ids), and knows no card but its own and those played; the server knows no card
    dealt to a human seat that has not been played."""
    views = match.public_views()
    assert all(v == views[0] for v in views)
    server = match.parties[SERVER].state
    for seat in match.humans:
        party = match.parties[seat]
        hand = highcard.private_cards(party.state, seat)
        assert sorted(hand) == [c for c, _ in highcard.view(party.state, seat)["you"]["hand"]]
        own = highcard.view(party.state, seat)
        assert all(v is not None for _, v in own["you"]["hand"])
        assert len(pack({k: own[k] for k in PRIVATE if k in own})) <= highcard.private_room(own)
        assert set(party.sight.items) <= match.opened_to[seat] | match.public
        assert not set(party.sight.items) & set(party.state.deck), "a party knows a card of the deck"
        # The server makes that seat's view without reading its hand, which it may not see.
        assert [v for _, v in highcard.view(server, seat)["you"]["hand"]] == [None] * len(hand)
    assert not match.leaked_to_server()


@pytest.mark.parametrize("hand", [2, 3, 4])
@pytest.mark.parametrize("humans", [(), (0,), (1,), (0, 1)], ids=["bots", "human0", "human1", "humans"])
def test_whole_blind_games_keep_hands_from_the_server_and_replay_with_full_sight(humans, hand):
    for seed in range(3):
        match = BlindMatch(highcard, 2, {"hand": hand}, set(humans), f"hc-blind/{hand}/{humans}/{seed}")
        match.play(random.Random(seed), check=_check)
        final = match.parties[SERVER].state
        assert highcard.to_act(final) == [] and len(match.moves) == len(highcard.VALUES)
        replayed = match.full_sight_replay()
        assert highcard.dump(replayed) == highcard.dump(final)
        assert highcard.result(replayed) == highcard.result(final)
        assert match.public == set(match.truth), "every card was played face up in the end"


def test_a_prompt_made_without_sight_of_the_hand_names_no_number():
    """Only the seat's own party reads its hand: the server's prompt for a human seat offers the
    same cards, with no number, and the seat's own prompt orders them by number."""
    match = BlindMatch(highcard, 2, {}, {0, 1}, "hc-blind/prompt")
    seat = match.to_act()[0]
    own = highcard.prompt(match.parties[seat].state, seat)
    blind = highcard.prompt(match.parties[SERVER].state, seat)
    assert sorted(own["options"]) == sorted(blind["options"]) == sorted(highcard.private_cards(
        match.parties[SERVER].state, seat))
    assert blind["labels"] == ["a hidden card"] * len(blind["options"])
    numbers = [int(label) for label in own["labels"]]
    assert numbers == sorted(numbers)
    assert numbers == [highcard.VALUES[match.truth[c]] for c in own["options"]]
