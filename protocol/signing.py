"""The server's Ed25519 identity (docs/fairness.md C9): creating, storing, loading, signing, checking.

The key lives in the server's data directory as a PEM file readable only by its owner (0600),
created on first start. Its fingerprint is what players compare to know they talk to the same
server that signed a record.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .fairness import tag

KEY_FILE = "server_key.pem"
SIG_ENTRY = "sig/entry"
SIG_PRIVATE = "sig/private"


class Signer:
    """A server identity that signs log entries and private messages."""

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
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def verify_signature(public_key: bytes, purpose: str, payload: bytes, signature: bytes) -> bool:
    """C9: the signature is over TAG(purpose) ‖ payload, so an entry's signature can never pass
    as a private message's, or the other way round."""
    return ed25519_verify(public_key, tag(purpose) + payload, signature)


def from_pem(pem: bytes, where: str) -> Signer:
    """The server key in PEM (PKCS#8, as Signer.pem writes it), read from `where`."""
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{where} does not hold an Ed25519 key")
    return Signer(key)


def load_or_create(data_dir: str | os.PathLike) -> Signer:
    """The server key of a data directory, created (mode 0600) on first use."""
    path = Path(data_dir) / KEY_FILE
    if path.exists():
        return from_pem(path.read_bytes(), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    signer = Signer.generate()
    # Create with 0600 from the start, so the key is never readable by others, even briefly.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(signer.pem())
    return signer
