"""San Juan card data, loaded once from cards.toml into flat tables.

Kinds are numbered in file order; a card instance is an int id whose kind is `manifest[id]`.
The hot paths of the engine index these tuples instead of looking at objects.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

_DATA = Path(__file__).with_name("cards.toml")


@dataclass(frozen=True)
class Kind:
    index: int
    key: str
    name: str
    production: bool
    good: str | None
    cost: int
    vp: int
    copies: int
    expansion_copies: int
    monument: bool
    cathedral: bool
    assumed: bool
    text: str

    @property
    def expansion_only(self) -> bool:
        return self.copies == 0


_RAW = tomllib.loads(_DATA.read_text(encoding="utf-8"))
ROLE_TEXT = {r["key"]: r["text"] for r in _RAW["role"]}


def _load() -> tuple[Kind, ...]:
    raw = _RAW["kind"]
    return tuple(
        Kind(
            index=i,
            key=k["key"],
            name=k["name"],
            production=k["type"] == "production",
            good=k.get("good"),
            cost=k["cost"],
            vp=k["vp"],
            copies=k["copies"],
            expansion_copies=k.get("expansion_copies", 0),
            monument=k.get("monument", False),
            cathedral=k.get("cathedral", False),
            assumed=k.get("assumed", False),
            text=k["text"],
        )
        for i, k in enumerate(raw)
    )


KINDS: tuple[Kind, ...] = _load()
BY_KEY = {k.key: k.index for k in KINDS}

# Per-kind columns, indexed by kind number.
COST = tuple(k.cost for k in KINDS)
VP = tuple(k.vp for k in KINDS)
PRODUCTION = tuple(k.production for k in KINDS)
KEY = tuple(k.key for k in KINDS)
NAME = tuple(k.name for k in KINDS)

GOODS = ("indigo", "sugar", "tobacco", "coffee", "silver")
GOOD = tuple(GOODS.index(k.good) if k.good else -1 for k in KINDS)

# Kind numbers the rules refer to by name.
INDIGO = BY_KEY["indigo_plant"]
SMITHY = BY_KEY["smithy"]
GOLD_MINE = BY_KEY["gold_mine"]
ARCHIVE = BY_KEY["archive"]
POOR_HOUSE = BY_KEY["poor_house"]
BLACK_MARKET = BY_KEY["black_market"]
TRADING_POST = BY_KEY["trading_post"]
WELL = BY_KEY["well"]
MARKET_STAND = BY_KEY["market_stand"]
CRANE = BY_KEY["crane"]
CHAPEL = BY_KEY["chapel"]
TOWER = BY_KEY["tower"]
AQUEDUCT = BY_KEY["aqueduct"]
CARPENTER = BY_KEY["carpenter"]
PREFECTURE = BY_KEY["prefecture"]
MARKET_HALL = BY_KEY["market_hall"]
QUARRY = BY_KEY["quarry"]
LIBRARY = BY_KEY["library"]
GUILD_HALL = BY_KEY["guild_hall"]
CITY_HALL = BY_KEY["city_hall"]
TRIUMPHAL_ARCH = BY_KEY["triumphal_arch"]
PALACE = BY_KEY["palace"]
GUARD_ROOM = BY_KEY["guard_room"]
OFFICE_BUILDING = BY_KEY["office_building"]
HUT = BY_KEY["hut"]
TAVERN = BY_KEY["tavern"]
PARK = BY_KEY["park"]
CUSTOMS_OFFICE = BY_KEY["customs_office"]
BANK = BY_KEY["bank"]
HARBOR = BY_KEY["harbor"]
GOLDSMITH = BY_KEY["goldsmith"]
RESIDENCE = BY_KEY["residence"]
CATHEDRAL = BY_KEY["cathedral"]
MONUMENTS = frozenset(k.index for k in KINDS if k.monument)

# Trading house tiles: prices of indigo, sugar, tobacco, coffee, silver (the San Juan rulebook).
TILES = ((1, 1, 1, 2, 2), (1, 1, 2, 2, 2), (1, 1, 2, 2, 3), (1, 2, 2, 2, 3), (1, 2, 2, 3, 3))
CUSTOMS_PRICE = 2


def _manifest(expansion: bool) -> tuple[int, ...]:
    kinds: list[int] = []
    for k in KINDS:
        kinds.extend([k.index] * (k.copies + (k.expansion_copies if expansion else 0)))
    return tuple(kinds)


# manifest[expansion][card id] -> kind number. The cathedral is not a deck card; in an expansion
# game it is card id len(manifest), recorded in CARD_KIND below.
MANIFEST = {False: _manifest(False), True: _manifest(True)}
# CARD_KIND[expansion][card id] -> kind number, including the cathedral's id when in play.
CARD_KIND = {False: MANIFEST[False], True: MANIFEST[True] + (CATHEDRAL,)}


# PRODUCTION_CARD[expansion][card id] -> whether it is a production building: read card by card.
PRODUCTION_CARD = {e: tuple([PRODUCTION[k] for k in CARD_KIND[e]]) for e in (False, True)}


def cathedral_id(expansion: bool) -> int | None:
    return len(MANIFEST[True]) if expansion else None


def catalog(expansion: bool) -> dict:
    """Static data a client needs to render views: the card kinds in play by key, the roles,
    and the goods in the order of a trading tile's prices."""
    cards = {
        k.key: {"name": k.name, "type": "production" if k.production else "city",
                "cost": k.cost, "vp": k.vp, "text": k.text}
        for k in KINDS
        if expansion or k.copies > 0
    }
    return {"cards": cards, "roles": dict(ROLE_TEXT), "goods": list(GOODS)}
