"""Final scoring (docs/rules.md D9, D11): VP chips and paper, the printed VP of every
building, and the bonuses of the occupied large buildings. Most VP wins; then most doubloons plus
goods; still tied, a shared win (D11)."""
from __future__ import annotations

from .board import colonists, island_filled, occupied
from .components import (BUILDINGS, CITY_HALL, CUSTOMS_HOUSE, CUSTOMS_HOUSE_VP_PER_VP, FORTRESS,
                         FORTRESS_COLONISTS_PER_VP, GUILD_HALL, RESIDENCE, RESIDENCE_BONUS,
                         RESIDENCE_BONUS_UP_TO_NINE)
from .state import Player, State


# Each bonus as a function of plain values (building numbers, counts), for a player reading a
# view; then the same bonus of a Player's board.

def guild_hall_vp(city) -> int:
    """+1 per small, +2 per large production building in `city` (building numbers)."""
    return sum(BUILDINGS[b].guild_vp for b in city)


def residence_vp(filled: int) -> int:
    """By the filled island spaces, occupied or not."""
    return RESIDENCE_BONUS.get(filled, RESIDENCE_BONUS_UP_TO_NINE)


def fortress_vp(colonists: int) -> int:
    """By every colonist on the board, San Juan included."""
    return colonists // FORTRESS_COLONISTS_PER_VP


def customs_house_vp(chip_vp: int) -> int:
    """By the VP in chips, paper VP included (D9); building VP do not count."""
    return chip_vp // CUSTOMS_HOUSE_VP_PER_VP


def city_hall_vp(city) -> int:
    """+1 per violet building in `city` (building numbers), itself included."""
    return sum(1 for b in city if BUILDINGS[b].violet)


def guild_hall_bonus(p: Player) -> int:
    return guild_hall_vp(p.city)


def residence_bonus(p: Player) -> int:
    return residence_vp(island_filled(p))


def fortress_bonus(p: Player) -> int:
    return fortress_vp(colonists(p))


def customs_house_bonus(p: Player) -> int:
    return customs_house_vp(p.chips + p.paper)


def city_hall_bonus(p: Player) -> int:
    return city_hall_vp(p.city)


BONUSES = ((GUILD_HALL, "guild_hall", guild_hall_bonus), (RESIDENCE, "residence", residence_bonus),
           (FORTRESS, "fortress", fortress_bonus), (CUSTOMS_HOUSE, "customs_house", customs_house_bonus),
           (CITY_HALL, "city_hall", city_hall_bonus))


def score_seat(p: Player) -> dict[str, int]:
    parts = {"vp_chips": p.chips + p.paper, "buildings": sum(BUILDINGS[b].vp for b in p.city)}
    for building, name, bonus in BONUSES:
        parts[name] = bonus(p) if occupied(p, building) else 0
    parts["total"] = sum(parts.values())
    return parts


def result(s: State) -> dict:
    """Scores, tie-break values and winners. Meaningful at any time; final once `over` is true."""
    scores = [score_seat(p) for p in s.players]
    tiebreak = [p.doubloons + sum(p.goods) for p in s.players]
    best = max((sc["total"], tb) for sc, tb in zip(scores, tiebreak))
    winners = [i for i in range(len(scores)) if (scores[i]["total"], tiebreak[i]) == best]
    return {"over": s.over, "names": list(s.names), "scores": scores, "tiebreak": tiebreak,
            "winners": winners, "rounds": s.round}
