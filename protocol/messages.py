"""Signed messages of the fair-dealing protocol and the digests entries commit to."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .codec import DecodeError, unpack
from .fairness import entry_hash, lp, tag, u32


class ProtocolError(Exception):
    """A message the protocol forbids here. `code` for programs, `message` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Signed:
    """One signed message exactly as sent: kind "entry" (public log) or "private"."""
    kind: str
    payload: bytes
    sig: bytes
    body: dict = field(compare=False, repr=False, default=None)

    @classmethod
    def parse(cls, kind: str, payload: bytes, sig: bytes) -> "Signed":
        if kind not in ("entry", "private"):
            raise ProtocolError("bad_kind", f"unknown message kind {kind!r}")
        if not isinstance(payload, bytes) or not isinstance(sig, bytes):
            raise ProtocolError("bad_message", "payload and signature must be bytes")
        try:
            body = unpack(payload)
        except DecodeError as e:
            raise ProtocolError("bad_payload", str(e)) from None
        if not isinstance(body, dict) or not isinstance(body.get("t"), str) or type(body.get("seq")) is not int:
            raise ProtocolError("bad_payload", "a payload is a map with a type 't' and a 'seq'")
        return cls(kind, payload, sig, body)

    @property
    def hash(self) -> bytes:
        return entry_hash(self.payload)


def events_digest(events: list[dict]) -> bytes:
    """What a move entry commits to: its public events, type and words, in order."""
    data = tag("events") + u32(len(events))
    for e in events:
        data += lp(e["type"].encode()) + lp(e["text"].encode())
    return hashlib.sha256(data).digest()[:16]


def public_events(events: list[dict]) -> list[dict]:
    return [e for e in events if e["to"] is None]


def private_events(events: list[dict], seat: int) -> list[str]:
    return [e["text"] for e in events if e["to"] == seat]
