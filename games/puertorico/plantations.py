"""The plantation tiles: their manifest (the only thing the fair deal shuffles), the face-down
stack, the face-up row and the discard pile.

Tiles have ids (D20): corn 0-9, indigo 10-21, sugar 22-32, tobacco 33-41, coffee 42-49. Once on
an island a tile is only its kind, so islands hold counts and ids live in the stack, row and
discard pile, where they decide what a reshuffle deals.

On a blind table (games/blind.py) the stack and every reshuffle of it are shuffled jointly, and
the stack, row and discard pile hold handles instead of ids. A tile is turned face up (the row
refilled, a hacienda's draw) through `rng.reveal`, which every party passes only once it is open
to all, and only then is its kind read, as `s.kinds[tile]`.
"""
from __future__ import annotations


from games.events import say

from .components import GOODS, PLANTATION_TILES

MANIFEST: tuple[int, ...] = tuple(k for k, copies in enumerate(PLANTATION_TILES) for _ in range(copies))
FIRST_ID = tuple(sum(PLANTATION_TILES[:k]) for k in range(len(GOODS)))


def kind(tile: int) -> int:
    return MANIFEST[tile]


def manifest_keys() -> list[str]:
    return [GOODS[k] for k in MANIFEST]


def in_play(removed_per_kind: int) -> list[int]:
    """The tile ids in play: with two players the highest ids of each kind stay in the box."""
    return [t for k, copies in enumerate(PLANTATION_TILES)
            for t in range(FIRST_ID[k], FIRST_ID[k] + copies - removed_per_kind)]


def take_from_row(row: list[int], kinds, k: int) -> int:
    """Take a face-up tile of kind k. Tiles of a kind are interchangeable (D14); the lowest number
    is the one taken, so that the discard pile, and every later reshuffle, is well defined: on an
    open table the lowest id, on a blind one the lowest handle (the tile dealt first by the
    earliest joint shuffle), which every party knows alike without knowing which id it holds."""
    tile = min(t for t in row if kinds[t] == k)
    row.remove(tile)
    return tile


def draw(s, rng, ev: list | None) -> int | None:
    """The top face-down tile, still face down. An empty stack is rebuilt from the discard pile, sorted by id, with
    the stream `plantations/reshuffle` k for its k-th rebuild, and everyone is told how many tiles
    it holds (the discard pile is public; the new order is not); None when both are empty."""
    if not s.stack:
        if not s.discard:
            return None
        s.reshuffles += 1
        pile = sorted(s.discard)
        s.discard = []
        s.stack = rng.shuffle("plantations/reshuffle", s.reshuffles, pile)[::-1]
        if ev is not None:
            say(ev, "reshuffle", lambda n=len(pile): f"The plantation stack is empty: the {n} discarded "
                f"plantation{'s are' if n != 1 else ' is'} shuffled into a new stack.")
    return s.stack.pop()


def refill_row(s, rng, ev: list | None) -> None:
    """End of the settler phase: the untaken tiles go to the discard pile, and N+1 tiles are
    turned face up, all at once; the stack is rebuilt from the discard pile when it runs out."""
    s.discard.extend(s.row)
    s.row = []
    for _ in range(len(s.players) + 1):
        tile = draw(s, rng, ev)
        if tile is None:
            break   # the row stays short
        s.row.append(tile)
    rng.reveal(s.row)
