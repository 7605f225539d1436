"""Frame lengths on the wire: what each seat is sent in a match, what the padding costs, and
whether a frame's length tells an eavesdropper which hidden cards it carries.

    python bench/frames.py [--games 8] [--game ID] [--option NAME=VALUE ...] [--json] [--cpu]

Seeded matches of random bots, at every player count, go through the server's own output path:
the fair-dealing exchange (protocol/exchange.py) signs the entries and private messages, the
table's Broadcaster (server/broadcast.py) makes each seat's snapshots and deltas, and
protocol/wire.py encodes and pads them. At every move the same move is also played in a twin
world in which everything the mover cannot see is dealt anew (the game's `permute_hidden`: the
supply, the other hands, ...), from the same public position. A frame to a seat whose length
differs between the two worlds tells an eavesdropper over TLS something about hidden cards.

The mover's own side of its connection is compared too: its `act` as the client encodes it, and
the table's `reject` of a pick its question does not offer (drawn from the card ids; the rules
may name the card in their refusal). The twin world holds what the mover sees, so at every move
those are also swept over what they could have carried: the acts of SAMPLED other legal picks,
the rejects of SAMPLED other picks not offered; all of one length tells nothing of which.

Reported per table: bytes per match to the seats with the padding and without it (the same
matches again, encoded without the padding), the share of (move, seat) pairs whose
frames differ in length between the two worlds, and the share of moves whose acts or rejects
take more than one length by what they carry, with the padding and without it. The last line
is one JSON object.

With --cpu, the matches alone (no twin world, no unpadded encoding) and the CPU time they take
per move: the server's own work on a move bar the network, the store and the event loop (the
rules, the signing, every seat's view, delta, hash and padding), for issue 14.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

import bots  # noqa: E402
import games  # noqa: E402
from games.errors import IllegalAction  # noqa: E402
from protocol import wire  # noqa: E402
from protocol.wire import signed_frame  # noqa: E402
from protocol.exchange import ServerExchange  # noqa: E402
from protocol.fairness import player_commit  # noqa: E402
from protocol.harness import derived  # noqa: E402
from protocol.messages import split_events  # noqa: E402
from protocol.signing import Signer  # noqa: E402
from server.broadcast import Broadcaster, Sent  # noqa: E402
from server.table_core import EVENTS_IN_SNAPSHOT  # noqa: E402


SAMPLED = 8     # at each move, the other acts and rejects whose lengths are compared with the real one's


class unpadded:
    """Within this block frames are encoded as they were before padding: the same matches then
    show what the padding costs and what it hides."""

    def __enter__(self):
        self.padded = dict(wire.PADDED)
        wire.PADDED.clear()

    def __exit__(self, *exc):
        wire.PADDED.update(self.padded)


class _Conn:
    """A connection that keeps what it is sent (server/conn.py's interface, no socket)."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.stale_view = False
        self.closed = False
        self.seq = -1

    def push(self, frame: bytes, droppable: bool = False) -> None:
        self.frames.append(frame)


@dataclass
class _Seat:
    index: int
    conn: _Conn
    human: bool = True


@dataclass
class _Core:
    """What the Broadcaster reads of a table's core (server/table_core.py)."""
    engine: object
    seats: list
    id: str = "t-frames"
    spectators: list = field(default_factory=list)
    state: object = None
    seq: int = 0
    latest_events: deque = field(default_factory=lambda: deque(maxlen=EVENTS_IN_SNAPSHOT))
    blind: bool = False


@dataclass
class Match:
    """One match's frames to each seat, and, per move, whether the twin world's frames to a seat
    had other lengths. A move that makes public something that differs between the worlds (a
    gold mine turns up other cards, another plantation is drawn) is not compared: what it tells
    is everyone's to know."""
    players: int
    options: dict
    frames: list[list[bytes]]                     # per seat, every frame in order
    moves: int = 0
    reveals: int = 0                              # moves that made public what differs between the worlds
    differ: int = 0                               # (move, seat) pairs whose lengths differ
    pairs: int = 0
    examples: list = field(default_factory=list)  # a few (move, seat, real lengths, twin lengths)
    by_content: int = 0                           # moves whose acts or rejects took several lengths


def _frames_for_move(ex: ServerExchange, b: Broadcaster, n0: int, events: list[dict], actor: int,
                     old_sent: list) -> list[list[bytes]]:
    """Each seat's frames for the move that produced ex.sent[n0:] and `events`, as the table
    sends them: its signed messages, then its view update against what `old_sent` says it has."""
    core = b.core
    n = len(core.seats)
    out: list[list[bytes]] = [[] for _ in range(n)]
    for m in ex.sent[n0:]:
        frame = signed_frame(core.id, m)
        for i in range(n) if m.kind == "entry" else [m.body["seat"]]:
            out[i].append(frame)
    for s in core.seats:
        if old_sent[s.index] is None:
            b._sent.pop(s.index, None)      # nothing sent yet: a snapshot
        else:
            b._sent[s.index] = old_sent[s.index]
        s.conn.frames = []
    core.state, core.seq = ex.state, len(ex.log) - 1
    shown = ex.engine.visible_events(events, None)    # public: a snapshot carries the latest
    core.latest_events.extend(shown)
    b.show(shown, actor)
    for s in core.seats:
        out[s.index] += s.conn.frames
    return out


def _act(action: list, seq: int) -> bytes:
    """A seat's `act` as the client encodes it (client/table.py), its id one a move."""
    return wire.encode({"type": "act", "id": seq, "seq": seq, "action": list(action)})


def _reject(ex: ServerExchange, actor: int, pick: list) -> bytes:
    """The table's answer to a pick the rules refuse, as server/table_core.py sends it."""
    try:
        ex.act(actor, pick)
    except IllegalAction as e:     # nothing changed
        return wire.encode({"type": "reject", "id": len(ex.log), "code": e.code, "message": e.message})
    raise AssertionError(f"{pick!r} was not refused")


def _not_offered(ex: ServerExchange, actor: int, rnd: random.Random) -> list:
    """A pick the actor's question does not offer: a number among the game's card ids."""
    offered = set(ex.engine.prompt(ex.state, actor)["options"])
    ids = len(ex.engine.manifest(ex.options)) + 1
    return [rnd.choice([n for n in range(ids) if n not in offered])]


def _commands(ex: ServerExchange, actor: int, action: list, refused: list) -> list[bytes]:
    """The actor's own side of its move: its act, and the reject of a pick not offered."""
    return [_act(action, len(ex.log) - 1), _reject(ex, actor, refused)]


def _lengths_by_content(ex: ServerExchange, actor: int, action: list, rnd: random.Random) -> bool:
    """Whether the actor's act, beside those of SAMPLED other legal picks, and the rejects of
    SAMPLED picks not offered, take more than one length each: what they carry would show."""
    seq = len(ex.log) - 1
    acts = {len(_act(a, seq)) for a in [action] + [ex.engine.random_action(ex.state, actor, rnd)
                                                    for _ in range(SAMPLED)]}
    rejects = {len(_reject(ex, actor, _not_offered(ex, actor, rnd))) for _ in range(SAMPLED)}
    return len(acts) > 1 or len(rejects) > 1


def _public(ex: ServerExchange) -> tuple:
    """What everyone learns from the latest move: the public view after it and its public events."""
    return ex.engine.view(ex.state, None), split_events(ex.last_events, len(ex.seats))[0]


def _twin(ex: ServerExchange, b: Broadcaster, actor: int, action, refused: list,
          rnd: random.Random) -> tuple[list, tuple]:
    """The frames of the same move in a world where everything `actor` cannot see is dealt
    anew (the actor's own side with them: `_commands`), and what the move makes public there;
    the exchange and the broadcaster are left as they were."""
    engine = ex.engine
    real_state, real_seq = ex.state, b.core.seq
    kept = (len(ex.log), len(ex.sent), len(ex.packed_moves), ex.phase, ex.last_events)
    sent_before, events_before = dict(b._sent), deque(b.core.latest_events, EVENTS_IN_SNAPSHOT)
    twin = engine.permute_hidden(ex.state, actor, rnd)
    old_sent = [Sent(s.conn, engine.view(twin, s.index), real_seq, None) for s in b.core.seats]
    ex.state = twin
    commands = _commands(ex, actor, action, refused)
    n0 = len(ex.sent)
    ex.act(actor, action)
    frames = _frames_for_move(ex, b, n0, ex.last_events, actor, old_sent)
    frames[actor] += commands
    public = _public(ex)
    del ex.log[kept[0]:], ex.sent[kept[1]:], ex.packed_moves[kept[2]:]
    ex.phase, ex.last_events = kept[3], kept[4]
    ex.state, b.core.state, b.core.seq = real_state, real_state, real_seq
    b._sent, b.core.latest_events = sent_before, events_before
    return frames, public


def play(game: str, players: int, options: dict, seed: str, twins: bool = True) -> Match:
    """A seeded match of random bots; with `twins`, every move is also played in a twin world."""
    engine = games.get(game)
    signer = Signer(Ed25519PrivateKey.from_private_bytes(derived(seed, "server-key")))
    seats = [(f"{i}:P{i}", f"P{i}") for i in range(players)]
    ex = ServerExchange(game, options, seats, signer, game_id=derived(seed, "game-id")[:16],
                        server_seed=derived(seed, "server-seed"))
    core = _Core(engine, [_Seat(i, _Conn()) for i in range(players)])
    b = Broadcaster(core)
    match = Match(players, options, [[] for _ in range(players)])
    seeds = [derived(seed, f"player-seed/{i}") for i in range(players)]
    for i, (pid, _) in enumerate(seats):
        ex.commit(i, player_commit(ex.game_id, pid, seeds[i]))
    n0 = len(ex.sent)
    for i in range(players):
        ex.reveal(i, seeds[i])
    core.state, core.seq = ex.state, len(ex.log) - 1
    for i, frames in enumerate(_frames_for_move(ex, b, n0, [], None, [None] * players)):
        match.frames[i] += frames
    deciders = [bots.make(game, "random", f"{seed}/{i}") for i in range(players)]
    rnd = random.Random(f"twin/{seed}")
    contents = random.Random(f"contents/{seed}")      # the picks the actor could have sent instead
    while ex.phase == "play":
        actor = engine.to_act(ex.state)[0]
        action = deciders[actor].choose(engine.view(ex.state, actor))
        refused = _not_offered(ex, actor, contents) if twins else None   # --cpu times the match alone
        twin, public = _twin(ex, b, actor, action, refused, rnd) if twins else (None, None)
        old_sent = [b._sent[i] for i in range(players)]
        commands = _commands(ex, actor, action, refused) if twins else []
        match.by_content += twins and _lengths_by_content(ex, actor, action, contents)
        n0 = len(ex.sent)
        ex.act(actor, action)
        real = _frames_for_move(ex, b, n0, ex.last_events, actor, old_sent)
        real_commands = real[actor] + commands     # the actor's connection, both ways
        match.moves += 1
        if twin is not None and public != _public(ex):
            match.reveals += 1
            twin = None
        for i in range(players):
            match.frames[i] += real[i]
            if twin is None:
                continue
            match.pairs += 1
            lengths = [len(f) for f in (real_commands if i == actor else real[i])], [len(f) for f in twin[i]]
            if lengths[0] != lengths[1]:
                match.differ += 1
                if len(match.examples) < 5:
                    match.examples.append((match.moves, i, *lengths))
    return match


def matches(game: str, players: int, options: dict, count: int, twins: bool = True) -> list[Match]:
    return [play(game, players, options, f"frames/{game}/{players}/{k}", twins) for k in range(count)]


def summary(ms: list[Match]) -> tuple[float, float, float]:
    """Bytes per match to the seats, the share of (move, seat) pairs whose frames had other
    lengths in the twin world, and the share of moves whose acts or rejects took several lengths."""
    sent = sum(len(f) for m in ms for seat in m.frames for f in seat)
    return (sent / len(ms), sum(m.differ for m in ms) / (sum(m.pairs for m in ms) or 1),
            sum(m.by_content for m in ms) / (sum(m.moves for m in ms) or 1))


def measure(game: str, players: int, options: dict, count: int) -> dict:
    padded, differ, by_content = summary(matches(game, players, options, count))
    with unpadded():
        bare, differ_bare, by_content_bare = summary(matches(game, players, options, count))
    return {"players": players, "options": options, "games": count,
            "bytes_per_match": round(padded), "unpadded_bytes_per_match": round(bare),
            "overhead": round(padded / bare - 1, 3),
            "lengths_differ": round(differ, 4), "lengths_differ_unpadded": round(differ_bare, 4),
            "commands_by_content": round(by_content, 4), "commands_by_content_unpadded": round(by_content_bare, 4)}


def output_cost(game: str, players: int, options: dict, count: int) -> dict:
    start = time.process_time()
    ms = matches(game, players, options, count, twins=False)
    cpu = time.process_time() - start
    moves = sum(m.moves for m in ms)
    return {"players": players, "options": options, "games": count, "moves": moves,
            "cpu_ms_per_move": round(1000 * cpu / moves, 3)}


def main(argv: list[str] | None = None) -> None:
    from common import add_game_arguments, describe, engine_and_options

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_arguments(ap)
    ap.add_argument("--games", type=int, default=8, help="matches per table")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    ap.add_argument("--cpu", action="store_true", help="the CPU time per move of the matches alone")
    args = ap.parse_args(argv)
    engine, option_sets = engine_and_options(ap, args)
    if args.cpu:
        rows = [output_cost(engine.INFO.id, n, options, args.games) for n in engine.INFO.players
                for options in option_sets]
        if not args.json:
            for r in rows:
                print(f"{r['players']} players, {describe(engine, r['options']):28s}: "
                      f"{r['cpu_ms_per_move']:.3f} ms of CPU a move ({r['moves']} moves)")
        print(json.dumps({"bench": "frames-cpu", "game": engine.INFO.id, "configs": rows}))
        return
    rows = [measure(engine.INFO.id, n, options, args.games) for n in engine.INFO.players for options in option_sets]
    if not args.json:
        for r in rows:
            print(f"{r['players']} players, {describe(engine, r['options']):28s}: "
                  f"{r['bytes_per_match'] / 1024:7.1f} KiB a match to the seats "
                  f"({r['unpadded_bytes_per_match'] / 1024:7.1f} KiB unpadded, {r['overhead']:+.1%}); "
                  f"lengths differ in a twin world at {r['lengths_differ']:.2%} of (move, seat) "
                  f"({r['lengths_differ_unpadded']:.2%} unpadded); acts or rejects of several lengths "
                  f"at {r['commands_by_content']:.2%} of moves ({r['commands_by_content_unpadded']:.2%} unpadded)")
    print(json.dumps({"bench": "frames", "game": engine.INFO.id, "configs": rows}))


if __name__ == "__main__":
    main()
