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


def _wrap(text: str, indent: str, width: int = WIDTH) -> list[str]:
    return textwrap.wrap(text, width=width - 1, initial_indent=indent,
                         subsequent_indent=" " * len(indent), break_on_hyphens=False)


def _pack(items: list[str], indent: str, sep: str = "  ", width: int = WIDTH) -> list[str]:
    """Items (a building and its circles) on as few lines of `width` columns as fit, none broken
    across two (an item wider than a line alone has a line of its own)."""
    lines = [indent]
    for item in items:
        if len(lines[-1]) > len(indent) and _width(lines[-1]) + len(sep) + _width(item) > width - 1:
            lines.append(" " * len(indent))
        lines[-1] += (sep if len(lines[-1]) > len(indent) else "") + item
    return lines


def _width(text: str) -> int:
    """Columns on screen: colour codes take none."""
    return len(_COLOUR.sub("", text))


def _beside(lines: list[str], text: str, gap: int = 5, width: int = WIDTH) -> list[str]:
    """`text` to the right of the last line when it fits there, else on lines of its own."""
    if _width(lines[-1]) + gap + len(text) < width:
        return lines[:-1] + [lines[-1] + " " * gap + text]
    return lines + _wrap(text, " " * LABEL, width)


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

    def board(self, v: dict, width: int = WIDTH) -> str:
        """The table, the building supply and every player in seat order, in `width` columns."""
        return "\n".join(self.table(v, width) + self.buildings(v, width) + self.players(v, width))

    def parts(self, v: dict, width: int = WIDTH) -> tuple[str, str, str]:
        """The board in three, for a screen, in lines of at most `width` columns: the table (the
        round, the phase, the roles, the supply, the ships), which it keeps in sight above; the
        building supply and the other players, which may scroll; and your own lines (money,
        goods, island, city), which it keeps in sight beside the question ("" for a spectator)."""
        mine = v["seat"]
        others = self.players(v, width, [seat for seat in range(len(v["players"])) if seat != mine])
        return ("\n".join(self.table(v, width)), "\n".join(self.buildings(v, width) + others),
                "" if mine is None else "\n".join(self.players(v, width, [mine])))

    def table(self, v: dict, width: int = WIDTH) -> list[str]:
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
        return ([self.paint(line, "head") for line in _wrap(head, "", width)]
                + _pack(roles or ["none"], "Roles left".ljust(LABEL), " · ", width)
                + _pack([f"VP chips {v['vp_chips']}", f"colonists {colonists['supply']} + {colonists['ship']} "
                         f"on the ship", f"quarries {v['quarries']}", f"{up['face_down']} plantations face down"],
                        "Supply".ljust(LABEL), " · ", width)
                + _beside(_pack([f"{g} {n}" for g, n in v["goods"].items()], "Goods".ljust(LABEL), width=width),
                          f"trading house: {house}", 3, width)
                + _beside(_pack(ships, "Ships".ljust(LABEL), " · ", width), f"plantations face up: {face_up}",
                          width=width))

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

    def buildings(self, v: dict, width: int = WIDTH) -> list[str]:
        """The building supply in the board's four columns, each building with your price (or,
        for a spectator, its cost) and the copies left; the legend fills the last column's free
        cell, or has a line of its own below. A column's number is its buildings' VP and the most
        occupied quarries that count. Narrower than `width` allows, the four columns come two by
        two (1 above 2 on the left, 3 above 4 on the right), or all one above another."""
        mine = self.price_for(v)
        legend = ("← cost, ×copies left" if mine is None else
                  "← your price −1 builder" if mine[1] else "← your price, ×copies")
        for shown in (4, 2, 1):
            per = len(COLUMNS) // shown
            columns = [sum(COLUMNS[i * per:(i + 1) * per], ()) for i in range(shown)]
            widths = [max(len(b.name) for b in column) + 6 for column in columns]
            if sum(widths) + 3 * (shown - 1) <= width - 1:
                break
        tallest = max(map(len, columns))
        in_cell = len(columns[-1]) < tallest and sum(widths[:-1]) + 3 * (shown - 1) + len(legend) <= width - 1
        rows = []
        for r in range(tallest):
            cells = [self._cell(v, column[r], w) if r < len(column) else legend if in_cell else ""
                     for column, w in zip(columns, widths)]
            rows.append(" │ ".join(cells).rstrip(" │"))
        return rows if in_cell else rows + [legend.replace("←", "↑", 1)]

    def _cell(self, v: dict, b, width: int) -> str:
        left = v["buildings"][b.key]
        if not left:
            return self.paint(f"{b.name:<{width - 6}}   –  ", "dim")
        copies = f"×{left}" if left > 1 else ""
        return f"{b.name:<{width - 6}} {self.price(v, b.key):>2} {copies:<2}"

    def players(self, v: dict, width: int = WIDTH, seats: list[int] | None = None) -> list[str]:
        """The lines of the players in `seats` (all of them unless told), in `width` columns."""
        names = [p["name"] + (" (you)" if seat == v["seat"] else "") for seat, p in enumerate(v["players"])]
        longest = max(map(len, names))
        shown = range(len(v["players"])) if seats is None else seats
        return [line for seat in shown
                for line in self.player(v, seat, v["players"][seat], names[seat].ljust(longest), width)]

    def role_width(self, v: dict) -> int:
        """Room for the roles a player took this round (two players take three each)."""
        taken = [[ROLE_OF[r["card"]] for r in v["roles"] if r["taken_by"] == seat]
                 for seat in range(len(v["players"]))]
        return max(len(", ".join(t)) + 2 if t else 0 for t in taken)

    def player(self, v: dict, seat: int, p: dict, name: str, width: int = WIDTH) -> list[str]:
        """Three lines, more for a big city or a narrow screen: the roles he took this round,
        score, VP chips, money and goods; the island and the colonists waiting in San Juan; the
        city. ● is a circle with a colonist, ○ one without."""
        who = self.paint(name, "you") if seat == v["seat"] else name
        mark = "▶ " if seat in v["to_act"] else "  "
        chips = f"{p['vp_chips']}" + (f"+{p['vp_paper']} on paper" if p["vp_paper"] else "")
        # The score so far: chips, building VP and the large buildings' bonuses, all public.
        role = ", ".join(ROLE_OF[r["card"]] for r in v["roles"] if r["taken_by"] == seat)
        numbers = [f"score {p['score']['total']:>2}", f"VP chips {chips:>2}", f"{plural(p['doubloons'], 'doubloon'):>12}"]
        goods = [f"{g} {n}" for g, n in p["goods"].items() if n] or ["no goods"]
        tiles = sum(t for t, _ in p["island"].values())
        island = [f"{kind} {_circles(worked, t)}" for kind, (t, worked) in p["island"].items()]
        city = [f"{_name(key)} {_circles(n, BUILDINGS[BY_KEY[key]].circles)}" for key, n in p["city"]]
        island_label, city_label = f"island {tiles:>2}/12", f"city   {p['city_spaces']:>2}/12"
        line = f"{mark}{who}  {role:<{self.role_width(v)}}" + " · ".join(numbers) + " ·"
        if _width(line) < width:      # the numbers of every player in columns, one under another
            stats = _pack([line] + goods, "", " ", width)
        else:
            who = self.paint(name.strip(), "you") if seat == v["seat"] else name.strip()
            head = [f"{mark}{who}" + (f"  {role}" if role else "")]
            if _width(head[0]) >= width:        # the roles on a line of their own
                head = [f"{mark}{who}", f"    {role}"]
            stats = head + _pack([" ".join(n.split()) for n in numbers] + goods, "    ", " · ", width)
        if width >= 60:               # each label left of its items
            return (stats + _pack((island or ["empty"]) + [f"· San Juan {p['san_juan']}"], f"  {island_label}  ",
                                  width=width)
                    + _pack(city or ["empty"], f"  {city_label}  ", width=width))
        return (stats + [f"  {island_label} · San Juan {p['san_juan']}"] + _pack(island or ["empty"], "    ", width=width)
                + [f"  {city_label}"] + _pack(city or ["empty"], "    ", width=width))

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
        mine = self.price_for(v)
        text = ("Quarry: an island tile. While a colonist works it, it takes 1 doubloon off every "
                "building you build, up to the building's column (1 to 4 quarries count). The settler "
                f"may take one instead of a plantation, and so may an owner of a working construction "
                f"hut. {v['quarries']} left" + (f"; you work {mine[0]}." if mine is not None else "."))
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
