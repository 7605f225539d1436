"""A table's game, seats and options on the command line, made from the games' metadata
(games/contract.Info): each option of each registered game is a flag (`setup_variant` is
`--setup-variant`), and a flag the chosen game has not is refused by name."""
from __future__ import annotations

import argparse

import bots
import games
from games.errors import IllegalAction

DEFAULT_GAME = next(iter(games.GAMES))


def _options() -> dict[str, object]:
    """name -> Option, over every registered game (a name two games share is one flag)."""
    return {o.name: o for engine in games.GAMES.values() for o in engine.INFO.options}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_option_arguments(p: argparse.ArgumentParser, what: str = "") -> None:
    """One flag per table option; `what` says which table they describe ("a created table: ")."""
    for name, o in _options().items():
        owners = [e.INFO.title for e in games.GAMES.values() if name in {x.name for x in e.INFO.options}]
        where = f" ({', '.join(owners)})" if len(owners) < len(games.GAMES) else ""
        if o.type is bool:
            action = "store_true" if o.default is False else argparse.BooleanOptionalAction
            p.add_argument(_flag(name), dest=f"option_{name}", action=action, default=None,
                           help=f"{what}{o.help}{where}")
        else:
            p.add_argument(_flag(name), dest=f"option_{name}", type=int, choices=o.choices or None,
                           default=None, metavar="N", help=f"{what}{o.help}{where}")


def add_table_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=sorted(games.GAMES), default=DEFAULT_GAME,
                   help=f"the game to play (default {DEFAULT_GAME})")
    ranges = "; ".join(f"{e.INFO.title} {e.INFO.min_players} to {e.INFO.max_players}" for e in games.GAMES.values())
    p.add_argument("--players", type=int, metavar="N", help=f"players at the table ({ranges}; default 4 or fewer)")
    add_option_arguments(p)


def chosen_options(args: argparse.Namespace, engine) -> dict:
    """The options given on the command line for `engine`'s table, defaults filled in; raises
    IllegalAction naming a flag that game has not."""
    info = engine.INFO
    given = {name: getattr(args, f"option_{name}") for name in _options()
             if getattr(args, f"option_{name}", None) is not None}
    mine = {o.name for o in info.options}
    alien = [_flag(name) for name in given if name not in mine]
    if alien:
        raise IllegalAction("bad_options", f"{info.title} has no option {', '.join(alien)}.")
    return info.check_options(given)


def chosen_table(args: argparse.Namespace) -> tuple[object, int, dict]:
    """(engine, players, options) from the arguments of add_table_arguments; raises IllegalAction
    naming what is wrong (too many players for the game, another game's option)."""
    engine = games.get(args.game)
    players = engine.INFO.check_players(args.players if args.players is not None else engine.INFO.default_players)
    return engine, players, chosen_options(args, engine)


def add_dealing_arguments(p: argparse.ArgumentParser, what: str) -> None:
    """`--blind` / `--open`: how a table one creates deals (docs/fairness.md §10); neither
    leaves it to the server (blind with two or more people's seats). `what` names the table."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--blind", dest="blind", action="store_const", const=True, default=None,
                       help=f"{what} deals blind: nobody, the server included, knows a card until it is "
                            "opened to whoever may see it (the default with two or more people's seats)")
    group.add_argument("--open", dest="blind", action="store_const", const=False,
                       help=f"{what} deals open: the server knows every card (the default with one person)")


# ------------------------------------------------------------------ computer players

def bots_value(text: str) -> int | tuple[str, ...]:
    """argparse type of `--bots`: a count of computer players ("2"), or one level per computer
    seat ("random,heuristic"); the game, known later, checks the levels (computer_levels)."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        if len(text) > 2:
            raise argparse.ArgumentTypeError(f"--bots {text[:10]}: a table has at most 98 computer players")
        return int(text)
    names = tuple(w.strip().lower() for w in text.split(","))
    if not all(names) or not all(n.isascii() and n.isalpha() and len(n) <= 20 for n in names):
        raise argparse.ArgumentTypeError(
            f"--bots is a number of computer players or their levels, e.g. 2 or {_example()} "
            f"({', '.join(bots.all_levels())}), not {text[:40]!r}")
    return names


def _example() -> str:
    """Two levels some game has, as --bots takes them: the last two, the strongest."""
    return ",".join(bots.all_levels()[-2:])


def levels_help() -> str:
    """Every level with what it is, one a line, for help texts."""
    width = max(map(len, bots.all_levels()))

    def where(lv: str) -> str:
        has = [e.INFO.title for g, e in games.GAMES.items() if lv in bots.levels(g)]
        return "" if len(has) == len(games.GAMES) else f" ({', '.join(has)} only)"
    return "\n".join(f"  {lv.ljust(width)}  {bots.describe(lv)}{where(lv)}" for lv in bots.all_levels())


def add_bot_arguments(p: argparse.ArgumentParser, what: str) -> None:
    """`--bots` and `--level`, with the same meaning wherever a table is set up; the levels are
    described below the options."""
    p.add_argument("--bots", type=bots_value, default=None, metavar="N|LEVELS",
                   help=f"{what}, or their levels, one per computer player, e.g. --bots {_example()}")
    p.add_argument("--level", type=str.lower, default=None, metavar="LEVEL",
                   help="the level of computer players given by number (default: the game's own "
                        "first player, or random for a game without one)")
    p.epilog = ((p.epilog + "\n\n") if p.epilog else "") + "Levels of computer players:\n" + levels_help()


def computer_levels(spec, level: str | None, game: str, players: int, default_count: int) -> list[str]:
    """The level of each computer seat of a `players` table of `game`, from --bots (a count, a
    list of levels or None for `default_count`) and --level; raises IllegalAction saying what
    does not fit (an unknown level, no seat left for a person)."""
    title = games.get(game).INFO.title
    there = ", ".join(bots.levels(game))
    if isinstance(spec, tuple):
        if level is not None:
            raise IllegalAction("bad_bots", "--level is for --bots given as a number; "
                                "a list of levels already names each one.")
        chosen = list(spec)
    else:
        count = default_count if spec is None else spec
        chosen = [level or bots.default_level(game)] * count
    for lv in chosen:
        if lv not in bots.levels(game):
            raise IllegalAction("unknown_bot", f"{title} has no computer player of level {lv!r}; "
                                f"there is: {there}.")
    if len(chosen) > players - 1:
        raise IllegalAction("bad_bots", f"{len(chosen)} computer players leave no seat for you at a "
                            f"table of {players}.")
    return chosen
