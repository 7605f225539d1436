"""The few words events are made of. Every event is public: nothing is dealt privately."""
from __future__ import annotations


def count(k: int, what: str) -> str:
    """"1 barrel", "3 barrels"."""
    return f"{k} {what}{'s' * (k != 1)}"
