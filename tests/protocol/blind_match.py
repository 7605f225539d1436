"""A blind match played in-process through protocol/blind_exchange.py with the real cryptography:
one BlindServerExchange, a BlindPlayerExchange per human seat and one for a spectator, every
entry and every client message passed through msgpack bytes as on a wire. Each seat decides
from its own prompt (its client's, or the server's replica for a computer seat). The round trips
to the clients are counted on a model of the network (`Match`)."""
from __future__ import annotations

import random
from typing import NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import games
from protocol.blind_exchange import BlindPlayerExchange, BlindServerExchange
from protocol.codec import pack, unpack
from protocol.fairness import player_commit
from protocol.harness import derived
from protocol.messages import ProtocolError, Signed
from protocol.signing import Signer


def _signer(seed: str, label: str) -> Signer:
    return Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, label)))


def wire(entry: Signed) -> Signed:
    kind, payload, sig = unpack(pack([entry.kind, entry.payload, entry.sig]))
    return Signed.parse(kind, payload, sig)


class Wait(NamedTuple):
    """A round trip that a blind table makes and an open one does not: nobody could decide, and
    the server could not go on, until the clients' messages in flight arrived."""
    at: int                  # the server's log length when they crossed
    moves: int               # the moves applied before it: it holds up move number `moves`
    cause: str               # what was awaited: see Match._cause
    carried: tuple           # the kinds of the messages that crossed, in order


class Moved(NamedTuple):
    """A move as the log applied it: the seat, its action, the public state before and after, and
    whether it dealt a seat a hidden card (one `private_cards` did not list before)."""
    seat: int
    action: list
    before: object
    after: object
    dealt: bool


def phase_of(moved: Moved) -> tuple:
    """The role phase a move belongs to (a role chosen and played out): (round, chooser, role),
    the role being the one under way, or the one the move chooses (a role's name: a choice that
    plays the whole phase out at once leaves no role under way). Role None: a move between the
    role phases (San Juan's chapel and hand limit)."""
    before, after = moved.before, moved.after
    chosen = moved.action[0] if moved.action and isinstance(moved.action[0], str) else None
    if getattr(before, "role", None):
        return before.round, before.chooser, before.role
    role = getattr(after, "role", None) or chosen
    return getattr(before, "round", None), moved.seat if role else None, role


def per_phase(m: "Match") -> dict:
    """The extra round trips of a played match by role phase: {phase_of: [its waits]} with every
    phase (none for most), and "deal" and "end" for those before the first move and after the
    last. A wait for shares counts in the phase of the move that dealt the cards (the last one
    applied that dealt any); a wait for a shuffle step or an opening in that of the step under way
    (the next move applied)."""
    out: dict = {"deal": [], "end": []}
    for moved in m.moved:
        out.setdefault(phase_of(moved), [])
    for w in m.waits:
        if w.cause == "shares":
            at = next((i for i in range(w.moves - 1, -1, -1) if m.moved[i].dealt), -1)
        else:
            at = w.moves if w.moves else -1
        key = "deal" if at < 0 else "end" if at >= len(m.moved) else phase_of(m.moved[at])
        out[key].append(w)
    return out


class Match:
    """A blind match, and a model of its network to count the round trips it costs.

    The model, as the real server (server/table_core.py) runs: the server's entries reach every
    client at once, and each client's reaction to them (its commitment, seed, shuffle step,
    shares, deal seed) leaves at once and is *in flight*. Then the next thing happens:
    - a seat that can decide does (a person's client once its own cards are all open to it, a
      computer seat once the server sees its cards and no step of the server's waits): a computer
      seat's move is the server's own and crosses nothing; a person's move crosses to the server
      with everything in flight (sent before it, or at the same moment by the other clients): the
      round trip an open table also makes for that move;
    - when no seat can decide and the server cannot go on (it waits for a shuffle step or an
      opening, or every seat to act waits for its cards), what is in flight crosses alone: one
      round trip that an open table does not make, kept in `waits` with what it waited for.
    A chain that is sequential by nature (a party's shuffle step is made on the previous party's
    output) so costs one round trip per link."""

    def __init__(self, game: str, players: int, humans, options=None, *, server_cls=BlindServerExchange,
                 seed: str = "m") -> None:
        self.engine = games.get(game)
        self.rnd = random.Random(seed)
        self.humans = sorted(humans)
        self.n = players
        # Every key and seed is derived from `seed`, so that a match (and its cards) is the same
        # on every run: a failure can be replayed.
        self.keys = {s: _signer(seed, f"player-key/{s}") for s in self.humans}
        seats = [(f"id{s}", f"P{s}") for s in range(players)]
        self.server = server_cls(game, options or {}, seats, _signer(seed, "server-key"),
                                 players=[self.keys[s].public_key if s in self.humans else "random"
                                          for s in range(players)],
                                 deal_seed=derived(seed, "server-deal-seed"), game_id=derived(seed, "game-id")[:16],
                                 server_seed=derived(seed, "server-seed"), started=0)
        self.clients = {s: BlindPlayerExchange(f"id{s}", self.keys[s], server_key=self.server.signer.public_key,
                                               seed=derived(seed, f"player-seed/{s}"),
                                               deal_seed=derived(seed, f"deal-seed/{s}"))
                        for s in self.humans}
        self.spectator = BlindPlayerExchange(None)
        self.in_flight: list[tuple[int, bytes]] = []   # (seat, message bytes) on their way to the server
        self.moving: set[int] = set()      # persons whose move is on its way (the log does not show it yet)
        self.client_messages = 0
        self.round_trips = 0               # every crossing: the persons' moves and the waits
        self.waits: list[Wait] = []
        self.moved: list[Moved] = []
        self.dealt_at = 0                  # the log's length once the deal is done
        self.bot_seeds = {s: derived(seed, f"bot-seed/{s}") for s in range(players) if s not in self.humans}

    def deliver(self, entries) -> None:
        """The server's entries reach every client, whose reactions leave at once."""
        for e in entries:
            for seat, client in self.clients.items():
                for reply in client.receive(wire(e)):
                    self.in_flight.append((seat, pack(reply)))
            before = self.spectator.replica and self.spectator.replica.state
            self.spectator.receive(wire(e))
            if e.body["t"] == "move":
                self.moving.discard(e.body["seat"])
                after = self.spectator.replica.state
                dealt = any(set(self.engine.private_cards(after, s)) - set(self.engine.private_cards(before, s))
                            for s in range(self.n))
                self.moved.append(Moved(e.body["seat"], unpack(e.body["move"]), before, after, dealt))

    def cross(self) -> None:
        """Everything in flight reaches the server, in order, and its entries everyone."""
        batch, self.in_flight = self.in_flight, []
        self.round_trips += 1
        for seat, raw in batch:
            self.client_messages += 1
            try:
                self.deliver(self.server.receive(seat, unpack(raw)))
            except ProtocolError as e:     # shares that crossed the move ending the game
                if e.code != "late":
                    raise
        assert not self.server.dropped, self.server.dropped

    def wait(self) -> None:
        """A round trip for the messages in flight alone: nobody can do anything until they arrive."""
        cause = self._cause()
        carried = tuple(unpack(raw)["type"] for _, raw in self.in_flight)
        self.waits.append(Wait(len(self.server.log), len(self.moved), cause, carried))
        self.cross()

    def _cause(self) -> str:
        """What the server or the seats wait for: "commitments", "seeds", "deal seeds",
        "shuffle <pile>" (a party's step), "open" (cards a step turns up), "shares" (cards dealt
        to a seat that must decide, not all open to it yet)."""
        server = self.server
        if server.phase == "commit":
            return "commitments"
        if server.phase == "reveal":
            return "seeds"
        if server.phase != "play":
            return "deal seeds"
        waiting = server.waiting
        if waiting and waiting[0] == "shuffle":
            piling = server.replica.piling
            return f"shuffle {piling.name}"
        if waiting:
            return "open"
        return "shares"

    def pump(self) -> None:
        """Deliver what is in flight until nobody has anything more to send."""
        while self.in_flight:
            self.cross()

    def start(self) -> None:
        """The header, the commitments and seeds, and the deal (counted in `waits` too)."""
        self.deliver([self.server.header])
        game_id = self.server.game_id
        for s, seed in self.bot_seeds.items():
            self.deliver(self.server.commit(s, player_commit(game_id, f"id{s}", seed)))
        self.wait()
        for s, seed in self.bot_seeds.items():
            self.deliver(self.server.reveal(s, seed))
        while self.server.replica is None or self.server.replica.state is None or self.server.step is not None \
                or self.in_flight:     # the first to decide needs its hand open, so the shares come first
            assert self.in_flight, f"the deal is stuck: the server waits for {self.server.owed()}"
            self.wait()
        self.dealt_at = len(self.server.log)

    def step(self) -> bool:
        """One move by a seat that can decide, after the round trips it had to wait for; False
        when the game is over."""
        server = self.server
        while server.phase == "play":
            for seat in self.engine.to_act(server.replica.state):
                if seat in self.humans:
                    prompt = self.clients[seat].prompt()
                    if prompt is None or seat in self.moving:
                        continue
                    self.in_flight.append((seat, pack(self.clients[seat].move(self._pick(prompt)))))
                    self.moving.add(seat)
                    self.cross()
                    return True
                prompt = server.prompt(seat)
                if prompt is not None and server.step is None:
                    self.deliver(server.act(seat, self._pick(prompt)))
                    return True
            assert self.in_flight, f"nobody can decide: the server waits for {server.owed()}"
            self.wait()
        return False

    def _pick(self, prompt: dict) -> list:
        from games.choice import pick_uniform
        return pick_uniform(prompt["options"], prompt["min"], prompt["max"], self.rnd)

    def play(self, check=None, max_moves: int = 5000) -> None:
        self.start()
        moves = 0
        while self.step():
            moves += 1
            assert moves < max_moves
            if check:
                check(self)
        while self.in_flight:    # the deal seeds, and the final entry
            self.wait()
