"""Rules engines, one package per title, each with the same contract (games/contract.py).

Nothing under games/ does I/O, reads a clock, keeps global state or makes its own randomness.
Adding a game is one package under games/ and its name in the line below.
"""
from importlib import import_module

from games.errors import IllegalAction

GAMES = {g.INFO.id: g for g in (import_module(f"games.{name}") for name in ("sanjuan", "puertorico"))}


def get(name: str):
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise IllegalAction("unknown_game", f"No game called {name!r}; there is: {', '.join(GAMES)}.") from None


__all__ = ["GAMES", "IllegalAction", "get"]
