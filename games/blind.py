"""Blind dealing, as a rules engine meets it (docs/fairness.md §10).

On an open table the dealer (the server) sees every card: `rng.shuffle` returns the items it was
given in a new order, and a card in the state is its manifest id. On a blind table every hidden
pile is shuffled jointly by all parties, under encryption, and nobody (the server included) knows
a card until it is opened to them. There `rng.shuffle` returns *handles*: fresh numbers, one per
slot of the shuffled pile, that stand for cards nobody can name yet. The engine keeps handles
wherever it kept ids, and every party runs the same engine on the same moves, each knowing the
cards opened to it (its `Sight`).

What an engine does differently on a blind table, and only this:

- It reads what a card is through `rng.looked(table)` (a kinds table seen through the party's
  sight) instead of the table itself. Reading a card the party has not seen raises `Hidden`: a
  defect of the engine, never of a player, because a rule must not need a hidden card.
- When the rules turn cards face up for everyone (a card built, a gold mine's draw, a plantation
  row), it calls `rng.reveal(cards)` first. If they are not open yet, that raises `Unopened`, and
  the caller opens them (the holder's share for a card in a hand) and applies the move again from
  the state as it was. `apply` must therefore be tried on a copy.
- A decision that depends on cards only its seat can see (which buildings a hand can afford) is
  stored wide (every card it might pick), and narrowed only in the prompt and the legal moves of a
  party that sees those cards; `apply` checks the pick once it is revealed.
- `private_cards(state, seat)` names the hidden cards a seat may look at, and the dealer opens
  each to that seat as it arrives.

An open table's streams (protocol.fairness.Streams, games.imagined.ImaginedStreams) take `Open`'s
methods, so that an engine calls the same names on both.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

# Handles are numbered from here, apart from every manifest id of every game, so that a pile can
# hold both (a starting card put face up at setup, discarded, then reshuffled with hidden ones).
HANDLE_BASE = 1 << 12


def is_handle(card) -> bool:
    return type(card) is int and card >= HANDLE_BASE


class Hidden(Exception):
    """An engine read a card this party may not see: a defect of the engine's blind mode."""

    def __init__(self, card: int) -> None:
        super().__init__(f"card {card} is hidden from this party")
        self.card = card


class Unopened(Exception):
    """The rules turn these cards face up, and they have not been opened to everyone yet."""

    def __init__(self, cards: Sequence[int]) -> None:
        super().__init__(f"cards {list(cards)} must be opened first")
        self.cards = tuple(cards)


class Unshuffled(Exception):
    """The rules shuffle a pile that the parties have not shuffled together yet: `items` (handles,
    or manifest ids of cards that are face up) in the order the engine gives them."""

    def __init__(self, name: str, idx: int, items: Sequence[int]) -> None:
        super().__init__(f"the pile {name} {idx} must be shuffled first")
        self.name = name
        self.idx = idx
        self.items = tuple(items)


class Sight:
    """What one party knows: handle -> item (a manifest id, or whatever the shuffled pile held).
    Every state of one party's game shares it; it only grows."""

    def __init__(self) -> None:
        self.items: dict[int, int] = {}

    def item(self, card: int) -> int:
        if card < HANDLE_BASE:
            return card
        try:
            return self.items[card]
        except KeyError:
            raise Hidden(card) from None

    def knows(self, cards: Iterable[int]) -> bool:
        items = self.items
        return all(c < HANDLE_BASE or c in items for c in cards)


class Looked:
    """A table indexed by item (a kinds table), read through a sight: `looked[card]`."""
    __slots__ = ("table", "sight")

    def __init__(self, table: Sequence, sight: Sight) -> None:
        self.table = table
        self.sight = sight

    def __getitem__(self, card: int):
        return self.table[card if card < HANDLE_BASE else self.sight.item(card)]

    def __len__(self) -> int:
        return len(self.table)

    def knows(self, cards: Iterable[int]) -> bool:
        return self.sight.knows(cards)

    def __deepcopy__(self, memo) -> "Looked":
        # A copy of a state is a state of the same party, whose sight only grows: it must see
        # what the party is opened after the copy (the contract's default copy is a deep copy).
        return self


class Open:
    """The blind-dealing names on an open table: nothing is hidden from the dealer."""
    __slots__ = ()
    blind = False

    def reveal(self, cards: Sequence[int]) -> list[int]:
        return list(cards)

    def looked(self, table: Sequence) -> Sequence:
        return table


def knows(kinds, cards: Iterable[int]) -> bool:
    """Whether a kinds table (`rng.looked(...)`, kept in a state) can read every one of these."""
    return kinds.knows(cards) if isinstance(kinds, Looked) else True


class BlindStreams:
    """One party's randomness on a blind table. `randbelow` is public (drawn from the revealed
    seeds, as on an open table, for what is public the moment it is drawn: the first governor).
    A shuffle is whatever the parties shuffled together, registered with `shuffled`; an opening
    is registered with `opened`."""
    blind = True

    def __init__(self, public, sight: Sight | None = None) -> None:
        self.public = public
        self.sight = sight if sight is not None else Sight()
        self.piles: dict[tuple[str, int], tuple[tuple[int, ...], int]] = {}   # (name, idx) -> (items, first handle)
        self.next_handle = HANDLE_BASE
        self.open_to_all: set[int] = set()

    # ------------------------------------------------------------ what the dealer tells it

    def shuffled(self, name: str, idx: int, items: Sequence[int]) -> list[int]:
        """The parties have shuffled `items` as pile (name, idx): its slots get the next handles,
        the first for the top of the pile (the first drawn)."""
        if (name, idx) in self.piles:
            raise ValueError(f"the pile {name} {idx} is shuffled already")
        first = self.next_handle
        self.piles[(name, idx)] = (tuple(items), first)
        self.next_handle += len(items)
        return list(range(first, first + len(items)))

    def opened(self, card: int, item: int, *, public: bool) -> None:
        """`card` was opened to this party (to everyone when `public`) and holds `item`."""
        if not is_handle(card) or card >= self.next_handle:
            raise ValueError(f"no card {card} has been dealt")
        known = self.sight.items.get(card)
        if known is not None and known != item:
            raise ValueError(f"card {card} was opened as {known}, now as {item}")
        self.sight.items[card] = item
        if public:
            self.open_to_all.add(card)

    # ------------------------------------------------------------ what the engine calls

    def randbelow(self, name: str, idx: int, n: int) -> int:
        return self.public.randbelow(name, idx, n)

    def shuffle(self, name: str, idx: int, items: list) -> list[int]:
        pile = self.piles.get((name, idx))
        if pile is None:
            raise Unshuffled(name, idx, items)
        if pile[0] != tuple(items):
            raise ValueError(f"the pile {name} {idx} was shuffled holding other cards")
        return list(range(pile[1], pile[1] + len(items)))

    def reveal(self, cards: Sequence[int]) -> list[int]:
        missing = [c for c in cards if is_handle(c) and c not in self.open_to_all]
        if missing:
            raise Unopened(missing)
        return [self.sight.item(c) for c in cards]

    def looked(self, table: Sequence) -> Looked:
        return Looked(table, self.sight)
