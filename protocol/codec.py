"""msgpack with limits: the one way bytes from outside become Python data.

Every decode is bounded (size of the input, of strings, of containers, of nesting) so that a
hostile peer or a tampered file cannot make us allocate without end, and every failure becomes a
DecodeError that says what was wrong.
"""
from __future__ import annotations

import msgpack

MAX_MESSAGE = 1 << 20       # one wire message or one record item
MAX_CONTAINER = 4096        # entries of one list or map
MAX_STRING = 1 << 16


class DecodeError(ValueError):
    """Bytes that are not an acceptable msgpack message; str() says why."""


def pack(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def _no_ext(code, data):
    raise DecodeError(f"msgpack extension type {code} is not allowed")


def unpack(data: bytes, max_size: int = MAX_MESSAGE):
    if len(data) > max_size:
        raise DecodeError(f"message of {len(data)} bytes is over the limit of {max_size}")
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True, ext_hook=_no_ext,
                               max_str_len=MAX_STRING, max_bin_len=max_size,
                               max_array_len=MAX_CONTAINER, max_map_len=MAX_CONTAINER)
    except DecodeError:
        raise
    except msgpack.ExtraData:
        raise DecodeError("extra bytes after the msgpack message") from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as e:
        raise DecodeError(f"not a valid msgpack message ({type(e).__name__}: {e})") from None


def unpacker(max_size: int) -> msgpack.Unpacker:
    """A streaming decoder with the same limits, for files of many items."""
    return msgpack.Unpacker(raw=False, strict_map_key=True, ext_hook=_no_ext,
                            max_buffer_size=max_size, max_str_len=MAX_STRING,
                            max_bin_len=MAX_MESSAGE, max_array_len=MAX_CONTAINER,
                            max_map_len=MAX_CONTAINER)
