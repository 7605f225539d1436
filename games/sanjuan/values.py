"""Rules of thumb shared by the heuristic player and the search's playouts: what a building, a card
in hand, a good or a role is worth to a player, in "victory point equivalents".

Everything here works on plain card-kind numbers, so the same numbers serve a view (the heuristic
bot) and a full state (the search). The numbers are guesses tuned by playing series of games
(bench/tournament.py); none of them is a rule.
"""
from __future__ import annotations

from functools import lru_cache

from games.sanjuan.cards import (AQUEDUCT, ARCHIVE, BANK, BLACK_MARKET, CARPENTER, CATHEDRAL,
                                 CHAPEL, CITY_HALL, COST, CRANE, CUSTOMS_OFFICE, GOLD_MINE,
                                 GOLDSMITH, GOOD, GUARD_ROOM, GUILD_HALL, HARBOR, HUT, KINDS,
                                 LIBRARY, MARKET_HALL, MARKET_STAND, MONUMENTS, OFFICE_BUILDING,
                                 PALACE, PARK, POOR_HOUSE, PREFECTURE, PRODUCTION, QUARRY,
                                 RESIDENCE, SMITHY, TAVERN, TILES, TOWER, TRADING_POST,
                                 TRIUMPHAL_ARCH, VP, WELL)
from games.sanjuan.rules import END_BUILDINGS, discounter, sale_price
from games.sanjuan.scoring import (ARCH_BONUS, PALACE_SHARE, cathedral_bonus, city_hall_bonus, guild_hall_bonus,
                                   residence_bonus)

# Cards a production building earns per round through producer and trader, by good; later copies
# earn less because only so many goods can be produced and sold per phase.
GOOD_RATE = (0.30, 0.40, 0.50, 0.60, 0.70)
COPY_FACTOR = (1.0, 0.85, 0.7, 0.55, 0.45, 0.35, 0.3, 0.25, 0.2, 0.2, 0.2, 0.2)
# Cards (or VP) a city building brings per round; a few depend on the city, see _rate.
RATE = {SMITHY: 0.10, GOLD_MINE: 0.25, ARCHIVE: 0.15, POOR_HOUSE: 0.25, BLACK_MARKET: 0.15,
        CRANE: 0.10, CHAPEL: 0.60, TOWER: 0.25, CARPENTER: 0.45, PREFECTURE: 0.30, QUARRY: 0.40,
        LIBRARY: 0.90, GUARD_ROOM: 0.10, OFFICE_BUILDING: 0.20, HUT: 0.15, TAVERN: 0.20,
        CUSTOMS_OFFICE: 0.55, GOLDSMITH: 0.20}
LAST_COPY = len(COPY_FACTOR) - 1
ENGINE = 0.7          # income late in the game is worth less: a flat discount on rate * rounds
# What a good on a production building of each kind sells for, on average over the tiles.
AVG_PRICE = tuple(sum(sale_price(t, k) for t in TILES) / len(TILES) if PRODUCTION[k] else 0.0
                  for k in range(len(KINDS)))
SIX = frozenset(k.index for k in KINDS if k.cost == 6 and not k.production)


def card_value(rounds_left: float) -> float:
    """A card in hand: worth about a VP mid-game (it pays for buildings), little at the end."""
    v = 0.35 + 0.065 * rounds_left
    return v if v < 1.0 else 1.0     # min(), without the call: every playout step asks


def rounds_left(most_buildings: int) -> float:
    """Rough rounds to go, from the biggest city (the game ends when one is full)."""
    left = END_BUILDINGS - most_buildings
    return (left if left > 0.5 else 0.5) * 0.9     # max(), without the call: every playout step asks


def city_rate(kind: int, nprod: int) -> float:
    """Income per round of a city building, for a city with `nprod` production buildings."""
    if kind == TRADING_POST:
        return 0.08 * min(nprod, 4)
    if kind == AQUEDUCT:
        return 0.12 * min(nprod, 4)
    if kind == MARKET_HALL:
        return 0.1 + 0.12 * min(nprod, 4)
    if kind == WELL:
        return 0.3 if nprod >= 2 else 0.1
    if kind == MARKET_STAND:
        return 0.3 if nprod >= 2 else 0.05
    if kind == HARBOR:
        return 0.3 if nprod else 0.05
    if kind == BLACK_MARKET:
        return 0.1 + 0.04 * min(nprod, 4)
    return RATE.get(kind, 0.0)


@lru_cache(maxsize=None)   # a city has at most a dozen production buildings
def city_rates(nprod: int) -> tuple[float, ...]:
    """city_rate of every city building kind (0 for production kinds), for `nprod`."""
    return tuple(0.0 if PRODUCTION[k] else city_rate(k, nprod) for k in range(len(KINDS)))


def production_count(city: list[int]) -> int:
    n = 0
    for k in city:      # a loop, not sum() over a generator: cheaper in Python 3.11
        if PRODUCTION[k]:
            n += 1
    return n


BONUS_KINDS = frozenset({GUILD_HALL, CITY_HALL, TRIUMPHAL_ARCH, PALACE, RESIDENCE, CATHEDRAL, BANK, PARK})


def bonus(kind: int, city: list[int], hand, rl: float, others6: int = 0, score: float = 0.0) -> float:
    """The end-of-game bonus of a building in BONUS_KINDS, as the city may stand then: the rules'
    bonus of the city as it is with the building, and what the rounds left may add."""
    if kind == GUILD_HALL:
        return guild_hall_bonus(city) + 0.4 * rl
    if kind == CITY_HALL:
        return city_hall_bonus([*city, kind]) + 0.4 * rl
    if kind == TRIUMPHAL_ARCH:
        have = {k for k in city if k in MONUMENTS}
        later = {k for k in hand if k in MONUMENTS} - have
        return ARCH_BONUS[min(3, len(have) + (len(later) + 1) // 2)] if have or later else 1
    if kind == PALACE:
        return (score + 6 + 1.2 * rl) / PALACE_SHARE
    if kind == RESIDENCE:
        return residence_bonus([*city, kind]) + 0.3 * rl
    if kind == CATHEDRAL:
        return cathedral_bonus(others6 + int(rl / 4))
    if kind == BANK:
        return 2.5
    if kind == PARK:
        return 0.5 if CRANE in city else 0
    return 0.0


def worth(kind: int, city: list[int], hand: list[int], rl: float, others6: int = 0,
          score: float = 0.0, nprod: int | None = None) -> float:
    """What building `kind` adds to a city (list of kinds) by the game's end: printed VP, its end
    bonus as the city may stand then, and its income over the rounds left. `nprod`: the city's
    production_count, for callers that value many buildings for one city."""
    if nprod is None:
        nprod = production_count(city)
    # Its income per round, worked out here rather than in a function: the playouts value
    # buildings at every role pick and build.
    if PRODUCTION[kind]:
        rate = GOOD_RATE[GOOD[kind]] * COPY_FACTOR[nprod if nprod < LAST_COPY else LAST_COPY]
    else:
        rate = city_rates(nprod)[kind]
    v = VP[kind] + rate * rl * ENGINE
    if kind in BONUS_KINDS:
        v += bonus(kind, city, hand, rl, others6, score)
    return v


DISCOUNTER = tuple(discounter(k) for k in range(len(KINDS)))   # looked up, not called: hot


def discount(kind: int, active) -> int:
    """Cards a player's own buildings take off the cost (no privilege, no crane, no goods)."""
    return DISCOUNTER[kind] in active


def hold_values(hand_kinds: list[int], city: list[int], rl: float, others6: int = 0,
                score: float = 0.0) -> list[float]:
    """How much each hand card is worth kept as a future building, above its worth as a payment
    card. Copies of a city building one already owns (or holds twice) are only payment."""
    cv = card_value(rl)
    owned = set(city)
    nprod = production_count(city)
    seen = set()
    out = []
    for k in hand_kinds:
        if not PRODUCTION[k] and (k in owned or k in seen):
            out.append(0.0)
            continue
        seen.add(k)
        cost = max(0, COST[k] - discount(k, owned) - 0.5)
        # An expensive card far from affordable early is worth less than it seems.
        reach = 1.0 if COST[k] <= len(hand_kinds) + 1 else 0.7
        out.append(max(0.0, (worth(k, city, hand_kinds, rl, others6, score, nprod) - cost * cv) * reach))
    return out


def good_value(kind: int, rl: float) -> float:
    """A good on a building: a likely sale at an average price, if a trader phase comes."""
    return AVG_PRICE[kind] * card_value(rl) * 0.75


@lru_cache(maxsize=64)   # rl takes a dozen values
def good_values(rl: float) -> tuple[float, ...]:
    """good_value of every kind, for callers that look up many."""
    return tuple(good_value(k, rl) for k in range(len(KINDS)))


@lru_cache(maxsize=64)   # the five tiles, and the heuristic's averages of the tiles left
def sale_prices(tile: tuple) -> tuple:
    """The rules' sale_price of every kind under `tile`, for callers that look up many."""
    return tuple(sale_price(tile, k) for k in range(len(KINDS)))
