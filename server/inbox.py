"""What a table's inbox holds: one message type per input, handled by the table's task in order.

Connections post the lobby's requests and the seats' commands, the operator its closing; the table's own timers post their
keys (server/effects.py: GraceTimer, TurnClock, PhaseClock) and its bots their decisions.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Sit:
    conn: object
    name: str
    key: bytes      # the player's public key: the seat is its


@dataclass(frozen=True, eq=False)
class Leave:
    conn: object


@dataclass(frozen=True, eq=False)
class Watch:
    conn: object
    have: int       # the signed public entries the spectator holds already


@dataclass(frozen=True, eq=False)
class Attach:
    """A connection claims a seat: `sig`, its answer to the challenge `nonce` (docs/fairness.md C13)."""
    conn: object
    seat: int
    have: int       # the signed messages the seat's client holds already
    nonce: bytes
    sig: bytes


@dataclass(frozen=True, eq=False)
class Detach:
    """The connection closed."""
    conn: object


@dataclass(frozen=True, eq=False)
class Expire:
    """Close the table if it waited `idle` seconds with nobody at it, or `lifetime` seconds in all."""
    idle: float
    lifetime: float


@dataclass(frozen=True, eq=False)
class Commit:
    conn: object
    commitment: bytes
    sig: bytes
    deal: dict | None = None    # on a blind table: deal_key, deal_proof, deal_sig


@dataclass(frozen=True, eq=False)
class Reveal:
    conn: object
    seed: bytes
    sig: bytes


@dataclass(frozen=True, eq=False)
class Act:
    conn: object
    id: int
    seq: int
    move: bytes       # the options picked, as the player signed them
    sig: bytes
    received: float   # time.perf_counter() when the server read it: the ack latency starts here
    openings: dict | None = None   # on a blind table: the mover's shares of its cards the move turns up


@dataclass(frozen=True, eq=False)
class Deliver:
    """On a blind table, what a seat's client owes: `kind` "shuffle", "shares" or "deal_seed",
    with the message's fields (protocol/wire.py)."""
    conn: object
    kind: str
    data: dict


@dataclass(frozen=True, eq=False)
class Resync:
    conn: object


@dataclass(frozen=True, eq=False)
class CloseTable:
    """The server's operator closes the table (server/operator.py); `conn` is told when it is done."""
    conn: object
    reason: str


@dataclass(frozen=True, eq=False)
class BotMove:
    """A bot's decision for the question `key` of `seat`; None when the bot failed, and `why` says
    why in words everyone at the table may read."""
    seat: int
    key: tuple
    action: list | None
    why: str = ""


DELIVERED = {"shuffle": ("name", "idx", "pile", "sig"), "shares": ("cards", "parts", "proofs", "sig"),
             "deal_seed": ("seed", "sig")}


def seat_command(conn, msg: dict, received: float) -> Commit | Reveal | Act | Deliver | Resync:
    """A seat's command, decoded from the wire (protocol.wire) at `received`, as the inbox takes it."""
    match msg["type"]:
        case "commit":
            deal = {k: msg[k] for k in ("deal_key", "deal_proof", "deal_sig") if k in msg}
            return Commit(conn, msg["commitment"], msg["sig"], deal or None)
        case "reveal":
            return Reveal(conn, msg["seed"], msg["sig"])
        case "act":
            return Act(conn, msg["id"], msg["seq"], msg["move"], msg["sig"], received, msg.get("openings"))
        case kind if kind in DELIVERED:
            return Deliver(conn, kind, {k: msg[k] for k in DELIVERED[kind]})
        case "resync":
            return Resync(conn)
    raise ValueError(f"{msg['type']!r} is not a seat's command")
