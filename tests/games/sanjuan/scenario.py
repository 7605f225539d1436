"""Build San Juan positions by card names, for rules tests.

    s, rng = make([{"hand": ["sugar_mill", "well"], "city": ["indigo_plant", "smithy"]},
                   {"city": ["indigo_plant"]}],
                  deck=["statue", "hero"])          # top of the supply first
    start_round(s, rng, governor=0)                  # seat 0 is about to choose a role
    apply(s, 0, ["builder"], rng)

Cards named anywhere get the lowest unused ids of their kind; every other card of the manifest
goes to the supply below the named ones, in id order, so every card is in exactly one place.
"""
from __future__ import annotations

from games.events import Events
from games import sanjuan
from games.sanjuan import rules
from games.sanjuan.cards import BY_KEY, MANIFEST
from games.sanjuan.state import State
from protocol.fairness import local_streams


class _Ids:
    def __init__(self, expansion: bool) -> None:
        self.free = {}
        for card, kind in enumerate(MANIFEST[expansion]):
            self.free.setdefault(kind, []).append(card)

    def take(self, key: str) -> int:
        pool = self.free.get(BY_KEY[key])
        if not pool:
            raise ValueError(f"no {key} left in the manifest")
        return pool.pop(0)

    def rest(self) -> list[int]:
        return sorted(c for pool in self.free.values() for c in pool)


def make(players: list[dict], *, deck: list[str] = (), discard: list[str] = (),
         expansion: bool = False, names: list[str] | None = None, cathedral: bool = True,
         rest_to: str = "deck") -> tuple[State, object]:
    """Players: dicts with optional `hand`, `city`, `goods` (keys of buildings in the city that hold
    a good, one entry per good), `covered`, `chapel`, `bank`, `harbor` (lists of kind keys).
    `rest_to` says where the unnamed cards go: "deck" (under the named ones) or "discard"."""
    ids = _Ids(expansion)
    s = State(names or ["Ana", "Bo", "Cy", "Di"][: len(players)], expansion, False)
    for spec, p in zip(players, s.players):
        for field in ("city", "covered", "hand", "chapel", "bank", "harbor"):
            setattr(p, field, [ids.take(k) for k in spec.get(field, [])])
        for key in spec.get("goods", []):
            building = next(b for b in p.city if s.kinds[b] == BY_KEY[key] and b not in p.goods)
            p.goods[building] = None  # filled below, once the named deck cards are reserved
    top = [ids.take(k) for k in deck]
    s.discard = [ids.take(k) for k in discard]
    rest = ids.rest()
    for p in s.players:
        for building in p.goods:
            p.goods[building] = rest.pop(0)
    if rest_to == "discard":
        s.discard.extend(rest)
        rest = []
    s.deck = (top + rest)[::-1]
    for p in s.players:
        p.active = frozenset(s.kinds[b] for b in p.city)
    s.tiles = (0, 1, 2, 3, 4)
    s.stage = "role"
    if not cathedral:
        s.cathedral = None
    return s, local_streams("scenario")


def start_round(s: State, rng, governor: int = 0, taken: list[tuple[str, int]] = ()) -> list:
    """Begin role selection with `governor`; `taken` lists roles already chosen this round."""
    s.governor = governor
    events = Events()
    rules._begin_roles(s, rng, events)
    for role, seat in taken:
        s.roles_left.remove(role)
        s.taken.append((role, seat))
    if taken:
        s.pending = {}
        rules._next_role(s, rng, events)
    return events


def card(s: State, seat: int, key: str, where: str = "hand", nth: int = 0) -> int:
    """The id of the nth card of kind `key` in a seat's hand, city, drawn cards, ..."""
    found = [c for c in getattr(s.players[seat], where) if s.kinds[c] == BY_KEY[key]]
    return found[nth]


def keys(s: State, cards) -> list[str]:
    return [sanjuan.cards.KEY[s.kinds[c]] for c in cards]


def all_places(s: State) -> list[int]:
    """Every card id wherever it is; each must appear exactly once."""
    out = list(s.deck) + list(s.discard)
    for p in s.players:
        out += p.hand + p.city + p.covered + list(p.goods.values()) + p.chapel + p.bank + p.harbor + p.drawn
    if s.cathedral is not None:
        out.append(s.cathedral)
    return out
