"""What the connections at one table are sent: views of the match, statuses, answers and errors.

Each seated person is sent its own view, numbered with the table's `seq`: a `snapshot` first,
then `delta`s against the view it was last sent (protocol.diff) — or a snapshot again when that
is no larger, when the seat (re)connects or asks, or after its connection dropped queued view
updates. Spectators share the public view, computed and encoded once per change: the same bytes
go to all of them (DESIGN.md §3).

A connection that falls behind loses its queued view updates, never the frames that must arrive
(server/conn.py); whatever this class pushes, it then checks for that and follows with one fresh
snapshot, so that the client never waits on a delta that was dropped.

The Broadcaster never changes the match. The table tells it what the match looks like after
every accepted input (`show`, or `follow` while replaying the log, when nobody is listening);
it reads the table's seats (who sits where, over which connection) and never writes them.
"""
from __future__ import annotations

from protocol import wire
from protocol.codec import as_received
from protocol.diff import diff, view_hash

from .conn import Conn
from .seats import Seat, seat_info

EVENTS_IN_SNAPSHOT = 50   # the latest events a snapshot carries: the game log a client shows
SNAPSHOT_CHECK = 1024     # deltas shorter than this are never larger than a snapshot


def decoded_view(engine, state, seat: int | None):
    """The engine's view exactly as the receiver decodes it (tuples become lists), so that what
    is compared, hashed and shown to bots is what a client holds."""
    return as_received(engine.view(state, seat))


class Broadcaster:
    def __init__(self, table_id: str, engine, seats: list[Seat], turn_time: float = 0.0) -> None:
        self.table_id = table_id
        self.turn_time = turn_time             # statuses tell the players their clock
        self.engine = engine
        self.seats = seats                     # the table's own list: read, never changed here
        self.spectators: set[Conn] = set()
        self.state = None                      # the match state shown; None before the deal
        self.seq = 0
        self.events: list[dict] = []           # every event of the match so far
        self._sent: dict[int, tuple] = {}      # seat index -> (view, seq) its connection has
        self._pub_view = None                  # the public view the spectators have ...
        self._pub_seq = -1                     # ... and its seq
        self._pub_snap: tuple[int, bytes] | None = None  # (seq, frame): the public snapshot, encoded once
        self.frozen: str | None = None         # why the table is frozen, if it is: statuses say so

    # ------------------------------------------------------------------ the match as shown

    def follow(self, state, seq: int, events: list[dict]) -> None:
        """The match is now at `seq` with these new events; nobody is told (a replay)."""
        self.state, self.seq = state, seq
        self.events.extend(events)

    def show(self, state, seq: int, events: list[dict], actor: int | None) -> None:
        """The match is now at `seq`: every connected seat gets its view update (the seat that
        moved, `actor`, gets one even when its view did not change: its command is answered at
        that seq), then the spectators get theirs."""
        self.follow(state, seq, events)
        if state is None:
            return
        for s in self.seats:
            if s.human and s.conn is not None:
                self._send_view(s, events, force=s.index == actor)
        self._send_public(events)

    def restart(self) -> None:
        """The match is being rebuilt from its log: its events come again. What each connection
        has stays valid, since the rebuilt match is the one they were shown."""
        self.state = None
        self.events = []

    # ------------------------------------------------------------------ seats

    def snapshot_to(self, seat: Seat) -> None:
        """Send this seat's connection a fresh snapshot: it (re)connected, asked for one, or
        sent a command decided on an old view."""
        self._sent.pop(seat.index, None)
        self._send_view(seat, [], force=True)

    def forget(self, seat: Seat) -> None:
        """The seat's connection is gone: what it had no longer matters."""
        self._sent.pop(seat.index, None)

    def _send_view(self, s: Seat, events: list[dict], force: bool = False) -> None:
        conn = s.conn
        view = decoded_view(self.engine, self.state, s.index)
        mine = self.engine.visible_events(events, s.index)
        sent = self._sent.get(s.index)
        if sent is None or conn.stale_view:
            conn.stale_view = False
            frame = self._snapshot(view, s.index)
        elif not force and not mine and view == sent[0]:
            return
        else:
            frame = self._delta(sent[0], view, sent[1], mine, s.index)
        self._sent[s.index] = (view, self.seq)
        conn.push(frame, droppable=True)
        if conn.stale_view:
            self._resnap(conn)

    # ------------------------------------------------------------------ spectators

    def watch(self, conn: Conn, status: str) -> None:
        """A new spectator: the table's status, then the public view if the match is dealt."""
        self.spectators.add(conn)
        conn.seq = -1
        conn.push(self.status_frame(status))
        if self.state is not None:
            self.public_snapshot_to(conn)

    def unwatch(self, conn: Conn) -> bool:
        """Stop sending to this spectator; False if it was not one."""
        if conn not in self.spectators:
            return False
        self.spectators.discard(conn)
        return True

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
        if not self.spectators:
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
        for c in list(self.spectators):
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
        return wire.encode({"type": "snapshot", "table": self.table_id, "seq": self.seq, "view": view,
                            "hash": view_hash(view),
                            "events": self.engine.visible_events(self.events, seat)[-EVENTS_IN_SNAPSHOT:]})

    def _delta(self, old, new, base: int, events: list[dict], seat: int | None) -> bytes:
        """A delta from the view at `base`, or the snapshot when that is no larger."""
        frame = wire.encode({"type": "delta", "table": self.table_id, "base": base, "seq": self.seq,
                             "ops": diff(old, new), "hash": view_hash(new), "events": events})
        if len(frame) > SNAPSHOT_CHECK:
            snap = self._snapshot(new, seat)
            if len(snap) <= len(frame):
                return snap
        return frame

    def _resnap(self, conn: Conn) -> None:
        """The connection lost queued view updates: send it one fresh snapshot."""
        conn.stale_view = False
        if conn.closed or self.state is None:
            return
        s = next((s for s in self.seats if s.conn is conn), None)
        if s is not None:
            view = decoded_view(self.engine, self.state, s.index)
            self._sent[s.index] = (view, self.seq)
            conn.push(self._snapshot(view, s.index), droppable=True)
        elif conn in self.spectators:
            self.public_snapshot_to(conn)

    # ------------------------------------------------------------------ frames that must arrive

    def send(self, conn: Conn, frame: bytes) -> None:
        """A frame that must arrive: a signed message, an answer, an error, a status."""
        conn.push(frame)
        if conn.stale_view:
            self._resnap(conn)

    def error(self, conn: Conn, code: str, message: str) -> None:
        self.send(conn, wire.encode({"type": "error", "code": code, "message": message}))

    def status_frame(self, status: str) -> bytes:
        msg = {"type": "status", "table": self.table_id, "seats": seat_info(self.seats), "status": status}
        if self.turn_time:
            msg["turn_time"] = self.turn_time
        if self.frozen:
            msg["frozen"] = self.frozen
        return wire.encode(msg)

    def broadcast_status(self, status: str) -> None:
        """Who sits where, who is connected, and the table's status, to everyone at the table."""
        frame = self.status_frame(status)
        for s in self.seats:
            if s.conn is not None:
                self.send(s.conn, frame)
        for c in list(self.spectators):
            self.send(c, frame)
