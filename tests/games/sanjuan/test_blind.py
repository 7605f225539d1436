"""San Juan on a blind table (games/blind.py): whole games played by one engine replica per party,
each seeing only the cards opened to it, on the conformance suite's blind table
(tests/conformance/blind_table.py: a trusted oracle in place of the cryptography).
"""
from __future__ import annotations

import random

import pytest

import bots
from games import sanjuan
from games.blind import HANDLE_BASE, Hidden, Open, Sight, is_handle
from games.errors import IllegalAction
from games.sanjuan import rules
from protocol.fairness import local_streams
from tests.conformance.blind_table import SERVER, BlindMatch


class Table(BlindMatch):
    """A San Juan blind match, with what these tests compare."""

    def __init__(self, players: int, options: dict, humans: set[int], seed: str) -> None:
        self.seed = seed
        super().__init__(sanjuan, players, options, humans, seed)
        self.server = self.parties[SERVER]

    def true(self, item: int) -> int:
        return self.truth[item] if is_handle(item) else item

    # ------------------------------------------------------------ what every step must hold

    def open_state(self, state):
        """The state as an open table holds it: every handle replaced by what it is."""
        def plain(x):
            if isinstance(x, list):
                return [plain(y) for y in x]
            if isinstance(x, dict):
                return {k: plain(v) for k, v in x.items()}
            return self.true(x)
        data = plain(sanjuan.dump(state))
        del data["blind"]
        return sanjuan.load(data)

    def check(self) -> None:
        views = [sanjuan.view(p.state, None) for p in self.parties.values()]
        assert all(v == views[0] for v in views), "every party shows the public the same table"
        for p in self.parties.values():
            for seat in p.seats:
                view = sanjuan.view(p.state, seat)     # computable: the party sees the seat's cards
                if seat in p.state.pending and p.state.pending[seat][0] == "build":
                    self.check_build_options(p.state, seat, view["prompt"])
        assert not self.leaked_to_server()

    def check_build_options(self, state, seat: int, prompt: dict) -> None:
        """The narrowed build decision is exactly the open table's for the same cards: the same
        options (as cards), bounds, labels and help."""
        truth = self.open_state(state)
        truth.pending = {seat: rules.build_decision(truth, seat)}
        expected = sanjuan.prompt(truth, seat)
        assert {**prompt, "options": [self.true(c) for c in prompt["options"]]} == expected

    def refuse_unaffordable(self, seat: int) -> bool:
        """When the seat holds a card the rules do not let it build, pick it: refused after the
        card is turned face up, and nothing else changes. False when it holds none."""
        p = self.party_of(seat)
        allowed = sanjuan.prompt(p.state, seat)["options"]
        bad = [c for c in p.state.players[seat].hand if c not in allowed]
        if not bad:
            return False
        before = [sanjuan.dump(q.state) for q in self.parties.values()]
        with pytest.raises(IllegalAction) as refused:
            self.move(seat, [bad[0]])
        assert refused.value.code in ("cannot_pay", "already_built")
        assert [sanjuan.dump(q.state) for q in self.parties.values()] == before
        assert bad[0] in self.public
        for q in self.parties.values():     # every party refuses it alike
            with pytest.raises(IllegalAction):
                sanjuan.apply(sanjuan.copy(q.state), seat, [bad[0]], q.streams)
        return True

    def replay_open(self):
        """The same moves on an open table dealt the same cards."""
        orders = {}
        for (name, idx), (items, first) in self.server.streams.piles.items():
            orders[(name, idx)] = [self.truth[first + i] for i in range(len(items))]
        rng = TruthStreams(orders, local_streams(self.seed))
        s = sanjuan.setup(self.names, self.options, rng)
        for seat, action in self.moves:
            sanjuan.apply(s, seat, [self.true(a) if type(a) is int else a for a in action], rng)
        return s


class TruthStreams(Open):
    """An open table dealt exactly as the blind one was: each pile in its true order."""

    def __init__(self, orders: dict, public) -> None:
        self.orders = orders
        self.public = public

    def shuffle(self, name: str, idx: int, items: list) -> list:
        order = self.orders[(name, idx)]
        assert sorted(order) == sorted(items), f"the open replay's pile {name} {idx} holds other cards"
        return list(order)

    def randbelow(self, name: str, idx: int, n: int) -> int:
        return self.public.randbelow(name, idx, n)


def play(table: Table, pick, refusals: int = 2, stop_round: int | None = None) -> None:
    """Play to the end (or to `stop_round`), each move picked by `pick(party, seat)` from what the
    mover's own party sees, checking every step."""
    table.check()
    while True:
        state = table.server.state
        to_act = sanjuan.to_act(state)
        if not to_act or (stop_round is not None and state.round >= stop_round):
            return
        seat = to_act[0]
        party = table.party_of(seat)
        if refusals and party.state.pending[seat][0] == "build" and table.refuse_unaffordable(seat):
            refusals -= 1
        table.move(seat, pick(party, seat))
        table.check()


CONFIGS = [(n, expansion) for n in (2, 3, 4) for expansion in (False, True)]


def random_legal(seed):
    rnd = random.Random(seed)
    return lambda party, seat: rnd.choice(sanjuan.legal(party.state, seat))


def own_bots(level: str, seed):
    made: dict[int, object] = {}

    def pick(party, seat):
        bot = made.setdefault(seat, bots.make("sanjuan", level, seed=f"{seed}/{seat}"))
        return bot.choose(sanjuan.view(party.state, seat))
    return pick


@pytest.mark.parametrize("players,expansion", CONFIGS)
@pytest.mark.parametrize("mode", ["random", "heuristic"])
def test_whole_blind_games_play_as_the_open_table_would(players, expansion, mode):
    """Whole games, two seeds each, with human seats 0 and (with 3 or more players) 2: after every
    move each party shows the public the same table and never reads a card it has not seen; each
    seat's build options are exactly the open table's for its cards; an unaffordable pick is
    refused after its reveal, changing nothing; the end is the open table's end for the same
    deal and moves."""
    for seed in range(2):
        name = f"blind/{mode}/{players}/{expansion}/{seed}"
        options = {"expansion": expansion, "setup_variant": seed == 1}
        table = Table(players, options, {0, 2} if players > 2 else {0}, name)
        pick = random_legal(name) if mode == "random" else own_bots("heuristic", name)
        play(table, pick)
        final = table.server.state
        assert final.over
        open_end = table.replay_open()
        assert sanjuan.dump(open_end) == sanjuan.dump(table.open_state(final))
        assert sanjuan.result(open_end) == sanjuan.result(final)
        assert sanjuan.dump(table.full_sight_replay()) == sanjuan.dump(final)


def test_a_stall_turns_up_the_hands_and_ends_as_the_open_table_does():
    """Supply, discard pile and goods empty: whether anybody can still build needs every hand, so
    they are turned face up for everyone (the one thing a blind table shows that an open one does
    not), and the game goes on or ends exactly as on an open table. Random two-player games reach
    it every few dozen games: the first seed that does is played out."""
    for seed in range(300):
        name = f"stall/{seed}"
        table = Table(2, {"expansion": False, "setup_variant": False}, {0}, name)
        play(table, random_legal(name), refusals=0)
        if table.opened_from_others:
            break
    else:
        pytest.fail("no random game reached a stall")
    assert sanjuan.dump(table.replay_open()) == sanjuan.dump(table.open_state(table.server.state))


def test_nobody_reads_a_card_it_was_not_shown():
    """A party that has seen nothing of seat 1 raises Hidden on that seat's cards (the engine never
    asks it), while the spectators' view never needs them; private_cards is what the view shows."""
    table = Table(3, {"expansion": True, "setup_variant": False}, {0, 1}, "hidden")
    play(table, random_legal("hidden"), stop_round=3)
    client0 = table.party_of(0)
    with pytest.raises(Hidden):
        sanjuan.view(client0.state, 1)
    public = Sight()      # what anybody at all may know: the cards turned face up for everyone
    public.items = {c: table.truth[c] for c in table.public}
    spectator = sanjuan.load(sanjuan.dump(client0.state), public)
    assert sanjuan.view(spectator, None) == sanjuan.view(client0.state, None)
    mine = sanjuan.view(client0.state, 0)["you"]
    assert sorted(c for place in ("hand", "chapel", "bank", "drawn") for c, _ in mine[place]) == \
        sorted(sanjuan.private_cards(client0.state, 0))


def test_a_blind_state_dumps_and_loads_with_its_sight():
    table = Table(4, {"expansion": True, "setup_variant": True}, {1}, "dump")
    play(table, random_legal("dump"), stop_round=4)
    for p in table.parties.values():
        data = sanjuan.dump(p.state)
        assert data["blind"] is True
        again = sanjuan.load(data, p.streams.sight)
        assert sanjuan.dump(again) == data
        assert sanjuan.views(again, [None]) == sanjuan.views(p.state, [None])


@pytest.mark.parametrize("level", ["random", "heuristic", "ismcts"])
def test_every_bot_plays_a_seat_from_the_servers_view(level):
    """The server plays its computer seats from the views it makes with its own sight: cards there
    are handles, and every pick is a legal move of the real prompt."""
    params = {"iterations": 40} if level == "ismcts" else {}
    name = f"bots/{level}"
    table = Table(3, {"expansion": True, "setup_variant": False}, {0}, name)
    made = {seat: bots.make("sanjuan", level, seed=f"{name}/{seat}", **params) for seat in (1, 2)}
    human = random_legal(name)

    def pick(party, seat):
        if seat in table.humans:
            return human(party, seat)
        view = sanjuan.view(party.state, seat)
        action = made[seat].choose(view)
        assert sorted(action, key=str) in [sorted(a, key=str) for a in sanjuan.legal(party.state, seat)]
        return action
    play(table, pick, stop_round=4 if level == "ismcts" else None)


def test_an_open_table_is_dealt_as_before():
    """The open engine holds ids and plain tables: no handle, no sight."""
    s = sanjuan.setup(["A", "B", "C"], {"expansion": True}, local_streams(5))
    assert not s.blind and type(s.kinds) is tuple
    assert "blind" not in sanjuan.dump(s)
    assert all(c < HANDLE_BASE for c in s.deck)
