"""A blind table played in one process: one engine replica per party, and a trusted oracle in
place of the cryptography (protocol/blind.py does the real thing, games/blind.py says what an
engine does on a blind table).

The parties are the server, which sees the computer seats' cards, and each human seat. The oracle
knows the true order of every pile the parties shuffle together and opens each card to the
parties the protocol would open it to: a card a seat may look at (`private_cards`) to that seat's
party alone, a card the rules turn face up (`Unopened`) to all of them. Everything a party knows
is in its `BlindStreams`; an engine that reads a card its party was never opened raises
`games.blind.Hidden`, which fails the test that drives it.

A move is applied as the server applies it: on a copy of the server's state, again after each
opening or joint shuffle the rules ask for, until it goes through; then by every other party,
which must need nothing more. A card the rules open from a hand is opened by its holder, and
only when the holder's own replica, trying the same move, asks for that card too (the mover's
building; San Juan's stall turns up every hand): a holder's client never opens a card on the
server's word alone. Any other card a rule opens comes from a pile, and every party opens it.
"""
from __future__ import annotations

import random

from games.blind import BlindStreams, Sight, Unopened, Unshuffled, is_handle
from protocol.fairness import local_streams

SERVER = "server"


class Party:
    def __init__(self, name, seats: set[int], seed: str) -> None:
        self.name = name
        self.seats = seats                       # the seats whose private cards it is opened
        self.streams = BlindStreams(local_streams(seed))
        self.state = None

    @property
    def sight(self) -> Sight:
        return self.streams.sight


class BlindMatch:
    def __init__(self, game, players: int, options: dict, humans, seed: str) -> None:
        self.game = game
        self.names = [f"P{i}" for i in range(players)]
        self.options = game.INFO.check_options(options)
        self.humans = sorted(humans)
        bots = {s for s in range(players) if s not in self.humans}
        self.parties = {SERVER: Party(SERVER, bots, seed),
                        **{s: Party(s, {s}, seed) for s in self.humans}}
        self.oracle = random.Random(f"{seed}/oracle")
        self.truth: dict[int, int] = {}           # handle -> item: what the cryptography hides
        self.public: set[int] = set()
        self.opened_to: dict[int, set] = {s: set() for s in range(players)}   # seat -> cards opened to it
        self.moves: list[tuple[int, list]] = []
        self.piles: list[tuple[str, int, tuple]] = []
        self.rounds = {"shuffles": 0, "public openings": 0}
        self.opened_from_others = 0    # cards a rule turned up from a hand not the mover's
        for party in self.parties.values():
            party.state = self._until_dealt(lambda rng: game.setup(self.names, self.options, rng), party, move=None)
        self._deal_private()

    # ------------------------------------------------------------ the oracle's side

    def _shuffle(self, name: str, idx: int, items: tuple) -> None:
        true_items = [self.truth[c] if is_handle(c) else c for c in items]
        self.oracle.shuffle(true_items)
        self.piles.append((name, idx, items))
        self.rounds["shuffles"] += 1
        handles = None
        for party in self.parties.values():
            handles = party.streams.shuffled(name, idx, items)
        assert handles is not None
        self.truth.update(zip(handles, true_items))

    def _open_public(self, cards, move: tuple[int, list] | None) -> None:
        dealt = self.parties[SERVER].state is not None    # setup may turn cards up: nothing is held yet
        held = {c: seat for seat in range(len(self.names)) for c in self._private(seat)} if dealt else {}
        for c in cards:
            holder = held.get(c)
            if holder is None:
                continue
            assert c in self.opened_to[holder], f"seat {holder} opens card {c} it was never shown"
            assert move is not None and c in self._asked_of(self.party_of(holder), *move), \
                f"seat {holder} was asked to open card {c}, which its own game does not turn up"
            self.opened_from_others += holder != move[0]
        self.rounds["public openings"] += 1
        for c in cards:
            self.public.add(c)
            for party in self.parties.values():
                party.streams.opened(c, self.truth[c], public=True)

    def _asked_of(self, party: Party, seat: int, action: list) -> set[int]:
        """The cards a party's own replica turns up next if `seat` makes this move: what a
        holder's client checks before it opens one of its cards."""
        try:
            self.game.apply(self.game.copy(party.state), seat, action, party.streams)
        except Unopened as need:
            return set(need.cards)
        return set()

    def _private(self, seat: int) -> list[int]:
        return [c for c in self.game.private_cards(self.parties[SERVER].state, seat) if is_handle(c)]

    def _deal_private(self) -> None:
        """Open to each seat the hidden cards it may now look at, as the other parties' shares do."""
        for seat in range(len(self.names)):
            party = self.parties[seat] if seat in self.humans else self.parties[SERVER]
            for c in self._private(seat):
                if c not in self.opened_to[seat]:
                    self.opened_to[seat].add(c)
                    party.streams.opened(c, self.truth[c], public=False)

    def _until_dealt(self, step, party: Party, move: tuple[int, list] | None):
        """Run `step(rng)` for a party, shuffling and opening what it asks for first. Only the
        server may ask: the others follow a log in which all of it is done already."""
        for _ in range(1000):
            try:
                return step(party.streams)
            except Unshuffled as need:
                assert party.name == SERVER or self.parties[SERVER].state is None, \
                    f"party {party.name} needed a shuffle the server did not"
                if (need.name, need.idx, need.items) not in self.piles:
                    self._shuffle(need.name, need.idx, need.items)
            except Unopened as need:
                assert party.name == SERVER, f"party {party.name} needed openings the server did not"
                self._open_public(need.cards, move)
        raise AssertionError("a move kept asking for openings")

    # ------------------------------------------------------------ playing

    def party_of(self, seat: int) -> Party:
        return self.parties[seat] if seat in self.humans else self.parties[SERVER]

    def to_act(self) -> list[int]:
        return self.game.to_act(self.parties[SERVER].state)

    def move(self, seat: int, action: list) -> None:
        """Apply a move as the server would, then in every party's replica."""
        game = self.game
        server = self.parties[SERVER]

        def attempt(rng):
            trial = game.copy(server.state)
            game.apply(trial, seat, action, rng)
            return trial

        server.state = self._until_dealt(attempt, server, move=(seat, action))
        for party in self.parties.values():
            if party is not server:
                game.apply(party.state, seat, action, party.streams)
        self.moves.append((seat, action))
        self._deal_private()

    def play(self, rnd: random.Random, *, max_moves: int = 20_000, choose=None, check=None) -> None:
        """Play to the end, each seat choosing from what its own party sees (`choose(game, state,
        seat, rnd)`, by default a uniform legal move)."""
        game = self.game
        while self.to_act():
            assert len(self.moves) < max_moves, "a blind game did not end"
            seat = self.to_act()[0]
            party = self.party_of(seat)
            action = (choose or _uniform)(game, party.state, seat, rnd)
            self.move(seat, action)
            if check:
                check(self)

    # ------------------------------------------------------------ what the tests compare

    def public_views(self) -> list:
        return [self.game.view(p.state, None) for p in self.parties.values()]

    def leaked_to_server(self) -> set[int]:
        """Cards the server's party knows that were only ever a human seat's: none, ever."""
        human_only = set().union(*(self.opened_to[s] for s in self.humans)) if self.humans else set()
        bot_cards = set().union(*(self.opened_to[s] for s in range(len(self.names)) if s not in self.humans))
        known = set(self.parties[SERVER].sight.items)
        return (known & human_only) - self.public - bot_cards

    def full_sight_replay(self):
        """The same moves replayed by a party that sees every card: what the end-of-match audit
        does once every secret is revealed."""
        streams = BlindStreams(self.parties[SERVER].streams.public)
        for name, idx, items in self.piles:
            streams.shuffled(name, idx, items)
        for card, item in self.truth.items():
            streams.opened(card, item, public=card in self.public)
        state = self.game.setup(self.names, self.options, streams)
        for seat, action in self.moves:
            self.game.apply(state, seat, action, streams)
        return state


def _uniform(game, state, seat: int, rnd: random.Random) -> list:
    return game.random_action(state, seat, rnd)
