"""What San Juan offers a search bot (games/contract.Search): states sampled from a seat's view,
imagined streams, the fast playout policy (policy.py) and the position estimate.

The generic ISMCTS (bots/ismcts.py) knows nothing else of the game. `role_noise` is the policy's:
its role choice is the heuristic's values plus that much uniform noise, so that playouts do not
all follow one line (None: a cruder and cheaper rule).
"""
from __future__ import annotations

from functools import partial

from games.imagined import ImaginedStreams

from . import policy
from . import values as V
from .determinize import Determinizer
from .heuristic import Seat
from .rules import apply
from .scoring import result


class Search:
    # Card-level decisions with combinatorial options (pay, discard, hand limit, office, bank,
    # black market) are left to the heuristic: their branching is large and their stakes small.
    searched = frozenset({"role", "build", "cover", "keep", "chapel", "library", "produce", "sell"})
    tree_kinds = frozenset({"role", "build", "cover", "keep", "chapel", "library"})
    exploration = 0.7       # by series against the heuristic (docs/benchmarks.md)
    apply = staticmethod(lambda s, seat, action, streams: apply(s, seat, action, streams, events=False))
    sampler = staticmethod(Determinizer)
    streams = staticmethod(ImaginedStreams)

    def __init__(self, role_noise: float | None = 0.5) -> None:
        # A partial binding role_noise by position, not a method nor a partial with a keyword
        # (both slower calls): the playouts call it at every step, and a bot is pickled.
        self.policy = partial(policy.choose, role_noise)

    def skip(self, view: dict) -> bool:
        return view["stage"] == "deal"   # the starting keep: the heuristic's answer

    def root_key(self, view: dict):
        kinds = Seat(view).kind   # copies of a card play the same: one child per kind
        return lambda option: kinds.get(option, option)

    @staticmethod
    def next_decision(s, stop: int) -> tuple | None:
        if s.over or s.round >= stop:
            return None
        actor = next(iter(s.pending))   # the first seat to act: pending is kept in seat order
        return actor, s.pending[actor]

    def option_key(self, s, option):
        return option if type(option) is str else s.kinds[option]

    @staticmethod
    def progress(view: dict) -> int:
        return view["round"]

    def over(self, s) -> bool:
        return s.over

    def winners(self, s) -> list[int]:
        return result(s)["winners"]

    def estimates(self, s) -> list[float]:
        rl = V.rounds_left(policy.most_buildings(s))
        return [policy.estimate(s, i, rl) for i in range(len(s.players))]
