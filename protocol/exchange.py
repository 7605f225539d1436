"""The fair-dealing exchange of docs/fairness.md §4 as two plain state machines, with no sockets.

`ServerExchange` runs a match: signed header, players' commitments, the commitment set, reveals,
the reveal set, then one signed, hash-chained entry per accepted move (and signed private messages
for what only one seat may see), the final entry with the server seed and every move, or a cancel
entry. `PlayerExchange` is one player's side: it checks every message as it arrives, commits, and
reveals its seed only once the full commitment set is in.

Entries are msgpack maps; hashes and signatures are over the exact bytes, never a re-encoding.
Payload fields: "t" (type), "seq" (entry number, the header is 0), "prev" (hash of the previous
entry, C1), and per type (bgfair/v2, docs/fairness.md §9):
  header   protocol, game_id, game, rules, options, manifest, seats [{id, name, key} or {id, name, bot}],
           rated, started, server_key, server_commit
  commits  commits: [commitment per seat], sigs: [the player's C11 signature, or None, per seat]
  reveals  seeds: [seed per seat], sigs: [the player's C12 signature, or None, per seat]
  move     seat, and either seen (the entry the player had seen) or bot: true (the server made the
           move); events: digest of the public events the move caused (absent when none). Never the
           move's bytes nor the player's signature: for a pick among hidden cards either would tell
           the cards to every seat (a signature can be tried against each candidate move).
  final    server_seed, moves: [[seat, action], ...], signed, scores: [total per seat], winners
  cancel   server_seed, seeds: [seed or None per seat], moves, signed, reason
           signed: per move, [move, sig] (the action's exact msgpack bytes as its player sent them,
           and the player's C10 signature over them), or None for a move the server made
A None signature is a seed the server made for the seat (a computer seat's, or a player's away).
A match of bgfair/v1, which a server of that version stored, is rebuilt as that version signed it:
seats {id, name}, no rated or started, no sigs in commits and reveals, and a move entry of only
seat and events (every move is the server's `act`: nobody but the server signed in v1).
Private messages: game_id, seq (the entry they belong to), seat, and either "dealt" (what the
game shows that seat alone at setup, e.g. its cards as ids) or "events" (the texts only that seat may see).
"""
from __future__ import annotations

import secrets
import time

import games
from games.errors import IllegalAction

from .codec import MAX_MESSAGE, DecodeError, pack, unpack
from .fairness import PROTOCOL, PROTOCOLS, Streams, master_key, player_commit, server_commit
from .messages import ProtocolError, Signed, check_header, events_digest, seat_keys, short_repr, split_events
from .signing import (PUBLIC_KEY_BYTES, SIG_COMMIT, SIG_ENTRY, SIG_MOVE, SIG_PRIVATE, SIG_REVEAL, SIGNATURE_BYTES,
                      Signer, commit_payload, move_payload, reveal_payload, verify_signature)
from .verify import Report, verify

SEED_BYTES = 32


class ServerExchange:
    """The server's side of one match. Methods return the signed messages to send, in order;
    a refused message raises ProtocolError (or IllegalAction for a bad move) and changes nothing."""

    HEADER_EXTRA: dict = {}   # header fields of a kind of table (a blind one's `dealing`)

    def __init__(self, game: str, options: dict, seats: list[tuple[str, str]], signer: Signer, *,
                 game_id: bytes | None = None, server_seed: bytes | None = None,
                 players: list[bytes | str] | None = None, rated: bool = False, started: int | None = None,
                 protocol: str = PROTOCOL) -> None:
        """`players`: per seat, its player's Ed25519 public key, or the level of the computer
        player the server plays it with (None: every seat is a computer seat). `started`: the
        unix time the match started (now when not given): a rebuilt match passes the same.
        `protocol` "bgfair/v1" rebuilds a match stored by a server of that version (a new match
        is always PROTOCOL): its header has no `players`, `rated` or `started` to give."""
        if protocol not in PROTOCOLS:
            raise ProtocolError("bad_table", f"protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
        self.v1 = protocol == "bgfair/v1"
        if self.v1 and (players is not None or rated or started is not None):
            raise ProtocolError("bad_table", "a bgfair/v1 match names no player keys, rating or start time")
        self.engine = games.get(game)
        info = self.engine.INFO
        try:
            info.check_players(len(seats))
        except IllegalAction as e:
            raise ProtocolError(e.code, e.message) from None
        if len({pid for pid, _ in seats}) != len(seats):
            raise ProtocolError("bad_table", "player ids must differ")
        players = players if players is not None else ["bot"] * len(seats)
        if len(players) != len(seats):
            raise ProtocolError("bad_table", "one player's key or computer level per seat")
        self.keys = [p if isinstance(p, bytes) else None for p in players]
        keys = [k for k in self.keys if k is not None]
        if any(len(k) != PUBLIC_KEY_BYTES for k in keys) or len(set(keys)) != len(keys) or \
                not all(isinstance(p, (bytes, str)) for p in players):
            raise ProtocolError("bad_table", f"each seat is a player's {PUBLIC_KEY_BYTES}-byte key, no key at two "
                                             "seats, or a computer player's level")
        self.signer = signer
        self.game_id = game_id or secrets.token_bytes(16)
        self.server_seed = server_seed or secrets.token_bytes(SEED_BYTES)
        self.seats = list(seats)
        try:
            self.options = info.check_options(options)
        except IllegalAction as e:
            raise ProtocolError(e.code, e.message) from None
        self.commits: list[bytes | None] = [None] * len(seats)
        self.seeds: list[bytes | None] = [None] * len(seats)
        self.commit_sigs: list[bytes | None] = [None] * len(seats)
        self.seed_sigs: list[bytes | None] = [None] * len(seats)
        self.last_move: list[int] = [0] * len(seats)   # the entry of each seat's latest move
        # Every move so far, each [seat, action] packed, or [seat, action, move bytes, signature]
        # for a player's move (kept for the final entry only): a server holds hundreds of matches,
        # and lists a move would be walked by every pass of its garbage collector (server/heap.py).
        self.packed_moves: list[bytes] = []
        self.state = None
        self.streams: Streams | None = None
        self.phase = "commit"
        self.last_events: list[dict] = []   # the engine events of the latest move, for the caller
        self.log: list[Signed] = []         # the public entries: the hash chain
        self.sent: list[Signed] = []        # every message, entries and private ones, in order
        # The fields in this order: a rebuilt header must pack to the same bytes.
        header = {"t": "header", "protocol": protocol, "game_id": self.game_id, "game": game,
                  "rules": info.rules_version, "options": self.options,
                  "manifest": self.engine.manifest_hash(self.options)}
        if self.v1:
            header["seats"] = [{"id": pid, "name": name} for pid, name in seats]
        else:
            header["seats"] = [{"id": pid, "name": name, **({"key": p} if isinstance(p, bytes) else {"bot": p})}
                               for (pid, name), p in zip(seats, players)]
            header.update(rated=rated, started=int(time.time()) if started is None else started)
        self._append({**header, **self.HEADER_EXTRA, "server_key": signer.public_key,
                      "server_commit": server_commit(self.game_id, self.server_seed)})

    @property
    def moves(self) -> list[list]:
        """Every move so far: [seat, action]."""
        return [unpack(m)[:2] for m in self.packed_moves]

    def _ended(self) -> dict:
        """What the final and cancel entries list of the moves: each [seat, action], and in
        bgfair/v2 each player's move as signed, [move bytes, signature] (None: the server's)."""
        moves = [unpack(m) for m in self.packed_moves]
        out: dict = {"moves": [m[:2] for m in moves]}
        if not self.v1:
            out["signed"] = [m[2:] or None for m in moves]
        return out

    @property
    def header(self) -> Signed:
        return self.log[0]

    def _append(self, body: dict) -> Signed:
        body = {**body, "seq": len(self.log)}
        if self.log:
            body["prev"] = self.log[-1].hash
        payload = pack(body)
        entry = Signed("entry", payload, self.signer.sign(SIG_ENTRY, payload), body)
        self.log.append(entry)
        self.sent.append(entry)
        return entry

    def _private(self, seat: int, content: dict) -> Signed:
        body = {"t": "private", "game_id": self.game_id, "seq": len(self.log) - 1, "seat": seat, **content}
        payload = pack(body)
        message = Signed("private", payload, self.signer.sign(SIG_PRIVATE, payload), body)
        self.sent.append(message)
        return message

    def _check_phase(self, phase: str, what: str) -> None:
        if self.phase != phase:
            raise ProtocolError("out_of_order", f"{what} is not accepted now: the match is at the {self.phase} step")

    def _check_seat(self, seat) -> None:
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise ProtocolError("bad_seat", f"there is no seat {seat!r}")

    def _check_player_sig(self, seat: int, sig, purpose: str, payload: bytes, what: str) -> None:
        """A player's signature (C10–C12) by the key of its seat; None is the server's own step."""
        if sig is None:
            return
        if self.v1:
            raise ProtocolError("not_a_player", "in a bgfair/v1 match nobody but the server signs")
        key = self.keys[seat]
        if key is None:
            raise ProtocolError("not_a_player", f"seat {seat} is a computer seat: no player signs for it")
        if not isinstance(sig, bytes) or len(sig) != SIGNATURE_BYTES:
            raise ProtocolError("bad_signature", f"a signature is {SIGNATURE_BYTES} bytes")
        if not verify_signature(key, purpose, payload, sig):
            raise ProtocolError("bad_signature", f"{what} is not signed by the key of seat {seat}")

    def commit(self, seat: int, commitment: bytes, sig: bytes | None = None) -> list[Signed]:
        """A seat's commitment, signed by its player (C11), or made by the server (sig None)."""
        self._check_phase("commit", "A commitment")
        self._check_seat(seat)
        if not isinstance(commitment, bytes) or len(commitment) != 32:
            raise ProtocolError("bad_commit", "a commitment is 32 bytes")
        if self.commits[seat] is not None:
            if self.commits[seat] == commitment:
                return []  # a resent commitment changes nothing
            raise ProtocolError("already_committed", f"seat {seat} has already committed to another seed")
        self._check_player_sig(seat, sig, SIG_COMMIT, commit_payload(self.header.hash, seat, commitment),
                               "the commitment")
        self.commits[seat], self.commit_sigs[seat] = commitment, sig
        if None in self.commits:
            return []
        self.phase = "reveal"
        return [self._append({"t": "commits", "commits": list(self.commits), **self._sigs(self.commit_sigs)})]

    def _take_seed(self, seat: int, seed: bytes, sig: bytes | None) -> bool:
        """Check a seat's seed against its commitment and signature (C12) and keep it; whether
        every seat's seed is in now."""
        self._check_phase("reveal", "A seed")
        self._check_seat(seat)
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ProtocolError("bad_seed", f"a seed is {SEED_BYTES} bytes")
        if player_commit(self.game_id, self.seats[seat][0], seed) != self.commits[seat]:
            raise ProtocolError("seed_mismatch", f"seat {seat}'s seed does not match its commitment")
        self._check_player_sig(seat, sig, SIG_REVEAL, reveal_payload(self.header.hash, seat, seed), "the seed")
        self.seeds[seat], self.seed_sigs[seat] = seed, sig
        return None not in self.seeds

    def reveal(self, seat: int, seed: bytes, sig: bytes | None = None) -> list[Signed]:
        """A seat's seed, signed by its player (C12), or the server's own (sig None)."""
        if not self._take_seed(seat, seed, sig):
            return []
        seeds = [s for s in self.seeds if s is not None]
        out = [self._append({"t": "reveals", "seeds": seeds, **self._sigs(self.seed_sigs)})]
        prk = master_key(self.header.hash, self.server_seed,
                         [(pid, s) for (pid, _), s in zip(self.seats, seeds)])
        self.streams = Streams(prk)
        self.state = self.engine.setup([name for _, name in self.seats], self.options, self.streams)
        self.phase = "play"
        for seat_no in range(len(self.seats)):
            dealt = self.engine.dealt(self.state, seat_no)
            if dealt is not None:
                out.append(self._private(seat_no, {"dealt": dealt}))
        return out + self._finish_if_over()

    def _sigs(self, sigs: list[bytes | None]) -> dict:
        """The players' signatures of a commitment or reveal set (a bgfair/v1 set has none)."""
        return {} if self.v1 else {"sigs": list(sigs)}

    def act(self, seat: int, action) -> list[Signed]:
        """Apply a move the server made (a computer seat's, or one it plays for a player away or
        out of time), marked so (in bgfair/v1, every move, unmarked); raises IllegalAction (state
        unchanged) when the rules refuse it."""
        self._check_phase("play", "A move")
        return self._apply_move(seat, action, {} if self.v1 else {"bot": True})

    def act_signed(self, seat: int, seen: int, move: bytes, sig: bytes) -> list[Signed]:
        """Apply a player's move: `move` the action's msgpack bytes, signed (C10) by the seat's key
        with the hash of entry `seen`, the latest the player had seen, no older than the seat's
        own latest move (docs/fairness.md §9). Raises ProtocolError or IllegalAction, changing nothing."""
        self._check_phase("play", "A move")
        self._check_seat(seat)
        if self.v1:
            raise ProtocolError("not_a_player", "in a bgfair/v1 match nobody but the server signs")
        if self.keys[seat] is None:
            raise ProtocolError("not_a_player", f"seat {seat} is a computer seat: the server makes its moves")
        if type(seen) is not int or not max(2, self.last_move[seat]) <= seen < len(self.log):
            raise ProtocolError("stale", f"a move decided at entry {seen!r} cannot follow this seat's latest "
                                         f"move (entry {self.last_move[seat]}) at entry {len(self.log)}")
        if not isinstance(move, bytes):
            raise ProtocolError("bad_move", "a move is the msgpack bytes of its action")
        if sig is None:     # None is the server's own step, which a player's move never is
            raise ProtocolError("bad_signature", "a player's move is signed by its player")
        self._check_player_sig(seat, sig, SIG_MOVE, move_payload(self.header.hash, seat, self.log[seen].hash, move),
                               "the move")
        try:
            action = unpack(move, MAX_MESSAGE)
        except DecodeError as e:
            raise ProtocolError("bad_move", f"the move is not readable: {e.message}") from None
        if not isinstance(action, list):
            raise ProtocolError("bad_move", "a move is a list of the options picked")
        return self._apply_move(seat, action, {"seen": seen}, [move, sig])

    def _apply_move(self, seat: int, action, public: dict, signed: list | None = None) -> list[Signed]:
        """`public`: what the move entry says of who made it; `signed`: a player's [move bytes,
        signature], kept until the final or cancel entry, the first that may show them."""
        events = self.engine.apply(self.state, seat, action, self.streams)
        self.packed_moves.append(pack([seat, list(action), *(signed or [])]))
        self.last_move[seat] = len(self.log)
        move = {"t": "move", "seat": seat, **public}
        shown, private = split_events(events, len(self.seats))
        if shown:  # most answers to simultaneous decisions cause no event until the last one
            move["events"] = events_digest(shown)
        out = [self._append(move)]
        for s, mine in enumerate(private):
            if mine:
                out.append(self._private(s, {"events": mine}))
        self.last_events = events
        return out + self._finish_if_over()

    def _finish_if_over(self) -> list[Signed]:
        if self.engine.to_act(self.state):
            return []
        result = self.engine.result(self.state)
        self.phase = "over"
        return [self._append({"t": "final", "server_seed": self.server_seed, **self._ended(),
                              "scores": [sc["total"] for sc in result["scores"]],
                              "winners": result["winners"]})]

    def cancel(self, reason: str) -> list[Signed]:
        """End the match now. The server seed and the seeds received are revealed, so an abort
        after learning the deal is visible to everyone."""
        if self.phase in ("over", "cancelled"):
            raise ProtocolError("out_of_order", f"the match is already {self.phase}")
        self.phase = "cancelled"
        return [self._append({"t": "cancel", "server_seed": self.server_seed,
                              "seeds": list(self.seeds), **self._ended(), "reason": reason})]


class PlayerExchange:
    """One player's side. `receive` checks each message and returns what to send back (a
    commitment, then the seed), or None. At the final or cancel entry the whole record is
    audited (protocol.verify) and the report kept in `report`.

    With `player_id` None it is a spectator's side: the same checks of the public entries, no
    seat, no seed, nothing to send, and no private message is for it. A player's `signer` is its
    key: the header must name it for our seat, and it signs what we send (`sign_commit`,
    `sign_reveal`, `sign_move`)."""

    def __init__(self, player_id: str | None, seed: bytes | None = None, *,
                 server_key: bytes | None = None, signer: Signer | None = None) -> None:
        self.player_id = player_id
        self.signer = signer
        self.seed = None if player_id is None else seed or secrets.token_bytes(SEED_BYTES)
        self.pinned_key = server_key
        self.entries: list[Signed] = []
        self.privates: list[Signed] = []
        self.seat: int | None = None
        self.record: list[Signed] = []   # every signed message received, in order of arrival
        self.report: Report | None = None
        # The server says it committed a seed for our seat while we were away (docs/fairness.md §4:
        # a seat whose player is gone gets a server-made seed). Then the commitment set may hold
        # that one instead of ours; our seed takes no part in the deal, the others' still do.
        self.seed_made_by_server = False

    @property
    def header(self) -> dict | None:
        return self.entries[0].body if self.entries else None

    def receive(self, msg: Signed):
        if msg.kind == "private":
            self._check_private(msg)
            self.privates.append(msg)
            self.record.append(msg)
            return None
        reply = self._check_entry(msg)
        self.entries.append(msg)
        self.record.append(msg)
        if msg.body["t"] in ("final", "cancel"):
            self.report = verify(self.record)
        return reply

    def _check_entry(self, msg: Signed):
        body = msg.body
        seq = len(self.entries)
        if body["seq"] != seq:
            raise ProtocolError("bad_seq", f"entry {body['seq']} arrived where entry {seq} was expected")
        if seq == 0:
            return self._check_header(msg)
        if self.report is not None:
            raise ProtocolError("out_of_order", f"entry {seq} follows the {self.entries[-1].body['t']} "
                                                "entry, which ended the match")
        header = self.entries[0].body
        key = header["server_key"]
        if not verify_signature(key, SIG_ENTRY, msg.payload, msg.sig):
            raise ProtocolError("bad_signature", f"entry {seq} is not signed by the server")
        if body.get("prev") != self.entries[-1].hash:
            raise ProtocolError("bad_chain", f"entry {seq} does not follow entry {seq - 1}")
        kind = body["t"]
        # The order of entry types is fixed: commits, reveals, moves, then final; cancel anywhere.
        expected = {1: ("commits",), 2: ("reveals",)}.get(seq, ("move", "final"))
        if kind not in (*expected, "cancel"):
            raise ProtocolError("out_of_order", f"entry {seq} is a {kind!r} entry where "
                                f"{' or '.join(expected)} belongs")
        if kind == "move" and ("move" in body or "sig" in body):
            # everyone receives a move entry: a signed move in it would tell a hidden pick (§9)
            raise ProtocolError("shown_move", f"entry {seq} shows a player's signed move, which only the final or "
                                              "cancel entry may list")
        if kind == "commits":
            commits = body.get("commits")
            n = len(header["seats"])
            if not isinstance(commits, list) or len(commits) != n:
                raise ProtocolError("bad_commits", f"the commitment set must hold exactly {n} commitments")
            ours = False
            if self.player_id is not None:
                assert self.seat is not None and self.seed is not None, \
                    "a player has its seed from the start and its seat from the header"
                ours = commits[self.seat] == player_commit(header["game_id"], self.player_id, self.seed)
            if self.player_id is not None and not ours and not self.seed_made_by_server:
                raise ProtocolError("commit_changed", "our commitment is missing or changed in the commitment set")
            if not all(isinstance(c, bytes) and len(c) == 32 for c in commits):
                raise ProtocolError("bad_commits", "the commitment set must hold one 32-byte commitment per seat")
            # Only now may the seed leave this machine, and only if it is the one committed to.
            return self.seed if ours else None
        if kind == "reveals":
            seeds = body.get("seeds")
            commits = self.entries[1].body["commits"]
            if not isinstance(seeds, list) or len(seeds) != len(commits):
                raise ProtocolError("bad_reveals", "the reveal set does not match the commitment set")
            for i, (seat, s) in enumerate(zip(header["seats"], seeds)):
                if not isinstance(s, bytes) or player_commit(header["game_id"], seat["id"], s) != commits[i]:
                    raise ProtocolError("seed_mismatch", f"seat {i}'s revealed seed does not match its commitment")
        return None

    def _check_header(self, msg: Signed):
        body = msg.body
        info = check_header(body).INFO  # every field's type and shape; the ids of the seats differ
        if body["rules"] != info.rules_version:
            raise ProtocolError("unknown_rules", f"the match is played under rules {short_repr(body['rules'])}; this "
                                f"client plays {info.rules_version} only, so it could not audit the match")
        key = body["server_key"]
        if self.pinned_key is not None and key != self.pinned_key:
            raise ProtocolError("wrong_server", "the header is signed by another server key than expected")
        if not verify_signature(key, SIG_ENTRY, msg.payload, msg.sig):
            raise ProtocolError("bad_signature", "the header is not signed by the key it names")
        if self.player_id is None:
            return None
        ids = [s["id"] for s in body["seats"]]
        if self.player_id not in ids:
            raise ProtocolError("not_seated", f"player {self.player_id!r} has no seat in this match")
        seat = ids.index(self.player_id)
        if self.signer is not None and seat_keys(body)[seat] != self.signer.public_key:
            # our signatures would not verify under that key: the audit would blame us for it
            raise ProtocolError("wrong_key", "the header names another key than ours for our seat")
        self.seat = seat
        assert self.seed is not None, "a player has its seed from the start"
        return player_commit(body["game_id"], self.player_id, self.seed)

    def _key_and_seat(self) -> tuple[Signer, int]:
        assert self.signer is not None and self.seat is not None, \
            "only a player with a key signs, once the header has seated it"
        return self.signer, self.seat

    def sign_commit(self, commitment: bytes) -> bytes:
        """C11: our signature over our commitment."""
        signer, seat = self._key_and_seat()
        return signer.sign(SIG_COMMIT, commit_payload(self.entries[0].hash, seat, commitment))

    def sign_reveal(self, seed: bytes) -> bytes:
        """C12: our signature over our seed."""
        signer, seat = self._key_and_seat()
        return signer.sign(SIG_REVEAL, reveal_payload(self.entries[0].hash, seat, seed))

    def sign_move(self, seen: int, move: bytes) -> bytes:
        """C10: our signature over a move (its msgpack bytes) decided on the view at entry `seen`."""
        signer, seat = self._key_and_seat()
        return signer.sign(SIG_MOVE, move_payload(self.entries[0].hash, seat, self.entries[seen].hash, move))

    def _check_private(self, msg: Signed) -> None:
        if not self.entries:
            raise ProtocolError("out_of_order", "a private message before the header")
        body, header = msg.body, self.entries[0].body
        if not verify_signature(header["server_key"], SIG_PRIVATE, msg.payload, msg.sig):
            raise ProtocolError("bad_signature", "a private message is not signed by the server")
        if body.get("game_id") != header["game_id"]:
            raise ProtocolError("wrong_match", "a private message from another match")
        if self.seat is None or body.get("seat") != self.seat:
            raise ProtocolError("not_for_us", "a private message addressed to another seat")
        if body["seq"] != len(self.entries) - 1:
            raise ProtocolError("bad_seq", "a private message that does not follow the latest entry")
