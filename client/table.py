"""One table as this client sees it, with no network or screen of its own (docs/development.md):
`Table` is fed one decoded server message at a time, checks the signed messages through a
PlayerExchange (docs/fairness.md §4–5), applies snapshots and deltas (protocol.diff), keeps the
game log and, as digests, every view and public event it showed (protocol.shown, for the audit),
returns the messages to send back (commit, reveal, resync), and says when our seat owes an answer
and builds the command for it. At a blind table (the header says `dealing: "blind"`,
docs/fairness.md §10) the seat keeps a replica of the match instead (protocol.blind_exchange):
every entry goes to it, the messages it answers with are sent (commit with our deal key, reveal,
shuffle steps, shares, our deal seed), and our view and question are made from it, since the
server sends a seated player no views there. What must outlive the process, it hands to the seat's `SeatSession`,
which writes it to disk at once (every signed message, log line and view shown, for a resumed seat
and its audit), and a record refused mid-match is saved where `governor verify` finds it. `Outcome`
is how a match ended for this client."""
from __future__ import annotations

import logging
import math
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from games.errors import IllegalAction
from protocol.blind import SEED_BYTES
from protocol.blind_exchange import BlindPlayerExchange
from protocol.codec import pack
from protocol.diff import PatchError, patch
from protocol.exchange import PlayerExchange
from protocol.fairness import player_commit
from protocol.messages import ProtocolError, Signed, printable
from protocol.shown import MAX_STEPS, Shown, Step, event_digest, view_digests
from protocol.verify import Report, verify

from .errors import ClientError
from .session import SeatSession, save_record

log = logging.getLogger(__name__)

HOLD = 2.0              # after an ack, how long an unchanged question waits for the next update
CLOCK_WAIT = 0.5        # on a table with a clock, how long a new question waits for its clock,
                        # which the server sends right after the view: so the time left is shown
                        # with the question, not a moment after it


@dataclass
class Outcome:
    """How a match ended for this client."""
    finished: bool                  # a final entry (False: cancelled, or we gave up)
    report: Report | None           # the docs/fairness.md §5 audit
    record: Path | None             # the saved record
    table: str
    seat: int | None
    names: list[str]
    result: dict | None = None      # the engine's result from the final view, when we saw it
    reason: str | None = None       # why it did not finish
    own_seed: bool = True           # False: the server made our seat's seed (we were away, it says)
    bot_failures: tuple[str, ...] = ()   # the server's words for each bot decision that failed
    blind: bool = False             # a blind table's match (docs/fairness.md §10)
    forfeits: tuple[str, ...] = ()  # on a blind table: who stopped answering, in words

    @property
    def verified(self) -> bool:
        return self.finished and self.report is not None and self.report.ok

    @property
    def caveat(self) -> str | None:
        """What the audit cannot vouch for in this match, if anything."""
        if self.own_seed:
            return None
        return ("Your own seed took no part in this deal: the server says it made your seat's seed "
                "while you were away, so the deal rests on the other players' seeds.")

    def as_dict(self) -> dict:
        r = self.report
        return {
            "table": self.table, "seat": self.seat, "finished": self.finished,
            "verified": self.verified, "names": self.names,
            "scores": r.scores if r and r.scores is not None else
            ([sc["total"] for sc in self.result["scores"]] if self.result else None),
            "winners": r.winners if r and r.winners is not None else
            (self.result["winners"] if self.result else None),
            "verdict": (("verified" if r.ok else f"NOT CHECKED: {r.what}" if r.refused else
                         f"FAILED at {r.where}: {r.what}") if r else self.reason or "no record"),
            "checks": r.checks if r else [], "game_id": r.game_id if r else None,
            "server": r.server if r else None, "record": str(self.record) if self.record else None,
            "reason": self.reason, "own_seed": self.own_seed, "blind": self.blind,
            "forfeits": list(self.forfeits),
        }


class Table:
    """One table as this client sees it. `feed(msg)` takes one decoded server message and
    returns the messages to send back; what changed is left in attributes and in `happened`,
    a list of (kind, data) the shell drains: "view", "events", "ack", "reject", "status",
    "error", "end", "notice" (our own client's), "alert" (the server's notice to the table, printable),
    "chat" (a line said at the table: {seat, name, text}, printable),
    "clock" (the seconds our question has left, as the server said).
    """

    def __init__(self, table: str, session: SeatSession | None = None,
                 server_key: bytes | None = None) -> None:
        self.table = table
        self.session = session
        self.view: dict | None = None
        self.seq: int | None = None
        self.log: list[dict] = []           # every event shown to us, in order
        self.seats: list = []               # the latest status: who sits where, connected, bots
        self.status: str | None = None      # the table's: waiting, playing, over, cancelled
        self.turn_time: float | None = None  # seconds to answer a question before a bot does
        self.clock: tuple | None = None     # (the question, the time.monotonic() its clock runs out)
        self.asked_at = 0.0                 # when the current question first came
        self.trust_seed_claim = False       # see resumed()
        self.want_snapshot = False          # a resync is under way: deltas are ignored until it comes
        self.pending: dict | None = None    # the act sent and not yet answered
        self.pending_prompt: dict | None = None
        self.pending_action: list = []      # at a blind table: what the act pending answered
        self.answered: tuple | None = None  # (prompt, seq at ack, time of ack) of the last accepted act
        self.happened: list[tuple] = []
        self.told: list[dict] = []          # what we alone were told, shown with the next view
        self.bot_failures: list[str] = []   # the server's words for each bot decision that failed
        self.ended = False
        self.blind = False                  # the header says the table deals blind
        self.listed_blind = False           # the table's status says it will (before the header)
        self.owed: list[dict] = []          # blind: what we sent that the log does not hold yet
        self.forfeits: list[str] = []       # blind: who stopped answering, in words
        self.unread: list[tuple[list, list[int]]] = []   # blind: moves' events held (_hold_story)
        self.shown = Shown(session.seat if session is not None else None)   # every view shown, for the audit
        self.exchange: PlayerExchange | BlindPlayerExchange
        if session is None:                  # a spectator audits the public entries
            self.exchange = PlayerExchange(None, server_key=server_key)
        else:
            self.shown.steps = list(session.steps)
            self.shown.unreadable_after = session.shown_unreadable_after
            self.exchange = PlayerExchange(session.player_id, session.seed,
                                           server_key=server_key or session.server_key, signer=session.player)
            self.exchange.seed_made_by_server = session.seed_made_by_server
            try:
                if session.messages and _is_blind(session.messages[0]):
                    self._catch_up_blind(session.messages)
                for m in session.messages if not self.blind else ():   # a restarted client: catch up from disk
                    self.exchange.receive(m)
            except ProtocolError as e:
                # e.g. the player key in the data folder is not the one the seat was taken with
                raise ClientError(e.code, f"the seat saved for table {table} cannot be resumed here: "
                                          f"{e.message}") from None
            self.ended = self.exchange.report is not None
            if session.log:                  # and show the log so far, which snapshots cut short
                self.log = list(session.log)
                self.happened.append(("events", list(session.log)))

    # -------------------------------------------------------------- signed messages

    @property
    def held(self) -> int:
        """The signed messages we hold (a spectator holds entries only)."""
        return len(self.exchange.record)

    @property
    def record(self) -> list[Signed]:
        """Every signed message we hold, in order: what a record of this match is made of."""
        return self.exchange.record

    @property
    def entries(self) -> list[Signed]:
        """The public log's entries we hold."""
        ex = self.exchange
        if isinstance(ex, BlindPlayerExchange):
            return ex.reader.entries if ex.reader is not None else []
        return ex.entries

    @property
    def started(self) -> bool:
        """The seeds are revealed: the match is being played (or over), there are views."""
        entries = self.entries
        return len(entries) >= 3 and entries[2].body["t"] == "reveals"

    @property
    def header(self) -> dict | None:
        ex = self.exchange
        if isinstance(ex, BlindPlayerExchange):
            return ex.reader.header if ex.reader is not None else None
        return ex.header

    @property
    def dealing(self) -> str:
        """"blind" when the table deals blind (its header says so, or, before there is one, its
        status), else "open"."""
        return "blind" if self.blind or (self.listed_blind and not self.entries) else "open"

    @property
    def seat(self) -> int | None:
        return self.exchange.seat

    @property
    def seed_made_by_server(self) -> bool:
        """The server says it made our seat's seed (never at a blind table: there a seat that
        does not commit cancels the match)."""
        return not self.blind and self.exchange.seed_made_by_server

    def result(self) -> dict | None:
        """The engine's result, when we know it: from the last view the server sent, or at a
        blind table from our replica once the final entry is in (with the forfeits)."""
        if self.blind:
            ex = self.exchange
            return ex.reader.result() if ex.reader is not None and ex.reader.ended and ex.replica is not None \
                and ex.replica.state is not None else None
        return (self.view or {}).get("result")

    def resume_messages(self) -> list[dict]:
        """After a reconnect: the exchange step we may owe the server (resent; the server ignores
        a repeat), and the unanswered command (same id: applied at most once)."""
        out: list[dict] = []
        ex = self.exchange
        if self.blind:
            out += [self._wire(m) for m in self.owed if self._still_owed(m)]
        elif self.session is not None and ex.report is None:   # a spectator owes nothing
            kinds = [e.body["t"] for e in ex.entries]
            mine = player_commit(ex.header["game_id"], ex.player_id, ex.seed) if ex.header else None
            if kinds == ["header"] and not ex.seed_made_by_server:
                out.append(self._commit(mine))
            elif kinds == ["header", "commits"] and ex.entries[1].body["commits"][ex.seat] == mine:
                out.append(self._reveal(ex.seed))
        if self.pending is not None:
            out.append(self.pending)
        return out

    def _signed(self, msg: dict) -> list[dict]:
        try:
            signed = Signed.parse(msg["type"], msg["payload"], msg["sig"])
        except ProtocolError as e:
            raise ClientError("bad_signed_message", f"the server sent a malformed signed message: {e.message}") from None
        if self._already_held(signed):
            return []
        if not self.entries and not self.blind and _is_blind(signed):
            self._become_blind(self.exchange.pinned_key)
        if self.blind:
            return self._blind_signed(signed)
        try:
            reply = self.exchange.receive(signed)
        except ProtocolError as e:
            evidence = self._keep_evidence(signed)
            if e.code == "commit_changed":
                raise ClientError("cheating", "the commitment set does not hold our commitment, and the server did "
                                  "not say it made our seat's seed while we were away: it cheats. Our "
                                  f"seed stays secret; leaving the table.{evidence}") from None
            raise ClientError("failed_check", f"the server's signed log failed a check ({e.code}): {e.message}. "
                              f"Leaving the table: this match cannot be trusted.{evidence}") from None
        out = []
        kind = signed.body["t"]
        if self.session is None:             # a spectator: no part in the exchange, no notices
            if kind in ("final", "cancel"):
                self.ended = True
                self.happened.append(("end", kind))
            return out
        self.session.append(signed)
        if signed.kind == "private":
            # What only we may see reaches us only here, signed (a view update carries the public
            # events alone, so that its length tells nothing of our cards): shown with the view.
            self.told += [{"type": "private", "to": self.exchange.seat, "text": text}
                          for text in signed.body.get("events", [])]
        if kind == "header" and not self.exchange.seed_made_by_server:
            self.happened.append(("notice", "The table is full: the match header is signed; "
                                  "committing to our secret seed."))
            out.append(self._commit(reply))
        elif kind == "commits" and reply is not None:
            self.happened.append(("notice", "Every seat has committed; revealing our seed."))
            out.append(self._reveal(reply))
        elif kind == "reveals":
            self.happened.append(("notice", "All seeds revealed and checked against their "
                                  "commitments: the deal is fixed, play begins."))
        elif kind in ("final", "cancel"):
            self.ended = True
            self.happened.append(("end", kind))
        return out

    def _keep_evidence(self, refused: Signed) -> str:
        """The signed messages so far and the one refused, saved where `governor verify` can
        show anyone what the server signed; the words to add to the error."""
        if self.session is None or self.header is None:
            return ""
        try:
            path = save_record(self.session.data_dir, [*self.record, refused], self.header["game_id"], "refused")
        except OSError:
            return ""
        return f" What the server signed is kept in {path}."

    def resumed(self) -> None:
        """We came back to the seat with its token. The server's first word then is the seat's
        status, which says whether it made our seed while we were away; that claim is heard
        then and only then (never on the connection we sat down with, nor midway through one),
        and only if we never sent our commitment. Even so it is the server's word: the outcome
        says that our own seed took no part."""
        self.trust_seed_claim = True

    def _commit(self, commitment: bytes) -> dict:
        """Our commitment, to send; once sent, no server-made seed may take its place."""
        if not self.session.committed:
            self.session.committed = True
            self.session.save()
        return {"type": "commit", "commitment": commitment, "sig": self.exchange.sign_commit(commitment)}

    def _reveal(self, seed: bytes) -> dict:
        """Our seed, to send, signed."""
        return {"type": "reveal", "seed": seed, "sig": self.exchange.sign_reveal(seed)}

    def _seed_made_by_server(self) -> None:
        """The status says the server made our seat's seed (we were away past the grace period
        before we committed): our seed takes no part in this deal, and we say so once. Not once
        we have sent our commitment: then the server had it, and a set without it is cheating."""
        ex, me = self.exchange, self.session.seat if self.session else None
        if me is None or self.blind or ex.seed_made_by_server or self.session.committed or me >= len(self.seats):
            return
        if isinstance(self.seats[me], dict) and self.seats[me].get("server_seed"):
            ex.seed_made_by_server = self.session.seed_made_by_server = True
            self.session.save()
            self.happened.append(("notice", "While you were away the server made the seed for your seat: "
                                  "your own seed takes no part in this deal (everyone else's still does)."))

    def _already_held(self, m: Signed) -> bool:
        """A message resent after a reconnect (the server sent from an older point than `have`)."""
        entries = self.entries
        if m.kind == "entry":
            seq = m.body["seq"]
            if seq < len(entries):
                if entries[seq].payload == m.payload:
                    return True
                raise ClientError("changed_entry", f"the server sent a different entry {seq} than before: "
                                  "this match cannot be trusted.")
            return False
        return not self.blind and any(p.payload == m.payload for p in self.exchange.privates)

    # -------------------------------------------------------------- a blind table

    def _become_blind(self, server_key: bytes | None) -> None:
        """The header says the table deals blind: from here the replica checks the log."""
        self.blind = True
        s = self.session
        if s is None:
            self.exchange = BlindPlayerExchange(None, server_key=server_key)
            return
        if s.deal_seed is None:      # a seat saved by a client that made no deal seed when it sat
            s.deal_seed = secrets.token_bytes(SEED_BYTES)
            s.save()
        self.exchange = BlindPlayerExchange(s.player_id, s.player, seed=s.seed, deal_seed=s.deal_seed,
                                            server_key=server_key)

    def _catch_up_blind(self, messages: list[Signed]) -> None:
        """A restarted client: the saved entries again through a fresh replica. They were checked
        as they came, so what they hold of ours (a move, the shares sent with it) is taken as
        sent by this seat; what the replica answers and the log does not hold yet is owed."""
        self._become_blind(self.exchange.pinned_key)
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        for m in messages:
            before = None
            if ex.reader is not None and ex.replica is not None:
                self._ours(m.body)
                before = ex.replica.state
            self.owed += ex.receive(m)
            self._prune_owed()
            if m.body.get("t") == "move":
                self._hold_story(before)
            # What was readable by now was shown before the restart (the saved log holds it).
            self._read_story(show=False)
        self._blind_view()

    def _ours(self, body: dict) -> None:
        """An entry of a saved log that shows a contribution of ours, known to the exchange as ours."""
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange) and ex.reader is not None
        kind = body.get("t")
        if kind == "move" and body.get("seat") == ex.seat:
            ex.sent_moves.add((body.get("seen"), body.get("move")))
        elif kind == "shares" and body.get("party") == ex.reader.party and isinstance(body.get("parts"), bytes):
            parts = body["parts"]
            size = len(parts) // max(1, len(body.get("cards") or ()))
            ex.sent_shares.update((c, parts[i * size:(i + 1) * size]) for i, c in enumerate(body.get("cards") or ()))

    def _still_owed(self, m: dict) -> bool:
        """Whether a message the replica made is not in the log yet (to send again after a
        reconnect: it may have been lost with the connection)."""
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        reader, r = ex.reader, ex.replica
        if reader is None or reader.ended:
            return False
        kind = m["type"]
        if kind == "commit":
            return len(reader.entries) < 2
        if kind == "reveal":
            return len(reader.entries) < 3
        if kind == "shuffle":
            return r is not None and r.piling is not None and (r.piling.name, r.piling.idx) == (m["name"], m["idx"]) \
                and len(r.piling.outputs) == reader.party
        if kind == "shares":
            return r is not None and any(reader.party not in r.parts.get(c, {}) for c in m["cards"])
        return kind == "deal_seed"

    def _prune_owed(self) -> None:
        self.owed = [m for m in self.owed if self._still_owed(m)]

    def _wire(self, m: dict) -> dict:
        """A message of the exchange, about to be sent (it is the wire's message already): a
        commitment is noted in the saved seat first."""
        if m["type"] == "commit" and not self.session.committed:
            self.session.committed = True
            self.session.save()
        return m

    def _blind_signed(self, signed: Signed) -> list[dict]:
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        before = ex.replica.state if ex.replica is not None else None
        try:
            replies = ex.receive(signed)
        except ProtocolError as e:
            self._refuse(signed, e)
        body = signed.body
        kind = body["t"]
        if self.session is None:             # a spectator: its views come from the server
            if kind in ("final", "cancel"):
                self.ended = True
                self.happened.append(("end", kind))
            return []
        self.session.append(signed)
        if kind == "move":
            self._hold_story(before)
        self._read_story()
        if kind in ("final", "cancel"):
            self._end_story()
        self._tell_blind(body)
        self.owed += replies
        self._prune_owed()
        self._blind_view()
        if kind in ("final", "cancel"):
            self.ended = True
            self.happened.append(("end", kind))
        return [self._wire(m) for m in replies]

    def _refuse(self, signed: Signed, e: ProtocolError):
        """The replica refused an entry: nothing is sent in answer to it (our secrets stay ours),
        the person is told why, and what the server signed is kept for `governor verify`."""
        evidence = self._keep_evidence(signed)
        seq = signed.body.get("seq") if isinstance(signed.body, dict) else None
        log.error("table %s: refused entry %s of a blind table (%s): %s", self.table, seq, e.code, e.message)
        raise ClientError("refused", f"this client refused what the server sent: {e.message}. Nothing was sent "
                          f"in answer, so the server learns nothing it should not. Leaving the table: this match "
                          f"cannot be trusted.{evidence}") from None

    def _hold_story(self, before) -> None:
        """The events of the move our replica just applied that our seat reads, as the open table
        tells them: the public ones and our own, never another seat's (they may name cards only it
        sees: their words are never written here). Our own may name cards that the move dealt us
        and whose shares come in later entries, so the move's events wait until every card our seat
        held before or after the move is open to us; a later move's wait behind them, so that the
        story keeps its order."""
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange) and ex.replica is not None and ex.reader is not None
        r, me = ex.replica, ex.seat
        events = [e for e in ex.reader.events if e.to is None or e.to == me]
        cards = [c for state in (before, r.state) for c in r.engine.private_cards(state, me)] \
            if any(e.to == me for e in events) else []
        self.unread.append((events, cards))

    def _read_story(self, show: bool = True) -> None:
        """Show the held events whose cards are all open to us now, in order (`show` False: a
        restarted client passes over what it showed before it stopped)."""
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        while self.unread and ex.replica is not None and ex.replica.streams.sight.knows(self.unread[0][1]):
            events, _ = self.unread.pop(0)
            if show:
                # Every card a text of ours names is open to us: reading one that is not raises
                # games.blind.Hidden, a defect of the engine's events, and is never caught.
                self._events([e.as_dict() for e in events])

    def _end_story(self) -> None:
        """The match ended with events still held: cards of ours that nobody will open now (a
        seat forfeited before sharing them, or the match was cancelled). Their public events are
        shown, and our own texts only where every card they may name is open to us."""
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        if not self.unread or ex.replica is None:
            return
        sight = ex.replica.streams.sight
        for events, cards in self.unread:
            self._events([e.as_dict() for e in events if e.to is None or sight.knows(cards)])
        self.unread = []

    def _tell_blind(self, body: dict) -> None:
        """What an entry of a blind table means for the person: the steps of the exchange, a
        forfeit (the events of its moves: _hold_story)."""
        kind = body["t"]
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        names = [s.get("name", "?") for s in ex.reader.header.get("seats", [])]
        if kind == "header":
            self.happened.append(("notice", "The table is full: the match header is signed. This table deals "
                                  "blind: committing to our secret seed and our deal key."))
        elif kind == "commits":
            self.happened.append(("notice", "Every seat has committed; revealing our seed."))
        elif kind == "reveals":
            self.happened.append(("notice", "All seeds revealed and checked. Every party now shuffles the cards "
                                  "in turn: nobody, the server included, knows a card until it is opened to "
                                  "whoever may see it."))
        elif kind == "forfeit":
            words = [f"{'You' if s == ex.seat else names[s]} stopped answering and "
                     f"{'forfeit' if s == ex.seat else 'forfeits'}: placed last." for s in body["seats"]]
            self.forfeits += words
            self.happened += [("notice", w) for w in words]

    def _blind_view(self) -> None:
        """Our view and question, made by our replica: shown when they changed."""
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        view = ex.view()
        if view is None:
            return
        view = {**view, "prompt": ex.prompt()}
        if view != self.view:
            self._new_view(view, len(ex.reader.entries) - 1)
            self.happened.append(("view", self.view))

    def _blind_act(self, action: list) -> dict | None:
        ex = self.exchange
        assert isinstance(ex, BlindPlayerExchange)
        try:
            msg = ex.move(list(action))
        except (ProtocolError, IllegalAction) as e:
            self.happened.append(("reject", (e.code, e.message)))
            return None
        self.pending = {**self._wire(msg), "id": self.session.take_id()}
        self.pending_prompt = self.prompt
        self.pending_action = list(action)
        return self.pending

    # -------------------------------------------------------------- views

    def audit(self) -> Report:
        """The audit of the match as far as we hold it, with every view and public event we
        showed compared with the replay (docs/fairness.md §5, §8). At a blind table the exchange
        audits the record as the final entry arrives: that audit, not a second one."""
        if self.blind and self.exchange.report is not None:
            return self.exchange.report
        return verify(self.exchange.record, self.shown)

    def _events(self, events: list, gap: bool = False) -> list[dict]:
        """Show the events that have words (after the GAP line, with `gap`); those shown."""
        new = [e for e in events if isinstance(e, dict) and isinstance(e.get("text"), str)]
        told = [dict(GAP)] * gap + new
        if told:
            self.log.extend(told)
            self.happened.append(("events", told))
            if self.session is not None:
                self.session.append_events(told)
        return new

    def _keep_step(self, snapshot: bool, digests: tuple, events: list[dict]) -> None:
        """Keep what we just showed: the view now (its digests) and the public events with it."""
        if self.shown.full:
            raise ClientError("too_many_views", f"the server sent more than {MAX_STEPS} views of one match: "
                              "this match cannot be trusted.")
        step = Step(self.seq, snapshot, digests[0], digests[1], b"".join(event_digest(e) for e in events))
        if self.shown.add(step) and self.session is not None:
            self.session.append_step(step)

    def _show_told(self) -> None:
        told, self.told = self.told, []
        self._events(told)

    def _snapshot(self, msg: dict) -> list[dict]:
        digests = view_digests(msg["view"])
        if digests[0] != msg["hash"]:
            # Not the view the server says it sent: never shown, asked for again.
            self.happened.append(("notice", "A snapshot did not match its hash: it is not shown; asking again."))
            return self._resync()
        self._new_view(msg["view"], msg["seq"])
        self.want_snapshot = False
        gap, recent = _unseen(self.log, msg["events"])
        self._keep_step(True, digests, self._events(recent, gap))
        self._show_told()
        self.happened.append(("view", self.view))
        return []

    def _delta(self, msg: dict) -> list[dict]:
        if self.want_snapshot:
            return []
        if self.view is None or msg["base"] != self.seq:
            return self._resync()
        try:
            view = patch(self.view, msg["ops"])
        except PatchError:
            return self._resync()
        digests = view_digests(view)
        if digests[0] != msg["hash"]:
            return self._resync()
        self._new_view(view, msg["seq"])
        self._keep_step(False, digests, self._events(msg["events"]))
        self._show_told()
        self.happened.append(("view", self.view))
        return []

    def _new_view(self, view: dict, seq: int) -> None:
        before = self.prompt
        self.view, self.seq = view, seq
        if self.prompt != before:
            self.asked_at = time.monotonic()

    @property
    def deadline(self) -> float | None:
        """When the clock of our open question runs out (time.monotonic()), if one runs."""
        if self.clock is None or self.prompt is None or self.clock[0] != self.prompt:
            return None
        return self.clock[1]

    def _clock(self, msg: dict) -> list[dict]:
        """The server says how long our question has left: counted from now, on our own clock."""
        if self.session is not None and self.prompt is not None and math.isfinite(msg["left"]):
            left = min(max(msg["left"], 0.0), 24 * 3600.0)      # a server's nonsense stays drawable
            self.clock = (self.prompt, time.monotonic() + left)
            self.happened.append(("clock", left))
        return []

    def _resync(self) -> list[dict]:
        self.want_snapshot = True
        return [{"type": "resync"}]

    # -------------------------------------------------------------- commands

    def act(self, action: list, seq: int | None = None) -> dict | None:
        """The command for a decision made on the view at `seq` (default: the current one). At a
        blind table the replica makes the move (signed on the latest entry, with the shares of
        our own cards it turns up); None when it refuses it, said as a reject."""
        if self.blind:
            return self._blind_act(action)
        seq = self.seq if seq is None else seq
        move = pack(list(action))   # the bytes we sign are the bytes we send
        self.pending = {"type": "act", "id": self.session.take_id(), "seq": seq, "move": move,
                        "sig": self.exchange.sign_move(seq, move)}
        self.pending_prompt = self.prompt
        return self.pending

    @property
    def prompt(self) -> dict | None:
        return self.view.get("prompt") if self.view and not self.view.get("over") else None

    def should_ask(self, now: float) -> bool | float:
        """True when our seat owes an answer to the current view; a number of seconds to wait
        before asking again when the question looks like the one just answered."""
        if self.session is None or self.ended or self.prompt is None or self.want_snapshot \
                or self.pending is not None:
            return False
        if self.answered is not None:
            prompt, seq, at = self.answered
            if prompt == self.prompt and seq == self.seq:
                wait = at + HOLD - now
                if wait > 0:
                    return wait
            self.answered = None
        if self.turn_time and self.deadline is None:
            wait = self.asked_at + CLOCK_WAIT - now
            if wait > 0:
                return wait
        return True

    def _answer(self, msg: dict) -> list[dict]:
        if self.pending is None or msg["id"] != self.pending["id"]:
            return []      # the answer to a command resent after a reconnect, already handled
        self.pending = None
        if msg["type"] == "ack":
            self.answered = (self.pending_prompt, self.seq, time.monotonic())
            self.happened.append(("ack", msg["id"]))
            return []
        if msg["code"] in ("stale", "bad_seq") and not self.blind:
            self.want_snapshot = True   # the server sends one; the question is asked again on it
        if msg["code"] == "stale" and self.blind and self.pending_prompt is not None \
                and self.pending_prompt == self.prompt:
            # At a blind table the server cannot see our question, so it refuses a move signed
            # before another seat's move landed (docs/fairness.md §9, rule 3). Our replica can:
            # the question is the one we answered, so the same answer is signed again on the
            # latest entry, without asking the person twice.
            again = self._blind_act(self.pending_action)
            return [again] if again is not None else []
        self.happened.append(("reject", (msg["code"], msg["message"])))
        return []

    # -------------------------------------------------------------- dispatch

    def feed(self, msg: dict) -> list[dict]:
        kind = msg["type"]
        if "table" in msg and msg["table"] != self.table:
            return []
        if kind in ("entry", "private"):
            return self._signed(msg)
        if kind in ("snapshot", "delta") and self.blind and self.session is not None:
            # Our replica makes our view at a blind table: a view from the server is not ours to show.
            log.error("table %s: the server sent a %s to a seat of a blind table; not shown", self.table, kind)
            return []
        if kind == "snapshot":
            return self._snapshot(msg)
        if kind == "delta":
            return self._delta(msg)
        if kind in ("ack", "reject"):
            return self._answer(msg)
        if kind == "status":
            self.seats = msg["seats"]
            self.status = msg.get("status", self.status)
            self.turn_time = msg.get("turn_time")
            self.listed_blind = msg.get("blind") is True
            self.happened.append(("status", self.seats))
            if self.trust_seed_claim:       # only the first status of a resumed connection
                self.trust_seed_claim = False
                self._seed_made_by_server()
            return []
        if kind == "clock":
            return self._clock(msg)
        if kind == "error":
            self.happened.append(("error", (msg["code"], msg["message"])))
            return []
        if kind == "notice":  # not signed: only shown, and kept for the end of the match
            message = printable(msg["message"])
            if msg["code"] == "bot_failed":
                self.bot_failures.append(message)
            self.happened.append(("alert", message))
            return []
        if kind == "chat":    # not signed, not part of the record: only shown
            self.happened.append(("chat", printable({k: msg[k] for k in ("seat", "name", "text")})))
            return []
        return []

    def drain(self) -> list[tuple]:
        out, self.happened = self.happened, []
        return out

    def names(self) -> list[str]:
        if self.header:
            return [s.get("name", "?") for s in self.header.get("seats", [])]
        if self.view:
            return [p["name"] for p in self.view["players"]]
        return []


def _is_blind(m: Signed) -> bool:
    """A header entry of a blind table."""
    return m.kind == "entry" and isinstance(m.body, dict) and m.body.get("seq") == 0 and m.body.get("dealing") == "blind"


# Where the log skips what happened while we were away: a snapshot carries only the latest events.
GAP = {"type": "gap", "to": None, "text": "… (more happened while you were away: the match record has every move)"}


def _unseen(log: list[dict], recent: list) -> tuple[bool, list]:
    """A snapshot carries the latest public events of the log, most of which we have shown
    already: the ones after the longest overlap between the end of our log's public events
    (what we alone were told came signed, never in a snapshot) and the start of `recent`. With
    no overlap at all, we missed more than a snapshot carries, and the log says so first (True)."""
    log = [e for e in log if e.get("to") is None and e.get("type") != GAP["type"]]
    for k in range(min(len(log), len(recent)), 0, -1):
        if log[-k:] == recent[:k]:
            return False, recent[k:]
    return bool(log and recent), recent
