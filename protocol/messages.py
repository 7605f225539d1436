"""Signed messages of the fair-dealing protocol and the digests entries commit to."""
from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from typing import NoReturn

import games
from games.errors import IllegalAction, Refused

from .codec import MAX_MESSAGE, Budget, DecodeError, unpack
from .fairness import PROTOCOLS, entry_hash, lp, tag, u32
from .signing import PUBLIC_KEY_BYTES


class ProtocolError(Refused):
    """A message the protocol forbids here; the exchange is as it was."""


@dataclass(frozen=True)
class Signed:
    """One signed message exactly as sent: kind "entry" (public log) or "private", with `body`
    its payload decoded."""
    kind: str
    payload: bytes
    sig: bytes
    body: dict = field(compare=False, repr=False)

    @classmethod
    def parse(cls, kind: str, payload: bytes, sig: bytes, max_size: int = MAX_MESSAGE,
              budget: Budget | None = None) -> "Signed":
        """The message, its payload decoded (at most `max_size` bytes; its values taken from
        `budget` when given); else ProtocolError."""
        if kind not in ("entry", "private"):
            raise ProtocolError("bad_kind", f"unknown message kind {kind!r}")
        if not isinstance(payload, bytes) or not isinstance(sig, bytes):
            raise ProtocolError("bad_message", "payload and signature must be bytes")
        try:
            body = unpack(payload, max_size, budget)
        except DecodeError as e:
            raise ProtocolError("bad_payload", e.message) from None
        if not isinstance(body, dict) or not isinstance(body.get("t"), str) or type(body.get("seq")) is not int:
            raise ProtocolError("bad_payload", "a payload is a map with a type 't' and a 'seq'")
        return cls(kind, payload, sig, body)

    @property
    def hash(self) -> bytes:
        return entry_hash(self.payload)


def short_repr(value) -> str:
    """A value from a message, for an error text: shortened, as anyone can put anything there."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def printable(value):
    """A server's data as it may reach a terminal: every string in it without its control
    characters (Unicode category C: ESC, BEL, newlines, ...), with which a server could move the
    cursor, clear the screen or retitle the window. For showing only: what is signed or hashed is
    checked as it came."""
    if isinstance(value, str):
        return value if value.isprintable() else "".join(c for c in value if unicodedata.category(c)[0] != "C")
    if isinstance(value, list):
        return [printable(v) for v in value]
    if isinstance(value, dict):
        return {k: printable(v) for k, v in value.items()}
    return value


def check_header(body: dict):
    """The rules engine of the game a header (entry 0) names, once every field of the header has
    the type and shape docs/fairness.md §4 gives it; else ProtocolError("bad_header", what is wrong).
    The one check of a header's content, for the player's exchange and for the audit alike: a
    header is signed by whoever made it, so its fields are data from outside like any other.
    The signature is the caller's to check, against the key checked here."""
    def bad(what: str) -> NoReturn:
        raise ProtocolError("bad_header", what)

    if body.get("t") != "header" or body.get("seq") != 0:
        bad("the first entry must be a header, numbered 0")
    if body.get("protocol") not in PROTOCOLS:
        bad(f"protocol {short_repr(body.get('protocol'))} is not one of {', '.join(PROTOCOLS)}")
    for name, size in (("game_id", 16), ("server_key", 32), ("server_commit", 32)):
        if not isinstance(body.get(name), bytes) or len(body[name]) != size:
            bad(f"the {name} must be {size} bytes, not {short_repr(body.get(name))}")
    game = body.get("game")
    if type(game) is not str:
        bad(f"the game must be a name, not {short_repr(game)}")
    try:
        engine = games.get(game)
    except IllegalAction as e:
        bad(e.message)
    if type(body.get("rules")) is not str:
        bad(f"the rules version must be a string, not {short_repr(body.get('rules'))}")
    if not isinstance(body.get("manifest"), bytes):
        bad(f"the card manifest hash must be bytes, not {short_repr(body.get('manifest'))}")
    options = body.get("options")
    # Options are plain settings (bool, int or str); type() because True is also an int.
    if not isinstance(options, dict) or not all(
            type(k) is str and type(v) in (bool, int, str) for k, v in options.items()):
        bad(f"the table options must map names to booleans, numbers or words, not {short_repr(options)}")
    seats = body.get("seats")
    if not isinstance(seats, list) or not all(
            isinstance(s, dict) and type(s.get("id")) is str and type(s.get("name")) is str for s in seats):
        bad(f"the seats must be a list of {{id, name}} maps, not {short_repr(seats)}")
    info = engine.INFO
    if len(seats) not in info.players:
        bad(f"{info.title} is for {info.min_players} to {info.max_players} players, not {len(seats)}")
    if len({s["id"] for s in seats}) != len(seats):
        bad("two seats have the same player id")
    if body["protocol"] != "bgfair/v1":
        _check_players(body, bad)
    if "dealing" in body and (body["protocol"] == "bgfair/v1" or body["dealing"] != "blind"):
        bad(f"the dealing must be \"blind\" (or absent, an open table), not {short_repr(body['dealing'])}")
    return engine


def _check_players(body: dict, bad) -> None:
    """bgfair/v2: every seat is a player's key or a computer player's level, never both, no key
    at two seats; the table's `rated` choice and the time the match `started`."""
    for i, s in enumerate(body["seats"]):
        key, bot = s.get("key"), s.get("bot")
        if (key is None) == (bot is None):
            bad(f"seat {i} must have either a player's key or a computer player's level")
        if key is not None and (not isinstance(key, bytes) or len(key) != PUBLIC_KEY_BYTES):
            bad(f"the key of seat {i} must be {PUBLIC_KEY_BYTES} bytes, not {short_repr(key)}")
        if bot is not None and type(bot) is not str:
            bad(f"the level of seat {i} must be text, not {short_repr(bot)}")
    keys = [s["key"] for s in body["seats"] if "key" in s]
    if len(set(keys)) != len(keys):
        bad("two seats have the same key")
    if type(body.get("rated")) is not bool:
        bad(f"rated must be true or false, not {short_repr(body.get('rated'))}")
    if type(body.get("started")) is not int or body["started"] < 0:
        bad(f"started must be a time in whole seconds, not {short_repr(body.get('started'))}")


def seat_keys(header: dict) -> list[bytes | None]:
    """The player's key of each seat of a checked header (None: a computer seat, or a bgfair/v1
    record, whose moves nobody but the server signed)."""
    return [s.get("key") if header["protocol"] != "bgfair/v1" else None for s in header["seats"]]


# How a cancel entry's reason says which seeds never came (server/table_core.py writes it), so
# that the audit can read the claim back and fail a cancel whose own record holds those seeds.
_LATE_VERBS = {"commit": "commit to", "reveal": "reveal"}


def late_seed_reason(names: list[str], step: str, within: float | None = None) -> str:
    """The reason of a match cancelled because these players' commitments or seeds (step
    "commit" or "reveal") did not come within `within` seconds (None: their grace period)."""
    when = f"within {within:g} s" if within is not None else "in time"
    return f"{' and '.join(names)} did not {_LATE_VERBS[step]} their seed {when}"


def claimed_late(reason) -> tuple[str, list[str]] | None:
    """What a cancel's reason claims never came, as late_seed_reason words it: ("commit" or
    "reveal", the names it gives), or None when it claims nothing of the kind."""
    if not isinstance(reason, str):
        return None
    for step, verb in _LATE_VERBS.items():
        said, sep, _ = reason.partition(f" did not {verb} their seed")
        if sep:
            return step, said.split(" and ")
    return None


def events_digest(events: list[dict]) -> bytes:
    """What a move entry commits to: its public events, type and words, in order."""
    digest = hashlib.sha256(tag("events") + u32(len(events)))
    for e in events:
        digest.update(lp(e["type"].encode()))
        digest.update(lp(e["text"].encode()))
    return digest.digest()[:16]


def split_events(events: list[dict], seats: int) -> tuple[list[dict], list[list[str]]]:
    """A move's events as the protocol sends them, in one pass: the public ones, and for each
    seat the texts only it may see (in private messages)."""
    shown: list[dict] = []
    private: list[list[str]] = [[] for _ in range(seats)]
    for e in events:
        to = e["to"]
        if to is None:
            shown.append(e)
        else:
            private[to].append(e["text"])
    return shown, private
