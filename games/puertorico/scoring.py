"""Final scoring (rules/puertorico.md section 7): VP chips and paper, the printed VP of every
building, and the bonuses of the occupied large buildings. Most VP wins; then most doubloons plus
goods; still tied, a shared win (D11)."""
from __future__ import annotations

from .board import colonists, island_filled, occupied
from .components import (BUILDINGS, CITY_HALL, CUSTOMS_HOUSE, CUSTOMS_HOUSE_VP_PER_VP, FORTRESS,
                         FORTRESS_COLONISTS_PER_VP, GUILD_HALL, RESIDENCE, RESIDENCE_BONUS,
                         RESIDENCE_BONUS_UP_TO_NINE)
from .state import Player, State


def guild_hall_bonus(p: Player) -> int:
    return sum(BUILDINGS[b].guild_vp for b in p.city)


def residence_bonus(p: Player) -> int:
    return RESIDENCE_BONUS.get(island_filled(p), RESIDENCE_BONUS_UP_TO_NINE)


def fortress_bonus(p: Player) -> int:
    return colonists(p) // FORTRESS_COLONISTS_PER_VP


def customs_house_bonus(p: Player) -> int:
    """Paper VP count too (D9); building VP do not."""
    return (p.chips + p.paper) // CUSTOMS_HOUSE_VP_PER_VP


def city_hall_bonus(p: Player) -> int:
    return sum(1 for b in p.city if BUILDINGS[b].violet)


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
