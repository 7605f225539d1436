"""Puerto Rico (the 2002 rules, with the official two-player game) as a pure rules engine.

The contract every title offers (games/contract.py):

    >>> from protocol.fairness import local_streams
    >>> from games import puertorico
    >>> rng = local_streams(7)
    >>> s = puertorico.setup(["Ana", "Bo", "Cy"], {}, rng)
    >>> seat = puertorico.to_act(s)[0]
    >>> puertorico.prompt(s, seat)["kind"]
    'role'
    >>> events = puertorico.apply(s, seat, ["builder"], rng)

Actions are lists of picked option values (words, and counts for the mayor's placement).
Randomness comes only from `rng`, an object with named streams (protocol.fairness.Streams):
`start-player`, `plantations/initial` and `plantations/reshuffle`; on a blind table
(games.blind.BlindStreams) the plantation piles hold handles and a tile is opened to everyone as
it is turned face up (plantations.py). Nothing here does I/O.

The options and rules that every random game runs many times make their lists in plain loops, not
comprehensions, and hand tuple() a list rather than a generator: in Python 3.11 a comprehension is
a function made and called each time (a generator is also resumed for every item). For the same
reason the hottest of those rules, the placement's bounds first, take the smaller or larger of two
numbers by a comparison, not with min() or max() (rules that run rarely keep them, which read
better): in Python 3.11 these builtins parse their arguments as keywords, which costs many times
the comparison. What a random game costs: docs/benchmarks.md, 'Engine speed'.
"""
from . import plantations
from .flow import apply, random_move, to_act
from .hidden import permute_hidden
from .info import INFO
from .scoring import result
from .search import Search as search
from .state import State, dump, load
from .table import setup
from .heuristic import HeuristicBot
from .text import Text
from .views import prompt, views

# Nothing is dealt to one seat alone, and a seat's own field (its `prompt`) hides nothing: Puerto
# Rico keeps nothing from one seat that another sees (only the order of the plantation stack, from
# everyone), so the contract's `dealt` and `private_room` (None) and `private_cards` (none, on a
# blind table) are its own.

# Its own computer player, by level (bots/ adds "random" and, with `search`, "ismcts", which
# answers what it does not search with the heuristic).
bots = {"heuristic": HeuristicBot}


copy = State.copy     # faster than the contract's default, a deep copy


def manifest(options: dict) -> list[str]:
    """The plantation tiles by id, as kind keys (D20): the same with two players, whose removed
    tiles are a rule."""
    INFO.check_options(options)
    return plantations.manifest_keys()


__all__ = ["INFO", "State", "setup", "to_act", "prompt", "random_move", "apply", "views", "result",
           "dump", "load", "copy", "manifest", "permute_hidden", "bots", "search", "Text"]
