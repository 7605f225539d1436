"""Puerto Rico on a blind table (games/blind.py): the plantation stack and every reshuffle of it
are shuffled jointly, and nobody, the server included, knows a tile until it is turned face up
for everyone. Played on the suite's blind table (tests/conformance/blind_table.py): an engine
replica per party (the server for the computer seats, and each human seat), and an oracle in
place of the cryptography that knows the true order of every pile."""
from __future__ import annotations

import random

import pytest

import bots
import games
from games.blind import BlindStreams, Unopened, Unshuffled, is_handle
from games.puertorico import plantations
from protocol.fairness import local_streams
from tests.conformance.blind_table import SERVER, BlindMatch

GAME = games.get("puertorico")
SEEDS = range(3)


def _bots(level: str):
    """A move chooser for the blind table: each seat's bot of `level`, deciding from the view its
    own party makes (the server's for a computer seat)."""
    made: dict[int, object] = {}

    def choose(game, state, seat: int, rnd: random.Random) -> list:
        if level == "random":
            return game.random_action(state, seat, rnd)
        if seat not in made:
            made[seat] = bots.make("puertorico", level, seed=seat, **({"iterations": 20} if level == "ismcts" else {}))
        # The server applies it to its own state, whose `apply` refuses any pick that is not
        # one of its real prompt's (IllegalAction would end the test).
        return made[seat].choose(game.view(state, seat))     # type: ignore[attr-defined]
    return choose


def _agree(match: BlindMatch) -> None:
    """After every move: every party holds the same state (handles and all), makes the same view
    of every seat and of a spectator, and knows exactly the tiles that are face up for everyone:
    none of the face-down stack, the server included."""
    players = len(match.names)
    parties = list(match.parties.values())
    dumps = [GAME.dump(p.state) for p in parties]
    assert all(d == dumps[0] for d in dumps), "the parties' states differ"
    seen = [GAME.views(p.state, [None, *range(players)]) for p in parties]
    assert all(v == seen[0] for v in seen), "the parties' views differ"
    for p in parties:
        assert set(p.sight.items) == p.streams.open_to_all, f"party {p.name} knows a tile not face up"
        assert not set(p.state.stack) & set(p.sight.items), f"party {p.name} knows a face-down tile"


@pytest.mark.parametrize("level", ["random", "heuristic"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_whole_blind_games_agree_everywhere_and_replay_with_full_sight(players, level):
    """Whole games of 2 to 5 seats, some of them human: the parties agree after every move, no
    party ever reads a tile it may not (games.blind.Hidden would end the test), and the match
    replayed with every tile in sight, as the end-of-match audit replays it, comes to the same
    state and result."""
    reshuffles = hacienda_draws = 0
    for seed in SEEDS:
        humans = set(range(seed % 2, players, 2))
        match = BlindMatch(GAME, players, {}, humans, f"pr-blind/{players}/{level}/{seed}")
        match.play(random.Random(seed), choose=_bots(level), check=_agree)
        final = match.parties[SERVER].state
        assert final.over
        replayed = match.full_sight_replay()
        assert GAME.dump(replayed) == GAME.dump(final)
        assert GAME.result(replayed) == GAME.result(final)
        assert match.rounds["shuffles"] == 1 + final.reshuffles
        reshuffles += final.reshuffles
        hacienda_draws += sum(1 for _, action in match.moves if action == ["draw"])
    if players >= 4 or level == "random":    # a long enough game empties the stack
        assert reshuffles, "no game reshuffled the discard pile into a new stack"
    if level == "random" and players >= 3:
        assert hacienda_draws, "no hacienda drew a tile"


def test_the_search_plays_from_blind_views():
    """The search bot samples states from a seat's view, which on a blind table is the view of
    an open one (tiles are shown by kind), and its moves are picks of the real prompt."""
    match = BlindMatch(GAME, 3, {}, {1}, "pr-blind/ismcts")
    match.play(random.Random(0), choose=_bots("ismcts"), check=_agree)
    assert match.parties[SERVER].state.over
    assert GAME.dump(match.full_sight_replay()) == GAME.dump(match.parties[SERVER].state)


def test_the_piles_hold_handles_and_the_lowest_of_a_kind_is_taken():
    """On a blind table the stack and the row hold handles; of two face-up tiles of one kind a
    settler takes the lower handle (the one the joint shuffles dealt first), the same for every
    party."""
    match = BlindMatch(GAME, 4, {}, {0}, "pr-blind/row")
    s = match.parties[SERVER].state
    assert all(is_handle(t) for t in s.stack + s.row)
    rnd, compared = random.Random(0), 0
    while match.to_act():
        seat = match.to_act()[0]
        before = match.parties[SERVER].state
        action = GAME.random_action(before, seat, rnd)
        match.move(seat, action)
        after = match.parties[SERVER].state
        if before.pending[1] == "settle" and action and action != ["quarry"] and set(after.row) < set(before.row):
            k = plantations.GOODS.index(action[0])
            of_kind = [t for t in before.row if before.kinds[t] == k]
            assert set(before.row) - set(after.row) == {min(of_kind)}
            compared += len(of_kind) > 1
        _agree(match)
    assert compared, "no settler had two face-up tiles of the kind taken"


def test_an_open_table_holds_ids_and_reads_the_manifest_itself():
    """On an open table nothing changes: the piles hold tile ids and kinds are read from the
    manifest, in every copy."""
    s = GAME.setup(["A", "B", "C"], {}, local_streams("pr-open"))
    assert s.kinds is plantations.MANIFEST and GAME.copy(s).kinds is plantations.MANIFEST
    assert all(0 <= t < len(plantations.MANIFEST) for t in s.stack + s.row)


def test_a_blind_setup_asks_for_the_shuffle_then_the_row():
    """The first thing a blind setup needs is the joint shuffle of every tile in play but the
    starting ones, and then the face-up row opened to all; nothing else."""
    streams = BlindStreams(local_streams("pr-setup"))
    with pytest.raises(Unshuffled) as need:
        GAME.setup(["A", "B", "C"], {}, streams)
    assert (need.value.name, need.value.idx) == ("plantations/initial", 0)
    assert len(need.value.items) == len(plantations.MANIFEST) - 3
    handles = streams.shuffled(need.value.name, need.value.idx, need.value.items)
    with pytest.raises(Unopened) as opening:
        GAME.setup(["A", "B", "C"], {}, streams)
    assert list(opening.value.cards) == handles[:4]       # the top four, the first handles
