"""The contract every game offers: all that the server, the protocol, the bots, the terminal and
the tests may know about a game. A game is one package under games/ whose module has the names
of `Game` below; games/__init__.py registers it with one line, and from then on it is played,
served, audited, searched and tested like every other.

Three kinds of thing make up the contract:

- `Info`, the metadata: id, title, seat range, rules version, the table options (each with its
  type, default and one line of help; the CLI flags, the lobby's create dialog and the server's
  check are generated from them) and the tie-break rule in words.
- The engine functions of `Game` (docs/development.md): setup, to_act, prompt, legal, random_action,
  random_move, apply, view, visible_events, result, dump, load, copy; plus what the fair exchange needs
  without knowing the game: the card manifest and its hash for the options, what each seat
  is privately shown at setup (`dealt`), and, on a blind table (games/blind.py), the hidden
  cards a seat may look at now (`private_cards`), which the dealer opens to that seat alone.
- Declared shapes: every view is a `View` envelope around the game's own fields, every prompt a
  `Prompt`, every result a `Result`. `check_view` and `check_result` hold a game to them (the
  conformance suite calls them on every view of random games).

`games.register` holds a game to all this when it is registered (`problems` names every part
missing or malformed, at once) and gives it the `DEFAULTS` of what it leaves out: the names every
game would write the same way, from its others.

Games may also bring `Search` support (determinize a seat's view, a fast playout policy, a
position estimate) that the generic ISMCTS bot uses, their own rule-of-thumb bots, and `Text`,
the terminal rendering of their views.
"""
from __future__ import annotations

import hashlib
from copy import deepcopy
from dataclasses import dataclass
from inspect import signature
from typing import Any, Callable, NotRequired, Protocol, TypedDict, cast

from games.choice import BACK, all_picks, pick_uniform
from games.errors import IllegalAction
from games.text import plural
from games.events import Event, visible


@dataclass(frozen=True)
class Option:
    """One table option. `name` is the key in the options dict (the CLI flag is `--name` with
    dashes); a bool option is a switch, an int option takes a value in `choices`."""
    name: str
    default: bool | int
    help: str
    choices: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if type(self.default) not in (bool, int) or (type(self.default) is int and self.default not in self.choices):
            raise ValueError(f"option {self.name}: a switch (bool) or a number with its choices, the default among them")

    @property
    def type(self) -> type[bool] | type[int]:
        return type(self.default)

    def check(self, value) -> bool | int:
        if type(value) is not self.type:   # bool("no") is True: a word here is a mistake
            kind = "true or false" if self.type is bool else "a whole number"
            raise IllegalAction("bad_options", f"Table option {self.name} must be {kind}, not {value!r}.")
        if self.choices and value not in self.choices:
            raise IllegalAction("bad_options", f"Table option {self.name} is one of "
                                f"{', '.join(map(str, self.choices))}, not {value!r}.")
        return value


@dataclass(frozen=True)
class Info:
    """What a game is, before any table of it exists."""
    id: str                  # the registry key, in records and on the wire: "sanjuan"
    title: str               # for people: "San Juan"
    min_players: int
    max_players: int
    rules_version: str       # bumped whenever an old match could replay differently; records name it
    tiebreak: str            # the tie-break rule in words, for score tables
    options: tuple[Option, ...] = ()
    # What the game does that not every game does, as OpenSpiel's GameType declares it, for
    # clients and tests to go by: whether some prompt offers the move [BACK].
    offers_back: bool = False

    @property
    def players(self) -> range:
        return range(self.min_players, self.max_players + 1)

    @property
    def default_players(self) -> int:
        """The table made when nobody says: four, or fewer if the game is for fewer."""
        return min(4, self.max_players)

    def variants(self) -> list[dict]:
        """The option sets worth testing and measuring: the defaults, every switch on, and each
        other value of each number option (the rest at their defaults)."""
        every_switch = {o.name: True for o in self.options if o.type is bool}
        numbers = [{o.name: v} for o in self.options if o.type is int for v in o.choices if v != o.default]
        return [self.check_options(o) for o in [{}, *([every_switch] if every_switch else []), *numbers]]

    def check_players(self, n) -> int:
        if type(n) is not int or n not in self.players:
            raise IllegalAction("bad_table", f"{self.title} is for {self.min_players} to {self.max_players} "
                                f"players, not {n!r}.")
        return n

    def describe(self, options: dict) -> str:
        """The options that differ from the defaults, in words: "expansion, setup variant"."""
        words = []
        for o in self.options:
            value = options.get(o.name, o.default)
            if value != o.default:
                words.append(o.name.replace("_", " ") + ("" if value is True else f" {value}"))
        return ", ".join(words)

    def check_options(self, options) -> dict:
        """The options of a table with every default filled in; an unknown name or a value of
        the wrong type is refused by name."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise IllegalAction("bad_options", "Table options are a map of names to values.")
        known = {o.name: o for o in self.options}
        unknown = sorted(str(k) for k in options if k not in known)
        if unknown:
            raise IllegalAction("bad_options", f"{self.title} has no table option {', '.join(unknown)}; "
                                f"there is: {', '.join(known) or 'none'}.")
        return {name: o.check(options[name]) if name in options else o.default for name, o in known.items()}


class Prompt(TypedDict):
    """A decision: pick between `min` and `max` distinct values of `options`; every such pick
    is legal. `labels[i]` names option i for people, `help[i]` explains it in a sentence (or is
    empty); `kind` names the decision for programs, `text` asks it. `back`, when not empty, says
    for people where the move [choice.BACK] takes this seat: to the first step of a decision
    asked in several steps, nothing of which anyone else has been told yet. `counts`, when
    true, says the options are whole numbers counting something ("how many colonists?"), one of
    them to be picked: a client lets a person type the count itself (0 is 0, not the first
    option), so they are consecutive, ascending, and the question picks exactly one."""
    kind: str
    text: str
    options: list
    min: int
    max: int
    labels: list[str]
    help: list[str]
    back: str
    counts: NotRequired[bool]


class Result(TypedDict):
    """Scores at the end (or so far). `scores[seat]` maps each score part to points, with the
    sum as "total"; `tiebreak[seat]` is the value the tie-break compares; `winners` are the seats
    that share the win; `rounds`, where the game counts rounds, how many were played (the score
    table says it)."""
    scores: list[dict[str, int]]
    tiebreak: list
    winners: list[int]
    rounds: NotRequired[int]
    forfeit: NotRequired[list[int]]


def places(result: Result) -> list[int]:
    """Each seat's place in a result, 0 the first: a higher total comes first and, between equal
    totals, a higher tie-break value (the rule INFO.tiebreak says in words); seats equal in both
    share a place, and the next place counts them all (0, 0, 2). Seats that forfeited (`forfeit`,
    a blind table's match ended because they stopped answering) come after all the others, tied
    among themselves. The winners are the seats in place 0 (check_result holds every game to it).
    Ratings rank a match by these."""
    out = result.get("forfeit", ())
    # (1, total, tie-break) for a seat that played on, (0,) for one that forfeited: the first
    # number puts every forfeiting seat behind every other, and level with its like.
    keys = [(0,) if seat in out else (1, sc["total"], tb)
            for seat, (sc, tb) in enumerate(zip(result["scores"], result["tiebreak"]))]
    return [sum(other > mine for other in keys) for mine in keys]


def forfeit_result(result: Result, seats) -> Result:
    """The result of a match that ended because `seats` forfeited: the scores so far, those seats
    last, the winners recomputed among the others (every seat, if all forfeited)."""
    out = sorted(set(seats))
    ended: Result = {**result, "forfeit": out}
    ranked = places(ended)
    ended["winners"] = [seat for seat, place in enumerate(ranked) if place == 0]
    return ended


# The fields of a seat's view that only that seat may see (a game puts its own things under
# `you`); every other field is what everyone sees.
PRIVATE = ("you", "prompt")


class View(TypedDict, total=False):
    """The envelope of every view; a game adds its own fields beside these. `seat` is None for a
    spectator, who gets no `prompt`. `result` is there once `over`. A game whose players choose
    roles names the role being played as `role` (None between roles) and the seat that chose it
    as `chooser`: a client asks before a seat picks nothing in the phase of its own role."""
    game: str
    seat: int | None
    to_act: list[int]
    prompt: Prompt | None
    players: list[dict]      # each with at least "name"
    options: dict
    over: bool
    result: Result
    role: str | None
    chooser: int | None


def check_prompt(p) -> None:
    """Raise AssertionError naming what is wrong with a prompt's shape."""
    assert isinstance(p, dict), "a prompt is a map"
    for key, kind in (("kind", str), ("text", str), ("options", list), ("min", int), ("max", int),
                      ("labels", list), ("help", list)):
        assert isinstance(p.get(key), kind), f"prompt[{key!r}] must be a {kind.__name__}"
    n = len(p["options"])
    assert 0 <= p["min"] <= p["max"] <= n, f"prompt bounds {p['min']}..{p['max']} with {n} options"
    assert len(p["labels"]) == n and all(isinstance(x, str) and x for x in p["labels"]), "a label per option"
    assert len(p["help"]) == n and all(isinstance(x, str) for x in p["help"]), "a help text per option"
    assert len(set(map(repr, p["options"]))) == n, "options are distinct"
    assert isinstance(p.get("back"), str), "prompt['back'] must be a str (empty: no going back)"
    assert BACK not in p["options"], f"{BACK!r} is the move back, never an option"
    counts = p.get("counts", False)
    assert type(counts) is bool, "prompt['counts'] must be a bool (absent: the options are not counts)"
    if counts:
        assert p["min"] == p["max"] == 1, "a question of counts picks exactly one"
        assert all(type(o) is int and o >= 0 for o in p["options"]), "counts are whole numbers"
        first = p["options"][0]
        assert p["options"] == list(range(first, first + n)), "counts are consecutive, ascending"


def check_result(r, seats: int) -> None:
    assert isinstance(r, dict), "a result is a map"
    assert isinstance(r.get("scores"), list) and len(r["scores"]) == seats, "a score per seat"
    for sc in r["scores"]:
        assert isinstance(sc, dict) and isinstance(sc.get("total"), int), "each score has an int total"
        parts = {k: v for k, v in sc.items() if k != "total"}
        assert all(isinstance(v, int) for v in parts.values()), "score parts are ints"
        assert sum(parts.values()) == sc["total"], "the parts add up to the total"
    assert isinstance(r.get("tiebreak"), list) and len(r["tiebreak"]) == seats, "a tie-break value per seat"
    w = r.get("winners")
    assert isinstance(w, list) and w and all(type(i) is int and 0 <= i < seats for i in w), "winners are seats"
    assert type(r.get("rounds", 0)) is int, "rounds, where given, is a whole number"
    assert [i for i, place in enumerate(places(cast(Result, r))) if place == 0] == sorted(w), \
        "the winners are the seats with the highest total and, among those, the highest tie-break value"


def check_view(v, game: str, seat: int | None, seats: int) -> None:
    """Raise AssertionError naming what is wrong with a view's envelope."""
    assert isinstance(v, dict), "a view is a map"
    assert v.get("game") == game, "view['game'] names the game"
    assert v.get("seat") == seat, "view['seat'] is the seat it was made for"
    assert isinstance(v.get("to_act"), list) and all(0 <= i < seats for i in v["to_act"]), "to_act lists seats"
    players = v.get("players")
    assert isinstance(players, list) and len(players) == seats, "a player entry per seat"
    assert all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in players), "players have names"
    assert isinstance(v.get("options"), dict), "the table options"
    assert isinstance(v.get("over"), bool), "over is a bool"
    if seat is None:
        assert v.get("prompt") is None, "a spectator is never asked"
    elif v.get("prompt") is not None:
        check_prompt(v["prompt"])
        assert seat in v["to_act"], "a seat with a prompt is to act"
    if v["over"]:
        check_result(v.get("result"), seats)
    assert "role" not in v or v["role"] is None or isinstance(v["role"], str), "view['role'] is a word or None"
    assert "chooser" not in v or v["chooser"] is None or (type(v["chooser"]) is int and 0 <= v["chooser"] < seats), \
        "view['chooser'] is a seat or None"


class Search(Protocol):
    """What a game offers a search bot (bots/ismcts.py). States here are the game's own; the
    search never looks inside them, it only passes them back."""

    searched: frozenset[str]     # prompt kinds worth a search (the others: the game's heuristic)
    tree_kinds: frozenset[str]   # kinds of own decisions expanded inside the tree
    exploration: float           # UCB1's exploration constant, tuned for the game (rewards are 0..1)

    def sampler(self, view: dict) -> Any:
        """An object with sample(rnd) -> state: full states consistent with the seat's view."""

    def streams(self, rnd) -> Any:
        """Named streams for imagined play, drawn from the plain generator `rnd`."""

    def skip(self, view: dict) -> bool:
        """True when this decision is never searched (e.g. the starting deal)."""

    def root_key(self, view: dict) -> Callable[[Any], Any]:
        """option -> what it means in any sample (a card id -> its kind), for the root."""

    def next_decision(self, state, stop: int) -> tuple[int, tuple] | None:
        """(seat, (kind, options, min, max)) of the next pending decision; None once the game is
        over or its progress has reached `stop` (where a playout ends)."""

    def option_key(self, state, option) -> Any:
        """What an option means in any sample (a card id -> its kind)."""

    def apply(self, state, seat: int, action: list, streams) -> None:
        """The game's `apply` with `events=False`: a playout reads no events, so makes none."""

    policy: Callable[[Any, int, Any], list]
    """policy(state, seat, rnd): a fast, reasonable action for imagined play, the search's model
    of every player. Asked only where the decision allows a pick (max above 0): the search
    answers the others with no pick itself."""

    def progress(self, view: dict) -> int:
        """A count that only grows (San Juan: the round); playouts stop `horizon` beyond the root's."""

    def over(self, state) -> bool: ...

    def winners(self, state) -> list[int]: ...

    def estimates(self, state) -> list[float]:
        """Each seat's expected final score, in points, for a game stopped early."""


class Text(Protocol):
    """The terminal rendering of a game (games/<id>/text.py), made as `Text(options, paint)`;
    `paint(text, style)` colours a piece of text (styles: head, you, good, dim) or returns it as
    it is. It reads only views, never the engine state, so it can draw a view that came over the
    network without leaking what the view does not show.

    Optionally, a Text explains things by name, so that a player can ask about anything on the
    board and not only about the options of the question (`? small market` in the terminal):

        explain(view, words) -> str | None
            What the thing called `words` (a name, or the first letters of one, any case) is and
            does, in a few sentences, as this view shows it; a sentence naming the candidates when
            `words` fits several things; None when nothing is called that.
        names(view) -> list[str]
            Every name `explain` knows, for the answer to a name it does not.

    A game without them keeps plain `?` (help on the question's options)."""

    def board(self, view: dict, width: int) -> str:
        """Everything the view shows but its prompt, its lines broken to fit `width` columns
        (never inside a city or a row of a table)."""

    def parts(self, view: dict, width: int) -> tuple[str, str, str]:
        """The board in three, as the full screen lays it out: its head (the round, the roles,
        the common supply: kept in sight), the rest (what may scroll) and the seat's own things
        (a hand, a player's block: shown beside the question); "" for a part there is none of."""

    def result(self, result: dict, names: list[str]) -> str:
        """The score table of a `Result`."""


class Game(Protocol):
    """The module of a registered game. The functions' contracts are in docs/development.md and in the
    README's "The engine contract"."""

    INFO: Info

    def setup(self, names: list[str], options: dict, rng) -> Any: ...
    def to_act(self, state) -> list[int]: ...
    def prompt(self, state, seat: int) -> Prompt | None: ...
    def legal(self, state, seat: int) -> list[list]: ...
    def random_action(self, state, seat: int, rnd) -> list: ...

    def random_move(self, state, seat: int, rnd, rng) -> None:
        """`apply(state, seat, random_action(state, seat, rnd), rng, events=False)` in one step:
        the same pick from the same `rnd`, the same state after it, and no events. The engine
        draws the pick from the seat's own options and makes it without the check `apply` makes:
        no pick comes in, so none can be wrong, and a random game saves the check. IllegalAction
        when the seat owes no decision. Every move from outside (a player, a bot, the wire) goes
        through `apply`."""

    def apply(self, state, seat: int, action: list, rng, *, events: bool = True) -> list[Event] | None:
        """With `events` False: the same checks, refusals and move, but no events made and None
        returned, for a caller that reads none (a random game made them in an eighth of its
        time)."""

    def view(self, state, seat: int | None) -> View: ...

    def views(self, state, seats: list[int | None]) -> list[View]:
        """`view` of each seat at once (None: a spectator): the fields every view shows alike
        (all but `seat` and PRIVATE) are built once and are the same objects in each, so that
        a server showing a change to every seat builds and compares them once."""
    def visible_events(self, events: list[Event], seat: int | None) -> list[dict]: ...
    def result(self, state) -> Result: ...
    def dump(self, state) -> dict: ...
    def load(self, data: dict) -> Any: ...
    def copy(self, state) -> Any: ...

    def manifest(self, options: dict) -> list[str]:
        """The card instances the deal permutes, by id: their kind keys. Empty for no cards."""

    def manifest_hash(self, options: dict) -> bytes:
        """SHA-256 of the manifest, signed in every match's header."""

    def dealt(self, state, seat: int) -> list | None:
        """What `seat` is privately shown at setup (its dealt cards, as ids), or None. The
        exchange signs it to that seat alone; the audit compares it with its own replay."""

    def permute_hidden(self, state, seat: int | None, rnd) -> Any:
        """A copy of the state in which everything `seat` may not see is dealt anew with `rnd`
        (the leak test: the seat's view must not change)."""

    def private_cards(self, state, seat: int) -> list:
        """The hidden cards `seat` may look at now, as the state holds them (handles on a blind
        table): its hand and whatever else the rules show it alone. The dealer opens each to that
        seat, and to nobody else, as it arrives; they are the cards the seat's own view shows it.
        Empty for a game that keeps no card from one seat that another sees."""

    def private_room(self, view: View) -> int | None:
        """The most bytes (packed) that a seat's PRIVATE fields can take whatever its hidden
        cards are, from what everyone sees in its view; None when they hide nothing. Frames to
        the seat leave that room, so that their length tells nothing hidden."""

    search: Callable[..., Search] | None  # makes the search support (its keywords: the policy's)
    bots: dict[str, Callable[..., Any]]   # the game's own bot levels (e.g. "heuristic"): seed -> bot
    Text: Callable[..., Text]            # Text(options, paint): the board and score table as text


# ---------------------------------------------------------------- registration

def _manifest_hash(game) -> Callable:
    def manifest_hash(options: dict) -> bytes:
        """SHA-256 of the manifest as text, one line `id key` per card: what the deal permutes."""
        return hashlib.sha256("".join(f"{i} {key}\n" for i, key in enumerate(game.manifest(options))).encode()).digest()
    return manifest_hash


def _view(game) -> Callable:
    def view(state, seat: int | None = None) -> View:
        return game.views(state, [seat])[0]
    return view


def _legal(game) -> Callable:
    def legal(state, seat: int) -> list[list]:
        """Every pick within the prompt's bounds (they grow combinatorially: a search samples)."""
        p = game.prompt(state, seat) if seat in game.to_act(state) else None
        return all_picks(p["options"], p["min"], p["max"]) if p else []
    return legal


def _random_action(game) -> Callable:
    def random_action(state, seat: int, rnd) -> list:
        if seat not in game.to_act(state):
            raise IllegalAction("not_your_turn", f"Seat {seat!r} owes no decision now.")
        p = game.prompt(state, seat)
        return pick_uniform(p["options"], p["min"], p["max"], rnd)
    return random_action


def _random_move(game) -> Callable:
    def random_move(state, seat: int, rnd, rng) -> None:
        game.apply(state, seat, game.random_action(state, seat, rnd), rng, events=False)
    return random_move


# What a game may leave out, as every game would write it: name -> the function made from the
# game's other names. A game writes its own where it knows a faster way (the big games draw a
# random move from their pending decision without building its prompt).
DEFAULTS: dict[str, Callable[[Any], Any]] = {
    "view": _view,
    "legal": _legal,
    "random_action": _random_action,
    "random_move": _random_move,
    "visible_events": lambda game: visible,
    "copy": lambda game: deepcopy,
    "manifest_hash": _manifest_hash,
    "dealt": lambda game: lambda state, seat: None,          # nothing dealt privately
    "private_room": lambda game: lambda view: None,         # a seat's own fields hide nothing
    "private_cards": lambda game: lambda state, seat: [],   # no card is one seat's alone
    "bots": lambda game: {},                                # only the "random" level
    "search": lambda game: None,                            # no "ismcts" level
}

# Every function of the contract with the arguments it is called with (by position; `apply`
# also takes `events=`), which a game's function must accept.
FUNCTIONS = {"setup": 3, "to_act": 1, "prompt": 2, "legal": 2, "random_action": 3, "random_move": 4,
             "apply": 4, "view": 2, "views": 2, "visible_events": 2, "result": 1, "dump": 1, "load": 1,
             "copy": 1, "manifest": 1, "manifest_hash": 1, "dealt": 2, "permute_hidden": 3,
             "private_cards": 2, "private_room": 1, "Text": 2}


def _takes(f, n: int, **keywords) -> bool:
    try:
        signature(f).bind(*[None] * n, **keywords)
    except TypeError:
        return False
    except ValueError:       # no signature to read (a builtin): take it as it says
        return True
    return True


def problems(game) -> list[str]:
    """Everything `game` (a module, or any object with the contract's names) lacks or has in a
    wrong form, as phrases; empty when it is a game. DEFAULTS fill in what it leaves out."""
    out = []
    info = getattr(game, "INFO", None)
    if not isinstance(info, Info):
        out.append("INFO is missing or not a games.contract.Info")
    elif not (info.id.isascii() and info.id.isidentifier() and info.id.islower()):
        out.append(f"INFO.id {info.id!r} is not a lower-case name (it is a key on the wire and in records)")
    elif not 1 <= info.min_players <= info.max_players:
        out.append(f"INFO's players {info.min_players} to {info.max_players} are no range of seats")
    for name, args in FUNCTIONS.items():
        f = getattr(game, name, None)
        if f is None:
            if name not in DEFAULTS:
                out.append(f"{name} is missing")
        elif not callable(f):
            out.append(f"{name} is not a function")
        elif not _takes(f, args, **({"events": False} if name == "apply" else {})):
            out.append(f"{name} does not take {plural(args, 'argument')}"
                       + (" and events=" if name == "apply" else ""))
    bots = getattr(game, "bots", {})
    if not isinstance(bots, dict) or not all(isinstance(k, str) and callable(v) for k, v in bots.items()):
        out.append("bots is not a map of level names to bot makers")
    search = getattr(game, "search", None)
    if search is not None and not callable(search):
        out.append("search is neither None nor a maker of search support")
    return out


def complete(game) -> None:
    """Check `game` against the contract, naming every missing or malformed part at once in a
    TypeError, then give it the DEFAULTS of what it leaves out."""
    wrong = problems(game)
    if wrong:
        what = getattr(getattr(game, "INFO", None), "id", None) or getattr(game, "__name__", repr(game))
        raise TypeError(f"{what} is not a game of the contract (games/contract.py): " + "; ".join(wrong) + ".")
    for name, make in DEFAULTS.items():
        if not hasattr(game, name):
            setattr(game, name, make(game))
