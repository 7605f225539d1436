"""Every game's decision is "pick between lo and hi distinct of these options": checking a pick
(and refusing one out of turn) in words, and a uniform random choice among the legal picks; and
the one move that is no pick, going back to the start of a decision asked in several steps."""
from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations
from math import comb, floor

from games.errors import IllegalAction

OPTION_TYPES = (int, str)   # what an option is in every game: a number or a word

# The move [BACK] goes back to the first step of a decision asked in several steps, where the
# prompt offers it (its "back" is not empty). It is a word no option of any game is (check_prompt
# holds every game to that), so it can never be mistaken for a pick; and it is not an option, so
# `legal`, `random_action` and every bot, which pick among options, never send it.
BACK = "back"


def is_back(action) -> bool:
    """Whether `action` is the move [BACK] (a list, as every action is on the wire)."""
    return type(action) in (list, tuple) and len(action) == 1 and type(action[0]) is str and action[0] == BACK


def no_back(kind: str) -> IllegalAction:
    """The refusal of [BACK] where the prompt does not offer it."""
    return IllegalAction("no_back", f"There is nothing to go back to in this {kind} decision: back is offered "
                         "only after the first step of a decision asked in several steps, before its last "
                         "step is sent.")


def out_of_turn(over: bool, names, seat, waiting) -> IllegalAction:
    """The refusal of a move by `seat` while the game waits for the seats `waiting` (or is over)."""
    if over:
        return IllegalAction("game_over", "The game is over.")
    if type(seat) is not int or not 0 <= seat < len(names):
        return IllegalAction("bad_seat", f"There is no seat {seat!r} at this table.")
    return IllegalAction("not_your_turn", f"It is not {names[seat]}'s turn: waiting for "
                         f"{', '.join(names[x] for x in sorted(waiting))}.")


def wrong_count(kind: str, lo: int, hi: int, got: int) -> IllegalAction:
    want = f"exactly {lo}" if lo == hi else f"between {lo} and {hi}"
    return IllegalAction("wrong_count", f"Pick {want} option{'s' * (hi != 1)} for this {kind} decision, not {got}.")


def not_an_option(kind: str, value) -> IllegalAction:
    return IllegalAction("not_an_option", f"{value!r} is not one of the options of this {kind} decision.")


def all_picks(options, lo: int, hi: int) -> list[list]:
    """Every legal action of a decision: each set of lo to hi distinct options (they grow
    combinatorially for multi-card picks; searches sample with pick_uniform instead)."""
    return [list(c) for k in range(lo, hi + 1) for c in combinations(options, k)]


def check_pick(action, kind: str, options, lo: int, hi: int) -> tuple:
    """The action as a tuple when it picks between lo and hi distinct options; else IllegalAction
    saying why (a game may word a refusal better: the codes "not_an_option", about the first value
    that is not an option, and "wrong_count" say which it is)."""
    if type(action) is list and len(action) == 1:
        # The commonest pick, one option, as random players and the wire send it: accepted in a
        # few steps; any other pick, and every refusal, is looked at in full below.
        a = action[0]
        if lo <= 1 <= hi and type(a) in OPTION_TYPES and a in options:
            return (a,)
    if type(action) not in (list, tuple):
        raise IllegalAction("bad_action", "An action is a list of the options you pick.")
    for a in action:
        if type(a) not in OPTION_TYPES:     # True == 1: check the type, not only membership
            raise IllegalAction("bad_action", f"{a!r} is not an option: options are numbers or words.")
        if a not in options:
            raise not_an_option(kind, a)
    n = len(action)
    if n > 1 and len(set(action)) != n:
        raise IllegalAction("duplicate", "The same option is picked twice.")
    if n < lo or n > hi:
        raise wrong_count(kind, lo, hi, n)
    return tuple(action)


@lru_cache(maxsize=None)
def _size_weights(n: int, lo: int, hi: int) -> tuple[int, tuple[int, ...]]:
    """For subsets of n options with a size from lo to hi: how many there are in all, and how
    many have each size lo, lo + 1, ..., hi - 1 (the last size takes whatever is left). Only a
    few hundred (n, lo, hi) ever occur, so each is worked out once."""
    return sum(comb(n, k) for k in range(lo, hi + 1)), tuple(comb(n, k) for k in range(lo, hi))


def pick_uniform(options, lo: int, hi: int, rnd: random.Random) -> list:
    """A uniformly random legal action, as a list (what a client sends): see draw_uniform."""
    return list(draw_uniform(options, lo, hi, rnd))


def draw_uniform(options, lo: int, hi: int, rnd: random.Random) -> tuple:
    """A uniformly random legal pick without listing them all, as the tuple of picked options
    that `check_pick` makes of a legal one: every subset of the options with a size between lo
    and hi is legal, so draw the size weighted by how many subsets have it, then the subset.
    Random playouts call this once per decision, hence the short cuts."""
    # floor(), not int(), of a draw in [0, 1) times a count: the same whole number for a number
    # that is not negative, and Python 3.11's int() of a float takes a longer way to it.
    n = len(options)
    if hi == 1:  # the commonest decisions: one option, or one or none (n + 1 actions)
        i = floor(rnd.random() * (n + 1 - lo)) - 1 + lo
        return (options[i],) if i >= 0 else ()
    size = lo
    if lo != hi:
        # Subsets of size k number comb(n, k): draw a size with those weights.
        total, counts = _size_weights(n, lo, hi)
        x = rnd.random() * total
        for count in counts:
            x -= count
            if x < 0:
                break
            size += 1
    if size == 0:
        return ()
    if size == 1:
        return (options[floor(rnd.random() * n)],)
    if n > _SAMPLE_POOL_MOST:
        return tuple(rnd.sample(options, size))
    # random.sample's own draw for a population this small, written out: the same picks from the
    # same generator (tests/games/test_choice.py holds them equal), without the checks and set-up
    # that are most of random.sample's steps for a population this small.
    pool = list(options)
    getrandbits = rnd.getrandbits
    out = []
    for left in range(n, n - size, -1):
        bits = left.bit_length()
        j = getrandbits(bits)
        while j >= left:
            j = getrandbits(bits)
        out.append(pool[j])
        pool[j] = pool[left - 1]
    return tuple(out)


# random.sample draws from a copied pool (as written out above) whenever the population has at
# most 21 members, whatever the sample's size; a larger one may take its other way.
_SAMPLE_POOL_MOST = 21
