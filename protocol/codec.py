"""msgpack with limits: the one way bytes from outside become Python data.

Every decode is bounded (size of the input, of strings, of containers, of nesting) so that a
hostile peer or a tampered file cannot make us allocate without end; what comes out is plain data
only (maps with str keys, lists, str, bytes, int, float, bool, None: no extension types); and
every failure becomes a DecodeError that says what was wrong.
"""
from __future__ import annotations

import re
import threading

import msgpack

from games.errors import Refused

MAX_MESSAGE = 1 << 20       # one wire message or one record item
MAX_CONTAINER = 4096        # entries of one list or map
MAX_STRING = 1 << 16


class DecodeError(Refused):
    """Bytes that are not an acceptable msgpack message; `message` says why."""


_packers = threading.local()


def pack(obj) -> bytes:
    """obj packed, by a packer kept for each thread: msgpack.packb makes one for every call, which
    costs several times the packing of a small value (a frame is put together from many of them:
    server/broadcast.py). A packer is left empty after each call, even one that raised. Not
    re-entrant: nothing may pack from inside a pack (the values packed are plain data, so no code
    of ours runs inside one). A packer keeps a buffer as large as the largest value it packed (the
    server's: its loop's thread, a frame's size)."""
    try:
        packer = _packers.packer
    except AttributeError:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True)
    return packer.pack(obj)


# msgpack writes a list or a map as a header that says how many items follow, then the items
# packed one after another: bytes packed once can so go into many messages (server/broadcast.py).

def array_header(n: int) -> bytes:
    """The header of a packed list of n items (the shortest, as `pack` writes it)."""
    if n < 16:
        return bytes([0x90 | n])
    return b"\xdc" + n.to_bytes(2, "big") if n < 1 << 16 else b"\xdd" + n.to_bytes(4, "big")


def pack_items(items: list) -> bytes:
    """The items of a list packed one after another: `pack(items)` without its header."""
    return pack(items)[len(array_header(len(items))):]


def pack_map(packed: dict[str, bytes]) -> bytes:
    """`pack` of the map with these keys whose values are already packed."""
    n = len(packed)
    header = bytes([0x80 | n]) if n < 16 else b"\xde" + n.to_bytes(2, "big") if n < 1 << 16 else b"\xdf" + n.to_bytes(4, "big")
    return header + b"".join([(_KEYS.get(k) or _key(k)) + v for k, v in packed.items()])


_KEYS: dict[str, bytes] = {}     # the keys of the maps pack_map made, packed: the field names of a few messages


def _key(k: str) -> bytes:
    _KEYS[k] = packed = pack(k)
    return packed


def _no_ext(code, data):
    raise DecodeError("bad_msgpack", f"msgpack extension type {code} is not allowed")


def _str_keys(obj: dict) -> dict:
    # strict_map_key still lets bytes keys through; code everywhere assumes str keys.
    for k in obj:
        if type(k) is not str:
            raise DecodeError("bad_msgpack", f"a map key is {type(k).__name__}, not a string")
    return obj


# The options of both decoders. max_ext_len=0: msgpack decodes extension type -1 (timestamp)
# itself without ever calling ext_hook, so every extension with data is refused by its length
# instead (an empty one still reaches _no_ext).
_OPTIONS = dict(raw=False, strict_map_key=True, object_hook=_str_keys, ext_hook=_no_ext,
                max_ext_len=0, max_str_len=MAX_STRING, max_array_len=MAX_CONTAINER,
                max_map_len=MAX_CONTAINER)


class Budget:
    """How many values a series of decodes may still make between them (the items of one record
    file). A value costs Python objects of up to some 90 bytes whatever its size packed (an empty
    map is one byte), so what decoding can cost in memory is bounded by counting values, not
    bytes. Each list and map is counted with its items when it is complete: the items of the
    containers still open are counted late, which the limits on one message's size keep small."""

    def __init__(self, values: int) -> None:
        self.limit = self.left = values

    def take(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise DecodeError("too_many_values", f"it holds more than {self.limit} values in all")


def _options(budget: Budget | None, **limits) -> dict:
    options = dict(_OPTIONS, **limits)
    if budget is not None:
        def counted_list(items: list) -> list:
            budget.take(len(items) + 1)
            return items

        def counted_map(obj: dict) -> dict:
            budget.take(2 * len(obj) + 1)
            return _str_keys(obj)
        options.update(list_hook=counted_list, object_hook=counted_map)
    return options


_LIMITED = {"bin": ("byte string", "bytes"), "str": ("string", "bytes"), "array": ("list", "items"),
            "map": ("map", "entries")}


def reason(e: Exception) -> str:
    """Why msgpack refused some bytes, in words (some of its exceptions carry no text)."""
    if isinstance(e, DecodeError):
        return e.message
    if isinstance(e, ValueError) and "max_ext_len" in str(e):
        return "msgpack extension types are not allowed"  # max_ext_len=0 above: msgpack names the limit
    over = re.fullmatch(r"(\d+) exceeds max_(bin|str|array|map)_len\((\d+)\)", str(e))
    if over:
        what, unit = _LIMITED[over[2]]
        return f"a {what} of {over[1]} {unit}, over the limit of {over[3]}"
    if isinstance(e, (msgpack.StackError, RecursionError)):
        return f"containers nested too deeply ({type(e).__name__})"
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def unpack(data: bytes, max_size: int = MAX_MESSAGE, budget: Budget | None = None):
    """One message; with a budget, each value decoded is taken from it."""
    if len(data) > max_size:
        raise DecodeError("bad_msgpack", f"message of {len(data)} bytes is over the limit of {max_size}")
    try:
        return msgpack.unpackb(data, max_bin_len=max_size, **_options(budget))
    except DecodeError:
        raise
    except msgpack.ExtraData:
        raise DecodeError("bad_msgpack", "extra bytes after the msgpack message") from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as e:
        raise DecodeError("bad_msgpack", f"not a valid msgpack message ({reason(e)})") from None


def unpacker(max_size: int, budget: Budget | None = None, **limits) -> msgpack.Unpacker:
    """A streaming decoder with the same limits (or tighter `limits`: max_array_len, ...), for
    files of many items; with a budget, each value decoded is taken from it."""
    return msgpack.Unpacker(max_buffer_size=max_size, **_options(budget, **{"max_bin_len": MAX_MESSAGE, **limits}))
