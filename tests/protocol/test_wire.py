"""The wire contract: frames decode to checked messages or fail with a reason and a close code."""
from __future__ import annotations

import pytest

from protocol import wire
from protocol.codec import array_header, pack, pack_items, pack_map


def act(action, **fields) -> dict:
    """An act as a client sends it: the options picked as msgpack bytes, and a signature."""
    return {"type": "act", "id": 1, "seq": 1, "move": pack(action), "sig": bytes(64), **fields}


def test_a_valid_command_decodes():
    sent = act([12, 40], id=7, seq=3)
    msg = wire.decode(wire.encode(sent))
    assert msg == {**sent, "action": [12, 40]}      # the options, read from the bytes signed


@pytest.mark.parametrize("frame,reason", [
    ("hello", "text frames"),
    (b"\xc1", "not a valid msgpack"),
    (pack([1, 2]), "a msgpack map"),
    (pack({"kind": "act"}), "a msgpack map"),
    (pack({"type": "teleport"}), "unknown message type"),
    (pack({"type": "act", "id": 1, "seq": 1, "sig": bytes(64)}), "needs the field 'move'"),
    (pack({"type": "act", "id": 1, "seq": 1, "move": pack([])}), "needs the field 'sig'"),
    (pack(act([], id="1")), "'id' of a act message must be int"),
    (pack(act([], id=True)), "must be int"),
    (pack(act([], sig=bytes(65))), "must be a 64-byte signature, not 65 bytes"),
    (pack(act([], sig=b"")), "must be a 64-byte signature, not 0 bytes"),
    (pack(act([], move=b"\xc1")), "the move of an act is not msgpack"),
    (pack(act([], move=pack("x"))), "the move of an act is a list of options"),
    (pack({"type": "commit", "commitment": "00" * 32, "sig": bytes(64)}), "must be bytes"),
    (pack({"type": "reveal", "seed": bytes(32), "sig": bytes(7)}), "must be a 64-byte signature"),
    (pack({"type": "claim", "sig": bytes(63)}), "must be a 64-byte signature"),
    (pack({"type": "sit", "table": "t", "name": "Ana", "key": bytes(33)}), "must be a 32-byte public key"),
    (pack({"type": "hello", "version": "governor/1"}) + b"\x00", "extra bytes"),
])
def test_bad_frames_name_what_is_wrong(frame, reason):
    with pytest.raises(wire.WireError) as e:
        wire.decode(frame)
    assert reason in str(e.value)
    assert e.value.close == wire.CLOSE_BAD_FRAME and e.value.code == "bad_frame"


def nested(depth: int) -> list:
    action: list = [1]
    for _ in range(depth):
        action = [action]
    return action


@pytest.mark.parametrize("action,reason", [
    (nested(1000), "a flat list of options"),
    ([1, [2]], "not a list"),
    ([1, {"a": 1}], "not a dict"),
    ([True], "not a bool"),
    ([1.5], "not a float"),
    ([None], "not a NoneType"),
    ([b"12"], "not a bytes"),
    (list(range(wire.MAX_ACTION + 1)), f"at most {wire.MAX_ACTION} options"),
])
def test_an_action_is_a_flat_list_of_a_few_options(action, reason):
    with pytest.raises(wire.WireError) as e:
        wire.decode(pack(act(action)))
    assert reason in str(e.value) and e.value.close == wire.CLOSE_BAD_FRAME
    ok = list(range(wire.MAX_ACTION - 1)) + ["pass"]
    assert wire.decode(pack(act(ok)))["action"] == ok


def test_oversized_frames_get_their_own_close_code():
    with pytest.raises(wire.WireError) as e:
        wire.decode(pack(act(["x" * wire.MAX_FRAME])))
    assert e.value.close == wire.CLOSE_TOO_BIG and e.value.code == "too_big"


def test_server_messages_are_checked_with_the_server_schema():
    frame = wire.encode({"type": "ack", "id": 3})
    assert wire.decode(frame, wire.SERVER)["id"] == 3
    with pytest.raises(wire.WireError):
        wire.decode(frame)  # not a client message


# --- padding (issue 11: a frame's length must not name the hidden cards it carries) -----------

@pytest.mark.parametrize("kind", sorted(set(wire.PADDED) - {"act"}))
@pytest.mark.parametrize("size", [0, 1, 100, 200, 253, 254, 255, 256, 300, 400, 700, 5000, 70000])
def test_a_padded_message_fills_its_size_class_exactly_and_decodes_without_the_pad(kind, size):
    """Whatever its content, a padded frame is exactly a size class long: the smallest of its
    type, or a power of two above (the pad's own header, 2, 3 or 5 bytes, included)."""
    msg = {"type": kind, "blob": bytes(range(256)) * (size // 256) + bytes(size % 256)}
    frame = wire.encode(msg)
    n = len(frame)
    assert n == wire.padded_size(kind, n) and n >= len(pack(msg))
    assert n < 2 * max(wire.PADDED[kind], len(pack(msg)) + 8)   # at most one class up
    assert wire.decode(frame, {kind: {"blob": (bytes, True)}}, 1 << 20) == msg


@pytest.mark.parametrize("picks", [[], [5], [127], [128], [200, 201], list(range(64)), [f"card:{i}" for i in range(64)]])
def test_a_command_is_padded_so_the_ids_it_picks_do_not_show(picks):
    """An id from 128 up takes a byte more than one below: the act frame's length stays the same."""
    msg = act(picks, id=7, seq=300)
    frame = wire.encode(msg)
    assert len(frame) == wire.padded_size("act", len(frame)) and wire.decode(frame) == {**msg, "action": picks}
    if len(pack(msg)) < 100:
        assert len(frame) == wire.PADDED["act"]


def test_messages_of_one_type_with_different_content_are_equally_long():
    """'You draw Well.' and 'You draw Silver smelter.' go out as frames of one length."""
    short = wire.encode({"type": "private", "table": "t", "payload": b"You draw Well.", "sig": bytes(64)})
    long = wire.encode({"type": "private", "table": "t", "payload": b"You draw Silver smelter.", "sig": bytes(64)})
    assert len(short) == len(long) == wire.PADDED["private"]


def test_messages_that_carry_nothing_hidden_are_not_padded():
    frame = wire.encode({"type": "ack", "id": 7})
    assert frame == pack({"type": "ack", "id": 7})


@pytest.mark.parametrize("n", [0, 1, 15, 16, 300, 65535, 65536])
def test_a_message_made_of_values_packed_apart_is_the_message_packed_whole(n):
    """Bytes packed once go into many messages: a list as its header and its items packed one
    after another, a map from its values packed, a padded frame from its fields packed."""
    items = list(range(n))
    assert array_header(n) + b"".join(pack(i) for i in items) == array_header(n) + pack_items(items) == pack(items)
    fields = {f"k{i}": [i, "x" * i] for i in range(n % 40)}
    assert pack_map({k: pack(v) for k, v in fields.items()}) == pack(fields)
    delta = {"table": "t1", "base": 3, "seq": 4, "ops": items[:50], "hash": b"h" * 8, "events": [{"n": n}]}
    for at_least in (0, 600, 2000):
        assert wire.encode_packed("delta", {k: pack(v) for k, v in delta.items()}, at_least) == \
            wire.encode({"type": "delta", **delta}, at_least)
    assert wire.encode_packed("ack", {"id": pack(n)}) == wire.encode({"type": "ack", "id": n})   # not padded


def test_what_a_pack_that_raised_had_written_is_not_in_the_next():
    """pack keeps one packer for each thread: a value it cannot pack leaves nothing behind."""
    with pytest.raises(TypeError):
        pack({"a": [1, 2, object()]})
    assert pack([1, "x"]) == b"\x92\x01\xa1x"
