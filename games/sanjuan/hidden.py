"""Everything a seat may not see, dealt anew: the check that no view depends on a hidden card."""
from __future__ import annotations

from .state import State


def _hidden_places(s: State, seat: int | None) -> list[tuple]:
    """(container, index or key) of every card `seat` may not identify (a spectator: None).
    Supply, discard pile, goods and harbor cards are hidden from everyone; hands, chapels, banks
    and councillor draws from all but their owner."""
    out = [(s.deck, i) for i in range(len(s.deck))] + [(s.discard, i) for i in range(len(s.discard))]
    for j, p in enumerate(s.players):
        out += [(p.goods, b) for b in p.goods]
        out += [(p.harbor, i) for i in range(len(p.harbor))]
        if j != seat:
            for pile in (p.hand, p.chapel, p.bank, p.drawn):
                out += [(pile, i) for i in range(len(pile))]
    return out


def permute_hidden(s: State, seat: int | None, rnd) -> State:
    """A copy of `s` with the cards `seat` may not identify shuffled among their places."""
    t = s.copy()
    places = _hidden_places(t, seat)
    cards = [pile[i] for pile, i in places]
    rnd.shuffle(cards)
    for (pile, i), card in zip(places, cards):
        pile[i] = card
    return t
