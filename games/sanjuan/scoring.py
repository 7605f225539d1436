"""Final scoring: printed VP, cards under chapel/bank/harbor, the bonus buildings, the palace last."""
from __future__ import annotations

from collections import Counter

from .cards import (CATHEDRAL, CITY_HALL, COST, GUILD_HALL, MONUMENTS, PALACE, PRODUCTION,
                    RESIDENCE, TRIUMPHAL_ARCH, VP)
from .state import State

ARCH_BONUS = (0, 4, 6, 8)           # by kinds of monument owned
CATHEDRAL_BONUS = (0, 4, 7, 9, 10)  # by six-cost buildings of the other players, 4 or more = 10
SET_VALUES = (4, 3, 2, 1)           # residence: the first set scores 4, then 3, 2, 1, then 0


def residence_sets(kinds: list[int]) -> int:
    """Most disjoint sets of three *different* buildings of one cost, over all costs.

    For one cost value, k sets are possible exactly when sum(min(copies, k)) >= 3k: each set takes
    at most one copy of a kind. Copies of one production building can sit in different sets.
    """
    by_cost: dict[int, Counter] = {}
    for k in kinds:
        by_cost.setdefault(COST[k], Counter())[k] += 1
    total = 0
    for copies in by_cost.values():
        k = 0
        while sum(min(c, k + 1) for c in copies.values()) >= 3 * (k + 1):
            k += 1
        total += k
    return total


def guild_hall_bonus(kinds: list[int]) -> int:
    """1 per production building, 1 more per kind of them."""
    production = [k for k in kinds if PRODUCTION[k]]
    return len(production) + len(set(production))


def city_hall_bonus(kinds: list[int]) -> int:
    """1 per violet (not production) building, the city hall among them."""
    return sum(1 for k in kinds if not PRODUCTION[k])


def residence_bonus(kinds: list[int]) -> int:
    return sum(SET_VALUES[:residence_sets(kinds)])


def cathedral_bonus(others_six: int) -> int:
    """By the six-cost buildings of the other players."""
    return CATHEDRAL_BONUS[min(others_six, len(CATHEDRAL_BONUS) - 1)]


PALACE_SHARE = 4    # the palace scores a quarter of every other point, rounded down


def score_seat(s: State, seat: int) -> dict:
    """Each part of a seat's score; `total` is their sum with the palace counted last."""
    p = s.players[seat]
    kinds = [s.kinds[b] for b in p.city]
    owned = set(kinds)
    parts = {
        "buildings": sum(VP[k] for k in kinds),
        # Cards under a covered chapel (or bank, harbor) still score.
        "chapel": len(p.chapel),
        "bank": len(p.bank),
        "harbor": len(p.harbor),
        "guild_hall": guild_hall_bonus(kinds) if GUILD_HALL in owned else 0,
        "city_hall": city_hall_bonus(kinds) if CITY_HALL in owned else 0,
        "triumphal_arch": ARCH_BONUS[len(owned & MONUMENTS)] if TRIUMPHAL_ARCH in owned else 0,
        "residence": residence_bonus(kinds) if RESIDENCE in owned else 0,
        "cathedral": 0,
        "palace": 0,
    }
    if CATHEDRAL in owned:
        others = sum(1 for i, q in enumerate(s.players) if i != seat
                     for b in q.city if COST[s.kinds[b]] == 6)
        parts["cathedral"] = cathedral_bonus(others)
    if PALACE in owned:
        parts["palace"] = sum(parts.values()) // PALACE_SHARE
    parts["total"] = sum(parts.values())
    return parts


def result(s: State) -> dict:
    """Scores, tie-break values and winners. Meaningful at any time; final once `over` is true."""
    scores = [score_seat(s, i) for i in range(len(s.players))]
    # Tie-break: cards in hand plus goods; still tied, the tied players share the win.
    tiebreak = [len(p.hand) + len(p.goods) for p in s.players]
    best = max((sc["total"], tb) for sc, tb in zip(scores, tiebreak))
    winners = [i for i in range(len(scores)) if (scores[i]["total"], tiebreak[i]) == best]
    return {"over": s.over, "names": list(s.names), "scores": scores, "tiebreak": tiebreak, "winners": winners,
            "rounds": s.round, "decisions": s.decisions}
