"""High Card: a small third game, kept with the tests to show that a game is played, served and
audited with only its package and its registry line. The conformance suite registers it while
it runs (tests/conformance/conftest.py), and every check there holds it to the contract as it
holds San Juan and Puerto Rico.

Two players, a shuffled deck of the numbers 1 to 6, twice. Each is dealt a hidden hand (the
`hand` option: 2 to 4 cards). The leader plays a card face up, the other answers with one; the
higher card takes the trick (a tie goes to the leader), and its taker leads next. After each
trick both draw a card while the deck lasts. When the hands are empty, most tricks wins; a tie is
broken by the sum of the cards taken.

It writes only what a game must (contract.DEFAULTS give the rest): no back, no bots of its own,
no search. Its one random thing is the deal, the stream `deck/initial`.

On a blind table (games/blind.py) the deck is shuffled jointly and holds handles; a seat is
opened the cards in its hand (`private_cards`), a card played is turned face up (`rng.reveal`)
before its number is read, and numbers are read through `s.kinds`. A seat's party sees its
hand; any other party makes the seat's view and prompt with what it sees (the cards it cannot
read keep their handles' order, with no number), and a draw is told without its number, which
nobody but the drawer may know and which its view shows it.
"""
from __future__ import annotations

import random

from games.blind import knows
from games.choice import check_pick, draw_uniform, out_of_turn
from games.contract import Info, Option
from games.events import Events, say
from games.text import plain, plural, score_table

INFO = Info(id="highcard", title="High Card", min_players=2, max_players=2, rules_version="highcard/1",
            tiebreak="the sum of the cards taken; still tied, the tied players share the win",
            options=(Option("hand", 3, "cards in each hand", (2, 3, 4)),))

VALUES = tuple(v for v in range(1, 7) for _ in range(2))     # card id -> its number


class State:
    def __init__(self, names, options):
        self.names, self.options = list(names), dict(options)
        self.deck: list[int] = []                 # the top card last
        self.hands: list[list[int]] = [[], []]
        self.taken: list[list[int]] = [[], []]
        self.leader, self.trick, self.tricks_played, self.decisions = 0, [], 0, 0
        self.kinds = VALUES      # card -> its number, through the party's sight on a blind table

    def copy(self) -> "State":
        t = load(dump(self))
        t.kinds = self.kinds
        return t


def setup(names, options, rng) -> State:
    options = INFO.check_options(options)
    INFO.check_players(len(names))
    s = State(names, options)
    s.kinds = rng.looked(VALUES)
    s.deck = rng.shuffle("deck/initial", 0, list(range(len(VALUES))))
    for _ in range(options["hand"]):
        for hand in s.hands:
            hand.append(s.deck.pop())
    return s


def to_act(s: State) -> list[int]:
    if not any(s.hands):
        return []
    return [(s.leader + len(s.trick)) % 2]


def _label(s: State, card: int) -> str:
    return str(s.kinds[card])


def _hand(s: State, seat: int) -> list[list]:
    """The seat's hand as [card, number] in card order; a number this party may not read is None
    (only on a blind table, for a party that is not the seat's)."""
    return [[c, s.kinds[c] if knows(s.kinds, [c]) else None] for c in sorted(s.hands[seat])]


def prompt(s: State, seat: int) -> dict | None:
    if seat not in to_act(s):
        return None
    hand = sorted(_hand(s, seat), key=lambda cv: (cv[1] or 0, cv[0]))
    text = "Lead a card." if not s.trick else f"Answer the {_label(s, s.trick[0])}: the higher card takes the trick."
    return {"kind": "play", "text": text, "options": [c for c, _ in hand], "min": 1, "max": 1,
            "labels": [str(v) if v is not None else "a hidden card" for _, v in hand],
            "help": ["" for _ in hand], "back": ""}


def _move(s: State, seat: int, card: int, rng, ev: list | None) -> None:
    rng.reveal([card])      # played face up: its holder opens it to everyone
    s.decisions += 1
    s.hands[seat].remove(card)
    s.trick.append(card)
    if ev is not None:
        say(ev, "play", f"{s.names[seat]} plays a {_label(s, card)}.")
    if len(s.trick) < 2:
        return
    lead, answer = s.trick
    taker = s.leader if s.kinds[lead] >= s.kinds[answer] else 1 - s.leader
    s.taken[taker] += s.trick
    s.trick, s.leader = [], taker
    s.tricks_played += 1
    if ev is not None:
        say(ev, "trick", f"{s.names[taker]} takes the trick.")
    for p in (taker, 1 - taker):
        if s.deck:
            card = s.deck.pop()
            s.hands[p].append(card)
            if ev is not None:
                say(ev, "draw", "You draw a card." if rng.blind else f"You draw a {_label(s, card)}.", to=p)


def apply(s: State, seat: int, action, rng, *, events: bool = True) -> Events | None:
    if seat not in to_act(s):
        raise out_of_turn(not any(s.hands), s.names, seat, to_act(s))
    (card,) = check_pick(action, "play", s.hands[seat], 1, 1)
    ev = Events() if events else None
    _move(s, seat, card, rng, ev)
    return ev


def random_move(s: State, seat: int, rnd: random.Random, rng) -> None:
    if seat not in to_act(s):
        raise out_of_turn(not any(s.hands), s.names, seat, to_act(s))
    p = prompt(s, seat)
    _move(s, seat, draw_uniform(p["options"], 1, 1, rnd)[0], rng, None)


def result(s: State) -> dict:
    tricks = [len(t) // 2 for t in s.taken]
    sums = [sum(s.kinds[c] for c in t) for t in s.taken]
    best = max(zip(tricks, sums))
    return {"scores": [{"tricks": n, "total": n} for n in tricks], "tiebreak": sums,
            "winners": [i for i in range(2) if (tricks[i], sums[i]) == best], "rounds": s.tricks_played}


def views(s: State, seats) -> list[dict]:
    over = not any(s.hands)
    public = {"game": INFO.id, "to_act": to_act(s), "options": dict(s.options), "over": over,
              "players": [{"name": s.names[i], "hand": len(s.hands[i]), "tricks": len(s.taken[i]) // 2}
                          for i in range(2)],
              "deck": len(s.deck), "leader": s.leader, "trick": [[c, s.kinds[c]] for c in s.trick]}
    if over:
        public["result"] = result(s)
    out = []
    for seat in seats:
        v = {**public, "seat": seat}
        if seat is not None:
            v["you"] = {"hand": _hand(s, seat)}
            v["prompt"] = prompt(s, seat)
        out.append(v)
    return out


def private_room(view: dict) -> int:
    """`you` and `prompt` with every card a two-digit id and the longest question: at most this
    many bytes whatever the cards are."""
    cards = view["players"][view["seat"]]["hand"]
    return 32 + cards * 4 + (200 + cards * 8 if view["seat"] in view["to_act"] else 1)


def dump(s: State) -> dict:
    return {"names": s.names, "options": dict(s.options), "deck": list(s.deck), "hands": [list(h) for h in s.hands],
            "taken": [list(t) for t in s.taken], "leader": s.leader, "trick": list(s.trick),
            "tricks_played": s.tricks_played, "decisions": s.decisions}


def load(data: dict) -> State:
    s = State(data["names"], data["options"])
    s.deck, s.hands, s.taken = list(data["deck"]), [list(h) for h in data["hands"]], [list(t) for t in data["taken"]]
    s.leader, s.trick = data["leader"], list(data["trick"])
    s.tricks_played, s.decisions = data["tricks_played"], data["decisions"]
    return s


def manifest(options: dict) -> list[str]:
    INFO.check_options(options)
    return [str(v) for v in VALUES]


def dealt(s: State, seat: int) -> list[int]:
    return sorted(s.hands[seat])


def private_cards(s: State, seat: int) -> list[int]:
    return list(s.hands[seat])


def permute_hidden(s: State, seat: int | None, rnd: random.Random) -> State:
    """A copy with the deck and every hand but `seat`'s dealt anew from the same cards."""
    t = s.copy()
    piles = [t.deck] + [t.hands[i] for i in range(2) if i != seat]
    cards = [c for pile in piles for c in pile]
    rnd.shuffle(cards)
    for pile in piles:
        pile[:], cards = cards[:len(pile)], cards[len(pile):]
    return t


class Text:
    def __init__(self, options: dict, paint=plain) -> None:
        self.paint = paint

    def parts(self, view: dict, width: int) -> tuple[str, str, str]:
        names = [p["name"] for p in view["players"]]
        head = f"Deck: {plural(view['deck'], 'card')}.  " + "  ".join(
            f"{p['name']}: {plural(p['tricks'], 'trick')}, {plural(p['hand'], 'card')} in hand" for p in view["players"])
        trick = (f"{names[view['leader']]} led a {view['trick'][0][1]}." if view["trick"]
                 else f"{names[view['leader']]} leads.")
        you = view.get("you")
        own = "Your hand: " + " ".join(str(v) for _, v in you["hand"]) if you else ""
        return head[:max(width, 20)], trick, own

    def board(self, view: dict, width: int) -> str:
        return "\n".join(part for part in self.parts(view, width) if part)

    def result(self, result: dict, names: list[str]) -> str:
        return "\n".join(score_table(result, names, INFO.tiebreak, self.paint, always=("tricks",)))
