"""Events whose words are written when first read (games/events.py)."""
from __future__ import annotations

import pytest

from games.events import Event, Events, say, visible
from protocol.codec import pack, unpack


def counted(text: str):
    """A function that writes `text`, and the list that counts how often it was called."""
    written = []

    def words():
        written.append(1)
        return text
    return words, written


def test_words_are_written_once_and_only_when_read():
    words, written = counted("Ana chooses the builder.")
    ev = Events()
    say(ev, "role", words)
    assert written == [] and ev[0]["type"] == "role" and ev[0]["to"] is None
    assert ev[0]["text"] == "Ana chooses the builder." and ev[0].text == "Ana chooses the builder."
    assert written == [1]


def test_an_event_equals_the_plain_map_and_reads_like_one():
    e = Event(("draw", 2, lambda: "You draw Well."))
    plain = {"type": "draw", "to": 2, "text": "You draw Well."}
    assert e == plain and plain == e and [e] == [plain] and e == Event(("draw", 2, "You draw Well."))
    assert e != {**plain, "text": "You draw Smithy."} and e != {**plain, "to": None}
    with pytest.raises(KeyError):
        e["seat"]


def test_a_seat_sees_public_events_and_its_own_as_plain_maps_that_pack():
    ev = Events()
    say(ev, "draw", "Ana draws 1 card (trader).")
    say(ev, "draw", lambda: "You draw Well (trader).", 0)
    say(ev, "draw", lambda: "You draw Smithy (trader).", 1)
    mine = visible(ev, 0)
    assert mine == [{"type": "draw", "to": None, "text": "Ana draws 1 card (trader)."},
                    {"type": "draw", "to": 0, "text": "You draw Well (trader)."}]
    assert all(type(e) is dict for e in mine)
    assert unpack(pack(mine)) == mine
    assert [e["text"] for e in visible(ev, None)] == ["Ana draws 1 card (trader)."]


def test_a_moves_events_read_every_way_are_events_whose_words_wait():
    words, written = counted("You draw Well.")
    ev = Events()
    say(ev, "role", "Ana chooses the builder.")
    say(ev, "draw", words, 0)
    plain = [{"type": "role", "to": None, "text": "Ana chooses the builder."},
             {"type": "draw", "to": 0, "text": "You draw Well."}]
    log: list = []
    log.extend(ev)                      # how the server keeps a match's events
    assert all(type(e) is Event for e in log) and written == []
    assert all(type(e) is Event for e in [ev[0], ev[-1], *ev[:], *reversed(ev), *ev.copy(), *(ev + [])])
    assert ev == plain and plain == ev and not ev != plain and ev != plain[:1] and plain[1] in ev
    assert written == [1]
    assert [e["text"] for e in ev] == [e["text"] for e in plain] and written == [1]
