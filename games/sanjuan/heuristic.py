"""The rule-of-thumb player: values every option with values.py and picks the best.

It reads only its seat's view. Roles: what the privilege and the phase bring this seat, minus
what the phase gives the others. Builds: the building's worth (VP, end bonus, income over the
rounds left) minus what it costs. Cards: pay, discard and tuck the least useful ones, keep the
most useful. Goods: produce and sell as many as allowed, the dearest first.
"""
from __future__ import annotations

from games.rules_of_thumb import RulesOfThumb
from games.sanjuan.cards import (ARCHIVE, BY_KEY, CATHEDRAL, COST, GOLD_MINE,
                                 GOLDSMITH, LIBRARY, MARKET_HALL, MARKET_STAND, PRODUCTION, TILES, VP,
                                 WELL)

from . import values as V
from .rules import black_market_discount, council_keep, cover_value, production_cap, sale_price, trade_cap
from .state import ROLES

TILE_INDEX = {t: i for i, t in enumerate(TILES)}
# Weights of the rules of thumb (HeuristicBot(seed, **weights) overrides them, for tuning).
WEIGHTS = {
    "others": 0.6,         # how much a phase's gift to the other players counts against a role
    "build_anyway": 0.3,   # builder: how likely one builds later this round without the privilege
    "build_min": 0.15,     # build only what is worth more than this after paying
    "full_hand": 0.5,      # councillor/prospector: penalty per card beyond the room left in hand
    "tuck": 0.6,           # chapel: tuck the weakest card when it is worth less than this
}


class Seat:
    """What one seat knows, read from its view: its cards, every city, the game's progress.
    (policy.py fills the fields the role values read from a sampled state, to reuse them.)"""

    def __init__(self, view: dict) -> None:
        self.view = view
        me = self.seat = view["seat"]
        you = view["you"]
        players = view["players"]
        self.n = len(players)
        self.hand = [c for c, _ in you["hand"]]
        self.kind = {c: BY_KEY[k] for c, k in you["hand"]}
        for pv in players:
            for b, k, _ in pv["city"]:
                self.kind[b] = BY_KEY[k]
        for c, k in you["drawn"]:
            self.kind[c] = BY_KEY[k]
        self.cathedral = view["cathedral"][0] if view["cathedral"] else None
        if self.cathedral is not None:
            self.kind[self.cathedral] = CATHEDRAL
        self.hand_kinds = [self.kind[c] for c in self.hand]
        self.hand_limit = you["hand_limit"]
        mine = players[me]
        self.city = [BY_KEY[k] for _, k, _ in mine["city"]]
        inactive = set(mine["inactive"])
        self.active = {self.kind[b] for b, _, _ in mine["city"] if b not in inactive}
        self.goods = [b for b, _, g in mine["city"] if g]
        self.black_market = black_market_discount(self.active, len(self.goods))
        self.my_goods, self.my_empty = _goods_and_empty(mine)
        self.most = max(pv["buildings"] for pv in players)
        self.rl = V.rounds_left(self.most)
        self.cv = V.card_value(self.rl)
        self.price = V.sale_prices(_next_prices(view))   # by kind, at the next trader phase
        self.good = V.good_values(self.rl)
        self.others = [other_seat(pv["hand"], *_goods_and_empty(pv), self.price, self.good)
                       for i, pv in enumerate(players) if i != me]
        self.others6 = sum(1 for i, pv in enumerate(players) if i != me
                           for _, k, _ in pv["city"] if BY_KEY[k] in V.SIX)
        self.score = sum(VP[k] for k in self.city) + mine["chapel"] + mine["bank"] + mine["harbor"]
        self.priv = (2 if view["doubled"] else 1) if view["chooser"] == me else 0

    # ------------------------------------------------------------ values

    def holds(self, cards) -> dict[int, float]:
        kinds = [self.kind[c] for c in cards]
        vals = V.hold_values(kinds, self.city, self.rl, self.others6, self.score)
        return dict(zip(cards, vals))

    def build_cost(self, card: int, priv: int) -> int:
        # Worked out in place, in other steps to the same number, by best_builds below and
        # policy.py's builds: the search's playouts ask too often for a call.
        k = self.kind[card]
        need = max(0, COST[k] - priv - V.discount(k, self.active))
        return max(0, need - self.black_market)

    def build_score(self, card: int, priv: int) -> float:
        k = self.kind[card]
        w = V.worth(k, self.city, self.hand_kinds, self.rl, self.others6, self.score)
        return w - self.build_cost(card, priv) * self.cv

    def best_builds(self, priv: int) -> tuple[float, float]:
        """The score of the best building this seat could pay for with the privilege `priv`, and
        of the best without it, 0 for none. (Each building's worth is worked out once for both.)"""
        with_p = without = 0.0
        owned = self.city
        nprod = V.production_count(owned)
        hand = len(self.hand)
        cands = self.hand if self.cathedral is None else [*self.hand, self.cathedral]
        kinds = self.kind
        cv = self.cv
        active = self.active
        bm = self.black_market
        hand_kinds, rl, others6, score = self.hand_kinds, self.rl, self.others6, self.score
        # Comparisons rather than max() and build_cost() (calls): a search's playouts ask at every
        # role pick that offers the builder.
        for c in cands:
            k = kinds[c]
            if not PRODUCTION[k] and k in owned:
                continue
            room = hand - (k != CATHEDRAL)
            # build_cost without and with the privilege
            full = COST[k] - (V.DISCOUNTER[k] in active) - bm
            if full < 0:
                full = 0
            cost = full - priv if full - priv > 0 else 0
            if cost > room:
                continue     # and dearer still without the privilege
            w = V.worth(k, owned, hand_kinds, rl, others6, score, nprod)
            v = w - cost * cv
            if v > with_p:
                with_p = v
            v = w - full * cv
            if full <= room and v > without:
                without = v
        return with_p, without

    # ------------------------------------------------------------ roles

    def role_values(self, w: dict, roles=ROLES) -> dict[str, float]:
        """What each of `roles` is worth to this seat now. (Plain loops, not comprehensions, each
        a call in Python 3.11: a search's playouts ask at every role pick.)"""
        cv = self.cv
        doubled = 2 if LIBRARY in self.active and self.n > 2 else 1

        out = {}
        if "builder" in roles:
            # The privilege saves cards (and may make a build possible at all).
            with_p, without = self.best_builds(doubled)
            others_build: float = 0
            for hand, _, _ in self.others:
                others_build += 0.8 if hand >= 3 else 0.3
            out["builder"] = ((with_p - w["build_anyway"] * without) + (doubled * cv if with_p > 0 else 0)
                              - w["others"] * others_build)
        if "producer" in roles:
            # Goods on empty buildings, the dearest first.
            good = self.good
            empty = []
            for k in self.my_empty:
                empty.append(good[k])
            empty.sort(reverse=True)
            cap = production_cap(doubled, self.active)
            gain = sum(empty[:cap])
            if len(empty[:cap]) >= 2 and WELL in self.active:
                gain += cv
            theirs = 0
            for _, _, e in self.others:
                theirs += e
            out["producer"] = gain - w["others"] * theirs
        if "trader" in roles:
            # What the goods fetch now.
            price = self.price
            mine = []
            for k in self.my_goods:
                mine.append(price[k])
            mine.sort(reverse=True)
            cap = trade_cap(doubled, self.active)
            sold = mine[:cap]
            gain = (sum(sold) + (MARKET_HALL in self.active and bool(sold))
                    + (MARKET_STAND in self.active and len(sold) >= 2))
            theirs = 0
            for _, g, _ in self.others:
                theirs += g
            out["trader"] = (gain - w["others"] * theirs) * cv
        # A full hand makes cards worth less: the surplus would be discarded at round start.
        room = self.hand_limit - len(self.hand)
        full = (2 - room) * w["full_hand"] if room <= 1 else 0
        if "councillor" in roles:
            # A card, chosen among five (or eight).
            keep = council_keep(self.active)
            out["councillor"] = (keep * cv + 0.3 * doubled + (0.2 if ARCHIVE in self.active else 0)
                                 - w["others"] * len(self.others) * 0.8 * cv) - full
        if "prospector" in roles:
            # A card for nobody else.
            out["prospector"] = doubled * cv + (0.3 if GOLD_MINE in self.active else 0) + (
                0.2 if GOLDSMITH in self.active else 0) - full
        return out


def other_seat(hand: int, goods: list[int], empty: list[int], price: tuple, good: tuple) -> tuple:
    """What the role values need of another seat, from its hand size and the kinds of its
    buildings holding a good and of its empty production buildings: its hand size, its dearest
    good's price (`price`: sale prices by kind), its best empty building's good value (`good`: by
    kind), 0 for none."""
    return hand, max([price[k] for k in goods]) if goods else 0, max([good[k] for k in empty]) if empty else 0


def _goods_and_empty(pv: dict) -> tuple[list[int], list[int]]:
    """Kinds of a player's buildings holding a good, and of its empty production buildings."""
    goods, empty = [], []
    for _, key, good in pv["city"]:
        k = BY_KEY[key]
        if good:
            goods.append(k)
        elif PRODUCTION[k]:
            empty.append(k)
    return goods, empty


def _next_prices(view: dict) -> tuple:
    """The prices the next trader phase will pay: known once every tile has been turned,
    otherwise the average of the tiles not turned yet."""
    seen = [TILE_INDEX[tuple(t.values())] for t in view["tiles"]]
    if len(seen) == len(TILES):
        now = seen.index(TILE_INDEX[tuple(view["tile"].values())])
        return TILES[seen[(now + 1) % len(TILES)]]
    rest = [TILES[i] for i in range(len(TILES)) if i not in seen]
    return tuple(sum(t[g] for t in rest) / len(rest) for g in range(5))


class HeuristicBot(RulesOfThumb):
    WEIGHTS = WEIGHTS

    def seat(self, view: dict) -> Seat:
        return Seat(view)

    # Each handler returns a legal pick: between lo and hi distinct options.

    def _role(self, k: Seat, options, lo, hi):
        vals = k.role_values(self.w, options)
        return [max(options, key=lambda r: (vals[r], self.rng.random()))]

    def _library(self, k: Seat, options, lo, hi):
        return ["use"]

    def _build(self, k: Seat, options, lo, hi):
        best, score = None, self.w["build_min"]
        for c in options:
            s = k.build_score(c, k.priv)
            if s > score:
                best, score = c, s
        # The last round: anything that adds points beats cards that will not be spent.
        if best is None and k.most >= 11:
            best = max(options, key=lambda c: VP[k.kind[c]], default=None)
        return [best] if best is not None else []

    def _cover(self, k: Seat, options, lo, hi):
        building = k.kind[k.view["you"]["building"][0]]

        def loss(b):
            kind = k.kind[b]
            return V.worth(kind, k.city, k.hand_kinds, k.rl) - cover_value(kind) * k.cv
        best = min(options, key=loss)
        if lo or loss(best) < -0.5 or (COST[building] >= 5 and loss(best) < 0.5 and k.rl < 3):
            return [best]
        return []

    def _black_market(self, k: Seat, options, lo, hi):
        # A good is worth more than a weak card; spend goods only when the cards run short.
        return sorted(options, key=lambda b: V.good_value(k.kind[b], k.rl))[:lo]

    def _pay(self, k: Seat, options, lo, hi):
        h = k.holds(options)
        return sorted(options, key=lambda c: (h[c], COST[k.kind[c]]))[:lo]

    def _discard(self, k: Seat, options, lo, hi):
        return self._pay(k, options, lo, hi)

    def _limit(self, k: Seat, options, lo, hi):
        return self._pay(k, options, lo, hi)

    def _keep(self, k: Seat, options, lo, hi):
        h = k.holds([c for c in options])
        # Held twice a city card is worth nothing: value a kept pair one by one.
        picks: list[int] = []
        for c in sorted(options, key=lambda c: -h[c]):
            if len(picks) == lo:
                break
            if not PRODUCTION[k.kind[c]] and any(k.kind[c] == k.kind[x] for x in picks):
                continue
            picks.append(c)
        for c in options:
            if len(picks) < lo and c not in picks:
                picks.append(c)
        return picks

    def _office(self, k: Seat, options, lo, hi):
        h = k.holds(options)
        weak = sorted((c for c in options if h[c] < 0.6), key=lambda c: h[c])
        return weak[:hi]

    def _chapel(self, k: Seat, options, lo, hi):
        h = k.holds(options)
        worst = min(options, key=lambda c: h[c])
        # A tucked card is a sure VP; a card in hand is a payment worth `cv` and maybe a building.
        if h[worst] < 1 - k.cv + self.w["tuck"] and (len(options) >= 3 or k.rl < 3):
            return [worst]
        return []

    def _bank(self, k: Seat, options, lo, hi):
        if k.rl > 1.5:
            return []
        h = k.holds(options)
        keep = max(options, key=lambda c: h[c]) if k.rl > 0.9 and len(options) > 3 else None
        return [c for c in options if c != keep]

    def _produce(self, k: Seat, options, lo, hi):
        return sorted(options, key=lambda b: -V.good_value(k.kind[b], k.rl))[:hi]

    def _sell(self, k: Seat, options, lo, hi):
        tile = k.view["tile"]
        prices = tuple(tile.values())

        return sorted(options, key=lambda b: -sale_price(prices, k.kind[b]))[:hi]
