"""What a table's core (server/table_core.py) asks its shell (server/table.py) to do: plain data.

The core returns a list of effects for every input, to be carried out in order. A store write
(`Persist`) or a log read (`LoadLog`) is always the last effect of its list: the core waits for
its outcome, which the shell reports back (`stored()` or `not_stored()`, `log_loaded(rows)` or
`log_not_loaded()`), and gets the effects that follow. That is how every accepted input is in
the store before anyone hears of it.

Connections are opaque to the core: it names them in effects and never calls them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# ---------------------------------------------------------------------- timers
# A timer's key says what it is for; when it fires, the shell posts the key itself to the
# table's inbox. A key that no longer matches what the core waits for is ignored.


@dataclass(frozen=True)
class GraceTimer:
    """The grace period of a player who left seat `seat` (its `epoch` then)."""
    seat: int
    epoch: int


@dataclass(frozen=True)
class TurnClock:
    """The time a person has to answer the question put to seat `seat` at `seq`."""
    seat: int
    seq: int


@dataclass(frozen=True)
class PhaseClock:
    """The time to commit to (or reveal) the seeds of the fair exchange."""
    phase: str


@dataclass(frozen=True)
class OwedClock:
    """On a blind table, the time seat `seat` has to deliver what it owes (`mark`: what it owes,
    with how much it had delivered and its connection's epoch when the clock started; `seq`,
    the entry it was started at, for the `clock` message). Past it, the seat forfeits."""
    seat: int
    mark: tuple
    seq: int = field(compare=False)


TimerKey = GraceTimer | TurnClock | PhaseClock | OwedClock


@dataclass(frozen=True)
class StartTimer:
    key: TimerKey
    seconds: float


@dataclass(frozen=True)
class CancelTimer:
    key: TimerKey


@dataclass(frozen=True, eq=False)
class TellClock:
    """Tell this connection how long the turn clock `key` has left: its seat's question is
    answered by a bot then. The shell runs the timers, so it knows the time left."""
    conn: object
    key: TurnClock | OwedClock


# ---------------------------------------------------------------------- the store


class Persist:
    """A write to the store. The core waits for it: nothing after it happens before it is stored."""


@dataclass(frozen=True, eq=False)
class SaveSeats(Persist):
    seats: list[dict]


@dataclass(frozen=True, eq=False)
class SaveStart(Persist):
    game_id: bytes
    server_seed: bytes
    started: int               # unix seconds: the signed header names it
    deal_seed: bytes | None    # a blind table's server deal seed (secret like the server seed)


@dataclass(frozen=True, eq=False)
class SaveStatus(Persist):
    status: str


@dataclass(frozen=True, eq=False)
class AppendRow(Persist):
    """Row n of the log, and the table's new status when it changed (else None)."""
    n: int
    kind: str
    seat: int | None
    data: dict
    status: str | None


@dataclass(frozen=True)
class LoadLog:
    """Read the table's log and hand it to the core (`log_loaded`)."""


# ---------------------------------------------------------------------- connections


@dataclass(frozen=True, eq=False)
class Send:
    """A frame that must arrive: a signed message, an answer, an error, a status."""
    conn: object
    frame: bytes


@dataclass(frozen=True, eq=False)
class SendBacklog:
    """The signed messages a connection lacks, before anything sent after them."""
    conn: object
    frames: list[bytes]


@dataclass(frozen=True, eq=False)
class Show:
    """The match moved: each connected seat and spectator gets its view update (the seat that
    moved, `actor`, even when its view did not change), with the public events of the move."""
    events: list[dict]      # the engine's visible_events(..., None): plain maps {type, to, text}
    actor: int | None


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A fresh snapshot of its view to this seat's or spectator's connection."""
    conn: object


@dataclass(frozen=True, eq=False)
class Close:
    conn: object
    code: int
    reason: str


@dataclass(frozen=True, eq=False)
class Bind:
    """The connection now holds this seat at the table (None: it watches)."""
    conn: object
    seat: int | None


@dataclass(frozen=True, eq=False)
class Unbind:
    """The connection is no longer at the table."""
    conn: object


# ---------------------------------------------------------------------- bots


@dataclass(frozen=True, eq=False)
class AskBot:
    """Have a bot of `level` decide on `view` (away from the event loop) and post the answer
    back with `key`, the question it answers."""
    seat: int
    key: tuple
    level: str
    seed: int
    view: dict


@dataclass(frozen=True)
class BotFailure:
    """A bot of `level` made no move the table could play, and a random legal move stands in for
    it: counted in /metrics (the counters are the shell's)."""
    level: str


@dataclass(frozen=True)
class UpgradeCancel:
    """A match a server of the previous protocol version left unfinished was cancelled when this
    one restored it: counted in /metrics."""


@dataclass(frozen=True)
class Forfeited:
    """Seats of a blind table forfeited (they did not deliver what they owed in time): counted
    in /metrics."""
    seats: tuple[int, ...]


Effect = (StartTimer | CancelTimer | TellClock | Persist | LoadLog | Send | SendBacklog | Show | Snapshot | Close | Bind
          | Unbind | AskBot | BotFailure | UpgradeCancel | Forfeited)
