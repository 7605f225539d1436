"""What a client was shown of a match, kept as digests so that the audit can compare it with the
replay (docs/fairness.md §8).

Views and their events travel unsigned (docs/protocol.md, 'The wire'): a server could show a
player a game other than the one it signs. So the client keeps one `Step` for every view update
it applied: the seq of the view, whether it came whole (a snapshot) or as a delta, the view's
hash (protocol.diff.view_hash) and a two-byte digest of each of its fields (which field differs,
when one does), and an eight-byte digest of each public event it displayed with it. At the end
the audit replays the signed record and checks each step against the view the engine gives that
seat at that seq and against the public events the signed entries commit to.

The steps are the client's own account, not signed: they tell the player whether what they saw
is what the server signed, not a third party whether the server or the client lies.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .codec import pack
from .diff import field_text, hash_fields
from .messages import printable

VIEW_HASH = 8       # bytes of protocol.diff.view_hash
FIELD_DIGEST = 2    # bytes per field: enough to name a field that differs, never to judge (the hash does)
EVENT_DIGEST = 8    # bytes per event shown
# A match has a few hundred entries, and a client keeps one step per view it applied (a snapshot
# equal to the step before it is not kept again); a server that makes it apply more is refused.
MAX_STEPS = 4000


@dataclass(frozen=True)
class Step:
    seq: int             # the entry the view is of
    snapshot: bool       # a whole view (its events the latest ones) or a delta (its move's events)
    view: bytes          # view_hash of the view shown
    fields: bytes        # FIELD_DIGEST bytes per field of the view, in the order of its sorted keys
    events: bytes        # EVENT_DIGEST bytes per public event displayed with it, in order

    def as_list(self) -> list:
        return [self.seq, self.snapshot, self.view, self.fields, self.events]


@dataclass
class Shown:
    """Everything one client (a seat, or a spectator: seat None) was shown of one match."""
    seat: int | None
    steps: list[Step] = field(default_factory=list)
    # The connection was lost for good after the deal was fixed: the record holds the signed
    # prefix of a match whose end never came (docs/fairness.md §8).
    abandoned: bool = False
    # The client's file of what it was shown (client/session.py) was damaged after this many
    # steps: the ones it held past them are lost, and those kept after them were shown later.
    unreadable_after: int | None = None

    def add(self, step: Step) -> bool:
        """Keep a step; False when it adds nothing (the same view again, with no events)."""
        last = self.steps[-1] if self.steps else None
        if last is not None and step.snapshot and not step.events and \
                (last.seq, last.view) == (step.seq, step.view):
            return False
        self.steps.append(step)
        return True

    @property
    def full(self) -> bool:
        return len(self.steps) >= MAX_STEPS

    def as_map(self) -> dict:
        out = {"seat": self.seat, "steps": [s.as_list() for s in self.steps]}
        if self.abandoned:
            out["abandoned"] = True
        if self.unreadable_after is not None:
            out["unreadable_after"] = self.unreadable_after
        return out

    @classmethod
    def from_map(cls, data) -> "Shown":
        """The inverse of as_map, for data read from a file: ValueError says what is wrong."""
        if not isinstance(data, dict) or set(data) - {"seat", "steps", "abandoned", "unreadable_after"}:
            raise ValueError("it is not a map of seat, steps, abandoned and unreadable_after")
        seat, steps = data.get("seat"), data.get("steps")
        if seat is not None and type(seat) is not int:
            raise ValueError(f"its seat is {type(seat).__name__}, not a number")
        if not isinstance(steps, list) or len(steps) > MAX_STEPS:
            raise ValueError(f"its steps must be a list of at most {MAX_STEPS}")
        if type(data.get("abandoned", False)) is not bool:
            raise ValueError("its abandoned mark must be true or false")
        lost = data.get("unreadable_after")
        if lost is not None and not (type(lost) is int and 0 <= lost <= len(steps)):
            raise ValueError("its unreadable_after must be a count of its steps")
        return cls(seat, [step_from_list(s, i) for i, s in enumerate(steps)], data.get("abandoned", False), lost)


def step_from_list(raw, n: int) -> Step:
    if not (isinstance(raw, list) and len(raw) == 5 and type(raw[0]) is int and type(raw[1]) is bool
            and all(isinstance(b, bytes) for b in raw[2:])):
        raise ValueError(f"step {n} is not [seq, snapshot, view hash, field digests, event digests]")
    seq, snapshot, view, fields, events = raw
    if len(view) != VIEW_HASH or len(fields) % FIELD_DIGEST or len(events) % EVENT_DIGEST:
        raise ValueError(f"step {n} has digests of the wrong length")
    return Step(seq, snapshot, view, fields, events)


def view_digests(view: dict) -> tuple[bytes, bytes, list[str]]:
    """The view's hash (as protocol.diff.view_hash), its fields' digests, and its sorted keys."""
    texts = {k: field_text(k, v) for k, v in view.items()}
    keys = sorted(texts)
    fields = b"".join(hashlib.sha256(texts[k].encode()).digest()[:FIELD_DIGEST] for k in keys)
    return hash_fields(texts), fields, keys


def event_digest(event: dict) -> bytes:
    """An event as displayed: its type, to whom and its words, without control characters (the
    client removes them from all a server sends before it shows anything: protocol.messages.printable)."""
    shown = printable([event.get("type"), event.get("to"), event.get("text")])
    return hashlib.sha256(pack(shown)).digest()[:EVENT_DIGEST]


def step(seq: int, snapshot: bool, view: dict, events: list[dict]) -> Step:
    """The step of a view applied and the public events displayed with it."""
    vhash, fields, _ = view_digests(view)
    return Step(seq, snapshot, vhash, fields, b"".join(event_digest(e) for e in events))


def digests(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]
