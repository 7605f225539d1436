"""Determinization: a full State consistent with what one seat sees, for searching bots.

`determinize(view, rnd)` keeps every card the view shows where it is and deals every card the
seat cannot identify uniformly at random into the hidden places, with the counts the view makes
public: supply, discard pile, goods, other hands, other seats' councillor draws, other players'
chapels and banks, and every harbor (its cards are hidden from its owner too).

Pending decisions: the seat's own equals its prompt. In a simultaneous stage the other seats'
decisions are recomputed from the sampled cards; an answer a seat has already given is hidden, so
by default it counts as not given (that seat is asked again), or `answered(state, seat)` picks a
stand-in answer so that `to_act` matches the view too. Another seat in the middle of a build
(cover, black market, pay) is replayed from its build decision with a sampled building.

A blind table's view (games/blind.py) shows the cards as handles: a sampled state keeps them,
reading each through the kind its view names, and deals ids of the manifest for the rest, so
that the moves a search picks are options of the real prompt.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from games.blind import is_handle
from games.imagined import ImaginedStreams, shuffled

from .cards import BY_KEY, CARD_KIND, MANIFEST, TILES, cathedral_id
from .rules import apply, build_decision, stage_decision
from .state import State

BUILD_STAGES = ("build", "cover", "black_market", "pay")
_RETRIES = 50   # deals tried for another seat's build in progress before giving up on exactness


def _ids(cards) -> list[int]:
    return [c[0] for c in cards]


def _kinds_and_unknown(expansion: bool, seen: dict[int, int]) -> tuple[Sequence[int], list[int]]:
    """The kinds table of the sampled states and the manifest ids of the cards the view does not
    show, from `seen` (card -> kind of every card it shows). A card shown as a handle is one card
    of its kind: one id of that kind (the lowest not shown) stays out of the deal for it."""
    kinds = CARD_KIND[expansion]
    unknown = [c for c in range(len(MANIFEST[expansion])) if c not in seen]
    handles = {c: k for c, k in seen.items() if is_handle(c)}
    if not handles:
        return kinds, unknown
    owed = Counter(handles.values())
    rest = []
    for c in unknown:
        if owed[kinds[c]]:
            owed[kinds[c]] -= 1
        else:
            rest.append(c)
    table = [*kinds, *[-1] * (max(handles) + 1 - len(kinds))]
    for c, k in handles.items():
        table[c] = k
    return tuple(table), rest


def _tiles(view: dict) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The tiles turned (as seen), those not turned yet (to be shuffled), and a turn count that
    gives the same known tiles and current tile (beyond 5 turns only the count modulo 5 matters)."""
    known = [TILES.index(tuple(t.values())) for t in view["tiles"]]
    rest = tuple(t for t in range(len(TILES)) if t not in known)
    turned = len(known)
    if turned == len(TILES):
        at = known.index(TILES.index(tuple(view["tile"].values())))
        turned = at + 1 if at + 1 == len(TILES) else at + 1 + len(TILES)
    return tuple(known), rest, turned


class _Template:
    """Everything about the state that does not depend on the deal, worked out once per view: a
    state with every card the seat can identify in place, and the cards it cannot."""

    def __init__(self, view: dict) -> None:
        self.view = view
        self.seat = view["seat"]
        you = view["you"]
        expansion = view["options"]["expansion"]
        seen = {c: BY_KEY[key] for pv in view["players"] for c, key, *_ in (*pv["city"], *pv["covered"])}
        seen.update((c, BY_KEY[key]) for f in ("hand", "chapel", "bank", "drawn") for c, key in you[f])
        kinds, self.unknown = _kinds_and_unknown(expansion, seen)
        s = State([p["name"] for p in view["players"]], expansion, view["options"]["setup_variant"])
        self.known_tiles, self.unturned, s.tiles_turned = _tiles(view)
        s.governor = view["governor"]
        s.round = view["round"]
        s.roles_left = list(view["roles_left"])
        s.taken = [tuple(x) for x in view["taken"]]
        s.role = view["role"]
        s.chooser = view["chooser"]
        s.doubled = view["doubled"]
        s.stage = view["stage"]
        s.order = _turn_order_for(view)
        s.over = view["over"]
        s.kinds = kinds
        cathedral = cathedral_id(expansion)
        s.cathedral = view["cathedral"][0] if view["cathedral"] else None
        assert s.cathedral in (None, cathedral)
        self.goods = []       # per player: its buildings holding a good
        for p, pv in zip(s.players, view["players"]):
            p.city = _ids(pv["city"])
            p.covered = _ids(pv["covered"])
            inactive = set(pv["inactive"])
            p.active = frozenset(kinds[b] for b in p.city if b not in inactive)
            p.library_used = pv["library_used"]
            self.goods.append([b for b, _, g in pv["city"] if g])
        me = s.players[self.seat]
        for f in ("hand", "chapel", "bank", "drawn"):
            setattr(me, f, _ids(you[f]))
        self.state = s


def _turn_order_for(view: dict) -> tuple[int, ...]:
    n = len(view["players"])
    first = view["chooser"] if view["chooser"] is not None else view["governor"]
    return tuple((first + i) % n for i in range(n))


def _deal(t: _Template, rnd: random.Random) -> State:
    """The template's state with the unidentified cards dealt into the hidden places, in the
    numbers the view shows, and the tiles not turned yet in a random order."""
    v = t.view
    seat = t.seat
    s = t.state.copy()
    s.tiles = t.known_tiles + tuple(shuffled(t.unturned, rnd))
    pool = shuffled(t.unknown, rnd)
    at = 0

    def take(k: int) -> list[int]:
        nonlocal at
        at += k
        return pool[at - k:at]

    for i, (p, pv) in enumerate(zip(s.players, v["players"])):
        p.goods = dict(zip(t.goods[i], take(len(t.goods[i]))))
        if i != seat:
            p.hand = take(pv["hand"])
            p.drawn = take(pv["drawn"])
            p.chapel = take(pv["chapel"])
            p.bank = take(pv["bank"])
        p.harbor = take(pv["harbor"])
    s.discard = take(v["discard"])
    s.deck = take(v["deck"])
    if at != len(pool):
        raise ValueError("the view is inconsistent: unknown cards with nowhere to be")
    return s


def _set_pending(s: State, t: _Template, rnd: random.Random, answered) -> bool:
    """Fill in pending decisions (and answers); False when this deal cannot match the view."""
    v = t.view
    seat = t.seat
    to_act = v["to_act"]
    prompt = v["prompt"]
    mine = (prompt["kind"], tuple(prompt["options"]), prompt["min"], prompt["max"]) if prompt else None
    if s.over:
        return True
    if s.stage in ("role", "library"):
        chooser = s.chooser
        assert chooser is not None, "a view in these stages names the seat choosing"
        s.pending = {chooser: ("role", tuple(s.roles_left), 1, 1) if s.stage == "role"
                     else ("library", ("use", "save"), 1, 1)}
    elif s.stage in BUILD_STAGES:
        actor = to_act[0]
        s.turn = s.order.index(actor)
        if actor == seat:
            assert mine is not None, "the seat to act has a prompt"
            s.pending = {seat: mine}
            b = v["you"]["building"]
            s.build = (b[0], b[1], tuple(b[2])) if b is not None else None
        else:
            return _replay_build(s, actor, v["stage"], rnd)
    else:
        for i in s.order:
            d = mine if i == seat and i in to_act else stage_decision(s, i)
            if d is None:
                continue
            if i in to_act or answered is None:
                s.pending[i] = d
            else:
                s.pending[i] = d              # the stand-in answer is picked against it
                s.answers[i] = tuple(answered(s, i))
                del s.pending[i]
        # Answered in turn order above (`answered` may draw), kept in seat order as the engine keeps it.
        s.pending = dict(sorted(s.pending.items()))
    return True


def _replay_build(s: State, actor: int, stage: str, rnd: random.Random) -> bool:
    """Another seat is building: sample which building (and crane target, black market goods)
    by replaying its choices with the engine until the stage matches the view. At the build
    decision itself any deal fits: every seat is asked, whether or not it can afford anything."""
    s.stage = "build"
    s.pending = {actor: build_decision(s, actor)}
    if stage == "build":
        return True
    options = s.pending[actor][1]
    if not options:
        return False   # past its build decision, the seat chose a building: it could afford one
    trial = s.copy()
    while trial.stage != stage:
        kind, opts, lo, hi = trial.pending[actor]
        if kind == "build":
            pick = [opts[int(rnd.random() * len(opts))]]
        elif kind in ("cover", "black_market"):
            pick = rnd.sample(opts, lo + int(rnd.random() * (hi - lo + 1)))
        else:
            return False
        apply(trial, actor, pick, ImaginedStreams(rnd))
        if trial.pending.keys() != {actor}:
            return False
    for f in State.__slots__:
        setattr(s, f, getattr(trial, f))
    return True


def determinize(view: dict, rnd: random.Random, answered=None) -> State:
    """A full state consistent with `view` (a seat's view, prompt included), hidden cards dealt
    uniformly at random with `rnd`. `answered(state, seat) -> action`, if given, stands in for
    the hidden answers other seats have already given in a simultaneous stage. It is asked in
    turn order (it may draw from `rnd`), and while it runs `state.pending` holds, in that order,
    the seats still to act visited so far, then `seat`; the state returned keeps them in seat
    order."""
    return Determinizer(view, answered).sample(rnd)


class Determinizer:
    """For searches that sample many states from one view: the view is read once."""

    def __init__(self, view: dict, answered=None) -> None:
        if view.get("seat") is None:
            raise ValueError("determinize needs a seat's view, not a spectator's")
        self.template = _Template(view)
        self.answered = answered

    def sample(self, rnd: random.Random) -> State:
        for _ in range(_RETRIES):
            s = _deal(self.template, rnd)
            if _set_pending(s, self.template, rnd, self.answered):
                return s
        # The view allows it, but our sampling kept missing: leave that seat at its build choice.
        s = _deal(self.template, rnd)
        actor = self.template.view["to_act"][0]
        s.turn = s.order.index(actor)
        s.stage = "build"
        s.pending = {actor: build_decision(s, actor)}
        return s

