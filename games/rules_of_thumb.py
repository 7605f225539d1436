"""What every game's rule-of-thumb computer player ("heuristic") shares: a seed for breaking ties,
tunable weights, and answering a prompt by its kind.

A game's player subclasses RulesOfThumb, sets WEIGHTS, reads the view into `seat(view)` (the
values its rules of thumb use) and answers each kind of prompt in a method `_<kind>(seat,
options, lo, hi)` returning a legal pick. Questions with one legal answer never reach them.
"""
from __future__ import annotations

import random


class RulesOfThumb:
    level = "heuristic"
    WEIGHTS: dict[str, float] = {}

    def __init__(self, seed: int | str = 0, **weights) -> None:
        self.rng = random.Random(str(seed))   # only breaks exact ties
        unknown = set(weights) - set(self.WEIGHTS)
        if unknown:
            raise ValueError(f"unknown heuristic weights: {', '.join(sorted(unknown))}")
        self.w = {**self.WEIGHTS, **weights}

    def seat(self, view: dict):
        raise NotImplementedError

    def choose(self, view: dict) -> list:
        p = view["prompt"]
        options, lo, hi = p["options"], p["min"], p["max"]
        if hi == 0:
            return []
        if lo == len(options):
            return list(options)
        return list(getattr(self, "_" + p["kind"])(self.seat(view), options, lo, hi))

    def _best(self, options, value) -> list:
        """The option of the highest value; exact ties broken at random (seeded)."""
        return [max(options, key=lambda o: (value(o), self.rng.random()))]
