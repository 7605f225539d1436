"""The views of the match that one table's connections are sent: snapshots and deltas.

Each seated person is sent its own view (but at a table dealt blind, where each client makes its
own from its replica of the log), numbered with the table's `seq`: a `snapshot` first,
then `delta`s against the view it was last sent (protocol.diff) — or a snapshot again when that
is no larger, when the seat (re)connects or asks, or after its connection dropped queued view
updates. Spectators share the public view, computed and encoded once per change: the same bytes
go to all of them (docs/protocol.md, 'The wire').

A seat's updates carry the public events only (what it alone is told reaches it in signed private
messages), its own fields (games/contract.py PRIVATE) whole when they change, and padding to a
length its public part and its game's `private_room` decide: an eavesdropper who sees how long
each frame is learns nothing of its cards (protocol/wire.py, 'padding').

A connection that falls behind loses its queued view updates, never the frames that must arrive
(server/conn.py); whatever this class pushes, it then checks for that and follows with one fresh
snapshot, so that the client never waits on a delta that was dropped.

The Broadcaster never changes the match: it reads the table's core (server/table_core.py) —
the match state, its seq and events, who sits where over which connection, the spectators — and
carries out the core's `Send`, `Show` and `Snapshot` effects.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from games.contract import PRIVATE
from protocol import wire
from protocol.codec import array_header, pack, pack_items, pack_map
from protocol.diff import SharedHash, diff, field_text, item_text, list_field_text, view_hash

from .conn import Conn

log = logging.getLogger("governor.server")
_DELTA = pack("delta")
SNAPSHOT_CHECK = 1024     # deltas shorter than this are never larger than a snapshot
PRIVATE_OPS = 48          # what the ops that set a seat's PRIVATE fields add to their values: op, path, headers
OWN = ("seat", *PRIVATE)  # the fields of a seat's view that are its own; every other field is alike in every view


class Shared:
    """The fields every view of the match shows alike at one moment (all but the seat's own,
    OWN), made once per change: the engine builds each seat's view anew, and a seat's view
    whose fields are equal to these is sent with the work done on them once — their canonical
    text (the view hash), their delta from the fields before. Equality is checked, not assumed."""

    def __init__(self, fields: dict, prev: "Shared | None") -> None:
        self.fields = fields
        self.prev = prev                        # the fields of the change before (the seats' usual base)
        if prev is not None:
            prev.prev = None                    # only one step back is kept
            prev._ops = prev._packed_ops = None  # its delta was sent: nothing asks for it again
        self._ops: list | None = None           # diff(prev.fields, fields), once settled
        self._packed_ops: bytes | None = None   # its items packed, once a seat is sent them
        self._text: dict[str, str] | None = None
        self._items: dict[str, list[str]] = {}  # the text of each item of the fields that are lists
        self._hash: SharedHash | None = None

    def settle(self) -> None:
        """Make the delta from the fields before, at once, before any view is made of these
        fields: making it makes every part of them that did not change the very object it was
        before (protocol.diff), and the engine's new one is dropped. A table then keeps of its
        views mostly what it kept before, which the garbage collector has moved out of its young
        generation; with hundreds of tables changing their views every second, a young collection
        otherwise walked every table's whole views (server/heap.py)."""
        if self.prev is not None and self._ops is None:
            self._ops = diff(self.prev.fields, self.fields)

    def text(self) -> dict[str, str]:
        """Each field's text for the view hash (protocol.diff.field_text): that of the fields
        before where a field is the very object it was (settled), and of a list (the players) the
        items that are; the others' written anew."""
        if self._text is None:
            prev = self.prev if self.prev is not None and self.prev._text is not None else None
            old, old_text, old_items = (prev.fields, prev._text, prev._items) if prev else ({}, {}, {})
            self._text = {}
            for k, v in self.fields.items():
                if k in old and old[k] is v:
                    self._text[k] = old_text[k]
                    if k in old_items:
                        self._items[k] = old_items[k]
                elif type(v) is list:
                    before, texts = old.get(k), old_items.get(k, ())
                    self._items[k] = items = [texts[i] if i < len(texts) and before[i] is item else item_text(item)
                                              for i, item in enumerate(v)]
                    self._text[k] = list_field_text(k, items)
                else:
                    self._text[k] = field_text(k, v)
        return self._text

    def hashing(self) -> SharedHash:
        """The view hash of the views that show these fields, their own beside them."""
        if self._hash is None:
            self._hash = SharedHash(self.text())
        return self._hash

    def ops_from(self, base: "Shared") -> list:
        """The delta of these fields from `base`'s."""
        if base is self:
            return []
        if base is self.prev:
            self.settle()
            return self._ops
        return diff(base.fields, self.fields)

    def packed_ops_from(self, base: "Shared") -> tuple[int, bytes]:
        """How many operations `ops_from(base)` has, and their items packed one after another:
        packed once for every seat whose base is the fields before."""
        if base is self.prev and self._packed_ops is not None:
            return len(self._ops), self._packed_ops
        ops = self.ops_from(base)
        packed = pack_items(ops)
        if base is self.prev:
            self._packed_ops = packed
        return len(ops), packed


class Broadcaster:
    def __init__(self, core) -> None:
        self.core = core                       # read, never changed here
        self.table_id = core.id
        self.engine = core.engine
        self._sent: dict[int, Sent] = {}       # seat index -> what that connection has
        self._shared: Shared | None = None     # the fields the views of the latest change share
        self._pub: Sent | None = None          # the public view the spectators have
        self._pub_snap: tuple[int, bytes] | None = None  # (seq, frame): the public snapshot, encoded once
        self._packed_table = pack(self.table_id)
        self._packed_events: tuple[list, bytes] = ([], pack([]))  # the latest events shown, and packed

    @property
    def seq(self) -> int:
        return self.core.seq

    @property
    def state(self):
        return self.core.state

    def show(self, shown: list[dict], actor: int | None) -> None:
        """The match is now at the core's `seq`, with these new public events (plain maps): every
        connected seat gets its view update (the seat that moved, `actor`, gets one even when its
        view did not change: its command is answered at that seq), then the spectators get theirs.
        Each gets the public events only: what a seat alone is told comes to it signed, in a
        private message (protocol/exchange.py), whose length is one size class whatever it says."""
        # On a blind table a seated person's client makes its own view from its replica: the
        # server could not (it does not see their cards), and sends the spectators' alone.
        seats = [] if self.core.blind else [s for s in self.core.seats if s.human and s.conn is not None]
        watched = bool(self.core.spectators)
        views = self._views([s.index for s in seats] + [None] * watched)
        for s, now in zip(seats, views):
            self._send_view(s, now, shown, force=s.index == actor)
        self._send_public(views[-1] if watched else None, shown)

    def snapshot_to(self, conn: Conn) -> None:
        """Send a seat's or a spectator's connection a fresh snapshot: it (re)connected, asked for
        one, or sent a command decided on an old view."""
        s = self._seat_of(conn)
        if s is not None and self.core.blind:
            return
        if s is not None:
            self._sent.pop(s.index, None)
            self._send_view(s, self._views([s.index])[0], [], force=True)
        elif conn in self.core.spectators:
            self.public_snapshot_to(conn)

    def _seat_of(self, conn: Conn):
        return next((s for s in self.core.seats if s.conn is conn), None)

    def _views(self, seats: list[int | None]) -> list[Sent]:
        """The views of these seats (None: a spectator) now, made by the engine at once: each of
        the Shared fields (those of the views before it at this change when they are equal: the
        engine's views of one call share them), settled before the views are made of them
        (Shared.settle), and the seat's own. Everything sent of a view (its delta, its hash,
        itself in a snapshot) is then made of the same objects."""
        views = self.engine.views(self.state, seats) if seats else []
        shared = []
        for view in views:      # compared while they are the engine's objects: the same ones, at once
            common = _common(view)
            if self._shared is None or self._shared.fields != common:
                self._shared = Shared(common, self._shared)
            shared.append(self._shared)
        for made in dict.fromkeys(shared):
            made.settle()
        return [Sent(None, {**fields.fields, **{k: view[k] for k in OWN if k in view}}, self.seq, fields)
                for view, fields in zip(views, shared)]

    def _send_view(self, s, now: Sent, shown: list[dict], force: bool = False) -> None:
        conn = s.conn
        sent = self._sent.get(s.index)
        now.before = sent
        if sent is None or sent.conn is not conn or conn.stale_view:   # a new connection has nothing yet
            conn.stale_view = False
            frame = self._snapshot(now, s.index)
        elif not force and not shown and now.view == sent.view:
            return
        else:
            frame = self._delta(sent, now, shown, s.index)
        now.conn = conn
        self._sent[s.index] = now
        conn.push(frame, droppable=True)
        if conn.stale_view:
            self._resnap(conn)

    # ------------------------------------------------------------------ spectators

    def public_snapshot_to(self, conn: Conn) -> None:
        conn.push(self._pub_snapshot(), droppable=True)
        conn.seq = self._pub.seq

    def _pub_snapshot(self) -> bytes:
        if self._pub is None or self._pub.seq != self.seq:
            self._pub = self._views([None])[0]
        if self._pub_snap is None or self._pub_snap[0] != self._pub.seq:
            self._pub_snap = (self._pub.seq, self._snapshot(self._pub, None))
        return self._pub_snap[1]

    def _send_public(self, now: Sent | None, shown: list[dict]) -> None:
        """The public view now (None: nobody watches), encoded once per change, the same bytes to
        every spectator. A spectator that missed the previous update gets the snapshot instead of
        the delta."""
        spectators = self.core.spectators
        if now is None:
            self._pub = None
            return
        if self._pub is not None and now.view == self._pub.view and not shown:
            return
        if self._pub is None:
            self._pub = now
            frame = self._pub_snapshot()
            base = None
        else:
            base = self._pub.seq
            frame = self._delta(self._pub, now, shown, None)
            self._pub = now
        for c in list(spectators):
            if c.stale_view or (base is not None and c.seq != base):
                c.stale_view = False
                c.push(self._pub_snapshot(), droppable=True)
            else:
                c.push(frame, droppable=True)
            c.seq = self.seq
            if c.stale_view:
                self._resnap(c)

    # ------------------------------------------------------------------ frames

    def _latest_events(self) -> list[dict]:
        """The latest public events, as many as a snapshot carries (the core keeps them)."""
        return list(self.core.latest_events)

    def _snapshot(self, now: Sent, seat: int | None) -> bytes:
        view = now.view
        msg = {"type": "snapshot", "table": self.table_id, "seq": now.seq, "view": view, "hash": now.hash,
               "events": self._latest_events()}
        room = None if seat is None else self.engine.private_room(view)
        if room is None:     # when the fields hide nothing, the frame fills its size class
            return wire.encode(msg)
        return self._padded(lambda length: wire.encode(msg, length), room, len(pack({**msg, "view": _public(view)})))

    def _delta(self, old: Sent, new: Sent, events: list[dict], seat: int | None) -> bytes:
        """A delta from the view `old` (sent at its seq), or the snapshot when that is no larger.
        A seat's own fields go whole when they change: what they add then is their size and a few
        bytes, whatever changed in them."""
        private = []
        for k in PRIVATE:
            if k in new.view:
                if k in old.view and old.view[k] == new.view[k]:
                    new.view[k] = old.view[k]    # kept, as the shared fields' unchanged parts are (Shared.settle)
                else:
                    private.append(["set", [k], new.view[k]])
        private += [["del", [k]] for k in PRIVATE if k in old.view and k not in new.view]
        # The message is made of bytes: what every view update of this change shares (the shared
        # fields' operations, the events) packed once (msgpack's lists are a header and their
        # items one after another), and what is the seat's own.
        count, ops = _packed_ops(old, new)
        head = {"table": self._packed_table, "base": pack(old.seq), "seq": pack(new.seq)}
        tail = {"hash": pack(new.hash), "events": self._packed(events)}
        all_ops = array_header(count + len(private)) + ops + pack_items(private)
        room = None if seat is None else self.engine.private_room(new.view)
        if room is None:
            frame = wire.encode_packed("delta", {**head, "ops": all_ops, **tail})
            if len(frame) > SNAPSHOT_CHECK:
                snap = self._snapshot(new, seat)
                if len(snap) <= len(frame):
                    return snap
            return frame
        # The frame's length follows its public part (see _padded): so does the choice of a
        # snapshot instead, made on the public parts alone.
        public_length = len(pack_map({"type": _DELTA, **head, "ops": array_header(count) + ops, **tail}))
        if public_length > SNAPSHOT_CHECK:
            snap = {"type": "snapshot", "table": self.table_id, "seq": new.seq, "view": _public(new.view),
                    "hash": new.hash, "events": self._latest_events()}
            if len(pack(snap)) <= public_length:
                return self._snapshot(new, seat)
        return self._padded(lambda length: wire.encode_packed("delta", {**head, "ops": all_ops, **tail}, length),
                            room, public_length)

    def _packed(self, events: list[dict]) -> bytes:
        """The events shown, packed once for every seat they are shown to."""
        if self._packed_events[0] is not events:
            self._packed_events = (events, pack(events))
        return self._packed_events[1]

    def _padded(self, frame_of, room: int, public_length: int) -> bytes:
        """A frame to a seat, padded to the length of its public part (`public_length`: that of
        the message without the seat's PRIVATE fields, packed) and the room the game says those
        fields can take at most whatever the seat's hidden cards are (`room`). Every part of that
        is what everyone sees, and so is the frame's length: it can tell nothing hidden.
        `frame_of(length)` encodes the message padded to that length."""
        length = public_length + room + PRIVATE_OPS
        frame = frame_of(length)
        if len(frame) > length:    # the game's room is too small: a bug, and a length that may tell
            log.warning("table %s: a view update outgrew the room its game leaves a seat's own fields "
                        "(%d bytes, not %d)", self.table_id, len(frame), length)
        return frame

    def _resnap(self, conn: Conn) -> None:
        """The connection lost queued view updates: send it one fresh snapshot."""
        conn.stale_view = False
        if conn.closed or self.state is None:
            return
        s = self._seat_of(conn)
        if s is not None and not self.core.blind:
            now = self._views([s.index])[0]
            now.conn = conn
            self._sent[s.index] = now
            conn.push(self._snapshot(now, s.index), droppable=True)
        elif conn in self.core.spectators:
            self.public_snapshot_to(conn)

    # ------------------------------------------------------------------ frames that must arrive

    def send(self, conn: Conn, frame: bytes) -> None:
        """A frame that must arrive: a signed message, an answer, an error, a status."""
        conn.push(frame)
        if conn.stale_view:
            self._resnap(conn)


@dataclass(eq=False)
class Sent:
    """A view as made at `seq`, and what is known of it: the Shared fields it shows (None: not
    known to show any), and once it is sent, the connection it went to."""
    conn: Conn | None
    view: dict
    seq: int
    shared: Shared | None
    before: "Sent | None" = None      # the view the seat had before, until this one's hash is made
    _own: dict[str, str] | None = None   # the text of its OWN fields, once the hash is made
    _hash: bytes | None = None

    @property
    def hash(self) -> bytes:
        """The view's hash (protocol.diff.view_hash), from the text its shared fields have
        already, and that of its own fields that have not changed since the view before."""
        if self._hash is None:
            view, shared, before = self.view, self.shared, self.before
            if shared is None:
                self._hash = view_hash(view)
            else:
                self._own = _texts({k: view[k] for k in OWN if k in view},
                                   (before.view, before._own) if before and before._own else None)
                self._hash = shared.hashing().of(self._own)
            self.before = None
        return self._hash


def _texts(fields: dict, before: tuple[dict, dict[str, str]] | None) -> dict[str, str]:
    """Each field's text for the view hash (protocol.diff.field_text); that of a field equal to
    one in `before` (fields, and their texts) is taken from there: comparing costs less."""
    old, texts = before or ({}, {})
    return {k: texts[k] if k in texts and old[k] == v else field_text(k, v) for k, v in fields.items()}


def _common(view: dict) -> dict:
    """The fields of a view that every view shows alike."""
    return {k: v for k, v in view.items() if k not in OWN}


def _public(view) -> dict:
    """A seat's view without the fields only that seat may see."""
    return {k: v for k, v in view.items() if k not in PRIVATE}


def _packed_ops(old: Sent, new: Sent) -> tuple[int, bytes]:
    """The delta from one view to the next, bar the PRIVATE fields (sent whole by the caller),
    packed: how many operations, and their items one after another; the shared fields' part
    packed once per change."""
    if old.shared is None or new.shared is None:
        ops = diff(_public(old.view), _public(new.view))
        return len(ops), pack_items(ops)
    count, packed = new.shared.packed_ops_from(old.shared)
    if old.view.get("seat") != new.view.get("seat"):
        seat = diff({"seat": old.view.get("seat")}, {"seat": new.view.get("seat")})
        count, packed = count + len(seat), packed + pack_items(seat)
    return count, packed
