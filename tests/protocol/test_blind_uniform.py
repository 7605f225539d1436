"""A joint shuffle (docs/fairness.md §10.3) is uniform as long as one party is honest, and §7's
chi-square test catches the bias when none is. Fixed seeds: these cannot flake.

Encrypting is slow and changes nothing of the order, so the statistics run on the order a joint
shuffle produces, the composition of the parties' permutations; a few real encrypted shuffles
first show that opening the joint pile gives exactly that composition."""

import math
from collections import Counter

import pytest

from games.blind import HANDLE_BASE
from protocol import blind
from protocol.fairness import Stream
from tests.protocol.test_fairness_independent import CRITICAL_P001, SAMPLES, chi_square, naive_shuffle

HEADER_HASH = bytes(range(100, 132))
NAME = "test/blind-chi-square"


def seed(p: int) -> bytes:
    return bytes([p + 1]) * 32


def composed(perms: list[list[int]]) -> tuple:
    """Slot i of the joint pile holds input card π_0[π_1[…π_last[i]…]] (§10.3)."""
    order = list(range(len(perms[0])))
    for perm in perms:
        order = [order[j] for j in perm]
    return tuple(order)


@pytest.mark.parametrize("parties", [2, 3])
def test_opening_a_joint_pile_gives_the_composition_of_the_permutations(parties):
    members = [blind.Party(HEADER_HASH, p, seed(p)) for p in range(parties)]
    joint = blind.joint_key(HEADER_HASH, [(m.key, m.key_proof) for m in members])
    items = [40, 41, 42, 43, 44]
    table = blind.Items(items)
    for idx in range(3):
        pile = blind.pile_input(items, joint, {})
        for m in members:
            pile = m.shuffle(NAME, idx, pile, joint)
        order = composed([m.permutation(NAME, idx, len(items)) for m in members])
        opened = [table.item(blind.open_point(ct, [m.part(ct) for m in members]), HANDLE_BASE + i)
                  for i, ct in enumerate(pile)]
        assert opened == [items[j] for j in order]


# --- each party's permutation: honest (C19), or one of two broken shuffles on its own stream ------

def honest(party: blind.Party, stream: Stream, k: int, idx: int) -> list[int]:
    return party.permutation(NAME, idx, k)


def naive(party: blind.Party, stream: Stream, k: int, idx: int) -> list[int]:
    return naive_shuffle(stream, list(range(k)))


def off_by_one(party: blind.Party, stream: Stream, k: int, idx: int) -> list[int]:
    """Fisher-Yates drawing j below i instead of up to i (Sattolo's algorithm): only the k-cycles,
    one parity for all of them, so no composition of such shuffles ever reaches the other half of
    the orders. The naive shuffle is broken too, but two of them composed are within 5e-5 of
    uniform per shuffle (exact non-centrality, 4 cards): more shuffles than a test can afford
    would be needed to see it. Composing shuffles washes a bias out; a test of the joint shuffle
    needs a bias that survives composition."""
    a = list(range(k))
    for i in range(k - 1, 0, -1):
        j = stream.randbelow(i)
        a[i], a[j] = a[j], a[i]
    return a


def joint_order_counts(shufflers, k: int, samples: int) -> Counter:
    members = [blind.Party(HEADER_HASH, p, seed(p)) for p in range(len(shufflers))]
    prks = [blind.party_prk(HEADER_HASH, p, seed(p)) for p in range(len(shufflers))]
    counts: Counter = Counter()
    for idx in range(samples):   # one pile (name, idx) per joint shuffle, as a match's reshuffles
        counts[composed([shuffle(m, Stream(prk, NAME, idx), k, idx)
                         for shuffle, m, prk in zip(shufflers, members, prks)])] += 1
    return counts


CASES_UNIFORM = {
    "2 honest": (honest, honest),
    "honest first, then 2 broken": (honest, off_by_one, naive),
    "2 broken, honest last": (off_by_one, off_by_one, honest),
}


@pytest.mark.parametrize("k", [4, 5])
@pytest.mark.parametrize("case", CASES_UNIFORM)
def test_a_joint_shuffle_with_one_honest_party_is_uniform(case, k):
    counts = joint_order_counts(CASES_UNIFORM[case], k, SAMPLES[k])
    assert len(counts) == math.factorial(k)
    stat = chi_square(counts, k, SAMPLES[k])
    assert stat < CRITICAL_P001[math.factorial(k) - 1], stat


@pytest.mark.parametrize("k", [4, 5])
@pytest.mark.parametrize("parties", [2, 3])
def test_the_chi_square_fails_when_the_honest_party_is_missing(parties, k):
    samples = SAMPLES[k]
    counts = joint_order_counts((off_by_one,) * parties, k, samples)
    stat = chi_square(counts, k, samples)
    assert stat > 5 * CRITICAL_P001[math.factorial(k) - 1], stat
