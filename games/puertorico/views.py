"""What a seat, or a spectator, sees, and the decisions put to a seat as prompts.

Everything is public but the order of the face-down plantation stack, shown as a count (§10).
VP chip totals are shown too (D15): every chip comes from a public load.
"""
from __future__ import annotations

from games.text import plural, with_article

from . import mayor
from .board import build_cost, city_used, occupied, sale_price
from .captain import WHARF_SHIP, cargo_amount, load_vp
from .components import (BUILDINGS, BY_KEY, GOODS, HARBOR, PRICE, PRODUCERS, ROLE_OF, ROLE_TEXT,
                         TILE_KINDS)
from .flow import back_label, to_act
from .scoring import result, score_seat
from .state import State


def _player(s: State, seat: int) -> dict:
    p = s.players[seat]
    return {
        "name": s.names[seat],
        "doubloons": p.doubloons,
        "goods": dict(zip(GOODS, p.goods)),
        "vp_chips": p.chips,
        "vp_paper": p.paper,
        # island: kind -> [tiles, colonists on them]
        "island": {TILE_KINDS[k]: [p.tiles[k], p.worked[k]] for k in range(len(TILE_KINDS)) if p.tiles[k]},
        "city": [[BUILDINGS[b].key, c] for b, c in sorted(p.city.items())],
        "city_spaces": city_used(p),
        "san_juan": p.san_juan,
        # The score if the game ended now: chips, building VP and the large buildings' bonuses.
        # All of it is public (D15), so every view carries it.
        "score": score_seat(p),
    }


def views(s: State, seats: list[int | None]) -> list[dict]:
    """The view of each of these seats (None: a spectator), as `view` makes it: what every view
    shows alike is built once, the same objects in each, and beside it the seat's question."""
    public = _public(s)
    return [{**public, "seat": seat, "prompt": prompt(s, seat) if seat is not None else None} for seat in seats]


def _public(s: State) -> dict:
    """The fields every seat's view and the spectators' show alike."""
    taken = dict(s.taken)
    v = {
        "game": "puertorico",
        "options": {},
        "to_act": to_act(s),
        "players": [_player(s, i) for i in range(len(s.players))],
        "round": s.round,
        "governor": s.governor,
        "role": s.role,
        "chooser": s.chooser,
        "roles": [{"card": c, "role": ROLE_OF[c], "doubloons": money, "taken_by": taken.get(c)}
                  for c, money in s.roles.items()],
        "plantations": {"face_up": sorted(GOODS[s.kinds[t]] for t in s.row),
                        "face_down": len(s.stack),
                        "discarded": sorted(GOODS[s.kinds[t]] for t in s.discard)},
        "quarries": s.quarries,
        "colonists": {"ship": s.colonist_ship, "supply": s.colonist_supply},
        "vp_chips": s.vp_supply,
        "goods": dict(zip(GOODS, s.barrels)),
        "buildings": {b.key: s.buildings[b.index] for b in BUILDINGS},
        "ships": [{"size": size, "good": None if g is None else GOODS[g], "load": load}
                  for size, (g, load) in zip(s.ship_sizes, s.ships)],
        "trading_house": [GOODS[g] for g in s.house],
        # Captain phase facts anyone could follow in the log: who has used or declined a wharf,
        # and whether the captain's first load (his extra VP) has been made.
        "wharf_used": sorted(s.wharfed),
        "wharf_declined": sorted(s.stopped),
        "captain_loaded": s.captain_loaded,
        # Mayor: the group of circles ("corn", "quarry", a building) the placing seat is asked
        # about, so that a program needs no prompt text to know it.
        "placing": _placing(s),
        "last_round": s.last_round,
        "over": s.over,
    }
    if s.over:
        v["result"] = result(s)
    return v


def _placing(s: State) -> str | None:
    if s.pending is None or s.pending[1] != "place":
        return None
    return mayor.groups(s.players[s.pending[0]])[s.group][0]


# ---------------------------------------------------------------- prompts

def prompt(s: State, seat: int) -> dict | None:
    """The seat's decision as data a client renders without knowing the rules: pick between `min`
    and `max` distinct values of `options`; `labels[i]` names option i, `help[i]` explains it."""
    if s.pending is None or s.pending[0] != seat:
        return None
    _, kind_, options, lo, hi = s.pending
    p = s.players[seat]
    text, describe = _PROMPTS[kind_](s, seat, p, options)
    pairs = [describe(o) for o in options]
    asked = {"kind": kind_, "text": text, "options": list(options), "min": lo, "max": hi,
             "labels": [a for a, _ in pairs], "help": [b for _, b in pairs], "back": back_label(s)}
    if kind_ == "place":      # "how many colonists?": the number typed is the number placed
        asked["counts"] = True
    return asked


def _role(s, seat, p, options):
    def describe(card):
        money = s.roles[card]
        label = f"Take the {ROLE_OF[card]}" + (f" (+{plural(money, 'doubloon')})" if money else "")
        return label, ROLE_TEXT[ROLE_OF[card]]
    return "Which role do you take? Its phase starts with you, and you get its privilege.", describe


def _hacienda(s, seat, p, options):
    return ("Hacienda: draw the top face-down plantation before you take one from the row?",
            lambda o: ("Draw the top face-down plantation",
                       "It goes on your island at once; nobody knows what it is until it is drawn."))


def _settle(s, seat, p, options):
    def describe(o):
        if o == "quarry":
            return ("Take a quarry",
                    "Each occupied quarry takes 1 doubloon off a building, up to the building's column.")
        return (f"Take {with_article(o)} plantation",
                f"Grows {o} ({_MADE_BY[o]}); the trading house pays {plural(PRICE[GOODS.index(o)], 'doubloon')}.")
    return "Settler: take a face-up plantation for your island, or none.", describe


# What a plantation's crop needs before it is a barrel, for the settler's help texts.
_MADE_BY = {g: "no building needed" if not PRODUCERS[i] else
            "made in " + with_article(" or ".join(BUILDINGS[b].name.lower() for b in PRODUCERS[i]))
            for i, g in enumerate(GOODS)}


def _where(o: str) -> str:
    """A hospice or university colonist's destination, in words: "coffee plantation", "factory"."""
    return f"{o} plantation" if o in GOODS else o if o == "quarry" else BUILDINGS[BY_KEY[o]].name.lower()


def _bonus_colonist(building: str):
    def prompt_for(s, seat, p, options):
        source = "the supply" if s.colonist_supply else "the colonist ship (the supply is empty)"

        def describe(o):
            return (f"Put a colonist from {source} on your new {_where(o)}",
                    "It works from now on; colonists move again only in the next mayor phase.")
        return f"{building}: put a colonist on the {_where(options[0])} you just got?", describe
    return prompt_for


def _mayor(s, seat, p, options):
    return ("Mayor: take 1 colonist from the supply (your privilege)?",
            lambda o: ("Take 1 colonist from the supply",
                       f"It joins the {plural(s.colonist_ship, 'colonist')} of the ship before everyone places them."))


def _place(s, seat, p, options):
    group, circles = mayor.groups(p)[s.group]
    name = (f"{group} plantations" if group in TILE_KINDS[:-1] else "quarries" if group == "quarry"
            else BUILDINGS[BY_KEY[group]].name.lower())
    unplaced = p.san_juan

    def describe(k):
        rest = unplaced - k
        circles_shown = f"{'●' * k}{'○' * (circles - k)}"
        return (f"{plural(k, 'colonist')}  {circles_shown}" + (f"  ({rest} left to place)" if rest else ""),
                f"{plural(k, 'colonist')} on your {name} ({plural(circles, 'circle')}); colonists who "
                "find no circle later wait in San Juan.")
    return (f"Mayor: how many colonists on your {name}? {options[0]}–{options[-1]} "
            f"(you have {unplaced} to place)", describe)


def _build(s, seat, p, options):
    builder = seat == s.chooser

    def describe(key):
        b = BUILDINGS[BY_KEY[key]]
        price = build_cost(p, b.index, builder)
        return (f"Build the {b.name.lower()} for {plural(price, 'doubloon') if price else 'free'}",
                f"{b.vp} VP, cost {b.cost}, {plural(b.circles, 'circle')}. {b.text}")
    return f"Builder: build one building, or none. You have {plural(p.doubloons, 'doubloon')}.", describe


def _craftsman(s, seat, p, options):
    return ("Craftsman: take 1 more barrel of a kind you produced (your privilege)?",
            lambda o: (f"Take 1 more {o} ({s.barrels[GOODS.index(o)]} left)",
                       f"You have {p.goods[GOODS.index(o)]} {o} now."))


def _sell(s, seat, p, options):
    def describe(o):
        price = sale_price(p, GOODS.index(o), seat == s.chooser)
        return (f"Sell 1 {o} for {plural(price, 'doubloon')}",
                f"You hold {p.goods[GOODS.index(o)]} {o}; the trading house pays {PRICE[GOODS.index(o)]} "
                "plus your bonuses.")
    return "Trader: sell one barrel to the trading house, or none.", describe


def _load(s, seat, p, options):
    harbor, first = occupied(p, HARBOR), seat == s.chooser and not s.captain_loaded

    def describe(o):
        good_name, ship = o.split(":")
        held = p.goods[GOODS.index(good_name)]
        if ship == WHARF_SHIP:
            return (f"Ship all {held} {good_name} from your wharf ({load_vp(held, harbor, first)} VP)",
                    "The barrels go back to the supply; the wharf works once a phase.")
        i = s.ship_sizes.index(int(ship))
        takes = cargo_amount(held, s.ship_sizes[i], s.ships[i][1])
        return (f"Load {good_name} onto the {ship}-ship (takes {takes} of your {held})",
                f"Scores {load_vp(takes, harbor, first)} VP.")
    may_stop = s.pending[3] == 0   # only the wharf is left (D5)
    return ("Captain: load one kind of goods onto a ship." +
            (" Pick none to stop loading this phase." if may_stop else ""), describe)


def _warehouse(s, seat, p, options):
    def describe(o):
        return (f"Keep all {p.goods[GOODS.index(o)]} {o} in a warehouse", "None of them goes back.")
    return (f"Captain: your warehouses keep {plural(s.pending[3], 'kind')} whole; which?", describe)


def _windrose(s, seat, p, options):
    def describe(o):
        return (f"Keep 1 of your {p.goods[GOODS.index(o)]} {o}",
                "It stays on your windrose; the other barrels of the kinds left go back.")
    return "Captain: keep one barrel of which kind? The rest goes back to the supply.", describe


_PROMPTS = {"role": _role, "hacienda": _hacienda, "settle": _settle,
            "hospice": _bonus_colonist("Hospice"), "mayor": _mayor, "place": _place,
            "build": _build, "university": _bonus_colonist("University"),
            "craftsman": _craftsman, "sell": _sell, "load": _load, "warehouse": _warehouse,
            "windrose": _windrose}
