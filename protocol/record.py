"""The match record file: every signed message of a match exactly as sent, in one file.

Format: the line `governor-record/1\\n`, then one msgpack array per message, back to back:
`[kind, payload, signature]` with kind 0 for a public log entry and 1 for a private message,
payload the exact msgpack bytes that were signed, signature the server's 64-byte Ed25519
signature. Nothing else is in the file; everything in it is covered by a signature, so
`governor verify` needs nothing but the file.
"""
from __future__ import annotations

import os
from pathlib import Path

import msgpack

from games.errors import Refused

from .codec import DecodeError, pack, reason, unpacker
from .messages import ProtocolError, Signed

MAGIC = b"governor-record/1\n"
# A whole match at the most players makes a record of about 64 KiB. Every byte of a hostile file
# may become some 70 bytes of Python objects (a map of empty maps) before anything is refused, so
# the limit keeps a generous margin over real records and no more.
MAX_RECORD = 2 << 20
_KINDS = ("entry", "private")


class RecordError(Refused):
    """A file that is not a readable match record; `message` says why."""


def dump_item(m: Signed) -> bytes:
    return pack([_KINDS.index(m.kind), m.payload, m.sig])


def dumps(items: list[Signed]) -> bytes:
    return MAGIC + b"".join(dump_item(m) for m in items)


def parse_item(raw, n: int) -> Signed:
    """Item number n of a record, as decoded from msgpack: a RecordError unless it is a
    [kind, payload, signature] triple holding a well-formed signed message."""
    # type() and not `in (0, 1)`: 1.0 and True equal 1 but are not a kind.
    if not (isinstance(raw, list) and len(raw) == 3 and type(raw[0]) is int and raw[0] in (0, 1)):
        raise RecordError("bad_record", f"item {n} is not a [kind, payload, signature] triple")
    try:
        return Signed.parse(_KINDS[raw[0]], raw[1], raw[2])
    except ProtocolError as e:
        raise RecordError("bad_record", f"item {n}: {e.message}") from None


def write(path: str | os.PathLike, items: list[Signed]) -> Path:
    """Write atomically: a crash leaves the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    # 0600: a player's record holds the cards dealt to their seat, for nobody else to read
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(dumps(items))
    os.replace(tmp, path)
    return path


def loads(data: bytes) -> list[Signed]:
    if not data.startswith(MAGIC):
        raise RecordError("bad_record", "not a Governor match record (it does not start with 'governor-record/1')")
    if len(data) > MAX_RECORD:
        raise RecordError("bad_record", f"the record is {len(data)} bytes, over the limit of {MAX_RECORD}")
    reader = unpacker(len(data))
    reader.feed(data[len(MAGIC):])
    items: list[Signed] = []
    end = 0  # where the last complete item ends: tell() also counts a half-read item
    try:
        for raw in reader:
            end = reader.tell()
            items.append(parse_item(raw, len(items)))
    except (msgpack.UnpackException, ValueError, DecodeError) as e:
        raise RecordError("bad_record", f"item {len(items)} is not valid msgpack ({reason(e)})") from None
    if end != len(data) - len(MAGIC):
        raise RecordError("bad_record", f"the record is cut short inside item {len(items)}")
    if not items:
        raise RecordError("bad_record", "the record holds no messages")
    return items


def read(path: str | os.PathLike) -> list[Signed]:
    # One byte more than a record may have, and never more: the path may name a huge file, or a
    # device that never ends (/dev/zero), whose size the file system does not tell.
    with open(path, "rb") as f:
        data = f.read(MAX_RECORD + 1)
    if len(data) > MAX_RECORD:
        raise RecordError("bad_record", f"it is larger than a match record may be ({MAX_RECORD} bytes)")
    return loads(data)
