"""San Juan as plain text: the board, your hand, the prompt, the game log and the final scores.

Everything here reads only a view (what one seat, or a spectator, may see) and the public card
catalog, never the engine state: the same code must render a view that arrived over the network,
and a renderer that cannot reach the state cannot leak a hidden card.
"""
from __future__ import annotations

import os
import textwrap

import games

_STYLES = {"head": "1", "you": "1;32", "good": "33", "dim": "2", "ask": "36", "warn": "31"}


def use_colour(stream) -> bool:
    """ANSI colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def card_keys(view: dict) -> dict[int, str]:
    """Card id -> kind key, for every card this view shows. Option values are labelled from this
    map alone: an id the view does not show stays a number."""
    keys = {}
    for p in view["players"]:
        keys.update((c, key) for c, key, _ in p["city"])
        keys.update((c, key) for c, key in p["covered"])
    you = view.get("you") or {}
    for pile in ("hand", "drawn", "chapel", "bank", "harbor"):
        keys.update((c, key) for c, key in you.get(pile, ()))
    if view.get("cathedral") is not None:
        card, key = view["cathedral"]
        keys[card] = key
    return keys


def _wrap(text: str) -> str:
    return textwrap.fill(text, width=88, initial_indent="    ", subsequent_indent="    ")


def plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' * (k != 1)}"


class Renderer:
    def __init__(self, catalog: dict, colour: bool = False) -> None:
        self.catalog = catalog["cards"]
        self.roles = catalog["roles"]
        self.colour = colour

    def paint(self, text: str, style: str) -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if self.colour else text

    def paint_goods(self, text: str) -> str:
        return text.replace("*", self.paint("*", "good")) if self.colour else text

    def name(self, key: str) -> str:
        return self.catalog[key]["name"] if key in self.catalog else key

    def card(self, key: str) -> str:
        """A card with what matters when holding it: name, cost and printed VP."""
        k = self.catalog.get(key)
        return f"{k['name']} (cost {k['cost']}, {k['vp']} VP)" if k else key

    # ------------------------------------------------------------ the board

    def view(self, v: dict) -> str:
        """The whole screen for one view: board, cities, your cards and your prompt, if any."""
        parts = [self.board(v), self.cities(v)]
        if v.get("you"):
            parts.append(self.hand(v))
        if v.get("prompt"):
            parts.append(self.prompt(v))
        return "\n\n".join(parts)

    def board(self, v: dict) -> str:
        names = [p["name"] for p in v["players"]]
        extra = [w for w, on in (("expansion", v["options"].get("expansion")),
                                 ("setup variant", v["options"].get("setup_variant"))) if on]
        lines = [self.paint(f"San Juan — round {v['round']}, governor {names[v['governor']]}", "head")
                 + (f"  ({', '.join(extra)})" if extra else "")]
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
            cost = self.catalog.get("cathedral", {}).get("cost", "?")
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
            lines.append(f"  {who}  {plural(p['hand'], 'card')} in hand, "
                         f"{plural(p['buildings'], 'building')}{marks}")
            # Wrap before painting: escape codes would count as width.
            city = ", ".join(self.name(key) + ("*" if good else "") for _, key, good in p["city"])
            lines.append(self.paint_goods(_wrap(city)))
            if p["covered"]:
                covered = ", ".join(self.name(key) for _, key in p["covered"])
                lines.append(self.paint(_wrap(f"covered by the crane: {covered}"), "dim"))
        return "\n".join(lines)

    def hand(self, v: dict) -> str:
        you = v["you"]
        cards = sorted(you["hand"], key=lambda c: (self.catalog.get(c[1], {}).get("cost", 0),
                                                   self.name(c[1])))
        lines = [self.paint(f"Your hand ({plural(len(cards), 'card')}, limit {you['hand_limit']})", "head")]
        lines += [f"  {self.card(key)}" for _, key in cards] or ["  (empty)"]
        for pile in ("chapel", "bank", "harbor"):
            if you[pile]:
                lines.append(f"Under your {pile}: " + ", ".join(self.name(k) for _, k in you[pile]))
        if you["drawn"]:
            lines.append("Drawn this councillor phase: " + ", ".join(self.name(k) for _, k in you["drawn"]))
        return "\n".join(lines)

    # ------------------------------------------------------------ the prompt

    def labels(self, v: dict) -> list[str]:
        """A label per option of the prompt, from the view only. A building already in a city is
        just its name; a card to play or keep also shows cost and VP unless the engine's note
        says what matters for this decision (the builder's note has the price you would pay)."""
        p = v["prompt"]
        keys = card_keys(v)
        built = {c for q in v["players"] for c, _, _ in q["city"]}
        notes = p["notes"] or [None] * len(p["options"])
        out = []
        for value, note in zip(p["options"], notes):
            if isinstance(value, str):
                label = value.capitalize()
            elif value not in keys:
                label = f"card #{value}"
            elif value in built or note:
                label = self.name(keys[value])
            else:
                label = self.card(keys[value])
            out.append((label, note))
        width = max((len(label) for label, _ in out), default=0)
        return [f"{label.ljust(width)}   {note}" if note else label for label, note in out]

    def prompt(self, v: dict) -> str:
        p = v["prompt"]
        lines = [self.paint(p["text"], "ask")]
        lines += [f"  {i:>2}. {label}" for i, label in enumerate(self.labels(v), 1)]
        lines.append(self.paint(how_to_answer(p["min"], p["max"]) + "  (? for help, q to quit)", "dim"))
        return "\n".join(lines)

    def help(self, v: dict) -> str:
        p = v["prompt"]
        keys = card_keys(v)
        lines = ["Answer with option numbers separated by spaces, e.g. `2` or `1 3`; an empty line "
                 "means none, where none is allowed. `q` quits.", how_to_answer(p["min"], p["max"]), ""]
        for i, value in enumerate(p["options"], 1):
            if isinstance(value, str):
                lines.append(f"  {i}. {value.capitalize()}: {self.roles.get(value, '')}".rstrip(": "))
            elif keys.get(value) in self.catalog:
                k = self.catalog[keys[value]]
                lines.append(f"  {i}. {k['name']} (cost {k['cost']}, {k['vp']} VP): {k['text']}")
        return "\n".join(lines)

    # ------------------------------------------------------------ log and result

    def events(self, events: list[dict]) -> str:
        if not events:
            return ""
        lines = [f"  {e['text']}" for e in events]
        return "\n".join([self.paint("Since your last decision", "head"), *lines])

    def result(self, result: dict, names: list[str]) -> str:
        """The final table: one row per score part anybody scored, then totals and winners."""
        scores = result["scores"]
        rows = [(part.replace("_", " "), [sc[part] for sc in scores])
                for part in scores[0] if part != "total"
                and (part == "buildings" or any(sc[part] for sc in scores))]
        rows.append(("total", [sc["total"] for sc in scores]))
        rows.append(("tie-break", result["tiebreak"]))
        width = max(6, *(len(n) for n in names))
        first = max(len(label) for label, _ in rows)
        lines = [self.paint(" " * first + "".join(f"  {n:>{width}}" for n in names), "head")]
        for label, values in rows:
            line = label.ljust(first) + "".join(f"  {x:>{width}}" for x in values)
            lines.append(self.paint(line, "head") if label == "total" else line)
        lines.append(self.paint("(tie-break: cards in hand plus goods)", "dim"))
        won = " and ".join(names[i] for i in result["winners"])
        # No verb: "You wins" would read badly, and "You" is the default name at the table.
        title = "Winner" if len(result["winners"]) == 1 else "Winners, sharing the win"
        lines.append(self.paint(f"{title}: {won}, after {plural(result['rounds'], 'round')}.", "you"))
        return "\n".join(lines)


def how_to_answer(lo: int, hi: int) -> str:
    """The instruction line for "pick between lo and hi distinct options"."""
    if hi == 0:
        return "Nothing to choose: press Enter."
    if lo == hi:
        return "Type the number of your choice." if hi == 1 else f"Type {hi} different numbers."
    if lo == 0:
        return ("Type a number, or press Enter for none." if hi == 1
                else f"Type up to {hi} different numbers, or press Enter for none.")
    return f"Type {lo} to {hi} different numbers."


# ------------------------------------------------------------ lobby and connection status

def seats_line(seats: list, me: int | None = None) -> str:
    """Who sits where, from a server's status: connected, away, a bot, or played by a bot while
    its player is away; empty seats are "free"."""
    parts = []
    for i, s in enumerate(seats):
        if not isinstance(s, dict):
            continue
        name = s.get("name")
        if not name and not s.get("bot"):
            parts.append("free seat")
            continue
        if s.get("bot"):
            state = "computer"
        elif s.get("standin"):
            state = "away, a computer plays for them"
        elif s.get("out_of_time"):
            state = "out of time, a computer answers this question for them"
        elif s.get("connected"):
            state = "connected"
        else:
            state = "away"
        parts.append(f"{name or 'computer'}{' (you)' if i == me else ''}: {state}")
    return "Seats — " + "; ".join(parts) if parts else ""


def describe_table(t: dict) -> str:
    """One line of the lobby: id, game, seats taken, computer players, status, options."""
    from games import GAMES   # only for the title
    game = t.get("game", "?")
    title = GAMES[game].TITLE if game in GAMES else str(game)
    seats = t.get("seats") if isinstance(t.get("seats"), list) else []
    people = [s["name"] for s in seats if isinstance(s, dict) and s.get("name") and not s.get("bot")]
    computers = sum(1 for s in seats if isinstance(s, dict) and s.get("bot"))
    free = sum(1 for s in seats if isinstance(s, dict) and not s.get("name") and not s.get("bot"))
    opts = t.get("options") or {}
    parts = [title, plural(len(seats), "seat")]
    if computers:
        parts.append(f"{computers} computer")
    parts.append(f"{free} free" if free else "full")
    parts.append(str(t.get("status", t.get("state", "?"))))
    line = f"{t.get('id', t.get('table', '?'))}  " + ", ".join(parts)
    if people:
        line += " — " + ", ".join(people)
    extra = [w for w, on in (("expansion", opts.get("expansion")), ("setup variant", opts.get("setup_variant"))) if on]
    if extra:
        line += f" [{', '.join(extra)}]"
    return line


def renderer_for(view: dict, colour: bool) -> Renderer:
    """The Renderer of the game and options a view is of."""
    engine = games.get(view.get("game", "sanjuan"))
    return Renderer(engine.catalog(bool(view["options"].get("expansion"))), colour)
