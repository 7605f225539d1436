"""The views of the match that one table's connections are sent: snapshots and deltas.

Each seated person is sent its own view, numbered with the table's `seq`: a `snapshot` first,
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

from games.contract import PRIVATE
from protocol import wire
from protocol.codec import as_received, pack
from protocol.diff import diff, view_hash

from .conn import Conn

log = logging.getLogger("governor.server")
EVENTS_IN_SNAPSHOT = 50   # the latest events a snapshot carries: the game log a client shows
SNAPSHOT_CHECK = 1024     # deltas shorter than this are never larger than a snapshot
PRIVATE_OPS = 48          # what the ops that set a seat's PRIVATE fields add to their values: op, path, headers


def decoded_view(engine, state, seat: int | None):
    """The engine's view exactly as the receiver decodes it (tuples become lists), so that what
    is compared, hashed and shown to bots is what a client holds."""
    return as_received(engine.view(state, seat))


class Broadcaster:
    def __init__(self, core) -> None:
        self.core = core                       # read, never changed here
        self.table_id = core.id
        self.engine = core.engine
        self._sent: dict[int, tuple] = {}      # seat index -> (conn, view, seq): what that connection has
        self._pub_view = None                  # the public view the spectators have ...
        self._pub_seq = -1                     # ... and its seq
        self._pub_snap: tuple[int, bytes] | None = None  # (seq, frame): the public snapshot, encoded once

    @property
    def seq(self) -> int:
        return self.core.seq

    @property
    def state(self):
        return self.core.state

    def show(self, events: list[dict], actor: int | None) -> None:
        """The match is now at the core's `seq`, with these new events: every connected seat gets
        its view update (the seat that moved, `actor`, gets one even when its view did not
        change: its command is answered at that seq), then the spectators get theirs."""
        for s in self.core.seats:
            if s.human and s.conn is not None:
                self._send_view(s, events, force=s.index == actor)
        self._send_public(events)

    def snapshot_to(self, conn: Conn) -> None:
        """Send a seat's or a spectator's connection a fresh snapshot: it (re)connected, asked for
        one, or sent a command decided on an old view."""
        s = self._seat_of(conn)
        if s is not None:
            self._sent.pop(s.index, None)
            self._send_view(s, [], force=True)
        elif conn in self.core.spectators:
            self.public_snapshot_to(conn)

    def _seat_of(self, conn: Conn):
        return next((s for s in self.core.seats if s.conn is conn), None)

    def _send_view(self, s, events: list[dict], force: bool = False) -> None:
        conn = s.conn
        view = decoded_view(self.engine, self.state, s.index)
        # The public events only: what a seat alone is told comes to it signed, in a private
        # message (protocol/exchange.py), whose length is one size class whatever it says.
        mine = self.engine.visible_events(events, None)
        sent = self._sent.get(s.index)
        if sent is None or sent[0] is not conn or conn.stale_view:   # a new connection has nothing yet
            conn.stale_view = False
            frame = self._snapshot(view, s.index)
        elif not force and not mine and view == sent[1]:
            return
        else:
            frame = self._delta(sent[1], view, sent[2], mine, s.index)
        self._sent[s.index] = (conn, view, self.seq)
        conn.push(frame, droppable=True)
        if conn.stale_view:
            self._resnap(conn)

    # ------------------------------------------------------------------ spectators

    def public_snapshot_to(self, conn: Conn) -> None:
        conn.push(self._pub_snapshot(), droppable=True)
        conn.seq = self._pub_seq

    def _pub_snapshot(self) -> bytes:
        if self._pub_view is None or self._pub_seq != self.seq:
            self._pub_view, self._pub_seq = decoded_view(self.engine, self.state, None), self.seq
        if self._pub_snap is None or self._pub_snap[0] != self._pub_seq:
            self._pub_snap = (self._pub_seq, self._snapshot(self._pub_view, None))
        return self._pub_snap[1]

    def _send_public(self, events: list[dict]) -> None:
        """The public view: computed and encoded once per change, the same bytes to everyone. A
        spectator that missed the previous update gets the snapshot instead of the delta."""
        spectators = self.core.spectators
        if not spectators:
            self._pub_view = None
            return
        view = decoded_view(self.engine, self.state, None)
        shown = self.engine.visible_events(events, None)
        if self._pub_view is not None and view == self._pub_view and not shown:
            return
        if self._pub_view is None:
            self._pub_view, self._pub_seq = view, self.seq
            frame = self._pub_snapshot()
            base = None
        else:
            base = self._pub_seq
            frame = self._delta(self._pub_view, view, base, shown, None)
            self._pub_view, self._pub_seq = view, self.seq
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

    def _snapshot(self, view, seat: int | None) -> bytes:
        msg = {"type": "snapshot", "table": self.table_id, "seq": self.seq, "view": view, "hash": view_hash(view),
               "events": self.engine.visible_events(self.core.events, None)[-EVENTS_IN_SNAPSHOT:]}
        if seat is None:
            return wire.encode(msg)
        return self._padded(msg, view, {**msg, "view": _public(view)})

    def _delta(self, old, new, base: int, events: list[dict], seat: int | None) -> bytes:
        """A delta from the view at `base`, or the snapshot when that is no larger."""
        msg = {"type": "delta", "table": self.table_id, "base": base, "seq": self.seq, "ops": diff(old, new),
               "hash": view_hash(new), "events": events}
        if seat is None:
            frame = wire.encode(msg)
        else:
            # A seat's own fields go whole when they change: what they add then is their size
            # and a few bytes, whatever changed in them.
            public = diff(_public(old), _public(new))
            private = [["set", [k], new[k]] for k in PRIVATE if k in new and (k not in old or old[k] != new[k])]
            private += [["del", [k]] for k in PRIVATE if k in old and k not in new]
            msg["ops"] = public + private
            frame = self._padded(msg, new, {**msg, "ops": public})
        if len(frame) > SNAPSHOT_CHECK:
            snap = self._snapshot(new, seat)
            if len(snap) <= len(frame):
                return snap
        return frame

    def _padded(self, msg: dict, view, public: dict) -> bytes:
        """A frame to a seat, padded to the length of its public part (`public`: the message
        without the seat's PRIVATE fields) and the room the game says those fields can take at
        most whatever the seat's hidden cards are. Every part of that is what everyone sees, and
        so is the frame's length: it can tell nothing hidden. When the fields hide nothing, the
        frame fills its size class."""
        room = self.engine.private_room(view)
        if room is None:
            return wire.encode(msg)
        length = len(pack(public)) + room + PRIVATE_OPS
        frame = wire.encode(msg, length)
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
        if s is not None:
            view = decoded_view(self.engine, self.state, s.index)
            self._sent[s.index] = (conn, view, self.seq)
            conn.push(self._snapshot(view, s.index), droppable=True)
        elif conn in self.core.spectators:
            self.public_snapshot_to(conn)

    # ------------------------------------------------------------------ frames that must arrive

    def send(self, conn: Conn, frame: bytes) -> None:
        """A frame that must arrive: a signed message, an answer, an error, a status."""
        conn.push(frame)
        if conn.stale_view:
            self._resnap(conn)


def _public(view) -> dict:
    """A seat's view without the fields only that seat may see."""
    return {k: v for k, v in view.items() if k not in PRIVATE}
