"""A view as text for the terminal, for every registered game: the game's own Text (games/<id>/
text.py) draws the board and the score table; the question with its numbered options, its help
and the game log are drawn here alike for every game, from the prompt's labels and help texts.

Everything here reads only a view (what one seat, or a spectator, may see), never the engine
state: the same code must render a view that arrived over the network, and a renderer that cannot
reach the state cannot leak a hidden card. A view is the server's data, kept as it was hashed: the
Renderer takes the control characters out of its strings before drawing it.
"""
from __future__ import annotations

import os
import textwrap
import time

import games
from games.text import plural
from protocol.messages import printable
from protocol.signing import PUBLIC_KEY_BYTES, fingerprint

from .errors import ClientError

WIDTH = 100     # the terminal the screens are made for: 100 columns ...
ROWS = 40       # ... and 40 rows
TERMINAL_LINES = 3    # what the plain mode prints around a view: a blank and a connection line
                      # above it, the line the answer is typed on below
# What a friend of a `governor play` host is told when the host stops it: in its notice (a
# sentence) and on the friend's full screen (a part of its status line).
HOST_LEFT_WORDS = "the host left; the game is saved and resumes when the host comes back"
_STYLES = {"head": "1", "you": "1;32", "good": "33", "dim": "2", "ask": "36", "warn": "31"}


def use_colour(stream) -> bool:
    """ANSI colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


class Renderer:
    def __init__(self, game: str, options: dict, colour: bool = False) -> None:
        self.colour = colour
        self.text = games.get(game).Text(options, self.paint)

    def paint(self, text: str, style: str) -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if self.colour else text

    def board(self, v: dict, width: int = WIDTH) -> str:
        """Everything the view shows but its question, as the game draws it in `width` columns."""
        return self.text.board(printable(v), width)

    def board_parts(self, v: dict, width: int = WIDTH) -> tuple[str, str, str]:
        """The board in `width` columns as (what a screen keeps in sight above: the round, the
        roles; the rest, which may scroll; the seat's own things, which a screen keeps in sight
        beside the question: a hand, one's money and goods), as the game's Text splits it."""
        return self.text.parts(printable(v), width)

    def view(self, v: dict) -> str:
        """The whole screen for one view: the game's board, and the question, if any. When the
        two are taller than a terminal (ROWS), the board's head (the round, the roles: see
        board_parts) and the seat's own things come after the rest of the board, just above the
        question, so that what scrolls out of sight at the top is the part that may."""
        parts = [self.board(v)]
        if v.get("prompt"):
            parts.append(self.prompt(v))
        text = "\n\n".join(parts)
        if len(text.splitlines()) + TERMINAL_LINES > ROWS:
            head, rest, mine = self.board_parts(v)
            text = "\n\n".join([part for part in (rest, head, mine) if part] + parts[1:])
        return text

    def prompt(self, v: dict) -> str:
        p = printable(v["prompt"])
        lines = [self.paint(p["text"], "ask")]
        numbered = enumerate(p["labels"], first_number(p))
        lines += options_in_columns([f"  {i:>2}. {label}" for i, label in numbered])
        if p.get("back"):
            lines.append(f"   b. Back: {p['back']}")
        lines.append(self.paint(how_to_answer(p["min"], p["max"]) + "  (? for help, q to quit)", "dim"))
        return "\n".join(lines)

    def help(self, v: dict) -> str:
        p = printable(v["prompt"])
        lines = ["Answer with option numbers separated by spaces, e.g. `2` or `1 3`; `0`, `none` or "
                 "`pass` picks nothing, where that is allowed (an empty line never does). `q` leaves the game. "
                 "`!` and a line chats to the table, e.g. `! hello all`.",
                 how_to_answer(p["min"], p["max"])]
        if p.get("back"):
            lines.append(f"`b` or `back` goes back: {p['back']}. Nothing you answered since has been "
                         "told to anyone.")
        if getattr(self.text, "explain", None):
            lines.append("`?` and a name explains anything on the board, e.g. `? " + self.example(v) + "`.")
        return "\n".join(lines + ["", self.options_help(v)])

    def options_help(self, v: dict) -> str:
        """Each option of the question, numbered as it is typed, with its help."""
        p = printable(v["prompt"])
        lines = ["Each option's number is the count it stands for: type 2 for two, 0 for none."] \
            if p.get("counts") else []
        lines += [f"  {i}. {' '.join(label.split())}" + (f": {text}" if text else "")
                  for i, (label, text) in enumerate(zip(p["labels"], p["help"]), first_number(p))]
        return "\n".join(lines)

    def explain(self, v: dict, words: str) -> str:
        """`? words`: what the game's Text says of the thing so named, or how to ask when it
        knows nothing by that name (or explains nothing by name at all)."""
        explain = getattr(self.text, "explain", None)
        if explain is None:
            return "This game explains nothing by name: type ? alone for help on the options."
        answer = explain(printable(v), words)
        if answer is not None:
            return answer
        names = getattr(self.text, "names", None)
        listed = f" The names: {', '.join(names(printable(v)))}." if names else ""
        return wrap(f'Nothing here is called "{words}". Type ? alone for help on the options of the '
                    f'question, or ? and a name or its first letters, e.g. "? {self.example(v)}".{listed}')

    def result(self, result: dict, names: list[str]) -> str:
        return self.text.result(printable(result), printable(names))

    def example(self, v: dict) -> str:
        names = getattr(self.text, "names", None)
        known = names(printable(v)) if names else []
        return known[0] if known else "name"

    def waiting(self, v: dict) -> str:
        """Who the game waits for, by name."""
        names = [printable(p["name"]) for p in v["players"]]
        return f"Waiting for {', '.join(names[s] for s in v['to_act'])}…"


def options_in_columns(items: list[str], tallest: int = 4) -> list[str]:
    """A long list of numbered options in two columns, numbered down the first and on down the
    second, when they fit the screen's width: the board and its question stay on one screen."""
    width = max(map(len, items), default=0) + 2
    if len(items) <= tallest or 2 * width - 2 > WIDTH:
        return items
    rows = (len(items) + 1) // 2
    left, right = items[:rows], items[rows:] + [""]
    return [(a.ljust(width) + b).rstrip() for a, b in zip(left, right)]


def wrap(text: str) -> str:
    return textwrap.fill(text, width=WIDTH - 1, subsequent_indent="  ")


def first_number(prompt: dict) -> int:
    """The number option 0 is shown and typed as: 1, or where the options are counts (the
    prompt's `counts`, games/contract.py), the first count itself, so that the number typed is
    the count."""
    return prompt["options"][0] if prompt.get("counts") else 1


def how_to_answer(lo: int, hi: int) -> str:
    """The instruction line for "pick between lo and hi distinct options"."""
    if hi == 0:
        return "Nothing to choose: press Enter to go on."
    if lo == hi:
        return "Type the number of your choice." if hi == 1 else f"Type {hi} different numbers."
    if lo == 0:
        return ("Type a number, or 0 for none." if hi == 1
                else f"Type up to {hi} different numbers, or 0 for none.")
    return f"Type {lo} to {hi} different numbers."


# ------------------------------------------------------------ lobby and connection status

def time_left(deadline: float | None) -> str | None:
    """The time until `deadline` (a time.monotonic()) as m:ss, rounded up; None without one."""
    if deadline is None:
        return None
    left = max(0, int(deadline - time.monotonic() + 0.999))
    return f"{left // 60}:{left % 60:02d}"


KEY_GROUPS = 4      # groups of a key's fingerprint shown beside a name (the whole of it is checked)


def short_key(fingerprint: str | None) -> str:
    """A key's fingerprint as shown beside a name: its first groups, enough to tell two keys
    apart by eye (the whole fingerprint is protocol.signing's)."""
    return ":".join(fingerprint.split(":")[:KEY_GROUPS]) if fingerprint else "(none)"


def named(name: str, fingerprint: str | None) -> str:
    """A player's name with their key's short fingerprint beside it, `Ana [1a2b:3c4d:5e6f:7081]`;
    the name alone for a computer player (no key)."""
    return f"{name} [{short_key(fingerprint)}]" if fingerprint else name


def seat_fingerprint(seat: dict) -> str | None:
    """The fingerprint of the player key a server lists for a seat (`key`), or None."""
    key = seat.get("key")
    return fingerprint(key) if isinstance(key, bytes) and len(key) == PUBLIC_KEY_BYTES else None


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
        who = named(name, seat_fingerprint(s)) if name else "computer"
        parts.append(f"{who}{' (you)' if i == me else ''}: {state}")
    return "Seats — " + "; ".join(parts) if parts else ""


# What "blind" in a table's line means, said under a listing that has one (docs/fairness.md §10).
BLIND_MEANS = ("blind: a table that deals blind, where nobody, the server included, knows a card until it is "
               "opened to whoever may see it")


def describe_table(t: dict) -> str:
    """One line of the lobby: id, game, seats taken, computer players, "rated", "blind" (see
    BLIND_MEANS), status, options."""
    name = t.get("game")
    game = games.GAMES.get(name) if isinstance(name, str) else None
    title = game.INFO.title if game else str(name or "?")
    seats = t.get("seats") if isinstance(t.get("seats"), list) else []
    people = [named(str(s["name"]), seat_fingerprint(s)) for s in seats
              if isinstance(s, dict) and s.get("name") and not s.get("bot")]
    levels = [str(s["bot"]) for s in seats if isinstance(s, dict) and s.get("bot")]
    computers = len(levels)
    free = sum(1 for s in seats if isinstance(s, dict) and not s.get("name") and not s.get("bot"))
    parts = [title, plural(len(seats), "seat")]
    if computers:
        parts.append(f"{computers} computer ({', '.join(dict.fromkeys(levels))})")
    parts.append(f"{free} free" if free else "full")
    if t.get("rated") is True:
        parts.append("rated")
    if t.get("blind") is True:
        parts.append("blind")
    parts.append(str(t.get("status", t.get("state", "?"))))
    line = f"{t.get('id', t.get('table', '?'))}  " + ", ".join(parts)
    if people:
        line += " — " + ", ".join(people)
    options = t.get("options")
    extra = game.INFO.describe(options) if game and isinstance(options, dict) else ""
    if extra:
        line += f" [{extra}]"
    return line


def renderer_for(view: dict, colour: bool) -> Renderer:
    """The Renderer of the game and options a view is of; a view of no game we know ends the
    client's run with a sentence (the server is not one we can play with)."""
    game, options = view.get("game"), view.get("options")
    if not isinstance(game, str) or game not in games.GAMES or not isinstance(options, dict):
        raise ClientError("bad_view", f"the server sent a view of a game this client does not know "
                          f"({str(game)[:40]!r}); known: {', '.join(games.GAMES)}")
    return Renderer(game, options, colour)
