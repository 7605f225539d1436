"""The audit of docs/fairness.md §5: everything a player can check about a finished match, offline.

Given the signed messages of a match (a record), check the signatures and the hash chain, the
commitments against the revealed seeds, recompute the master key and every stream, replay every
move through the same rules engine, and compare the replay with what the server signed: the cards
dealt and shown to each seat whose private messages are in the record, the public events of every
move, and the final scores; then, when the record carries what its client was shown
(protocol.shown), every view and public event shown with the replay's. The first difference ends
the audit and is reported with its entry. A cancel after the deal was fixed is reported as such,
and a cancel whose reason the record contradicts fails.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from games.contract import places
from games.errors import IllegalAction, Refused

from .codec import MAX_CONTAINER, MAX_MESSAGE, DecodeError, unpack
from .fairness import Streams, master_key, player_commit, server_commit
from .messages import (ProtocolError, Signed, check_header, claimed_late, events_digest, printable, seat_keys,
                       short_repr, split_events)
from .shown import EVENT_DIGEST, FIELD_DIGEST, Shown, digests, event_digest, view_digests
from . import blind
from .blind_replica import LogReader
from .signing import (SIG_COMMIT, SIG_ENTRY, SIG_MOVE, SIG_PRIVATE, SIG_REVEAL, commit_payload, fingerprint,
                      move_payload, reveal_payload, verify_signature)


class Mismatch(Refused):
    """The audit refuses the record: `where` names the entry, `what` says what is wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__("audit_failed", f"{where}: {what}")
        self.where = where
        self.what = what


class UnknownRules(Mismatch):
    """The header names a rules version this code does not replay. The match may be honest: a
    replay under other rules would report a false difference, so the audit refuses to judge."""

    def __init__(self, rules: str, ours: str) -> None:
        super().__init__("entry 0 (header)",
                         f"This record was made under rules {short_repr(rules)}, which this version of "
                         f"Governor does not replay; it replays {ours} only, so audit the record with "
                         "the Governor release that played the match.")


class Abandoned(Mismatch):
    """The record ends after the deal was fixed with neither a final nor a cancel entry, and its
    client says the server was gone for good there (protocol.shown): not verified, and called so."""


@dataclass
class Report:
    ok: bool
    checks: list[str] = field(default_factory=list)
    where: str | None = None       # the first failing entry, e.g. "entry 57 (move by Bo)"
    what: str | None = None        # what differs there
    game: str | None = None
    game_id: str | None = None
    server: str | None = None      # the server key's fingerprint
    names: list[str] = field(default_factory=list)
    scores: list[int] | None = None
    winners: list[int] | None = None
    places: list[int] | None = None   # each seat's final place in the replay's result (0 the first)
    seats_checked: list[int] = field(default_factory=list)
    refused: bool = False          # not judged: the record's rules are not the ones this code replays
    hidden_unchecked: bool = False  # a public record: the players' hidden cards were not checked
    after_deal: bool = False       # ended by a cancel (or abandoned) once the seeds were revealed
    abandoned: bool = False        # the server vanished after the deal was fixed: no end was signed
    reason: str | None = None      # a cancel's reason
    deal_unchecked: str | None = None   # a blind match cancelled after its deal: what could not be checked, and why
    shown_checked: int = 0         # the views shown to the client that were compared with the replay
    protocol: str | None = None
    keys: list[str | None] = field(default_factory=list)   # each seat's player key fingerprint (None: a computer's)
    shown_unreadable_after: int | None = None   # views shown after this many are lost: not checked (protocol.shown)

    def text(self) -> str:
        lines = []
        if self.game_id:
            lines.append(f"Match {self.game_id} ({self.game}), signed by server {self.server}")
        if self.names:
            lines.append("Players: " + ", ".join(
                f"{n} {self.scores[i]}" if self.scores else n for i, n in enumerate(self.names)))
        if self.winners is not None:
            lines.append("Winner" + "s" * (len(self.winners) > 1) + ": " +
                         ", ".join(self.names[i] for i in self.winners))
        lines += [f"  ok  {c}" for c in self.checks]
        if self.shown_unreadable_after is not None:
            lines.append(f"  NOT CHECKED  the views shown after the first {self.shown_unreadable_after}, until this "
                         "client started again: its file of what was shown is damaged there")
        if self.ok and self.hidden_unchecked:
            lines.append("VERIFIED, the public part: the seeds, the shuffles, every move and the scores "
                         "are honest. Not checked: the cards each player was dealt and drew in private, "
                         "which only their own record holds (each player's client checks its own).")
        elif self.ok and self.after_deal and self.deal_unchecked:
            lines.append(f"  NOT CHECKED  {self.deal_unchecked}")
            lines.append(f"VERIFIED, but CANCELLED AFTER THE DEAL WAS FIXED (its reason: {short_repr(self.reason)}): "
                         "every signature, share proof and move until then holds; the cards were dealt blind, so "
                         "the server could not read the players' hands.")
        elif self.ok and self.after_deal:
            lines.append(f"VERIFIED, but CANCELLED AFTER THE DEAL WAS FIXED: the server ended the match once "
                         f"every seed was revealed and it could know every card to come (its reason: "
                         f"{short_repr(self.reason)}). The deal and the moves made until then are honest.")
        elif self.ok:
            lines.append("VERIFIED: the deal and the scores are honest.")
        elif self.abandoned:
            lines.append(f"ABANDONED at {self.where}: {self.what}")
        elif self.refused:
            lines.append(f"NOT CHECKED: {self.what}")
        else:
            lines.append(f"FAILED at {self.where}: {self.what}")
        return "\n".join(printable(line) for line in lines)   # names come from whoever signed the header

    def as_dict(self) -> dict:
        return {"ok": self.ok, "where": self.where, "what": self.what, "game": self.game,
                "game_id": self.game_id, "server": self.server, "names": self.names,
                "scores": self.scores, "winners": self.winners, "checks": self.checks,
                "refused": self.refused, "after_deal": self.after_deal, "abandoned": self.abandoned,
                "reason": self.reason, "shown_checked": self.shown_checked, "protocol": self.protocol,
                "keys": self.keys, "shown_unreadable_after": self.shown_unreadable_after,
                "deal_unchecked": self.deal_unchecked}



def verify(items: list[Signed], shown: Shown | None = None) -> Report:
    """The audit of a record's signed messages and, when given, of what its client was shown."""
    report = Report(ok=False)
    try:
        _audit(items, shown, report)
        report.ok, report.where = True, None
    except Mismatch as e:
        report.where, report.what = e.where, e.what
        report.refused = isinstance(e, UnknownRules)
        report.abandoned = isinstance(e, Abandoned)
    except (TypeError, LookupError, ValueError, Refused) as e:
        # A backstop: every field is checked before it is used, but whoever made a record could
        # have signed anything, and a field of a shape nobody thought of must fail the audit at
        # the entry being checked (kept in report.where as the audit goes), never crash it.
        report.where = report.where or "entry 0 (header)"
        report.what = f"the entry is malformed ({type(e).__name__}: {e})"
    return report


def who_made(items: list[Signed], n: int) -> str:
    """Who made entry n of a record that verified (so it ends with a final or cancel entry), and
    how it is signed: for a player's move, the move and the player's key that signed it (the answer to a player who says they never made it)."""
    entries = [m for m in items if m.kind == "entry"]
    if not 0 <= n < len(entries):
        raise ValueError(f"the record has entries 0 to {len(entries) - 1}, not {n}")
    header, body = entries[0].body, entries[n].body
    names = [s["name"] for s in header["seats"]]
    where = _name(n, body, names)
    if body["t"] == "move" and "seen" in body:
        # The move itself is listed by the final or cancel entry (a record that verified has one).
        name, key = names[body["seat"]], seat_keys(header)[body["seat"]]
        move, _ = entries[-1].body["signed"][n - 3]
        return printable(f"{where}: {name} made the move {short_repr(unpack(move))}, having seen entry "
                         f"{body['seen']}; signed by {name}'s key {fingerprint(key)}")
    if body["t"] == "move" and header["protocol"] == "bgfair/v1":
        return printable(f"{where}: signed by the server alone (a bgfair/v1 record: players signed nothing)")
    if body["t"] == "move":
        return printable(f"{where}: a move the server made for {names[body['seat']]}, signed by the server alone")
    return f"{where}: signed by the server {fingerprint(header['server_key'])}"


def _name(i: int, body: dict, names: list[str]) -> str:
    kind = body.get("t", "?")
    if kind == "move" and type(body.get("seat")) is int and 0 <= body["seat"] < len(names):
        return f"entry {i} (move by {names[body['seat']]})"
    return f"entry {i} ({kind})"


def _audit(items: list[Signed], shown: Shown | None, report: Report) -> None:
    entries = [m for m in items if m.kind == "entry"]
    privates = [m for m in items if m.kind == "private"]
    if not entries or entries[0].body.get("t") != "header":
        raise Mismatch("entry 0", "the record does not start with a header")
    header = entries[0].body
    report.where = "entry 0 (header)"
    try:
        engine = check_header(header)
    except ProtocolError as e:
        raise Mismatch("entry 0 (header)", f"the header is malformed: {e.message}") from None
    key = header["server_key"]
    if not verify_signature(key, SIG_ENTRY, entries[0].payload, entries[0].sig):
        raise Mismatch("entry 0 (header)", "the header is not signed by the server key it names")
    report.server = fingerprint(key)
    game_id = header["game_id"]
    report.game_id = game_id.hex()
    info = engine.INFO
    report.game = info.title
    if header["rules"] != info.rules_version:
        raise UnknownRules(header["rules"], info.rules_version)
    try:
        options = info.check_options(header["options"])
    except IllegalAction as e:
        raise Mismatch("entry 0 (header)", e.message) from None
    seats = header["seats"]
    if header["manifest"] != engine.manifest_hash(options):
        raise Mismatch("entry 0 (header)", "the card manifest hash is not the one of these rules")
    names = [s["name"] for s in seats]
    report.names = names
    report.protocol = header["protocol"]
    keys = seat_keys(header)
    report.keys = [fingerprint(k) if k is not None else None for k in keys]
    report.checks.append(f"header signed by the server key, {header['protocol']}, {len(seats)} seats, "
                         f"rules {info.rules_version}")

    # Bounds that cost nothing to check, before a signature is: the final entry lists every move
    # in one list, and each private message is one seat's, at one entry.
    if len(entries) > MAX_CONTAINER + 4:
        raise Mismatch(_name(len(entries) - 1, entries[-1].body, names),
                       f"the record has {len(entries)} entries, and a match has at most {MAX_CONTAINER} "
                       "moves (its final entry lists them all)")
    if len(privates) > len(seats) * len(entries):
        raise Mismatch("the private messages", f"there are {len(privates)} of them, more than one per seat "
                                               f"and entry ({len(seats)} × {len(entries)})")

    # The hash chain: every entry signed, numbered, and pointing at the one before.
    for i, entry in enumerate(entries[1:], 1):
        where = report.where = _name(i, entry.body, names)
        if entry.body["seq"] != i:
            raise Mismatch(where, f"it says it is entry {entry.body['seq']} (dropped, duplicated or reordered entries)")
        if not verify_signature(key, SIG_ENTRY, entry.payload, entry.sig):
            raise Mismatch(where, "the server's signature does not match its bytes")
        if entry.body.get("prev") != entries[i - 1].hash:
            raise Mismatch(where, "it does not chain to the entry before it (spliced or altered log)")
    end = entries[-1].body
    end_name = _name(len(entries) - 1, end, names)
    ended = end["t"] in ("final", "cancel")
    abandoned = not ended and shown is not None and shown.abandoned
    cut = "the record is cut short: it ends without a final or cancel entry"
    if not ended and not abandoned:
        raise Mismatch(end_name, cut)
    report.checks.append(f"{len(entries)} entries signed and hash-chained, " +
                         (f"ending with a {end['t']} entry" if ended else
                          "and no end: the connection was lost for good"))

    if header.get("dealing") == "blind":
        return _audit_blind(entries, privates, names, report, None if shown is None else shown.seat, abandoned)

    by_seq: dict[int, dict[int, Signed]] = {}
    for m in privates:
        b = m.body
        where = report.where = f"private message for entry {b['seq']}"
        if not verify_signature(key, SIG_PRIVATE, m.payload, m.sig):
            raise Mismatch(where, "the server's signature does not match its bytes")
        if b.get("game_id") != game_id:
            raise Mismatch(where, "it belongs to another match")
        if type(b.get("seat")) is not int or not 0 <= b["seat"] < len(seats) or not 0 <= b["seq"] < len(entries):
            raise Mismatch(where, "it names no seat or entry of this match")
        if not 2 <= b["seq"] < len(entries) - ended or (b["seq"] > 2 and entries[b["seq"]].body["t"] != "move"):
            raise Mismatch(where, "private messages belong only to the deal and to moves")
        if b["seat"] in by_seq.setdefault(b["seq"], {}):
            raise Mismatch(where, f"a second private message for {names[b['seat']]}")
        by_seq[b["seq"]][b["seat"]] = m
    checked = sorted({b.body["seat"] for b in privates})
    report.seats_checked = checked
    report.checks.append(f"{len(privates)} private messages signed, for {', '.join(names[s] for s in checked)}"
                         if checked else "no private messages in this record")

    # Commitments and seeds.
    report.where = end_name
    if len(entries) < 2 or entries[1].body["t"] != "commits":
        if abandoned:
            raise Mismatch(end_name, cut)
        return _cancelled_early(entries, header, report)
    report.where = "entry 1 (commits)"
    commits = entries[1].body.get("commits")
    if not isinstance(commits, list) or len(commits) != len(seats):
        raise Mismatch("entry 1 (commits)", f"the commitment set must hold one commitment per seat ({len(seats)})")
    if not all(isinstance(c, bytes) and len(c) == 32 for c in commits):
        raise Mismatch("entry 1 (commits)", "a commitment is 32 bytes")
    v2 = header["protocol"] != "bgfair/v1"
    if v2:
        made = _check_step_sigs(entries, 1, commits, keys, names, SIG_COMMIT, commit_payload, "commitment")
    seed_entry = entries[2] if len(entries) > 2 else None
    report.where = end_name
    server_seed = end.get("server_seed")
    if not abandoned:
        if not isinstance(server_seed, bytes) or server_commit(game_id, server_seed) != header["server_commit"]:
            raise Mismatch(end_name, "the revealed server seed does not match the server's commitment")
        report.checks.append("the server seed matches the commitment made before any player chose a seed")
    if seed_entry is None or seed_entry.body["t"] != "reveals":
        if abandoned:
            raise Mismatch(end_name, cut)
        return _cancelled_early(entries, header, report)
    report.where = "entry 2 (reveals)"
    seeds = seed_entry.body.get("seeds")
    if not isinstance(seeds, list) or len(seeds) != len(seats):
        raise Mismatch("entry 2 (reveals)", "the reveal set must hold one seed per seat")
    for i, (seat, seed) in enumerate(zip(seats, seeds)):
        if not isinstance(seed, bytes) or player_commit(game_id, seat["id"], seed) != commits[i]:
            raise Mismatch("entry 2 (reveals)", f"{names[i]}'s seed does not match their commitment")
    report.checks.append(f"all {len(seats)} player seeds match their commitments")
    if v2:
        made = sorted(set(made) | set(_check_step_sigs(entries, 2, seeds, keys, names, SIG_REVEAL, reveal_payload,
                                                        "seed")))
        report.checks.append("every player signed their commitment and seed with their key" + (
            f"; the server made the seed of {', '.join(names[i] for i in made)}, who was away" if made else ""))
    if abandoned:
        report.after_deal = True
        raise Abandoned(end_name, f"the server abandoned this match after the deal was fixed: it signed "
                                  f"{len(entries) - 3} moves, then the connection was lost for good, and it never "
                                  "revealed its seed, so neither the deal nor what was shown can be checked")

    # Replay from the seeds.
    assert isinstance(server_seed, bytes), "a match not abandoned has its server seed checked above"
    prk = master_key(entries[0].hash, server_seed, [(s["id"], seed) for s, seed in zip(seats, seeds)])
    streams = Streams(prk)
    try:
        state = engine.setup(names, options, streams)
    except IllegalAction as e:
        raise Mismatch("entry 0 (header)", e.message) from None
    seen = _Seen(engine, shown, names) if shown is not None else None
    if seen is not None:
        seen.at(2, state)
    dealt_to = []
    for seat in checked:
        told = by_seq.get(2, {}).get(seat)
        dealt = engine.dealt(state, seat)
        if (told.body.get("dealt") if told else None) != dealt:
            raise Mismatch("entry 2 (reveals)", f"the cards dealt to {names[seat]} are not the ones the seeds deal")
        if dealt is not None:
            dealt_to.append(names[seat])
    # A record without private messages of a game that deals hidden cards is a public one (a
    # spectator's): what each player was shown in private cannot be checked from it.
    report.hidden_unchecked = not checked and any(engine.dealt(state, s) is not None for s in range(len(seats)))
    report.checks.append("every shuffle recomputed from the seeds" + (
        f"; the cards dealt to {', '.join(dealt_to)} match" if dealt_to else
        "; this public record holds no player's hidden cards to compare" if report.hidden_unchecked else ""))

    report.where = end_name
    moves = end.get("moves")
    move_entries = entries[3:-1]
    if not isinstance(moves, list) or len(moves) != len(move_entries):
        raise Mismatch(end_name, f"it lists {len(moves) if isinstance(moves, list) else 'no'} moves for {len(move_entries)} move entries")
    signed = _SignedMoves(entries, keys, names, end.get("signed"), end_name) if v2 else None
    if signed is not None:
        signed.at_deal(state, engine)
    for i, (entry, move) in enumerate(zip(move_entries, moves), 3):
        where = report.where = _name(i, entry.body, names)
        # type(): a seat of True or 1.0 would equal seat 1.
        if entry.body["t"] != "move" or not isinstance(move, list) or len(move) != 2 \
                or type(move[0]) is not int or type(entry.body.get("seat")) is not int \
                or move[0] != entry.body["seat"]:
            raise Mismatch(where, "the move list of the final entry does not match this entry")
        if signed is not None:
            signed.before(i, state, engine)
        try:
            events = engine.apply(state, move[0], move[1], streams)
        except IllegalAction as e:
            raise Mismatch(where, f"the move {short_repr(move[1])} is not legal in the replay: {e.message}") from None
        public, private = split_events(events, len(names))
        if (events_digest(public) if public else None) != entry.body.get("events"):
            raise Mismatch(where, "the public events differ from the replay")
        if signed is not None:
            signed.check(i, move, where)
            signed.after(i, state, engine)
        if seen is not None:
            seen.at(i, state, public)
        for seat in checked:
            expected = private[seat]
            got = by_seq.get(i, {}).get(seat)
            if (got.body.get("events") if got else []) != expected:
                raise Mismatch(where, f"the cards shown to {names[seat]} differ from the replay")
    report.checks.append(f"{len(moves)} moves replayed, each legal; every public event matches"
                         + (f", and every card shown to {', '.join(names[s] for s in checked)}" if checked else ""))
    if signed is not None:
        report.checks.append(signed.summary())

    report.where = end_name
    result = engine.result(state)
    if end["t"] == "final":
        totals = [sc["total"] for sc in result["scores"]]
        if engine.to_act(state):
            raise Mismatch(end_name, "the replayed game is not over")
        if end.get("scores") != totals:
            raise Mismatch(end_name, f"the final scores {short_repr(end.get('scores'))} differ from the replay's {totals}")
        if end.get("winners") != result["winners"]:
            raise Mismatch(end_name, "the winners differ from the replay's")
        report.scores, report.winners = totals, result["winners"]
        report.places = places(result)
        report.checks.append("the final scores and winners equal the replay's")
    else:
        if not engine.to_act(state):
            raise Mismatch(end_name, "the replayed game is over: it cannot be cancelled")
        report.after_deal, report.reason = True, end.get("reason")
        _check_cancel_seeds(end, seats, commits, game_id, len(entries) - 1)
        _check_cancel_reason(end, names, len(entries) - 1, "entry 1 (commits)", list(seeds))
        report.checks.append(f"match cancelled after the deal was fixed: {short_repr(end.get('reason'))}")
    if seen is not None:
        seen.at(len(entries) - 1, state)
        seen.compare(entries, report)


def _check_step_sigs(entries: list[Signed], at: int, values: list, keys: list, names: list[str], purpose: str,
                     payload, what: str) -> list[int]:
    """The players' signatures of the commitment set (entry 1, C11) or the reveal set (entry 2,
    C12): each by its seat's key over that seat's value; None for a computer seat's, and for a
    player's the server made while they were away (returned, to be said)."""
    where = f"entry {at} ({entries[at].body['t']})"
    sigs = entries[at].body.get("sigs")
    if not isinstance(sigs, list) or len(sigs) != len(keys):
        raise Mismatch(where, f"it must hold one player's signature (or none) per seat ({len(keys)})")
    made = []
    for i, (key, sig) in enumerate(zip(keys, sigs)):
        if sig is None:
            if key is not None:
                made.append(i)
        elif key is None:
            raise Mismatch(where, f"{printable(names[i])} is a computer seat, yet a player signed its {what}")
        elif not isinstance(sig, bytes) or not verify_signature(key, purpose, payload(entries[0].hash, i, values[i]),
                                                                 sig):
            raise Mismatch(where, f"{printable(names[i])}'s {what} is not signed by their key")
    return made


class _SignedMoves:
    """The players' signatures of the moves (docs/fairness.md §9), checked as they are replayed.
    A player's move entry says the latest entry the player had seen when deciding (`seen`); the
    final or cancel entry lists the move's exact bytes and the player's signature (C10) over them,
    over the match and over entry `seen` (never the move entry: for a pick among hidden cards
    they would tell the cards to every seat before the end). That entry must
    come after the seat's own previous move, and when other entries came between it and the move
    (several seats answered at once), the seat's question must still be the one it was at `seen`:
    so a signature never passes at another position, in another match, or twice. A move the
    server made is marked `bot`, and counted for a player's seat (away, or out of time)."""

    def __init__(self, entries: list[Signed], keys: list, names: list[str], signed, end_name: str) -> None:
        self.entries, self.keys, self.names = entries, keys, names
        if not isinstance(signed, list) or len(signed) != len(entries) - 4:
            raise Mismatch(end_name, f"it must list each move's signed bytes (or none) per move ({len(entries) - 4})")
        self.signed = signed        # per move entry (from entry 3): [move bytes, signature] or None
        self.last = [0] * len(keys)                 # the entry of each seat's latest move
        self.by_server = [0] * len(keys)
        self.by_player = 0
        # The questions to keep (entry seen -> seats): only for moves that others' came between.
        self.wanted: dict[int, set[int]] = {}
        self.kept: dict[tuple[int, int], object] = {}
        self.asked = True        # the seat's question before the move is the one it was at `seen`
        for i in range(3, len(entries) - 1):
            b = entries[i].body
            seen = b.get("seen")
            if type(seen) is int and 2 <= seen < i - 1 and type(b.get("seat")) is int:
                self.wanted.setdefault(seen, set()).add(b["seat"])

    def at_deal(self, state, engine) -> None:
        self.after(2, state, engine)

    def after(self, i: int, state, engine) -> None:
        for seat in self.wanted.get(i, ()):
            self.kept[(i, seat)] = engine.prompt(state, seat)

    def before(self, i: int, state, engine) -> None:
        """Before move i is replayed: is its seat asked what it was asked at the entry it saw?"""
        b = self.entries[i].body
        seen, seat = b.get("seen"), b["seat"]   # the replay has checked the seat is an int
        if type(seen) is int and 2 <= seen < i - 1:
            self.asked = engine.prompt(state, seat) == self.kept.get((seen, seat))
        else:
            self.asked = True

    def check(self, i: int, move: list, where: str) -> None:
        """Move i, replayed as the final entry lists it: made by the server, or signed by its player."""
        b = self.entries[i].body
        seat = b["seat"]
        if not 0 <= seat < len(self.keys):
            raise Mismatch(where, f"it names seat {seat}, which this match has not")
        key, name = self.keys[seat], printable(self.names[seat])
        if "move" in b or "sig" in b:
            raise Mismatch(where, "it shows the move's bytes or a signature over them to everyone, which may tell "
                                  "the cards picked: only the final or cancel entry may list them")
        signed = self.signed[i - 3]
        if b.get("bot") is True:
            if signed is not None or "seen" in b:
                raise Mismatch(where, "a move marked as the server's carries a player's signature")
            if key is not None:
                self.by_server[seat] += 1
        elif key is None:
            raise Mismatch(where, f"{name} is a computer seat: its moves are the server's, marked so")
        else:
            seen = b.get("seen")
            raw, sig = signed if isinstance(signed, list) and len(signed) == 2 else (None, None)
            if type(seen) is not int or not isinstance(raw, bytes) or not isinstance(sig, bytes):
                raise Mismatch(where, f"it carries no signature of {name}: the player never signed this move")
            if not max(2, self.last[seat]) <= seen < i:
                raise Mismatch(where, f"{name} signed it having seen entry {seen}, which is not between their "
                                      f"previous move (entry {self.last[seat]}) and this one")
            if not verify_signature(key, SIG_MOVE, move_payload(self.entries[0].hash, seat,
                                                                self.entries[seen].hash, raw), sig):
                raise Mismatch(where, f"{name}'s signature does not match this move, in this match, after entry "
                                      f"{seen}: the player never signed it here")
            try:
                action = unpack(raw, MAX_MESSAGE)
            except DecodeError as e:
                raise Mismatch(where, f"the signed move is not readable ({e.message})") from None
            if action != move[1]:
                raise Mismatch(where, f"the move {short_repr(move[1])} of the final entry is not the one {name} "
                                      f"signed, {short_repr(action)}")
            if not self.asked:
                raise Mismatch(where, f"{name} signed it for the question of entry {seen}, and was asked another "
                                      "by the time it was played")
            self.by_player += 1
        self.last[seat] = i

    def summary(self) -> str:
        away = [f"{printable(self.names[s])} {n}" for s, n in enumerate(self.by_server) if n]
        return (f"{self.by_player} moves signed by their players' keys, each after the position its player saw"
                + (f"; moves the server made for players away or out of time: {', '.join(away)}" if away else ""))


def _check_cancel_seeds(end: dict, seats: list, commits: list | None, game_id: bytes, at: int) -> None:
    """A cancel reveals the seeds received; each must match its seat's commitment."""
    seeds = end.get("seeds")
    if not isinstance(seeds, list) or len(seeds) != len(seats):
        raise Mismatch(f"entry {at} (cancel)", "it must list one seed (or none) per seat")
    for i, seed in enumerate(seeds):
        if seed is None:
            continue
        if commits is None or not isinstance(seed, bytes) or player_commit(game_id, seats[i]["id"], seed) != commits[i]:
            raise Mismatch(f"entry {at} (cancel)", f"the seed it reveals for {seats[i]['name']} does not match their commitment")


def _cancelled_early(entries: list[Signed], header: dict, report: Report) -> None:
    end = entries[-1].body
    at = len(entries) - 1
    if end["t"] != "cancel":
        raise Mismatch(f"entry {at} ({end['t']})", "the commitments and seeds are missing")
    seed = end.get("server_seed")
    if not isinstance(seed, bytes) or server_commit(header["game_id"], seed) != header["server_commit"]:
        raise Mismatch(f"entry {at} (cancel)", "the revealed server seed does not match the server's commitment")
    commits = entries[1].body.get("commits") if len(entries) > 2 and entries[1].body["t"] == "commits" else None
    _check_cancel_seeds(end, header["seats"], commits, header["game_id"], at)
    names = [s["name"] for s in header["seats"]]
    revealed = end.get("seeds")
    _check_cancel_reason(end, names, at, "entry 1 (commits)" if commits is not None else None,
                         revealed if isinstance(revealed, list) else [None] * len(names))
    report.reason = end.get("reason")
    report.checks.append(f"match cancelled before play: {short_repr(end.get('reason'))}; the server seed matches its commitment, and so do the player seeds revealed")


def _check_cancel_reason(end: dict, names: list[str], at: int, commits_at: str | None, seeds: list) -> None:
    """A cancel that says a seat did not commit or reveal, while its record holds that seat's
    commitment (`commits_at`: the entry that holds every one) or seed (`seeds`, per seat: the
    reveal set's, or those the cancel reveals), is contradicted by what the server signed."""
    claim = claimed_late(end.get("reason"))
    if claim is None:
        return
    step, claimed = claim
    if step == "commit" and commits_at is not None:
        raise Mismatch(f"entry {at} (cancel)", f"its reason says {printable(short_repr(' and '.join(claimed)))} did "
                                              f"not commit, but {commits_at} holds every seat's commitment")
    if step == "reveal":
        for i, name in enumerate(names):
            if name in claimed and seeds[i] is not None:
                raise Mismatch(f"entry {at} (cancel)", f"its reason says {printable(short_repr(name))} did not "
                                                      f"reveal their seed, but the record holds that seed")
        if all(seed is not None for seed in seeds):
            raise Mismatch(f"entry {at} (cancel)", "its reason says a seed was not revealed, but the record "
                                                  "holds every seat's seed")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class _Seen:
    """What the replay says a client should have been shown (docs/fairness.md §8), gathered while
    the moves are replayed, then compared with what it kept (protocol.shown)."""

    def __init__(self, engine, shown: Shown, names: list[str]) -> None:
        self.engine = engine
        self.shown = shown
        self.names = names
        self.wanted = {s.seq for s in shown.steps}
        self.views: dict[int, tuple[bytes, bytes, list[str]]] = {}   # seq -> view_digests
        self.public: list[dict] = []                                    # the public events, in order
        self.public_seqs: list[int] = []                                # the entry of each of them

    def at(self, seq: int, state, public=()) -> None:
        """The match is at entry `seq` with this state; its move made these public events."""
        self.public += [{"type": e["type"], "to": e["to"], "text": e["text"]} for e in public]
        self.public_seqs += [seq] * len(public)
        if seq in self.wanted and seq not in self.views:
            self.views[seq] = view_digests(self.engine.view(state, self.shown.seat))

    def _until(self, seq: int) -> int:
        """How many public events the match had made by entry `seq` (a search, not a count: a
        record's client may claim thousands of views)."""
        return bisect_right(self.public_seqs, seq)

    def compare(self, entries: list[Signed], report: Report) -> None:
        seat = self.shown.seat
        if seat is not None and not 0 <= seat < len(self.names):
            raise Mismatch("what was shown", f"it names seat {seat}, which this match has not")
        who = self.names[seat] if seat is not None else "this spectator"
        prev = None
        for n, st in enumerate(self.shown.steps, 1):
            report.where = f"view {n} shown"
            if st.seq not in self.views:
                raise Mismatch(report.where, f"it is said to be of entry {st.seq}, and the match had no view there")
            where = report.where = _name(st.seq, entries[st.seq].body, self.names)
            vhash, fields, keys = self.views[st.seq]
            if st.view != vhash:
                raise Mismatch(where, f"the view shown to {printable(who)} is not the replay's: "
                                      f"{_fields_differ(st.fields, fields, keys)}")
            if st.snapshot:
                before = self._until(st.seq)
                count = len(st.events) // EVENT_DIGEST
                if count > before:
                    raise Mismatch(where, f"{count} public events were shown with the whole view there, more than "
                                          f"the {before} of the match so far")
                want = self.public[before - count:before]
            elif prev is None:
                raise Mismatch(where, "a view update was applied with no view before it")
            else:
                want = self.public[self._until(prev.seq):self._until(st.seq)]
            got = digests(st.events, EVENT_DIGEST)
            if len(got) != len(want):
                raise Mismatch(where, f"{len(got)} public events were shown to {printable(who)} there, where the "
                                      f"replay has {len(want)}")
            for k, (g, e) in enumerate(zip(got, want), 1):
                if g != event_digest(e):
                    raise Mismatch(where, f"the {_ordinal(k)} public event shown to {printable(who)} there is not the "
                                          f"replay's {printable(short_repr(e['text']))}")
            prev = st
        report.where = None
        report.shown_checked = len(self.shown.steps)
        report.shown_unreadable_after = self.shown.unreadable_after
        if self.shown.steps:
            report.checks.append(f"{len(self.shown.steps)} views shown to {who}, and the public events shown with "
                                 "them, are the replay's")


def _fields_differ(got: bytes, want: bytes, keys: list[str]) -> str:
    """Which fields of a view shown differ from the replay's, by name only: their contents may
    be what only that seat may see."""
    a, b = digests(got, FIELD_DIGEST), digests(want, FIELD_DIGEST)
    if len(a) != len(b):
        return f"it has {len(a)} fields where the replay's has {len(b)}"
    differ = [k for k, x, y in zip(keys, a, b) if x != y]
    if not differ:
        return "it differs (the digests kept do not say where)"
    return f"it differs in {', '.join(printable(differ))}"


def _audit_blind(entries: list[Signed], privates: list[Signed], names: list[str], report: Report,
                 seat: int | None, abandoned: bool) -> None:
    """A blind table's record (docs/fairness.md §10.6): the log read again by a replica (every
    player's signature, every share's proof, every pile's length and points, every `open` against
    its move, every move against the rules and §9's rules of where a signed move may stand, the
    final scores), then, with the deal seeds revealed at the end, every key, shuffle step and share
    recomputed (§10.4), and the match replayed with every card open. `seat`: the record is that
    player's own, whose replica also opens its cards with its own part, as its client did."""
    if privates:
        raise Mismatch("the private messages", "a blind table sends none, yet the record holds some")
    end = entries[-1].body
    own_seed = _own_deal_seed(entries, seat) if seat is not None and end["t"] == "final" else None
    # _audit has checked every entry's signature and chain.
    reader = LogReader(seat, own_seed, check_server=False) if own_seed is not None else LogReader(check_server=False)
    for i, entry in enumerate(entries):
        where = report.where = _name(i, entry.body, names)
        try:
            reader.accept(entry)
        except ProtocolError as e:
            raise Mismatch(where, e.message) from None
    report.where = _name(len(entries) - 1, end, names)
    if end["t"] == "cancel":
        report.reason = end.get("reason")
        if not reader.cancelled_dealt:
            report.checks.append(f"match cancelled before the deal: {short_repr(end.get('reason'))}")
            return
    if abandoned:
        report.after_deal = True
        raise Abandoned(report.where, "the server abandoned this match after the deal began: the connection was "
                                      "lost for good before the final entry, so no deal seed was revealed and the "
                                      "deal cannot be checked")
    r = reader.dealt     # a final entry, or a cancel after the deal, follows the reveal set, which makes it
    moves = [(i, e.body) for i, e in enumerate(entries) if e.body["t"] == "move"]
    signed = sum("sig" in b for _, b in moves)
    report.checks.append(f"blind dealing among {r.parties} parties: every deal key proven (C16) and signed (C23); "
                         f"{len(r.piles)} joint shuffles, every step of the right length and points, the players' "
                         f"signed (C24); {len(r.shares)} decryption shares, each proof holding (C21), the players' "
                         "signed (C25)")
    report.checks.append(f"{len(moves)} moves replayed, each legal, {signed} signed by their players' keys (C10), "
                         "each after the position its player saw and for the question it was asked there; every "
                         "public event and every opening asked for matches")
    seeds = end["deal_seeds"]
    header_hash = entries[0].hash
    if end["t"] == "cancel":
        # The players keep their deal seeds: a cancelled match reveals only the server's.
        players = _blind_partial(entries, reader, seeds, names)
        report.after_deal = True
        report.deal_unchecked = ("the shuffle steps and shares of " + ", ".join(players) + ", and the replay with "
                                 "every card open: a match cancelled reveals no player's deal seed, which alone "
                                 "recomputes them")
        report.checks.append("the server's deal seed, revealed by the cancel, gives its key and each of its shuffle "
                             "steps and shares")
        report.checks.append(f"match cancelled after the deal was fixed: {short_repr(end.get('reason'))}")
        return
    if all(seed is not None for seed in seeds):
        try:
            opened = blind.audit(header_hash, r.keys, seeds, r.piles, r.shares)
        except blind.AuditFailed as e:
            raise Mismatch(*_blind_blame(entries, reader, e, names)) from None
        report.checks.append("every party's deal seed gives its key, each of its shuffle steps and each of its "
                             "shares (§10.4)")
        if own_seed is not None:
            assert seat is not None
            _check_own_sight(reader, opened, names[seat])
            report.seats_checked = [seat]
            report.checks.append(f"every card opened to {names[seat]} by the others' shares and their own part, "
                                 "before each of their moves, holds what the whole deal's audit opens it to")
        state = _full_sight(reader, opened, moves, names)
        full = r.engine.result(state)
        if [sc["total"] for sc in full["scores"]] != end["scores"]:
            raise Mismatch(report.where, "the match replayed with every card open scores differently")
        report.checks.append("the match replayed with every card open gives the same scores")
    else:
        unchecked = _blind_partial(entries, reader, seeds, names)
        report.checks.append("the deal seeds revealed give their keys, shuffle steps and shares")
        report.checks.append("NOT CHECKED: the shuffle steps and shares of " + ", ".join(unchecked) +
                             ", who forfeited and never revealed a deal seed")
    result = reader.result()
    report.scores = [sc["total"] for sc in result["scores"]]
    report.winners = result["winners"]
    report.places = places(result)
    if reader.forfeit:
        report.checks.append("forfeited, placed last: " + ", ".join(names[s] for s in reader.forfeit))
    report.checks.append("the final scores and winners equal the replay's")


def _own_deal_seed(entries: list[Signed], seat: int) -> bytes | None:
    """The deal seed the final entry lists for this player's seat, if it gives the deal key the
    seat published; else None (a computer seat, a player who forfeited, or a false seed, which the
    reader then refuses at the final entry as for anyone)."""
    keys = seat_keys(entries[0].body)
    if not 0 <= seat < len(keys) or keys[seat] is None or len(entries) < 2:
        return None
    party = 1 + sum(k is not None for k in keys[:seat])
    seeds, published = entries[-1].body.get("deal_seeds"), entries[1].body.get("deal_keys")
    seed = seeds[party] if isinstance(seeds, list) and party < len(seeds) else None
    if not (isinstance(seed, bytes) and len(seed) == blind.SEED_BYTES and isinstance(published, list)
            and len(published) == len(keys)):
        return None
    return seed if blind.Party(entries[0].hash, party, seed).key == published[seat] else None


def _check_own_sight(reader: LogReader, opened: dict[int, int], name: str) -> None:
    """What the player's replica opened (its own cards, by the others' shares and its own part)
    is what the audit of the whole deal opens."""
    for card, item in sorted(reader.dealt.streams.sight.items.items()):
        if opened.get(card) != item:
            raise Mismatch("the final entry", f"card {card} opened to {name} as item {item}, and the whole deal's "
                                              f"audit opens it as {opened.get(card)}")


def _blind_party_name(reader: LogReader, party: int | None, names: list[str]) -> str:
    if party is None:
        return "a party"
    seat = reader.seat_of(party)
    return "the server" if seat is None else f"{names[seat]} (party {party})"


def _blind_blame(entries: list[Signed], reader: LogReader, e: blind.AuditFailed, names: list[str]) -> tuple[str, str]:
    """The entry an audit failure points at, and what is wrong there, naming the party."""
    who = _blind_party_name(reader, e.party, names)
    for i, entry in enumerate(entries):
        b = entry.body
        if e.name is not None and b["t"] == "shuffle" and b.get("name") == e.name and b.get("idx") == e.idx \
                and b.get("party") == e.party:
            return f"entry {i} (shuffle by {who})", e.message
    if e.party is not None and e.name is None and "share" in e.message:
        for i, entry in enumerate(entries):
            if entry.body["t"] == "shares" and entry.body.get("party") == e.party:
                party = blind.Party(entries[0].hash, e.party, entries[-1].body["deal_seeds"][e.party])
                cards, parts = entry.body["cards"], entry.body["parts"]
                for k, c in enumerate(cards):
                    if party.part(reader.dealt.cts[c]) != parts[k * 32:(k + 1) * 32]:
                        return f"entry {i} (shares by {who})", e.message
    return f"entry {len(entries) - 1} (final)", f"{who}: {e.message}"


def _blind_partial(entries: list[Signed], reader: LogReader, seeds: list, names: list[str]) -> list[str]:
    """A forfeit's audit: each party whose seed is revealed, checked step by step on the joint
    key; the names of those whose steps cannot be."""
    r = reader.dealt
    hh = entries[0].hash
    for p, seed in enumerate(seeds):
        if seed is None:
            continue
        party = blind.Party(hh, p, seed)
        for pile in r.piles:
            given = blind.pile_input(pile.items, r.joint, r.cts) if p == 0 else pile.outputs[p - 1]
            if party.shuffle(pile.name, pile.idx, given, r.joint) != list(pile.outputs[p]):
                raise Mismatch(*_blind_blame(entries, reader, blind.AuditFailed(
                    f"party {p}'s shuffle of the pile {pile.name} {pile.idx} is not the one its deal seed gives", p,
                    pile.name, pile.idx), names))
        for q, card, part in r.shares:
            if q == p and party.part(r.cts[card]) != part:
                raise Mismatch(*_blind_blame(entries, reader, blind.AuditFailed(
                    f"party {p}'s share of card {card} is not the one its deal seed gives", p), names))
    return [_blind_party_name(reader, p, names) for p, seed in enumerate(seeds) if seed is None]


def _full_sight(reader: LogReader, opened: dict[int, int], moves: list[tuple[int, dict]], names: list[str]):
    """The match replayed by a party that sees every card, checking §9's rule 3 for each player's
    move that others' came between (its question then names cards only its seat saw)."""
    from games.blind import BlindStreams
    r = reader.dealt
    streams = BlindStreams(r.streams.public)
    for pile in r.piles:
        streams.shuffled(pile.name, pile.idx, pile.items)
    for card, item in opened.items():
        streams.opened(card, item, public=True)
    engine = r.engine
    state = engine.setup(r.names, r.options, streams)
    wanted: dict[int, set[int]] = {}     # entry -> the seats whose question there a later move answers
    for i, b in moves:
        if type(b.get("seen")) is int and b["seen"] < i - 1:
            wanted.setdefault(b["seen"], set()).add(b["seat"])
    asked = {(k, seat): engine.prompt(state, seat) for k in wanted if k < moves[0][0] for seat in wanted[k]} \
        if moves else {}
    for n, (i, b) in enumerate(moves):
        seat, seen = b["seat"], b.get("seen")
        if type(seen) is int and seen < i - 1 and asked.get((seen, seat)) != engine.prompt(state, seat):
            raise Mismatch(f"entry {i} (move by {printable(names[seat])})",
                           f"{printable(names[seat])} signed it for the question of entry {seen}, and was asked "
                           "another by the time it was played (with every card open)")
        engine.apply(state, seat, unpack(b["move"], MAX_MESSAGE), streams)
        following = moves[n + 1][0] if n + 1 < len(moves) else i + 1
        for k in range(i, following):    # the entries after this move, up to the next, see this state
            for s in wanted.get(k, ()):
                if s in engine.to_act(state):
                    asked[(k, s)] = engine.prompt(state, s)
    return state
