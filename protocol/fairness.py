"""Fair-dealing primitives of protocol ``bgfair/v2``: commitments, the master key and the
named random streams (constructions C1–C8) from which every shuffle and draw of a match is made.

The byte-exact specification is ``docs/fairness.md`` (section 3 for the constructions, section 6 for
the reference values the tests check). An auditor written independently has to reach the same
bytes, so nothing here may be changed without changing the spec and its protocol version.
"""

from __future__ import annotations

import hashlib
import struct
from itertools import chain, count, islice
from operator import itemgetter

from games.blind import Open

__all__ = [
    "PROTOCOL",
    "PROTOCOLS",
    "tag",
    "lp",
    "u32",
    "u64",
    "entry_hash",
    "server_commit",
    "player_commit",
    "master_key",
    "hkdf_expand",
    "stream_key",
    "Stream",
    "Streams",
    "local_streams",
]

PROTOCOL = "bgfair/v2"              # what a match is played under now
PROTOCOLS = ("bgfair/v1", PROTOCOL)  # what a record may have been played under, and still verifies
# Every tag of every version is in the v1 namespace (docs/fairness.md §2): v2 adds signed messages
# and keeps C1–C9 as they were, so a v1 record, a key's fingerprint and the reference values stay.
_TAG_PREFIX = b"bgfair/v1/"


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def lp(b: bytes) -> bytes:
    """Length-prefixed bytes, so that concatenated fields cannot be re-split differently."""
    return u32(len(b)) + b


def tag(t: str) -> bytes:
    """Domain separation: each role's input starts with its own tag, so no value can be replayed
    in another role."""
    return lp(_TAG_PREFIX + t.encode())


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class _Hmac:
    """HMAC-SHA-256 (RFC 2104) under one key, for many messages: the key's two padded blocks are
    hashed once, and each message then costs two SHA-256 states copied and finished. A stream
    makes an HMAC block for every eight words it reads, and OpenSSL's one-shot HMAC spends more
    on setting itself up than on hashing such a short message."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _SHA256_BLOCK:
            key = _h(key)
        key = key.ljust(_SHA256_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def __call__(self, msg: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


_SHA256_BLOCK = 64
_IPAD = bytes(b ^ 0x36 for b in range(256))   # for bytes.translate: every byte XOR 0x36
_OPAD = bytes(b ^ 0x5C for b in range(256))


def _hmac(key: bytes, msg: bytes) -> bytes:
    return _Hmac(key)(msg)


# Tags are constant; build them once rather than on every stream.
_TAG_ENTRY = tag("entry")
_TAG_SERVER_COMMIT = tag("server-commit")
_TAG_PLAYER_COMMIT = tag("player-commit")
_TAG_MASTER = tag("master")
_TAG_STREAM = tag("stream")
_TAG_LOCAL_SEED = tag("local-seed")


def entry_hash(payload_bytes: bytes) -> bytes:
    """C1. Over the exact bytes sent: msgpack is not canonical, so never hash a re-encoding."""
    return _h(_TAG_ENTRY + payload_bytes)


def server_commit(game_id: bytes, server_seed: bytes) -> bytes:
    """C2."""
    return _h(_TAG_SERVER_COMMIT + lp(game_id) + lp(server_seed))


def player_commit(game_id: bytes, player_id: str, player_seed: bytes) -> bytes:
    """C3. Binding the game id and player id stops a commitment being copied to another game or
    seat."""
    return _h(_TAG_PLAYER_COMMIT + lp(game_id) + lp(player_id.encode()) + lp(player_seed))


def master_key(header_hash: bytes, server_seed: bytes, seats: list[tuple[str, bytes]]) -> bytes:
    """C4. ``seats`` is ``[(player_id, player_seed), ...]`` in seat order (seat 0 first); the
    result is the PRK from which every stream is derived."""
    parts = [_TAG_MASTER, lp(server_seed)]
    for player_id, seed in seats:
        parts.append(lp(player_id.encode()))
        parts.append(lp(seed))
    return _hmac(header_hash, b"".join(parts))


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    """HKDF-Expand (RFC 5869) with SHA-256."""
    return _hkdf_expand(_Hmac(prk), info, length)


def _hkdf_expand(keyed_prk: _Hmac, info: bytes, length: int) -> bytes:
    """HKDF-Expand under a PRK already keyed (see Streams)."""
    if length < 0 or length > 255 * 32:
        raise ValueError("HKDF-Expand length must be between 0 and 8160")
    out = []
    t = b""
    for i in range(1, -(-length // 32) + 1):
        t = keyed_prk(t + info + bytes((i,)))
        out.append(t)
    return b"".join(out)[:length]


def stream_key(prk: bytes, name: str, idx: int) -> bytes:
    """C5: K(name, idx)."""
    return _stream_key(_Hmac(prk), name, idx)


def _stream_key(keyed_prk: _Hmac, name: str, idx: int) -> bytes:
    return _hkdf_expand(keyed_prk, _TAG_STREAM + lp(name.encode()) + u64(idx), 32)


_EIGHT_WORDS = struct.Struct(">8I")
_LOW_BYTES = itemgetter(slice(3, None, 4))   # of a block's eight big-endian words, each one's lowest byte
_U64 = struct.Struct(">Q")


class Stream:
    """One named random stream (C6) with the draws built on it (C7, C8).

    Bytes are made lazily, one 32-byte HMAC block at a time, since most streams are only used for
    a single shuffle and the cost should scale with what is consumed. The stream keeps only how
    many of its words have been read: each draw reads on from there (a draw that starts inside
    a block hashes that block again, which only a stream drawn from more than once ever does).
    """

    __slots__ = ("_hmac", "_read")

    def __init__(self, prk: bytes, name: str, idx: int) -> None:
        self._start(_Hmac(prk), name, idx)

    @classmethod
    def _under(cls, keyed_prk: _Hmac, name: str, idx: int) -> "Stream":
        """The same stream, from a PRK already keyed (see Streams)."""
        stream = cls.__new__(cls)
        stream._start(keyed_prk, name, idx)
        return stream

    def _start(self, keyed_prk: _Hmac, name: str, idx: int) -> None:
        self._hmac = _Hmac(_stream_key(keyed_prk, name, idx))
        self._read = 0

    def _words(self, mask: int):
        """The unread words, lazily.

        C6: block i is HMAC(key, u64(i)), i = 0, 1, ...; each is eight big-endian u32 words, so a
        word never straddles two blocks. A draw masked by `mask` reads only `word & mask`: while
        the mask is under 256 that is the word's lowest byte masked, so the lowest byte is all that
        is yielded (the same result, as a number Python keeps ready-made where a whole u32 would be
        a new int object each time); from 256 on, the whole word. Every step of this chain is lazy
        and all but the HMAC run in C; map calls the HMAC's bound `__call__` directly, where
        calling the object would look `__call__` up again for every block."""
        first, skip = divmod(self._read, 8)
        blocks = map(self._hmac.__call__, map(_U64.pack, count(first)))
        words = chain.from_iterable(map(_LOW_BYTES if mask < 256 else _EIGHT_WORDS.unpack, blocks))
        return islice(words, skip, None) if skip else words

    def randbelow(self, n: int) -> int:
        """C7: uniform integer in [0, n) by masked rejection sampling (no modulo bias)."""
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        if n == 1:
            return 0
        if n > 1 << 32:
            # A u32 word cannot cover the range; the spec defines no wider draw.
            raise ValueError("randbelow needs n <= 2**32")
        mask = (1 << (n - 1).bit_length()) - 1
        for read, word in enumerate(self._words(mask), 1):
            r = word & mask
            if r < n:
                self._read += read
                return r
        raise AssertionError("the words never run out: the HMAC blocks are counted without end")

    def shuffle(self, items: list) -> list:
        """C8: Fisher–Yates from the end; returns a new list whose index 0 is the top of the
        pile (drawn first). The argument is left untouched."""
        a = list(items)
        i = len(a) - 1
        if i < 1:
            return a
        # j = C7 randbelow(i + 1) for each i, written out here rather than called: a shuffle draws
        # once per card, and the call would be a third of its time. The mask is the same for every
        # i of one bit length: it halves when i comes down to the largest i of the next shorter.
        mask = (1 << i.bit_length()) - 1
        shorter = mask >> 1
        rejected = 0
        for word in self._words(mask):
            j = word & mask
            if j > i:
                rejected += 1
                continue
            a[i], a[j] = a[j], a[i]
            i -= 1
            if i == shorter:
                if not i:
                    break
                mask = shorter
                shorter >>= 1
        self._read += len(a) - 1 + rejected
        return a


class Streams(Open):
    """What a rules engine receives: draws by (stream name, idx), each on a fresh stream.

    Every (name, idx) serves exactly one purpose (docs/fairness.md §3), so a fresh stream per call is
    both correct and what makes a replay independent of call history.
    """

    __slots__ = ("_prk", "_keyed_prk")

    def __init__(self, prk: bytes) -> None:
        self._prk = bytes(prk)
        # Every stream's key is an HMAC under the PRK (C5): its key is set up once, here.
        self._keyed_prk = _Hmac(self._prk)

    @property
    def prk(self) -> bytes:
        return self._prk

    def __reduce__(self):
        # A Streams is a value, and pickling or copying it gives the same draws; but its keyed
        # HMAC holds hashlib states, which neither pickle nor deepcopy can copy: rebuild from the PRK.
        return (Streams, (self._prk,))

    def shuffle(self, name: str, idx: int, items: list) -> list:
        return Stream._under(self._keyed_prk, name, idx).shuffle(items)

    def randbelow(self, name: str, idx: int, n: int) -> int:
        return Stream._under(self._keyed_prk, name, idx).randbelow(n)

    def __repr__(self) -> str:
        # The PRK is derived from secret seeds; keep it out of logs and tracebacks.
        return "Streams(<prk>)"


def local_streams(seed: int | str) -> Streams:
    """Deterministic streams from a plain seed, for local games, tests and self-play.

    This is NOT the fair commit-reveal exchange of docs/fairness.md §4: whoever knows the seed knows
    every deal. It only gives a reproducible key,
    ``PRK = SHA-256(TAG("local-seed") ‖ LP(str(seed)))``, so the same seed replays the same game.
    """
    return Streams(_h(_TAG_LOCAL_SEED + lp(str(seed).encode())))
