"""protocol/blind.py checked against a second implementation of docs/fairness.md §10 (C14–C22)
written here from the text alone, and the players' signatures of a blind table (C23–C26, §10.6)
likewise against protocol/signing.py. It uses libsodium for the group, as the spec asks, and nothing
of protocol/: its own HKDF, its own stream and shuffle, its own proofs and checks. Each side
checks the other's proofs, on inputs drawn from fixed seeds."""

import hashlib
import hmac
import random
import struct

import nacl.bindings as sodium

from games.blind import HANDLE_BASE
from protocol import blind

ORDER = 2**252 + 27742317777372353535851937790883648493


# --- the second implementation --------------------------------------------------------------------

def t(label: str) -> bytes:
    text = ("bgfair/v1/" + label).encode()
    return struct.pack(">I", len(text)) + text


def lp(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def hkdf64(prk: bytes, info: bytes) -> bytes:
    first = hmac.new(prk, info + b"\x01", hashlib.sha256).digest()
    return first + hmac.new(prk, first + info + b"\x02", hashlib.sha256).digest()


def sr(wide: bytes) -> int:
    """SR as an int; scalars are kept as ints here and encoded only for libsodium."""
    return int.from_bytes(wide, "little") % ORDER


def enc(s: int) -> bytes:
    return (s % ORDER).to_bytes(32, "little")


def times_g(s: int) -> bytes:
    return sodium.crypto_scalarmult_ed25519_base_noclamp(enc(s))


def times(s: int, point: bytes) -> bytes:
    return sodium.crypto_scalarmult_ed25519_noclamp(enc(s), point)


G = times_g(1)


class RefParty:
    def __init__(self, header_hash: bytes, p: int, seed: bytes):
        self.h, self.p = header_hash, p
        self.prk = hmac.new(header_hash, t("blind/party") + struct.pack(">I", p) + lp(seed), "sha256").digest()
        self.x = sr(hkdf64(self.prk, t("blind/key")))
        self.key = times_g(self.x)

    def _prove(self, m: bytes, bases) -> bytes:
        k = sr(hkdf64(self.prk, t("blind/nonce") + lp(m)))
        c = sr(hashlib.sha512(m + b"".join(times(k, b) for b in bases)).digest())
        return enc(c) + enc(k + c * self.x)

    def key_proof(self) -> bytes:
        return self._prove(key_message(self.h, self.p, self.key), [G])

    def words(self, name: str, idx: int):
        info = t("stream") + lp(name.encode()) + struct.pack(">Q", idx) + b"\x01"
        key = hmac.new(self.prk, info, "sha256").digest()
        block = 0
        while True:
            yield from struct.unpack(">8I", hmac.new(key, struct.pack(">Q", block), "sha256").digest())
            block += 1

    def permutation(self, name: str, idx: int, n: int) -> list:
        words, a = self.words(name, idx), list(range(n))
        for i in range(n - 1, 0, -1):
            bits = i.bit_length()
            j = next(w % (1 << bits) for w in words if w % (1 << bits) <= i)
            a[i], a[j] = a[j], a[i]
        return a

    def r(self, name: str, idx: int, slot: int) -> int:
        info = t("blind/reencrypt") + lp(name.encode()) + struct.pack(">QI", idx, slot)
        return sr(hkdf64(self.prk, info))

    def step(self, name: str, idx: int, pile, joint: bytes):
        out = []
        for i, j in enumerate(self.permutation(name, idx, len(pile))):
            r = self.r(name, idx, i)
            out.append((sodium.crypto_core_ed25519_add(pile[j][0], times_g(r)),
                        sodium.crypto_core_ed25519_add(pile[j][1], times(r, joint))))
        return out

    def share(self, handle: int, a: bytes, b: bytes):
        d = times(self.x, a)
        return d, self._prove(share_message(self.h, self.p, handle, self.key, a, b, d), [G, a])


def key_message(h: bytes, p: int, key: bytes) -> bytes:
    return t("blind/key-proof") + lp(h) + struct.pack(">I", p) + key


def share_message(h: bytes, p: int, handle: int, key: bytes, a: bytes, b: bytes, d: bytes) -> bytes:
    return t("blind/share") + lp(h) + struct.pack(">IQ", p, handle) + key + a + b + d


def ref_check(proof: bytes, m: bytes, pairs) -> bool:
    c, s = int.from_bytes(proof[:32], "little"), int.from_bytes(proof[32:], "little")
    if c >= ORDER or s >= ORDER or not all(sodium.crypto_core_ed25519_is_valid_point(pt) for _, pt in pairs):
        return False
    commitments = b"".join(sodium.crypto_core_ed25519_sub(times(s, base), times(c, pt)) for base, pt in pairs)
    return sr(hashlib.sha512(m + commitments).digest()) == c


def ref_point(v: int) -> bytes:
    return times_g(v + 1)


def ref_pile_hash(pile) -> bytes:
    return hashlib.sha256(t("blind/pile") + struct.pack(">I", len(pile)) + b"".join(a + b for a, b in pile)).digest()


# --- agreement --------------------------------------------------------------------------------------

def test_keys_and_key_proofs_agree():
    rng = random.Random(0xB11D)
    for _ in range(40):
        h, p, seed = rng.randbytes(32), rng.randrange(6), rng.randbytes(32)
        ours, ref = blind.Party(h, p, seed), RefParty(h, p, seed)
        assert ours.key == ref.key
        assert ours.secret == enc(ref.x)
        assert ours.key_proof == ref.key_proof()
        assert ref_check(ours.key_proof, key_message(h, p, ours.key), [(G, ours.key)])
        assert blind.key_proof_valid(h, p, ref.key, ref.key_proof())
        # bound to the match and the party
        assert not blind.key_proof_valid(h, p + 1, ref.key, ref.key_proof())
        assert not blind.key_proof_valid(rng.randbytes(32), p, ref.key, ref.key_proof())


def test_joint_shuffles_shares_and_openings_agree():
    rng = random.Random(0x5EED)
    for round_ in range(6):
        h = rng.randbytes(32)
        n_parties = rng.randint(1, 4)
        seeds = [rng.randbytes(32) for _ in range(n_parties)]
        ours = [blind.Party(h, p, s) for p, s in enumerate(seeds)]
        refs = [RefParty(h, p, s) for p, s in enumerate(seeds)]
        joint = blind.joint_key(h, [(q.key, q.key_proof) for q in ours])
        ref_joint = refs[0].key
        for r in refs[1:]:
            ref_joint = sodium.crypto_core_ed25519_add(ref_joint, r.key)
        assert joint == ref_joint
        items = rng.sample(range(120), rng.randint(0, 30))
        name, idx = rng.choice(["deck/initial", "deck/reshuffle", "tiles/initial", "plantations/ré"]), rng.randrange(9)
        pile = blind.pile_input(items, joint, {})
        ref_pile = [(G, sodium.crypto_core_ed25519_add(ref_point(v), ref_joint)) for v in items]
        assert [tuple(c) for c in pile] == ref_pile
        for q, r in zip(ours, refs):
            assert q.permutation(name, idx, len(items)) == r.permutation(name, idx, len(items))
            pile = q.shuffle(name, idx, pile, joint)
            ref_pile = r.step(name, idx, ref_pile, ref_joint)
            assert [tuple(c) for c in pile] == ref_pile
            assert blind.pile_hash(pile) == ref_pile_hash(ref_pile)
        order = list(range(len(items)))
        for r in refs:
            perm = r.permutation(name, idx, len(items))
            order = [order[j] for j in perm]
        for slot, ct in enumerate(pile):
            handle = HANDLE_BASE + 7 * round_ + slot
            holder = rng.randrange(n_parties)
            parts = []
            for q, r in zip(ours, refs):
                share = q.share(handle, ct)
                d, proof = r.share(handle, ct.a, ct.b)
                assert share == (d, proof)
                assert ref_check(proof, share_message(h, r.p, handle, r.key, ct.a, ct.b, d), [(G, r.key), (ct.a, d)])
                if q.number != holder:
                    parts.append(blind.check_share(h, q.number, q.key, handle, ct, (d, proof)))
            item = ours[holder].open(ct, parts, blind.Items(items), handle)
            assert item == items[order[slot]]
            m = ct.b
            for r in refs:
                m = sodium.crypto_core_ed25519_sub(m, times(r.x, ct.a))
            assert m == ref_point(item)


# --- C23–C26 (docs/fairness.md §10.6), built again from the spec text --------------------------

def ref_shares_digest(cards, parts, proofs) -> bytes:
    """SHA-256(TAG("blind/shares") ‖ u32(n) ‖ u64(h_1) ‖ D_1 ‖ proof_1 ‖ …)."""
    data = t("blind/shares") + struct.pack(">I", len(cards))
    for card, part, proof in zip(cards, parts, proofs):
        data += struct.pack(">Q", card) + part + proof
    return hashlib.sha256(data).digest()


def ref_blind_message(label: str, header_hash: bytes, seat: int, *fields) -> bytes:
    """TAG(purpose) ‖ LP(header_hash) ‖ u32(seat) ‖ the fields: bytes length-prefixed, an int u64."""
    out = t(label) + lp(header_hash) + struct.pack(">I", seat)
    for f in fields:
        out += struct.pack(">Q", f) if isinstance(f, int) else lp(f)
    return out


def test_blind_player_signatures_agree_with_a_second_implementation():
    import nacl.signing

    from protocol.signing import (SIG_DEAL_KEY, SIG_DEAL_SEED, SIG_SHARES, SIG_SHUFFLE, Signer, deal_key_payload,
                                  deal_seed_payload, shares_digest, shares_payload, shuffle_payload, verify_signature)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    rng = random.Random(0xC23)
    for _ in range(20):
        seed = rng.randbytes(32)
        theirs = nacl.signing.SigningKey(seed)
        ours = Signer(Ed25519PrivateKey.from_private_bytes(seed))
        h, seat = rng.randbytes(32), rng.randrange(6)
        n = rng.randrange(5)
        cards = rng.sample(range(HANDLE_BASE, HANDLE_BASE + 200), n)
        parts, proofs = [rng.randbytes(32) for _ in cards], [rng.randbytes(64) for _ in cards]
        assert shares_digest(cards, parts, proofs) == ref_shares_digest(cards, parts, proofs)
        key, proof, pile_hash, deal_seed = rng.randbytes(32), rng.randbytes(64), rng.randbytes(32), rng.randbytes(32)
        name, idx = rng.choice(["deck/initial", "deck/reshuffle", "plantations/ré"]), rng.randrange(2**40)
        cases = [
            (SIG_DEAL_KEY, deal_key_payload(h, seat, key, proof), ref_blind_message("sig/deal-key", h, seat, key, proof)),
            (SIG_SHUFFLE, shuffle_payload(h, seat, name, idx, pile_hash),
             ref_blind_message("sig/shuffle", h, seat, name.encode(), idx, pile_hash)),
            (SIG_SHARES, shares_payload(h, seat, cards, parts, proofs),
             ref_blind_message("sig/shares", h, seat, ref_shares_digest(cards, parts, proofs))),
            (SIG_DEAL_SEED, deal_seed_payload(h, seat, deal_seed), ref_blind_message("sig/deal-seed", h, seat, deal_seed)),
        ]
        for purpose, payload, message in cases:
            sig = theirs.sign(message).signature          # libsodium, over the message built from the text
            assert ours.sign(purpose, payload) == sig, purpose
            assert verify_signature(ours.public_key, purpose, payload, sig)
