"""Malformed input that is well signed: a record or a log made by anyone (a signature only says
who made it, not that it is well made) must be refused with a message naming what is wrong, never
crash a reader, an audit or a player's exchange, and change nothing.

The decoder (ext types, non-string keys), the record reader (item kinds), the header check shared
by the audit and the player's exchange, the other entries' fields, the audit's backstop.
"""
import hashlib

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bots.random_bot import RandomBot
from games import sanjuan
from protocol import record
from protocol.codec import DecodeError, pack, reason, unpack, unpacker
from protocol.exchange import PlayerExchange
from protocol.harness import play_match
from protocol.messages import ProtocolError, Signed, check_header
from protocol.record import RecordError
from protocol.signing import SIG_ENTRY, SIG_PRIVATE, Signer
from protocol.verify import verify

SIGNER = Signer(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"test-malformed").digest()))
TIMESTAMP = b"\xd6\xff\x00\x00\x00\x01"   # msgpack ext type -1 (a timestamp), 4 bytes of data


# --- the decoder ----------------------------------------------------------------------------

@pytest.mark.parametrize("data,why", [
    (TIMESTAMP, "extension types are not allowed"),
    (b"\x91" + TIMESTAMP, "extension types are not allowed"),
    (msgpack.packb(msgpack.Timestamp(2**40, 5)), "extension types are not allowed"),  # the 12-byte form
    (b"\xd4\x05\x00", "extension types are not allowed"),
    (b"\xc7\x00\x05", "extension type 5 is not allowed"),                     # no data: ext_hook refuses it
    (pack({b"type": "list"}), "a map key is bytes"),
    (pack({"type": "create", "options": {b"expansion": True}}), "a map key is bytes"),
    (pack([{"a": {b"x": 1}}]), "a map key is bytes"),
    (b"\x91" * 5000 + b"\xc0", "nested too deeply"),
])
def test_the_decoder_refuses_what_is_not_plain_data(data, why):
    with pytest.raises(DecodeError, match=why):
        unpack(data)
    reader = unpacker(1 << 20)    # the streaming decoder of record files: the same refusals
    reader.feed(data)
    with pytest.raises((ValueError, DecodeError)) as e:
        list(reader)
    assert why in reason(e.value)


def test_the_decoder_still_reads_plain_data():
    data = {"s": "x", "b": b"\x00", "i": -(2**63), "f": 1.5, "t": True, "n": None, "l": [[], {}]}
    assert unpack(pack(data)) == data


# --- the record reader ----------------------------------------------------------------------

def _header_item(kind) -> bytes:
    body = pack({"t": "header", "seq": 0})
    return record.MAGIC + msgpack.packb([kind, body, bytes(64)])


@pytest.mark.parametrize("kind", [1.0, 0.0, True, False, "0", None])
def test_an_item_kind_must_be_the_int_0_or_1(kind):
    with pytest.raises(RecordError, match=r"item 0 is not a \[kind, payload, signature\] triple"):
        record.loads(_header_item(kind))


def test_an_undecodable_item_names_the_error_even_when_msgpack_gives_no_text():
    with pytest.raises(RecordError) as e:
        record.loads(record.MAGIC + b"\x91" * 5000 + b"\xc0")
    assert "()" not in str(e.value) and "nested too deeply" in str(e.value), str(e.value)


def test_a_timestamp_in_a_record_is_refused():
    with pytest.raises(RecordError, match="extension types are not allowed"):
        record.loads(record.MAGIC + b"\x93\x00" + TIMESTAMP + b"\xc0")


# --- the header: one check for the audit and for a player's exchange -----------------------

def _entry(body: dict) -> Signed:
    payload = pack(body)
    return Signed.parse("entry", payload, SIGNER.sign(SIG_ENTRY, payload))


def _header(**changes) -> dict:
    header = {"t": "header", "seq": 0, "protocol": "bgfair/v1", "game_id": b"g" * 16, "game": "sanjuan",
              "rules": sanjuan.INFO.rules_version, "options": {}, "manifest": sanjuan.manifest_hash({}),
              "seats": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
              "server_key": SIGNER.public_key, "server_commit": b"c" * 32}
    for k, v in changes.items():
        if v is ...:
            del header[k]
        else:
            header[k] = v
    return header


def _cancelled(header: dict) -> list[Signed]:
    """A record of the header and a cancel entry, all well signed."""
    first = _entry(header)
    n = len(header["seats"]) if isinstance(header.get("seats"), list) else 2
    return [first, _entry({"t": "cancel", "seq": 1, "prev": first.hash, "server_seed": b"s" * 32,
                           "seeds": [None] * n, "moves": [], "reason": "test"})]


BAD_HEADERS = {
    "game a list": ({"game": ["sanjuan"]}, "the game must be a name"),
    "game unknown": ({"game": "chess"}, "No game called 'chess'"),
    "game missing": ({"game": ...}, "the game must be a name"),
    "game_id an int": ({"game_id": 5}, "the game_id must be 16 bytes"),
    "game_id missing": ({"game_id": ...}, "the game_id must be 16 bytes"),
    "game_id short": ({"game_id": b"g" * 15}, "the game_id must be 16 bytes"),
    "server_key short": ({"server_key": SIGNER.public_key[:31]}, "the server_key must be 32 bytes"),
    "server_commit a str": ({"server_commit": "c" * 32}, "the server_commit must be 32 bytes"),
    "protocol other": ({"protocol": "bgfair/v0"}, "is not one of bgfair/v1, bgfair/v2"),
    "protocol a list": ({"protocol": ["bgfair/v1"]}, "is not one of bgfair/v1, bgfair/v2"),
    "rules an int": ({"rules": 1}, "the rules version must be a string"),
    "manifest a str": ({"manifest": "x"}, "the card manifest hash must be bytes"),
    "options a list": ({"options": []}, "the table options"),
    "options a list value": ({"options": {"expansion": [True]}}, "the table options"),
    "options a float value": ({"options": {"expansion": 1.5}}, "the table options"),
    "seats an int": ({"seats": 5}, "the seats must be a list"),
    "seats missing": ({"seats": ...}, "the seats must be a list"),
    "seat without a name": ({"seats": [{"id": "a"}, {"id": "b", "name": "B"}]}, "the seats must be a list"),
    "seat id an int": ({"seats": [{"id": 1, "name": "A"}, {"id": "b", "name": "B"}]}, "the seats must be a list"),
    "seats too many": ({"seats": [{"id": str(i), "name": "x"} for i in range(5)]}, "for 2 to 4 players, not 5"),
    "seats too few": ({"seats": [{"id": "a", "name": "A"}]}, "for 2 to 4 players, not 1"),
    "seats empty": ({"seats": []}, "for 2 to 4 players, not 0"),
    "seat ids repeat": ({"seats": [{"id": "a", "name": "A"}, {"id": "a", "name": "B"}]}, "the same player id"),
}


@pytest.mark.parametrize("changes", [{"options": {1: True}}, {"seq": 3}, {"t": "commits"}],
                         ids=["int key", "seq", "t"])
def test_check_header_refuses_what_the_decoder_or_the_numbering_refuse_first(changes):
    with pytest.raises(ProtocolError) as e:
        check_header(_header(**changes))
    assert e.value.code == "bad_header", e.value


@pytest.mark.parametrize("name", BAD_HEADERS)
def test_check_header_names_what_is_wrong(name):
    changes, reason = BAD_HEADERS[name]
    with pytest.raises(ProtocolError) as e:
        check_header(_header(**changes))
    assert e.value.code == "bad_header" and reason in e.value.message, e.value


def test_check_header_accepts_a_real_header_and_gives_its_engine():
    assert check_header(_header()) is sanjuan
    assert check_header(_header(options={"expansion": True, "setup_variant": False})) is sanjuan


@pytest.mark.parametrize("name", BAD_HEADERS)
def test_the_audit_reports_a_malformed_header(name):
    changes, reason = BAD_HEADERS[name]
    header = _header(**changes)
    report = verify(record.loads(record.dumps(_cancelled(header))))
    assert not report.ok
    assert report.where == "entry 0 (header)" and "malformed" in report.what and reason in report.what, report


@pytest.mark.parametrize("name", BAD_HEADERS)
def test_a_player_refuses_a_malformed_header_and_changes_nothing(name):
    changes, reason = BAD_HEADERS[name]
    player = PlayerExchange("a", b"s" * 32)
    with pytest.raises(ProtocolError) as e:
        player.receive(_entry(_header(**changes)))
    assert e.value.code == "bad_header" and reason in e.value.message, e.value
    assert player.entries == [] and player.record == [] and player.seat is None


def test_the_well_formed_header_of_these_tests_is_accepted():
    """The control: without a change, the same header passes the audit's header checks."""
    report = verify(record.loads(record.dumps(_cancelled(_header()))))
    assert report.checks and report.checks[0].startswith("header signed"), report.text()
    assert PlayerExchange("a", b"s" * 32).receive(_entry(_header())) is not None


# --- the other entries ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def match():
    seed = "malformed"
    deciders = [RandomBot(f"{seed}/{k}").choose for k in range(2)]
    server, _ = play_match("sanjuan", ["Ana", "Bo"], {"expansion": False}, deciders, seed, signer=SIGNER)
    assert verify(server.sent).ok
    return server.sent


def _forged(items, seq: int, change, private: bool = False) -> list[Signed]:
    """The record with one message's body changed (of entry `seq`, or the first private message
    of entry `seq`), everything re-signed and re-chained: only the content is wrong."""
    out, prev = [], None
    for m in items:
        body = unpack(m.payload)
        if body["seq"] == seq and (m.kind == "private") == private and (not private or body["seat"] == 0):
            change(body)
        if m.kind == "entry" and prev is not None:
            body["prev"] = prev.hash
        payload = pack(body)
        m = Signed.parse(m.kind, payload, SIGNER.sign(SIG_ENTRY if m.kind == "entry" else SIG_PRIVATE, payload))
        if m.kind == "entry":
            prev = m
        out.append(m)
    return out


def _set(field, value):
    return lambda body: body.__setitem__(field, value)


def _set_move(value):
    return lambda body: body["moves"].__setitem__(0, value)


def _audit(items):
    report = verify(record.loads(record.dumps(items)))
    assert not report.ok
    return report


def test_forging_without_a_change_still_verifies(match):
    """The control for the forgeries below: they fail only because of what they change."""
    assert verify(_forged(match, 3, lambda b: None)).ok


@pytest.mark.parametrize("seq,change,where,reason", [
    (1, _set("commits", [1, 2]), "entry 1 (commits)", "a commitment is 32 bytes"),
    (1, _set("commits", [b"c" * 32, None]), "entry 1 (commits)", "a commitment is 32 bytes"),
    (1, _set("commits", 5), "entry 1 (commits)", "one commitment per seat"),
    (2, _set("seeds", [b"x", 5]), "entry 2 (reveals)", "seed does not match"),
    (2, _set("seeds", "ab"), "entry 2 (reveals)", "one seed per seat"),
    (3, _set("seat", True), "entry 3 (move)", "does not match this entry"),
    (3, _set("seat", 1.0), "entry 3 (move)", "does not match this entry"),
    (3, _set("seat", None), "entry 3 (move)", "does not match this entry"),
    (3, _set("events", [1]), "entry 3 (move by", "public events differ"),
    ("final", _set_move([True, ["builder"]]), "entry 3 (move by", "does not match this entry"),
    ("final", _set_move([0.0, ["builder"]]), "entry 3 (move by", "does not match this entry"),
    ("final", _set("moves", {"a": 1}), "(final)", "it lists no moves"),
    ("final", _set("scores", [1, "x"]), "(final)", "final scores"),
    ("final", _set("winners", "x"), "(final)", "winners differ"),
    ("final", _set("server_seed", [1]), "(final)", "server seed does not match"),
])
def test_a_malformed_entry_fails_the_audit_at_that_entry(match, seq, change, where, reason):
    if seq == "final":
        seq = max(m.body["seq"] for m in match if m.kind == "entry")
    report = _audit(_forged(match, seq, change))
    assert report.where.startswith(where) or report.where.endswith(where), (report.where, report.what)
    assert reason in report.what, (report.where, report.what)


@pytest.mark.parametrize("value", [[1], "x", None, {"a": 1}, [[1]]])
def test_a_malformed_private_message_fails_the_audit(match, value):
    seq = next(m.body["seq"] for m in match if m.kind == "private" and "events" in m.body and m.body["seat"] == 0)
    report = _audit(_forged(match, seq, _set("events", value), private=True))
    assert report.where.startswith(f"entry {seq} ("), report.where
    assert "the cards shown to Ana differ" in report.what


def test_an_unforeseen_error_in_the_audit_is_a_failure_at_its_entry(match, monkeypatch):
    """The backstop: whatever a field nobody thought of makes go wrong is reported, not raised."""
    def apply(state, seat, action, rng):
        raise TypeError("an engine tripped on a strange field")
    monkeypatch.setattr(sanjuan, "apply", apply)
    report = verify(match)
    assert not report.ok
    assert report.where.startswith("entry 3 (move by"), report.where
    assert "malformed" in report.what and "TypeError" in report.what, report.what
    assert "VERIFIED" not in report.text()
