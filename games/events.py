"""What every game's events share: an event whose words are written only when someone reads them,
and the events a seat may see.

An engine reports what a move did as events {type, to, text}: `to` is None (everyone) or the one
seat told. The server, an audit and a replay read the words of every event; a random playout, a
search or a benchmark reads none, and writing them was a sixth of such a game's time. So an event
keeps, instead of its words, the function that writes them (a lambda over the values of the
moment, which the engine never changes afterwards) and calls it the first time its text is read.
The words are the same whenever they are read. A move made for a random game (`random_move`)
or a search's playout (`apply(..., events=False)`) has no reader, so it makes no events at all
(`say`).
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Callable


class Event(tuple):
    """One event, the triple (type, to, words), read as a map: e["type"], e["to"], e["text"]
    (and as attributes). It equals the plain map {type, to, text} with the same values;
    `visible` hands out plain maps, for sending. The words are written the first time they are
    read, and kept."""

    # A tuple, because one is made without running any Python: an event with an __init__ cost a
    # third more to make, and a random game makes two for every decision. The tuple is only its
    # storage, read through the names below.

    @property
    def type(self) -> str:
        return tuple.__getitem__(self, 0)

    @property
    def to(self) -> int | None:
        return tuple.__getitem__(self, 1)

    @cached_property
    def text(self) -> str:
        words = tuple.__getitem__(self, 2)
        return words if isinstance(words, str) else words()

    # Read by name only, never by index (the tuple is storage), so it narrows tuple's signature.
    def __getitem__(self, key: str) -> Any:  # type: ignore[override]
        if key == "text":
            return self.text
        if key == "type":
            return self.type
        if key == "to":
            return self.to
        raise KeyError(key)

    def as_dict(self) -> dict:
        return {"type": self.type, "to": self.to, "text": self.text}

    def __eq__(self, other) -> bool:
        if isinstance(other, Event):
            other = other.as_dict()
        return self.as_dict() == other

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # equal to a map, which has no hash either

    def __repr__(self) -> str:
        return repr(self.as_dict())


class Events(list):
    """The events of one move, in order, as `apply` returns them. `say` adds each as the plain
    tuple (type, to, words), and they are made Events only once the list is first read: making
    an Event cost a third of what a random playout, which reads none, spends on its events. A
    reader sees nothing but Events."""

    __slots__ = ()

    def _made(self) -> "Events":
        for i, e in enumerate(list.__iter__(self)):
            if type(e) is tuple:
                list.__setitem__(self, i, Event(e))
        return self

    # Every way of reading the items makes them first (list's own methods read the raw tuples).
    def __iter__(self):
        return list.__iter__(self._made())

    def __reversed__(self):
        return list.__reversed__(self._made())

    def __getitem__(self, i):
        return list.__getitem__(self._made(), i)

    def __contains__(self, e) -> bool:
        return list.__contains__(self._made(), e)

    def __eq__(self, other) -> bool:
        return list.__eq__(self._made(), other._made() if isinstance(other, Events) else other)

    def __ne__(self, other) -> bool:
        return not self == other

    def __add__(self, other) -> list:
        return [*self, *other]

    def __repr__(self) -> str:
        return list.__repr__(self._made())

    def copy(self) -> list:
        return list(self)

    def index(self, *args) -> int:
        return list.index(self._made(), *args)

    def count(self, e) -> int:
        return list.count(self._made(), e)

    def pop(self, *args):
        return list.pop(self._made(), *args)


# Words are called with no arguments; the type says `...` because the engines' lambdas carry the
# moment's values as defaults, which mypy cannot match against Callable[[], str].
Words = str | Callable[..., str]


def say(ev: list, kind: str, text: Words, to: int | None = None) -> None:
    """Add an event to the move's list (Events): `text` is its words, or a function of nothing
    that writes them when they are first read. A move nobody will read the events of (an
    engine's `random_move`, its `apply` with `events=False`) has no list: the engines then make
    no event at all, each `say` standing under `if ev is not None`, since making the function
    and its values is the cost."""
    ev.append((kind, to, text))


def visible(events: list, seat: int | None) -> list[dict]:
    """The events a seat may see (a spectator, seat None, sees the public ones), as plain maps."""
    return [e.as_dict() for e in events if e.to is None or e.to == seat]
