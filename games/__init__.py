"""Rules engines, one package per title, each with the same contract (games/contract.py).

Nothing under games/ does I/O, reads a clock, keeps global state or makes its own randomness.
Adding a game is one package under games/ and its name in the line below. Registering checks it
against the contract (a TypeError names every part missing or malformed) and gives it the
contract's defaults of what it leaves out (contract.DEFAULTS), so that everywhere the package is
imported it offers every name of the contract.
"""
from importlib import import_module

from games.contract import complete
from games.errors import IllegalAction

GAMES: dict = {}


def register(game) -> None:
    """Add a game (a module with the contract's names) to the registry, by its INFO.id. Its
    options become command-line flags beside every other game's: an option of a name another
    game has must be the same kind of option (one flag sets both)."""
    complete(game)
    if game.INFO.id in GAMES:
        raise TypeError(f"a game called {game.INFO.id!r} is registered already")
    clashes = [f"{o.name} ({other.INFO.title}'s is another kind of option)" for other in GAMES.values()
               for o in game.INFO.options for theirs in other.INFO.options
               if theirs.name == o.name and (theirs.type, theirs.default, theirs.choices) != (o.type, o.default, o.choices)]
    if clashes:
        raise TypeError(f"{game.INFO.id} has options that are one flag with another game's: {'; '.join(clashes)}")
    GAMES[game.INFO.id] = game


def get(name: str):
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise IllegalAction("unknown_game", f"No game called {name!r}; there is: {', '.join(GAMES)}.") from None


for _name in ("sanjuan", "puertorico"):
    register(import_module(f"games.{_name}"))

__all__ = ["GAMES", "IllegalAction", "get", "register"]
