"""Information-set Monte Carlo tree search (single observer) from one seat's view.

Each iteration samples a full state consistent with the view (games/sanjuan/determinize.py),
walks down the tree choosing with UCB1, expands one node, plays on with the fast policy of
bots/policy.py, and scores the position reached. The tree holds this seat's own decisions only:
a node is the sequence of its own choices so far (its information set as far as its own actions
go), children are keyed by what was picked (a role, a kind of building, "none") so that they mean
the same in every sample, and UCB counts a child's availability, since a sampled hand may not
allow every child. The other seats act by the policy, which is the search's model of them.

What is searched: the role, what to build and what to cover, which councillor card to keep,
what to tuck under the chapel, the library, and which goods to produce and sell when there is a
choice. Card-level decisions with combinatorial options (pay, discard, hand limit, office, bank,
black market) are answered by the heuristic player; a decision with one legal action at once.

Playouts stop after `horizon` rounds (or at the game's end) and the position is scored by
bots/policy.estimate: reward = sigmoid((own estimate - best other estimate) / temperature), or at
the game's end a win (1/k when k players share it). The move played is the most visited child.

Parameters (defaults chosen by series against the heuristic, bench/tournament.py --set): horizon
2 rounds (1 was clearly weaker, 3 no better and slower), exploration 0.7, temperature 3 VP,
role_noise 0.5 (the policy's role choice: the heuristic's values plus that much noise).
"""
from __future__ import annotations

import math
import random
import time
from itertools import combinations

from games import sanjuan
from games.sanjuan.determinize import ImaginedStreams
from games.sanjuan.rules import apply
from games.sanjuan.scoring import result

from . import policy
from . import values as V
from .heuristic import HeuristicBot, Seat

SEARCHED = frozenset({"role", "build", "cover", "keep", "chapel", "library", "produce", "sell"})
TREE_KINDS = frozenset({"role", "build", "cover", "keep", "chapel", "library"})
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
    searches = True
    default_iterations = DEFAULT_ITERATIONS

    def __init__(self, seed: int | str = 0, iterations: int | None = None,
                 seconds: float | None = None, horizon: int = 2, exploration: float = 0.7,
                 temperature: float = 3.0, role_noise: float | None = 0.5) -> None:
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        self.iterations = iterations
        self.seconds = seconds
        self.horizon = horizon
        self.c = exploration
        self.temperature = temperature
        self.role_noise = role_noise
        self.rnd = random.Random(f"ismcts/{seed}")
        self.streams = ImaginedStreams(self.rnd)
        self.heuristic = HeuristicBot(seed)
        self.last_iterations = 0

    # ------------------------------------------------------------ entry point

    def choose(self, view: dict) -> list:
        start = time.perf_counter()
        p = view["prompt"]
        if trivial(p):
            return list(p["options"]) if p["max"] else []
        fallback = self.heuristic.choose(view)
        if p["kind"] not in SEARCHED or view["stage"] == "deal":
            return fallback
        candidates = self._candidates(view, fallback)
        if len(candidates) == 1:
            return candidates[0]
        return self._search(view, candidates, start) or fallback

    # ------------------------------------------------------------ root actions

    def _candidates(self, view: dict, fallback: list) -> list[list]:
        p = view["prompt"]
        options, lo, hi = p["options"], p["min"], p["max"]
        kind = p["kind"]
        if hi == 1:
            # One pick or none: every option, one per kind of card (copies play the same).
            seen, out = set(), []
            kinds = Seat(view).kind if kind not in ("role", "library") else {}
            for o in options:
                key = kinds.get(o, o)
                if key not in seen:
                    seen.add(key)
                    out.append([o])
            if lo == 0:
                out.append([])
            return out
        # Several picks (produce, sell, a prefecture's keep): the heuristic's pick and the other
        # ways to pick as many, up to a few.
        out = [sorted(fallback)]
        for combo in combinations(options, len(fallback)):
            if len(out) >= MAX_CANDIDATES:
                break
            if sorted(combo) != out[0]:
                out.append(sorted(combo))
        return out

    # ------------------------------------------------------------ the search

    def _search(self, view: dict, candidates: list[list], start: float) -> list | None:
        seat = view["seat"]
        det = sanjuan.Determinizer(view)
        root = Node()
        keys = [tuple(c) for c in candidates]
        for k in keys:
            root.children[k] = Node()
        stop_round = view["round"] + self.horizon
        deadline = start + self.seconds if self.seconds is not None else None
        limit = self.iterations
        done = 0
        while True:
            if limit is not None and done >= limit:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            s = det.sample(self.rnd)
            self._iterate(s, seat, root, keys, stop_round)
            done += 1
        self.last_iterations = done
        if not done:
            return None   # no time at all: the heuristic's answer
        best = max(keys, key=lambda k: (root.children[k].visits, root.children[k].total))
        return list(best)

    def _iterate(self, s, seat: int, root: Node, keys: list, stop_round: int) -> None:
        rnd = self.rnd
        streams = self.streams
        path = []
        # The root decision: our pending one, the same in every sample.
        key, node = self._select(root, keys)
        path.append(node)
        apply(s, seat, list(key), streams)
        expanded = node.visits == 0
        while not s.over and s.round < stop_round:
            actor = min(s.pending)
            kind = s.pending[actor][0]
            if actor == seat and not expanded and kind in TREE_KINDS:
                opts = self._tree_options(s, seat)
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
            apply(s, actor, policy.choose(s, actor, rnd, self.role_noise), streams)
        reward = self._reward(s, seat)
        root.visits += 1
        for n in path:
            n.visits += 1
            n.total += reward

    def _tree_options(self, s, seat: int) -> dict:
        """Our decision inside the tree: the picks keyed by what they mean in any sample."""
        kind, options, lo, hi = s.pending[seat]
        if hi != 1:
            return {("policy",): policy.choose(s, seat, self.rnd, self.role_noise)}
        kinds = s.kinds
        out = {}
        for o in options:
            key = o if type(o) is str else kinds[o]
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
        if s.over:
            w = result(s)["winners"]
            return 1 / len(w) if seat in w else 0.0
        rl = V.rounds_left(policy.most_buildings(s))
        est = [policy.estimate(s, i, rl) for i in range(len(s.players))]
        mine = est[seat]
        best = max(e for i, e in enumerate(est) if i != seat)
        x = (mine - best) / self.temperature
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))

