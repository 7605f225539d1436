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
from .render import describe_table
from .session import SeatSession
from .terminal import Keyboard


NAME_LENGTH = 20


def player_name(text: str) -> str:
    """A name to sit with, as typed (argparse type, and the lobby's check)."""
    name = text.strip()
    if not name or len(name) > NAME_LENGTH or not name.isprintable():
        shown = f" (yours has {len(name)})" if len(name) > NAME_LENGTH else ""
        raise argparse.ArgumentTypeError(f"a name is 1 to {NAME_LENGTH} printable characters{shown}")
    return name


async def ask_name(keyboard: Keyboard, default: str = "Player") -> str:
    """A name typed until it is one the server takes: a bad one is explained and asked again."""
    while True:
        try:
            return player_name(await ask(keyboard, "Your name", default))
        except argparse.ArgumentTypeError as e:
            print(f"{str(e)[0].upper()}{str(e)[1:]}: please type another.")


async def sit(link: Link, table: str, name: str, data_dir: Path) -> SeatSession:
    """Take a free seat; the session is saved (with a fresh secret seed) before anything else."""
    reply = await link.request({"type": "sit", "table": table, "name": name}, ("seated",))
    session = SeatSession(Path(data_dir), link.url, reply["table"], reply["seat"], reply["token"],
                          reply["player_id"], name, os.urandom(32), server_key=link.welcome["key"])
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


async def _ask_yes(keyboard: Keyboard, question: str, default: bool = False) -> bool:
    answer = (await ask(keyboard, f"{question} ({'Y/n' if default else 'y/N'})")).lower()
    return answer in ("y", "yes") if answer else default


async def _ask_number(keyboard: Keyboard, question: str, lo: int, hi: int, default: int) -> int:
    while True:
        text = await ask(keyboard, f"{question} ({lo}-{hi})", str(default))
        if number_in(text, lo, hi) is not None:
            return number_in(text, lo, hi)
        print(f"Please type a number from {lo} to {hi}.")


async def _ask_one_of(keyboard: Keyboard, question: str, choices: tuple[int, ...], default: int) -> int:
    words = ", ".join(map(str, choices))
    while True:
        text = await ask(keyboard, f"{question} ({words})", str(default))
        if number_in(text, min(choices), max(choices)) in choices:
            return number_in(text, min(choices), max(choices))
        print(f"Please type one of {words}.")


async def lobby(link: Link, keyboard: Keyboard, data_dir: Path,
                name: str | None = None) -> tuple[str, str | None, str | None]:
    """Until the person picks: ("sit", table, name) or ("watch", table, None) or ("resume",
    table, None) or ("quit", None, None). Creating a table asks for the creator's name first
    (unless `name` is given), so that a refused name never leaves an empty table behind."""
    saved = SeatSession.unfinished(data_dir, link.url)
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
    ids = list(games.GAMES)
    if len(ids) > 1:
        titles = ", ".join(f"{i}. {games.GAMES[g].INFO.title}" for i, g in enumerate(ids, 1))
        game = ids[await _ask_number(keyboard, f"Game: {titles}", 1, len(ids), 1) - 1]
    else:
        game = ids[0]
    info = games.get(game).INFO
    seats = await _ask_number(keyboard, "Players", info.min_players, info.max_players, info.default_players)
    bots_ = await _ask_number(keyboard, "How many of them computer players", 0, seats - 1, 0)
    levels = await _ask_levels(keyboard, game, bots_)
    options = {}
    for o in info.options:   # one question per table option, from the game's metadata
        question = o.help[0].upper() + o.help[1:]
        if o.type is bool:
            options[o.name] = await _ask_yes(keyboard, f"{question}?", o.default)
        else:
            options[o.name] = await _ask_one_of(keyboard, question, o.choices, o.default)
    try:
        table = await link.create(game, seats, bots_, options, levels=levels)
    except ServerRefused as e:
        print(f"The server refused: {e}")
        return None
    print(f"Created table {table}.")
    return table



async def _ask_levels(keyboard: Keyboard, game: str, count: int) -> list[str]:
    """The level of each of `count` computer players, each asked when the game has several."""
    there, default = bots.levels(game), bots.default_level(game)
    if count == 0 or len(there) == 1:
        return [default] * count
    print("Computer players:")
    for lv in there:
        print(f"  {lv}: {bots.describe(lv)}")
    chosen = []
    for i in range(1, count + 1):
        while True:
            answer = (await ask(keyboard, f"Level of computer player {i} ({', '.join(there)})",
                                chosen[-1] if chosen else default)).lower()
            if answer in there:
                chosen.append(answer)
                break
            print(f"Please type one of {', '.join(there)}.")
    return chosen
