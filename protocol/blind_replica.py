"""One party's copy of a match on a blind table (docs/fairness.md §10.6), and the reader of its log.

`Replica` is the engine state and the `games.blind.BlindStreams` of one party, with what the
cryptography of protocol/blind.py needs beside them: every party's key, each card's current
ciphertext and the decryption shares logged for it. It is the one home of "try the step on a
copy, shuffle or open what the rules ask, try again": the server's exchange drives it, a
player's exchange and the audit follow the log with it.

`LogReader` checks a blind log entry by entry (the server's signature and the chain, every
player's signature, every share's proof, every pile's length and points, every `open` against a
trial of its move, every move against the rules) and keeps a Replica up to date with it. A
player's exchange and protocol.verify both read a log with it, so they check the same things.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from nacl.bindings import crypto_core_ed25519_add

from games.blind import BlindStreams, Hidden, Unopened, Unshuffled, is_handle
from games.errors import IllegalAction

from . import blind
from .blind import POINT_BYTES, PROOF_BYTES, SEED_BYTES, BlindRefused, Ciphertext
from .codec import MAX_MESSAGE, DecodeError, unpack
from .fairness import Streams, master_key, player_commit, server_commit
from .messages import ProtocolError, Signed, events_digest, seat_keys, short_repr
from .signing import (SIG_COMMIT, SIG_DEAL_KEY, SIG_DEAL_SEED, SIG_ENTRY, SIG_MOVE, SIG_REVEAL, SIG_SHARES,
                      SIG_SHUFFLE, commit_payload, deal_key_payload, deal_seed_payload, move_payload,
                      reveal_payload, shares_payload, shuffle_payload, verify_signature)

CIPHERTEXT_BYTES = 2 * POINT_BYTES


# ------------------------------------------------------------------ blobs on the wire

def pile_blob(pile: list[Ciphertext]) -> bytes:
    """A pile as sent: n × 64 bytes, A_0 B_0 A_1 B_1 …"""
    return b"".join(a + b for a, b in pile)


def read_pile(blob: object, length: int, party: int | None, what: str) -> list[Ciphertext]:
    """A pile blob of `length` cards, every point valid; else ProtocolError naming `what`."""
    if not isinstance(blob, bytes) or len(blob) != length * CIPHERTEXT_BYTES:
        size = len(blob) // CIPHERTEXT_BYTES if isinstance(blob, bytes) else "no"
        raise ProtocolError("blind_pile", f"{what} holds {size} cards where the pile has {length}")
    cts = [(blob[i:i + POINT_BYTES], blob[i + POINT_BYTES:i + CIPHERTEXT_BYTES])
           for i in range(0, len(blob), CIPHERTEXT_BYTES)]
    try:
        return blind.check_pile(cts, length, party, what)
    except BlindRefused as e:
        raise ProtocolError(e.code, f"{what}: {e.message}") from None


def split_blob(blob: object, size: int, n: int, what: str) -> list[bytes]:
    if not isinstance(blob, bytes) or len(blob) != size * n:
        raise ProtocolError("blind_shares", f"{what} must be {n} × {size} bytes")
    return [blob[i:i + size] for i in range(0, len(blob), size)]


def card_list(cards: object, what: str) -> list[int]:
    if not isinstance(cards, list) or not all(is_handle(c) for c in cards) or len(set(cards)) != len(cards):
        raise ProtocolError("blind_shares", f"{what} must name distinct cards (handles)")
    return cards


def read_action(move: object, where: str) -> list:
    """The action a move's bytes encode; else ProtocolError, `where` saying whose."""
    if not isinstance(move, bytes):
        raise ProtocolError("bad_move", f"{where}: a move is the msgpack bytes of its action")
    try:
        action = unpack(move, MAX_MESSAGE)
    except DecodeError as e:
        raise ProtocolError("bad_move", f"{where}: the move is not readable: {e.message}") from None
    if not isinstance(action, list):
        raise ProtocolError("bad_move", f"{where}: a move is a list of the options picked")
    return action


def public_events(events) -> list:
    """A move's events everyone sees. The others' texts are never read: on a blind table they may
    name a card only their seat sees, which this party cannot read."""
    return [e for e in events if e["to"] is None]


@dataclass
class Step:
    """What the replicas are in the middle of: the setup (seat None), or a move not yet applied."""
    seat: int | None = None
    action: list | None = None


# ------------------------------------------------------------------ the replica

class Replica:
    """One party's engine state and BlindStreams, with the cryptographic state of the deal.
    `holders[seat]` is the party that holds a seat's private cards (0, the server, for a computer
    seat); `me` is this party's blind.Party (None for a spectator or the audit)."""

    def __init__(self, engine, names: list[str], options: dict, header_hash: bytes, public: Streams,
                 holders: list[int], keys: list[bytes], me: blind.Party | None = None) -> None:
        self.engine, self.names, self.options = engine, names, options
        self.header_hash = header_hash
        self.streams = BlindStreams(public)
        self.state = None
        self.holders = holders
        self.keys = keys                                # per party: Y_p, checked (C16) and joined
        self.parties = len(keys)
        self.joint = keys[0]
        for key in keys[1:]:
            self.joint = crypto_core_ed25519_add(self.joint, key)
        self.me = me
        self.cts: dict[int, Ciphertext] = {}            # handle -> the last party's output at its slot
        self.parts: dict[int, dict[int, bytes]] = {}    # handle -> party -> its part D, checked
        self.items: set[int] = set()                    # every item that entered a pile in public
        self.decode: blind.Items = blind.Items(())
        self.piles: list[blind.Shuffled] = []           # the joint shuffles done, in order
        self.piling: blind.Shuffled | None = None       # the one being done
        self.shares: list[tuple[int, int, bytes]] = []  # (party, handle, part), as logged
        self.history: list[tuple[int, object]] = []     # (entry, the state from that entry on), in order
        self.my_parts: dict[int, bytes] = {}            # handle -> this party's part x·A (a handle's A never changes)
        # What private(), owed(), open_to() and the last attempt() found, until the state, the
        # shares or the dealt cards change: the server asks after every input
        # (BlindServerExchange.owed), most often about nothing new, and tries each move twice
        # (to refuse it at once, then to apply it).
        self._found: dict[tuple, object] = {}
        # Inside tentatively(): per share added, (card, party, the card's item in sight before, whether
        # it was open to all before), to undo at the end.
        self._undo: list[tuple[int, int, int | None, bool]] | None = None

    # ------------------------------------------------------------ steps of the rules

    def attempt(self, step: Step):
        """The step tried on a copy: (state after it, its events); raises Unshuffled or Unopened
        for what the parties must do first, IllegalAction when the rules refuse the move."""
        tried: Any = self._found.get(("attempt",))
        if tried is not None and tried[0] is step:   # the same step, with nothing changed since
            if isinstance(tried[1], Exception):
                raise tried[1]
            return tried[1]
        result: tuple[Any, list]
        try:
            if step.seat is None:
                result = self.engine.setup(self.names, self.options, self.streams), []
            else:
                trial = self.engine.copy(self.state)
                result = trial, self.engine.apply(trial, step.seat, step.action, self.streams)
        except (Unshuffled, Unopened, IllegalAction) as e:
            self._found[("attempt",)] = (step, e)
            raise
        self._found[("attempt",)] = (step, result)
        return result

    def asked(self, step: Step) -> tuple | None:
        """What the step needs next: ("shuffle", name, idx, items), ("open", cards), or None when it
        goes through now."""
        try:
            self.attempt(step)
        except Unshuffled as need:
            return ("shuffle", need.name, need.idx, need.items)
        except Unopened as need:
            return ("open", need.cards)
        return None

    def settle(self, state, at: int) -> None:
        """The state from entry `at` on (the move's entry, or the one that completed the setup).
        States are never changed once made (a step is applied to a copy), so each is kept as it was."""
        self.state = state
        self.history.append((at, state))
        self._found.clear()

    def forget_before(self, at: int) -> None:
        """Drop the states no move can be checked against any more: a move may be signed no
        earlier than its seat's own previous move (§9's rule 1), so once every seat has moved at
        or after entry `at`, only the state standing at `at` and the later ones are asked for."""
        keep = next((i for i in range(len(self.history) - 1, -1, -1) if self.history[i][0] <= at), 0)
        del self.history[:keep]

    def state_at(self, at: int):
        """The state as it stood just after entry `at` (None before the setup was done)."""
        return next((state for start, state in reversed(self.history) if start <= at), None)

    def same_question(self, seat: int, seen: int, now: int) -> bool | None:
        """§9's rule 3: whether the seat is asked just after entry `now` what it was asked just after
        entry `seen` (False when it was asked nothing then). None when this party cannot tell: the
        state changed in between, and the question names cards this party does not see."""
        before, after = self.state_at(seen), self.state_at(now)
        if before is None or seat not in self.engine.to_act(before):
            return False
        if before is after:
            return True
        try:
            return self.engine.prompt(before, seat) == self.engine.prompt(after, seat)
        except Hidden:
            return None

    def private(self) -> dict[int, int]:
        """Every hidden card a seat may look at now: handle -> seat (the same map until the state
        changes: read it, never change it)."""
        found = self._found.get(("private",))
        if found is None:
            found = {} if self.state is None else {
                c: seat for seat in range(len(self.names)) for c in self.private_cards(seat) if is_handle(c)}
            self._found[("private",)] = found
        return found  # type: ignore[return-value]

    def private_cards(self, seat: int) -> list:
        """The engine's private_cards of the seat now (read it, never change it)."""
        found = self._found.get(("cards", seat))
        if found is None:
            found = self._found[("cards", seat)] = list(self.engine.private_cards(self.state, seat))
        return found  # type: ignore[return-value]

    def owed(self, party: int) -> list[int]:
        """The cards private to another party's seat that `party` has not shared yet."""
        found = self._found.get(("owed", party))
        if found is None:
            found = sorted(c for c, seat in self.private().items()
                           if self.holders[seat] != party and party not in self.parts.get(c, ()))
            self._found[("owed", party)] = found
        return list(found)  # type: ignore[call-overload]

    def missing(self, cards) -> dict[int, list[int]]:
        """Per party, the cards among these whose share it has not logged."""
        out: dict[int, list[int]] = {}
        for c in cards:
            have = self.parts.get(c, {})
            for p in range(self.parties):
                if p not in have:
                    out.setdefault(p, []).append(c)
        return out

    def sees(self, seat: int) -> bool:
        """Whether this party sees every card private to `seat` (its prompt can be made)."""
        return self.state is not None and self.streams.sight.knows(self.private_cards(seat))

    def open_to(self, seat: int) -> bool:
        """Whether the log holds every share its holder needs to see the seat's private cards."""
        found = self._found.get(("open_to", seat))
        if found is None:
            others = set(range(self.parties)) - {self.holders[seat]}
            found = all(others <= self.parts.get(c, {}).keys() for c in self.private_cards(seat) if c in self.cts)
            self._found[("open_to", seat)] = found
        return found  # type: ignore[return-value]

    # ------------------------------------------------------------ the deal

    def begin_pile(self, name: str, idx: int, items) -> list[Ciphertext]:
        """Party 0's input for the joint shuffle of pile (name, idx) of these items."""
        if self.piling is not None:
            raise ProtocolError("out_of_order", f"the pile {self.piling.name} {self.piling.idx} is being shuffled")
        if not isinstance(items, list) or not all(type(v) is int and 0 <= v < self.streams.next_handle for v in items):
            raise ProtocolError("blind_pile", "the items of a pile are manifest ids or cards dealt before")
        try:
            given = blind.pile_input(items, self.joint, self.cts)
        except (BlindRefused, ValueError) as e:
            raise ProtocolError("blind_pile", str(e)) from None
        self.piling = blind.Shuffled(name, idx, list(items), [])
        return given

    def pile_so_far(self) -> list[Ciphertext]:
        """What the next party of the shuffle being done takes its step on."""
        assert self.piling is not None
        if self.piling.outputs:
            return list(self.piling.outputs[-1])
        return blind.pile_input(self.piling.items, self.joint, self.cts)

    def my_step(self) -> list[Ciphertext]:
        """This party's step of the shuffle being done."""
        assert self.me is not None and self.piling is not None, "a party's step, of a shuffle under way"
        return self.me.shuffle(self.piling.name, self.piling.idx, self.pile_so_far(), self.joint)

    def add_step(self, party: int, pile: list[Ciphertext]) -> bool:
        """Party `party`'s output of the shuffle being done; True once it is the last party's and
        the pile is dealt (every replica registers it with its streams)."""
        piling = self.piling
        assert piling is not None and party == len(piling.outputs)
        outputs = [*piling.outputs, pile]
        self.piling = blind.Shuffled(piling.name, piling.idx, piling.items, outputs)
        if len(outputs) < self.parties:
            return False
        done, self.piling = self.piling, None
        self.piles.append(done)
        handles = self.streams.shuffled(done.name, done.idx, done.items)
        self.cts.update(zip(handles, pile))
        self._found.clear()
        fresh = {v for v in done.items if not is_handle(v)} - self.items
        if fresh:
            self.items |= fresh
            self.decode = blind.Items(self.items)
        return True

    def check_shares(self, party: int, cards: list[int], parts: list[bytes], proofs: list[bytes]) -> None:
        """ProtocolError unless each is party's true share (C21) of a dealt card it has not shared."""
        for card, part, proof in zip(cards, parts, proofs):
            ct = self.cts.get(card)
            if ct is None:
                raise ProtocolError("blind_handle", f"card {card} has not been dealt")
            if party in self.parts.get(card, {}):
                raise ProtocolError("blind_shared", f"party {party} has shared card {card} already")
            try:
                blind.check_share(self.header_hash, party, self.keys[party], card, ct, (part, proof))
            except BlindRefused as e:
                raise ProtocolError(e.code, e.message) from None

    def add_shares(self, party: int, cards: list[int], parts: list[bytes]) -> None:
        """Checked shares logged: a card is open to everyone once every party's part is in, and to
        this party once every other party's is (it adds its own)."""
        for card, part in zip(cards, parts):
            if self._undo is not None:
                self._undo.append((card, party, self.streams.sight.items.get(card), card in self.streams.open_to_all))
            self.parts.setdefault(card, {})[party] = part
            self.shares.append((party, card, part))
            self._open(card)
        self._found.clear()

    def _open(self, card: int) -> None:
        have = self.parts[card]
        ct = self.cts[card]
        if len(have) == self.parties:
            point = blind.open_point(ct, have.values())
            public = True
        elif self.me is not None and len(have) == self.parties - 1 and self.me.number not in have:
            point = blind.open_point(ct, [*have.values(), self.my_part(card)])
            public = False
        else:
            return
        self.opened(card, point, public)

    def opened(self, card: int, point: bytes, public: bool) -> None:
        """The card opened to the point `point`: the item it decodes to enters the sight (everyone's
        when `public`); ProtocolError when it decodes to none."""
        try:
            item = self.decode.item(point, card)
        except BlindRefused as e:
            raise ProtocolError("blind_item", f"{e.message}: a shuffle step changed it (the audit names whose)") from None
        self.streams.opened(card, item, public=public)
        self._found.clear()

    def my_part(self, card: int) -> bytes:
        """This party's part of a dealt card, computed once (a card's ciphertext never changes)."""
        assert self.me is not None
        part = self.my_parts.get(card)
        if part is None:
            part = self.my_parts[card] = self.me.part(self.cts[card])
        return part

    def my_shares(self, cards: list[int]) -> tuple[list[bytes], list[bytes]]:
        assert self.me is not None
        shares = [self.me.share(c, self.cts[c], self.my_part(c)) for c in cards]
        return [s.part for s in shares], [s.proof for s in shares]

    @contextmanager
    def tentatively(self) -> Iterator[None]:
        """Shares registered inside are taken back at the end: for trying a move with openings
        that are not in the log yet. Each share added notes what it changed, undone in reverse."""
        assert self._undo is None, "one tentative trial at a time"
        undo: list[tuple[int, int, int | None, bool]] = []
        self._undo = undo
        logged = len(self.shares)
        try:
            yield
        finally:
            self._undo = None
            sight, public = self.streams.sight.items, self.streams.open_to_all
            for card, party, item, was_public in reversed(undo):
                have = self.parts[card]
                del have[party]
                if not have:
                    del self.parts[card]
                if item is None:
                    sight.pop(card, None)
                else:
                    sight[card] = item
                if not was_public:
                    public.discard(card)
            del self.shares[logged:]
            if undo:
                self._found.clear()


# ------------------------------------------------------------------ reading a log

class LogReader:
    """Checks a blind log entry by entry and follows it with a Replica. `me` (seat, deal seed) for
    a player, None for a spectator or the audit. Every refusal is a ProtocolError whose message
    names the entry and what is wrong there; the reader is then as it was before that entry
    (except for a share whose card does not open, which breaks the match)."""

    def __init__(self, seat: int | None = None, deal_seed: bytes | None = None, *,
                 check_server: bool = True) -> None:
        self.seat = seat
        self.deal_seed = deal_seed
        self.check_server = check_server
        self.entries: list[Signed] = []
        self.header: dict = {}
        self.engine: ModuleType | None = None   # the rules of the game the header names
        self.replica: Replica | None = None     # made by the reveal set
        self.step: Step | None = None       # what the log is in the middle of
        self.open_request: tuple[Step, list[int]] | None = None
        # A move is under way in the log: it made the parties shuffle a pile or open cards, and its
        # own entry comes once they are done. Until then no seat decides on the state before it (a
        # move tried there could ask for the same pile with other cards).
        self.move_under_way = False
        self.last_move: dict[int, int] = {}  # seat -> the entry of its latest move
        self.opened_at: dict[int, int] = {}  # a player's: card -> the entry that opened it to this party
        self.deal_keys: list[tuple[bytes, bytes]] = []   # per party: (Y_p, proof)
        self.humans: list[int] = []
        self.party_of: dict[int, int] = {}
        self.forfeit: list[int] = []
        # The engine events of the latest move entry, as this replica applied it. Their words are
        # written when read: a seat's own may name cards opened to it only by later entries.
        self.events: list = []
        self.over = False                    # the game is over in the replica, or a seat forfeited
        self.ended = False                   # the final or cancel entry is in
        self.cancelled_dealt = False         # a cancel once the deal was done (the setup applied)

    @property
    def header_hash(self) -> bytes:
        return self.entries[0].hash

    @property
    def party(self) -> int | None:
        return None if self.seat is None else self.party_of[self.seat]

    @property
    def dealt(self) -> Replica:
        """The replica, for what follows the reveal set (which makes it)."""
        assert self.replica is not None, "the reveal set makes the replica; nothing after it comes before it"
        return self.replica

    def _mine(self) -> tuple[int, blind.Party]:
        """A player's party number and its blind.Party (a player's reader has both seat and seed)."""
        assert self.seat is not None and self.deal_seed is not None, "a player's reader knows its seat and deal seed"
        party = self.party_of[self.seat]
        return party, blind.Party(self.header_hash, party, self.deal_seed)

    def seat_of(self, party: int) -> int | None:
        return None if party == 0 else self.humans[party - 1]

    def player(self, party: int) -> tuple[int, bytes]:
        """A human party's seat and the key its seat names (every human seat has one: that is what
        makes it a party of its own)."""
        seat = self.humans[party - 1]
        key = seat_keys(self.header)[seat]
        assert key is not None, "a party other than 0 is a seat with a player's key"
        return seat, key

    def _who(self, party: int) -> str:
        seat = self.seat_of(party)
        return "the server" if seat is None else f"{self.header['seats'][seat]['name']} (party {party})"

    def accept(self, msg: Signed) -> None:
        seq = len(self.entries)
        body = msg.body
        if body.get("seq") != seq:
            raise ProtocolError("bad_seq", f"entry {body.get('seq')!r} arrived where entry {seq} was expected")
        if seq == 0:
            self._header(msg)
            return
        if self.ended:
            raise ProtocolError("out_of_order", f"entry {seq} follows the final entry")
        if self.check_server:
            if not verify_signature(self.header["server_key"], SIG_ENTRY, msg.payload, msg.sig):
                raise ProtocolError("bad_signature", f"entry {seq} is not signed by the server")
            if body.get("prev") != self.entries[-1].hash:
                raise ProtocolError("bad_chain", f"entry {seq} does not follow entry {seq - 1}")
        kind = body.get("t")
        expected = {1: ("commits",), 2: ("reveals",)}.get(
            seq, ("final",) if self.over else ("shuffle", "shares", "open", "move", "forfeit"))
        if kind not in (*expected, "cancel"):
            raise ProtocolError("out_of_order", f"entry {seq} is a {short_repr(kind)} entry where "
                                f"{' or '.join(expected)} belongs")
        try:
            getattr(self, f"_{kind}")(body, seq)
        except (TypeError, LookupError, ValueError, AttributeError) as e:
            if isinstance(e, ProtocolError):
                raise
            raise ProtocolError("bad_entry", f"entry {seq} ({kind}) is malformed: {type(e).__name__}: {e}") from None
        self.entries.append(msg)

    def _header(self, msg: Signed) -> None:
        from .messages import check_header
        body = msg.body
        self.engine = check_header(body)
        if body.get("dealing") != "blind":
            raise ProtocolError("not_blind", "the header is not a blind table's")
        if not verify_signature(body["server_key"], SIG_ENTRY, msg.payload, msg.sig):
            raise ProtocolError("bad_signature", "the header is not signed by the key it names")
        self.header = body
        keys = seat_keys(body)
        self.humans = [s for s, k in enumerate(keys) if k is not None]
        self.party_of = {s: (self.humans.index(s) + 1 if s in self.humans else 0) for s in range(len(keys))}
        self.entries.append(msg)

    def _commits(self, body: dict, seq: int) -> None:
        header, n = self.header, len(self.header["seats"])
        keys = seat_keys(header)
        for field in ("commits", "sigs", "deal_keys", "deal_proofs", "deal_sigs"):
            if not isinstance(body.get(field), list) or len(body[field]) != n:
                raise ProtocolError("bad_commits", f"entry 1 must hold {field} per seat ({n})")
        if not all(isinstance(c, bytes) and len(c) == 32 for c in body["commits"]):
            raise ProtocolError("bad_commits", "a commitment is 32 bytes")
        server_key, server_proof = body.get("server_deal_key"), body.get("server_deal_proof")
        if not (isinstance(server_key, bytes) and isinstance(server_proof, bytes)):
            raise ProtocolError("bad_commits", "entry 1 must hold the server's deal key and its proof")
        deal: list[tuple[bytes, bytes]] = [(server_key, server_proof)]
        for s in range(n):
            key, sig = keys[s], body["sigs"][s]
            dk, dp, ds = body["deal_keys"][s], body["deal_proofs"][s], body["deal_sigs"][s]
            name = header["seats"][s]["name"]
            if key is None:
                if sig is not None or dk is not None or dp is not None or ds is not None:
                    raise ProtocolError("bad_commits", f"{name} is a computer seat, yet a player signed for it")
                continue
            if not isinstance(sig, bytes) or not verify_signature(
                    key, SIG_COMMIT, commit_payload(self.header_hash, s, body["commits"][s]), sig):
                raise ProtocolError("bad_signature", f"{name}'s commitment is not signed by their key")
            if not (isinstance(dk, bytes) and isinstance(dp, bytes) and isinstance(ds, bytes)) or \
                    not verify_signature(key, SIG_DEAL_KEY, deal_key_payload(self.header_hash, s, dk, dp), ds):
                raise ProtocolError("bad_signature", f"{name}'s deal key is not signed by their key (C23)")
            deal.append((dk, dp))
        try:
            blind.joint_key(self.header_hash, deal)
        except BlindRefused as e:
            raise ProtocolError(e.code, f"{e.message} ({self._who(e.party) if e.party is not None else 'a party'})") \
                from None
        if self.seat is not None:
            party, me = self._mine()
            if deal[party][0] != me.key:
                raise ProtocolError("commit_changed", "our deal key is missing or changed in the commitment set")
        self.deal_keys = deal

    def _reveals(self, body: dict, seq: int) -> None:
        header = self.header
        seeds, sigs, commits = body.get("seeds"), body.get("sigs"), self.entries[1].body["commits"]
        n = len(header["seats"])
        if not isinstance(seeds, list) or len(seeds) != n or not isinstance(sigs, list) or len(sigs) != n:
            raise ProtocolError("bad_reveals", "the reveal set must hold a seed and a signature (or none) per seat")
        keys = seat_keys(header)
        for s, (seat, seed) in enumerate(zip(header["seats"], seeds)):
            if not isinstance(seed, bytes) or player_commit(header["game_id"], seat["id"], seed) != commits[s]:
                raise ProtocolError("seed_mismatch", f"{seat['name']}'s revealed seed does not match their commitment")
            key = keys[s]
            if key is not None and not (isinstance(sigs[s], bytes) and verify_signature(
                    key, SIG_REVEAL, reveal_payload(self.header_hash, s, seed), sigs[s])):
                raise ProtocolError("bad_signature", f"{seat['name']}'s seed is not signed by their key")
        server_seed = body.get("server_seed")
        if not isinstance(server_seed, bytes) or server_commit(header["game_id"], server_seed) != header["server_commit"]:
            raise ProtocolError("seed_mismatch", "the server seed does not match the server's commitment")
        prk = master_key(self.header_hash, server_seed, [(s["id"], seed) for s, seed in zip(header["seats"], seeds)])
        me = None if self.seat is None else self._mine()[1]
        engine = self.engine
        assert engine is not None, "the header names the game"
        options = engine.INFO.check_options(header["options"])
        self.replica = Replica(engine, [s["name"] for s in header["seats"]], options, self.header_hash,
                               Streams(prk), [self.party_of[s] for s in range(n)], [k for k, _ in self.deal_keys],
                               me)
        self.step = Step()
        self._advance(seq)

    def _advance(self, seq: int) -> None:
        """The setup goes through once everything it asks for is done (at entry `seq`)."""
        r = self.dealt
        if self.step is not None and self.step.seat is None and r.asked(self.step) is None:
            r.settle(r.attempt(self.step)[0], seq)
            self.step = None

    def _shuffle(self, body: dict, seq: int) -> None:
        r = self.dealt
        party, name, idx = body.get("party"), body.get("name"), body.get("idx")
        if r.piling is None:
            if party != 0:
                raise ProtocolError("out_of_order", f"entry {seq}: a joint shuffle starts with the server's step")
            if type(name) is not str or type(idx) is not int:
                raise ProtocolError("blind_pile", f"entry {seq}: a pile is named by a name and a number")
            if self.step is not None and self.step.seat is None:
                asked = r.asked(self.step)
                if asked != ("shuffle", name, idx, tuple(body.get("items") or ())):
                    raise ProtocolError("blind_pile", f"entry {seq}: the setup does not shuffle the pile "
                                        f"{short_repr(name)} {idx!r} of these items")
            given = r.begin_pile(name, idx, body.get("items"))
            self.move_under_way = self.step is None
        else:
            given = r.pile_so_far()
            if type(party) is not int or party != len(r.piling.outputs) or name != r.piling.name \
                    or idx != r.piling.idx or "items" in body:
                raise ProtocolError("out_of_order", f"entry {seq}: the step of party {party!r} is not the next "
                                    f"one of the pile {r.piling.name} {r.piling.idx}")
        try:
            pile = read_pile(body.get("pile"), len(given), party, f"entry {seq}, {self._who(party)}'s shuffle step")
            if party > 0:
                seat, key = self.player(party)
                sig = body.get("sig")
                if not isinstance(sig, bytes) or not verify_signature(
                        key, SIG_SHUFFLE, shuffle_payload(self.header_hash, seat, name, idx, blind.pile_hash(pile)), sig):
                    raise ProtocolError("bad_signature", f"entry {seq}: {self._who(party)}'s shuffle step is not "
                                        "signed by their key (C24)")
            elif body.get("sig") is not None:
                raise ProtocolError("bad_signature", f"entry {seq}: the server's step carries a player's signature")
        except ProtocolError:
            if party == 0:
                r.piling = None
            raise
        if r.add_step(party, pile):
            self._advance(seq)

    def _shares(self, body: dict, seq: int) -> None:
        r = self.dealt
        party = body.get("party")
        if type(party) is not int or not 0 <= party < r.parties:
            raise ProtocolError("blind_shares", f"entry {seq} names no party")
        cards = card_list(body.get("cards"), f"entry {seq}'s cards")
        parts = split_blob(body.get("parts"), POINT_BYTES, len(cards), f"entry {seq}'s parts")
        proofs = split_blob(body.get("proofs"), PROOF_BYTES, len(cards), f"entry {seq}'s proofs")
        if party > 0:
            seat, key = self.player(party)
            sig = body.get("sig")
            if not isinstance(sig, bytes) or not verify_signature(
                    key, SIG_SHARES,
                    shares_payload(self.header_hash, seat, cards, parts, proofs), sig):
                raise ProtocolError("bad_signature", f"entry {seq}: {self._who(party)}'s shares are not signed by "
                                    "their key (C25)")
        elif body.get("sig") is not None:
            raise ProtocolError("bad_signature", f"entry {seq}: the server's shares carry a player's signature")
        try:
            r.check_shares(party, cards, parts, proofs)
        except ProtocolError as e:
            raise ProtocolError(e.code, f"entry {seq}: {self._who(party)}: {e.message}") from None
        known = set(r.streams.sight.items)
        r.add_shares(party, cards, parts)
        self.opened_at.update((c, seq) for c in r.streams.sight.items.keys() - known)
        if self.open_request is not None and not r.missing(self.open_request[1]):
            self.open_request = None
        self._advance(seq)

    def _open(self, body: dict, seq: int) -> None:
        r = self.dealt
        seat, cards = body.get("seat"), card_list(body.get("cards"), f"entry {seq}'s cards")
        if seat is None:
            if self.step is None or body.get("move") is not None:
                raise ProtocolError("out_of_order", f"entry {seq} opens cards for a setup that is done")
            step = self.step
            what = "the setup"
        else:
            action = read_action(body.get("move"), f"entry {seq}")
            if type(seat) is not int or not 0 <= seat < len(self.header["seats"]):
                raise ProtocolError("bad_seat", f"entry {seq} names no seat")
            step = Step(seat, action)
            what = f"the move {short_repr(action)} of {self.header['seats'][seat]['name']}"
        try:
            asked = r.asked(step)
        except IllegalAction as e:
            raise ProtocolError("blind_open", f"entry {seq}: the server asks to open cards for {what}, which the "
                                f"rules refuse: {e.message}") from None
        if asked is None or asked[0] != "open" or sorted(asked[1]) != sorted(cards):
            raise ProtocolError("blind_open", f"entry {seq}: the server asks to open {self._cards(cards)} for {what}, "
                                f"which {self._needs(asked)}: refused")
        self.open_request = (step, list(cards))
        self.move_under_way = seat is not None

    def _cards(self, cards) -> str:
        """The cards of a request in words: which are ours, which nobody holds."""
        r = self.dealt
        private = r.private()
        words = []
        for c in cards:
            holder = private.get(c)
            if holder is not None and holder == self.seat:
                words.append(f"card {c} (a card of our own hand)")
            elif holder is not None:
                words.append(f"card {c} (held by {self.header['seats'][holder]['name']})")
            elif c not in r.streams.open_to_all:
                words.append(f"card {c} (a card not dealt to anyone)")
            else:
                words.append(f"card {c}")
        return ", ".join(words)

    @staticmethod
    def _needs(asked) -> str:
        if asked is None:
            return "turns up no card"
        if asked[0] == "shuffle":
            return f"first shuffles the pile {asked[1]} {asked[2]}"
        return f"turns up {', '.join(f'card {c}' for c in asked[1])} instead"

    def _move(self, body: dict, seq: int) -> None:
        r = self.dealt
        seat = body.get("seat")
        if self.step is not None and self.step.seat is None:
            raise ProtocolError("out_of_order", f"entry {seq}: a move before the setup is done")
        if type(seat) is not int or not 0 <= seat < len(self.header["seats"]):
            raise ProtocolError("bad_seat", f"entry {seq} names no seat")
        if r.piling is not None:
            raise ProtocolError("out_of_order", f"entry {seq}: a move in the middle of a joint shuffle")
        move = body.get("move")
        action = read_action(move, f"entry {seq}")
        assert isinstance(move, bytes)   # read_action refuses anything else
        name = self.header["seats"][seat]["name"]
        key = seat_keys(self.header)[seat]
        if body.get("bot") is True:
            if key is not None or "sig" in body or "seen" in body:
                raise ProtocolError("bad_move", f"entry {seq}: the server made a move at {name}'s seat, "
                                    "which is a player's: the player never signed it")
        else:
            seen, sig = body.get("seen"), body.get("sig")
            if key is None:
                raise ProtocolError("bad_move", f"entry {seq}: {name} is a computer seat")
            if type(seen) is not int or not isinstance(sig, bytes):
                raise ProtocolError("bad_signature", f"entry {seq}: {name}'s move carries no signature")
            previous = self.last_move.get(seat, 2)
            if not previous <= seen < seq:
                raise ProtocolError("bad_signature", f"entry {seq}: {name} signed this move having seen entry "
                                    f"{seen}, which is not between their previous move (entry {previous}) and it")
            if not verify_signature(key, SIG_MOVE, move_payload(self.header_hash, seat, self.entries[seen].hash, move),
                                    sig):
                raise ProtocolError("bad_signature", f"entry {seq}: {name} never signed this move here")
            if r.same_question(seat, seen, seq - 1) is False:   # None: the audit's full sight tells
                raise ProtocolError("stale_move", f"entry {seq}: {name} signed this move for the question of entry "
                                    f"{seen}, and was asked another by the time it was played")
            if seat == self.seat:
                unseen = [c for c in r.engine.private_cards(r.state_at(seen), seat)
                          if is_handle(c) and self.opened_at.get(c, seq) > seen]
                if unseen:
                    raise ProtocolError("blind_unseen", f"entry {seq}: our move, signed at entry {seen}, when "
                                        f"{', '.join(f'card {c}' for c in unseen)} of our hand was not yet open to us")
        try:
            state, events = r.attempt(Step(seat, action))
        except IllegalAction as e:
            raise ProtocolError("illegal_move", f"entry {seq}: {name}'s move {short_repr(action)} is not legal: "
                                f"{e.message}") from None
        except (Unopened, Unshuffled) as e:
            raise ProtocolError("blind_open", f"entry {seq}: {name}'s move was applied before all it needs was "
                                f"done ({e})") from None
        shown = public_events(events)
        if (events_digest(shown) if shown else None) != body.get("events"):
            raise ProtocolError("bad_events", f"entry {seq}: the public events differ from this replica's")
        r.settle(state, seq)
        self.move_under_way = False
        self.events = events
        self.last_move[seat] = seq
        # A move is checked against the states from its seat's previous move on: the older ones go.
        r.forget_before(min((self.last_move.get(s, 2) for s in self.humans), default=seq))
        self.open_request = None
        if not r.engine.to_act(state):
            self.over = True

    def _forfeit(self, body: dict, seq: int) -> None:
        seats = body.get("seats")
        if not isinstance(seats, list) or not seats or not all(s in self.humans for s in seats) or \
                len(set(seats)) != len(seats):
            raise ProtocolError("bad_forfeit", f"entry {seq}: a forfeit names human seats")
        self.forfeit = sorted(seats)
        self.over = True

    def _cancel(self, body: dict, seq: int) -> None:
        """A cancel. Once the deal is done it reveals the server's deal seed, and no player's."""
        dealt = self.replica is not None and self.replica.state is not None
        seeds = body.get("deal_seeds")
        if dealt:
            r = self.dealt
            if not (isinstance(seeds, list) and len(seeds) == r.parties and all(s is None for s in seeds[1:])):
                raise ProtocolError("bad_cancel", f"entry {seq} must hold the server's deal seed and no player's")
            if not (isinstance(seeds[0], bytes) and len(seeds[0]) == SEED_BYTES) or \
                    blind.Party(self.header_hash, 0, seeds[0]).key != r.keys[0]:
                raise ProtocolError("bad_cancel", f"entry {seq}: the server's deal seed does not give its deal key")
        elif seeds is not None:
            raise ProtocolError("bad_cancel", f"entry {seq}: a cancel before the deal is done reveals no deal seed")
        self.cancelled_dealt = dealt
        self.ended = True

    def _final(self, body: dict, seq: int) -> None:
        r = self.dealt
        seeds, sigs = body.get("deal_seeds"), body.get("deal_seed_sigs")
        if body.get("forfeit", []) != self.forfeit:
            raise ProtocolError("bad_final", f"entry {seq}: the seats that forfeited are not the forfeit entry's")
        if not isinstance(seeds, list) or len(seeds) != r.parties or not isinstance(sigs, list) or len(sigs) != r.parties:
            raise ProtocolError("bad_final", f"entry {seq} must hold a deal seed and a signature (or none) per party")
        for p, (seed, sig) in enumerate(zip(seeds, sigs)):
            seat = self.seat_of(p)
            if seed is None:
                if seat not in self.forfeit:
                    raise ProtocolError("bad_final", f"entry {seq} lacks the deal seed of {self._who(p)}")
                continue
            if not (isinstance(seed, bytes) and len(seed) == SEED_BYTES) or \
                    blind.Party(self.header_hash, p, seed).key != r.keys[p]:
                raise ProtocolError("bad_final", f"entry {seq}: the deal seed of {self._who(p)} does not give their "
                                    "deal key")
            if p > 0 and not (isinstance(sig, bytes) and verify_signature(
                    self.player(p)[1], SIG_DEAL_SEED, deal_seed_payload(self.header_hash, self.player(p)[0], seed),
                    sig)):
                raise ProtocolError("bad_signature", f"entry {seq}: the deal seed of {self._who(p)} is not signed "
                                    "by their key (C26)")
        result = self.result()
        if body.get("scores") != [sc["total"] for sc in result["scores"]] or body.get("winners") != result["winners"]:
            raise ProtocolError("bad_final", f"entry {seq}: the scores or winners differ from the replay's")
        self.ended = True
        if self.seat is not None and None not in seeds:
            self._open_own(seeds)

    def _open_own(self, seeds: list[bytes]) -> None:
        """The game over, nobody shares a card any more: the cards the last moves dealt this party's
        seat are opened to it with every party's deal seed, which the final entry reveals, so that
        its person reads what the last moves told it."""
        r = self.dealt
        parties = [blind.Party(self.header_hash, p, seed) for p, seed in enumerate(seeds)]
        for card in r.engine.private_cards(r.state, self.seat):
            if is_handle(card) and not r.streams.sight.knows([card]):
                ct = r.cts[card]
                r.opened(card, blind.open_point(ct, [p.part(ct) for p in parties]), public=False)

    def result(self):
        from games.contract import forfeit_result
        r = self.dealt
        result = r.engine.result(r.state)
        return forfeit_result(result, self.forfeit) if self.forfeit else result

