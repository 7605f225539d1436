"""Computer players. They decide from a seat's view (its prompt included), never from the state."""
from .random_bot import RandomBot

BOTS = {"random": RandomBot}


def make(level: str, seed: int | str = 0):
    try:
        return BOTS[level](seed)
    except KeyError:
        raise ValueError(f"No bot level {level!r}; there is: {', '.join(BOTS)}.") from None


__all__ = ["BOTS", "RandomBot", "make"]
