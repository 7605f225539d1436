"""Ed25519 identities (docs/fairness.md C9–C13): creating, storing, loading, signing, checking.

The server's key lives in its data directory (`server_key.pem`), a player's in the client's data
folder (`player_key.pem`): each a PEM file readable only by its owner (0600), in a folder only
its owner may enter (0700), made on first use. A fingerprint is what people compare to know they
deal with the same server, or the same player, that signed a record. The server signs its log
entries and private messages; a player signs its commitment, its seed, each move it makes and the
server's challenge when it claims its seat, each under a tag of its own, over the bytes given here.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nacl.bindings import crypto_sign_open
from nacl.exceptions import CryptoError

from .fairness import lp, tag, u32, u64

KEY_FILE = "server_key.pem"
PLAYER_KEY_FILE = "player_key.pem"
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
SIG_ENTRY = "sig/entry"       # C9: the server's log entries
SIG_PRIVATE = "sig/private"   # C9: the server's private messages
SIG_MOVE = "sig/move"         # C10: a player's move
SIG_COMMIT = "sig/commit"     # C11: a player's commitment
SIG_REVEAL = "sig/reveal"     # C12: a player's seed
SIG_SEAT = "sig/seat"         # C13: a player's answer to the server's challenge, claiming its seat
SIG_DEAL_KEY = "sig/deal-key"     # C23: a player's public key of blind dealing, with its proof (C16)
SIG_SHUFFLE = "sig/shuffle"       # C24: a player's step of a joint shuffle
SIG_SHARES = "sig/shares"         # C25: a player's decryption shares
SIG_DEAL_SEED = "sig/deal-seed"   # C26: a player's deal seed, revealed at the end


def move_payload(header_hash: bytes, seat: int, seen_hash: bytes, move: bytes) -> bytes:
    """C10: what a player signs for a move: the match (its header's hash), its seat, the hash of
    the latest entry it had seen when it decided, and the move's exact msgpack bytes."""
    return lp(header_hash) + u32(seat) + lp(seen_hash) + lp(move)


def commit_payload(header_hash: bytes, seat: int, commitment: bytes) -> bytes:
    """C11: what a player signs for its commitment (C3)."""
    return lp(header_hash) + u32(seat) + lp(commitment)


def reveal_payload(header_hash: bytes, seat: int, seed: bytes) -> bytes:
    """C12: what a player signs for its seed."""
    return lp(header_hash) + u32(seat) + lp(seed)


def deal_key_payload(header_hash: bytes, seat: int, key: bytes, proof: bytes) -> bytes:
    """C23: what a player signs for its key of blind dealing (C15) and the proof of it (C16)."""
    return lp(header_hash) + u32(seat) + lp(key) + lp(proof)


def shuffle_payload(header_hash: bytes, seat: int, name: str, idx: int, pile_hash: bytes) -> bytes:
    """C24: what a player signs for its step of the joint shuffle of pile (name, idx): the C20
    hash of the pile it outputs."""
    return lp(header_hash) + u32(seat) + lp(name.encode()) + u64(idx) + lp(pile_hash)


def shares_digest(cards: list[int], parts: list[bytes], proofs: list[bytes]) -> bytes:
    """C25's digest of a list of decryption shares: each card's handle, its part D and its proof."""
    digest = hashlib.sha256(tag("blind/shares") + u32(len(cards)))
    for card, part, proof in zip(cards, parts, proofs, strict=True):
        digest.update(u64(card) + part + proof)
    return digest.digest()


def shares_payload(header_hash: bytes, seat: int, cards: list[int], parts: list[bytes], proofs: list[bytes]) -> bytes:
    """C25: what a player signs for decryption shares it sends."""
    return lp(header_hash) + u32(seat) + lp(shares_digest(cards, parts, proofs))


def deal_seed_payload(header_hash: bytes, seat: int, deal_seed: bytes) -> bytes:
    """C26: what a player signs for its deal seed, revealed once the game is over."""
    return lp(header_hash) + u32(seat) + lp(deal_seed)


def seat_payload(server_key: bytes, nonce: bytes, table: str, seat: int) -> bytes:
    """C13: what a player signs to claim seat `seat` of `table`: the server's fresh nonce, bound to
    the key of the server it means to talk to, so no one who reads it can use it elsewhere or later."""
    return lp(server_key) + lp(nonce) + lp(table.encode()) + u32(seat)


class Signer:
    """An Ed25519 identity, a server's or a player's, that signs under the tags above."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public_key = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @classmethod
    def generate(cls) -> "Signer":
        return cls(Ed25519PrivateKey.generate())

    def sign(self, purpose: str, payload: bytes) -> bytes:
        return ed25519_sign(self._key, tag(purpose) + payload)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def pem(self) -> bytes:
        return self._key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption())


def fingerprint(public_key: bytes) -> str:
    """A short, readable name for a public key: the first 16 bytes of its tagged hash."""
    digest = hashlib.sha256(tag("key-fingerprint") + public_key).digest()[:16].hex()
    return ":".join(digest[i:i + 4] for i in range(0, len(digest), 4))


def ed25519_sign(key: Ed25519PrivateKey, message: bytes) -> bytes:
    return key.sign(message)


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Ed25519 (RFC 8032) verification, by libsodium: an audit checks two signatures a move
    (the server's and its player's), and libsodium checks one in half the time OpenSSL takes
    (bench/verify.py). Keys are made and messages signed with `cryptography`, which reads and
    writes the PEM files."""
    if not (isinstance(public_key, bytes) and len(public_key) == PUBLIC_KEY_BYTES
            and isinstance(signature, bytes) and len(signature) == SIGNATURE_BYTES):
        return False
    try:
        crypto_sign_open(signature + message, public_key)
    except (CryptoError, ValueError, TypeError):
        return False
    return True


def verify_signature(public_key: bytes, purpose: str, payload: bytes, signature: bytes) -> bool:
    """C9: the signature is over TAG(purpose) ‖ payload, so an entry's signature can never pass
    as a private message's, or the other way round."""
    return ed25519_verify(public_key, tag(purpose) + payload, signature)


def from_pem(pem: bytes, where: str) -> Signer:
    """A key in PEM (PKCS#8, as Signer.pem writes it), read from `where`."""
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{where} does not hold an Ed25519 key")
    return Signer(key)


def load_or_create(data_dir: str | os.PathLike, name: str = KEY_FILE) -> Signer:
    """The key in file `name` of a data directory (the server's by default), made on first use:
    the file 0600, the folder 0700."""
    path = Path(data_dir) / name
    if path.exists():
        return from_pem(path.read_bytes(), str(path))
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    signer = Signer.generate()
    # Create with 0600 from the start, so the key is never readable by others, even briefly.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(signer.pem())
    return signer
