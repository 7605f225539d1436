"""Puerto Rico as text for a terminal: the board (roles, supplies, ships, trading house, each
player's island and city) and the final score table.

It reads only a view, never the engine state, and everything in a Puerto Rico view is public. The
client gives `paint(text, style)` for colour (styles: head, you, dim); without it, plain text.
"""
from __future__ import annotations

import textwrap

from games.text import plain, plural, score_table

from .components import BUILDINGS, BY_KEY
from .info import INFO


def _wrap(text: str, indent: str = "    ") -> str:
    """One paragraph within 96 columns: a 100-column terminal shows the whole board."""
    return textwrap.fill(text, width=96, initial_indent=indent, subsequent_indent=indent + "  ")


def _goods(amounts: dict) -> str:
    return ", ".join(f"{g} {n}" for g, n in amounts.items() if n) or "none"


class Text:
    def __init__(self, options: dict, paint=plain) -> None:
        self.paint = paint

    def board(self, v: dict) -> str:
        return "\n\n".join([self.table(v), self.players(v)])

    def table(self, v: dict) -> str:
        names = [p["name"] for p in v["players"]]
        head = f"Puerto Rico — round {v['round']}, governor {names[v['governor']]}"
        if v["role"]:
            head += f"; {v['role']} phase, chosen by {names[v['chooser']]}"
        if v["last_round"] and not v["over"]:
            head += "  (the last round)"
        roles = ", ".join(f"{r['card'].replace('_', ' ')} — {names[r['taken_by']]}" if r["taken_by"] is not None
                          else f"{r['card'].replace('_', ' ')} (+{r['doubloons']})" for r in v["roles"])
        up = v["plantations"]
        ships = ", ".join(f"{s['size']}-ship " + (f"{s['load']} {s['good']}" if s["good"] else "empty")
                          for s in v["ships"])
        house = v["trading_house"]
        lines = [self.paint(head, "head"),
                 _wrap(f"Roles: {roles}", ""),
                 f"Colonists: {v['colonists']['ship']} on the ship, {v['colonists']['supply']} in the supply.  "
                 f"VP chips: {v['vp_chips']}.  Quarries: {v['quarries']}.",
                 f"Plantations face up: {', '.join(up['face_up']) or 'none'} ({up['face_down']} face down).",
                 f"Goods in the supply: {_goods(v['goods'])}.",
                 f"Ships: {ships}.  Trading house: {', '.join(house) or 'empty'} ({4 - len(house)} free).",
                 _wrap("Buildings left (printed cost): " + ", ".join(
                     f"{BUILDINGS[BY_KEY[k]].name} ({BUILDINGS[BY_KEY[k]].cost})" + (f" ×{n}" if n > 1 else "")
                     for k, n in v["buildings"].items() if n), "")]
        return "\n".join(lines)

    def players(self, v: dict) -> str:
        lines = [self.paint("Players", "head") + self.paint("   (island: occupied/tiles; city: colonists/circles)", "dim")]
        for seat, p in enumerate(v["players"]):
            who = self.paint(p["name"], "you") if seat == v["seat"] else p["name"]
            marks = ("  [governor]" if seat == v["governor"] else "") + ("  [to act]" if seat in v["to_act"] else "")
            vp = p["vp_chips"] + p["vp_paper"]
            lines.append(f"  {who}: {plural(p['doubloons'], 'doubloon')}, {vp} VP, goods {_goods(p['goods'])}, "
                         f"{p['san_juan']} in San Juan{marks}")
            island = ", ".join(f"{kind} {worked}/{tiles}" for kind, (tiles, worked) in p["island"].items())
            lines.append(_wrap(f"island: {island or 'empty'}"))
            city = ", ".join(f"{BUILDINGS[BY_KEY[k]].name} {n}/{BUILDINGS[BY_KEY[k]].circles}" for k, n in p["city"])
            lines.append(_wrap(f"city ({p['city_spaces']} of 12 spaces): {city or 'empty'}"))
        return "\n".join(lines)

    def result(self, result: dict, names: list[str]) -> str:
        return "\n".join(score_table(result, names, INFO.tiebreak, self.paint))

