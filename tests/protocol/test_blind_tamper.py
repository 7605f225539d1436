"""A party that cheats at blind dealing (docs/fairness.md §10) is caught and named: a false or
replayed share, or an invalid point, at once; a shuffle step that swaps, drops, duplicates or
changes a card, or a key its revealed seed does not give, by the audit at the match's end."""

import hashlib
import random

import pytest
from nacl.bindings import (crypto_core_ed25519_add, crypto_core_ed25519_sub, crypto_scalarmult_ed25519_base_noclamp,
                           crypto_scalarmult_ed25519_noclamp)

from games.blind import HANDLE_BASE
from protocol import blind
from protocol.blind import AuditFailed, BlindRefused, Ciphertext, Shuffled

HEADER_HASH = hashlib.sha256(b"tamper match").digest()
OTHER_MATCH = hashlib.sha256(b"another match").digest()
SEEDS = [hashlib.sha256(b"party %d" % p).digest() for p in range(3)]
ITEMS = list(range(20, 30))
# A point of order 8 (its eighth multiple is the identity, 01 00 … 00): on the curve, off the
# prime-order subgroup.
SMALL_ORDER = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")


class Deal:
    """A 3-party deal: the pile deck/initial 0 of ITEMS, then deck/reshuffle 1 of its last four
    cards, logged as §10.4 reads it."""

    def __init__(self) -> None:
        self.parties = [blind.Party(HEADER_HASH, p, s) for p, s in enumerate(SEEDS)]
        self.joint = blind.joint_key(HEADER_HASH, [(p.key, p.key_proof) for p in self.parties])
        self.current: dict[int, Ciphertext] = {}
        self.log: list[Shuffled] = []
        self.next_handle = HANDLE_BASE
        first = self.shuffle("deck/initial", 0, ITEMS)
        self.shuffle("deck/reshuffle", 1, first[-4:])

    def shuffle(self, name: str, idx: int, items: list[int]) -> list[int]:
        pile = blind.pile_input(items, self.joint, self.current)
        outputs = []
        for party in self.parties:
            pile = party.shuffle(name, idx, blind.check_pile(pile, len(items), party.number - 1), self.joint)
            outputs.append(pile)
        self.log.append(Shuffled(name, idx, tuple(items), outputs))
        handles = list(range(self.next_handle, self.next_handle + len(pile)))
        self.current.update(zip(handles, pile))
        self.next_handle += len(pile)
        return handles

    def keys(self) -> list[bytes]:
        return [p.key for p in self.parties]

    def audit(self, log=None, seeds=SEEDS, keys=None, shares=()):
        return blind.audit(HEADER_HASH, keys or self.keys(), seeds, log or self.log, shares)

    def with_output(self, pile: int, party: int, out: list) -> list[Shuffled]:
        """The log with party `party`'s output of pile `pile` replaced by `out`, and every later
        party's step taken honestly on it (so only `party` cheated)."""
        log = list(self.log)
        step = log[pile]
        outputs = list(step.outputs[:party]) + [out]
        for later in self.parties[party + 1:]:
            outputs.append(later.shuffle(step.name, step.idx, outputs[-1], self.joint))
        log[pile] = Shuffled(step.name, step.idx, step.items, outputs)
        return log


@pytest.fixture(scope="module")
def deal():
    return Deal()


def test_an_honest_deal_passes_the_audit_and_opens_every_card(deal):
    opened = deal.audit()
    first = range(HANDLE_BASE, HANDLE_BASE + len(ITEMS))
    assert sorted(opened[h] for h in first) == ITEMS
    reshuffled = range(HANDLE_BASE + len(ITEMS), HANDLE_BASE + len(ITEMS) + 4)
    assert sorted(opened[h] for h in reshuffled) == sorted(opened[h] for h in first[-4:])
    # and a holder opening a card with the others' checked shares reads what the audit reads
    card = HANDLE_BASE + 3
    ct = deal.current[card]
    parts = [blind.check_share(HEADER_HASH, p.number, p.key, card, ct, p.share(card, ct)) for p in deal.parties[1:]]
    assert deal.parties[0].open(ct, parts, blind.Items(ITEMS), card) == opened[card]


# --- refused at once ------------------------------------------------------------------------------

def refused(code: str, party, call, *args):
    with pytest.raises(BlindRefused) as caught:
        call(*args)
    assert caught.value.code == code, caught.value.message
    assert caught.value.party == party
    return caught.value.message


def test_a_false_share_is_refused_and_named(deal):
    card = HANDLE_BASE + 2
    ct = deal.current[card]
    liar = deal.parties[2]
    share = liar.share(card, ct)
    flipped = share.proof[:40] + bytes([share.proof[40] ^ 1]) + share.proof[41:]
    message = refused("blind_share", 2, blind.check_share, HEADER_HASH, 2, liar.key, card, ct, (share.part, flipped))
    assert "party 2" in message and f"card {card}" in message
    # a part that is not x·A, with a proof made for it by someone who does not know x
    other = deal.current[card + 1]
    wrong_part = liar.part(other)
    refused("blind_share", 2, blind.check_share, HEADER_HASH, 2, liar.key, card, ct, (wrong_part, share.proof))
    # another party's share passed off as this one's
    honest = deal.parties[1].share(card, ct)
    refused("blind_share", 2, blind.check_share, HEADER_HASH, 2, liar.key, card, ct, honest)
    # a proof whose scalars are not below L, or not 64 bytes
    refused("blind_share", 2, blind.check_share, HEADER_HASH, 2, liar.key, card, ct, (share.part, b"\xff" * 64))
    refused("blind_share", 2, blind.check_share, HEADER_HASH, 2, liar.key, card, ct, (share.part, share.proof[:63]))
    refused("blind_share", 2, blind.check_share, HEADER_HASH, 2, liar.key, card, ct, (share.part, bytes(64)))


def test_a_share_for_another_card_or_match_is_refused(deal):
    card = HANDLE_BASE + 5
    ct = deal.current[card]
    party = deal.parties[1]
    share = party.share(card, ct)
    assert blind.check_share(HEADER_HASH, 1, party.key, card, ct, share) == share.part
    message = refused("blind_share", 1, blind.check_share, HEADER_HASH, 1, party.key, card + 1, ct, share)
    assert f"card {card + 1}" in message
    refused("blind_share", 1, blind.check_share, OTHER_MATCH, 1, party.key, card, ct, share)
    # the same party's share of another card, sent for this one
    other = party.share(card + 1, deal.current[card + 1])
    refused("blind_share", 1, blind.check_share, HEADER_HASH, 1, party.key, card, ct, other)


def test_invalid_points_are_refused_naming_them(deal):
    card = HANDLE_BASE
    ct = deal.current[card]
    party = deal.parties[0]
    mixed_part = crypto_core_ed25519_add(party.part(ct), SMALL_ORDER)
    proof = party.share(card, ct).proof
    zero_c = bytes(32) + proof[32:]    # c = 0: the proof's check multiplies no point by −c
    for bad in (SMALL_ORDER, bytes(32), (1).to_bytes(32, "little"), b"\xff" * 32, b"short", mixed_part):
        for with_proof in (proof, zero_c, b"\xff" * 64, b"short"):
            message = refused("blind_point", 0, blind.check_share, HEADER_HASH, 0, party.key, card, ct,
                              (bad, with_proof))
            assert "party 0's share of card" in message
    pile = list(deal.log[0].outputs[0])
    pile[4] = Ciphertext(pile[4].a, SMALL_ORDER)
    message = refused("blind_point", 0, blind.check_pile, pile, len(pile), 0)
    assert "slot 4 of party 0's pile" in message
    # a point of the right order plus one of small order is off the prime-order subgroup
    mixed = crypto_core_ed25519_add(pile[3].a, SMALL_ORDER)
    pile[4] = Ciphertext(mixed, pile[3].b)
    refused("blind_point", 0, blind.check_pile, pile, len(pile), 0)
    keys = [(p.key, p.key_proof) for p in deal.parties]
    keys[1] = (SMALL_ORDER, keys[1][1])
    assert "party 1's public key" in refused("blind_point", 1, blind.joint_key, HEADER_HASH, keys)


def test_a_pile_of_the_wrong_length_is_refused(deal):
    pile = list(deal.log[0].outputs[1])
    message = refused("blind_pile", 1, blind.check_pile, pile[:-1], len(pile), 1)
    assert f"holds {len(pile) - 1} cards, not {len(pile)}" in message
    refused("blind_pile", 1, blind.check_pile, pile + pile[:1], len(pile), 1)


def test_a_key_proof_must_be_the_partys_own(deal):
    keys = [(p.key, p.key_proof) for p in deal.parties]
    forged = list(keys)
    forged[2] = (keys[2][0], keys[1][1])
    assert "party 2's proof" in refused("blind_key_proof", 2, blind.joint_key, HEADER_HASH, forged)
    copied = list(keys)
    copied[2] = keys[1]   # another party's key and proof: bound to that party's number
    refused("blind_key_proof", 2, blind.joint_key, HEADER_HASH, copied)
    # a key chosen to cancel the others' (Y_2 = G − Y_0 − Y_1), whose log party 2 cannot know
    cancel = crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))
    cancel = crypto_core_ed25519_sub(crypto_core_ed25519_sub(cancel, keys[0][0]), keys[1][0])
    rogue = list(keys)
    rogue[2] = (cancel, keys[2][1])
    refused("blind_key_proof", 2, blind.joint_key, HEADER_HASH, rogue)
    refused("blind_key_proof", 0, blind.joint_key, OTHER_MATCH, keys)


def test_an_opening_to_no_item_of_the_pile_is_refused(deal):
    card = HANDLE_BASE + 1
    ct = deal.current[card]
    parts = [p.part(ct) for p in deal.parties[1:]]
    message = refused("blind_item", None, deal.parties[0].open, ct, parts, blind.Items([0, 1, 2]), card)
    assert f"card {card}" in message


# --- caught by the audit --------------------------------------------------------------------------

def audit_fails(deal, **kwargs) -> AuditFailed:
    with pytest.raises(AuditFailed) as caught:
        deal.audit(**kwargs)
    assert caught.value.code == "blind_audit"
    return caught.value


def test_a_swapped_card_is_caught_naming_party_pile_and_slot(deal):
    out = list(deal.log[0].outputs[1])
    out[2], out[6] = out[6], out[2]
    failed = audit_fails(deal, log=deal.with_output(0, 1, out))
    assert (failed.party, failed.name, failed.idx, failed.slot) == (1, "deck/initial", 0, 2)
    assert "party 1's shuffle of the pile deck/initial 0" in failed.message


def test_a_chosen_order_with_honest_reencryption_is_named_as_such(deal):
    """A party that puts the cards in an order of its choosing but re-encrypts each slot as its
    seed says: the audit tells which input card it put where."""
    party = deal.parties[2]
    step = deal.log[1]
    given = step.outputs[1]
    perm = party.permutation(step.name, step.idx, len(given))
    chosen = perm[1:] + perm[:1]
    out = []
    for i, j in enumerate(chosen):
        r = party.reencryption(step.name, step.idx, i)
        out.append(Ciphertext(crypto_core_ed25519_add(given[j].a, crypto_scalarmult_ed25519_base_noclamp(r)),
                              crypto_core_ed25519_add(given[j].b, crypto_scalarmult_ed25519_noclamp(r, deal.joint))))
    failed = audit_fails(deal, log=deal.with_output(1, 2, out))
    assert (failed.party, failed.name, failed.idx, failed.slot) == (2, "deck/reshuffle", 1, 0)
    assert f"slot 0 holds input card {chosen[0]} where its seed puts card {perm[0]}" in failed.message


def test_a_dropped_card_is_caught(deal):
    out = list(deal.log[0].outputs[0])[:-1]
    failed = audit_fails(deal, log=deal.with_output(0, 0, out))
    assert (failed.party, failed.name, failed.idx) == (0, "deck/initial", 0)
    assert f"holds {len(ITEMS) - 1} cards, not {len(ITEMS)}" in failed.message


def test_a_duplicated_card_is_caught(deal):
    out = list(deal.log[0].outputs[2])
    out[7] = out[1]
    failed = audit_fails(deal, log=deal.with_output(0, 2, out))
    assert (failed.party, failed.name, failed.idx, failed.slot) == (2, "deck/initial", 0, 7)


def test_a_card_changed_for_another_is_caught(deal):
    """A party that puts a card of its choosing in a slot (a fresh encryption of item 29)."""
    out = list(deal.log[0].outputs[1])
    out[0] = blind.public_ciphertext(29, deal.joint)
    failed = audit_fails(deal, log=deal.with_output(0, 1, out))
    assert (failed.party, failed.slot) == (1, 0)
    assert "no re-encryption its seed gives of any card it was given" in failed.message


def test_a_key_its_seed_does_not_give_is_caught(deal):
    seeds = list(SEEDS)
    seeds[1] = hashlib.sha256(b"a seed revealed in place of the real one").digest()
    failed = audit_fails(deal, seeds=seeds)
    assert failed.party == 1 and "party 1's public key is not the one its deal seed gives" in failed.message
    failed = audit_fails(deal, seeds=SEEDS[:2])
    assert "2 deal seeds for 3 parties" in failed.message


def test_a_logged_share_its_seed_does_not_give_is_caught(deal):
    card = HANDLE_BASE + 4
    good = [(p.number, card, p.part(deal.current[card])) for p in deal.parties]
    deal.audit(shares=good)
    bad = good[:2] + [(2, card, deal.parties[2].part(deal.current[card + 1]))]
    failed = audit_fails(deal, shares=bad)
    assert failed.party == 2 and f"party 2's share of card {card}" in failed.message


def test_a_reshuffle_of_a_card_never_dealt_is_caught(deal):
    log = list(deal.log)
    step = log[1]
    log[1] = Shuffled(step.name, step.idx, (HANDLE_BASE + 999,) + tuple(step.items[1:]), step.outputs)
    failed = audit_fails(deal, log=log)
    assert (failed.name, failed.idx) == ("deck/reshuffle", 1) and f"card {HANDLE_BASE + 999}" in failed.message


def test_a_log_read_back_from_msgpack_audits_and_a_malformed_slot_is_named(deal):
    from protocol.codec import pack, unpack
    read_back = [Shuffled(s.name, s.idx, s.items, unpack(pack([[list(ct) for ct in out] for out in s.outputs])))
                 for s in deal.log]
    assert deal.audit(log=read_back) == deal.audit()
    step = read_back[0]
    out = list(step.outputs[1])
    out[3] = [out[3][0]]
    read_back[0] = Shuffled(step.name, step.idx, step.items, [step.outputs[0], out, step.outputs[2]])
    failed = audit_fails(deal, log=read_back)
    assert (failed.party, failed.slot) == (1, 3) and "slot 3 is not a ciphertext" in failed.message


def test_libsodium_multiplication_refuses_exactly_the_invalid_points():
    """check_share lets the proof's multiplication −c·D check a share's part: libsodium's
    crypto_scalarmult_ed25519_noclamp must refuse exactly what is_valid_point refuses (the point
    encodings of small order, off the prime-order subgroup, not canonical, not on the curve)."""
    from nacl.bindings import crypto_core_ed25519_is_valid_point
    rng = random.Random(32)
    scalar = blind.Party(HEADER_HASH, 0, SEEDS[0]).secret
    valid = [blind.encode(v) for v in range(40)]
    candidates = [rng.randbytes(32) for _ in range(400)] + valid + [
        SMALL_ORDER, bytes(32), (1).to_bytes(32, "little"), b"\xff" * 32, b"\xec" + b"\xff" * 30 + b"\x7f",
        b"\xed" + b"\xff" * 30 + b"\x7f", b"\x01" + bytes(30) + b"\x80"]
    candidates += [crypto_core_ed25519_add(p, SMALL_ORDER) for p in valid[:10]]
    candidates += [p[:31] + bytes([p[31] ^ 0x80]) for p in valid[:10]]     # the other sign of x
    seen = {True: 0, False: 0}
    for point in candidates:
        is_valid = bool(crypto_core_ed25519_is_valid_point(point))
        try:
            crypto_scalarmult_ed25519_noclamp(scalar, point)
            multiplied = True
        except RuntimeError:
            multiplied = False
        assert multiplied == is_valid, point.hex()
        seen[is_valid] += 1
    assert seen[True] >= 50 and seen[False] >= 50
