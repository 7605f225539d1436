"""A table's seats: who sits there, how the server tells them apart, and what each remembers.

A seat belongs to a person, known by the Ed25519 public key of its player (`key`, named in the
match's signed header: whoever proves they hold it may claim the seat), or to a computer player
(`bot`, its level). Everything here is plain bookkeeping: the
table's core (server/table_core.py) is the only one that changes a seat, and it persists
`record()` whenever the people at the table change.
"""
from __future__ import annotations

from collections import OrderedDict

from .effects import GraceTimer, OwedClock, TurnClock

ANSWERS_KEPT = 64   # answers a seat keeps, so that a resent command gets the same answer again


class Seat:
    def __init__(self, index: int, name=None, player_id=None, key=None, bot=None) -> None:
        self.index = index
        self.name: str | None = name
        self.player_id: str | None = player_id
        self.key: bytes | None = key          # the player's public key (32 bytes), a person's seat
        self.bot: str | None = bot            # the level of a computer seat
        self.conn: object | None = None       # the connection holding the seat (opaque here)
        self.standin = False                  # the server plays for this absent player now
        self.epoch = 0                        # bumped on every (dis)connection
        self.grace: GraceTimer | None = None  # the grace period of an absent player, running
        self.clock: TurnClock | OwedClock | None = None   # the time to answer (on a blind table: to deliver)
        self.delivered = 0                    # inputs of its own the table took (a blind table's clocks)
        self.overtime: int | None = None      # the seq of a question whose time ran out
        self.own_seed: bytes | None = None    # a seed the server made for this seat
        self.job: tuple | None = None         # (prompt_seq, epoch) of the bot decision under way
        self.prompt = None
        self.prompt_seq = 0                   # the seq at which the current question was put
        self.stream: list[bytes] = []         # every signed message for this seat, as frames
        self.answers: OrderedDict[int, bytes] = OrderedDict()  # command id -> its answer frame

    @property
    def human(self) -> bool:
        return self.bot is None

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.key is not None

    @property
    def server_plays(self) -> bool:
        """The server decides for this seat: a computer seat, a player away past the grace, or
        the one question a player took too long over."""
        return self.bot is not None or self.standin or self.out_of_time

    @property
    def out_of_time(self) -> bool:
        return self.overtime is not None and self.overtime == self.prompt_seq

    def record(self) -> dict:
        """What the database keeps of this seat (the key as hex: the seats are kept as JSON)."""
        return {"name": self.name, "player_id": self.player_id, "key": self.key.hex() if self.key else None,
                "bot": self.bot}

    @classmethod
    def of_record(cls, index: int, r: dict) -> "Seat":
        return cls(index, r["name"], r["player_id"], bytes.fromhex(r["key"]) if r.get("key") else None, r["bot"])

    def answer(self, cid: int) -> bytes | None:
        """The answer already given to command `cid`, if any (a resent command is applied once)."""
        answer = self.answers.get(cid)
        if answer is not None:
            self.answers.move_to_end(cid)
        return answer

    def remember(self, cid: int, answer: bytes) -> None:
        self.answers[cid] = answer
        self.answers.move_to_end(cid)
        while len(self.answers) > ANSWERS_KEPT:
            self.answers.popitem(last=False)


def seat_info(seats: list[Seat]) -> list[dict]:
    """The seats as everyone may see them (listings and status messages): a person's with their
    player key, whose fingerprint clients show beside the name."""
    return [{"name": s.name, "bot": s.bot, "connected": s.bot is not None or s.conn is not None,
             "standin": s.standin, "out_of_time": s.human and s.out_of_time,
             "server_seed": s.human and s.own_seed is not None, **({"key": s.key} if s.key else {})}
            for s in seats]
