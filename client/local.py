"""A game on this machine, with no server: the only place in the client that holds engine state.

Everyone else — the screen, the human, the bots — gets views and events, exactly what a network
client would receive, so nothing written against this class can peek at hidden cards.
"""
from __future__ import annotations

from bots.random_bot import RandomBot
from protocol.fairness import local_streams


class LocalGame:
    """One game of `game_module` (a rules engine, DESIGN.md §2) dealt from `local_streams(seed)`.

    Seats in `humans` are answered by the caller through `apply`; every other seat is a
    RandomBot seeded f"{seed}/{seat}" that decides from its own view only (`play_bots`).
    Raises the engine's IllegalAction when the names or options are not a valid table.
    """

    def __init__(self, game_module, names, options: dict, seed, humans=(0,)) -> None:
        self.game = game_module
        self.names = list(names)
        self.seed = str(seed)
        self._rng = local_streams(self.seed)
        self._state = game_module.setup(self.names, dict(options), self._rng)
        self.bots = {seat: RandomBot(f"{self.seed}/{seat}")
                     for seat in range(len(self.names)) if seat not in humans}

    def view(self, seat: int | None) -> dict:
        return self.game.view(self._state, seat)

    def to_act(self) -> list[int]:
        return self.game.to_act(self._state)

    @property
    def over(self) -> bool:
        return not self.to_act()  # the contract: nobody owes a decision once the game is over

    def result(self) -> dict:
        return self.game.result(self._state)

    def apply(self, seat: int, action) -> list[list[dict]]:
        """Play one seat's decision; the events each seat may see, indexed by seat. An illegal
        action raises IllegalAction and changes nothing."""
        events = self.game.apply(self._state, seat, action, self._rng)
        return [self.game.visible_events(events, s) for s in range(len(self.names))]

    def play_bots(self) -> list[list[dict]]:
        """Let the bots decide until only humans owe a decision or the game is over; the events
        each seat may see, indexed by seat. Bots go in seat order, which cannot change the deal:
        the engine resolves simultaneous decisions in its own fixed order."""
        seen: list[list[dict]] = [[] for _ in self.names]
        while True:
            seat = next((s for s in self.to_act() if s in self.bots), None)
            if seat is None:
                return seen
            for mine, new in zip(seen, self.apply(seat, self.bots[seat].choose(self.view(seat)))):
                mine.extend(new)
