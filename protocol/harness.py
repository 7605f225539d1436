"""A whole match played in-process through both sides of the fair-dealing exchange.

The server side (protocol.exchange.ServerExchange) runs the rules and signs; every seat has its
own PlayerExchange with its own seed, which checks each message, commits, reveals and, at the
end, audits the record. Deciders see only their seat's view. Used by `governor selfplay`, the
verify benchmark and the tests; the network server does the same over sockets.
"""
from __future__ import annotations

import hashlib
from typing import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import games
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.signing import Signer

Decider = Callable[[dict], list]


def derived(seed: str, label: str) -> bytes:
    """Self-play is a simulation, reproducible from its seed: its server key, game id and every
    seed are derived from it. A real match draws them from the operating system's CSPRNG."""
    return hashlib.sha256(f"governor-selfplay/{label}/{seed}".encode()).digest()


def play_match(game: str, names: list[str], options: dict, deciders: list[Decider], seed: str,
               signer: Signer | None = None) -> tuple[ServerExchange, list[PlayerExchange]]:
    engine = games.get(game)
    signer = signer or Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, "server-key")))
    seats = [(f"{i}:{name}", name) for i, name in enumerate(names)]
    server = ServerExchange(game, options, seats, signer, game_id=derived(seed, "game-id")[:16],
                            server_seed=derived(seed, "server-seed"))
    players = [PlayerExchange(pid, derived(seed, f"player-seed/{i}"), server_key=signer.public_key)
               for i, (pid, _) in enumerate(seats)]

    for seat, commitment in deliver(players, [server.header]):
        for seat2, seed_bytes in deliver(players, server.commit(seat, commitment)):
            deliver(players, server.reveal(seat2, seed_bytes))
    while server.phase == "play":
        seat = engine.to_act(server.state)[0]
        deliver(players, server.act(seat, deciders[seat](engine.view(server.state, seat))))
    return server, players


def deliver(players: list[PlayerExchange], messages) -> list:
    """Hand each message to the seats that receive it (entries to all, private messages to their
    seat); return their replies as (seat, reply)."""
    replies = []
    for m in messages:
        targets = range(len(players)) if m.kind == "entry" else [m.body["seat"]]
        for i in targets:
            reply = players[i].receive(m)
            if reply is not None:
                replies.append((i, reply))
    return replies
