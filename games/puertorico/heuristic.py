"""Puerto Rico's rule-of-thumb player: it values every option in "VP equivalents" and picks the best.

It reads only its seat's view, and every rule it needs (a building's price after quarries, a sale
price, where a barrel may go, what a load scores, what is kept in storage, the end bonuses) comes
from the engine's functions of plain values. Everything in this file is judgement, not rules:

- Roles: what the phase and the privilege bring this seat, minus part of what the phase gives the
  others, plus the doubloons lying on the card.
- Settler: quarries and corn early, plantations that feed an idle production building.
- Mayor: staff production pairs (plantation + building circle) and the valuable buildings first.
- Builder: a building's VP, end bonus and income over the rounds left, against what it costs.
- Craftsman, trader: the most valuable barrel.
- Captain: each possible load is played out against a greedy continuation of the phase; the seat
  keeps its most valuable goods when it has to throw some away.
"""
from __future__ import annotations

from games.rules_of_thumb import RulesOfThumb

from .board import building_price, price, produce, storage_room
from .captain import WHARF_SHIP, barrels_kept, cargo_amount, cargo_choices, load_vp
from .components import (BUILDINGS, BY_KEY, CITY_HALL, CITY_SPACES, CONSTRUCTION_HUT, CORN,
                         CRAFTSMAN_EXTRA_BARRELS, CUSTOMS_HOUSE, FACTORY, FACTORY_BONUS, FORTRESS,
                         GOODS, GUILD_HALL, HACIENDA, HARBOR, HOSPICE, ISLAND_SPACES, LARGE_MARKET,
                         LARGE_WAREHOUSE, MAYOR_EXTRA_COLONISTS, OFFICE, PRODUCERS,
                         PROSPECTOR_DOUBLOONS, QUARRY, RESIDENCE, ROLE_OF, SMALL_MARKET,
                         SMALL_WAREHOUSE, TILE_KINDS, UNIVERSITY, WHARF)
from .craftsman import received
from .mayor import share
from .scoring import city_hall_vp, customs_house_vp, fortress_vp, guild_hall_vp, residence_vp
from .settler import may_quarry
from .trader import sellable

# Weights of the rules of thumb (HeuristicBot(seed, **weights) overrides them, for tuning).
WEIGHTS = {
    "others": 0.5,        # how much a phase's gift to each other player counts, at 4 players
    "doubloon": 0.5,      # VP a doubloon is worth while there is time to spend it
    "ship_barrel": 1.0,   # VP a barrel is worth as cargo
    "production": 0.55,   # how often, per round, a producing pair actually turns into a barrel
    "plantation": 0.5,    # a settled plantation, per round left, before it is staffed and paired
    "colonist": 0.6,      # a colonist on a useful empty circle, per round left (mayor)
    "quarry": 0.2,        # an occupied quarry, per round left while there is building to do
    "settler_others": 0.7,   # others settle later anyway: their plantations count less
    "builder_others": 0.5,   # and so do their buildings
    "role_money": 2.5,    # how much the doubloons lying on a role card count (and deny)
}

# What a working violet building brings per round, in VP equivalents (a guess tuned by play).
# Buildings whose worth depends on the board (factory, harbor, wharf, warehouses, markets) are
# worked out in `violet_rate`.
VIOLET_RATE = {
    HACIENDA: 0.15, CONSTRUCTION_HUT: 0.2, HOSPICE: 0.3, OFFICE: 0.25, UNIVERSITY: 0.3,
}
LARGE = (GUILD_HALL, RESIDENCE, FORTRESS, CUSTOMS_HOUSE, CITY_HALL)
PLANTATIONS = range(len(GOODS))


class Board:
    """One player's board, read from its entry in the view's "players"."""

    def __init__(self, pv: dict) -> None:
        self.doubloons = pv["doubloons"]
        self.goods = [pv["goods"][g] for g in GOODS]
        self.tiles = [pv["island"].get(k, [0, 0])[0] for k in TILE_KINDS]
        self.worked = [pv["island"].get(k, [0, 0])[1] for k in TILE_KINDS]
        self.city = {BY_KEY[key]: c for key, c in pv["city"]}
        self.san_juan = pv["san_juan"]
        self.vp = pv["vp_chips"] + pv["vp_paper"]
        self.free = CITY_SPACES - pv["city_spaces"]

    def has(self, b: int) -> bool:
        return self.city.get(b, 0) > 0

    @property
    def colonists(self) -> int:
        return self.san_juan + sum(self.worked) + sum(self.city.values())

    @property
    def island_free(self) -> int:
        return ISLAND_SPACES - sum(self.tiles)

    def production(self) -> list[int]:
        return produce(self.worked, self.city)

    def capacity(self, good: int) -> int:
        """Circles of the production buildings of a good the board owns (corn needs none)."""
        return sum(BUILDINGS[b].circles for b in PRODUCERS[good] if b in self.city)

    def pairs(self, good: int) -> int:
        """Barrels of a good the board could make with every circle staffed."""
        return self.tiles[good] if good == CORN else min(self.tiles[good], self.capacity(good))

    def sale(self, good: int, trader: bool) -> int:
        return price(good, trader, self.has(SMALL_MARKET), self.has(LARGE_MARKET))


class Seat:
    """What the seat knows from its view: every board, the supplies, and how long the game may last."""

    def __init__(self, view: dict, w: dict) -> None:
        self.view, self.w = view, w
        self.me = view["seat"]
        self.boards = [Board(pv) for pv in view["players"]]
        self.n = len(self.boards)
        self.mine = self.boards[self.me]
        self.order = [(self.me + i) % self.n for i in range(self.n)]   # turn order from this seat
        self.supply = [view["goods"][g] for g in GOODS]
        self.sizes = [sh["size"] for sh in view["ships"]]
        self.ships = [(None if sh["good"] is None else GOODS.index(sh["good"]), sh["load"])
                      for sh in view["ships"]]
        self.house = [GOODS.index(g) for g in view["trading_house"]]
        self.left = self.rounds_left()
        # What another player's gain costs this seat: all of it with two players, whose game is
        # zero-sum, and less the more players share the harm.
        self.rival = min(1.0, w["others"] * 3 / (self.n - 1))
        # Money buys buildings; in the last round there is little left to buy with it.
        self.dv = w["doubloon"] * min(1.0, self.left / 4)

    def rounds_left(self) -> float:
        """Rough rounds to go, this one included, from the three end triggers."""
        v = self.view
        if v["last_round"]:
            return 1.0
        most_built = max(CITY_SPACES - b.free for b in self.boards)
        by_city = (CITY_SPACES - most_built) / 0.9
        by_vp = v["vp_chips"] / (1.5 * self.n + 2)
        ship = max(self.n, v["colonists"]["ship"])
        by_colonists = v["colonists"]["supply"] / ship
        return max(1.0, 1 + min(by_city, by_vp, by_colonists))

    # ------------------------------------------------------------ what things are worth

    def good_value(self, b: Board, good: int) -> float:
        """A barrel: shipped for a VP, or sold for its price, whichever is worth more."""
        return max(self.w["ship_barrel"], b.sale(good, False) * self.dv)

    def production_value(self, b: Board, made: list[int]) -> float:
        """Barrels made, capped by the supply, plus the factory's doubloons."""
        got = [received(k, self.supply[g]) for g, k in enumerate(made)]
        value = sum(k * self.good_value(b, g) for g, k in enumerate(got))
        if b.has(FACTORY):
            value += FACTORY_BONUS[sum(1 for k in got if k)] * self.dv
        return value

    def kinds_made(self, b: Board) -> int:
        return sum(1 for g in PLANTATIONS if b.pairs(g))

    def violet_rate(self, b: Board, x: int) -> float:
        """What a violet building brings per round on board b."""
        made = sum(b.pairs(g) for g in PLANTATIONS)
        if x == FACTORY:
            return FACTORY_BONUS[min(5, self.kinds_made(b) + 1)] * self.dv * 0.8
        if x in (HARBOR, WHARF):
            return 0.25 * made + (0.3 if x == HARBOR else 0.1)
        if x in (SMALL_WAREHOUSE, LARGE_WAREHOUSE):
            return 0.1 * made
        if x in (SMALL_MARKET, LARGE_MARKET):
            return (1 if x == SMALL_MARKET else 2) * self.dv * (0.5 if made else 0.2)
        if x == CONSTRUCTION_HUT and self.view["quarries"] == 0:
            return 0.0
        return VIOLET_RATE.get(x, 0.0)

    def end_bonus(self, b: Board, x: int) -> float:
        """A large building's bonus at the end, as the board may stand then."""
        city = list(b.city) + [x]
        if x == GUILD_HALL:
            return guild_hall_vp(city) + 0.5 * (self.left - 1)
        if x == RESIDENCE:
            return residence_vp(min(ISLAND_SPACES, sum(b.tiles) + int(self.left / 2)))
        if x == FORTRESS:
            return fortress_vp(b.colonists + int(self.left))
        if x == CUSTOMS_HOUSE:
            return customs_house_vp(b.vp + int(2 * self.left))
        return city_hall_vp(city) + 0.5 * (self.left - 1)

    def staffing_chance(self, b: Board) -> float:
        """How likely a new building gets a colonist before the game ends: at once with a
        university, else in a mayor phase still to come."""
        v = self.view
        if b.has(UNIVERSITY) and (v["colonists"]["supply"] or v["colonists"]["ship"]):
            return 1.0
        if self.left > 1.5:
            return 0.9
        mayor_to_come = any(r["role"] == "mayor" and r["taken_by"] is None for r in v["roles"])
        return 0.5 if mayor_to_come else 0.0

    def building_worth(self, b: Board, x: int) -> float:
        """Building x on board b, in VP: printed VP, end bonus, income over the rounds left."""
        building = BUILDINGS[x]
        worth = float(building.vp)
        rounds = self.left - 1   # it works from the next round on, once staffed
        if x in LARGE:
            worth += self.end_bonus(b, x) * self.staffing_chance(b)
        elif building.good is not None:
            g = building.good
            # Circles that would find a plantation: what the board has beyond its buildings, and
            # one more to come while there are rounds to settle it.
            idle = b.tiles[g] + (1 if rounds > 2 else 0) - b.capacity(g)
            useful = max(0, min(building.circles, idle))
            worth += useful * self.good_value(b, g) * self.w["production"] * rounds
            if b.has(FACTORY) and useful and not b.pairs(g):
                worth += self.dv * rounds * 0.5
        else:
            worth += self.violet_rate(b, x) * rounds
        return worth

    def build_score(self, b: Board, x: int, builder: bool) -> float:
        return self.building_worth(b, x) - building_price(x, b.worked[QUARRY], builder) * self.dv

    def affordable(self, b: Board, builder: bool) -> list[int]:
        """Buildings board b could build in this builder phase (the view's supply and its money)."""
        supply = self.view["buildings"]
        return [x.index for x in BUILDINGS
                if supply[x.key] and x.index not in b.city and x.spaces <= b.free
                and building_price(x.index, b.worked[QUARRY], builder) <= b.doubloons]

    def best_build(self, b: Board, builder: bool) -> float:
        return max((self.build_score(b, x, builder) for x in self.affordable(b, builder)), default=0.0)

    def plantation_worth(self, b: Board, k: int) -> float:
        """A face-up tile of kind k (a good, or QUARRY) on board b, over the rounds left."""
        rounds = self.left - 1
        if not b.island_free or rounds <= 0:
            return 0.0
        if k == QUARRY:
            building_ahead = min(1.0, b.free / 4)
            return self.w["quarry"] * min(rounds, 8) * building_ahead
        if k == CORN:
            rate = 1.0
        elif b.capacity(k) > b.tiles[k]:
            rate = 1.0   # an idle production circle waits for it
        else:
            rate = 0.35 if rounds > 4 else 0.1   # it needs a building first
        return self.w["plantation"] * rate * self.good_value(b, k) * min(rounds, 8) / 2

    def settle_options(self, b: Board, settler: bool) -> list[int]:
        """The tile kinds board b may take in a settler phase (the settler, or another)."""
        row = {GOODS.index(g) for g in self.view["plantations"]["face_up"]}
        quarry = may_quarry(self.view["quarries"], settler, b.has(CONSTRUCTION_HUT))
        return sorted(row) + ([QUARRY] if quarry else [])

    def best_settle(self, b: Board, settler: bool) -> float:
        return max((self.plantation_worth(b, k) for k in self.settle_options(b, settler)), default=0.0)

    def colonists_worth(self, b: Board, k: int) -> float:
        """k more colonists on board b: what they add to the best placement, over the rounds left."""
        slots = placement_slots(self, b)
        gain = allocate(slots, b.colonists + k)[1] - allocate(slots, b.colonists)[1]
        return gain * self.w["colonist"] * min(self.left - 1, 6)

    # ------------------------------------------------------------ phases played out

    def trade(self) -> list[float]:
        """Doubloons each seat earns if this seat takes the trader: in turn order, each sells
        his best barrel the house accepts while it has room."""
        house = list(self.house)
        out = [0.0] * self.n
        for seat in self.order:
            b = self.boards[seat]
            kinds = sellable(b.goods, house, b.has(OFFICE))
            if kinds:
                g = max(kinds, key=lambda g: b.sale(g, seat == self.me))
                out[seat] = b.sale(g, seat == self.me)
                house.append(g)
        return out

    def ship(self, first: int, goods: list[list[int]], ships: list, wharfed: set,
             captain: int | None, captain_loaded: bool) -> tuple[list[int], list[list[int]]]:
        """Play out the loading turns from seat `first`, each seat loading as many barrels as it
        can (the wharf when no ship takes anything): VP per seat, and the goods left to store."""
        vp = [0] * self.n
        goods = [g[:] for g in goods]
        ships = list(ships)
        order = [(first + i) % self.n for i in range(self.n)]
        idle = 0
        while idle < self.n:
            for seat in order:
                loaded = self._greedy_load(seat, goods[seat], ships, wharfed)
                if loaded is None:
                    idle += 1
                    if idle >= self.n:
                        break
                    continue
                idle = 0
                captain_first = seat == captain and not captain_loaded
                captain_loaded = captain_loaded or captain_first
                vp[seat] += load_vp(loaded, self.boards[seat].has(HARBOR), captain_first)
        return vp, goods

    def _greedy_load(self, seat: int, goods: list[int], ships: list, wharfed: set) -> int | None:
        """The biggest load a seat can make now (it changes goods and ships), or None."""
        choices = cargo_choices(goods, ships, self.sizes)
        if choices:
            g, i = max(choices, key=lambda c: cargo_amount(goods[c[0]], self.sizes[c[1]], ships[c[1]][1]))
            amount = cargo_amount(goods[g], self.sizes[i], ships[i][1])
            ships[i] = (g, ships[i][1] + amount)
            goods[g] -= amount
            return amount
        if self.boards[seat].has(WHARF) and seat not in wharfed and any(goods):
            wharfed.add(seat)
            g = max(PLANTATIONS, key=lambda g: goods[g])
            amount = cargo_amount(goods[g], None)
            goods[g] -= amount
            return amount
        return None

    def kept_value(self, seat: int, goods: list[int]) -> float:
        """What a seat's goods left after loading are worth once stored: its warehouses take
        the most valuable kinds, the windrose the best remaining kind."""
        b = self.boards[seat]
        room = storage_room(b.has(SMALL_WAREHOUSE), b.has(LARGE_WAREHOUSE))
        kinds = sorted((g for g in PLANTATIONS if goods[g]),
                       key=lambda g: goods[g] * self.good_value(b, g), reverse=True)
        whole = set(kinds[:room])
        rest = kinds[room:]
        windrose = max(rest, key=lambda g: self.good_value(b, g), default=None)
        return sum(barrels_kept(goods[g], g in whole, g == windrose) * self.good_value(b, g)
                   for g in kinds)

    def captain_outcome(self, first: int, goods, ships, wharfed, captain, captain_loaded) -> float:
        """The captain phase from here for this seat: its VP and kept goods, less part of the
        others' VP and kept goods."""
        vp, left = self.ship(first, goods, ships, set(wharfed), captain, captain_loaded)
        score = 0.0
        for seat in range(self.n):
            gain = vp[seat] + 0.5 * self.kept_value(seat, left[seat])
            score += gain if seat == self.me else -self.rival * gain
        return score

    def held_outcome(self) -> float:
        """The same measure as `captain_outcome` with no captain phase: every seat keeps all."""
        score = 0.0
        for seat, b in enumerate(self.boards):
            gain = 0.5 * sum(b.goods[g] * self.good_value(b, g) for g in PLANTATIONS)
            score += gain if seat == self.me else -self.rival * gain
        return score

    # ------------------------------------------------------------ roles

    def role_values(self) -> dict[str, float]:
        me, others = self.mine, [b for i, b in enumerate(self.boards) if i != self.me]
        w = self.w
        out = {}
        out["settler"] = (self.best_settle(me, True)
                          - self.rival * sum(self.best_settle(b, False) for b in others) * w["settler_others"])
        ship = self.view["colonists"]["ship"]
        extra = MAYOR_EXTRA_COLONISTS if self.view["colonists"]["supply"] else 0
        out["mayor"] = (self.colonists_worth(me, share(ship, self.n, 0) + extra)
                        - self.rival * sum(self.colonists_worth(self.boards[s], share(ship, self.n, i))
                                            for i, s in enumerate(self.order) if i))
        out["builder"] = (self.best_build(me, True) + self.dv
                          - self.rival * sum(max(0.0, self.best_build(b, False)) for b in others) * w["builder_others"])
        made = [b.production() for b in self.boards]
        mine = self.production_value(me, made[self.me])
        # The privilege: one more barrel of a kind received, while the supply has one.
        best_extra = CRAFTSMAN_EXTRA_BARRELS * max(
            (self.good_value(me, g) for g in PLANTATIONS
             if received(made[self.me][g], self.supply[g]) and self.supply[g] > made[self.me][g]),
            default=0.0)
        out["craftsman"] = (mine + best_extra
                            - self.rival * sum(self.production_value(b, made[i])
                                                for i, b in enumerate(self.boards) if i != self.me))
        sold = self.trade()
        out["trader"] = (sold[self.me] - self.rival * (sum(sold) - sold[self.me])) * self.dv
        goods = [b.goods for b in self.boards]
        out["captain"] = (self.captain_outcome(self.me, goods, self.ships, (), self.me, False)
                          - self.held_outcome())
        out["prospector"] = PROSPECTOR_DOUBLOONS * self.dv
        return out


class HeuristicBot(RulesOfThumb):
    WEIGHTS = WEIGHTS

    def seat(self, view: dict) -> Seat:
        return Seat(view, self.w)

    # Each handler returns a legal pick: between lo and hi distinct options.

    def _role(self, k: Seat, options, lo, hi):
        values = k.role_values()
        money = {r["card"]: r["doubloons"] for r in k.view["roles"]}
        return self._best(options, lambda card: values[ROLE_OF[card]]
                          + money[card] * k.dv * k.w["role_money"])

    def _hacienda(self, k: Seat, options, lo, hi):
        # A free plantation, as long as it leaves room for the pick from the face-up row.
        return list(options) if k.mine.island_free >= 2 else []

    def _settle(self, k: Seat, options, lo, hi):
        # A tile is never a loss: always take the most useful one.
        kinds = {o: (QUARRY if o == "quarry" else GOODS.index(o)) for o in options}
        return self._best(options, lambda o: k.plantation_worth(k.mine, kinds[o]))

    def _hospice(self, k: Seat, options, lo, hi):
        return list(options)   # a free colonist

    def _university(self, k: Seat, options, lo, hi):
        return list(options)   # a free colonist

    def _mayor(self, k: Seat, options, lo, hi):
        return list(options)   # a free colonist

    def _place(self, k: Seat, options, lo, hi):
        want = placement(k, k.mine).get(k.view["placing"], 0)
        return [min(max(want, min(options)), max(options))]

    def _build(self, k: Seat, options, lo, hi):
        me = k.mine
        builder = k.view["chooser"] == k.me
        score = {o: k.build_score(me, BY_KEY[o], builder) for o in options}
        best = max(options, key=lambda o: (score[o], self.rng.random()))
        # Money buys only buildings: in the last round anything with VP is worth building.
        if k.view["last_round"]:
            return [best]
        if score[best] > 0:
            return [best]
        return []

    def _craftsman(self, k: Seat, options, lo, hi):
        return self._best(options, lambda o: k.good_value(k.mine, GOODS.index(o)))

    def _sell(self, k: Seat, options, lo, hi):
        me = k.mine
        trader = k.view["chooser"] == k.me
        best = max(options, key=lambda o: (me.sale(GOODS.index(o), trader), self.rng.random()))
        # A barrel sold for nothing is a VP thrown away.
        return [best] if me.sale(GOODS.index(best), trader) > 0 else []

    def _load(self, k: Seat, options, lo, hi):
        """Try each load, then play the rest of the phase out greedily."""
        v = k.view
        captain = v["chooser"]
        goods = [b.goods for b in k.boards]
        wharfed = set(v["wharf_used"]) | set(v["wharf_declined"])

        def outcome(o):
            good_name, ship = o.split(":")
            g = GOODS.index(good_name)
            mine = goods[k.me][:]
            ships = list(k.ships)
            used = set(wharfed)
            if ship == WHARF_SHIP:
                amount = cargo_amount(mine[g], None)
                used.add(k.me)
            else:
                i = k.sizes.index(int(ship))
                amount = cargo_amount(mine[g], k.sizes[i], ships[i][1])
                ships[i] = (g, ships[i][1] + amount)
            mine[g] -= amount
            first = captain == k.me and not v["captain_loaded"]
            now = load_vp(amount, k.mine.has(HARBOR), first)
            after = [mine if s == k.me else gs for s, gs in enumerate(goods)]
            return now + k.captain_outcome((k.me + 1) % k.n, after, ships, used, captain,
                                           v["captain_loaded"] or first)

        best = max(options, key=lambda o: (outcome(o), self.rng.random()))
        if lo == 0:   # only the wharf: declining it keeps the goods
            keep = k.captain_outcome((k.me + 1) % k.n, goods, k.ships, wharfed | {k.me}, captain,
                                     v["captain_loaded"])
            if keep > outcome(best):
                return []
        return [best]

    def _warehouse(self, k: Seat, options, lo, hi):
        me = k.mine
        worth = {o: me.goods[GOODS.index(o)] * k.good_value(me, GOODS.index(o)) for o in options}
        return sorted(options, key=lambda o: (-worth[o], o))[:lo]

    def _windrose(self, k: Seat, options, lo, hi):
        return self._best(options, lambda o: k.good_value(k.mine, GOODS.index(o)))


# ---------------------------------------------------------------- the mayor's placement

def placement_slots(k: Seat, b: Board) -> list[tuple[float, int, list[tuple[str, int]]]]:
    """The uses of board b's colonists, best first: (value per colonist and round, colonists,
    [(group, colonists)]). A production pair is a plantation and a building circle of its good;
    corn needs only the plantation; a violet building one colonist."""
    slots = []
    for g in PLANTATIONS:
        if g == CORN:
            slots += [(k.good_value(b, g), 1, [(GOODS[g], 1)])] * b.tiles[g]
            continue
        circles = [x for x in PRODUCERS[g] if x in b.city for _ in range(BUILDINGS[x].circles)]
        for x in circles[:b.tiles[g]]:
            slots.append((k.good_value(b, g) / 2, 2, [(GOODS[g], 1), (BUILDINGS[x].key, 1)]))
    for x in b.city:
        if BUILDINGS[x].good is None:
            value = (k.end_bonus(b, x) + 1.0 if x in LARGE else k.violet_rate(b, x) + 0.2)
            slots.append((value, 1, [(BUILDINGS[x].key, 1)]))
    if b.tiles[QUARRY]:
        slots += [(k.w["quarry"] if b.free else 0.05, 1, [("quarry", 1)])] * b.tiles[QUARRY]
    slots.sort(key=lambda s: -s[0])
    return slots


def allocate(slots, colonists: int) -> tuple[dict[str, int], float, int]:
    """Fill the best slots that fit: colonists per group, their value per round, colonists left."""
    want: dict[str, int] = {}
    value = 0.0
    left = colonists
    for per_colonist, cost, parts in slots:
        if cost <= left:
            for group, c in parts:
                want[group] = want.get(group, 0) + c
            value += per_colonist * cost
            left -= cost
    return want, value, left


def placement(k: Seat, b: Board) -> dict[str, int]:
    """Where board b's colonists go, as colonists per mayor group ("corn", "quarry", a building
    key): the best slots first; then every other circle, since every circle that can be filled
    must be. Idle colonists go to buildings first: an empty building circle calls for more
    colonists at the refill, and the game ends when they run out."""
    want, _, left = allocate(placement_slots(k, b), b.colonists)
    room = {BUILDINGS[x].key: BUILDINGS[x].circles for x in b.city}
    room.update({TILE_KINDS[t]: b.tiles[t] for t in range(len(TILE_KINDS))})
    for group, circles in room.items():
        extra = min(left, circles - want.get(group, 0))
        if extra > 0:
            want[group] = want.get(group, 0) + extra
            left -= extra
    return want
