"""Blind dealing (docs/fairness.md §10, constructions C14–C22): ElGamal over the Ed25519
prime-order group, joint shuffles, decryption shares with Chaum-Pedersen proofs, and the audit
that recomputes a whole deal from the parties' revealed deal seeds.

Game-agnostic: a pile is a list of items (small ints, manifest ids, below games.blind.HANDLE_BASE)
or handles of cards of earlier piles. Every group operation is libsodium's (PyNaCl's bindings),
never written here. Points and scalars are their 32-byte libsodium encodings (scalars little-endian,
always reduced below the group order L); a proof is c ‖ s, 64 bytes.

A party's only secret is its 32-byte deal seed; everything else (its key, its permutation and
re-encryption scalars for each pile, the nonces of its proofs) is derived from it, so the audit
at the end can recompute all of it from the revealed seed (§2: randomness has one source).
"""
from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_add,
    crypto_core_ed25519_scalar_mul,
    crypto_core_ed25519_scalar_negate,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)

from games.blind import HANDLE_BASE, is_handle
from games.errors import Refused

from .fairness import Stream, hkdf_expand, lp, tag, u32, u64

__all__ = [
    "POINT_BYTES", "SCALAR_BYTES", "PROOF_BYTES", "SEED_BYTES", "BASE_POINT",
    "BlindRefused", "AuditFailed",
    "Ciphertext", "Share", "Party", "Items", "Shuffled",
    "party_prk", "key_proof_valid", "joint_key", "encode", "public_ciphertext", "pile_input",
    "pile_hash", "check_point", "check_pile", "check_share", "open_point", "audit",
]

POINT_BYTES = 32
SCALAR_BYTES = 32
PROOF_BYTES = 64
SEED_BYTES = 32
_ZERO = bytes(SCALAR_BYTES)
_ONE = (1).to_bytes(SCALAR_BYTES, "little")
BASE_POINT = crypto_scalarmult_ed25519_base_noclamp(_ONE)   # G, the group's generator

_TAG_PARTY = tag("blind/party")
_TAG_KEY = tag("blind/key")
_TAG_NONCE = tag("blind/nonce")
_TAG_KEY_PROOF = tag("blind/key-proof")
_TAG_REENCRYPT = tag("blind/reencrypt")
_TAG_PILE = tag("blind/pile")
_TAG_SHARE = tag("blind/share")


class BlindRefused(Refused):
    """A message of blind dealing that is wrong: nothing was changed. `party` is the party it
    came from (or is about), when known."""

    def __init__(self, code: str, message: str, party: int | None = None) -> None:
        super().__init__(code, message)
        self.party = party


class AuditFailed(BlindRefused):
    """The end-of-match audit found a party whose logged deal does not match its revealed seed:
    `party`, the pile (`name`, `idx`) and, for a shuffle, the first wrong `slot` (or None)."""

    def __init__(self, message: str, party: int | None, name: str | None = None, idx: int | None = None,
                 slot: int | None = None) -> None:
        super().__init__("blind_audit", message, party)
        self.name = name
        self.idx = idx
        self.slot = slot


class Ciphertext(NamedTuple):
    """ElGamal ciphertext (A, B) = (r·G, M + r·Y) under the joint key Y."""
    a: bytes
    b: bytes


class Share(NamedTuple):
    """Party j's decryption share of a ciphertext (A, B): D = x_j·A and its proof (C21)."""
    part: bytes
    proof: bytes


# ------------------------------------------------------------------ group and scalars (libsodium)

def _reduce(wide: bytes) -> bytes:
    """64 bytes, little-endian, reduced mod L."""
    return crypto_core_ed25519_scalar_reduce(wide)


def _canonical(scalar: bytes) -> bool:
    return len(scalar) == SCALAR_BYTES and _reduce(scalar + _ZERO) == scalar


def _base(s: bytes) -> bytes:
    """s·G; libsodium refuses the scalar 0 (whose product is the identity), which only a forged
    proof can bring here: the identity's encoding then stands in, and the proof fails its hash."""
    return crypto_scalarmult_ed25519_base_noclamp(s) if s != _ZERO else _IDENTITY


def _mul(s: bytes, point: bytes) -> bytes:
    """s·P for a point already checked valid (of prime order), s reduced."""
    return crypto_scalarmult_ed25519_noclamp(s, point) if s != _ZERO else _IDENTITY


_IDENTITY = (1).to_bytes(POINT_BYTES, "little")


def check_point(point: object, what: str, party: int | None = None) -> bytes:
    """`point` if it is a canonical encoding of a point of the prime-order subgroup other than the
    identity (libsodium's is_valid_point); else BlindRefused naming `what`."""
    if not (isinstance(point, bytes) and len(point) == POINT_BYTES
            and crypto_core_ed25519_is_valid_point(point)):
        raise BlindRefused("blind_point", f"{what} is not a valid point of the group", party)
    return point


# ------------------------------------------------------------------ C14–C16: a party's keys

def party_prk(header_hash: bytes, party: int, deal_seed: bytes) -> bytes:
    """C14: the key from which everything of party `party` in this match is derived."""
    return hmac.digest(header_hash, _TAG_PARTY + u32(party) + lp(deal_seed), "sha256")


def _scalar(prk: bytes, info: bytes) -> bytes:
    """A scalar derived from a PRK: HKDF-Expand to 64 bytes, reduced mod L."""
    return _reduce(hkdf_expand(prk, info, 64))


def _challenge(message: bytes, commitments: bytes) -> bytes:
    return _reduce(hashlib.sha512(message + commitments).digest())


def _statement(purpose_tag: bytes, header_hash: bytes, party: int, statement: bytes) -> bytes:
    return purpose_tag + lp(header_hash) + u32(party) + statement


def _prove(prk: bytes, secret: bytes, message: bytes, bases: Sequence[bytes]) -> bytes:
    """C16/C21: a Schnorr proof that one secret is the log of the statement's points to `bases`
    (one base: knowledge of a key; two: equality of logs). The nonce is derived from the PRK and
    the message, so the proof is a function of the seed and the statement."""
    k = _scalar(prk, _TAG_NONCE + lp(message))
    commitments = b"".join(_base(k) if base == BASE_POINT else _mul(k, base) for base in bases)
    c = _challenge(message, commitments)
    s = crypto_core_ed25519_scalar_add(k, crypto_core_ed25519_scalar_mul(c, secret))
    return c + s


def _proof_scalars(proof: object) -> tuple[bytes, bytes] | None:
    """(c, s) of a proof: 64 bytes, both scalars canonical; else None."""
    if not (isinstance(proof, bytes) and len(proof) == PROOF_BYTES):
        return None
    c, s = proof[:SCALAR_BYTES], proof[SCALAR_BYTES:]
    return (c, s) if _canonical(c) and _canonical(s) else None


def _proof_holds(c: bytes, s: bytes, message: bytes, pairs: Sequence[tuple[bytes, bytes]],
                 minus_c_points: Sequence[bytes | None] = ()) -> bool:
    """Whether (c, s) proves that one scalar takes each base to its point: R = s·base − c·point
    for each (base, point) pair, and c must be the challenge of those R. `minus_c_points`: −c·point
    where the caller computed it already (None where not)."""
    minus_c = crypto_core_ed25519_scalar_negate(c)
    known = list(minus_c_points) + [None] * (len(pairs) - len(minus_c_points))
    commitments = []
    for (base, point), minus_c_point in zip(pairs, known):
        s_base = _base(s) if base == BASE_POINT else _mul(s, base)
        commitments.append(crypto_core_ed25519_add(
            s_base, minus_c_point if minus_c_point is not None else _mul(minus_c, point)))
    return _challenge(message, b"".join(commitments)) == c


def _proof_valid(proof: object, message: bytes, pairs: Sequence[tuple[bytes, bytes]]) -> bool:
    """Whether `proof` is a proof (c, s) that holds for these (base, point) pairs (_proof_holds)."""
    scalars = _proof_scalars(proof)
    return scalars is not None and _proof_holds(*scalars, message, pairs)


def _key_message(header_hash: bytes, party: int, key: bytes) -> bytes:
    return _statement(_TAG_KEY_PROOF, header_hash, party, key)


def key_proof_valid(header_hash: bytes, party: int, key: bytes, proof: bytes) -> bool:
    """C16: whether `proof` shows that party `party` knows the log of its public key `key`."""
    return _proof_valid(proof, _key_message(header_hash, party, key), [(BASE_POINT, key)])


def joint_key(header_hash: bytes, keys: Sequence[tuple[bytes, bytes]]) -> bytes:
    """C17: the sum of the parties' public keys, `keys` being (key, proof) per party in party
    order (0 the server, then the human seats in seat order), each checked first: a point that
    is not valid, or a proof that does not hold, is refused naming its party."""
    if not keys:
        raise BlindRefused("blind_key", "a joint key needs at least one party")
    total = None
    for party, (key, proof) in enumerate(keys):
        check_point(key, f"party {party}'s public key", party)
        if not key_proof_valid(header_hash, party, key, proof):
            raise BlindRefused("blind_key_proof", f"party {party}'s proof of its key does not hold", party)
        total = key if total is None else crypto_core_ed25519_add(total, key)
    assert total is not None
    return check_point(total, "the joint key")


# ------------------------------------------------------------------ C18: cards as points

@functools.lru_cache(maxsize=HANDLE_BASE)   # every item there is: a pile and a decoding table encode the same ones
def encode(item: int) -> bytes:
    """C18: item v as the point (v+1)·G."""
    if not (type(item) is int and 0 <= item < HANDLE_BASE):
        raise ValueError(f"an item is an int from 0 to {HANDLE_BASE - 1}, not {item!r}")
    return _base((item + 1).to_bytes(SCALAR_BYTES, "little"))


def public_ciphertext(item: int, joint: bytes) -> Ciphertext:
    """C18: a card everyone knows entering a pile: (G, M + Y), the encryption with r = 1."""
    return Ciphertext(BASE_POINT, crypto_core_ed25519_add(encode(item), joint))


def pile_input(items: Sequence[int], joint: bytes, current: Mapping[int, Ciphertext]) -> list[Ciphertext]:
    """C19: what the first party of a joint shuffle receives for the engine's `items` (in the
    engine's order): a public item's public ciphertext, a handle's current ciphertext (the last
    party's output at that card's slot of the pile it came from)."""
    out = []
    for item in items:
        if is_handle(item):
            if item not in current:
                raise BlindRefused("blind_handle", f"card {item} has not been dealt")
            out.append(current[item])
        else:
            out.append(public_ciphertext(item, joint))
    return out


class Items:
    """C22's decoding table: the point of each item a card may hold -> the item."""

    def __init__(self, items: Iterable[int]) -> None:
        self.by_point = {encode(v): v for v in set(items)}

    def item(self, point: bytes, card: int | None = None) -> int:
        try:
            return self.by_point[point]
        except KeyError:
            what = f"card {card}" if card is not None else "the card"
            raise BlindRefused("blind_item", f"{what} opens to none of the items its pile may hold") from None


# ------------------------------------------------------------------ C19–C20: shuffles and piles

def pile_hash(pile: Sequence[Ciphertext]) -> bytes:
    """C20: SHA-256 of a pile, for logs and the reference values."""
    return hashlib.sha256(_TAG_PILE + u32(len(pile)) + b"".join(a + b for a, b in pile)).digest()


def check_pile(pile: object, length: int, party: int | None, what: str = "pile") -> list[Ciphertext]:
    """A pile received from `party`: `length` ciphertexts of two valid points each, else
    BlindRefused naming the party and the first bad slot. Returns it as Ciphertexts."""
    if not isinstance(pile, (list, tuple)) or len(pile) != length:
        n = len(pile) if isinstance(pile, (list, tuple)) else "no list of"
        raise BlindRefused("blind_pile", f"party {party}'s {what} holds {n} cards, not {length}", party)
    out = []
    for i, ct in enumerate(pile):
        if not (isinstance(ct, (list, tuple)) and len(ct) == 2):
            raise BlindRefused("blind_point", f"slot {i} of party {party}'s {what} is not a ciphertext", party)
        out.append(Ciphertext(check_point(ct[0], f"slot {i} of party {party}'s {what}", party),
                              check_point(ct[1], f"slot {i} of party {party}'s {what}", party)))
    return out


def _reencrypt_info(name: str, idx: int, slot: int) -> bytes:
    return _TAG_REENCRYPT + lp(name.encode()) + u64(idx) + u32(slot)


# ------------------------------------------------------------------ C21–C22: shares and openings

def _share_message(header_hash: bytes, party: int, handle: int, key: bytes, ct: Ciphertext, part: bytes) -> bytes:
    return _statement(_TAG_SHARE, header_hash, party, u64(handle) + key + ct.a + ct.b + part)


def check_share(header_hash: bytes, party: int, key: bytes, handle: int, ct: Ciphertext, share: object) -> bytes:
    """C21: the part of a share that party `party` (public key `key`) sent for card `handle`,
    ciphertext `ct` (its points checked already), once its point and proof are checked; else
    BlindRefused naming the party and the card."""
    if not (isinstance(share, (list, tuple)) and len(share) == 2):
        raise BlindRefused("blind_share", f"party {party}'s share of card {handle} is not a share", party)
    part, proof = share
    what = f"party {party}'s share of card {handle}"
    scalars = _proof_scalars(proof)
    # The part is checked to be a valid point by libsodium's multiplication −c·D of the proof's
    # check: crypto_scalarmult_ed25519_noclamp refuses exactly the points is_valid_point refuses
    # (tests/protocol/test_blind_tamper.py holds it to that), and its product by a scalar other
    # than 0 is never the identity. Where there is no such product (no proof to check, c = 0, or
    # not 32 bytes), the part is checked on its own.
    minus_c_part = None
    if scalars is None or scalars[0] == _ZERO or not (isinstance(part, bytes) and len(part) == POINT_BYTES):
        check_point(part, what, party)
    else:
        try:
            minus_c_part = crypto_scalarmult_ed25519_noclamp(crypto_core_ed25519_scalar_negate(scalars[0]), part)
        except RuntimeError:
            raise BlindRefused("blind_point", f"{what} is not a valid point of the group", party) from None
    message = _share_message(header_hash, party, handle, key, ct, part)
    if scalars is None or not _proof_holds(*scalars, message, [(BASE_POINT, key), (ct.a, part)],
                                           [None, minus_c_part]):
        raise BlindRefused("blind_share", f"{what} is false: its proof does not hold", party)
    return part


def open_point(ct: Ciphertext, parts: Iterable[bytes]) -> bytes:
    """C22: M = B − Σ D_j over every party's part (the holder's own included)."""
    m = ct.b
    for part in parts:
        m = crypto_core_ed25519_sub(m, part)
    return m


class Party:
    """One party of a blind table, from its deal seed (kept secret until the match ends)."""

    def __init__(self, header_hash: bytes, number: int, deal_seed: bytes) -> None:
        if not (isinstance(deal_seed, bytes) and len(deal_seed) == SEED_BYTES):
            raise ValueError(f"a deal seed is {SEED_BYTES} bytes")
        self.header_hash = header_hash
        self.number = number
        self._prk = party_prk(header_hash, number, deal_seed)
        self._x = _scalar(self._prk, _TAG_KEY)
        self.key = _base(self._x)                      # Y_p, public
        self.key_proof = _prove(self._prk, self._x, _key_message(header_hash, number, self.key), [BASE_POINT])

    def __repr__(self) -> str:
        return f"Party({self.number}, <seed>)"

    @property
    def secret(self) -> bytes:
        """x_p: for the audit's own tests and for a bench; never sent."""
        return self._x

    def permutation(self, name: str, idx: int, length: int) -> list[int]:
        """C19: π, out[i] takes in[π[i]]: C8's shuffle of 0…n−1 on C6's stream (name, idx) under
        this party's PRK."""
        return Stream(self._prk, name, idx).shuffle(list(range(length)))

    def reencryption(self, name: str, idx: int, slot: int) -> bytes:
        """C19: r_i for output slot i of pile (name, idx)."""
        return _scalar(self._prk, _reencrypt_info(name, idx, slot))

    def shuffle(self, name: str, idx: int, pile: Sequence[Ciphertext], joint: bytes) -> list[Ciphertext]:
        """C19: this party's step of the joint shuffle of pile (name, idx): permute, then
        re-encrypt every card under the joint key. `pile` has been checked (check_pile or
        pile_input)."""
        perm = self.permutation(name, idx, len(pile))
        out = []
        for i, j in enumerate(perm):
            r = self.reencryption(name, idx, i)
            a, b = pile[j]
            out.append(Ciphertext(crypto_core_ed25519_add(a, _base(r)),
                                  crypto_core_ed25519_add(b, _mul(r, joint))))
        return out

    def part(self, ct: Ciphertext) -> bytes:
        """x_p·A: this party's part of the opening of `ct` (the holder's own, kept to itself)."""
        return _mul(self._x, ct.a)

    def share(self, handle: int, ct: Ciphertext, part: bytes | None = None) -> Share:
        """C21: the share of card `handle` (ciphertext `ct`) with its proof; `part`, this party's
        part of `ct` when it was computed already."""
        if part is None:
            part = self.part(ct)
        message = _share_message(self.header_hash, self.number, handle, self.key, ct, part)
        return Share(part, _prove(self._prk, self._x, message, [BASE_POINT, ct.a]))

    def open(self, ct: Ciphertext, others: Iterable[bytes], items: Items, handle: int | None = None) -> int:
        """C22: the item of card `ct`, from the other parties' checked parts and this party's own."""
        return items.item(open_point(ct, [*others, self.part(ct)]), handle)


# ------------------------------------------------------------------ the audit (§10.4)

@dataclass(frozen=True)
class Shuffled:
    """A joint shuffle as logged: the pile (name, idx), the engine's items in its order (public
    items or handles of earlier piles), and each party's output, party 0 first."""
    name: str
    idx: int
    items: Sequence[int]
    outputs: Sequence[Sequence[Ciphertext]]


def audit(header_hash: bytes, keys: Sequence[bytes], seeds: Sequence[bytes], shuffles: Sequence[Shuffled],
          shares: Iterable[tuple[int, int, bytes]] = ()) -> dict[int, int]:
    """§10.4: recompute a match's whole deal from every party's revealed deal seed and check the
    log against it: each party's key (`keys`, published, party order), each party's output of each
    joint shuffle (`shuffles`, in the order the piles were made: handles are numbered as they were,
    from HANDLE_BASE), and each logged share (party, handle, part). Returns every card opened:
    handle -> item. Raises AuditFailed naming the first party and pile (and slot) that does not
    match."""
    if len(seeds) != len(keys):
        raise AuditFailed(f"{len(seeds)} deal seeds for {len(keys)} parties", None)
    parties = []
    for p, (key, seed) in enumerate(zip(keys, seeds)):
        if not (isinstance(seed, bytes) and len(seed) == SEED_BYTES):
            raise AuditFailed(f"party {p}'s deal seed is not {SEED_BYTES} bytes", p)
        party = Party(header_hash, p, seed)
        if party.key != key:
            raise AuditFailed(f"party {p}'s public key is not the one its deal seed gives", p)
        parties.append(party)
    if not parties:
        raise AuditFailed("no parties", None)
    # With every secret known, r·Y = (r·x)·G: the audit multiplies the base point only, which
    # libsodium does several times faster than any other point.
    x = _ZERO
    for party in parties:
        x = crypto_core_ed25519_scalar_add(x, party.secret)
    joint = _base(x)
    current: dict[int, Ciphertext] = {}
    public_items: set[int] = set()
    next_handle = HANDLE_BASE
    for pile in shuffles:
        where = f"the pile {pile.name} {pile.idx}"
        if len(pile.outputs) != len(parties):
            raise AuditFailed(f"{where} has {len(pile.outputs)} shuffle steps for {len(parties)} parties", None,
                              pile.name, pile.idx)
        try:
            given = pile_input(pile.items, joint, current)
        except (BlindRefused, ValueError) as e:
            raise AuditFailed(f"{where}: {e}", None, pile.name, pile.idx) from None
        public_items.update(v for v in pile.items if not is_handle(v))
        for party, out in zip(parties, pile.outputs):
            given = _audit_step(party, pile.name, pile.idx, given, out, x)
        current.update(zip(range(next_handle, next_handle + len(given)), given))
        next_handle += len(given)
    for p, handle, part in shares:
        shared = current.get(handle)
        if shared is None or not 0 <= p < len(parties):
            raise AuditFailed(f"a share of card {handle} by party {p}, a card or party the deal never had", None)
        if parties[p].part(shared) != part:
            raise AuditFailed(f"party {p}'s share of card {handle} is not the one its deal seed gives", p)
    table = Items(public_items)
    return {h: table.item(crypto_core_ed25519_sub(ct.b, _mul(x, ct.a)), h) for h, ct in current.items()}


def _audit_step(party: Party, name: str, idx: int, given: Sequence[Ciphertext], logged: object,
                x: bytes) -> list[Ciphertext]:
    """Party `party`'s logged output of pile (name, idx) from its input `given`, against what its
    seed gives; names the first wrong slot and, when it can tell, what happened there. Returns
    the output as Ciphertexts (a log read from msgpack holds lists)."""
    p = party.number
    where = f"party {p}'s shuffle of the pile {name} {idx}"
    if not isinstance(logged, (list, tuple)):
        raise AuditFailed(f"{where} is not a list of cards", p, name, idx)
    if len(logged) != len(given):
        raise AuditFailed(f"{where} holds {len(logged)} cards, not {len(given)}: a card dropped or added", p,
                          name, idx)
    out = []
    for i, ct in enumerate(logged):
        if not (isinstance(ct, (list, tuple)) and len(ct) == 2
                and all(isinstance(pt, bytes) and len(pt) == POINT_BYTES for pt in ct)):
            raise AuditFailed(f"{where}: slot {i} is not a ciphertext", p, name, idx, i)
        out.append(Ciphertext(ct[0], ct[1]))
    perm = party.permutation(name, idx, len(given))
    index_of = {ct: j for j, ct in enumerate(given)}
    for i, j in enumerate(perm):
        r = party.reencryption(name, idx, i)
        delta_a, delta_b = _base(r), _base(crypto_core_ed25519_scalar_mul(r, x))
        got = out[i]
        if crypto_core_ed25519_add(given[j].a, delta_a) == got.a and crypto_core_ed25519_add(given[j].b, delta_b) == got.b:
            continue
        source = _unreencrypted(got, delta_a, delta_b)
        k = index_of.get(source) if source is not None else None
        if k is not None:
            what = f"slot {i} holds input card {k} where its seed puts card {j} (a card swapped or duplicated)"
        else:
            what = f"slot {i} is no re-encryption its seed gives of any card it was given"
        raise AuditFailed(f"{where}: {what}", p, name, idx, i)
    return out


def _unreencrypted(got: Ciphertext, delta_a: bytes, delta_b: bytes) -> Ciphertext | None:
    """The ciphertext `got` was made from, if it is a re-encryption by (delta_a, delta_b); None if
    `got` does not even decode as points."""
    try:
        return Ciphertext(crypto_core_ed25519_sub(got.a, delta_a), crypto_core_ed25519_sub(got.b, delta_b))
    except RuntimeError:   # libsodium cannot decode it as a point
        return None
