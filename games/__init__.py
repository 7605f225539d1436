"""Rules engines, one package per title, each with the same contract (DESIGN.md §2).

Nothing under games/ does I/O, reads a clock, keeps global state or makes its own randomness.
"""
from games.errors import IllegalAction

from . import sanjuan

GAMES = {sanjuan.NAME: sanjuan}


def get(name: str):
    try:
        return GAMES[name]
    except KeyError:
        raise IllegalAction("unknown_game", f"No game called {name!r}; there is: {', '.join(GAMES)}.") from None


__all__ = ["GAMES", "IllegalAction", "get"]
