"""The random-move player: uniform over the legal actions of the prompt it is shown."""
from __future__ import annotations

import random

from games.choice import pick_uniform


class RandomBot:
    level = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(str(seed))

    def choose(self, view: dict) -> list:
        p = view["prompt"]
        return pick_uniform(p["options"], p["min"], p["max"], self.rng)
