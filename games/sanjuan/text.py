"""San Juan as text for a terminal: the board, the cities, your cards, the final score table.

Everything here reads only a view (what one seat, or a spectator, may see) and the public card
catalog, never the engine state: the same code renders a view that arrived over the network, and
a renderer that cannot reach the state cannot leak a hidden card. The client gives `paint(text,
style)` for colour (styles: head, you, good, dim); without it, plain text.
"""
from __future__ import annotations

import textwrap

from games.text import ambiguous, lookup, plain, plural, score_table

from .cards import BY_KEY, KINDS, catalog
from .info import INFO


WIDTH = 100     # the columns a board is drawn for, unless the screen gives its own
CITY = 88       # a city's list of buildings wraps here, however wide the screen: it reads better

# The round-start stages (rules.py, in this order), and what happens in each, in words.
ROUND_START = {"office": "office buildings", "chapel": "chapels", "bank": "banks",
               "limit": "hand limits"}


def _wrap(text: str, width: int = WIDTH, first: str = "    ", rest: str = "    ") -> str:
    """`text` in lines of at most `width` columns (a city's list at most CITY), words unbroken."""
    return textwrap.fill(text, width=min(width, CITY) if first == rest == "    " else width,
                         initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


def _line(text: str, width: int) -> str:
    """A board line that fits `width` columns, wrapped under its own indentation plus two."""
    indent = " " * (len(text) - len(text.lstrip()))
    return _wrap(text.lstrip(), width, indent, indent + "  ")


class Text:
    def __init__(self, options: dict, paint=plain) -> None:
        self.expansion = bool(options.get("expansion"))
        known = catalog(self.expansion)
        self.cards, self.roles = known["cards"], known["roles"]
        self.paint = paint

    def name(self, key: str) -> str:
        return self.cards[key]["name"] if key in self.cards else key

    def card(self, key: str) -> str:
        """A card with what matters when holding it: name, cost and printed VP."""
        k = self.cards.get(key)
        return f"{k['name']} (cost {k['cost']}, {k['vp']} VP)" if k else key

    def _goods(self, text: str) -> str:
        return text.replace("*", self.paint("*", "good"))

    def board(self, v: dict, width: int = WIDTH) -> str:
        """Everything a view shows but its prompt: the round and roles, every city, your cards."""
        return "\n\n".join(part for part in self.parts(v, width) if part)

    def parts(self, v: dict, width: int = WIDTH) -> tuple[str, str, str]:
        """The board in three, each in lines of at most `width` columns: the round, the roles and
        the supply, which a screen keeps in sight above; the cities, which may scroll; and your
        hand, which a screen keeps in sight beside the question ("" for a spectator)."""
        return self.table(v, width), self.cities(v, width), self.hand(v, width) if v.get("you") else ""

    def table(self, v: dict, width: int = WIDTH) -> str:
        names = [p["name"] for p in v["players"]]
        extra = INFO.describe(v["options"])
        title = f"San Juan — round {v['round']}, governor {names[v['governor']]}"
        lines = [title + (f"  ({extra})" if extra else "")]
        if v.get("stage") in ROUND_START:
            # The view still holds the last round's roles until the governor chooses the first
            # one: shown, they would read as this round's.
            lines.append(f"Start of the round ({ROUND_START[v['stage']]}); then the roles are chosen, "
                         "all of them on offer.")
        else:
            taken = ", ".join(f"{role} ({names[seat]})" for role, seat in v["taken"])
            lines.append(f"Roles left: {', '.join(v['roles_left']) or 'none'}"
                         + (f"   taken: {taken}" if taken else ""))
        if v["role"]:
            lines.append(f"Phase: {v['role']}, chosen by {names[v['chooser']]}")
        if v.get("tile"):
            label = "Trading house pays" if v.get("role") == "trader" else "Last trading tile"
            lines.append(f"{label}: " + ", ".join(f"{g} {p}" for g, p in v["tile"].items()))
        supply = f"Supply {plural(v['deck'], 'card')}, discard pile {plural(v['discard'], 'card')}"
        if v.get("cathedral") is not None:
            cost = self.cards.get("cathedral", {}).get("cost", "?")
            supply += f"; the cathedral (cost {cost}) is still there for anyone to build"
        lines.append(supply + ".")
        text = "\n".join(_line(line, width) for line in lines)    # wrapped before painting:
        return self.paint(title, "head") + text[len(title):]        # escape codes take no columns

    def cities(self, v: dict, width: int = WIDTH) -> str:
        lines = [self.paint("Cities", "head") + self.paint("   (* = holds a good)", "dim")]
        longest = max(len(p["name"]) for p in v["players"])
        for seat, p in enumerate(v["players"]):
            who = p["name"].ljust(longest)
            marks = ("  [governor]" if seat == v["governor"] else "") + \
                    ("  [to act]" if seat in v["to_act"] else "")
            # Cards under a chapel, bank or harbor: counts everyone may know (each is 1 VP).
            under = "".join(f", {p[pile]} under the {pile}" for pile in ("chapel", "bank", "harbor") if p[pile])
            # The score if the game ended now: the engine's own, all of it public.
            stats = _line(f"  {who}  score {p['score']['total']:>2} · {plural(p['hand'], 'card')} in hand, "
                          f"{plural(p['buildings'], 'building')}{under}{marks}", width)
            # Wrapped before painting: escape codes would count as width.
            lines.append(f"  {self.paint(who, 'you')}{stats[2 + len(who):]}" if seat == v["seat"] else stats)
            city = ", ".join(self.name(key) + ("*" if good else "") for _, key, good in p["city"])
            lines.append(self._goods(_wrap(city, width)))
            if p["covered"]:
                covered = ", ".join(self.name(key) for _, key in p["covered"])
                lines.append(self.paint(_wrap(f"covered by the crane: {covered}", width), "dim"))
        return "\n".join(lines)

    def hand(self, v: dict, width: int = WIDTH) -> str:
        you = v["you"]
        cards = sorted(you["hand"], key=lambda c: (self.cards.get(c[1], {}).get("cost", 0), self.name(c[1])))
        lines = [self.paint(_line(f"Your hand ({plural(len(cards), 'card')}, limit {you['hand_limit']})", width),
                            "head")]
        lines += [_line(f"  {self.card(key)}", width) for _, key in cards] or ["  (empty)"]
        for pile in ("chapel", "bank"):
            if you[pile]:
                lines.append(_line(f"Under your {pile}: " + ", ".join(self.name(k) for _, k in you[pile]), width))
        if you["drawn"]:
            lines.append(_line("Drawn this councillor phase: " + ", ".join(self.name(k) for _, k in you["drawn"]),
                               width))
        return "\n".join(lines)

    # ------------------------------------------------------------ `? name`

    def names(self, v: dict) -> list[str]:
        """Every card of this game's deck by name, the roles, and the score."""
        return [k["name"].lower() for k in self.cards.values()] + list(self.roles) + ["score"]

    def explain(self, v: dict, words: str) -> str | None:
        found = lookup(words, self.names(v))
        if len(found) > 1:
            return ambiguous(words, found)
        if not found:
            return None
        if found[0] == "score":
            return self.explain_score(v)
        if found[0] in self.roles:
            return f"{found[0].capitalize()}: {self.roles[found[0]]}"
        key = next(key for key, k in self.cards.items() if k["name"].lower() == found[0])
        return self.explain_card(v, key)

    def explain_score(self, v: dict) -> str:
        """What the score on the board counts, and each player's parts of it now (all public)."""
        def parts(score: dict) -> str:
            return ", ".join(f"{part.replace('_', ' ')} {n}" for part, n in score.items() if part != "total" and n)
        now = "; ".join(f"{p['name']} {p['score']['total']}" + (f" ({parts(p['score'])})" if p['score']['total'] else "")
                        for p in v["players"])
        # A part of the score named after a card is that card's bonus (the score's own names).
        bonuses = [self.name(part) for part in v["players"][0]["score"] if part in self.cards]
        piles = "a chapel" + (", a bank or a harbor" if "bank" in self.cards else "")
        text = ("Score: what each player would have if the game ended now: the VP printed on every "
                f"building of their city, 1 VP for every card under {piles}, and the bonuses of "
                f"{', '.join(bonuses[:-1])} and {bonuses[-1]} for their owners. All of it is public. The most "
                f"VP wins (tie-break: {INFO.tiebreak}). Now: {now}.")
        return textwrap.fill(text, width=96)

    def explain_card(self, v: dict, key: str) -> str:
        k, kind = self.cards[key], KINDS[BY_KEY[key]]
        copies = kind.copies + (kind.expansion_copies if self.expansion else 0)
        what = f"production building for {kind.good}" if kind.good else "city building"
        deck = "not a deck card" if not copies else f"{plural(copies, 'card')} in the deck"
        # Who has built one is public; where the others lie (hands, supply) is not.
        built = [p["name"] for p in v["players"] if any(c_key == key for _, c_key, _ in p["city"])]
        text = (f"{k['name']}: {what}, cost {k['cost']}, {k['vp']} VP ({deck}). {k['text']}"
                + (f" Built by {', '.join(built)}." if built else ""))
        return textwrap.fill(text, width=96)

    def result(self, result: dict, names: list[str]) -> str:
        return "\n".join(score_table(result, names, INFO.tiebreak, self.paint))
