"""A player's pick among hidden cards reaches nobody else (docs/fairness.md §9, "Where each thing travels").

Hidden information has one door, the engine's `view`. A move is the list of options picked, and
for a private choice those options are card ids; its signed bytes, and the player's signature
over them (Ed25519 is deterministic: anyone holding the public key could try every candidate
move against it), would tell the pick. So they travel only in the final entry, when nothing is
hidden any more. The test finds, in a real exchange of each game, a decision two of whose legal
picks leave every other seat's view the same, plays each pick in a copy of the match, and
compares every byte the other seats receive.
"""
import copy

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import games
from bots.random_bot import RandomBot
from protocol import wire
from protocol.codec import pack
from protocol.exchange import PlayerExchange, ServerExchange
from protocol.harness import derived, play_match
from protocol.signing import Signer

NAMES = ["Ana", "Bo", "Cy"]


class Copy:
    """One copy of a match, every seat a player with a key; `inbox[s]` is every frame seat s received."""

    def __init__(self, game: str, seed: str) -> None:
        self.engine = games.get(game)
        seats = [(f"p{i}", name) for i, name in enumerate(NAMES)]
        keys = [Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, f"key/{i}"))) for i in range(len(NAMES))]
        signer = Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, "server")))
        self.server = ServerExchange(game, {}, seats, signer, game_id=derived(seed, "id")[:16],
                                     server_seed=derived(seed, "seed"), players=[k.public_key for k in keys],
                                     started=1)
        self.players = [PlayerExchange(pid, derived(seed, f"seed/{i}"), server_key=signer.public_key, signer=keys[i])
                        for i, (pid, _) in enumerate(seats)]
        self.inbox: list[list[bytes]] = [[] for _ in NAMES]
        for seat, commitment in self.deliver([self.server.header]):
            for seat2, s in self.deliver(self.server.commit(seat, commitment,
                                                            self.players[seat].sign_commit(commitment))):
                self.deliver(self.server.reveal(seat2, s, self.players[seat2].sign_reveal(s)))

    def deliver(self, messages) -> list:
        replies = []
        for m in messages:
            for s in range(len(NAMES)) if m.kind == "entry" else [m.body["seat"]]:
                self.inbox[s].append(wire.signed_frame("t1", m))
                reply = self.players[s].receive(m)
                if reply is not None:
                    replies.append((s, reply))
        return replies

    def move(self, seat: int, action: list) -> None:
        move = pack(action)
        seen = len(self.players[seat].entries) - 1
        self.deliver(self.server.act_signed(seat, seen, move, self.players[seat].sign_move(seen, move)))


def hidden_pick(engine, state, seat: int, streams):
    """Two legal picks of `seat` that change its own view and no other seat's, or None."""
    legal = engine.legal(state, seat)[:12]
    after = []
    for action in legal:
        s = copy.deepcopy(state)
        engine.apply(s, seat, action, streams)
        after.append([engine.view(s, k) for k in range(len(NAMES))])
    for i in range(len(legal)):
        for j in range(i + 1, len(legal)):
            a, b = after[i], after[j]
            if a[seat] != b[seat] and all(a[k] == b[k] for k in range(len(NAMES)) if k != seat):
                return legal[i], legal[j]
    return None


@pytest.mark.parametrize("game", ["sanjuan", "puertorico"])
def test_others_receive_the_same_bytes_whichever_hidden_card_is_picked(game):
    seed = f"hidden/{game}"
    a = Copy(game, seed)
    engine, bots = a.engine, [RandomBot(f"{seed}/{k}") for k in range(len(NAMES))]
    played, found = [], None
    while a.server.phase == "play" and found is None:
        picker = engine.to_act(a.server.state)[0]
        found = hidden_pick(engine, a.server.state, picker, a.server.streams)
        if found is None:
            action = bots[picker].choose(engine.view(a.server.state, picker))
            a.move(picker, action)
            played.append((picker, action))
    if found is None:
        # Every decision of the match was searched: a game with nothing hidden has no pick to leak
        # (Puerto Rico: every tile, good and doubloon is on the table), one that deals cards must have one.
        assert a.server.phase == "over"
        assert all(engine.dealt(a.server.state, s) is None for s in range(len(NAMES))), \
            f"{game} deals hidden cards, yet no pick among them was found to test"
        return
    b = Copy(game, seed)
    for seat, action in played:
        b.move(seat, action)
    assert a.inbox == b.inbox
    a.move(picker, found[0])
    b.move(picker, found[1])
    assert engine.view(a.server.state, picker) != engine.view(b.server.state, picker)
    for other in range(len(NAMES)):
        if other != picker:
            assert a.inbox[other] == b.inbox[other], f"seat {other} can tell {found[0]} from {found[1]}"


def test_no_public_move_entry_carries_the_move_or_its_signature():
    server, players = play_match("sanjuan", NAMES, {}, [RandomBot(f"public/{k}").choose for k in range(3)], "public")
    moves = [e.body for e in server.log if e.body["t"] == "move"]
    assert moves and not any("move" in b or "sig" in b for b in moves)
    assert all(p.report.ok for p in players)
