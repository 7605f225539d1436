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


# The round-start stages (rules.py, in this order), and what happens in each, in words.
ROUND_START = {"office": "office buildings", "chapel": "chapels", "bank": "banks",
               "limit": "hand limits"}


def _wrap(text: str) -> str:
    return textwrap.fill(text, width=88, initial_indent="    ", subsequent_indent="    ")


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

    def board(self, v: dict) -> str:
        """Everything a view shows but its prompt: the round and roles, every city, your cards."""
        return "\n\n".join(self.parts(v))

    def parts(self, v: dict) -> tuple[str, str]:
        """The board in two: the round, the roles and the supply, which a screen keeps in sight,
        and the cities and your hand, which may scroll."""
        rest = [self.cities(v)] + ([self.hand(v)] if v.get("you") else [])
        return self.table(v), "\n\n".join(rest)

    def table(self, v: dict) -> str:
        names = [p["name"] for p in v["players"]]
        extra = INFO.describe(v["options"])
        lines = [self.paint(f"San Juan — round {v['round']}, governor {names[v['governor']]}", "head")
                 + (f"  ({extra})" if extra else "")]
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
        return "\n".join(lines)

    def cities(self, v: dict) -> str:
        lines = [self.paint("Cities", "head") + self.paint("   (* = holds a good)", "dim")]
        width = max(len(p["name"]) for p in v["players"])
        for seat, p in enumerate(v["players"]):
            who = p["name"].ljust(width)
            who = self.paint(who, "you") if seat == v["seat"] else who
            marks = ("  [governor]" if seat == v["governor"] else "") + \
                    ("  [to act]" if seat in v["to_act"] else "")
            # Cards under a chapel, bank or harbor: counts everyone may know (each is 1 VP).
            under = "".join(f", {p[pile]} under the {pile}" for pile in ("chapel", "bank", "harbor") if p[pile])
            # The score if the game ended now: the engine's own, all of it public.
            lines.append(f"  {who}  score {p['score']['total']:>2} · {plural(p['hand'], 'card')} in hand, "
                         f"{plural(p['buildings'], 'building')}{under}{marks}")
            # Wrap before painting: escape codes would count as width.
            city = ", ".join(self.name(key) + ("*" if good else "") for _, key, good in p["city"])
            lines.append(self._goods(_wrap(city)))
            if p["covered"]:
                covered = ", ".join(self.name(key) for _, key in p["covered"])
                lines.append(self.paint(_wrap(f"covered by the crane: {covered}"), "dim"))
        return "\n".join(lines)

    def hand(self, v: dict) -> str:
        you = v["you"]
        cards = sorted(you["hand"], key=lambda c: (self.cards.get(c[1], {}).get("cost", 0), self.name(c[1])))
        lines = [self.paint(f"Your hand ({plural(len(cards), 'card')}, limit {you['hand_limit']})", "head")]
        lines += [f"  {self.card(key)}" for _, key in cards] or ["  (empty)"]
        for pile in ("chapel", "bank"):
            if you[pile]:
                lines.append(f"Under your {pile}: " + ", ".join(self.name(k) for _, k in you[pile]))
        if you["drawn"]:
            lines.append("Drawn this councillor phase: " + ", ".join(self.name(k) for _, k in you["drawn"]))
        return "\n".join(lines)

    # ------------------------------------------------------------ `? name`

    def names(self, v: dict) -> list[str]:
        """Every card of this game's deck by name, and the roles."""
        return [k["name"].lower() for k in self.cards.values()] + list(self.roles)

    def explain(self, v: dict, words: str) -> str | None:
        found = lookup(words, self.names(v))
        if len(found) > 1:
            return ambiguous(words, found)
        if not found:
            return None
        if found[0] in self.roles:
            return f"{found[0].capitalize()}: {self.roles[found[0]]}"
        key = next(key for key, k in self.cards.items() if k["name"].lower() == found[0])
        return self.explain_card(v, key)

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
