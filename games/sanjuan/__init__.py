"""San Juan (2nd edition, with the expansion "The New Buildings") as a pure rules engine.

The contract every title offers (DESIGN.md §2):

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
from .cards import catalog, manifest_hash
from .determinize import Determinizer, determinize
from .rules import apply, setup, to_act
from .scoring import result
from .state import State, dump, load
from .view import legal, prompt, random_action, view, visible_events

NAME = "sanjuan"
# Bump whenever a rule change could make an old match replay differently: records name it.
RULES_VERSION = "sanjuan-2e/2"
TITLE = "San Juan"
MIN_PLAYERS, MAX_PLAYERS = 2, 4


def copy(s: State) -> State:
    return s.copy()


__all__ = ["NAME", "RULES_VERSION", "TITLE", "MIN_PLAYERS", "MAX_PLAYERS", "State", "setup", "to_act", "prompt",
           "legal", "random_action", "apply", "view", "visible_events", "result", "dump", "load", "copy",
           "catalog", "manifest_hash", "determinize", "Determinizer"]
