"""Events and the few words they are made of. Every event is public: nothing is dealt privately."""
from __future__ import annotations


def say(ev: list, kind: str, text: str) -> None:
    ev.append({"type": kind, "to": None, "text": text})


def count(k: int, what: str) -> str:
    """"1 barrel", "3 barrels"."""
    return f"{k} {what}{'s' * (k != 1)}"


def a(noun: str) -> str:
    """"a sugar plantation", "an indigo plantation"."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"
