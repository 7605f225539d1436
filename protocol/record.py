"""The match record file: every signed message of a match exactly as sent, in one file.

Format: the line `governor-record/1\\n`, then one msgpack array per message, back to back:
`[kind, payload, signature]` with kind 0 for a public log entry and 1 for a private message,
payload the exact msgpack bytes that were signed, signature the server's 64-byte Ed25519
signature. A client's record may end with one more item, `[2, payload]`: what that client was
shown (protocol.shown), the one part not signed, which the audit compares with the replay.
`governor verify` needs nothing but the file.
"""
from __future__ import annotations

import os
from pathlib import Path

import msgpack

from games.errors import Refused

from .codec import MAX_MESSAGE, Budget, DecodeError, pack, reason, unpack, unpacker
from .messages import ProtocolError, Signed
from .shown import Shown

MAGIC = b"governor-record/1\n"
# A whole match's signed messages and what its client was shown fit a record many times over
# (docs/benchmarks.md, "Verify cost and record memory"). A hostile file is bounded in memory, not
# only in bytes: one byte may decode to tens of bytes of Python objects (an empty map), so the
# values decoded from all of a file's items are counted (codec.Budget) and each item is bounded,
# which bounds the values decoded before they are counted.
MAX_RECORD = 2 << 20
MAX_ITEM = 480 << 10      # a signed message: a final entry lists every move (4,096 at most) as signed
MAX_SHOWN = 512 << 10     # what the client was shown
MAX_VALUES = 200_000      # values decoded from a whole record
_KINDS = ("entry", "private")
SHOWN = 2       # the kind of the client's own item, last in the file


class RecordError(Refused):
    """A file that is not a readable match record; `message` says why."""


def dump_item(m: Signed) -> bytes:
    return pack([_KINDS.index(m.kind), m.payload, m.sig])


def dump_shown(shown: Shown) -> bytes:
    return pack([SHOWN, pack(shown.as_map())])


def dumps(items: list[Signed], shown: Shown | None = None) -> bytes:
    return MAGIC + b"".join(dump_item(m) for m in items) + (dump_shown(shown) if shown is not None else b"")


def parse_item(raw, n: int, max_size: int = MAX_MESSAGE, budget: Budget | None = None) -> Signed:
    """Item number n of a record, as decoded from msgpack: a RecordError unless it is a
    [kind, payload, signature] triple holding a well-formed signed message (its payload at most
    `max_size` bytes, its values taken from `budget` when given)."""
    # type() and not `in (0, 1)`: 1.0 and True equal 1 but are not a kind.
    if not (isinstance(raw, list) and len(raw) == 3 and type(raw[0]) is int and raw[0] in (0, 1)):
        raise RecordError("bad_record", f"item {n} is not a [kind, payload, signature] triple")
    try:
        return Signed.parse(_KINDS[raw[0]], raw[1], raw[2], max_size, budget)
    except ProtocolError as e:
        raise RecordError("bad_record", f"item {n}: {e.message}") from None


def parse_shown(raw, n: int, budget: Budget | None = None) -> Shown:
    """Item n of a record, a [2, payload] pair: what the client was shown; else a RecordError."""
    if not (len(raw) == 2 and isinstance(raw[1], bytes)):
        raise RecordError("bad_record", f"item {n} is not a [2, payload] pair (what the client was shown)")
    try:
        return Shown.from_map(unpack(raw[1], MAX_SHOWN, budget))
    except DecodeError as e:
        raise RecordError("bad_record", f"item {n} (what the client was shown): {e.message}") from None
    except ValueError as e:
        raise RecordError("bad_record", f"item {n} (what the client was shown): {e}") from None


def write(path: str | os.PathLike, items: list[Signed], shown: Shown | None = None) -> Path:
    """Write atomically: a crash leaves the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # 0600: a player's record holds the cards dealt to their seat, for nobody else to read
    write_private(path, dumps(items, shown))
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner may read, through a temporary file renamed over it: a kill
    mid-write leaves the old file whole, or none. The temporary file is made anew (O_EXCL, 0600
    from its first byte): a stale one a kill left, or anything else put at its name (a link, a
    file others may read), is removed, never written through."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def loads(data: bytes) -> list[Signed]:
    """The signed messages of a record (what the client was shown, if the file has it: loads_all)."""
    return loads_all(data)[0]


def loads_all(data: bytes) -> tuple[list[Signed], Shown | None]:
    """The signed messages of a record, and what the client was shown (None when not kept)."""
    if not data.startswith(MAGIC):
        raise RecordError("bad_record", "not a Governor match record (it does not start with 'governor-record/1')")
    if len(data) > MAX_RECORD:
        raise RecordError("bad_record", f"the record is {len(data)} bytes, over the limit of {MAX_RECORD}")
    budget = Budget(MAX_VALUES)
    # An item is [kind, payload, signature] (or [2, payload]): whatever else a hostile file puts
    # there is decoded with its lists, maps and strings this small, and refused.
    reader = unpacker(len(data), budget, max_bin_len=MAX_SHOWN, max_array_len=3, max_map_len=3, max_str_len=64)
    reader.feed(data[len(MAGIC):])
    items: list[Signed] = []
    shown: Shown | None = None
    end = 0  # where the last complete item ends: tell() also counts a half-read item
    try:
        for raw in reader:
            end = reader.tell()
            n = len(items) + (shown is not None)
            if shown is not None:
                raise RecordError("bad_record", f"item {n} follows what the client was shown, which comes last")
            if isinstance(raw, list) and raw and type(raw[0]) is int and raw[0] == SHOWN:
                shown = parse_shown(raw, n, budget)
            else:
                items.append(parse_item(raw, n, MAX_ITEM, budget))
    except (msgpack.UnpackException, ValueError, DecodeError) as e:
        raise RecordError("bad_record", f"item {len(items)} is not valid msgpack ({reason(e)})") from None
    if end != len(data) - len(MAGIC):
        raise RecordError("bad_record", f"the record is cut short inside item {len(items)}")
    if not items:
        raise RecordError("bad_record", "the record holds no messages")
    return items, shown


def read(path: str | os.PathLike) -> list[Signed]:
    """The signed messages of a record file (read_all: with what the client was shown)."""
    return read_all(path)[0]


def read_all(path: str | os.PathLike) -> tuple[list[Signed], Shown | None]:
    # One byte more than a record may have, and never more: the path may name a huge file, or a
    # device that never ends (/dev/zero), whose size the file system does not tell.
    with open(path, "rb") as f:
        data = f.read(MAX_RECORD + 1)
    if len(data) > MAX_RECORD:
        raise RecordError("bad_record", f"it is larger than a match record may be ({MAX_RECORD} bytes)")
    return loads_all(data)
