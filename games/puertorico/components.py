"""Puerto Rico's components as flat tables: goods, island tiles, buildings, roles and the setup
for each number of players. Every number here is the rulebook's; a corrected
number is a one-line change. Nothing here is code with a decision in it.
"""
from __future__ import annotations

from dataclasses import dataclass

# Goods and island tiles. The five goods are numbered in the order of the plantation manifest
# (D20), which is also the order of their trading-house prices.
GOODS = ("corn", "indigo", "sugar", "tobacco", "coffee")
CORN, INDIGO, SUGAR, TOBACCO, COFFEE = range(5)
QUARRY = 5
TILE_KINDS = GOODS + ("quarry",)           # island tile kinds: a plantation of each good, a quarry
PRICE = (0, 1, 2, 3, 4)                    # the trading house pays this per barrel
PLANTATION_TILES = (10, 12, 11, 9, 8)      # the box's plantation tiles of each kind (50)
BARRELS = (10, 11, 11, 9, 9)               # the box's goods barrels of each kind
QUARRY_TILES = 8

ISLAND_SPACES = 12
CITY_SPACES = 12
TRADING_HOUSE_SPACES = 4
# What a privilege brings besides a phase's action.
PROSPECTOR_DOUBLOONS = 1    # the prospector's whole role
MAYOR_EXTRA_COLONISTS = 1   # from the supply, if it has one (D2)
CRAFTSMAN_EXTRA_BARRELS = 1  # of a kind received this phase, if the supply has one (D4)
WINDROSE_BARRELS = 1        # barrels of one kind kept without a warehouse at the captain's end
# Factory: doubloons by the number of kinds produced (0 to 5).
FACTORY_BONUS = (0, 0, 1, 2, 3, 5)
# Residence: extra VP by filled island spaces; up to nine filled spaces score the first entry.
RESIDENCE_BONUS = {10: 5, 11: 6, 12: 7}
RESIDENCE_BONUS_UP_TO_NINE = 4
FORTRESS_COLONISTS_PER_VP = 3
CUSTOMS_HOUSE_VP_PER_VP = 4


@dataclass(frozen=True)
class Building:
    index: int
    key: str
    name: str
    cost: int
    vp: int
    circles: int
    column: int           # the board column: at most this many occupied quarries reduce its cost
    copies: int           # in the box (3 to 5 players)
    good: int | None      # the good a production building makes
    guild_vp: int         # guild hall: 1 per small, 2 per large production building
    spaces: int           # city spaces: 2 for the five large buildings
    text: str

    @property
    def violet(self) -> bool:
        return self.good is None


def _b(key, name, cost, vp, circles, column, copies, good=None, guild_vp=0, large=False, text=""):
    return (key, name, cost, vp, circles, column, copies, good, guild_vp, 2 if large else 1, text)


_TABLE = (
    _b("small_indigo_plant", "Small indigo plant", 1, 1, 1, 1, 4, INDIGO, 1,
       text="Makes 1 indigo from an occupied indigo plantation when occupied."),
    _b("small_sugar_mill", "Small sugar mill", 2, 1, 1, 1, 4, SUGAR, 1,
       text="Makes 1 sugar from an occupied sugar plantation when occupied."),
    _b("indigo_plant", "Indigo plant", 3, 2, 3, 2, 3, INDIGO, 2,
       text="Makes up to 3 indigo, one per colonist here with an occupied indigo plantation each."),
    _b("sugar_mill", "Sugar mill", 4, 2, 3, 2, 3, SUGAR, 2,
       text="Makes up to 3 sugar, one per colonist here with an occupied sugar plantation each."),
    _b("tobacco_storage", "Tobacco storage", 5, 3, 3, 3, 3, TOBACCO, 2,
       text="Makes up to 3 tobacco, one per colonist here with an occupied tobacco plantation each."),
    _b("coffee_roaster", "Coffee roaster", 6, 3, 2, 3, 3, COFFEE, 2,
       text="Makes up to 2 coffee, one per colonist here with an occupied coffee plantation each."),
    _b("small_market", "Small market", 1, 1, 1, 1, 2,
       text="Trader: +1 doubloon when you sell a barrel."),
    _b("hacienda", "Hacienda", 2, 1, 1, 1, 2,
       text="Settler: you may first take the top face-down plantation as well."),
    _b("construction_hut", "Construction hut", 2, 1, 1, 1, 2,
       text="Settler: you may take a quarry instead of a plantation."),
    _b("small_warehouse", "Small warehouse", 3, 1, 1, 1, 2,
       text="Captain: keep all barrels of 1 kind besides the one barrel on your windrose."),
    _b("hospice", "Hospice", 4, 2, 1, 2, 2,
       text="Settler: you may put a colonist on the plantation or quarry you take."),
    _b("office", "Office", 5, 2, 1, 2, 2,
       text="Trader: you may sell a kind already in the trading house."),
    _b("large_market", "Large market", 5, 2, 1, 2, 2,
       text="Trader: +2 doubloons when you sell a barrel."),
    _b("large_warehouse", "Large warehouse", 6, 2, 1, 2, 2,
       text="Captain: keep all barrels of 2 kinds besides the one barrel on your windrose."),
    _b("factory", "Factory", 7, 3, 1, 3, 2,
       text="Craftsman: 1/2/3/5 doubloons for producing 2/3/4/5 kinds of goods."),
    _b("university", "University", 8, 3, 1, 3, 2,
       text="Builder: you may put a colonist on the building you build."),
    _b("harbor", "Harbor", 8, 3, 1, 3, 2,
       text="Captain: +1 VP each time you load goods."),
    _b("wharf", "Wharf", 9, 3, 1, 3, 2,
       text="Captain: once a phase, ship all barrels of one kind on your own ship of any size."),
    _b("guild_hall", "Guild hall", 10, 4, 1, 4, 1, large=True,
       text="Game end: +1 VP per small and +2 VP per large production building you own."),
    _b("residence", "Residence", 10, 4, 1, 4, 1, large=True,
       text="Game end: +4 VP for up to 9 filled island spaces, 5 for 10, 6 for 11, 7 for 12."),
    _b("fortress", "Fortress", 10, 4, 1, 4, 1, large=True,
       text="Game end: +1 VP per 3 colonists on your board."),
    _b("customs_house", "Customs house", 10, 4, 1, 4, 1, large=True,
       text="Game end: +1 VP per 4 VP in chips you hold."),
    _b("city_hall", "City hall", 10, 4, 1, 4, 1, large=True,
       text="Game end: +1 VP per violet building you own."),
)

BUILDINGS = tuple(Building(i, *row) for i, row in enumerate(_TABLE))
BY_KEY = {b.key: b.index for b in BUILDINGS}

# Building numbers the rules refer to by name.
(SMALL_MARKET, HACIENDA, CONSTRUCTION_HUT, SMALL_WAREHOUSE, HOSPICE, OFFICE, LARGE_MARKET,
 LARGE_WAREHOUSE, FACTORY, UNIVERSITY, HARBOR, WHARF, GUILD_HALL, RESIDENCE, FORTRESS,
 CUSTOMS_HOUSE, CITY_HALL) = (BY_KEY[k] for k in (
    "small_market", "hacienda", "construction_hut", "small_warehouse", "hospice", "office",
    "large_market", "large_warehouse", "factory", "university", "harbor", "wharf", "guild_hall",
    "residence", "fortress", "customs_house", "city_hall"))

# The production buildings of each good (corn needs none).
PRODUCERS = tuple(tuple(b.index for b in BUILDINGS if b.good == g) for g in range(len(GOODS)))

# Roles. Cards are named by role, the fifth player's second prospector "prospector_2".
ROLE_CARDS = ("settler", "mayor", "builder", "craftsman", "trader", "captain", "prospector",
              "prospector_2")
ROLE_OF = {c: ("prospector" if c == "prospector_2" else c) for c in ROLE_CARDS}
ROLE_TEXT = {
    "settler": "Everyone takes a face-up plantation; you may take a quarry instead.",
    "mayor": "Colonists arrive and everyone places them; you may take one more from the supply.",
    "builder": "Everyone may build one building; yours costs 1 doubloon less.",
    "craftsman": "Everyone produces goods; you then take 1 more barrel of a kind you produced.",
    "trader": "Everyone may sell one barrel to the trading house; you get 1 doubloon more.",
    "captain": "Everyone must ship goods for VP; you get 1 VP more on your first load.",
    "prospector": "You take 1 doubloon. Nobody else does anything.",
}


@dataclass(frozen=True)
class Table:
    """The setup for one number of players (the rulebook's setup and the official two-player rules)."""
    doubloons: int
    vp_chips: int
    colonists: int            # in the supply; the ship starts with one per player
    ships: tuple[int, ...]    # cargo ship capacities
    role_cards: int           # the first this many of ROLE_CARDS
    roles_per_round: int
    start_tiles: tuple[int, ...]   # starting plantation per seat, from the governor
    removed_tiles: int        # plantations of each kind left in the box (two players)
    removed_quarries: int     # quarries left in the box (two players)
    removed_barrels: int      # barrels of each kind left in the box (two players)
    one_violet_each: bool     # two players: 2 of each production building, 1 of each violet


TABLES = {
    2: Table(doubloons=3, vp_chips=65, colonists=40, ships=(4, 6), role_cards=7, roles_per_round=6,
             start_tiles=(INDIGO, CORN), removed_tiles=3, removed_quarries=3, removed_barrels=2,
             one_violet_each=True),
    3: Table(doubloons=2, vp_chips=75, colonists=55, ships=(4, 5, 6), role_cards=6, roles_per_round=3,
             start_tiles=(INDIGO, INDIGO, CORN), removed_tiles=0, removed_quarries=0, removed_barrels=0,
             one_violet_each=False),
    4: Table(doubloons=3, vp_chips=100, colonists=75, ships=(5, 6, 7), role_cards=7, roles_per_round=4,
             start_tiles=(INDIGO, INDIGO, CORN, CORN), removed_tiles=0, removed_quarries=0,
             removed_barrels=0, one_violet_each=False),
    # D16: the seed's 122 VP chips with five players.
    5: Table(doubloons=4, vp_chips=122, colonists=95, ships=(6, 7, 8), role_cards=8, roles_per_round=5,
             start_tiles=(INDIGO, INDIGO, INDIGO, CORN, CORN), removed_tiles=0, removed_quarries=0,
             removed_barrels=0, one_violet_each=False),
}


def building_copies(n: int) -> tuple[int, ...]:
    """Copies of each building on the board at the start, for n players."""
    if TABLES[n].one_violet_each:
        return tuple(1 if b.violet else 2 for b in BUILDINGS)
    return tuple(b.copies for b in BUILDINGS)
