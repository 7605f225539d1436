"""Information-set Monte Carlo tree search (single observer) from one seat's view, for any game
that offers search support (games/contract.Search).

Each iteration samples a full state consistent with the view (the game's sampler), walks down the
tree choosing with UCB1, expands one node, plays on with the game's fast policy, and scores the
position reached. The tree holds this seat's own decisions only: a node is the sequence of its own
choices so far (its information set as far as its own actions go), children are keyed by what was
picked as the game names it in any sample (a role, a kind of building, "none"), and UCB counts a
child's availability, since a sampled hand may not allow every child. The other seats act by the
policy, which is the search's model of them.

What is searched is the game's choice (`searched`, `tree_kinds`); every other decision is answered
by the fallback bot (the game's rule-of-thumb player), a decision with one legal action at once.

Playouts stop `horizon` steps of the game's progress (San Juan: rounds) beyond the root, or at the
game's end, and the position is scored from the game's estimates: reward = sigmoid((own estimate -
best other estimate) / temperature), or at the game's end a win (1/k when k players share it).
The move played is the most visited child.

Parameters (defaults chosen by series against San Juan's heuristic, bench/tournament.py --set):
horizon 2 (1 was clearly weaker, 3 no better and slower), temperature 3 points; exploration is
the game's own (`search.exploration`), since how far apart its children's rewards lie depends on
the game's scores.
"""
from __future__ import annotations

import math
import random
import time
from itertools import combinations

DEFAULT_ITERATIONS = 400
MAX_CANDIDATES = 8


class Node:
    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self) -> None:
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0


def trivial(prompt: dict) -> bool:
    """A decision with exactly one legal action."""
    n, lo, hi = len(prompt["options"]), prompt["min"], prompt["max"]
    return hi == 0 or lo == n or (n == 1 and lo == 1)


class ISMCTSBot:
    level = "ismcts"
    default_iterations = DEFAULT_ITERATIONS

    def __init__(self, search, fallback, seed: int | str = 0, iterations: int | None = None,
                 seconds: float | None = None, horizon: int = 2, exploration: float | None = None,
                 temperature: float = 3.0) -> None:
        """`search`: the game's search support; `fallback`: the bot that answers what is not
        searched, and anything when there is no time at all."""
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        self.search = search
        self.iterations = iterations
        self.seconds = seconds
        self.horizon = horizon
        self.c = search.exploration if exploration is None else exploration
        self.temperature = temperature
        self.rnd = random.Random(f"ismcts/{seed}")
        self.streams = search.streams(self.rnd)
        self.fallback = fallback
        self.last_iterations = 0

    # ------------------------------------------------------------ entry point

    def choose(self, view: dict) -> list:
        start = time.perf_counter()
        p = view["prompt"]
        if trivial(p):
            return list(p["options"]) if p["max"] else []
        fallback = self.fallback.choose(view)
        if p["kind"] not in self.search.searched or self.search.skip(view):
            return fallback
        candidates = self._candidates(view, fallback)
        if len(candidates) == 1:
            return candidates[0]
        return self._search(view, candidates, start) or fallback

    # ------------------------------------------------------------ root actions

    def _candidates(self, view: dict, fallback: list) -> list[list]:
        p = view["prompt"]
        options, lo, hi = p["options"], p["min"], p["max"]
        if hi == 1:
            # One pick or none: every option, one per kind of card (copies play the same).
            seen, out = set(), []
            meaning = self.search.root_key(view)
            for o in options:
                key = meaning(o)
                if key not in seen:
                    seen.add(key)
                    out.append([o])
            if lo == 0:
                out.append([])
            return out
        # Several picks: the fallback's pick and the other ways to pick as many, up to a few, each
        # in the order of the options (which need not be comparable).
        out = [[o for o in options if o in fallback]]
        for combo in combinations(options, len(fallback)):
            if len(out) >= MAX_CANDIDATES:
                break
            if list(combo) != out[0]:
                out.append(list(combo))
        return out

    # ------------------------------------------------------------ the search

    def _search(self, view: dict, candidates: list[list], start: float) -> list | None:
        seat = view["seat"]
        sampler = self.search.sampler(view)
        root = Node()
        keys = [tuple(c) for c in candidates]
        for k in keys:
            root.children[k] = Node()
        stop = self.search.progress(view) + self.horizon
        deadline = start + self.seconds if self.seconds is not None else None
        limit = self.iterations
        done = 0
        while True:
            if limit is not None and done >= limit:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            s = sampler.sample(self.rnd)
            self._iterate(s, seat, root, keys, stop)
            done += 1
        self.last_iterations = done
        if not done:
            return None   # no time at all: the fallback's answer
        best = max(keys, key=lambda k: (root.children[k].visits, root.children[k].total))
        return list(best)

    def _iterate(self, s, seat: int, root: Node, keys: list, stop: int) -> None:
        rnd = self.rnd
        streams = self.streams
        search = self.search
        apply, next_decision, policy = search.apply, search.next_decision, search.policy
        tree_kinds = search.tree_kinds
        path = []
        # The root decision: our pending one, the same in every sample.
        key, node = self._select(root, keys)
        path.append(node)
        apply(s, seat, list(key), streams)
        expanded = node.visits == 0
        while (step := next_decision(s, stop)) is not None:
            actor, decision = step
            if actor == seat and not expanded and decision[3] and decision[0] in tree_kinds:
                opts = self._tree_options(s, seat, decision)
                if len(opts) > 1:
                    node_keys = list(opts)
                    for k in node_keys:
                        if k not in node.children:
                            node.children[k] = Node()
                    key, node = self._select(node, node_keys)
                    path.append(node)
                    expanded = node.visits == 0
                    apply(s, seat, opts[key], streams)
                    continue
            # A decision that allows no pick (a seat that cannot build) needs no policy.
            apply(s, actor, policy(s, actor, rnd) if decision[3] else [], streams)
        reward = self._reward(s, seat)
        root.visits += 1
        for n in path:
            n.visits += 1
            n.total += reward

    def _tree_options(self, s, seat: int, decision: tuple) -> dict:
        """Our decision inside the tree: the picks keyed by what they mean in any sample."""
        _, options, lo, hi = decision
        if hi != 1:
            return {("policy",): self.search.policy(s, seat, self.rnd)}
        meaning = self.search.option_key
        out = {}
        for o in options:
            key = meaning(s, o)
            if key not in out:
                out[key] = [o]
        if lo == 0:
            out[None] = []
        return out

    def _select(self, node: Node, keys: list) -> tuple:
        """UCB1 with availability: among the children available here, an unvisited one first."""
        children = node.children
        for k in keys:
            children[k].avail += 1
        for k in keys:
            if children[k].visits == 0:
                return k, children[k]
        best, top = None, -1.0
        logs = {}
        for k in keys:
            ch = children[k]
            a = ch.avail
            lg = logs.get(a)
            if lg is None:
                lg = logs[a] = math.log(a)
            u = ch.total / ch.visits + self.c * math.sqrt(lg / ch.visits)
            if u > top:
                best, top = k, u
        return best, children[best]

    def _reward(self, s, seat: int) -> float:
        if self.search.over(s):
            w = self.search.winners(s)
            return 1 / len(w) if seat in w else 0.0
        est = self.search.estimates(s)
        mine = est[seat]
        best = None
        for i, e in enumerate(est):     # max() over a generator, without its resumptions
            if i != seat and (best is None or e > best):
                best = e
        x = (mine - best) / self.temperature
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))

