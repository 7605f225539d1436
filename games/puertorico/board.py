"""Facts about a player's board and the supplies that several phases ask: what is occupied, what a
building costs, what a player produces, what a barrel sells for, how much he may store, where a
bonus colonist comes from, and the end triggers.

Each rule is a function of plain values (counts, flags, a city as building -> colonists), so a
computer player that reads only a view asks the same function as the engine; the functions
taking a Player just pick those values off the board.
"""
from __future__ import annotations

from functools import lru_cache

from games.events import say

from .components import (BUILDINGS, CITY_SPACES, CORN, GOODS, ISLAND_SPACES, LARGE_MARKET,
                         LARGE_WAREHOUSE, PRICE, PRODUCERS, QUARRY, SMALL_MARKET, SMALL_WAREHOUSE)
from .state import Player, State


SPACES = tuple(b.spaces for b in BUILDINGS)    # by building number


def occupied(p: Player, b: int) -> bool:
    """Only a building with a colonist on it works (R1:437)."""
    return p.city.get(b, 0) > 0


def island_filled(p: Player) -> int:
    return sum(p.tiles)


def island_full(p: Player) -> bool:
    return sum(p.tiles) >= ISLAND_SPACES


def city_used(p: Player) -> int:
    return sum(map(SPACES.__getitem__, p.city))


def free_spaces(p: Player) -> int:
    """Buildings may be moved in the city, so any free spaces will do for a large one (D12)."""
    return CITY_SPACES - city_used(p)


def colonists(p: Player) -> int:
    """Every colonist on the board: tiles, buildings and San Juan."""
    return p.san_juan + sum(p.worked) + sum(p.city.values())


def building_price(b: int, quarries: int, builder: bool) -> int:
    """What building `b` costs a player with `quarries` occupied quarries: its cost, less 1 for
    the builder, less the quarries up to the building's column; never below 0. Plain values, so
    that a screen showing prices from a view asks the same function as the builder phase."""
    building = BUILDINGS[b]
    return max(0, building.cost - builder - min(quarries, building.column))


@lru_cache(maxsize=None)
def building_prices(quarries: int, builder: bool) -> tuple[int, ...]:
    """`building_price` of every building, by number: the builder phase compares each with a
    purse on every turn, and a few dozen (quarries, builder) pairs are all there ever are."""
    return tuple(building_price(b, quarries, builder) for b in range(len(BUILDINGS)))


def build_cost(p: Player, b: int, builder: bool) -> int:
    return building_price(b, p.worked[QUARRY], builder)


def produce(worked, city: dict[int, int]) -> list[int]:
    """Barrels of each good a board makes, before the supply is counted, from the colonists on its
    plantations (`worked`, by tile kind) and in its city (building -> colonists): corn from its
    occupied plantations; any other good as many as both its occupied plantations and the
    colonists in its production buildings allow."""
    out = [0] * len(GOODS)
    out[CORN] = worked[CORN]
    for good in range(1, len(GOODS)):
        if worked[good]:    # no plantation of it worked, no barrel, whatever its buildings
            colonists = 0
            for b in PRODUCERS[good]:
                colonists += city.get(b, 0)
            out[good] = worked[good] if worked[good] < colonists else colonists
    return out


def production(p: Player) -> list[int]:
    return produce(p.worked, p.city)


def price(good: int, trader: bool, small_market: bool, large_market: bool) -> int:
    """What a barrel sells for: the trading house price, +1 for the trader, +1 for an occupied
    small market, +2 for an occupied large market."""
    return PRICE[good] + trader + small_market + 2 * large_market


def sale_price(p: Player, good: int, trader: bool) -> int:
    return price(good, trader, occupied(p, SMALL_MARKET), occupied(p, LARGE_MARKET))


def storage_room(small_warehouse: bool, large_warehouse: bool) -> int:
    """Kinds of goods a player keeps whole at the end of the captain phase, besides the single
    barrel on his windrose: 1 for an occupied small, 2 for a large warehouse, 3 for both."""
    return small_warehouse + 2 * large_warehouse


def warehouse_kinds(p: Player) -> int:
    return storage_room(occupied(p, SMALL_WAREHOUSE), occupied(p, LARGE_WAREHOUSE))


def colonist_available(s: State) -> bool:
    return s.colonist_supply > 0 or s.colonist_ship > 0


def take_bonus_colonist(s: State) -> None:
    """A hospice or university colonist comes from the supply, else from the ship (R1:522)."""
    if s.colonist_supply:
        s.colonist_supply -= 1
    else:
        s.colonist_ship -= 1


def trigger_end(s: State, ev: list | None, why: str) -> None:
    """An end condition: the game ends once this round is played out (D18)."""
    if not s.last_round:
        if ev is not None:
            say(ev, "last_round", lambda why=why: f"{why}: the game ends at the end of this round.")
    s.last_round = True
