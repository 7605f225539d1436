"""`governor play`: one game of San Juan in the terminal, you against random bots.

The loop: bots decide until you owe a decision; you see the board, what happened since your last
decision and the prompt; you answer with option numbers. Bad input gets one sentence and the
question again — never a traceback.
"""
from __future__ import annotations

import argparse
import secrets
import sys

from bots.random_bot import RandomBot
from games import sanjuan
from games.errors import IllegalAction

from .local import LocalGame
from .render import Renderer, use_colour

HELP = "play San Juan against bots in this terminal"
BOT_NAMES = ("Ana", "Bo", "Cy", "Di")
QUIT_WORDS = ("q", "quit", "exit")
HUMAN = 0


class BadAnswer(ValueError):
    """An answer that does not fit the prompt; str() is the sentence to show."""


class Quit(Exception):
    """The player confirmed they want to leave."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="Player", type=_name, help="your name at the table (default: Player)")
    # Lets a RandomBot answer for you through the same input path: for tests and demos.
    p.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' * (k != 1)}"


def _need(lo: int, hi: int) -> str:
    if lo == hi:
        return _plural(hi, "option") if hi <= 1 else f"exactly {hi} options"
    if lo == 0:
        return f"at most {_plural(hi, 'option')}"
    return f"between {lo} and {hi} options"


def parse_answer(text: str, count: int, lo: int, hi: int) -> list[int]:
    """The 0-based option indices in a line like "3" or "1 4 5" (commas work too) for a prompt
    of `count` options asking for lo..hi of them. Raises BadAnswer with a sentence."""
    picks: list[int] = []
    for word in text.replace(",", " ").split():
        if not (word.isascii() and word.isdigit()):
            raise BadAnswer(f'"{word}" is not an option number: type numbers like 2 or 1 3.')
        n = int(word)
        if not 1 <= n <= count:
            raise BadAnswer(f"There is no option {n}: the options go from 1 to {count}."
                            if count else "There are no options here: press Enter.")
        if n - 1 in picks:
            raise BadAnswer(f"You picked option {n} twice: each option can be picked once.")
        picks.append(n - 1)
    if not lo <= len(picks) <= hi:
        need = _need(lo, hi)
        raise BadAnswer(f"You must pick {need}." if not picks
                        else f"You picked {len(picks)}, but you must pick {need}.")
    return picks


def _names(human: str, players: int) -> list[str]:
    bots = [n for n in BOT_NAMES if n.lower() != human.lower()]
    return [human, *bots[:players - 1]]


def _name(text: str) -> str:
    name = text.strip()
    if not name or len(name) > 20 or not name.isprintable():
        raise argparse.ArgumentTypeError("a name is 1 to 20 printable characters")
    return name


def run(args: argparse.Namespace) -> int:
    try:
        seed = args.seed if args.seed is not None else str(secrets.randbelow(10**9))
        options = {"expansion": args.expansion, "setup_variant": args.setup_variant}
        game = LocalGame(sanjuan, _names(args.name, args.players), options, seed, humans=(HUMAN,))
    except IllegalAction as e:
        print(f"governor play: {e.message}", file=sys.stderr)
        return 2
    screen = Renderer(sanjuan.catalog(args.expansion), use_colour(sys.stdout))
    read = _auto_reader(RandomBot(f"{seed}/{HUMAN}")) if args.auto else _keyboard
    print(f"Seed {seed}: replay this deal with --seed {seed}.\n")
    try:
        _play(game, screen, read)
    except KeyboardInterrupt:
        print("\nInterrupted: the game is abandoned.", file=sys.stderr)
        return 130
    except EOFError:
        print("\nInput closed: the game is abandoned.")
    except Quit:
        print("You left the game.")
    return 0


def _play(game: LocalGame, screen: Renderer, read) -> None:
    log = game.play_bots()[HUMAN]  # what you have not seen yet
    while not game.over:
        v = game.view(HUMAN)
        print(screen.board(v), screen.cities(v), screen.hand(v), sep="\n\n", end="\n\n")
        if log:
            print(screen.events(log), end="\n\n")
        print(screen.prompt(v))
        log = _decide(game, screen, v, read) + game.play_bots()[HUMAN]
    v = game.view(HUMAN)
    print()
    if log:
        print(screen.events(log), end="\n\n")
    print(screen.board(v), screen.cities(v), screen.result(game.result(), game.names), sep="\n\n")


def _decide(game: LocalGame, screen: Renderer, v: dict, read) -> list[dict]:
    """Ask until the engine accepts an answer; the events the human may see."""
    p = v["prompt"]
    while True:
        line = read(v).strip()
        if line == "?":
            print(screen.help(v))
            continue
        if line.lower() in QUIT_WORDS:
            if input("Quit this game? [y/N] ").strip().lower() in ("y", "yes"):
                raise Quit
            continue
        try:
            picks = parse_answer(line, len(p["options"]), p["min"], p["max"])
            return game.apply(HUMAN, [p["options"][i] for i in picks])[HUMAN]
        except BadAnswer as e:
            print(screen.paint(str(e), "warn"))
        except IllegalAction as e:
            print(screen.paint(e.message, "warn"))


def _keyboard(view: dict) -> str:
    return input("> ")


def _auto_reader(bot: RandomBot):
    """Answers typed by a bot, echoed so a transcript reads like a session."""
    def read(view: dict) -> str:
        options = view["prompt"]["options"]
        line = " ".join(str(options.index(a) + 1) for a in bot.choose(view))
        print(f"> {line}")
        return line
    return read
