"""Known-answer tests for protocol/fairness.py: the reference values of docs/fairness.md §6 and the
published test vectors of the primitives underneath (SHA-256, HMAC-SHA256, HKDF-Expand)."""

import copy
import hashlib
import hmac
import pickle

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import fairness
from protocol.codec import pack
from protocol.signing import (SIG_COMMIT, SIG_MOVE, SIG_REVEAL, SIG_SEAT, Signer, commit_payload, move_payload,
                              reveal_payload, seat_payload, verify_signature)
from protocol.fairness import (
    Stream,
    Streams,
    entry_hash,
    hkdf_expand,
    local_streams,
    lp,
    master_key,
    player_commit,
    server_commit,
    stream_key,
    tag,
    u32,
    u64,
)

# --- docs/fairness.md §6 inputs -------------------------------------------------------------------

GAME_ID = bytes.fromhex("00112233445566778899aabbccddeeff")
SERVER_SEED = bytes(range(0x00, 0x20))
ALICE_SEED = bytes(range(0xA0, 0xC0))
BOB_SEED = bytes([0xB0]) * 32
CAROL_SEED = hashlib.sha256(b"carol").digest()
SEATS = [("alice", ALICE_SEED), ("bob", BOB_SEED), ("carol", CAROL_SEED)]
HEADER_HASH = bytes.fromhex("122ef0c5544bc2efac617a22778bc2e648215f00ded9634e63ae2aab35f941ca")
PRK = bytes.fromhex("11a9338be86e624413aa3416f04691300152ee54a71d7b0124d540b0b11c291a")

# randbelow(2**32) has mask 2**32 - 1 and never rejects, so it returns the next raw u32 word:
# a way to look at the byte stream, and at how much of it was consumed, through the public API.
WORD = 1 << 32


def raw_words(name: str, idx: int, count: int) -> list[int]:
    """The first `count` u32 words of stream (name, idx), straight from C5/C6."""
    key = hmac.digest(PRK, tag("stream") + lp(name.encode()) + u64(idx) + b"\x01", "sha256")
    data = b"".join(hmac.digest(key, u64(b), "sha256") for b in range(-(-count // 8)))
    return [int.from_bytes(data[4 * i : 4 * i + 4], "big") for i in range(count)]


def test_encoding_helpers():
    assert u32(5) == b"\x00\x00\x00\x05"
    assert u64(1) == b"\x00" * 7 + b"\x01"
    assert lp(b"ab") == b"\x00\x00\x00\x02ab"
    assert lp(b"") == b"\x00\x00\x00\x00"
    assert tag("entry") == b"\x00\x00\x00\x0f" + b"bgfair/v1/entry"


def test_entry_hash_c1():
    payload = b"\x81\xa3seq\x00"
    assert entry_hash(payload) == hashlib.sha256(tag("entry") + payload).digest()


def test_server_commit():
    assert server_commit(GAME_ID, SERVER_SEED).hex() == (
        "2372ebcb634075a658c5a7c7f33f93168e946ff5beb88be8db40259e21ac3479"
    )


@pytest.mark.parametrize(
    "player_id, seed, expected",
    [
        ("alice", ALICE_SEED, "35dcaabd93642fb33bbe062036244f23d36d9bfec5c32efedd873ea59dc60321"),
        ("bob", BOB_SEED, "7a7b939e2ae19b1e8d32c64856fcdaa813ba1223a1e82960062285f2b038496a"),
        ("carol", CAROL_SEED, "98106ca127aeaff2435cecb9f469c332387465b976943a68ac3e958a95c46212"),
    ],
)
def test_player_commits(player_id, seed, expected):
    assert player_commit(GAME_ID, player_id, seed).hex() == expected


def test_master_key():
    assert master_key(HEADER_HASH, SERVER_SEED, SEATS) == PRK


def test_master_key_depends_on_seat_order():
    assert master_key(HEADER_HASH, SERVER_SEED, SEATS[::-1]) != PRK


def test_stream_key_deck_initial():
    assert stream_key(PRK, "deck/initial", 0).hex() == (
        "fd942e1195dcb3ebe98f8ce426f005c40fbfd455c92243bf08ba3d3a4ccaa67a"
    )


def test_stream_key_deck_reshuffle_1():
    assert stream_key(PRK, "deck/reshuffle", 1).hex() == (
        "792dcb720ef8b844c3857c53a715f20a99c1c5f183c55df0a9d357f5b030eb6b"
    )


def test_stream_key_is_hkdf_expand_and_keys_every_stream():
    info = tag("stream") + lp(b"deck/initial") + u64(0)
    key = stream_key(PRK, "deck/initial", 0)
    # C5 as written in the spec: HKDF-Expand to 32 bytes, a single HMAC block with counter byte 0x01.
    assert key == hkdf_expand(PRK, info, 32) == hmac.digest(PRK, info + b"\x01", "sha256")
    # A stream made alone, or by Streams (which keys the PRK once for all its streams), is C6
    # under that key.
    first_word = int.from_bytes(hmac.digest(key, u64(0), "sha256")[:4], "big")
    assert Stream(PRK, "deck/initial", 0).randbelow(WORD) == first_word
    assert Streams(PRK).randbelow("deck/initial", 0, WORD) == first_word


def test_first_32_stream_bytes():
    s = Stream(PRK, "deck/initial", 0)
    first = b"".join(u32(s.randbelow(WORD)) for _ in range(8))
    assert first.hex() == "af8607b44c838cfe27476a1bf4cb18e2b223e0a26c1ef996c6e6fa4c0ae90f67"
    # Same bytes straight from the construction, independent of Stream's buffering.
    assert first == b"".join(u32(w) for w in raw_words("deck/initial", 0, 8))


def test_stream_crosses_block_boundary():
    s = Stream(PRK, "deck/initial", 0)
    assert [s.randbelow(WORD) for _ in range(20)] == raw_words("deck/initial", 0, 20)


def test_randbelow_sequence():
    s = Stream(PRK, "deck/initial", 0)
    assert [s.randbelow(n) for n in (2, 3, 5, 6, 7, 10, 52, 110)] == [0, 2, 3, 2, 2, 6, 12, 103]


def test_randbelow_one_consumes_nothing():
    s = Stream(PRK, "deck/initial", 0)
    assert s.randbelow(1) == 0
    assert s.randbelow(1) == 0
    assert s.randbelow(WORD) == raw_words("deck/initial", 0, 1)[0]


def test_randbelow_range_limits():
    s = Stream(PRK, "deck/initial", 0)
    assert 0 <= s.randbelow(2**32) < 2**32
    # A u32 word cannot cover a larger range; the spec defines no wider draw.
    with pytest.raises(ValueError):
        s.randbelow(2**32 + 1)


@pytest.mark.parametrize("n", [0, -1, -(2**40)])
def test_randbelow_rejects_empty_range(n):
    with pytest.raises(ValueError):
        Stream(PRK, "deck/initial", 0).randbelow(n)


def test_shuffle_of_ten():
    s = Stream(PRK, "deck/initial", 0)
    assert s.shuffle(list(range(10))) == [3, 7, 5, 0, 1, 9, 6, 8, 2, 4]
    # 9 draws plus 4 rejections = 13 words consumed, so the next word is word 13.
    assert s.randbelow(WORD) == raw_words("deck/initial", 0, 14)[13]


def test_shuffle_of_ten_rejections_counted_by_replay():
    # Walk C7/C8 over the raw words and count rejected words directly.
    words = iter(raw_words("deck/initial", 0, 64))
    rejections = 0
    for i in range(9, 0, -1):
        n = i + 1
        mask = (1 << (n - 1).bit_length()) - 1
        while (next(words) & mask) >= n:
            rejections += 1
    assert rejections == 4


def test_shuffle_of_110():
    result = Stream(PRK, "deck/initial", 0).shuffle(list(range(110)))
    assert result[:12] == [105, 68, 108, 94, 35, 2, 45, 65, 25, 23, 10, 82]
    assert sorted(result) == list(range(110))
    assert hashlib.sha256(bytes(result)).hexdigest() == (
        "182c447656f30ae98ad830bd14e7ef8b5b006d209d4d48916446adca09f0e673"
    )


def test_reshuffle_of_discard_pile():
    pile = [57, 3, 99, 12, 40, 7, 88, 21]
    assert Stream(PRK, "deck/reshuffle", 1).shuffle(sorted(pile)) == [40, 21, 3, 99, 7, 12, 57, 88]
    assert Streams(PRK).shuffle("deck/reshuffle", 1, sorted(pile)) == [40, 21, 3, 99, 7, 12, 57, 88]


def test_start_player():
    assert Stream(PRK, "start-player", 0).randbelow(3) == 2
    assert Streams(PRK).randbelow("start-player", 0, 3) == 2


# --- primitives: FIPS 180-2, RFC 4231, RFC 5869 -----------------------------------------------


def test_sha256_fips_180_2():
    assert hashlib.sha256(b"abc").hexdigest() == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert hashlib.sha256(b"").hexdigest() == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


RFC4231 = {
    1: (b"\x0b" * 20, b"Hi There",
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    2: (b"Jefe", b"what do ya want for nothing?",
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    3: (b"\xaa" * 20, b"\xdd" * 50,
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    4: (bytes(range(1, 26)), b"\xcd" * 50,
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    6: (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    7: (b"\xaa" * 131,
        b"This is a test using a larger than block-size key and a larger than block-size data."
        b" The key needs to be hashed before being used by the HMAC algorithm.",
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
}


@pytest.mark.parametrize("case", sorted(RFC4231))
def test_hmac_sha256_rfc4231(case):
    key, data, expected = RFC4231[case]
    assert hmac.digest(key, data, "sha256").hex() == expected
    assert fairness._hmac(key, data).hex() == expected


def test_hmac_under_one_key_answers_every_message_afresh():
    # A stream hashes its blocks with one keyed HMAC: each message must start from the key alone.
    keyed = fairness._Hmac(PRK)
    for msg in (b"", b"a", u64(0), u64(1), b"x" * 200, b"a"):
        assert keyed(msg) == hmac.digest(PRK, msg, "sha256")


RFC5869 = {
    1: ("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
        bytes(range(0xF0, 0xFA)), 42,
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
        "34007208d5b887185865"),
    2: ("06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
        bytes(range(0xB0, 0x100)), 82,
        "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
        "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
        "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
    3: ("19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
        b"", 42,
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
        "9d201395faa4b61a96c8"),
}


@pytest.mark.parametrize("case", sorted(RFC5869))
def test_hkdf_expand_rfc5869(case):
    prk, info, length, okm = RFC5869[case]
    assert hkdf_expand(bytes.fromhex(prk), info, length).hex() == okm


def test_hkdf_expand_lengths():
    prk = bytes.fromhex(RFC5869[1][0])
    full = hkdf_expand(prk, b"x", 255 * 32)
    assert len(full) == 255 * 32
    assert hkdf_expand(prk, b"x", 33) == full[:33]
    assert hkdf_expand(prk, b"x", 0) == b""
    with pytest.raises(ValueError):
        hkdf_expand(prk, b"x", 255 * 32 + 1)


# --- Streams / local_streams ------------------------------------------------------------------


def test_local_streams_key():
    expected = hashlib.sha256(tag("local-seed") + lp(b"42")).digest()
    assert local_streams(42).prk == expected
    assert local_streams("42").prk == expected  # the seed is taken as str(seed)


def test_local_streams_deterministic():
    a, b = local_streams(7), local_streams(7)
    deck = list(range(110))
    assert a.shuffle("deck/initial", 0, deck) == b.shuffle("deck/initial", 0, deck)
    assert a.randbelow("start-player", 0, 4) == b.randbelow("start-player", 0, 4)
    # Each call is a fresh stream: asking twice gives the same answer.
    assert a.shuffle("deck/initial", 0, deck) == a.shuffle("deck/initial", 0, deck)


def test_streams_differ_by_seed_name_and_idx():
    deck = list(range(110))
    s = local_streams(7)
    results = {
        tuple(s.shuffle("deck/initial", 0, deck)),
        tuple(s.shuffle("deck/initial", 1, deck)),
        tuple(s.shuffle("deck/reshuffle", 0, deck)),
        tuple(s.shuffle("deck/reshuffle", 1, deck)),
        tuple(local_streams(8).shuffle("deck/initial", 0, deck)),
    }
    assert len(results) == 5
    keys = {stream_key(s.prk, name, idx) for name in ("a", "b", "ab") for idx in (0, 1, 2**40)}
    assert len(keys) == 9


def test_shuffle_is_permutation_and_does_not_mutate():
    s = local_streams("mutation")
    for length in (0, 1, 2, 3, 10, 110):
        items = [f"card{i}" for i in range(length)]
        before = list(items)
        out = s.shuffle("deck/initial", length, items)
        assert items == before
        assert out is not items
        assert sorted(out) == sorted(before)
    stream = Stream(s.prk, "x", 0)
    items = list(range(5))
    out = stream.shuffle(items)
    assert items == list(range(5)) and sorted(out) == items


def test_shuffle_accepts_any_sequence():
    s = local_streams(1)
    assert s.shuffle("t", 0, tuple(range(20))) == s.shuffle("t", 0, list(range(20)))


def test_streams_prk_is_read_only():
    s = Streams(PRK)
    assert s.prk == PRK
    with pytest.raises(AttributeError):
        s.prk = b"\x00" * 32
    assert PRK.hex() not in repr(s)


def test_streams_match_stream():
    s = Streams(PRK)
    assert s.shuffle("deck/initial", 0, list(range(10))) == [3, 7, 5, 0, 1, 9, 6, 8, 2, 4]
    assert s.randbelow("deck/initial", 0, 110) == Stream(PRK, "deck/initial", 0).randbelow(110)


def test_streams_survive_pickle_and_deepcopy():
    # A match's exchange (protocol/exchange.py) holds its Streams; pickling or copying it must
    # give the same draws, and the key itself must come through (not a fresh or empty one).
    s = Streams(PRK)
    for copied in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
        assert copied.prk == PRK
        assert copied.shuffle("deck/initial", 0, list(range(10))) == [3, 7, 5, 0, 1, 9, 6, 8, 2, 4]
        assert copied.randbelow("start-player", 0, 3) == s.randbelow("start-player", 0, 3)


# --- docs/fairness.md §9: the players' signatures (C10–C13) ------------------------------------

PLAYER = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(0x40, 0x60))))
SERVER = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(0x00, 0x20))))
SEEN_HASH = hashlib.sha256(b"seen").digest()
MOVE = bytes.fromhex("92a4726f6c6503")
ALICE_COMMIT = bytes.fromhex("35dcaabd93642fb33bbe062036244f23d36d9bfec5c32efedd873ea59dc60321")
NONCE = bytes(range(0xC0, 0xE0))


def test_player_key_and_fingerprint():
    assert PLAYER.public_key.hex() == "2543b92ff1095511476adc8369db6ddc933665a11978dda1404ee1066ca9559d"
    assert PLAYER.fingerprint == "9589:54e6:7ea4:cfb3:f9b4:6208:eeb4:6d1e"
    assert SERVER.public_key.hex() == "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
    assert pack(["role", 3]) == MOVE


def test_move_signature_c10():
    payload = move_payload(HEADER_HASH, 1, SEEN_HASH, MOVE)
    message = tag(SIG_MOVE) + payload
    assert len(message) == 109
    assert message.hex() == (
        "000000126267666169722f76312f7369672f6d6f766500000020122ef0c5544bc2efac617a22778bc2e648215f00ded9634e"
        "63ae2aab35f941ca00000001000000207208794c984ea1c75d13877c7427336fe98722c41a056eeee4f37360ec3671230000"
        "000792a4726f6c6503")
    sig = PLAYER.sign(SIG_MOVE, payload)
    assert sig.hex() == ("de1f072015a0f8e17b3a2ff1696c50ff64e502f79ea5dd8c5b5554fd069d6fb1"
                         "07adc7962804eb551fefb78bad60b7043b87798c197b509df5fa0321516a1d06")
    assert verify_signature(PLAYER.public_key, SIG_MOVE, payload, sig)
    # the same bytes under another purpose, or for another seat, do not verify
    assert not verify_signature(PLAYER.public_key, SIG_COMMIT, payload, sig)
    assert not verify_signature(PLAYER.public_key, SIG_MOVE, move_payload(HEADER_HASH, 0, SEEN_HASH, MOVE), sig)


@pytest.mark.parametrize("purpose, payload, size, digest, sig", [
    (SIG_COMMIT, lambda: commit_payload(HEADER_HASH, 1, ALICE_COMMIT), 76,
     "dfe9293c41062928a857d23818849f46351a0fb2c76be88ae720ece9db720b92",
     "67d585bd3acca82230c98098c57dfb465d8adbe0eda34c783d2335d8884fc2b842a59f7dfbebeb88e5c224e4f8b82b157fb0314f15deaa0a9d5c4fdd560e2409"),
    (SIG_REVEAL, lambda: reveal_payload(HEADER_HASH, 1, ALICE_SEED), 76,
     "f2128f646e60dcf129cadc6790a5ce559f46333bbd1baf45e8b85fa61a9e7739",
     "5cef8cd9a1af3006ee54221453569d45cf3c79f3c8d4be12add088668273aa4af82c42ca8f3f802e935197fd6bc534dcd103296b13238c2ed5e158abae168e0a"),
    (SIG_SEAT, lambda: seat_payload(SERVER.public_key, NONCE, "t-reference", 1), 91,
     "5f651563c6c85829e80ff6d11eeb1fbc7a2abf41c845c35ffc151a1cd1b02441",
     "d6185e1c63508c51fbc5687268f7a783c0f3047e64455f7eaf499446ffdac5808bfb5aa50b7a112bb0e8661586892ead1db91567893d513154a36d4ee72bbd0a"),
], ids=["C11", "C12", "C13"])
def test_commit_reveal_and_seat_signatures(purpose, payload, size, digest, sig):
    data = payload()
    assert len(data) == size and hashlib.sha256(data).hexdigest() == digest
    assert PLAYER.sign(purpose, data).hex() == sig
    assert verify_signature(PLAYER.public_key, purpose, data, bytes.fromhex(sig))
