"""Standings anyone can recompute: ratings from audited match records, the same on any machine.

Every record is audited first (protocol.verify), and only what the audit's replay says is used:
the final places come from the rules engine's result (games.contract.places), never from the
record's own claims. A match counts when its record verifies, ends with a final entry, its header
says `rated`, every seat holds a player key (a computer seat never does) and every player signed
their commitment to the match (a server can make a seed, and moves, for a player away; it cannot
make a match of players who never sat at it). A record that fails its audit, cannot be read, or
is not such a match is named with the reason, and left out.

The counted matches of each game are rated in the order of (started, game_id, header hash), so
the same records give the same standings whatever order they come in; the same match in two
records (a player's and the public one) counts once. Ratings are openskill's Plackett-Luce model
over the final places, with its parameters written out below (a newer openskill with other
defaults changes nothing), one rating per player key. The rating shown is mu - 3 sigma (the
conservative estimate: a new player shows 0.0), rounded to one decimal, half to even, from the
float the model computed; the standings are ordered by it, then by games played (more first),
then by fingerprint; equal ratings share a rank.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TypedDict

from openskill.models import PlackettLuce

import games
from games.errors import IllegalAction

from .messages import printable, seat_keys
from .record import RecordError, loads_all
from .signing import fingerprint
from .verify import verify

class ModelSettings(TypedDict):
    """The arguments of openskill's PlackettLuce that fix how ratings move."""
    mu: float
    sigma: float
    beta: float
    kappa: float
    tau: float
    margin: float
    limit_sigma: bool
    balance: bool


# openskill's Plackett-Luce defaults, pinned: ratings must not change with the installed version.
MODEL: ModelSettings = {"mu": 25.0, "sigma": 25.0 / 3.0, "beta": 25.0 / 6.0, "kappa": 0.0001, "tau": 25.0 / 300.0,
         "margin": 0.0, "limit_sigma": False, "balance": False}

COUNTED, FAILED, UNREADABLE, UNRATED, DUPLICATE = "counted", "failed", "unreadable", "not rated", "duplicate"


@dataclass(frozen=True)
class Match:
    """What a verified, rated record gives the standings."""
    game: str
    started: int
    game_id: bytes
    header: bytes                  # the hash of entry 0: the same match in two records
    keys: tuple[bytes, ...]        # per seat, its player key
    names: tuple[str, ...]
    places: tuple[int, ...]        # per seat, its final place (0 the first), from the replay

    @property
    def order(self) -> tuple:
        return (self.started, self.game_id, self.header)


@dataclass
class Judged:
    """One record, judged: `verdict` is COUNTED (with its `match`) or why it was left out."""
    record: str
    verdict: str
    why: str = ""
    match: Match | None = None


def judge(record: str, data: bytes) -> Judged:
    """The audit of one record's bytes, and whether its match counts for the standings."""
    try:
        items, shown = loads_all(data)
    except RecordError as e:
        return Judged(record, UNREADABLE, e.message)
    report = verify(items, shown)
    if not report.ok:
        return Judged(record, FAILED, f"{'not checked' if report.refused else report.where}: {report.what}")
    entries = [m for m in items if m.kind == "entry"]     # a record may hold private messages among them
    header = entries[0].body
    if header["protocol"] == "bgfair/v1":
        return Judged(record, UNRATED, "a bgfair/v1 record, from before players had keys: never rated")
    if report.places is None:
        return Judged(record, UNRATED, "the match was cancelled")
    if header["rated"] is not True:
        return Judged(record, UNRATED, "the table was not rated")
    seats, keys = header["seats"], seat_keys(header)
    # The commitment set, verified: each player's signature over its commitment to this very
    # header, or None where the server made the seat's seed.
    signed = entries[1].body["sigs"]
    player_keys: list[bytes] = []
    for i, (seat, key) in enumerate(zip(seats, keys)):
        if key is None:
            return Judged(record, UNRATED, f"seat {i + 1} ({printable(seat['name'])}) was a computer player")
        if signed[i] is None:
            return Judged(record, UNRATED, f"{printable(seat['name'])} (seat {i + 1}) never signed this match: the "
                                           "server made their seed, so the record does not show they played")
        player_keys.append(key)
    match = Match(header["game"], header["started"], header["game_id"], entries[0].hash, tuple(player_keys),
                  tuple(s["name"] for s in seats), tuple(report.places))
    return Judged(record, COUNTED, match=match)


@dataclass
class Player:
    key: bytes
    name: str            # the name of its latest match
    mu: float
    sigma: float
    games: int
    rank: int = 0

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    @property
    def rating(self) -> Decimal:
        """The rating shown: mu - 3 sigma, to one decimal, half to even."""
        return Decimal(self.mu - 3 * self.sigma).quantize(Decimal("0.1"), ROUND_HALF_EVEN)


@dataclass
class Standings:
    """Every record judged (by name), and each game's players, best first."""
    records: list[Judged] = field(default_factory=list)
    games: dict[str, list[Player]] = field(default_factory=dict)     # game id -> players
    matches: dict[str, int] = field(default_factory=dict)            # game id -> matches counted

    @property
    def left_out(self) -> list[Judged]:
        return [j for j in self.records if j.verdict != COUNTED]

    @property
    def failed(self) -> bool:
        """Some record failed its audit or could not be read (not merely unrated)."""
        return any(j.verdict in (FAILED, UNREADABLE) for j in self.records)

    def as_dict(self) -> dict:
        return {
            "games": {game: {"title": title(game), "matches": self.matches[game], "players": [
                {"rank": p.rank, "name": p.name, "fingerprint": p.fingerprint, "key": p.key.hex(),
                 "rating": str(p.rating), "mu": round(p.mu, 6), "sigma": round(p.sigma, 6), "games": p.games}
                for p in players]} for game, players in self.games.items()},
            "counted": sum(j.verdict == COUNTED for j in self.records),
            "left_out": [{"record": j.record, "verdict": j.verdict, "why": j.why} for j in self.left_out],
        }

    def text(self) -> str:
        lines = []
        for game, players in self.games.items():
            n = self.matches[game]
            lines.append(f"{title(game)}: {n} rated match{'es' * (n != 1)}")
            rows = [("rank", "name", "fingerprint", "rating", "games")] + [
                (str(p.rank), printable(p.name), p.fingerprint, str(p.rating), str(p.games)) for p in players]
            width = [max(len(r[c]) for r in rows) for c in range(5)]
            for r in rows:
                lines.append(f"{r[0]:>{width[0]}}  {r[1]:<{width[1]}}  {r[2]:<{width[2]}}  "
                             f"{r[3]:>{width[3]}}  {r[4]:>{width[4]}}".rstrip())
            lines.append("")
        if not self.games:
            lines += ["No rated match among the records.", ""]
        counted = sum(j.verdict == COUNTED for j in self.records)
        lines.append(f"{len(self.records)} record{'s' * (len(self.records) != 1)}: {counted} counted, "
                     f"{len(self.left_out)} left out")
        for j in self.left_out:
            lines.append(f"  {j.verdict}: {printable(j.record)}: {printable(j.why)}")
        return "\n".join(lines)


def standings(judged: list[Judged]) -> Standings:
    """The standings of judged records, whatever their order: judged again in the order of their
    names (a second record of a match counted already is a duplicate), then rated per game."""
    out = Standings()
    seen: dict[bytes, str] = {}
    by_game: dict[str, list[Match]] = {}
    for j in sorted(judged, key=lambda j: j.record):
        if j.match is not None and j.match.header in seen:
            j = Judged(j.record, DUPLICATE, f"the same match as {seen[j.match.header]}")
        elif j.match is not None:
            seen[j.match.header] = j.record
            by_game.setdefault(j.match.game, []).append(j.match)
        out.records.append(j)
    model = PlackettLuce(**MODEL)
    for game in sorted(by_game):
        matches = sorted(by_game[game], key=lambda m: m.order)
        players: dict[bytes, Player] = {}
        for m in matches:
            for key, name in zip(m.keys, m.names):
                p = players.setdefault(key, Player(key, name, MODEL["mu"], MODEL["sigma"], 0))
                p.name = name
                p.games += 1
            teams = [[model.rating(mu=players[k].mu, sigma=players[k].sigma)] for k in m.keys]
            rated = model.rate(teams, ranks=list(m.places))
            for key, (r,) in zip(m.keys, rated):
                players[key].mu, players[key].sigma = r.mu, r.sigma
        ranked = sorted(players.values(), key=lambda p: (-p.rating, -p.games, p.fingerprint))
        for p in ranked:
            p.rank = 1 + sum(q.rating > p.rating for q in ranked)
        out.games[game] = ranked
        out.matches[game] = len(matches)
    return out


def title(game: str) -> str:
    """A game's title, by its id (a verified record names a game this code has)."""
    try:
        return games.get(game).INFO.title
    except IllegalAction:
        return game
