"""Everything a seat may not see, dealt anew: the check that no view depends on a hidden card."""
from __future__ import annotations

from .state import State


def _hidden_places(s: State, seat: int | None) -> list[tuple]:
    """(container, index or key) of every card `seat` may not identify (a spectator: None).
    Supply, discard pile, goods and harbor cards are hidden from everyone; hands, chapels, banks
    and councillor draws from all but their owner."""
    out: list[tuple] = [(s.deck, i) for i in range(len(s.deck))] + [(s.discard, i) for i in range(len(s.discard))]
    for j, p in enumerate(s.players):
        out += [(p.goods, b) for b in p.goods]
        out += [(p.harbor, i) for i in range(len(p.harbor))]
        if j != seat:
            for pile in (p.hand, p.chapel, p.bank, p.drawn):
                out += [(pile, i) for i in range(len(pile))]
    return out


def permute_hidden(s: State, seat: int | None, rnd) -> State:
    """A copy of `s` with the cards `seat` may not identify shuffled among their places. An
    answer already given in a simultaneous stage picks places, not cards: it follows them, so
    that the copy is a state the game could be in (the frame-length test plays on from it)."""
    t = s.copy()
    places = _hidden_places(t, seat)
    old = [pile[i] for pile, i in places]
    cards = old[:]
    rnd.shuffle(cards)
    for (pile, i), card in zip(places, cards):
        pile[i] = card
    if t.answers:
        now = dict(zip(old, cards))
        t.answers = {who: tuple(now.get(c, c) if type(c) is int else c for c in picks)
                     for who, picks in t.answers.items()}
    return t
