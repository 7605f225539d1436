"""A table's game, seats and options on the command line, made from the games' metadata
(games/contract.Info): each option of each registered game is a flag (`setup_variant` is
`--setup-variant`), and a flag the chosen game has not is refused by name."""
from __future__ import annotations

import argparse

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
