"""San Juan (2nd edition, with the expansion "The New Buildings") as a pure rules engine.

The contract every title offers (games/contract.py):

    >>> from protocol.fairness import local_streams
    >>> from games import sanjuan
    >>> rng = local_streams(7)
    >>> s = sanjuan.setup(["Ana", "Bo", "Cy"], {"expansion": True}, rng)
    >>> seat = sanjuan.to_act(s)[0]
    >>> sanjuan.prompt(s, seat)["kind"]
    'role'
    >>> events = sanjuan.apply(s, seat, ["builder"], rng)

Actions are lists of picked option values (card ids, role names, words). Randomness comes only
from `rng`, an object with named streams (protocol.fairness.Streams). Nothing here does I/O.
"""
from . import cards
from .cards import catalog
from .determinize import Determinizer, determinize
from .heuristic import HeuristicBot
from .hidden import permute_hidden
from .info import INFO
from .rules import apply, random_move, setup, to_act
from .scoring import result
from .search import Search as search
from .state import State, dump, load
from .text import Text
from .views import private_cards, private_room, prompt, views


# Computer players of San Juan's own (bots/ adds "random" and, with `search`, "ismcts").
bots = {"heuristic": HeuristicBot}


copy = State.copy     # faster than the contract's default, a deep copy


def manifest(options: dict) -> list[str]:
    """The deck by card id, as kind keys (the cathedral is not a deck card)."""
    return [cards.KEY[k] for k in cards.MANIFEST[bool(INFO.check_options(options)["expansion"])]]


def dealt(s: State, seat: int) -> list[int]:
    """The starting hand dealt to `seat`, as card ids, before any decision."""
    return list(s.players[seat].hand)


__all__ = ["INFO", "State", "setup", "to_act", "prompt", "random_move", "apply", "views", "private_room", "result",
           "dump", "load", "copy", "manifest", "dealt", "permute_hidden", "private_cards", "bots", "search", "Text", "catalog",
           "determinize", "Determinizer"]
