"""A whole match played in-process through both sides of the fair-dealing exchange.

The server side (protocol.exchange.ServerExchange) runs the rules and signs; every seat has its
own PlayerExchange with its own seed and its own player key (made in memory, derived from the
match's seed), which checks each message, signs and sends its commitment, its seed and its moves,
and at the end audits the record. Deciders see only their seat's view. Used by `governor selfplay`, the
verify benchmark and the tests; the network server does the same over sockets.
"""
from __future__ import annotations

import hashlib
from typing import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import games
from protocol.codec import pack
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
    keys = [Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, f"player-key/{i}"))) for i in range(len(names))]
    server = ServerExchange(game, options, seats, signer, game_id=derived(seed, "game-id")[:16],
                            server_seed=derived(seed, "server-seed"), players=[k.public_key for k in keys],
                            started=0)
    players = [PlayerExchange(pid, derived(seed, f"player-seed/{i}"), server_key=signer.public_key, signer=keys[i])
               for i, (pid, _) in enumerate(seats)]

    for seat, commitment in deliver(players, [server.header]):
        sig = players[seat].sign_commit(commitment)
        for seat2, seed_bytes in deliver(players, server.commit(seat, commitment, sig)):
            deliver(players, server.reveal(seat2, seed_bytes, players[seat2].sign_reveal(seed_bytes)))
    while server.phase == "play":
        seat = engine.to_act(server.state)[0]
        move = pack(list(deciders[seat](engine.view(server.state, seat))))
        seen = len(players[seat].entries) - 1
        deliver(players, server.act_signed(seat, seen, move, players[seat].sign_move(seen, move)))
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
