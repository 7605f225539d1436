"""Spectators get the public view, and never a hidden card.

The test replays the finished match from a player's audited record, so for every view update a
spectator received it knows the exact state at that seq: which card ids lay face up (in a city,
covered by a crane, the cathedral) and which were hidden (hands, supply, discard pile, goods,
chapel, bank, harbor, councillor draws, a building being paid for). A hidden card may not appear
as a card (an `[id, kind]` pair) anywhere in what a spectator received at that time, and the
spectator's view, rebuilt from its snapshots and deltas, must equal the engine's public view.
"""
from __future__ import annotations

import asyncio

import games
from games.sanjuan.cards import KEY
from protocol.codec import pack, unpack
from protocol.diff import patch, view_hash
from protocol.exchange import PlayerExchange
from protocol.fairness import Streams, master_key
from protocol.messages import Signed

from .rawclient import Raw, SeatPlayer, play_all

engine = games.get("sanjuan")


def states_by_seq(px):
    """seq -> the state after that entry, replayed from the record."""
    header, entries = px.entries[0], [e.body for e in px.entries]
    reveals = next(b for b in entries if b["t"] == "reveals")
    final = entries[-1]
    assert final["t"] == "final"
    seats = header.body["seats"]
    streams = Streams(master_key(header.hash, final["server_seed"],
                                 [(s["id"], seed) for s, seed in zip(seats, reveals["seeds"])]))
    state = engine.setup([s["name"] for s in seats], header.body["options"], streams)
    states = {2: engine.copy(state)}
    for i, (seat, action) in enumerate(final["moves"]):
        engine.apply(state, seat, action, streams)
        states[3 + i] = engine.copy(state)
    states[3 + len(final["moves"])] = engine.copy(state)  # the final entry changes nothing
    return states


def public_ids(state) -> set[int]:
    ids = {state.cathedral} if state.cathedral is not None else set()
    for p in state.players:
        ids.update(p.city)
        ids.update(p.covered)
    return ids


def card_pairs(value, state, out):
    """Every [id, kind] pair naming a real card of this game, anywhere in value."""
    if isinstance(value, dict):
        for v in value.values():
            card_pairs(v, state, out)
    elif isinstance(value, list):
        if (len(value) >= 2 and type(value[0]) is int and isinstance(value[1], str)
                and 0 <= value[0] < len(state.kinds) and value[1] == KEY[state.kinds[value[0]]]):
            out.add(value[0])
        for v in value:
            card_pairs(v, state, out)
    return out


def check_spectator(frames_msgs, states):
    """Views, statuses and the signed public entries only; every view exactly the public one.
    The entries make an audit of the match that passes, as a player's would, bar the hands."""
    view, seq, checked = None, None, 0
    audit = PlayerExchange(None)
    for msg in frames_msgs:
        assert msg["type"] in ("status", "snapshot", "delta", "entry"), f"a spectator got a {msg['type']}"
        if msg["type"] == "entry":
            assert audit.receive(Signed.parse("entry", msg["payload"], msg["sig"])) is None
            continue
        if msg["type"] == "status":
            continue
        state = states[msg["seq"]]
        shown = card_pairs(msg, state, set())
        hidden = shown - public_ids(state)
        assert not hidden, f"seq {msg['seq']}: the spectator was shown hidden cards {sorted(hidden)}"
        if msg["type"] == "snapshot":
            view = msg["view"]
        else:
            assert msg["base"] == seq
            view = patch(view, msg["ops"])
        assert view_hash(view) == msg["hash"]
        seq = msg["seq"]
        assert view == unpack(pack(engine.view(state, None))), f"the public view at seq {seq} differs"
        assert "you" not in view and "prompt" not in view
        checked += 1
    assert audit.report is not None and audit.report.ok, audit.report and audit.report.text()
    assert audit.report.seats_checked == [] and audit.privates == []
    return checked


async def test_a_spectator_never_receives_a_hidden_card(server):
    lobby = await Raw.connect(server.url)
    table = await lobby.create(4, bots=2)
    early = await Raw.connect(server.url)
    await early.send({"type": "watch", "table": table})
    players = [SeatPlayer(server.url, table, n, seed=i) for i, n in enumerate(["Ana", "Bo"])]
    for p in players:
        await p.sit()

    late = None

    async def late_watcher():
        nonlocal late
        while players[0].seq < 60 and not players[0].done:
            await asyncio.sleep(0.01)
        late = await Raw.connect(server.url)
        await late.send({"type": "watch", "table": table})
        await late.send({"type": "resync"})  # a spectator may ask for a snapshot too

    await asyncio.gather(play_all(players), late_watcher())
    assert all(p.report.ok for p in players)
    states = states_by_seq(players[0].px)

    async def collect(raw):
        """Everything the spectator gets, up to the view of the final entry."""
        msgs = []
        while not msgs or msgs[-1].get("seq") != max(states):
            msgs.append(await raw.recv())
        return msgs

    for raw in (early, late):
        msgs = await collect(raw)
        assert check_spectator(msgs, states) > (100 if raw is early else 1)
        # and byte for byte: no frame holds the encoding of a card that was hidden for the whole match
        ever_public = public_ids(states[max(states)])
        never = [c for c in range(len(states[2].kinds)) if c not in ever_public]
        blob = b"".join(raw.frames)
        for c in never:
            assert pack([c, KEY[states[2].kinds[c]]]) not in blob
