"""Computer players. They decide from a seat's view (its prompt included), never from the state.

    bot = bots.make("ismcts", seed=7, iterations=500)   # or seconds=0.5, or both
    action = bot.choose(view)                           # a legal pick for view["prompt"]

Levels: "random" (uniform legal moves), "heuristic" (rules of thumb), "ismcts" (information-set
Monte Carlo tree search over states sampled consistently with the view). A bot is deterministic
given its seed, except under a seconds budget, which depends on the machine's speed.
"""
from .heuristic import HeuristicBot
from .ismcts import ISMCTSBot
from .random_bot import RandomBot

BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "ismcts": ISMCTSBot}


def make(level: str, seed: int | str = 0, **budget):
    """A bot of `level`; `budget` (iterations=, seconds=) applies to searching levels only."""
    try:
        cls = BOTS[level]
    except KeyError:
        raise ValueError(f"No bot level {level!r}; there is: {', '.join(BOTS)}.") from None
    return cls(seed, **budget) if getattr(cls, "searches", False) else cls(seed)


__all__ = ["BOTS", "HeuristicBot", "ISMCTSBot", "RandomBot", "make"]
