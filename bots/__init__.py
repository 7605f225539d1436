"""Computer players for every registered game. They decide from a seat's view (its prompt
included), never from the state.

    bot = bots.make(view["game"], "ismcts", seed=7, iterations=500)   # or seconds=0.5, or both
    action = bot.choose(view)                                       # a legal pick for view["prompt"]

Levels, by game (`levels(game)`): "random" (uniform legal picks) for every game, with no code of
the game's own; the game's own players (San Juan: "heuristic", rules of thumb); and "ismcts"
(information-set Monte Carlo tree search, bots/ismcts.py) for every game that offers search
support, answering what it does not search with the game's first own player. A bot is
deterministic given its seed, except under a seconds budget, which depends on the machine.
"""
from inspect import signature

import games
from games.errors import IllegalAction

from .ismcts import ISMCTSBot
from .random_bot import RandomBot

# The search's own parameters; any other keyword given to make() goes to the game's search support.
_SEARCH_PARAMS = frozenset(signature(ISMCTSBot).parameters) - {"search", "fallback", "seed"}


# What each level is, in a line for people choosing their opponents (help texts, the lobby).
DESCRIPTIONS = {
    "random": "picks any legal move at random: an opponent for learning the rules",
    "heuristic": "the game's own rules of thumb: a quick, sensible opponent",
    "ismcts": "searches ahead over what it cannot see (Monte Carlo tree search); it thinks "
              "a moment",
}


# Levels whose thinking time depends on what their seat holds: a search runs only where there is
# something to choose (the server holds their answers to a time that tells nothing: `bot_answer`).
SEARCHING = frozenset({"ismcts"})


def describe(level: str) -> str:
    return DESCRIPTIONS.get(level, "a computer player")


def levels(game: str) -> list[str]:
    engine = games.get(game)
    return ["random", *engine.bots, *(["ismcts"] if engine.search else [])]


def all_levels() -> list[str]:
    """Every level some registered game has, for a seat whose game is not known yet."""
    return list(dict.fromkeys(lv for game in games.GAMES for lv in levels(game)))


def default_level(game: str) -> str:
    """What fills a computer seat when nobody says: the game's own first player, else random."""
    return next(iter(games.get(game).bots), "random")


def make(game: str, level: str, seed: int | str = 0, **params):
    """A bot of `level` for `game`; `params` (iterations=, seconds=, …) apply to searching levels
    only. An unknown game or level raises IllegalAction naming what there is."""
    engine = games.get(game)
    if level not in levels(game):
        raise IllegalAction("unknown_bot", f"No bot level {level!r} for {engine.INFO.title}; there is: "
                            f"{', '.join(levels(game))}.")
    if level == "random":
        return RandomBot(seed)
    if level != "ismcts":
        return engine.bots[level](seed)
    own = {k: v for k, v in params.items() if k in _SEARCH_PARAMS}
    support = engine.search(**{k: v for k, v in params.items() if k not in _SEARCH_PARAMS})
    fallback = engine.bots[next(iter(engine.bots))](seed) if engine.bots else RandomBot(seed)
    return ISMCTSBot(support, fallback, seed, **own)


class AnyGame:
    """A bot of `level` for the game of the views it is shown: for a seat taken before its game
    is known (a headless client joining a table by id). The bot is made on the first view."""

    def __init__(self, level: str, seed: int | str = 0, **params) -> None:
        if level not in all_levels():
            raise IllegalAction("unknown_bot", f"No bot level {level!r}; there is: {', '.join(all_levels())}.")
        self.level, self.seed, self.params = level, seed, params
        self.bot = None

    def choose(self, view: dict) -> list:
        if self.bot is None:
            self.bot = make(view["game"], self.level, self.seed, **self.params)
        return self.bot.choose(view)


__all__ = ["DESCRIPTIONS", "AnyGame", "ISMCTSBot", "RandomBot", "all_levels", "default_level", "describe", "levels",
           "make"]
