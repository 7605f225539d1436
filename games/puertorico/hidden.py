"""The only hidden thing: the order of the face-down plantation stack (docs/rules.md).
Its composition is public; the leak test deals the order anew."""
from __future__ import annotations

from .state import State


def permute_hidden(s: State, seat: int | None, rnd) -> State:
    """A copy of `s` with the face-down stack in a new order (the same for every seat)."""
    t = s.copy()
    rnd.shuffle(t.stack)
    return t
