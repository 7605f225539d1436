"""The search's fast playout policy and its position estimate, on full (sampled) states.

A playout decision must cost a few microseconds, so this is a rough player for every seat: it
reads the state directly (inside a search the state is the bot's own guess) and asks the engine
for every rule fact (production, prices, costs, scoring bonuses). Its numbers are guesses, in
"VP equivalents", tuned by short series against the heuristic player; none of them is a rule.
Roles get some uniform noise, so that playouts do not all follow one line.
"""
from __future__ import annotations

from collections.abc import Sequence

from .board import build_cost, colonists, free_spaces, island_filled, occupied, production, sale_price
from .builder import build_options
from .captain import WHARF_SHIP
from .components import (BUILDINGS, BY_KEY, CITY_SPACES, CORN, GOODS, OFFICE, PRICE, PRODUCERS, QUARRY,
                         ROLE_OF, TRADING_HOUSE_SPACES)
from .flow import turn_order
from .heuristic import WEIGHTS
from .mayor import groups, share
from .scoring import BONUSES, score_seat
from .trader import sellable

DOUBLOON = WEIGHTS["doubloon"]   # VP a doubloon is worth while there is time to spend it
OTHERS = WEIGHTS["others"]       # how much a phase's gift to each other player counts against a role
# The heuristic's weights the playouts read at every step, looked up once.
COLONIST, PLANTATION, QUARRY_WEIGHT, ROLE_MONEY = (WEIGHTS[w] for w in ("colonist", "plantation", "quarry",
                                                                         "role_money"))
BARREL = 0.8         # a barrel held: a likely shipment or sale
ROLE_NOISE = 0.8
UNSTAFFED = 0.7      # how much of its worth an unstaffed circle keeps: colonists come each round
# A barrel, as the heuristic values one: shipped for a VP, or sold at the house's price.
GOOD_WORTH = tuple(max(WEIGHTS["ship_barrel"], p * DOUBLOON) for p in PRICE)
# Income per round of an occupied violet building, in VP equivalents (guesses).
_VIOLET_RATE_BY_KEY = {"small_market": 0.35, "hacienda": 0.25, "construction_hut": 0.25,
               "small_warehouse": 0.35, "hospice": 0.35, "office": 0.35, "large_market": 0.55,
               "large_warehouse": 0.45, "factory": 0.8, "university": 0.3, "harbor": 0.9,
               "wharf": 0.9}
VIOLET_RATE = tuple(_VIOLET_RATE_BY_KEY.get(b.key, 0.0) for b in BUILDINGS)
LARGE = frozenset(b for b, _, _ in BONUSES)
BONUS_OF = {b: bonus for b, _, bonus in BONUSES}
# Per building index, looked up rather than read off the Building: the playouts ask them often.
GOOD_OF = tuple(b.good for b in BUILDINGS)
CIRCLES = tuple(b.circles for b in BUILDINGS)
# A colonist's worth per round on a production pair of each good (two colonists), and on corn.
PAIR_SLOT = tuple((w / 2, 2) for w in GOOD_WORTH)
CORN_SLOT = (GOOD_WORTH[CORN], 1)
QUARRY_SLOT = (QUARRY_WEIGHT, 1)


def rounds_left(s) -> float:
    """Rough rounds to go, from the three end triggers: VP chips, colonists and city spaces."""
    return _rounds_left(s, [board(p) for p in s.players])


def _rounds_left(s, boards) -> float:
    if s.last_round:
        return 0.0
    n = s.n
    vp = s.vp_supply / (1.6 * n + 1)
    col = s.colonist_supply / max(n, 1.5 * n - 1)
    city = (CITY_SPACES - max(CITY_SPACES - b.free for b in boards)) / 0.9
    return max(0.5, min(vp, col, city))


def capacity(city) -> list[int]:
    """Circles of a city's (its buildings') production buildings of each good (corn needs none)."""
    cap = [0] * len(GOODS)
    for b in city:
        g = GOOD_OF[b]
        if g is not None:
            cap[g] += CIRCLES[b]
    return cap


class Board:
    """What the policy reads off one player's board, worked out once for each board it meets: a
    search meets the same few boards in every sample and playout. Shared: read it, never change
    it. The figures are those of the functions named, of the first Player seen with this board."""
    __slots__ = ("cap", "free", "colonists", "island", "points", "slots", "staffed",
                 "city_terms", "made_terms", "tile_rates", "making")

    def __init__(self, p) -> None:
        self.cap = cap = tuple(capacity(p.city))
        made = production(p)
        self.making = tuple((g, k) for g, k in enumerate(made) if k)    # (good, barrels) made
        self.free = free_spaces(p)
        self.colonists = colonists(p)
        self.island = island_filled(p)
        self.points = score_seat(p)["total"]
        self.slots = tuple(_slots(p, cap))
        self.staffed: dict[int, float] = {}   # colonists -> _staffed_worth(self.slots, colonists)
        # estimate(), term by term in its order: each city building's (constant, rate, factor),
        # worth constant + rate * rounds left * factor; each good's worth per round left.
        terms = []
        for b, staff in p.city.items():
            if b in LARGE and not staff:
                terms.append((0.5 * BONUS_OF[b](p), 0.0, 0.0))
            elif GOOD_OF[b] is None and VIOLET_RATE[b]:
                terms.append((0.0, VIOLET_RATE[b], 0.8 if staff else UNSTAFFED * 0.8))
        self.city_terms = tuple(terms)
        worths = []
        for g, k in enumerate(made):
            pairs = p.tiles[g] if g == CORN else min(p.tiles[g], cap[g])
            w = GOOD_WORTH[g] * (k + UNSTAFFED * max(0, pairs - k)) * 0.45
            if w:
                worths.append(w)
        self.made_terms = tuple(worths)
        # _tile_value() of each good before its rounds: with 4 rounds left or fewer, and with more.
        self.tile_rates = tuple(tuple(PLANTATION * (1.0 if k == CORN or cap[k] > p.tiles[k] else idle)
                                      * GOOD_WORTH[k] for k in range(len(GOODS)))
                                for idle in (0.1, 0.35))

    def staffed_worth(self, colonists: int) -> float:
        worth = self.staffed.get(colonists)
        if worth is None:
            worth = self.staffed[colonists] = _staffed_worth(self.slots, colonists)
        return worth


_BOARDS: dict[tuple, Board] = {}
_PLACEMENTS: dict[tuple, tuple[int, ...]] = {}
_REMEMBERED = 8192      # boards a cache holds before it starts again


def _remembered(cache: dict, key: tuple, make, p):
    """make(p), kept in `cache` under `key`, which holds everything make reads of p."""
    found = cache.get(key)
    if found is None:
        if len(cache) >= _REMEMBERED:
            cache.clear()
        found = cache[key] = make(p)
    return found


def board(p) -> Board:
    """The policy's Board of player p."""
    return _remembered(_BOARDS, (tuple(p.tiles), tuple(p.worked), tuple(p.city.items()), p.san_juan,
                                 p.chips + p.paper), Board, p)


def building_worth(s, p, b: int, rl: float, cap: Sequence[int]) -> float:
    """What building b adds to the board by the game's end: printed VP, its bonus as the board
    stands for a large one, its income over the rounds left. `cap`: the board's capacity."""
    building = BUILDINGS[b]
    v = building.vp
    if b in LARGE:
        built = p.copy()            # the bonus as if it were built and occupied
        built.city[b] = 1
        return v + BONUS_OF[b](built) + 0.25 * rl
    g = building.good
    if g is None:
        return v + VIOLET_RATE[b] * rl * 0.8
    if cap[g] and building.circles == 1:      # a small one beside a building of its good
        return v + 0.1 * rl
    spare = p.tiles[g] + 1 - cap[g]     # plantations that would lack a building
    use = max(0, min(building.circles, spare))
    return v + use * GOOD_WORTH[g] * 0.35 * rl


def _build(s, seat, options, rl):
    p = s.players[seat]
    builder = seat == s.chooser
    cv = DOUBLOON * min(1.0, rl / 6)   # money keeps little worth near the end
    cap = board(p).cap
    best, top = None, 0.0
    for key in options:
        b = BY_KEY[key]
        v = building_worth(s, p, b, rl, cap) - build_cost(p, b, builder) * cv
        if v > top:
            best, top = key, v
    return [best] if best is not None else []


def _tile_value(b: Board, k: int, rl: float) -> float:
    """A face-up tile of kind k (a good, or QUARRY) on board b, over the rounds left (the
    heuristic's scale)."""
    rounds = min(rl, 8)
    if k == QUARRY:
        return QUARRY_WEIGHT * rounds * min(1.0, b.free / 4)
    return b.tile_rates[rl > 4][k] * rounds / 2


def _best_tile(b: Board, kinds, rl: float) -> float:
    """The most _tile_value() of the plantation kinds, 0.0 for none (the rates before their
    rounds compared, which orders them the same)."""
    rates = b.tile_rates[rl > 4]
    return max([rates[k] for k in kinds], default=0.0) * min(rl, 8) / 2


def _settle(s, seat, options):
    p = s.players[seat]
    rl = rounds_left(s)
    b = board(p)
    return [max(options, key=lambda o: _tile_value(b, QUARRY if o == "quarry" else GOODS.index(o), rl))]


# ---------------------------------------------------------------- mayor placement

def placement(p) -> tuple[int, ...]:
    """Colonists wanted on each of p's groups of circles, in the order mayor.groups asks them:
    filled greedily by worth per colonist, a plantation with a building circle to match makes a
    good, violet buildings by their rate, then corn and quarries; the engine puts the rest
    anywhere. A search asks it for the same few boards again and again."""
    return _remembered(_PLACEMENTS, (tuple(p.tiles), tuple(p.city), colonists(p)), _placement, p)


def _placement(p) -> tuple[int, ...]:
    tiles, city = p.tiles, p.city
    left = colonists(p)
    cap = capacity(city)
    # (worth per colonist, good of a pair or a single group's name, how many)
    units: list[tuple[float, int | str, int]] = []
    for g in range(1, len(GOODS)):
        pairs = min(tiles[g], cap[g])
        if pairs:
            units.append((GOOD_WORTH[g] / 2 + 0.1, g, pairs))
    for b in city:
        if GOOD_OF[b] is None:
            units.append((4.0 if b in LARGE else VIOLET_RATE[b] * 3, BUILDINGS[b].key, 1))
    if tiles[CORN]:
        units.append((0.6, GOODS[CORN], tiles[CORN]))
    if tiles[QUARRY]:
        units.append((0.5, "quarry", tiles[QUARRY]))
    units.sort(key=lambda u: -u[0])
    want: dict[str, int] = {}
    for _, what, k in units:
        if isinstance(what, int):   # pairs: one on a plantation, one in a building of its good
            take = min(k, left // 2)
            want[GOODS[what]] = take
            left -= 2 * take
            for b in PRODUCERS[what]:
                if b in city:
                    put = min(CIRCLES[b], take)
                    want[BUILDINGS[b].key] = put
                    take -= put
        else:
            want[what] = min(k, left)
            left -= want[what]
    return tuple(want.get(group, 0) for group, _ in groups(p))


def _place(s, seat, options):
    k = placement(s.players[seat])[s.group]
    return [min(max(k, options[0]), options[-1])]


# ---------------------------------------------------------------- roles

def _slots(p, cap: Sequence[int]) -> list[tuple[float, int]]:
    """A board's circles as (worth per colonist per round, colonists it takes), best first (the
    heuristic's slots, roughly): production pairs at half a barrel a colonist, corn a barrel,
    violet buildings their rate, a large building its bonus, quarries a little."""
    slots = []
    for g in range(1, len(GOODS)):
        slots += [PAIR_SLOT[g]] * min(p.tiles[g], cap[g])
    slots += [CORN_SLOT] * p.tiles[CORN]
    for b in p.city:
        if GOOD_OF[b] is None:
            slots.append((1.0 + BONUS_OF[b](p) if b in LARGE else VIOLET_RATE[b] + 0.2, 1))
    slots += [QUARRY_SLOT] * p.tiles[QUARRY]
    slots.sort(reverse=True)
    return slots


def _staffed_worth(slots: Sequence[tuple[float, int]], colonists: int) -> float:
    """What the slots make per round with this many colonists on the best of them."""
    worth = 0.0
    for per, cost in slots:
        if cost <= colonists:
            worth += per * cost
            colonists -= cost
    return worth


def _colonists_worth(b: Board, k: int, rl: float) -> float:
    """k more colonists: what they add to board b's best staffing over the rounds left."""
    if not k:
        return 0.0
    have = b.colonists
    return (b.staffed_worth(have + k) - b.staffed_worth(have)) * COLONIST * min(rl, 6)


def _made(s, b: Board) -> float:
    """The worth of the barrels board b makes that the supply still has."""
    barrels = s.barrels
    return sum(GOOD_WORTH[g] * min(k, barrels[g]) for g, k in b.making)


def _trade(s, seat: int) -> list[int]:
    """Doubloons each seat earns if `seat` takes the trader: each sells his dearest barrel the
    house still takes, in turn order."""
    house = list(s.house)
    out = [0] * s.n
    for i in turn_order(s.n, seat):
        if len(house) >= TRADING_HOUSE_SPACES:
            break
        p = s.players[i]
        kinds = sellable(p.goods, house, occupied(p, OFFICE))
        if kinds:
            prices = [sale_price(p, g, i == seat) for g in kinds]
            out[i] = max(prices)
            house.append(kinds[prices.index(out[i])])     # the first of the dearest
    return out


def role_values(s, seat: int, cards) -> dict[str, float]:
    """What each of the role cards brings this seat, less part of what its phase gives the
    others: a cheap cousin of the heuristic's role values (its scale and weights), since a
    playout asks it at every role pick."""
    players = s.players
    me = players[seat]
    n = s.n
    boards = [board(p) for p in players]
    rl = _rounds_left(s, boards) + 1
    dv = DOUBLOON * min(1.0, rl / 4)
    vals = {}
    for card in cards:
        role = ROLE_OF[card]
        v = s.roles[card] * dv * ROLE_MONEY
        if role == "craftsman":
            own = boards[seat]
            extra = max((GOOD_WORTH[g] for g, k in own.making if s.barrels[g] > k), default=0.0)
            v += _made(s, own) + extra - OTHERS * sum(_made(s, boards[i]) for i in range(n) if i != seat)
        elif role == "trader":
            sold = _trade(s, seat)
            v += (sold[seat] - OTHERS * (sum(sold) - sold[seat])) * dv
        elif role == "captain":
            held = sum(me.goods)
            v += 0.8 * (held + 1 if held else 0) - 0.4 * OTHERS * sum(sum(q.goods) for i, q in enumerate(players)
                                                                      if i != seat)
        elif role == "builder":
            options = build_options(s, seat, True)
            cap = boards[seat].cap
            best = max((building_worth(s, me, BY_KEY[k], rl, cap) - build_cost(me, BY_KEY[k], True) * dv
                        for k in options), default=0.0)
            v += max(0.0, best) + dv - OTHERS * 0.5 * sum(0.3 * q.doubloons for i, q in enumerate(players)
                                                          if i != seat)
        elif role == "settler":
            row = {s.kinds[t] for t in s.row}
            mine = _best_tile(boards[seat], row, rl)
            if s.quarries:
                mine = max(mine, _tile_value(boards[seat], QUARRY, rl))
            v += mine - OTHERS * 0.7 * sum(_best_tile(boards[i], row, rl) for i in range(n) if i != seat)
        elif role == "mayor":
            ship = s.colonist_ship
            v += _colonists_worth(boards[seat], share(ship, n, 0) + (s.colonist_supply > 0), rl)
            v -= OTHERS * sum(_colonists_worth(boards[i], share(ship, n, k), rl)
                              for k, i in enumerate(turn_order(n, seat)) if k)
        else:   # prospector
            v += dv
        vals[card] = v
    return vals


def _role(s, seat, options, rnd):
    vals = role_values(s, seat, options)
    return [max(options, key=lambda r: vals[r] + rnd.random() * ROLE_NOISE)]


# ---------------------------------------------------------------- captain and trade

def _load(s, seat, options):
    p = s.players[seat]

    def score(o):
        name, ship = o.split(":")
        held = p.goods[GOODS.index(name)]
        if ship == WHARF_SHIP:
            return held - 0.5
        i = s.ship_sizes.index(int(ship))
        return min(held, s.ship_sizes[i] - s.ships[i][1]) - 0.01 * PRICE[GOODS.index(name)]
    return [max(options, key=score)]


def choose(s, seat, rnd) -> list:
    """The playout policy's pick for the seat's pending decision."""
    _, kind, options, lo, hi = s.pending
    if hi == 0:
        return []
    if kind == "role":
        return _role(s, seat, options, rnd)
    if kind == "settle":
        return _settle(s, seat, options)
    if kind == "build":
        return _build(s, seat, options, rounds_left(s))
    if kind == "place":
        return _place(s, seat, options)
    if kind == "load":
        return _load(s, seat, options)
    if kind in ("craftsman", "sell", "windrose"):
        p = s.players[seat]
        if kind == "sell":
            return [max(options, key=lambda o: sale_price(p, GOODS.index(o), seat == s.chooser))]
        return [max(options, key=lambda o: PRICE[GOODS.index(o)])]
    if kind == "warehouse":
        p = s.players[seat]
        return sorted(options, key=lambda o: -p.goods[GOODS.index(o)] * (PRICE[GOODS.index(o)] + 1))[:lo]
    # hacienda, hospice, mayor's privilege, university: a free tile or colonist is always taken
    return list(options[:hi])


# ---------------------------------------------------------------- evaluation

def estimate(s, seat: int, rl: float) -> float:
    """What a seat's position should be worth at the game's end, in VP: its score now, what its
    unoccupied large buildings would add, its production over the rounds left (idle pairs, a
    plantation and a building circle of its good, at UNSTAFFED of their worth: without them a
    building bought looks like money lost), money and goods. Compared between seats, not an
    exact forecast. The board's part is its Board's terms."""
    p = s.players[seat]
    return _estimate(p, board(p), rl)


def estimates(s) -> list[float]:
    """estimate() of every seat."""
    boards = [board(p) for p in s.players]
    rl = _rounds_left(s, boards)
    return [_estimate(p, b, rl) for p, b in zip(s.players, boards)]


def _estimate(p, b: Board, rl: float) -> float:
    total: float = b.points
    for constant, rate, factor in b.city_terms:
        total += constant + rate * rl * factor
    for worth in b.made_terms:
        total += worth * rl
    total += p.doubloons * DOUBLOON * min(1.0, rl / 4) + sum(p.goods) * BARREL
    total += 0.15 * b.island * min(1.0, rl / 4)
    return total
