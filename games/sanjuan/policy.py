"""The search's fast playout policy and position evaluation, on full (sampled) states.

A playout decision must cost a few microseconds, so this is a cruder cousin of the heuristic
player: fixed per-kind tables for which cards to pay, keep and discard; the heuristic's values
where they matter most, what to build and which role to take (with some noise, so that playouts
do not all follow one line; `role_noise=None` selects a cheaper rough rule). The policy is the
search's model of the other players. It reads the sampled state directly: inside the search the
state is the bot's own guess, not the real game.
"""
from __future__ import annotations

from games.sanjuan.cards import COST, GOOD, KINDS, PALACE, PRODUCTION, TILES, VP
from games.sanjuan.rules import black_market_discount, cover_value, current_tile, hand_limit

from . import values as V
from .heuristic import WEIGHTS, Seat
from .state import ROLES

N_KINDS = len(KINDS)
# A card's worth as a future building for an average city in mid-game, above its payment worth.
HOLD = tuple(max(0.0, V.worth(k, [0, 1, 5], [], 6.0) - COST[k] * 0.75) for k in range(N_KINDS))
GOOD_PRICE = V.AVG_PRICE


def most_buildings(s) -> int:
    most = 0
    for p in s.players:     # a loop, not max() over a comprehension: cheaper in Python 3.11
        if len(p.city) > most:
            most = len(p.city)
    return most


def _hold_order(s, p, cards) -> list[int]:
    """Cards from least to most worth keeping; copies of owned city buildings first."""
    kinds = s.kinds
    owned = set()
    for b in p.city:
        owned.add(kinds[b])
    # Each card's key worked out in a loop and read back by the sort through a bound method, so
    # that no Python function runs per card: the same stable order.
    key = {}
    for c in cards:
        k = kinds[c]
        key[c] = 0.0 if (k in owned and not PRODUCTION[k]) else HOLD[k]
    return sorted(cards, key=key.__getitem__)


def seat_facts(s, seat: int, roles=ROLES) -> Seat:
    """The heuristic's picture of a seat (heuristic.Seat) as its values of `roles` read it,
    filled from a sampled state. Only what those roles' values read is worked out (the builder's
    the city, hand and scores; the producer's the empty buildings; the trader's the goods and
    prices); of the other seats only what heuristic.other_seat keeps, 0 where no role offered
    reads it."""
    k = Seat.__new__(Seat)
    kinds = s.kinds
    players = s.players
    p = players[seat]
    building = "builder" in roles
    producing = "producer" in roles
    trading = "trader" in roles
    k.n = len(players)
    k.hand = hand = p.hand
    k.kind = kinds
    k.active = p.active
    k.hand_limit = hand_limit(s, p)
    k.rl = rl = V.rounds_left(most_buildings(s))
    k.cv = V.card_value(rl)
    # Plain loops, not comprehensions (each a call in Python 3.11): a playout's every role pick
    # comes here.
    if building:
        k.cathedral = s.cathedral
        k.hand_kinds = hand_kinds = []
        for c in hand:
            hand_kinds.append(kinds[c])
        k.city = city = []
        score = len(p.chapel) + len(p.bank) + len(p.harbor)
        for b in p.city:
            kb = kinds[b]
            city.append(kb)
            score += VP[kb]
        k.score = score
        k.black_market = black_market_discount(p.active, len(p.goods))
    if trading:
        k.price = price = V.sale_prices(TILES[s.tiles[s.tiles_turned % len(s.tiles)]])
        k.my_goods = my_goods = []
        for b in p.goods:
            my_goods.append(kinds[b])
    if producing:
        k.good = good = V.good_values(rl)
        held = p.goods
        k.my_empty = my_empty = []
        for b in p.city:
            kb = kinds[b]
            if PRODUCTION[kb] and b not in held:
                my_empty.append(kb)
    k.others = others = []
    others6 = 0
    for q in players:
        if q is p:
            continue
        held = q.goods
        dearest = best = 0     # every price and good value is above 0
        if trading:
            for b in held:
                v = price[kinds[b]]
                if v > dearest:
                    dearest = v
        if building or producing:
            for b in q.city:
                kb = kinds[b]
                if PRODUCTION[kb]:
                    if producing and b not in held and good[kb] > best:
                        best = good[kb]
                elif kb in V.SIX:
                    others6 += 1
        others.append((len(q.hand), dearest, best))
    k.others6 = others6
    return k


def _role_like_heuristic(s, seat, options, rnd, noise):
    vals = seat_facts(s, seat, options).role_values(WEIGHTS, options)
    draw = rnd.random
    best, top = None, None
    for r in options:     # the first best, as max() picks
        v = vals[r] + draw() * noise
        if best is None or v > top:
            best, top = r, v
    return [best]


def _role(s, seat, options, rnd):
    """The rough rule: build with cards in hand, produce on empty buildings, sell goods."""
    p = s.players[seat]
    kinds = s.kinds
    hand = len(p.hand)
    empty = sum(1 for b in p.city if PRODUCTION[kinds[b]] and b not in p.goods)
    goods = len(p.goods)
    best, top = options[0], -1e9
    for r in options:
        if r == "builder":
            v = 2.5 if hand >= 3 else (1.2 if hand >= 1 else 0.0)
        elif r == "producer":
            v = 0.9 * min(empty, 2)
        elif r == "trader":
            v = 1.2 * min(goods, 2)
        elif r == "councillor":
            v = 1.3 if hand < hand_limit(s, p) - 1 else 0.3
        else:
            v = 1.0
        v += rnd.random() * 1.2
        if v > top:
            best, top = r, v
    return [best]


def _build(s, seat, options, rnd):
    p = s.players[seat]
    kinds = s.kinds
    city = []
    nprod = 0      # V.production_count(city), in the same loop
    for b in p.city:
        k = kinds[b]
        city.append(k)
        if PRODUCTION[k]:
            nprod += 1
    hand = []
    for c in p.hand:
        hand.append(kinds[c])
    rl = V.rounds_left(most_buildings(s))
    cv = V.card_value(rl)
    priv = (2 if s.doubled else 1) if seat == s.chooser else 0
    bm = black_market_discount(p.active, len(p.goods))
    best, top = None, 0.15
    active = p.active
    for c in options:
        k = kinds[c]
        pay = COST[k] - priv - (V.DISCOUNTER[k] in active) - bm
        if pay < 0:
            pay = 0
        v = V.worth(k, city, hand, rl, 0, 0.0, nprod) - pay * cv   # by position: a cheaper call
        if v > top:
            best, top = c, v
    return [best] if best is not None else []


def choose(role_noise: float | None, s, seat, rnd) -> list:
    """The playout policy's pick for the seat's pending decision. Roles: the heuristic's role
    values plus uniform noise of `role_noise`, or (None) a cruder and cheaper rule. (`role_noise`
    comes first, so that Search binds it in a partial by position.)"""
    kind, options, lo, hi = s.pending[seat]
    if hi == 0:
        return []
    if lo == len(options):
        return list(options)
    if kind == "role":
        if role_noise is not None:
            return _role_like_heuristic(s, seat, options, rnd, role_noise)
        return _role(s, seat, options, rnd)
    if kind == "build":
        return _build(s, seat, options, rnd)
    p = s.players[seat]
    if kind in ("pay", "limit", "discard"):
        return _hold_order(s, p, options)[:lo]
    if kind == "keep":
        return _hold_order(s, p, options)[-lo:]
    if kind == "produce" or kind == "sell":
        if len(options) == 1:     # nothing to order (a sort would still call its key)
            return list(options)
        price = GOOD_PRICE if kind == "produce" else V.sale_prices(current_tile(s))
        kinds = s.kinds
        return sorted(options, key=lambda b: -price[kinds[b]])[:hi]
    if kind == "chapel":
        worst = _hold_order(s, p, options)[0]
        return [worst] if len(options) >= 3 or most_buildings(s) >= 10 else []
    if kind == "bank":
        return list(options) if most_buildings(s) >= 11 else []
    if kind == "office":
        kinds = s.kinds
        return [c for c in _hold_order(s, p, options)[:hi] if HOLD[kinds[c]] < 0.6]
    if kind == "black_market":
        return list(options[:lo])
    if kind == "cover":
        if not lo:
            return []
        kinds = s.kinds
        return [min(options, key=lambda b: cover_value(kinds[b]))]
    if kind == "library":
        return ["use"]
    return list(options[:lo])


# ---------------------------------------------------------------- evaluation

def estimate(s, seat: int, rl: float) -> float:
    """What a player's position should be worth at the game's end, in VP: points on the table,
    end bonuses as the city stands, income still to come over `rl` rounds, the hand and the
    goods. Compared between players, not an exact forecast. (A linear model fitted to the final
    scores of heuristic games predicted them better but made the search play worse: it learns
    how little the heuristic players get out of an engine.)"""
    p = s.players[seat]
    kinds = s.kinds
    # Plain loops, not comprehensions (each a call in Python 3.11): the search estimates every
    # seat at the end of every playout. The sums add in the same order as ever, to the last bit.
    city = []
    prod = []
    for b in p.city:
        k = kinds[b]
        city.append(k)
        if PRODUCTION[k]:
            prod.append(V.GOOD_RATE[GOOD[k]])
    prod.sort(reverse=True)
    nprod = len(prod)
    income: float = 0
    for i, r in enumerate(prod):
        income += r * V.COPY_FACTOR[i if i < V.LAST_COPY else V.LAST_COPY]
    rates = V.city_rates(nprod)
    total: float = len(p.chapel) + len(p.bank) + len(p.harbor)
    for k in city:
        total += VP[k]
        if not PRODUCTION[k]:
            income += rates[k]
            if k in V.BONUS_KINDS and k != PALACE:
                total += V.bonus(k, city, (), rl)
    total += income * rl * V.ENGINE
    held = []
    for c in p.hand:
        held.append(HOLD[kinds[c]])
    held.sort()
    cv = V.card_value(rl)
    total += len(p.hand) * cv + 0.3 * sum(held[-3:])
    goods = 0
    for b in p.goods:
        goods += GOOD_PRICE[kinds[b]]
    total += goods * cv * 0.75
    if PALACE in city:   # a quarter of everything else, counted last
        total *= 1.25
    return total
