"""Draw Race: a tiny game kept with the tests of a blind table's queue (test_blind_queue.py,
tests/server/test_blind_watch.py), registered only while they run. It has what San Juan and
Puerto Rico never have: a question open to one seat while another seat's answer waits for the
clients. Both seats are asked at once, every round, to draw the top card of a jointly shuffled
deck face up or to pass; an answer takes effect at once, and a draw turns a card of the pile up
(rng.reveal: every party's share, an `open` on a blind table), while the other seat's question,
which no draw changes, stays open. Four rounds; the larger sum of the cards drawn wins.
"""
from __future__ import annotations

import random

from games.choice import check_pick, out_of_turn
from games.contract import Info
from games.events import Events, say
from games.text import plain, score_table

INFO = Info(id="drawrace", title="Draw Race", min_players=2, max_players=2, rules_version="drawrace/1",
            tiebreak="none: the tied players share the win")

VALUES = tuple(v for v in range(1, 7) for _ in range(2))     # card id -> its number
ROUNDS = 4
OPTIONS = ("draw", "pass")


class State:
    def __init__(self, names, options):
        self.names, self.options = list(names), dict(options)
        self.deck: list[int] = []                 # the top card last
        self.taken: list[list[int]] = [[], []]
        self.round, self.answered, self.decisions = 1, [], 0
        self.kinds = VALUES      # card -> its number, through the party's sight on a blind table

    def copy(self) -> "State":
        t = load(dump(self))
        t.kinds = self.kinds
        return t


def copy(s: State) -> State:
    return s.copy()


def setup(names, options, rng) -> State:
    INFO.check_players(len(names))
    s = State(names, INFO.check_options(options))
    s.kinds = rng.looked(VALUES)
    s.deck = rng.shuffle("deck/initial", 0, list(range(len(VALUES))))
    return s


def to_act(s: State) -> list[int]:
    return [] if s.round > ROUNDS else [i for i in range(2) if i not in s.answered]


def prompt(s: State, seat: int) -> dict | None:
    if seat not in to_act(s):
        return None
    return {"kind": "draw", "text": f"Round {s.round}: draw the top card face up, or pass.",
            "options": list(OPTIONS), "min": 1, "max": 1, "labels": ["Draw", "Pass"], "help": ["", ""], "back": ""}


def _move(s: State, seat: int, pick: str, rng, ev: list | None) -> None:
    if pick == "draw":
        card = rng.reveal([s.deck[-1]])[0]      # face up for everyone: every party's share
        s.deck.pop()
        s.taken[seat].append(card)
        if ev is not None:
            say(ev, "draw", f"{s.names[seat]} draws a {s.kinds[card]}.")
    elif ev is not None:
        say(ev, "pass", f"{s.names[seat]} passes.")
    s.decisions += 1
    s.answered.append(seat)
    if len(s.answered) == 2:
        if ev is not None:
            say(ev, "round", f"Round {s.round} ends.")
        s.round, s.answered = s.round + 1, []


def apply(s: State, seat: int, action, rng, *, events: bool = True) -> Events | None:
    if seat not in to_act(s):
        raise out_of_turn(s.round > ROUNDS, s.names, seat, to_act(s))
    (pick,) = check_pick(action, "draw", OPTIONS, 1, 1)
    ev = Events() if events else None
    _move(s, seat, pick, rng, ev)
    return ev


def random_move(s: State, seat: int, rnd: random.Random, rng) -> None:
    if seat not in to_act(s):
        raise out_of_turn(s.round > ROUNDS, s.names, seat, to_act(s))
    _move(s, seat, rnd.choice(OPTIONS), rng, None)


def result(s: State) -> dict:
    sums = [sum(s.kinds[c] for c in t) for t in s.taken]
    return {"scores": [{"total": n} for n in sums], "tiebreak": [0, 0],
            "winners": [i for i in range(2) if sums[i] == max(sums)], "rounds": min(s.round, ROUNDS)}


def views(s: State, seats) -> list[dict]:
    over = s.round > ROUNDS
    public = {"game": INFO.id, "to_act": to_act(s), "options": dict(s.options), "over": over, "round": s.round,
              "deck": len(s.deck), "players": [{"name": s.names[i], "taken": [s.kinds[c] for c in s.taken[i]]}
                                               for i in range(2)]}
    if over:
        public["result"] = result(s)
    return [{**public, "seat": seat, **({"prompt": prompt(s, seat)} if seat is not None else {})} for seat in seats]


def dump(s: State) -> dict:
    return {"names": s.names, "options": dict(s.options), "deck": list(s.deck), "taken": [list(t) for t in s.taken],
            "round": s.round, "answered": list(s.answered), "decisions": s.decisions}


def load(data: dict) -> State:
    s = State(data["names"], data["options"])
    s.deck, s.taken = list(data["deck"]), [list(t) for t in data["taken"]]
    s.round, s.answered, s.decisions = data["round"], list(data["answered"]), data["decisions"]
    return s


def manifest(options: dict) -> list[str]:
    INFO.check_options(options)
    return [str(v) for v in VALUES]


def permute_hidden(s: State, seat: int | None, rnd: random.Random) -> State:
    t = s.copy()
    rnd.shuffle(t.deck)
    return t


class Text:
    def __init__(self, options: dict, paint=plain) -> None:
        self.paint = paint

    def board(self, view: dict, width: int) -> str:
        return "  ".join(f"{p['name']}: {p['taken']}" for p in view["players"])

    def result(self, result: dict, names: list[str]) -> str:
        return "\n".join(score_table(result, names, INFO.tiebreak, self.paint))
