"""The server's lobby: sitting down at a table (`sit`, which saves the seat before anything
else), what a listed table offers, and the dialogs of `governor join` that list the tables and
let a person sit at one, watch one, resume a seat or create a table."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import bots
import games

from .answers import QUIT_WORDS, number_in
from .link import Link, ServerRefused
from .render import BLIND_MEANS, describe_table
from .session import SeatSession, player_key
from .terminal import Keyboard, ask_once


NAME_LENGTH = 20


def player_name(text: str) -> str:
    """A name to sit with, as typed (argparse type, and the lobby's check)."""
    name = text.strip()
    if not name or len(name) > NAME_LENGTH or not name.isprintable():
        shown = f" (yours has {len(name)})" if len(name) > NAME_LENGTH else ""
        raise argparse.ArgumentTypeError(f"a name is 1 to {NAME_LENGTH} printable characters{shown}")
    return name


async def ask_name(keyboard: Keyboard | None, default: str = "Player") -> str:
    """A name typed until it is one the server takes: a bad one is explained and asked again.
    Without a keyboard, each line is read by a reader that stops once answered (ask_once), so
    that the full-screen table that follows gets every key."""
    while True:
        try:
            typed = (await ask(keyboard, "Your name", default) if keyboard is not None else
                     (await ask_once(f"Your name [{default}]: ")).strip() or default)
            return player_name(typed)
        except argparse.ArgumentTypeError as e:
            print(f"{str(e)[0].upper()}{str(e)[1:]}: please type another.")


async def sit(link: Link, table: str, name: str, data_dir: Path) -> SeatSession:
    """Take a free seat with our player key; the session is saved (with a fresh secret seed, and
    a fresh deal seed in case the table is blind) before anything else."""
    key = player_key(Path(data_dir)).public_key
    reply = await link.request({"type": "sit", "table": table, "name": name, "key": key}, ("seated",))
    session = SeatSession(Path(data_dir), link.url, reply["table"], reply["seat"],
                          reply["player_id"], name, os.urandom(32), server_key=link.welcome["key"],
                          deal_seed=os.urandom(32))
    session.save()
    return session


def table_is_open(t: dict) -> bool:
    """A listed table that is waiting for players and has a free seat."""
    if t.get("status", t.get("state", "waiting")) != "waiting":
        return False
    seats = t.get("seats")
    if isinstance(seats, list):
        return any(seat_is_free(s) for s in seats)
    return True


def seat_is_free(s) -> bool:
    return isinstance(s, dict) and not s.get("name") and not s.get("bot")


def table_id(t: dict) -> str:
    return str(t.get("table", t.get("id", "?")))


# ------------------------------------------------------------------ the dialogs

async def ask(keyboard: Keyboard, question: str, default: str = "") -> str:
    answer = (await keyboard.readline(f"{question}{f' [{default}]' if default else ''}: ")).strip()
    return answer or default


async def ask_choice(keyboard: Keyboard, question: str, choices: list[str], default: int,
                     about: list[str] | None = None) -> int:
    """One question of the create dialog in plain lines: the index of the choice typed (its
    name, or the first letters of one, or, when no choice is a number, its number in the list),
    asked again until it is one of them; Enter takes the default."""
    if about:
        for choice, text in zip(choices, about):
            print(f"  {choice}: {text}")
    numbered = not any(c.isdigit() for c in choices)
    shown = ", ".join(f"{i}. {c}" if numbered else c for i, c in enumerate(choices, 1))
    while True:
        text = (await ask(keyboard, f"{question} ({shown})", choices[default])).lower()
        exact = [i for i, c in enumerate(choices) if c.lower() == text]
        starts = [i for i, c in enumerate(choices) if text and c.lower().startswith(text)]
        k = number_in(text, 1, len(choices)) if numbered else None
        picked = exact or (starts if len(starts) == 1 else []) or ([k - 1] if k is not None else [])
        if picked:
            return picked[0]
        print(f"Please type one of {', '.join(choices)}.")


async def table_spec(ask) -> tuple[str, int, list[str], dict, bool, bool | None] | None:
    """The create dialog's questions, the same in plain lines and on the full screen: (game,
    seats, each computer player's level, the table's options, rated, blind), or None when backed
    out. Only a table of people is asked whether it is rated: a computer player's match never
    counts. Only a table of two people or more is asked whether it deals blind (blind None: one
    person against computer players, dealt open as the server does by default).
    `ask(question, choices, default, about=None)` returns the index picked, or None."""
    ids = list(games.GAMES)
    k = await ask("Game", [games.GAMES[g].INFO.title for g in ids], 0) if len(ids) > 1 else 0
    if k is None:
        return None
    game = ids[k]
    info = games.get(game).INFO
    counts = [str(n) for n in info.players]
    k = await ask("Players", counts, counts.index(str(info.default_players)))
    if k is None:
        return None
    seats = int(counts[k])
    computers = await ask("How many of them computer players", [str(n) for n in range(seats)], 0)
    if computers is None:
        return None
    there, levels = bots.levels(game), []
    for i in range(1, computers + 1):
        if len(there) == 1:
            levels.append(there[0])
            continue
        lv = await ask(f"Level of computer player {i}", there,
                       there.index(levels[-1] if levels else bots.default_level(game)),
                       [bots.describe(lv) for lv in there] if i == 1 else None)
        if lv is None:
            return None
        levels.append(there[lv])
    options = {}
    for o in info.options:   # one question per table option, from the game's metadata
        question = o.help[0].upper() + o.help[1:]
        if o.type is bool:
            k = await ask(f"{question}?", ["no", "yes"], int(o.default))
            value = None if k is None else bool(k)
        else:
            k = await ask(question, [str(c) for c in o.choices], o.choices.index(o.default))
            value = None if k is None else o.choices[k]
        if value is None:
            return None
        options[o.name] = value
    rated = False
    if not levels:
        k = await ask("Rated (the match counts for every player's rating)?", ["no", "yes"], 0)
        if k is None:
            return None
        rated = bool(k)
    blind = None
    if seats - computers >= 2:
        k = await ask("Blind dealing (nobody, the server included, knows a card until it is opened to "
                      "whoever may see it)?", ["no", "yes"], 1)
        if k is None:
            return None
        blind = bool(k)
    return game, seats, levels, options, rated, blind


async def lobby(link: Link, keyboard: Keyboard, data_dir: Path,
                name: str | None = None) -> tuple[str, str | None, str | None]:
    """Until the person picks: ("sit", table, name) or ("watch", table, None) or ("resume",
    table, None) or ("quit", None, None). Creating a table asks for the creator's name first
    (unless `name` is given), so that a refused name never leaves an empty table behind."""
    saved = SeatSession.unfinished(data_dir, link.welcome["key"])
    while True:
        listed = await link.tables()
        tables = [t for t in listed if t.get("status", t.get("state")) in ("waiting", "playing")]
        print()
        if saved:
            print("Your unfinished seats at this server:")
            for s in saved:
                print(f"   r {s.table}  (seat {s.seat + 1}, as {s.name})")
        if tables:
            print("Tables:")
            for i, t in enumerate(tables, 1):
                print(f"  {i:>2}. {describe_table(t)}")
            if any(t.get("blind") is True for t in tables):
                print(f"  ({BLIND_MEANS})")
        else:
            print("No table is waiting or being played.")
        print("Type a number to sit at that table, w and a number to watch it, c to create a table,"
              + (" r to resume your seat," if saved else "") + " Enter to refresh, q to quit.")
        choice = (await keyboard.readline("lobby> ")).strip().lower()
        if choice in QUIT_WORDS:
            return "quit", None, None
        if choice == "":
            continue
        if choice == "r" and saved:
            return "resume", saved[0].table, None
        if choice == "c":
            name = name or await ask_name(keyboard)
            table = await create_dialog(link, keyboard)
            if table:
                return "sit", table, name
            continue
        watch = choice.startswith("w")
        num = choice[1:].strip() if watch else choice
        picked = number_in(num, 1, len(tables))
        if picked is not None:
            return ("watch" if watch else "sit"), table_id(tables[picked - 1]), name
        shown = choice if len(choice) <= 20 else choice[:17] + "..."
        print(f"{shown!r} is not one of the choices.")


async def create_dialog(link: Link, keyboard: Keyboard) -> str | None:
    async def asked(question, choices, default, about=None):
        return await ask_choice(keyboard, question, choices, default, about)
    spec = await table_spec(asked)
    if spec is None:
        return None
    game, seats, levels, options, rated, blind = spec
    try:
        table = await link.create(game, seats, len(levels), options, levels=levels, rated=rated, blind=blind)
    except ServerRefused as e:
        print(f"The server refused: {e}")
        return None
    print(f"Created table {table}.")
    return table
