"""Known-answer tests for protocol/blind.py: the reference values of docs/fairness.md §10.5, and
libsodium's own test vectors for the group operations blind dealing uses."""

import hashlib

import pytest
from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_add,
    crypto_core_ed25519_scalar_negate,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_scalar_sub,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)

from games.blind import HANDLE_BASE
from protocol import blind
from protocol.fairness import hkdf_expand, lp, tag, u32

# --- docs/fairness.md §10.5 ---------------------------------------------------------------------

HEADER_HASH = bytes.fromhex("122ef0c5544bc2efac617a22778bc2e648215f00ded9634e63ae2aab35f941ca")
SEEDS = [bytes(range(0x00, 0x20)), bytes(range(0xA0, 0xC0)), bytes([0xB0]) * 32]
ITEMS = [3, 14, 15, 92, 65]
PILE = ("deck/initial", 0)

KEYS = [
    "1af7a83b58704c69e172bd6caae6d559f3a14f327daa933de30a3791cad0c6b0",
    "3e3c4ab39b7e8a821607bc724510feaa1cf689eeb9f016fa7762c139feacb2ae",
    "3ae0f2c0abba83590119b12f9d6f678c7a2fc6bddc5e0e71cce14384c18d93f9",
]
STEPS = [  # per party: its permutation, r_0, and C20 of its output
    ([1, 0, 2, 4, 3], "765f373255e6b530cdda68ffafb3c6aa2eb01724f04e21f9ec01e957b12bfd05",
     "39e15e408844b6f14e4abcba5263e10967db1907dc5b82008c06f79dff4c42f5"),
    ([3, 1, 2, 4, 0], "5c70260bc27f95e533f4d13b58bacbeaeacee5f81b86e749150350e5d35bb301",
     "f92b7f1b36721760df839910a0302df650cfc8b1183b84219a586904a49f56ee"),
    ([0, 1, 2, 4, 3], "b80ef42fd3ce9208adb43cca65d8511644dec14188ee47cf16ae5ec69775160e",
     "ab661a7796ce421364bc3d4b42a5722449a55472aac91e9d897751e80b5881c3"),
]


@pytest.fixture(scope="module")
def parties():
    return [blind.Party(HEADER_HASH, p, seed) for p, seed in enumerate(SEEDS)]


def test_party_keys_and_proof(parties):
    assert blind.party_prk(HEADER_HASH, 0, SEEDS[0]).hex() == (
        "6e3504f9adfa41ebd0c1306efb3cacb7b7345ae1aa19545561e8e03646a0c50f")
    assert parties[0].secret.hex() == "1b32c5fe525dedc25ac2c70b61f760afc6096e2f24db83e0964ee013ae4f2b0b"
    assert [p.key.hex() for p in parties] == KEYS
    assert parties[0].key_proof.hex() == (
        "b9ae1125c22b94f865b60cb7990847de7833d8e62b8629751718d879dabba108"
        "1ba6cfcc428c39479b398b2d3c5c4b7f83e75c4b31c48ee544fccf0b510ce607")
    for p in parties:
        assert blind.key_proof_valid(HEADER_HASH, p.number, p.key, p.key_proof)
    joint = blind.joint_key(HEADER_HASH, [(p.key, p.key_proof) for p in parties])
    assert joint.hex() == "02a5aa019fa14b92cc13eb6a8daca434c578175d2bf7dd9f4d1c1293aff21a3d"
    assert blind.encode(3).hex() == "2f1132ca61ab38dff00f2fea3228f24c6c71d58085b80e47e19515cb27e8d047"


def test_joint_shuffle_share_and_opening(parties):
    joint = blind.joint_key(HEADER_HASH, [(p.key, p.key_proof) for p in parties])
    pile = blind.pile_input(ITEMS, joint, {})
    assert blind.pile_hash(pile).hex() == "59bfbe9dd3f3a50f608dd10955e17c9afe6e160a55e4e3454b7f7ab7674c2db4"
    for party, (perm, r0, out_hash) in zip(parties, STEPS):
        assert party.permutation(*PILE, len(ITEMS)) == perm
        assert party.reencryption(*PILE, 0).hex() == r0
        pile = party.shuffle(*PILE, pile, joint)
        assert blind.pile_hash(pile).hex() == out_hash
    top = pile[0]
    assert top.a.hex() == "89aa7c9828f04499792a86426f2df44ae53ae88ff0a492ee97c8004c8126e79d"
    assert top.b.hex() == "df5bde4f096fee55563a341b14774670e377cc5a0524050f810e59352b550e6a"
    share = parties[2].share(HANDLE_BASE, top)
    assert share.part.hex() == "678daedd0cb35b76f79fadabbd5119c8dd4b8fe4c703c09ef8ab9a04c3373f53"
    assert share.proof.hex() == (
        "e6298080d6a3aae20295271794d9dc2431c4962e095f70278fc48efb5fe4a30a"
        "dae831a6f8430d4a77a896acd6d42ca5a552c28e7969928af1d3954ff3100d0b")
    parts = [blind.check_share(HEADER_HASH, p.number, p.key, HANDLE_BASE, top, p.share(HANDLE_BASE, top))
             for p in (parties[0], parties[2])]
    assert parties[1].open(top, parts, blind.Items(ITEMS), HANDLE_BASE) == 65
    # The composition of the three permutations puts input card 4 on top (§10.3).
    p0, p1, p2 = (perm for perm, _, _ in STEPS)
    assert ITEMS[p0[p1[p2[0]]]] == 65


def test_key_is_the_spec_text_spelt_out():
    """C14 and C15 spelt out with the fairness primitives, for the first party of §10.5."""
    import hmac
    prk = hmac.digest(HEADER_HASH, tag("blind/party") + u32(0) + lp(SEEDS[0]), "sha256")
    x = crypto_core_ed25519_scalar_reduce(hkdf_expand(prk, tag("blind/key"), 64))
    assert crypto_scalarmult_ed25519_base_noclamp(x).hex() == KEYS[0]


# --- docs/fairness.md §10.6: the players' signatures of a blind table (C23–C26) --------------------

PLAYER_SEED = bytes(range(0x40, 0x60))     # §9's player, at seat 1: party 1 of §10.5
C26_LIKE_C12 = "f2128f646e60dcf129cadc6790a5ce559f46333bbd1baf45e8b85fa61a9e7739"


def test_blind_player_signatures_c23_to_c26(parties):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from protocol.signing import (SIG_DEAL_KEY, SIG_DEAL_SEED, SIG_SHARES, SIG_SHUFFLE, Signer, deal_key_payload,
                                  deal_seed_payload, shares_digest, shares_payload, shuffle_payload, verify_signature)
    player = Signer(Ed25519PrivateKey.from_private_bytes(PLAYER_SEED))
    me = parties[1]
    assert me.key_proof.hex() == ("4a8e55226e0a2f4637be676fd4909c6364c85bb83f7c42b50d358cd14a0baf0d"
                                  "4f417060d4f9b844679882c35d5fae9af78d688c3e808755aed953c741bf2504")
    joint = blind.joint_key(HEADER_HASH, [(p.key, p.key_proof) for p in parties])
    pile = blind.pile_input(ITEMS, joint, {})
    for party in parties:
        pile = party.shuffle(*PILE, pile, joint)
        if party is me:
            mine = blind.pile_hash(pile)
    share = me.share(HANDLE_BASE, pile[0])
    assert share.part.hex() == "92f547c2b95a888240479eb157c2894e773e565fb72e6d3dc3b9bf1723b8c177"
    assert share.proof.hex() == ("5082f04bad0500db9e0672c227c84a639d40f107b8bd19719f7aefdf728cbb07"
                                 "fc61308aafb6084141f96198df4afaa2433b0101164c957da90f05618733e308")
    assert shares_digest([HANDLE_BASE], [share.part], [share.proof]).hex() == (
        "17af99e06430c2bfaf662dd566ec7fe057731739ed7e7fb70d50139c900c163d")
    cases = [
        (SIG_DEAL_KEY, deal_key_payload(HEADER_HASH, 1, me.key, me.key_proof), 144,
         "25285e069733387d57389f601712a3b5452bed3d97b3ae6364241552216c93b6",
         "60b827c0fae264b701a031a7f6294955a599426c67de64cdbd61763669df33cbe4e2337a76db54d6c85fd508b4cba8aefcd044282d6f3c85350f5f92b18b550b"),
        (SIG_SHUFFLE, shuffle_payload(HEADER_HASH, 1, *PILE, mine), 100,
         "59e5226a20751348d883500a05540649cde15b2b4136344c8dcfac579e5e1237",
         "30c283be6c5deb3f85b5ffb873b4a9d935e1a244f859f6363ba0003d320953f8f8b96c8e3fcae1b939340b4a7ca809c874bfd201a84750ff83e8a8c3372f060f"),
        (SIG_SHARES, shares_payload(HEADER_HASH, 1, [HANDLE_BASE], [share.part], [share.proof]), 76,
         "1b81e95df26d523267a23329e7973b87479181ec6889c1f921a0548ef3b29981",
         "6b0708fec7b6a81986ccc30a22d63a9fe26f6db9baa828e6d86a8947969f7d5cf7323d4b4c412ac071318713b662a9be88687279b4f044703b94fcf71da54b05"),
        (SIG_DEAL_SEED, deal_seed_payload(HEADER_HASH, 1, SEEDS[1]), 76, C26_LIKE_C12,
         "5f60ab4f2707ed8283703a6785467eea82295eeb04f3c8dcd5ca1d809060b5bdb8418a1f67889986ef74c41ec4b0e9f9e8ead884e8938bf7d8fa1db6c6801907"),
    ]
    for purpose, payload, size, digest, sig in cases:
        assert len(payload) == size and hashlib.sha256(payload).hexdigest() == digest, purpose
        assert player.sign(purpose, payload).hex() == sig, purpose
        assert verify_signature(player.public_key, purpose, payload, bytes.fromhex(sig))
        # one purpose's signature never passes for another's, even over the same payload bytes
        other = SIG_DEAL_SEED if purpose != SIG_DEAL_SEED else SIG_SHARES
        assert not verify_signature(player.public_key, other, payload, bytes.fromhex(sig))


# --- libsodium's own test vectors ---------------------------------------------------------------
# From jedisct1/libsodium, test/default/core_ed25519.c with its expected output core_ed25519.exp,
# and test/default/scalarmult_ed25519.c: the points and scalars are theirs, the checks the ones
# those programs make (a -1 return is PyNaCl's RuntimeError).

NON_CANONICAL_P = bytes.fromhex("f6" + "ff" * 30 + "7f")
NON_CANONICAL_INVALID_P = bytes.fromhex("f5" + "ff" * 30 + "7f")
MAX_CANONICAL_P = bytes.fromhex("e4" + "ff" * 30 + "7f")
NOT_MAIN_SUBGROUP_P = bytes.fromhex("95" + "99" * 31)
BASE_POINT = bytes.fromhex("58" + "66" * 31)   # scalarmult_ed25519.c's B
SCALAR_255_DOWN = bytes(255 - i for i in range(32))
SCALAR_32_DOWN = bytes(32 - i for i in range(32))


def small(first: int) -> bytes:
    return bytes([first]) + bytes(31)


def test_libsodium_valid_points():
    # (core_ed25519.c also takes the encoding 09 00 … 00 for valid; the libsodium PyNaCl bundles
    # does not, so that one check is left out.)
    assert blind.BASE_POINT == BASE_POINT
    assert crypto_core_ed25519_is_valid_point(MAX_CANONICAL_P)
    for invalid in (bytes(32), small(1), small(2), NON_CANONICAL_INVALID_P, NON_CANONICAL_P):
        assert not crypto_core_ed25519_is_valid_point(invalid)
        with pytest.raises(blind.BlindRefused) as refused:
            blind.check_point(invalid, "the test's point")
        assert refused.value.code == "blind_point"
        assert "the test's point" in refused.value.message


def test_libsodium_add_and_sub_refuse_what_does_not_decode():
    p2 = (int.from_bytes(small(9), "little") + 2**255 - 19).to_bytes(32, "little")   # add_P: p + field prime
    p3 = crypto_core_ed25519_sub(crypto_core_ed25519_add(p2, p2), p2)
    assert p2 != small(9) and p3 == small(9)
    for op in (crypto_core_ed25519_add, crypto_core_ed25519_sub):
        with pytest.raises(RuntimeError):
            op(p2, small(2))
        with pytest.raises(RuntimeError):
            op(p2, NON_CANONICAL_INVALID_P)
        op(p2, NON_CANONICAL_P)   # non-canonical but on the curve: decoded


def test_libsodium_scalarmult():
    n = small(1)
    assert crypto_scalarmult_ed25519_base_noclamp(n) == BASE_POINT
    assert crypto_scalarmult_ed25519_noclamp(n, BASE_POINT) == BASE_POINT
    with pytest.raises(RuntimeError):   # the scalar 0
        crypto_scalarmult_ed25519_noclamp(bytes(32), BASE_POINT)
    with pytest.raises(RuntimeError):   # a point outside the prime-order subgroup
        crypto_scalarmult_ed25519_noclamp(n, NOT_MAIN_SUBGROUP_P)
    with pytest.raises(RuntimeError):   # a small-order point
        crypto_scalarmult_ed25519_noclamp(small(8), bytes(32))
    nine = small(9)
    assert crypto_scalarmult_ed25519_base(nine) != crypto_scalarmult_ed25519_base_noclamp(nine)  # no clamping
    clamped = bytes([8]) + bytes(30) + bytes([64])
    assert crypto_scalarmult_ed25519_base(nine) == crypto_scalarmult_ed25519_noclamp(clamped, BASE_POINT)


def test_libsodium_scalar_arithmetic():
    neg1 = crypto_core_ed25519_scalar_negate(SCALAR_255_DOWN)
    assert neg1.hex() == "e46b69758fd3193097398c9717b11e48111112131415161718191a1b1c1d1e0f"
    assert crypto_core_ed25519_scalar_negate(neg1).hex() == (
        "09688ce78a8ff8273f636b0bc748c0cceeeeedecebeae9e8e7e6e5e4e3e2e100")
    neg3 = crypto_core_ed25519_scalar_negate(SCALAR_32_DOWN)
    assert neg3.hex() == "cdb4d73ffe47f83ebe85e18dcae6cc03f0f0f1f2f3f4f5f6f7f8f9fafbfcfd0e"
    assert crypto_core_ed25519_scalar_negate(neg3) == SCALAR_32_DOWN
    a, b = bytes([0x69]) * 32, bytes([0x42]) * 32
    total = crypto_core_ed25519_scalar_add(b, crypto_core_ed25519_scalar_add(a, b))
    assert total.hex() == "f7567cd87c82ec1c355a6304c143bcc9ecedededededededededededededed0d"
    diff = crypto_core_ed25519_scalar_sub(crypto_core_ed25519_scalar_sub(b, total), b)
    assert diff.hex() == "f67c79849de0253ba142949e1db6224b13121212121212121212121212121202"
    # scalar_reduce takes away whole multiples of L (core_ed25519.c's add_l64 loop).
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(hashlib.sha256(b"scalar").digest(), "little") % order
    wide = (s + 37 * order).to_bytes(64, "little")
    assert crypto_core_ed25519_scalar_reduce(wide) == s.to_bytes(32, "little")
