"""Issue 11: over TLS an eavesdropper sees every frame's length, so the length of a frame to a
seat must not tell which hidden cards it carries: across many games, none does.

Seeded matches of random bots go through the server's own output path (bench/frames.py): the
exchange signs entries and private messages, the table's Broadcaster makes each seat's views,
protocol/wire.py pads. Each move is also played in a twin world in which everything the mover
cannot see is dealt anew (other hands, the supply, the plantation stack) from the same public
position; a frame whose length differs between the two worlds tells something hidden.
"""
from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path

import pytest

from protocol import wire
from protocol.codec import unpack

ROOT = Path(__file__).resolve().parents[2]


def _bench_frames():
    spec = importlib.util.spec_from_file_location("bench_frames", ROOT / "bench" / "frames.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_frames", module)   # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


frames = _bench_frames()

# Several player counts, the expansion (card ids from 128 up) and the setup variant.
# Its matches (the fixtures below) take seconds to play: one worker of pytest-xdist plays them
# once for every test of the module, rather than each worker that gets one of its tests.
pytestmark = pytest.mark.xdist_group("frame-lengths")

SANJUAN = [(2, {}), (3, {"expansion": True}), (4, {}), (4, {"expansion": True, "setup_variant": True})]
MATCHES = 3


@pytest.fixture(scope="module")
def sanjuan_matches():
    return [m for n, options in SANJUAN for m in frames.matches("sanjuan", n, options, MATCHES)]


@pytest.fixture(scope="module")
def puertorico_match():
    return frames.play("puertorico", 3, {}, "frames/puertorico/3/0")


def _decoded(frame: bytes) -> dict:
    return unpack(frame, wire.MAX_SERVER_FRAME)


def _drawn(text: str) -> str | None:
    """The card a private message names as drawn ("You draw Well (trader)."), for one card only."""
    if text.startswith("You draw ") and "," not in text:
        return text[len("You draw "):].split(" (")[0].rstrip(".")
    return None


def test_a_private_message_is_as_long_whichever_card_it_names(sanjuan_matches):
    """The issue's attack: the private "You draw <name>" message. Grouped by the card drawn, every
    group has the same single length, so the length carries no information (mutual information 0)."""
    from protocol.messages import Signed

    lengths = collections.defaultdict(set)    # card drawn -> lengths of the frames naming it
    every = set()
    for m in sanjuan_matches:
        for seat in m.frames:
            for f in seat:
                msg = _decoded(f)
                if msg["type"] != "private":
                    continue
                every.add(len(f))
                body = Signed.parse("private", msg["payload"], msg["sig"]).body
                for text in body.get("events", []):
                    card = _drawn(text)
                    if card is not None:
                        lengths[card].add(len(f))
    assert len(lengths) >= 15, "too few kinds of card drawn to tell anything"
    assert every == {wire.PADDED["private"]}
    assert all(ls == every for ls in lengths.values())


def test_a_view_update_tells_a_seat_nothing_only_it_may_know_but_its_view(sanjuan_matches):
    """What a seat alone is told goes in signed private messages only: the events of its
    snapshots and deltas are the public ones."""
    updates = 0
    for m in sanjuan_matches:
        for seat in m.frames:
            for f in seat:
                msg = _decoded(f)
                if msg["type"] in ("snapshot", "delta"):
                    updates += 1
                    assert all(e["to"] is None for e in msg["events"]), msg["events"]
    assert updates


def test_frame_lengths_to_a_seat_depend_on_nothing_hidden(sanjuan_matches):
    """View updates carry a question's options with their labels and help, and the seat's hand,
    so their content varies by hundreds of bytes with the cards; each is padded to a length that
    only public things decide (server/broadcast.py), and a twin world changes no frame's length
    at any (move, seat) pair, the mover's act and a reject of a pick it was not offered
    included. Those two the twin cannot vary (the mover's own cards stay), so at every move the
    acts of other legal picks and the rejects of other picks not offered are measured too: one
    length each. Without the padding a sixth or more of the pairs differ, and nearly every move's
    acts or rejects, which shows what these measures can see."""
    moves = sum(m.moves for m in sanjuan_matches)
    pairs = sum(m.pairs for m in sanjuan_matches)
    differ = sum(m.differ for m in sanjuan_matches)
    assert pairs > 2 * moves          # most moves are compared: few make hidden cards public
    assert differ == 0, [e for m in sanjuan_matches for e in m.examples]
    assert sum(m.by_content for m in sanjuan_matches) == 0
    with frames.unpadded():
        bare = frames.matches("sanjuan", *SANJUAN[1], 1)
    assert sum(m.differ for m in bare) >= 0.1 * sum(m.pairs for m in bare)
    assert sum(m.by_content for m in bare) >= 0.5 * sum(m.moves for m in bare)


def test_puerto_rico_frames_depend_on_nothing_hidden(puertorico_match):
    """Puerto Rico hides only the order of the plantation stack, from everyone: a seat's frames
    are as long in the twin world wherever the move makes nothing new public, each fills its
    size class, and no private message is ever sent."""
    m = puertorico_match
    assert m.pairs > 0 and m.differ == 0 and m.by_content == 0
    for seat in m.frames:
        for f in seat:
            kind = _decoded(f)["type"]
            assert kind != "private"
            if kind in wire.PADDED:
                assert len(f) == wire.padded_size(kind, len(f)), (kind, len(f))
