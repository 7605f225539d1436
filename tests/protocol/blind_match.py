"""A blind match played in-process through protocol/blind_exchange.py with the real cryptography:
one BlindServerExchange, a BlindPlayerExchange per human seat and one for a spectator, every
entry and every client message passed through msgpack bytes as on a wire. Each seat decides
from its own prompt (its client's, or the server's replica for a computer seat)."""
from __future__ import annotations

import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import games
from protocol.blind_exchange import BlindPlayerExchange, BlindServerExchange
from protocol.codec import pack, unpack
from protocol.fairness import player_commit
from protocol.harness import derived
from protocol.messages import Signed
from protocol.signing import Signer


def _signer(seed: str, label: str) -> Signer:
    return Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, label)))


def wire(entry: Signed) -> Signed:
    kind, payload, sig = unpack(pack([entry.kind, entry.payload, entry.sig]))
    return Signed.parse(kind, payload, sig)


class Match:
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
        self.outbox: list[tuple[int, bytes]] = []     # (seat, message bytes) on their way to the server
        self.delivered = 0
        self.client_messages = 0
        self.round_trips = 0       # batches of client messages the server waited for
        self.bot_seeds = {s: derived(seed, f"bot-seed/{s}") for s in range(players) if s not in self.humans}

    def deliver(self, entries) -> None:
        for e in entries:
            for seat, client in self.clients.items():
                for reply in client.receive(wire(e)):
                    self.outbox.append((seat, pack(reply)))
            self.spectator.receive(wire(e))
            self.delivered += 1

    def pump(self) -> None:
        """Hand every client message to the server, and the entries it makes to everyone, until
        nobody has anything more to send."""
        while self.outbox:
            self.round_trips += 1
            batch, self.outbox = self.outbox, []
            for seat, raw in batch:
                self.client_messages += 1
                self.deliver(self.server.receive(seat, unpack(raw)))

    def start(self) -> None:
        self.deliver([self.server.header])
        game_id = self.server.game_id
        for s, seed in self.bot_seeds.items():
            self.deliver(self.server.commit(s, player_commit(game_id, f"id{s}", seed)))
        self.pump()
        for s, seed in self.bot_seeds.items():
            self.deliver(self.server.reveal(s, seed))
        self.pump()

    def step(self) -> bool:
        """One move by a seat that can decide; False when none can (the game is over)."""
        server = self.server
        if server.phase != "play":
            return False
        for seat in self.engine.to_act(server.replica.state):
            if seat in self.humans:
                prompt = self.clients[seat].prompt()
                if prompt is None:
                    continue
                action = self._pick(prompt)
                msg = self.clients[seat].move(action)
                self.outbox.append((seat, pack(msg)))
            else:
                prompt = server.prompt(seat)
                if prompt is None:
                    continue
                self.deliver(server.act(seat, self._pick(prompt)))
            self.pump()
            return True
        raise AssertionError(f"nobody can decide: the server waits for {server.owed()}")

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
        self.pump()
