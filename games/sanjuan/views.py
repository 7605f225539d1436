"""What a seat, or a spectator, may see: the one door from the state to the outside.

docs/rules.md, 'San Juan': own hand as cards, other hands as counts; goods only as "this building holds
one"; the cards under a chapel and a bank only to their owner, the cards under a harbor to nobody
(they go under face down), and everyone sees how many lie under each; councillor draws only to
the drawer; supply and discard as counts; trading tiles only once turned. The principle: hide only
what no player could work out from the public log. A hidden card never appears, not even as an
id: ids map to kinds through the public manifest.
"""
from __future__ import annotations

from games.text import plural

from .cards import COST, GOOD, GOODS, KEY, KINDS, NAME, ROLE_TEXT, TILES, VP
from .rules import (back_label, build_under_way, cover_value, current_tile, hand_limit, min_build_cost, sale_price,
                    seat_decision, to_act)
from .scoring import result, score_seat
from .state import State


def _cards(s: State, ids) -> list[list]:
    return [[c, KEY[s.kinds[c]]] for c in ids]


def _prices(tile) -> dict[str, int]:
    return dict(zip(GOODS, tile))


def views(s: State, seats: list[int | None]) -> list[dict]:
    """The view of each of these seats (None: a spectator), as `view` makes it: what every view
    shows alike is built once, the same objects in each, and beside it each seat's own fields."""
    public = _public(s)
    out = []
    for seat in seats:
        v = {**public, "seat": seat}
        if seat is not None:
            v["you"] = _you(s, seat)
            v["prompt"] = prompt(s, seat)
        out.append(v)
    return out


def _public(s: State) -> dict:
    """The fields every seat's view and the spectators' show alike."""
    players = [
        {
            "name": s.names[i],
            "hand": len(p.hand),
            "city": [[b, KEY[s.kinds[b]], b in p.goods] for b in p.city],
            "covered": _cards(s, p.covered),
            "buildings": len(p.city),
            "drawn": len(p.drawn),   # the count is announced when the councillor cards are drawn
            # Every placement is announced with its count, so the counts are public.
            "chapel": len(p.chapel),
            "bank": len(p.bank),
            "harbor": len(p.harbor),
            # Built in this builder phase: they work only from the next phase (public, as built).
            "inactive": [b for b in p.city if s.kinds[b] not in p.active],
            # Two players: the library works once a round; its use is announced or automatic.
            "library_used": p.library_used,
            # The score if the game ended now. Every part of it comes from the cities and the
            # counts under chapel, bank and harbor, all public, so every view carries it.
            "score": score_seat(s, i),
        }
        for i, p in enumerate(s.players)
    ]
    known_tiles = min(s.tiles_turned, len(s.tiles))
    v = {
        "game": "sanjuan",
        "options": {"expansion": s.expansion, "setup_variant": s.setup_variant},
        "round": s.round,
        "governor": s.governor,
        "stage": s.stage,
        "role": s.role,
        "chooser": s.chooser,
        "roles_left": list(s.roles_left),
        "taken": [list(t) for t in s.taken],
        "to_act": to_act(s),
        "deck": len(s.deck),
        "discard": len(s.discard),
        "tiles": [_prices(TILES[t]) for t in s.tiles[:known_tiles]],
        "tile": _prices(current_tile(s)) if s.tiles_turned else None,
        "doubled": s.doubled,
        "cathedral": [s.cathedral, "cathedral"] if s.cathedral is not None else None,
        "players": players,
        "over": s.over,
    }
    if s.over:
        v["result"] = result(s)
    return v


# The places of the cards a seat alone may look at (not its harbor's: they go under face down).
_OWN = ("hand", "chapel", "bank", "drawn")


def private_cards(s: State, seat: int) -> list[int]:
    """The hidden cards `seat` may look at now (games/contract.py), those its view shows it: its
    hand, its councillor draw, the cards under its chapel and its bank."""
    p = s.players[seat]
    return [c for place in _OWN for c in getattr(p, place)]


def _you(s: State, seat: int) -> dict:
    """What the seat alone sees: its cards, its hand limit, the building it is in the middle of."""
    p = s.players[seat]
    return {
        **{place: _cards(s, getattr(p, place)) for place in _OWN},
        "hand_limit": hand_limit(s, p),
        # The building this seat is in the middle of building: [card, covered card, goods].
        "building": ([s.build[0], s.build[1], list(s.build[2])]
                     if s.build is not None and s.order[s.turn] == seat else None),
    }


# ---------------------------------------------------------------- prompts

def prompt(s: State, seat: int) -> dict | None:
    """What the seat must decide, as data a client renders without knowing the rules: pick
    between `min` and `max` distinct values of `options`; `labels` names each for people (with a
    note of what matters for this decision), `help` explains it."""
    decision = seat_decision(s, seat)
    if decision is None:
        return None
    kind, options, lo, hi = decision
    notes = None
    hand_limit_now = hand_limit(s, s.players[seat])
    if kind == "role":
        text = "Choose a role."
    elif kind == "library":
        text = (f"Use your library to double the {s.role}'s privilege? With two players it works "
                "once a round.")
        notes = ["double this privilege now", "keep it for your second role this round"]
    elif kind == "build":
        # A seat that can afford nothing is asked all the same (rules.build_decision).
        text = ("Builder phase: choose a building to build, or none." if options else
                "Builder phase: you can afford no building now, so you build nothing.")
        notes = [f"cost {COST[s.kinds[c]]}, you pay {min_build_cost(s, seat, c)}, "
                 f"{VP[s.kinds[c]]} VP" for c in options]
    elif kind == "cover":
        what = NAME[s.kinds[build_under_way(s)[0]]].lower()
        text = (f"Crane: choose one of your buildings to cover with the {what}; it leaves play and "
                "its cost is taken off." + (" You must cover one to afford it." if lo else
                                            " Pick none to build it beside the others."))
        notes = [f"takes {cover_value(s.kinds[b])} off" for b in options]
    elif kind == "black_market":
        text = (f"Black market: discard {lo if lo == hi else f'{lo} to {hi}'} of your goods, "
                "each paying 1 card of the cost; a good beyond the cost only empties its building.")
    elif kind == "pay":
        text = f"Pay {plural(lo, 'card')} for your {NAME[s.kinds[build_under_way(s)[0]]].lower()}."
    elif kind == "produce":
        text = f"Producer phase: produce on up to {plural(hi, 'empty building')}."
        notes = [GOODS[GOOD[s.kinds[b]]] for b in options]
    elif kind == "sell":
        text = f"Trader phase: sell up to {plural(hi, 'good')}."
        tile = current_tile(s)
        notes = [f"sells for {sale_price(tile, s.kinds[b])}" for b in options]
    elif kind == "keep" and s.stage == "deal":
        text = f"Keep 4 of your {len(options)} starting cards."
    elif kind == "keep":
        text = f"Councillor phase: keep {plural(lo, 'card')} of those you drew."
    elif kind == "discard":
        text = f"Archive: discard {plural(lo, 'card')} from your whole hand."
    elif kind == "office":
        text = "Office building: discard up to 2 cards, then draw as many."
    elif kind == "chapel":
        text = "Chapel: put up to 1 card from your hand under your chapel (1 VP each at the end)."
    elif kind == "bank":
        text = ("Bank, once a game: put any number of cards under your bank (1 VP each at the end). "
                "Pick none to keep it for later.")
    elif kind == "limit":
        text = f"Hand limit {hand_limit_now}: discard {plural(lo, 'card')}."
    else:  # pragma: no cover - every kind the rules create is named above
        raise AssertionError(kind)
    labels, help_texts = _labels(s, options, notes)
    return {"kind": kind, "text": text, "options": list(options), "min": lo, "max": hi,
            "labels": labels, "help": help_texts, "back": back_label(s, seat)}


def _labels(s: State, options, notes) -> tuple[list[str], list[str]]:
    """A label per option for people, and a sentence of help. A building already in a city is
    just its name; a card to play or keep also shows cost and VP, unless the note says what
    matters for this decision (the builder's note has the price you would pay). Every option is a
    card the seat can see (its hand, its city, its draws) or a word, so a label tells nothing the
    view does not."""
    built = {b for p in s.players for b in p.city}
    named = []
    for value, note in zip(options, notes or [None] * len(options)):
        if isinstance(value, str):
            label = value.capitalize()
        else:
            k = s.kinds[value]
            label = NAME[k] if value in built or note else f"{NAME[k]} (cost {COST[k]}, {VP[k]} VP)"
        named.append((label, note))
    width = max((len(label) for label, _ in named), default=0)
    labels = [f"{label.ljust(width)}   {note}" if note else label for label, note in named]
    help_texts = [ROLE_TEXT.get(value, "") if isinstance(value, str) else KINDS[s.kinds[value]].text
                  for value in options]
    return labels, help_texts


# ---------------------------------------------------------------- frame lengths

def _longest(texts) -> int:
    return max(len(t.encode()) for t in texts)


# The most bytes each thing in a seat's own fields can take, packed (a string or a number at most
# 3 bytes of msgpack header, a list or a map 3): what private_room adds up.
_CARD = 1 + 3 + 3 + _longest(KEY)                  # [id, key] in `you`
_NOTE = _longest(["double this privilege now", "keep it for your second role this round",
                  "cost 99, you pay 99, 99 VP", "takes 99 off", "sells for 99", *GOODS])
_OPTION = 3 + (3 + _longest(f"{NAME[k]} (cost {COST[k]}, {VP[k]} VP)" for k in range(len(NAME))) + 3 + _NOTE) \
    + (3 + _longest([k.text for k in KINDS] + list(ROLE_TEXT.values())))   # the option, its label, its help
_TEXT = 256    # a question's text; the longest (the crane's, naming a building) is under 180 bytes
_YOU = 96      # the map of `you`: its keys, list headers, the hand limit, the building under way


def private_room(view: dict) -> int:
    """The most bytes, packed, that a seat's own fields (`you` and `prompt`) can take, from what
    everyone sees in its view: how many cards it holds, draws and keeps under its chapel and bank,
    how many buildings it has and whether it is asked. Frames to the seat are padded to leave this
    room whatever its cards are (server/broadcast.py), so their length tells nothing of them."""
    me = view["players"][view["seat"]]
    room = _YOU + (me["hand"] + me["drawn"] + me["chapel"] + me["bank"]) * _CARD
    if view["seat"] in view["to_act"]:
        options = max(me["hand"] + me["drawn"], me["buildings"], len(view["roles_left"]), 2)
        room += 64 + _TEXT + options * _OPTION
    return room

