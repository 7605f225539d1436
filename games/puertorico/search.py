"""What Puerto Rico offers a search bot (games/contract.Search): states sampled from the seat's
view (determinize.py), imagined streams, the fast playout policy and the position estimate
(policy.py).

The generic ISMCTS (bots/ismcts.py) knows nothing else of the game. Searched are the decisions
that shape a game: the role, what to build, which plantation to take, what to load, the
craftsman's extra barrel, what to sell. The mayor's placement questions (many, and mostly
answered by plain arithmetic), storage and the yes/no bonuses are the heuristic's.

Below the root only the seat's later roles are in the tree; its later builds and plantations are
the policy's. With them in the tree a role's average fell with every poor building its first
visits tried (a dozen choices each), and the search shunned the builder.
"""
from __future__ import annotations

from games.imagined import ImaginedStreams

from .components import TABLES
from .determinize import Determinizer
from .flow import apply
from .policy import choose, estimates
from .scoring import result


def progress(round_: int, taken: int, n: int) -> int:
    """Roles picked since the start: the search's horizon is counted in them."""
    return (round_ - 1) * TABLES[n].roles_per_round + taken


class Search:
    searched = frozenset({"role", "build", "settle", "load", "craftsman", "sell"})
    tree_kinds = frozenset({"role"})
    # Half San Juan's: it won more than 0.7 in a paired series against three heuristic players
    # (docs/benchmarks.md, 'Computer players: speed and strength').
    exploration = 0.35
    apply = staticmethod(lambda s, seat, action, streams: apply(s, seat, action, streams, events=False))
    sampler = staticmethod(Determinizer)
    streams = staticmethod(ImaginedStreams)
    policy = staticmethod(choose)
    estimates = staticmethod(estimates)

    def __init__(self, extra_phases: int = 1) -> None:
        # ISMCTS stops a playout once the game's progress reaches the root's + `horizon` (2 by
        # default); a phase is short, so a playout runs this many role picks further. From a role
        # pick it plays the root's phase and the next one, and stops at the pick after that.
        self.extra = extra_phases

    def skip(self, view: dict) -> bool:
        return False

    def root_key(self, view: dict):
        return lambda option: option      # options are kinds already (D14): one child each

    def next_decision(self, s, stop: int) -> tuple | None:
        if s.over or progress(s.round, len(s.taken), s.n) >= stop + self.extra:
            return None
        seat, kind, options, lo, hi = s.pending
        return seat, (kind, options, lo, hi)

    def option_key(self, s, option):
        return option

    def progress(self, view: dict) -> int:
        taken = sum(r["taken_by"] is not None for r in view["roles"])
        return progress(view["round"], taken, len(view["players"]))

    def over(self, s) -> bool:
        return s.over

    def winners(self, s) -> list[int]:
        return result(s)["winners"]

