"""The exchange of a blind table (docs/fairness.md §10.6) as two plain state machines, no sockets.

`BlindServerExchange` runs a match in which nobody, the server included, knows a hidden card
until it is opened to them: it signs and chains every entry of the public log, drives its own
replica (protocol.blind_replica), makes its own shuffle steps and shares at once, and waits for
what the players' clients owe (`owed()`). `BlindPlayerExchange` is one player's (or a
spectator's) side: it checks every entry as it arrives with its own replica and says what to
send in reaction; `move(action)` makes the message of a move.

Client messages are maps with a "type", exactly as protocol/wire.py carries them (a driver adds
only an act's command id):
  commit     commitment, sig (C11), deal_key, deal_proof, deal_sig (C23)
  reveal     seed, sig (C12)
  shuffle    name, idx, pile (n × 64 bytes), sig (C24)
  shares     cards (handles), parts (n × 32 bytes), proofs (n × 64 bytes), sig (C25)
  act        seq (the entry the move was decided at), move (the action's msgpack bytes), sig
             (C10), openings (a shares map without "type", or None)
  deal_seed  seed, sig (C26)
"""
from __future__ import annotations

import secrets

from games.blind import Unopened, Unshuffled
from games.choice import out_of_turn
from games.contract import forfeit_result
from games.errors import IllegalAction

from . import blind
from .blind import POINT_BYTES, PROOF_BYTES, SEED_BYTES, BlindRefused
from .codec import pack
from .exchange import ServerExchange
from .fairness import PROTOCOL, Streams, master_key, player_commit
from .messages import ProtocolError, Signed, events_digest
from .blind_replica import (LogReader, Replica, Step, card_list, pile_blob, public_events, read_action, read_pile,
                            split_blob)
from .signing import (SIG_COMMIT, SIG_DEAL_KEY, SIG_DEAL_SEED, SIG_MOVE, SIG_REVEAL, SIG_SHARES, SIG_SHUFFLE,
                      Signer, commit_payload, deal_key_payload, deal_seed_payload, move_payload, reveal_payload,
                      shares_payload, shuffle_payload)
from .shown import Shown
from .verify import Report, verify


class BlindServerExchange(ServerExchange):
    """The server's side of a blind match. Each method returns the signed entries to send to
    everyone, in order; a refused message raises ProtocolError (IllegalAction for a move the rules
    refuse) and changes nothing. A player's move that arrives while the server waits for the
    clients (a shuffle step, shares) is queued and applied, in order, once the wait is over; one
    refused then is kept in `dropped` as (seat, error), for the driver to tell its player."""

    HEADER_EXTRA = {"dealing": "blind"}

    def __init__(self, game: str, options: dict, seats: list[tuple[str, str]], signer: Signer, *,
                 players: list[bytes | str], deal_seed: bytes | None = None, game_id: bytes | None = None,
                 server_seed: bytes | None = None, rated: bool = False, started: int | None = None) -> None:
        super().__init__(game, options, seats, signer, game_id=game_id, server_seed=server_seed, players=players,
                         rated=rated, started=started, protocol=PROTOCOL)
        self.deal_seed = deal_seed or secrets.token_bytes(SEED_BYTES)
        self.me = blind.Party(self.header.hash, 0, self.deal_seed)
        self.humans = [s for s, k in enumerate(self.keys) if k is not None]
        self.party_of = {s: (self.humans.index(s) + 1 if s in self.humans else 0) for s in range(len(seats))}
        self.parties = 1 + len(self.humans)
        self.deal_keys: list[tuple[bytes, bytes, bytes] | None] = [None] * len(seats)
        self.replica: Replica | None = None
        self.step: Step | None = None              # a step under way: the setup, or a move
        self.step_entry: dict = {}                 # the move entry it will make
        self.waiting: tuple | None = None          # ("shuffle", party) or ("open", cards)
        self.queue: list[tuple] = []
        self.dropped: list[tuple[int, Exception]] = []
        self.may_share: list[set[int]] = [set() for _ in range(self.parties)]
        self.granted: dict[int, int] = {}          # the private cards (card -> seat) may_share holds already
        self._owed: tuple[tuple, dict[int, list[str]]] | None = None   # owed(), with what it was found for
        self.deal_seeds: list[bytes | None] = [self.deal_seed] + [None] * len(self.humans)
        self.deal_seed_sigs: list[bytes | None] = [None] * self.parties
        self.forfeited: list[int] = []
        # The engine events of every move applied since the driver last emptied it, in order: one
        # message may apply several (moves queued while the server waited for the clients).
        self.last_events: list[dict] = []

    # ------------------------------------------------------------ commitments and seeds

    def receive(self, seat: int, msg: dict) -> list[Signed]:
        """A client's message (a map with "type", module docstring), from the player at `seat`."""
        self._check_seat(seat)
        if self.keys[seat] is None:
            raise ProtocolError("not_a_player", f"seat {seat} is a computer seat: no client speaks for it")
        if not isinstance(msg, dict):
            raise ProtocolError("bad_message", "a message is a map")
        kind = msg.get("type")
        try:
            if kind == "commit":
                return self.commit(seat, msg["commitment"], msg["sig"], msg["deal_key"], msg["deal_proof"], msg["deal_sig"])
            if kind == "reveal":
                return self.reveal(seat, msg["seed"], msg["sig"])
            if kind == "shuffle":
                return self.shuffle_step(seat, msg["name"], msg["idx"], msg["pile"], msg["sig"])
            if kind == "shares":
                return self.shares(seat, msg["cards"], msg["parts"], msg["proofs"], msg["sig"])
            if kind == "act":
                return self.act_signed(seat, msg["seq"], msg["move"], msg["sig"], msg.get("openings"))
            if kind == "deal_seed":
                return self.reveal_deal_seed(seat, msg["seed"], msg["sig"])
        except KeyError as e:
            raise ProtocolError("bad_message", f"a {kind} message needs its field {e}") from None
        raise ProtocolError("bad_message", f"unknown message {kind!r}")

    def commit(self, seat: int, commitment: bytes, sig: bytes | None = None, deal_key: bytes | None = None,
               deal_proof: bytes | None = None, deal_sig: bytes | None = None) -> list[Signed]:
        """A seat's commitment (C11) with, for a player's seat, its deal key, the key's proof
        (C16) and its signature of both (C23); a computer seat's (all None) is the server's."""
        self._check_phase("commit", "A commitment")
        self._check_seat(seat)
        if self.keys[seat] is None:
            if deal_key is not None or deal_proof is not None or deal_sig is not None or sig is not None:
                raise ProtocolError("not_a_player", f"seat {seat} is a computer seat: the server commits for it")
        elif self.commits[seat] is None:
            party = self.party_of[seat]
            try:
                key = blind.check_point(deal_key, "the deal key", party)
            except BlindRefused as e:
                raise ProtocolError(e.code, e.message) from None
            if not isinstance(deal_proof, bytes) or not blind.key_proof_valid(self.header.hash, party, key, deal_proof):
                raise ProtocolError("blind_key_proof", "the proof of the deal key does not hold")
            if sig is None or not isinstance(deal_sig, bytes):
                raise ProtocolError("bad_signature", "a player's commitment and deal key are signed by its player")
            self._check_player_sig(seat, deal_sig, SIG_DEAL_KEY,
                                   deal_key_payload(self.header.hash, seat, key, deal_proof), "the deal key")
            dealt = (key, deal_proof, deal_sig)
        old = self.commits[seat]
        out = super().commit(seat, commitment, sig)
        if old is None and self.keys[seat] is not None:
            self.deal_keys[seat] = dealt
        if out:   # the parent made the set: make it again with the deal keys
            self.log.pop()
            self.sent.pop()
            out = [self._append({"t": "commits", "commits": list(self.commits), "sigs": list(self.commit_sigs),
                                 "deal_keys": [d and d[0] for d in self.deal_keys],
                                 "deal_proofs": [d and d[1] for d in self.deal_keys],
                                 "deal_sigs": [d and d[2] for d in self.deal_keys],
                                 "server_deal_key": self.me.key, "server_deal_proof": self.me.key_proof})]
        return out

    def reveal(self, seat: int, seed: bytes, sig: bytes | None = None) -> list[Signed]:
        """A seat's seed (C12). With the last one, the reveal set (and the server seed: on a blind
        table it draws only what is public at once), then the deal begins."""
        self._check_seat(seat)
        if self.keys[seat] is not None and sig is None:   # no seed is ever made for a person here
            raise ProtocolError("bad_signature", "a player's seed is signed by its player")
        if not self._take_seed(seat, seed, sig):
            return []
        out = [self._append({"t": "reveals", "seeds": list(self.seeds), "sigs": list(self.seed_sigs),
                             "server_seed": self.server_seed})]
        seeds = [s for s in self.seeds if s is not None]   # every one, by now
        prk = master_key(self.header.hash, self.server_seed, [(pid, s) for (pid, _), s in zip(self.seats, seeds)])
        keys = [self.me.key] + [self._deal_key(s) for s in self.humans]
        self.replica = Replica(self.engine, [name for _, name in self.seats], self.options, self.header.hash,
                               Streams(prk), [self.party_of[s] for s in range(len(self.seats))], keys, self.me)
        self.phase = "play"
        self.step = Step()
        return out + self._drive()

    def _deal_key(self, seat: int) -> bytes:
        dealt = self.deal_keys[seat]
        assert dealt is not None, "every player's commitment, in before the reveals, carries its deal key"
        return dealt[0]

    @property
    def _dealt(self) -> Replica:
        """The replica, made with the reveal set: every step of play has one."""
        assert self.replica is not None, "play begins with the reveal set, which makes the replica"
        return self.replica

    # ------------------------------------------------------------ the deal

    def _drive(self) -> list[Signed]:
        """Carry the step under way as far as it goes without the clients, then the queue."""
        out: list[Signed] = []
        r = self._dealt
        while self.step is not None and self.waiting is None:
            try:
                state, events = r.attempt(self.step)
            except Unshuffled as need:
                given = r.begin_pile(need.name, need.idx, list(need.items))
                pile = self.me.shuffle(need.name, need.idx, given, r.joint)
                out.append(self._append({"t": "shuffle", "name": need.name, "idx": need.idx, "party": 0,
                                         "pile": pile_blob(pile), "sig": None, "items": list(need.items)}))
                if not r.add_step(0, pile):
                    self.waiting = ("shuffle", 1)
                continue
            except Unopened as need:
                missing = r.missing(need.cards)
                if set(missing) - {0}:
                    seat = self.step.seat
                    out.append(self._append({"t": "open", "seat": seat,
                                             "move": None if seat is None else pack(self.step.action),
                                             "cards": list(need.cards)}))
                    self.waiting = ("open", list(need.cards))
                if 0 in missing:
                    out += self._own_shares(missing[0])
                continue
            if self.step.seat is not None:
                entry = self.step_entry
                shown = public_events(events)
                if shown:
                    entry["events"] = events_digest(shown)
                out.append(self._append(entry))
                self.last_move[self.step.seat] = len(self.log) - 1
                self.last_events = self.last_events + list(events)
            r.settle(state, len(self.log) - 1)
            # A server keeps many tables: only the states a move may still be signed on stay.
            r.forget_before(min((max(2, self.last_move[s]) for s in self.humans), default=len(self.log) - 1))
            self.step, self.step_entry = None, {}
            if not self.engine.to_act(r.state):
                self.phase = "seeds"
                out += self._final_if_ready()
            else:
                out += self._private_shares()
        while self.step is None and self.queue and self.phase == "play":
            args = self.queue.pop(0)
            try:
                out += self.act_signed(*args)
            except (ProtocolError, IllegalAction) as e:
                self.dropped.append((args[0], e))
        return out

    def _own_shares(self, cards: list[int]) -> list[Signed]:
        r = self._dealt
        parts, proofs = r.my_shares(cards)
        r.add_shares(0, cards, parts)
        entry = self._append({"t": "shares", "party": 0, "cards": list(cards), "parts": b"".join(parts),
                              "proofs": b"".join(proofs), "sig": None})
        self._open_done()
        return [entry]

    def _open_done(self) -> None:
        if self.waiting is not None and self.waiting[0] == "open" and not self._dealt.missing(self.waiting[1]):
            self.waiting = None

    def _private_shares(self) -> list[Signed]:
        """After a step: the server's shares of the cards now private to a player's seat, and
        which cards every party may now share."""
        r = self._dealt
        private = r.private()
        for c, seat in private.items() - self.granted.items():
            for p in range(self.parties):
                if r.holders[seat] != p:
                    self.may_share[p].add(c)
        self.granted = private
        owed = r.owed(0)
        return self._own_shares(owed) if owed else []

    def shuffle_step(self, seat: int, name: str, idx: int, pile: bytes, sig: bytes) -> list[Signed]:
        """A player's step (C19) of the joint shuffle under way, signed (C24)."""
        party = self._party(seat)
        r = self._dealt
        if self.waiting != ("shuffle", party):
            raise ProtocolError("out_of_order", f"no shuffle step of seat {seat} is awaited now")
        assert r.piling is not None
        if name != r.piling.name or idx != r.piling.idx:
            raise ProtocolError("blind_pile", f"the pile being shuffled is {r.piling.name} {r.piling.idx}")
        cts = read_pile(pile, len(r.piling.items), party, "the shuffle step")
        self._check_player_sig(seat, sig if sig is not None else b"", SIG_SHUFFLE,
                               shuffle_payload(self.header.hash, seat, name, idx, blind.pile_hash(cts)), "the step")
        out = [self._append({"t": "shuffle", "name": name, "idx": idx, "party": party, "pile": pile, "sig": sig})]
        done = r.add_step(party, cts)
        self.waiting = None if done else ("shuffle", party + 1)
        return out + self._drive()

    def shares(self, seat: int, cards: list, parts: bytes, proofs: bytes, sig: bytes) -> list[Signed]:
        """A player's decryption shares (C21), signed (C25): of cards private to another seat, or
        asked for by the `open` under way. Shares that crossed the move ending the game were owed
        when sent, but no card need be seen once it is over: refused as `late`, which a driver
        need not tell the client (TableCore.deliver drops them)."""
        if self.phase in ("seeds", "over") and seat in self.humans:
            raise ProtocolError("late", "the game is over: no card needs a share now")
        party = self._party(seat)
        r = self._dealt
        cards = card_list(cards, "the cards shared")
        if not cards:
            raise ProtocolError("blind_shares", "shares of no card")
        asked = set(self.waiting[1]) if self.waiting and self.waiting[0] == "open" else set()
        for c in cards:
            if c not in self.may_share[party] and c not in asked:
                raise ProtocolError("blind_shares", f"card {c} is neither private to another seat nor asked for")
        part_list = split_blob(parts, POINT_BYTES, len(cards), "the parts")
        proof_list = split_blob(proofs, PROOF_BYTES, len(cards), "the proofs")
        self._check_player_sig(seat, sig if sig is not None else b"", SIG_SHARES,
                               shares_payload(self.header.hash, seat, cards, part_list, proof_list), "the shares")
        r.check_shares(party, cards, part_list, proof_list)
        r.add_shares(party, cards, part_list)
        out = [self._append({"t": "shares", "party": party, "cards": cards, "parts": parts, "proofs": proofs,
                             "sig": sig})]
        self._open_done()
        return out + self._drive()

    def _party(self, seat: int) -> int:
        self._check_seat(seat)
        if self.keys[seat] is None:
            raise ProtocolError("not_a_player", f"seat {seat} is a computer seat")
        if self.phase != "play":
            raise ProtocolError("out_of_order", f"the match is at the {self.phase} step")
        return self.party_of[seat]

    # ------------------------------------------------------------ moves

    def prompt(self, seat: int):
        """A computer seat's prompt from the server's replica, None while it owes no decision or
        its cards are not all open to the server yet."""
        r = self.replica
        if self.phase != "play" or r is None or r.state is None or seat not in self.engine.to_act(r.state) \
                or not r.sees(seat):
            return None
        return self.engine.prompt(r.state, seat)

    def act(self, seat: int, action) -> list[Signed]:
        """A computer seat's move, made by the server (with its own openings)."""
        self._check_phase("play", "A move")
        self._check_seat(seat)
        if self.keys[seat] is not None:
            raise ProtocolError("not_a_player", f"seat {seat} is a player's: on a blind table only its "
                                "client can make its moves")
        if self.step is not None:
            raise ProtocolError("busy", "the server's previous step is under way")
        step = Step(seat, list(action))
        self._trial(step)
        self.step, self.step_entry = step, {"t": "move", "seat": seat, "bot": True, "move": pack(list(action))}
        return self._drive()

    def _trial(self, step: Step) -> None:
        """IllegalAction now, not after the clients were asked, for a move the rules refuse."""
        try:
            self._dealt.attempt(step)
        except (Unshuffled, Unopened):
            pass

    def act_signed(self, seat: int, seen: int, move: bytes, sig: bytes, openings: dict | None = None) -> list[Signed]:
        """A player's move (C10), with the shares (C25) of its own cards the move turns up."""
        self._check_phase("play", "A move")
        party = self._party(seat)
        if type(seen) is not int or not max(2, self.last_move[seat]) <= seen < len(self.log):
            raise ProtocolError("stale", f"a move decided at entry {seen!r} cannot follow this seat's latest "
                                         f"move (entry {self.last_move[seat]}) at entry {len(self.log)}")
        if not isinstance(move, bytes) or not isinstance(sig, bytes):
            raise ProtocolError("bad_move", "a move is the msgpack bytes of its action, signed")
        self._check_player_sig(seat, sig, SIG_MOVE, move_payload(self.header.hash, seat, self.log[seen].hash, move),
                               "the move")
        action = read_action(move, "the move")
        if self.step is not None:
            self.queue.append((seat, seen, move, sig, openings))
            return []
        r = self._dealt
        waiting = self.engine.to_act(r.state)
        if seat not in waiting:     # said as the rules say it, before any question of staleness
            raise out_of_turn(False, [name for _, name in self.seats], seat, waiting)
        # §9's rule 3, as far as the server can tell: where the state changed since `seen` and the
        # question names cards it does not see, the move may answer another question: refused too.
        if r.same_question(seat, seen, len(self.log) - 1) is not True:
            raise ProtocolError("stale", f"the move was decided at entry {seen}, and the moves since may have "
                                         f"changed the question of seat {seat}: decide again on the latest entry")
        step = Step(seat, action)
        opened: tuple[list[int], list[bytes], list[bytes], bytes] | None = None
        if openings:
            cards = card_list(openings.get("cards"), "the openings")
            parts = split_blob(openings.get("parts"), POINT_BYTES, len(cards), "the openings' parts")
            proofs = split_blob(openings.get("proofs"), PROOF_BYTES, len(cards), "the openings' proofs")
            own = {c for c, s in r.private().items() if s == seat}
            if not set(cards) <= own:
                raise ProtocolError("blind_shares", "openings of cards that are not the mover's")
            self._check_player_sig(seat, openings.get("sig") or b"", SIG_SHARES,
                                   shares_payload(self.header.hash, seat, cards, parts, proofs), "the openings")
            r.check_shares(party, cards, parts, proofs)
            opened = (cards, parts, proofs, openings["sig"])
        with r.tentatively():
            # Each opening is taken where the rules turn its card up, as the mover's client found them.
            offered = dict(zip(opened[0], opened[1])) if opened else {}
            used: set[int] = set()
            while True:     # IllegalAction here: the rules refuse it, and the openings are taken back
                need = r.asked(step)
                if need is None or need[0] == "shuffle":
                    break
                take = [c for c in need[1] if c in offered and c not in used]
                if take:
                    r.add_shares(party, take, [offered[c] for c in take])
                    used |= set(take)
                    continue
                missing = r.missing(need[1])
                if set(missing) - {0}:
                    break
                r.add_shares(0, missing[0], [r.my_part(c) for c in missing[0]])
            if used != set(offered):
                raise ProtocolError("blind_shares", "openings of cards the move does not turn up")
        out = []
        if opened:
            cards, parts, proofs, osig = opened
            r.add_shares(party, cards, parts)
            out.append(self._append({"t": "shares", "party": party, "cards": cards, "parts": b"".join(parts),
                                     "proofs": b"".join(proofs), "sig": osig}))
        self.step = step
        self.step_entry = {"t": "move", "seat": seat, "seen": seen, "move": move, "sig": sig}
        return out + self._drive()

    # ------------------------------------------------------------ the end

    def reveal_deal_seed(self, seat: int, seed: bytes, sig: bytes) -> list[Signed]:
        """A player's deal seed (C26), once the game is over or a seat forfeited."""
        self._check_seat(seat)
        if self.phase != "seeds":
            raise ProtocolError("out_of_order", "a deal seed is revealed only once the game is over")
        if self.keys[seat] is None or seat in self.forfeited:
            raise ProtocolError("not_a_player", f"seat {seat} has no deal seed to reveal")
        party = self.party_of[seat]
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES or \
                blind.Party(self.header.hash, party, seed).key != self._dealt.keys[party]:
            raise ProtocolError("seed_mismatch", f"seat {seat}'s deal seed does not give its deal key")
        self._check_player_sig(seat, sig if sig is not None else b"", SIG_DEAL_SEED,
                               deal_seed_payload(self.header.hash, seat, seed), "the deal seed")
        self.deal_seeds[party], self.deal_seed_sigs[party] = seed, sig
        return self._final_if_ready()

    def _final_if_ready(self) -> list[Signed]:
        waiting = [s for s in self.humans if s not in self.forfeited and self.deal_seeds[self.party_of[s]] is None]
        if waiting or self.phase != "seeds":
            return []
        result = self.engine.result(self._dealt.state)
        if self.forfeited:
            result = forfeit_result(result, self.forfeited)
        self.phase = "over"
        self.result = result
        return [self._append({"t": "final", "deal_seeds": list(self.deal_seeds),
                              "deal_seed_sigs": list(self.deal_seed_sigs), "forfeit": list(self.forfeited),
                              "scores": [sc["total"] for sc in result["scores"]], "winners": result["winners"]})]

    def forfeit(self, seats: list[int], reason: str) -> list[Signed]:
        """End the match: these players' seats stopped answering past their grace. The forfeit
        entry, then the final one once every other player's deal seed is in."""
        if self.phase not in ("play", "seeds") or self.replica is None or self.replica.state is None:
            raise ProtocolError("out_of_order", "a seat forfeits only once the deal is done; cancel before")
        seats = sorted(set(seats))
        if not seats or not all(s in self.humans and s not in self.forfeited for s in seats):
            raise ProtocolError("bad_seat", "only a player's seat that has not forfeited can forfeit")
        self.forfeited = sorted(self.forfeited + seats)
        self.step, self.waiting, self.step_entry = None, None, {}
        self.replica.piling = None
        self.dropped += [(q[0], ProtocolError("forfeit", "the match ended")) for q in self.queue]
        self.queue = []
        self.phase = "seeds"
        return [self._append({"t": "forfeit", "seats": seats, "reason": reason})] + self._final_if_ready()

    def cancel(self, reason: str) -> list[Signed]:
        """End the match without a result: a seat that held up the deal (it never committed,
        revealed, or took its part in the setup's shuffles and openings), or the operator. Once
        the deal is done the entry also reveals the server's deal seed (the match is over: its
        cards need no secret now), so that its steps can be checked; the players' deal seeds
        stay theirs. A seat silent after the deal forfeits instead (`forfeit`)."""
        if self.phase not in ("commit", "reveal", "play", "seeds"):
            raise ProtocolError("out_of_order", f"the match is {self.phase}: it cannot be cancelled")
        entry = {"t": "cancel", "server_seed": self.server_seed, "seeds": list(self.seeds), "reason": reason}
        if self.replica is not None and self.replica.state is not None:
            entry["deal_seeds"] = [self.deal_seed] + [None] * len(self.humans)
        self.phase = "cancelled"
        self.step, self.waiting, self.step_entry = None, None, {}
        self.dropped += [(q[0], ProtocolError("cancelled", "the match was cancelled")) for q in self.queue]
        self.queue = []
        return [self._append(entry)]

    def owed(self) -> dict[int, list[str]]:
        """Per player's seat, what the server waits for from it now: "commitment", "seed",
        "shuffle step", "shares", "move", "deal seed" (a map the caller reads, never changes).
        The driver asks after every input; the answer is kept until one of what it depends on
        changes: an entry logged, a share or a move taken (logged or queued), a seed in."""
        r = self.replica
        key = (len(self.log), self.phase, self.waiting, self.step is None, len(self.queue), len(self.forfeited),
               self.commits.count(None), self.seeds.count(None), self.deal_seeds.count(None),
               None if r is None else (id(r.state), len(r.shares)))
        if self._owed is None or self._owed[0] != key:
            self._owed = (key, self._find_owed())
        return self._owed[1]

    def _find_owed(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for seat in self.humans:
            party = self.party_of[seat]
            if seat in self.forfeited:
                continue
            owes = []
            if self.phase == "commit" and self.commits[seat] is None:
                owes.append("commitment")
            elif self.phase == "reveal" and self.seeds[seat] is None:
                owes.append("seed")
            elif self.phase == "play":
                r = self._dealt
                if self.waiting == ("shuffle", party):
                    owes.append("shuffle step")
                elif self.waiting and self.waiting[0] == "open" and party in r.missing(self.waiting[1]):
                    owes.append("shares")
                elif self.waiting is None and r.owed(party):
                    owes.append("shares")
                if self.step is None and r.state is not None and seat in self.engine.to_act(r.state) and \
                        r.open_to(seat) and not any(q[0] == seat for q in self.queue):
                    owes.append("move")
            elif self.phase == "seeds" and self.deal_seeds[party] is None:
                owes.append("deal seed")
            if owes:
                out[seat] = owes
        return out


class BlindPlayerExchange:
    """One player's side of a blind match (`player_id` None: a spectator's). `receive` checks
    each entry with the replica (protocol.blind_replica.LogReader) and returns the messages to
    send in reaction (maps, module docstring), in order; a refused entry raises ProtocolError with
    a sentence for the person, and nothing is sent. At the final entry the whole record is audited
    (protocol.verify) and the report kept in `report`."""

    def __init__(self, player_id: str | None, signer: Signer | None = None, *, seed: bytes | None = None,
                 deal_seed: bytes | None = None, server_key: bytes | None = None) -> None:
        self.player_id = player_id
        self.signer = signer
        self.seed = None if player_id is None else seed or secrets.token_bytes(SEED_BYTES)
        self.deal_seed = None if player_id is None else deal_seed or secrets.token_bytes(SEED_BYTES)
        self.pinned_key = server_key
        self.reader: LogReader | None = None
        self.record: list[Signed] = []
        self.report: Report | None = None
        self.sent_steps: dict[tuple[str, int], bytes] = {}   # our shuffle steps: (name, idx) -> pile
        self.sent_shares: dict[int, bytes] = {}              # our shares: card -> part
        self.sent_moves: set[tuple[int, bytes]] = set()      # our moves: (seen, move bytes)
        self.seed_sent = False

    @property
    def seat(self) -> int | None:
        return self.reader.seat if self.reader else None

    @property
    def replica(self) -> Replica | None:
        return self.reader.replica if self.reader else None

    def receive(self, msg: Signed) -> list[dict]:
        if msg.kind != "entry":
            raise ProtocolError("not_blind", "a blind table sends no private messages")
        seq = len(self.record)
        if seq == 0:
            return self._header(msg)
        reader = self._log
        body = msg.body
        self._check_ours(body, seq)
        reader.accept(msg)
        self.record.append(msg)
        if body["t"] == "move" and body["seat"] == self.seat:
            # our next move is signed having seen this entry or a later one: the others never come
            self.sent_moves = {m for m in self.sent_moves if m[0] >= seq}
        if body["t"] in ("final", "cancel"):
            self.report = verify(self.record, Shown(reader.seat))
            return []
        return self._react(body)

    @property
    def _log(self) -> LogReader:
        """The reader of the log, made by its first entry, the header."""
        assert self.reader is not None, "the header comes first, and makes the reader"
        return self.reader

    def _player(self) -> tuple[LogReader, int, int]:
        """The reader, our seat and our party: what a player's exchange has once the header is in."""
        reader = self._log
        assert reader.seat is not None, "a player's exchange, whose seat the header names"
        return reader, reader.seat, reader.party_of[reader.seat]

    def _secrets(self) -> tuple[bytes, bytes]:
        """Our seed and deal seed (a player's exchange makes both when it is made)."""
        assert self.seed is not None and self.deal_seed is not None, "a player's exchange has its seeds"
        return self.seed, self.deal_seed

    def _header(self, msg: Signed) -> list[dict]:
        body = msg.body
        if self.pinned_key is not None and body.get("server_key") != self.pinned_key:
            raise ProtocolError("wrong_server", "the header is signed by another server key than expected")
        if self.player_id is None:
            reader = LogReader()
            reader.accept(msg)
            self.reader = reader
            self.record.append(msg)
            return []
        ids = [s.get("id") for s in body.get("seats", []) if isinstance(s, dict)]
        if self.player_id not in ids:
            raise ProtocolError("not_seated", f"player {self.player_id!r} has no seat in this match")
        seat = ids.index(self.player_id)
        seed, deal_seed = self._secrets()
        reader = LogReader(seat, deal_seed)
        reader.accept(msg)
        if self.signer is None or body["seats"][seat].get("key") != self.signer.public_key:
            raise ProtocolError("wrong_key", "the header names another key than ours for our seat")
        self.reader = reader
        self.record.append(msg)
        hh = msg.hash
        party = blind.Party(hh, reader.party_of[seat], deal_seed)
        commitment = player_commit(body["game_id"], self.player_id, seed)
        return [{"type": "commit", "commitment": commitment, "sig": self._sign(SIG_COMMIT, commit_payload(hh, seat, commitment)),
                 "deal_key": party.key, "deal_proof": party.key_proof,
                 "deal_sig": self._sign(SIG_DEAL_KEY, deal_key_payload(hh, seat, party.key, party.key_proof))}]

    def _sign(self, purpose: str, payload: bytes) -> bytes:
        assert self.signer is not None, "a player's exchange has its signer (the header names its key)"
        return self.signer.sign(purpose, payload)

    def _check_ours(self, body: dict, seq: int) -> None:
        """Our own contributions must stand in the log as we sent them."""
        if self.seat is None or self._log.replica is None:
            return
        _, seat, party = self._player()
        if body.get("t") == "shuffle" and body.get("party") == party:
            name, idx = body.get("name"), body.get("idx")
            if not (isinstance(name, str) and isinstance(idx, int)) or self.sent_steps.get((name, idx)) != body.get("pile"):
                raise ProtocolError("changed", f"entry {seq} shows a shuffle step of ours that we never sent")
        elif body.get("t") == "shares" and body.get("party") == party and isinstance(body.get("cards"), list) \
                and isinstance(body.get("parts"), bytes):
            parts = body["parts"]
            for i, c in enumerate(body["cards"]):
                if self.sent_shares.get(c) != parts[i * POINT_BYTES:(i + 1) * POINT_BYTES]:
                    raise ProtocolError("changed", f"entry {seq} shows a share of ours of card {c} that we never sent")
        elif body.get("t") == "move" and body.get("seat") == self.seat:
            if (body.get("seen"), body.get("move")) not in self.sent_moves:
                raise ProtocolError("changed", f"entry {seq} shows a move of ours that we never made")

    def _react(self, body: dict) -> list[dict]:
        if self.seat is None:
            return []
        reader, seat, party = self._player()
        seed, deal_seed = self._secrets()
        kind = body["t"]
        hh = reader.header_hash
        out = []
        if kind == "commits":
            sig = self._sign(SIG_REVEAL, reveal_payload(hh, seat, seed))
            return [{"type": "reveal", "seed": seed, "sig": sig}]
        r = reader.dealt
        if kind == "shuffle" and r.piling is not None and len(r.piling.outputs) == party:
            name, idx = r.piling.name, r.piling.idx
            pile = r.my_step()
            blob = pile_blob(pile)
            self.sent_steps[(name, idx)] = blob
            out.append({"type": "shuffle", "name": name, "idx": idx, "pile": blob,
                        "sig": self._sign(SIG_SHUFFLE, shuffle_payload(hh, seat, name, idx, blind.pile_hash(pile)))})
        wanted = []
        if kind == "open" and reader.open_request is not None:
            wanted = [c for c in reader.open_request[1] if party not in r.parts.get(c, {})]
        if r.state is not None and not reader.over:   # once it is over, no card need be seen
            wanted += [c for c in r.owed(party) if c not in wanted]
        wanted = [c for c in wanted if c not in self.sent_shares]
        if wanted:
            out.append(self._shares_message(wanted))
        if reader.over and not self.seed_sent and seat not in reader.forfeit:
            self.seed_sent = True
            out.append({"type": "deal_seed", "seed": deal_seed,
                        "sig": self._sign(SIG_DEAL_SEED, deal_seed_payload(hh, seat, deal_seed))})
        return out

    def _shares_message(self, cards: list[int]) -> dict:
        reader, seat, _ = self._player()
        parts, proofs = reader.dealt.my_shares(cards)
        self.sent_shares.update(zip(cards, parts))
        return {"type": "shares", "cards": list(cards), "parts": b"".join(parts), "proofs": b"".join(proofs),
                "sig": self._sign(SIG_SHARES, shares_payload(reader.header_hash, seat, cards, parts, proofs))}

    # ------------------------------------------------------------ what the player sees and does

    def _ready(self) -> Replica | None:
        """The replica, once the setup is done, no move is under way in the log and our seat can see
        all its cards; else None."""
        r = self.replica
        log = self.reader
        if log is None or self.seat is None or r is None or r.state is None or log.step is not None \
                or log.move_under_way or not r.sees(self.seat):
            return None
        return r

    def view(self) -> dict | None:
        """Our seat's view (a spectator's: the public one), None until our cards are all open."""
        if self.seat is None:
            r = self.replica
            return None if r is None or r.state is None else r.engine.view(r.state, None)
        ready = self._ready()
        return None if ready is None else ready.engine.view(ready.state, self.seat)

    def prompt(self) -> dict | None:
        r = self._ready()
        if r is None or self._log.over or self._log.ended or self.seat not in r.engine.to_act(r.state):
            return None
        return r.engine.prompt(r.state, self.seat)

    def move(self, action: list) -> dict:
        """The message of our move: its bytes, our signature (C10) and the shares of our own cards
        it turns up, found by trying it on a copy of the replica. IllegalAction if the rules refuse."""
        if self.prompt() is None:
            raise ProtocolError("not_your_turn", "we owe no decision now")
        reader, seat, party = self._player()
        r = reader.dealt
        step = Step(seat, list(action))
        own = {c for c, s in r.private().items() if s == seat}
        opened: list[int] = []
        with r.tentatively():
            while True:
                need = r.asked(step)     # IllegalAction: the rules refuse it, nothing is sent
                if need is None or need[0] == "shuffle":
                    break
                mine = [c for c in need[1] if c in own and party not in r.parts.get(c, {})]
                if not mine:
                    break
                parts, _ = r.my_shares(mine)
                r.add_shares(party, mine, parts)
                opened += mine
        move = pack(list(action))
        seen = len(reader.entries) - 1
        self.sent_moves.add((seen, move))
        sig = self._sign(SIG_MOVE, move_payload(reader.header_hash, seat, reader.entries[seen].hash, move))
        openings = None
        if opened:
            shares = self._shares_message(opened)
            openings = {k: v for k, v in shares.items() if k != "type"}
        return {"type": "act", "seq": seen, "move": move, "sig": sig, "openings": openings}
