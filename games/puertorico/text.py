"""Puerto Rico as text for a 100-column terminal: the board a player reads at a glance (the round
and roles, the supplies, the ships and the trading house, the buildings at your price, and each
player's score, money, goods, island and city), the final score table, and `explain`, which tells
what any building, plantation, good or role on the board is and does (`? small market`).

It reads only a view, never the engine state, and everything in a Puerto Rico view is public. A
building's price comes from the engine's own function (board.building_price), fed with the view's
numbers. The client gives `paint(text, style)` for colour (styles: head, you, dim); without it,
plain text. Lines are packed by the columns they take on screen, where colour codes take none.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter

from games.text import ambiguous, lookup, plain, plural, score_table, with_article

from .board import building_price
from .components import (BUILDINGS, BY_KEY, GOODS, PRICE, PRODUCERS, ROLE_OF, ROLE_TEXT,
                          TRADING_HOUSE_SPACES)
from .info import INFO

WIDTH = 100
LABEL = 12                      # the width of the labels down the left of the supply lines
_COLOUR = re.compile("\x1b\\[[0-9;]*m")
FULL, EMPTY = "●", "○"          # a circle with a colonist on it, and one without


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, width=WIDTH - 1, initial_indent=indent,
                         subsequent_indent=" " * len(indent), break_on_hyphens=False)


def _pack(items: list[str], indent: str, sep: str = "  ") -> list[str]:
    """Items (a building and its circles) on as few lines as fit, none broken across two."""
    lines = [indent]
    for item in items:
        if len(lines[-1]) > len(indent) and _width(lines[-1]) + len(sep) + _width(item) > WIDTH - 1:
            lines.append(" " * len(indent))
        lines[-1] += (sep if len(lines[-1]) > len(indent) else "") + item
    return lines


def _width(text: str) -> int:
    """Columns on screen: colour codes take none."""
    return len(_COLOUR.sub("", text))


def _beside(lines: list[str], text: str, gap: int = 5) -> list[str]:
    """`text` to the right of the last line when it fits there, else on a line of its own."""
    if _width(lines[-1]) + gap + len(text) < WIDTH:
        return lines[:-1] + [lines[-1] + " " * gap + text]
    return lines + [" " * LABEL + text]


def _circles(full: int, total: int) -> str:
    return FULL * full + EMPTY * (total - full)


def _copies(n: int) -> str:
    return "none" if n == 0 else "1 copy" if n == 1 else f"{n} copies"


def _name(key: str) -> str:
    return BUILDINGS[BY_KEY[key]].name.lower()


# The board's four columns of buildings, as printed: the cheap ones in column 1, the large ones
# in column 4. At most a column's number of occupied quarries take money off its buildings.
COLUMNS = tuple(tuple(b for b in BUILDINGS if b.column == c) for c in (1, 2, 3, 4))


class Text:
    def __init__(self, options: dict, paint=plain) -> None:
        self.paint = paint

    # ------------------------------------------------------------ the board

    def board(self, v: dict) -> str:
        return "\n".join(self.parts(v))

    def parts(self, v: dict) -> tuple[str, str]:
        """The board in two: the table (the round, the phase, the roles, the supply, the ships),
        which a screen keeps in sight, and the building supply and the players, which may scroll."""
        return "\n".join(self.table(v)), "\n".join(self.buildings(v) + self.players(v))

    def table(self, v: dict) -> list[str]:
        names = [p["name"] for p in v["players"]]
        head = f"Puerto Rico · round {v['round']} · governor {names[v['governor']]}"
        if v["role"]:
            head += f" · {v['role']} phase, picked by {names[v['chooser']]}"
        if v["last_round"] and not v["over"]:
            head += " · the last round"
        # Taken roles lie before their players (see the player lines), as on the table.
        roles = [ROLE_OF[r["card"]] + (f" +{r['doubloons']}" if r["doubloons"] else "")
                 for r in v["roles"] if r["taken_by"] is None]
        up, house, colonists = v["plantations"], v["trading_house"], v["colonists"]
        ships = [f"{s['size']}: " + (f"{s['good']} {s['load']}/{s['size']}" if s["good"] else "empty")
                 for s in v["ships"]]
        house = " ".join(house + ["–"] * (TRADING_HOUSE_SPACES - len(house)))
        row = Counter(up["face_up"])
        face_up = ", ".join(g + (f" ×{n}" if n > 1 else "") for g, n in row.items()) or "none"
        return ([self.paint(head, "head")]
                + _pack(roles or ["none"], "Roles left".ljust(LABEL), " · ")
                + _pack([f"VP chips {v['vp_chips']}", f"colonists {colonists['supply']} + {colonists['ship']} "
                         f"on the ship", f"quarries {v['quarries']}", f"{up['face_down']} plantations face down"],
                        "Supply".ljust(LABEL), " · ")
                + _beside(_pack([f"{g} {n}" for g, n in v["goods"].items()], "Goods".ljust(LABEL)),
                          f"trading house: {house}", 3)
                + _beside(_pack(ships, "Ships".ljust(LABEL), " · "), f"plantations face up: {face_up}"))

    def price_for(self, v: dict) -> tuple[int, bool] | None:
        """(occupied quarries, builder's privilege) of the seat the view is for; None for a
        spectator, who is shown printed costs."""
        if v["seat"] is None:
            return None
        island = v["players"][v["seat"]]["island"]
        quarries = island["quarry"][1] if "quarry" in island else 0
        return quarries, v["role"] == "builder" and v["chooser"] == v["seat"]

    def price(self, v: dict, key: str) -> int:
        mine = self.price_for(v)
        b = BY_KEY[key]
        return BUILDINGS[b].cost if mine is None else building_price(b, *mine)

    def buildings(self, v: dict) -> list[str]:
        """The building supply in the board's four columns, each building with your price (or,
        for a spectator, its cost) and the copies left; the legend fills column 4's free cell.
        A column's number is its buildings' VP and the most occupied quarries that count."""
        mine = self.price_for(v)
        legend = ("← cost, ×copies left" if mine is None else
                  "← your price −1 builder" if mine[1] else "← your price, ×copies")
        widths = [max(len(b.name) for b in column) + 6 for column in COLUMNS]
        rows = []
        for r in range(max(map(len, COLUMNS))):
            cells = [self._cell(v, column[r], width) if r < len(column) else legend
                     for column, width in zip(COLUMNS, widths)]
            rows.append(" │ ".join(cells).rstrip())
        return rows

    def _cell(self, v: dict, b, width: int) -> str:
        left = v["buildings"][b.key]
        if not left:
            return self.paint(f"{b.name:<{width - 6}}   –  ", "dim")
        copies = f"×{left}" if left > 1 else ""
        return f"{b.name:<{width - 6}} {self.price(v, b.key):>2} {copies:<2}"

    def players(self, v: dict) -> list[str]:
        names = [p["name"] + (" (you)" if seat == v["seat"] else "") for seat, p in enumerate(v["players"])]
        width = max(map(len, names))
        return [line for seat, p in enumerate(v["players"])
                for line in self.player(v, seat, p, names[seat].ljust(width))]

    def role_width(self, v: dict) -> int:
        """Room for the roles a player took this round (two players take three each)."""
        taken = [[ROLE_OF[r["card"]] for r in v["roles"] if r["taken_by"] == seat]
                 for seat in range(len(v["players"]))]
        return max(len(", ".join(t)) + 2 if t else 0 for t in taken)

    def player(self, v: dict, seat: int, p: dict, name: str) -> list[str]:
        """Three lines, more for a big city: the roles he took this round, score, VP chips, money
        and goods; the island and the colonists waiting in San Juan; the city. ● is a circle with
        a colonist, ○ one without."""
        who = self.paint(name, "you") if seat == v["seat"] else name
        mark = "▶ " if seat in v["to_act"] else "  "
        chips = f"{p['vp_chips']}" + (f"+{p['vp_paper']} on paper" if p["vp_paper"] else "")
        # The score so far: chips, building VP and the large buildings' bonuses, all public.
        role = ", ".join(ROLE_OF[r["card"]] for r in v["roles"] if r["taken_by"] == seat)
        stats = [f"{mark}{who}  {role:<{self.role_width(v)}}score {p['score']['total']:>2} · VP chips {chips:>2} · "
                 f"{plural(p['doubloons'], 'doubloon'):>12} ·"]
        goods = [f"{g} {n}" for g, n in p["goods"].items() if n] or ["no goods"]
        tiles = sum(t for t, _ in p["island"].values())
        island = [f"{kind} {_circles(worked, t)}" for kind, (t, worked) in p["island"].items()]
        city = [f"{_name(key)} {_circles(n, BUILDINGS[BY_KEY[key]].circles)}" for key, n in p["city"]]
        return (_pack(stats + goods, "", " ")
                + _pack((island or ["empty"]) + [f"· San Juan {p['san_juan']}"], f"  island {tiles:>2}/12  ")
                + _pack(city or ["empty"], f"  city   {p['city_spaces']:>2}/12  "))

    # ------------------------------------------------------------ `? name`

    def names(self, v: dict) -> list[str]:
        """Everything `explain` knows by name: the buildings, the goods (and their plantations),
        the quarry, the roles and the score."""
        return ([b.name.lower() for b in BUILDINGS] + list(GOODS) + ["quarry"]
                + list(dict.fromkeys(ROLE_OF.values())) + ["score"])

    def explain(self, v: dict, words: str) -> str | None:
        # "coffee plantation" asks about coffee: the good and its plantation are one answer.
        words = words.strip()
        asked = words[:-len(" plantation")] if words.lower().endswith(" plantation") else words
        found = lookup(asked, self.names(v))
        if not found:
            return None
        if len(found) > 1:
            return ambiguous(words, found)
        name = found[0]
        if name in GOODS:
            return self.explain_good(v, name)
        if name == "quarry":
            return self.explain_quarry(v)
        if name == "score":
            return self.explain_score(v)
        if name in ROLE_TEXT:
            return self.explain_role(v, name)
        return self.explain_building(v, next(b for b in BUILDINGS if b.name.lower() == name))

    def explain_score(self, v: dict) -> str:
        def parts(score: dict) -> str:
            return ", ".join(f"{part.replace('_', ' ').replace('vp', 'VP')} {n}"
                             for part, n in score.items() if part != "total" and n)
        now = "; ".join(f"{p['name']} {p['score']['total']} ({parts(p['score'])})" for p in v["players"])
        return "\n".join(_wrap("Score: what each player would have if the game ended now: VP chips (those "
                                "on paper too), the VP printed on every building, and the bonuses of the "
                                f"occupied large buildings. All of it is public. Now: {now}.", ""))

    def explain_building(self, v: dict, b) -> str:
        names = [p["name"] for p in v["players"]]
        kind = ("large violet building (2 city spaces)" if b.spaces == 2 else "violet building"
                if b.violet else f"{'small' if b.guild_vp == 1 else 'large'} production building for {GOODS[b.good]}")
        price = "" if v["seat"] is None else f" You would pay {self.price(v, b.key)} now."
        owners = [f"{names[seat]} {_circles(n, b.circles)}" for seat, p in enumerate(v["players"])
                  for key, n in p["city"] if key == b.key]
        text = (f"{b.name}: {kind}, column {b.column}. Cost {b.cost}, less up to {b.column} for occupied "
                f"quarries.{price} {b.vp} VP, {plural(b.circles, 'circle')}; it works only with a colonist "
                f"on it. {b.text} {_copies(v['buildings'][b.key]).capitalize()} "
                f"left in the supply" + (f"; built by {', '.join(owners)}." if owners else "."))
        return "\n".join(_wrap(text, ""))

    def explain_good(self, v: dict, good: str) -> str:
        g = GOODS.index(good)
        made = (" or ".join(BUILDINGS[b].name.lower() for b in PRODUCERS[g]) if PRODUCERS[g] else None)
        grows = (f"{with_article(good).capitalize()} plantation grows {good} when a colonist works it"
                 + (f"; a colonist in {with_article(made)} turns it into a barrel." if made else
                    ": corn needs no building."))
        up = v["plantations"]
        face_up, gone = up["face_up"].count(good), up["discarded"].count(good)
        text = (f"{grows} The trading house pays {plural(PRICE[g], 'doubloon')} a barrel (more with "
                f"markets and as the trader); a ship takes 1 VP a barrel. Supply: {v['goods'][good]} "
                f"{good} barrels. Plantations: {face_up} face up, {gone} discarded (they come back "
                f"when the {up['face_down']} face down run out).")
        return "\n".join(_wrap(text, ""))

    def explain_quarry(self, v: dict) -> str:
        text = ("Quarry: an island tile. While a colonist works it, it takes 1 doubloon off every "
                "building you build, up to the building's column (1 to 4 quarries count). The settler "
                f"may take one instead of a plantation, and so may an owner of a working construction "
                f"hut. {v['quarries']} left" + (f"; you work {self.price_for(v)[0]}." if v["seat"] is not None else "."))
        return "\n".join(_wrap(text, ""))

    def explain_role(self, v: dict, role: str) -> str:
        names = [p["name"] for p in v["players"]]
        cards = [r for r in v["roles"] if ROLE_OF[r["card"]] == role]
        if not cards:
            return f"{role.capitalize()}: not played at this table. {ROLE_TEXT[role]}"
        now = []
        for r in cards:
            if r["taken_by"] is not None:
                now.append(f"taken this round by {names[r['taken_by']]}")
            else:
                now.append(f"free, with {plural(r['doubloons'], 'doubloon')} on it")
        return "\n".join(_wrap(f"{role.capitalize()}: {ROLE_TEXT[role]} Now {' and '.join(now)}.", ""))

    # ------------------------------------------------------------ the end

    def result(self, result: dict, names: list[str]) -> str:
        return "\n".join(score_table(result, names, INFO.tiebreak, self.paint))
