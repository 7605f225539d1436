"""The engine contract (games/contract.py), checked on random games of every registered game."""
from __future__ import annotations

import random

import pytest

from games.choice import BACK
from games.contract import PRIVATE, check_prompt, check_result, check_view
from games.errors import IllegalAction
from protocol.codec import pack, unpack
from protocol.fairness import local_streams

MAX_DECISIONS = 20_000
GAMES_PER_TABLE = 3


def random_game(game, players: int, options: dict, seed: str, check=None):
    """A game of uniformly random legal moves; each seat draws from its own generator. Returns
    the final state, the moves [(seat, action)] and every event."""
    rng = local_streams(seed)
    s = game.setup([f"P{i}" for i in range(players)], options, rng)
    movers = [random.Random(f"{seed}/{i}") for i in range(players)]
    moves, events = [], []
    while game.to_act(s):
        assert len(moves) < MAX_DECISIONS, "a random game did not end"
        seat = game.to_act(s)[0]
        if check:
            check(s, len(moves))
        action = game.random_action(s, seat, movers[seat])
        events += game.apply(s, seat, action, rng)
        moves.append((seat, action))
    return s, moves, events


def replay(game, players, options, seed, moves):
    rng = local_streams(seed)
    s = game.setup([f"P{i}" for i in range(players)], options, rng)
    for seat, action in moves:
        game.apply(s, seat, action, rng)
    return s


def test_same_seed_and_moves_same_game(game, table):
    players, options = table
    a, moves, events_a = random_game(game, players, options, "determinism")
    b, _, events_b = random_game(game, players, options, "determinism")
    assert game.dump(a) == game.dump(b) and events_a == events_b
    assert game.dump(replay(game, players, options, "determinism", moves)) == game.dump(a)
    c, _, _ = random_game(game, players, options, "determinism/other")
    assert game.dump(c) != game.dump(a), "another seed deals another game"


def test_moves_without_events_are_the_moves_with_them(game, table):
    """apply with events=False, and random_move (which draws what random_action draws from the
    same generator), make the move as plain apply does: the same states, move by move, to the end
    of the game, and no events (None)."""
    players, options = table
    _, moves, _ = random_game(game, players, options, "random-move")
    rng = local_streams("random-move")
    s, quiet, t = (game.setup([f"P{i}" for i in range(players)], options, rng) for _ in range(3))
    movers = [random.Random(f"random-move/{i}") for i in range(players)]
    for seat, action in moves:
        assert game.to_act(t)[0] == seat
        game.apply(s, seat, action, rng)
        assert game.apply(quiet, seat, action, rng, events=False) is None
        assert game.random_move(t, seat, movers[seat], rng) is None
        assert game.dump(quiet) == game.dump(s) and game.dump(t) == game.dump(s)
    assert not game.to_act(t)


def test_random_move_refuses_a_seat_that_owes_nothing(game, table):
    players, options = table
    rng, rnd = local_streams("random-move/seat"), random.Random(0)
    s = game.setup([f"P{i}" for i in range(players)], options, rng)
    while len(game.to_act(s)) == players:    # a deal that every seat answers at once
        game.random_move(s, game.to_act(s)[0], rnd, rng)
    idle = next(seat for seat in range(players) if seat not in game.to_act(s))
    before = game.dump(s)
    with pytest.raises(IllegalAction) as refused:
        game.random_move(s, idle, rnd, rng)
    assert refused.value.code == "not_your_turn" and game.dump(s) == before


def test_event_words_are_those_of_the_moment_they_happened(game, table):
    """An engine may leave an event's words to be written when first read (games/events.py): read
    right after its move or only once the game is over, they are the same words."""
    players, options = table
    _, moves, late = random_game(game, players, options, "words")
    rng = local_streams("words")
    s = game.setup([f"P{i}" for i in range(players)], options, rng)
    at_once = []
    for seat, action in moves:
        at_once += [(e["type"], e["to"], e["text"]) for e in game.apply(s, seat, action, rng)]
    assert [(e["type"], e["to"], e["text"]) for e in late] == at_once
    assert all(type(e["text"]) is str and e["text"] for e in late)


def test_dump_load_round_trip_and_independent_copies(game, table):
    players, options = table
    _, moves, _ = random_game(game, players, options, "dump")
    rng = local_streams("dump")
    s = game.setup([f"P{i}" for i in range(players)], options, rng)
    for i, (seat, action) in enumerate(moves):
        if i % 17 == 0:
            data = game.dump(s)
            assert game.dump(game.load(data)) == data
            twin = game.copy(s)
            game.apply(twin, seat, action, local_streams(f"dump/{i}"))
            assert game.dump(s) == data, "playing on a copy changed the original"
        game.apply(s, seat, action, rng)


def _picks(prompt: dict, rnd: random.Random) -> list[list]:
    """Picks at the bounds and one in between, each of distinct options."""
    options, lo, hi = prompt["options"], prompt["min"], prompt["max"]
    return [rnd.sample(options, k) for k in sorted({lo, hi, rnd.randint(lo, hi)})]


def test_every_pick_within_the_bounds_is_legal(game, table):
    players, options = table
    rnd = random.Random("bounds")

    def check(s, i):
        if i % 3:
            return
        for seat in game.to_act(s):
            p = game.prompt(s, seat)
            for pick in _picks(p, rnd):
                game.apply(game.copy(s), seat, pick, local_streams(f"bounds/{i}"))

    random_game(game, players, options, "bounds", check)


def _illegal(prompt: dict) -> list:
    options, lo, hi = prompt["options"], prompt["min"], prompt["max"]
    bad = ["not a list", [object()], [[1] * 3]]
    if not prompt["back"]:
        bad.append([BACK])
    if lo > 0:
        bad.append(options[:lo - 1])
    if hi < len(options):
        bad.append(options[:hi + 1])
    if hi >= 2 or (hi >= 1 and lo <= 2 <= len(options) + 1):
        bad.append([options[0], options[0]])
    return bad


def test_an_illegal_pick_raises_and_changes_nothing(game, table):
    players, options = table

    def check(s, i):
        if i % 5:
            return
        before = game.dump(s)
        rng = local_streams(f"illegal/{i}")
        refused = [(seat, pick) for seat in game.to_act(s) for pick in _illegal(game.prompt(s, seat))]
        refused += [(seat, []) for seat in set(range(players)) - set(game.to_act(s))]
        for seat, pick in refused:
            refusals = []
            for events in (True, False):     # a caller that reads no events is refused alike
                with pytest.raises(IllegalAction) as refusal:
                    game.apply(s, seat, pick, rng, events=events)
                refusals.append((refusal.value.code, str(refusal.value)))
            assert refusals[0] == refusals[1]
        assert game.dump(s) == before

    random_game(game, players, options, "illegal", check)


def test_back_returns_to_the_first_step_of_its_decision(game, table):
    """Where a prompt offers back, the move [BACK] tells nobody anything and leaves the state and
    every view (each seat's and a spectator's) as they were before the first step of that
    decision, but for the count of moves, which counts it too. Random play never sends it."""
    players, options = table
    readers = [None, *range(players)]
    first_step = None   # a copy of the state before the last move whose prompt offered no back
    kinds = set()

    def seen(s) -> tuple[dict, list]:
        data = game.dump(s)
        del data["decisions"]
        return data, [game.view(s, r) for r in readers]

    def check(s, i):
        nonlocal first_step
        seat = game.to_act(s)[0]
        p = game.prompt(s, seat)
        if not p["back"]:
            first_step = game.copy(s)
            return
        went_back, went_quietly = game.copy(s), game.copy(s)
        assert game.apply(went_back, seat, [BACK], local_streams(f"back/{i}")) == []
        assert game.apply(went_quietly, seat, [BACK], local_streams(f"back/{i}"), events=False) is None
        assert seen(went_back) == seen(first_step) == seen(went_quietly), f"back from a {p['kind']} decision"
        assert not game.prompt(went_back, seat)["back"]
        kinds.add(p["kind"])

    random_game(game, players, options, "back", check)
    if game.INFO.offers_back:
        assert kinds, "a random game offered back somewhere"
    else:
        assert not kinds, f"INFO.offers_back is False, yet {sorted(kinds)} decisions offered back"


def test_no_view_depends_on_what_it_may_not_see(game, table):
    """Deal anew everything a seat (or a spectator) may not see: its view must not change."""
    players, options = table
    rnd = random.Random("leak")

    def check(s, i):
        if i % 5:
            return
        for seat in [None, *range(players)]:
            assert game.view(game.permute_hidden(s, seat, rnd), seat) == game.view(s, seat), \
                f"seat {seat}'s view depends on something hidden from it"

    for g in range(GAMES_PER_TABLE):
        random_game(game, players, options, f"leak/{g}", check)


def test_no_private_text_depends_on_what_its_reader_may_not_see(game, table):
    """The log, as the view: play each move again in a world where everything the mover may not
    see is dealt anew (its action stays legal). Wherever the mover's view comes out the same in
    both worlds, the texts shown to it alone must be the same too, and the public log must tell
    of the same kinds of thing. (Where its view differs, the move has shown it something new, its
    own draw, and there is nothing to compare. Which cards a public text may name, a gold mine's
    say, is each game's rule: its own tests check those texts.)"""
    players, options = table
    rnd = random.Random("event-leak")
    compared = 0
    for g in range(GAMES_PER_TABLE):
        seed = f"event-leak/{g}"
        rng = local_streams(seed)
        s = game.setup([f"P{i}" for i in range(players)], options, rng)
        movers = [random.Random(f"{seed}/{i}") for i in range(players)]
        while game.to_act(s):
            seat = game.to_act(s)[0]
            action = game.random_action(s, seat, movers[seat])
            twin = game.permute_hidden(s, seat, rnd)
            twin_events = game.apply(twin, seat, action, rng)
            events = game.apply(s, seat, action, rng)
            assert [e["type"] for e in game.visible_events(twin_events, None)] == \
                   [e["type"] for e in game.visible_events(events, None)]
            if game.view(twin, seat) == game.view(s, seat):
                compared += 1
                assert [e for e in twin_events if e["to"] == seat] == [e for e in events if e["to"] == seat], \
                    f"the texts shown to seat {seat} depend on something hidden from it"
    assert compared


def test_a_seats_own_fields_fit_the_room_that_public_things_leave_them(game, table):
    """Frames to a seat are padded to leave `private_room(view)` for the fields only that seat
    may see (server/broadcast.py). The room must hold them whatever the cards, and come out the
    same when everything a spectator may not see is dealt anew: it is computed from public things."""
    players, options = table
    rnd = random.Random("room")
    checked = 0

    def check(s, i):
        nonlocal checked
        twin = game.permute_hidden(s, None, rnd)
        for seat in range(players):
            view = game.view(s, seat)
            room = game.private_room(view)
            if room is None:                      # they hide nothing: the leak test above covers it
                continue
            checked += 1
            assert len(pack({k: view[k] for k in PRIVATE if k in view})) <= room, (seat, view.get("prompt"))
            assert game.private_room(game.view(twin, seat)) == room

    for g in range(GAMES_PER_TABLE):
        random_game(game, players, options, f"room/{g}", check)
    assert checked or all(game.private_room(game.view(game.setup(
        [f"P{i}" for i in range(players)], options, local_streams("room")), seat)) is None
        for seat in range(players))


def _destroy(tree) -> None:
    """Empty every map and list of a tree, deepest first."""
    children = list(tree.values()) if isinstance(tree, dict) else tree if isinstance(tree, list) else []
    for child in list(children):
        _destroy(child)
    if isinstance(tree, (dict, list)):
        tree.clear()


def test_views_are_plain_data_that_share_nothing_with_the_state(game, table):
    """The server sends and keeps the engine's views as they are (server/broadcast.py), so a view
    must hold only maps and lists as a client decodes them (no tuples), and emptying every map
    and list of it must leave the state as it was: a view that shared a list with the state
    would change under the server's feet with the next move, and its deltas with it."""
    players, options = table

    def check(s, n):
        before = pack(game.dump(s))
        for seat in [None, *range(players)]:
            view = game.view(s, seat)
            assert unpack(pack(view)) == view, (seat, n)   # as a client decodes it: no tuple
            _destroy(view)
        assert pack(game.dump(s)) == before, n

    random_game(game, players, options, "plain", check)


def test_views_at_once_are_each_seats_view_sharing_only_the_public_fields(game, table):
    """`views` makes every seat's view and the spectators' as `view` does, with the fields they
    show alike built once: the same objects in each, and never a seat's own field (`seat` and
    PRIVATE) shared with another view."""
    players, options = table
    seats = [None, *range(players)]

    def check(s, n):
        if n % 3:
            return
        views = game.views(s, seats)
        assert views == [game.view(s, seat) for seat in seats], n
        own = ("seat", *PRIVATE)
        for i, a in enumerate(views):
            for b in views[i + 1:]:
                for k, value in b.items():
                    if isinstance(value, (dict, list)):
                        assert (value is a.get(k)) == (k not in own), (k, n)

    random_game(game, players, options, "views", check)


def test_games_end_and_views_and_results_are_well_formed(game, table):
    players, options = table
    info = game.INFO

    def check(s, i):
        if i % 11:
            return
        for seat in [None, *range(players)]:
            check_view(game.view(s, seat), info.id, seat, players)

    for g in range(GAMES_PER_TABLE):
        s, moves, events = random_game(game, players, options, f"end/{g}", check)
        assert game.to_act(s) == [] and moves
        check_result(game.result(s), players)
        for seat in [None, *range(players)]:
            v = game.view(s, seat)
            check_view(v, info.id, seat, players)
            assert v["over"] and v["result"]["winners"] == game.result(s)["winners"]
        for e in events:
            assert e["to"] is None or 0 <= e["to"] < players
            assert isinstance(e["type"], str) and isinstance(e["text"], str) and e["text"]
        for seat in [None, *range(players)]:
            assert all(e["to"] in (None, seat) for e in game.visible_events(events, seat))


def test_setup_refuses_bad_tables(game):
    info = game.INFO
    rng = local_streams("setup")
    with pytest.raises(IllegalAction):
        game.setup(["a"] * (info.max_players + 1), {}, rng)
    with pytest.raises(IllegalAction):
        game.setup(["a"] * info.min_players, {"no_such_option": True}, rng)
    for o in info.options:
        with pytest.raises(IllegalAction):
            game.setup(["a"] * info.min_players, {o.name: "yes"}, rng)
    manifest = game.manifest({})
    assert isinstance(manifest, list) and all(isinstance(k, str) for k in manifest)
    assert len(game.manifest_hash({})) == 32


COUNTS = {"kind": "place", "text": "How many?", "options": [1, 2, 3], "min": 1, "max": 1,
          "labels": ["1", "2", "3"], "help": ["", "", ""], "back": "", "counts": True}


@pytest.mark.parametrize("change, said", [
    ({"counts": "yes"}, "must be a bool"),
    ({"options": [0, 2, 3]}, "consecutive"),
    ({"options": [2, 1, 0]}, "consecutive"),
    ({"options": [-1, 0, 1]}, "whole numbers"),
    ({"options": [True, 2, 3]}, "whole numbers"),
    ({"options": ["0", "1", "2"]}, "whole numbers"),
    ({"min": 0}, "exactly one"),
    ({"max": 2}, "exactly one"),
])
def test_a_prompt_of_counts_is_one_pick_among_consecutive_whole_numbers(change, said):
    """A client types a count as itself (client/answers.py): the check holds `counts` to what
    makes that unambiguous."""
    check_prompt(COUNTS)
    check_prompt({**COUNTS, "counts": False, "options": ["a", "b", "c"]})
    with pytest.raises(AssertionError, match=said):
        check_prompt({**COUNTS, **change})
