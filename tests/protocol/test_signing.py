"""protocol/signing.py: Ed25519 against the RFC 8032 test vectors, the server key file
(created 0600, reloaded unchanged, other key types refused), and the C9 domain separation
between log entries and private messages."""
import hashlib
import os
import stat

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.fairness import tag
from protocol.signing import (KEY_FILE, SIG_ENTRY, SIG_PRIVATE, Signer, ed25519_sign, ed25519_verify,
                              fingerprint, load_or_create, verify_signature)

# RFC 8032 §7.1: (secret key, public key, message, signature), all hex.
RFC8032 = {
    "TEST 1": (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    "TEST 2": (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    "TEST 3": (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
    "TEST SHA(abc)": (
        "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        # The message is SHA-512("abc"); checked against hashlib below.
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
        "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
    ),
}


def _vector(name):
    return tuple(bytes.fromhex(x) for x in RFC8032[name])


def test_sha_abc_message_is_sha512_of_abc():
    assert _vector("TEST SHA(abc)")[2] == hashlib.sha512(b"abc").digest()


@pytest.mark.parametrize("name", sorted(RFC8032))
def test_rfc8032_sign(name):
    secret, public, message, signature = _vector(name)
    key = Ed25519PrivateKey.from_private_bytes(secret)
    assert Signer(key).public_key == public
    assert ed25519_sign(key, message) == signature


@pytest.mark.parametrize("name", sorted(RFC8032))
def test_rfc8032_verify(name):
    _, public, message, signature = _vector(name)
    assert ed25519_verify(public, message, signature) is True


@pytest.mark.parametrize("name", sorted(RFC8032))
@pytest.mark.parametrize("bit", [0, 7, 8 * 31 + 7, 8 * 32, 8 * 63 + 6])
def test_rfc8032_flipped_signature_bit_fails(name, bit):
    _, public, message, signature = _vector(name)
    bad = bytearray(signature)
    bad[bit // 8] ^= 1 << (bit % 8)
    assert ed25519_verify(public, message, bytes(bad)) is False


@pytest.mark.parametrize("name", sorted(RFC8032))
def test_rfc8032_other_message_or_key_fails(name):
    _, public, message, signature = _vector(name)
    assert ed25519_verify(public, message + b"\x00", signature) is False
    other_public = _vector("TEST 1" if name != "TEST 1" else "TEST 2")[1]
    assert ed25519_verify(other_public, message, signature) is False


@pytest.mark.parametrize("public, signature", [
    (b"", bytes(64)),
    (bytes(31), bytes(64)),
    (bytes.fromhex(RFC8032["TEST 1"][1]), b""),
    (bytes.fromhex(RFC8032["TEST 1"][1]), bytes.fromhex(RFC8032["TEST 1"][3])[:63]),
])
def test_verify_malformed_inputs_is_false_not_an_exception(public, signature):
    assert ed25519_verify(public, b"", signature) is False


# --- the key file ---------------------------------------------------------------------------

def test_load_or_create_creates_a_0600_pem(tmp_path):
    signer = load_or_create(tmp_path)
    path = tmp_path / KEY_FILE
    assert path.is_file()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert len(signer.public_key) == 32


def test_load_or_create_creates_missing_directories(tmp_path):
    data_dir = tmp_path / "a" / "b"
    load_or_create(data_dir)
    assert stat.S_IMODE(os.stat(data_dir / KEY_FILE).st_mode) == 0o600


def test_load_or_create_reloads_the_same_key(tmp_path):
    first = load_or_create(tmp_path)
    before = (tmp_path / KEY_FILE).read_bytes()
    second = load_or_create(tmp_path)
    assert second.public_key == first.public_key
    assert second.fingerprint == first.fingerprint == fingerprint(first.public_key)
    assert (tmp_path / KEY_FILE).read_bytes() == before  # loading does not rewrite the file
    # The reloaded key signs what the first one verifies, and the other way round.
    payload = b"entry bytes"
    assert verify_signature(first.public_key, SIG_ENTRY, payload, second.sign(SIG_ENTRY, payload))
    assert verify_signature(second.public_key, SIG_ENTRY, payload, first.sign(SIG_ENTRY, payload))


def test_two_data_directories_get_different_keys(tmp_path):
    assert load_or_create(tmp_path / "x").public_key != load_or_create(tmp_path / "y").public_key


def _pem(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@pytest.mark.parametrize("make_key", [
    lambda: ec.generate_private_key(ec.SECP256R1()),
    lambda: rsa.generate_private_key(public_exponent=65537, key_size=1024),
    lambda: ed448.Ed448PrivateKey.generate(),
], ids=["ec-p256", "rsa", "ed448"])
def test_load_or_create_refuses_another_key_type(tmp_path, make_key):
    path = tmp_path / KEY_FILE
    data = _pem(make_key())
    path.write_bytes(data)
    with pytest.raises(ValueError) as info:
        load_or_create(tmp_path)
    message = str(info.value)
    assert "Ed25519" in message and str(path) in message
    assert path.read_bytes() == data  # the foreign key is left alone, never overwritten


def test_fingerprint_is_stable_and_readable():
    public = bytes.fromhex(RFC8032["TEST 1"][1])
    fp = fingerprint(public)
    digest = hashlib.sha256(tag("key-fingerprint") + public).digest()[:16].hex()
    assert fp == ":".join(digest[i:i + 4] for i in range(0, 32, 4))
    assert fingerprint(bytes.fromhex(RFC8032["TEST 2"][1])) != fp


# --- C9: domain separation ------------------------------------------------------------------

@pytest.fixture(scope="module")
def signer():
    return Signer(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(RFC8032["TEST 1"][0])))


PAYLOADS = [b"", b"\x83\xa1t\xa4move\xa3seq\x05\xa4seat\x01", bytes(range(256))]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_entry_signature_is_not_a_private_signature(signer, payload):
    sig = signer.sign(SIG_ENTRY, payload)
    assert verify_signature(signer.public_key, SIG_ENTRY, payload, sig)
    assert not verify_signature(signer.public_key, SIG_PRIVATE, payload, sig)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_private_signature_is_not_an_entry_signature(signer, payload):
    sig = signer.sign(SIG_PRIVATE, payload)
    assert verify_signature(signer.public_key, SIG_PRIVATE, payload, sig)
    assert not verify_signature(signer.public_key, SIG_ENTRY, payload, sig)


def test_signature_is_over_the_tag_and_the_payload(signer):
    """C9: Ed25519 over TAG(purpose) ‖ payload, byte for byte, so an independent auditor can
    check it with a bare Ed25519 implementation; the bare payload's signature is not accepted."""
    payload = b"some payload"
    sig = signer.sign(SIG_ENTRY, payload)
    assert tag(SIG_ENTRY) == len(b"bgfair/v1/sig/entry").to_bytes(4, "big") + b"bgfair/v1/sig/entry"
    assert ed25519_verify(signer.public_key, tag(SIG_ENTRY) + payload, sig)
    assert not ed25519_verify(signer.public_key, payload, sig)
    bare = ed25519_sign(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(RFC8032["TEST 1"][0])), payload)
    assert not verify_signature(signer.public_key, SIG_ENTRY, payload, bare)
    assert not verify_signature(signer.public_key, SIG_PRIVATE, payload, bare)
