"""Registering a game checks it against the contract at once, naming every part that is missing
or malformed, and gives it the contract's defaults of what it leaves out."""
from __future__ import annotations

import hashlib
import random
import types

import pytest

import games
from games.contract import DEFAULTS, Info, Option
from protocol.fairness import local_streams
from tests.conformance import highcard


def a_game(**changes) -> types.ModuleType:
    """A module with High Card's names, changed: None removes a name."""
    module = types.ModuleType("a_game")
    for name in ("INFO", "setup", "to_act", "prompt", "apply", "views", "result", "dump", "load",
                 "manifest", "permute_hidden", "dealt", "private_cards", "private_room", "random_move", "Text"):
        setattr(module, name, getattr(highcard, name))
    for name, value in changes.items():
        if value is None:
            delattr(module, name)
        else:
            setattr(module, name, value)
    return module


def test_every_missing_or_malformed_part_is_named_at_once_and_nothing_is_registered():
    before = dict(games.GAMES)
    broken = a_game(views=None, setup=None, prompt=lambda state: None, result="a table",
                    apply=lambda state, seat, action, rng: None, bots={"heuristic": 3},
                    private_cards=lambda state: [])
    with pytest.raises(TypeError) as refused:
        games.register(broken)
    said = str(refused.value)
    assert said.startswith("highcard is not a game of the contract (games/contract.py): ")
    for part in ("setup is missing", "views is missing", "prompt does not take 2 arguments",
                 "result is not a function", "apply does not take 4 arguments and events=",
                 "bots is not a map of level names to bot makers", "private_cards does not take 2 arguments"):
        assert part in said, part
    assert games.GAMES == before


def test_info_that_is_no_info_or_whose_id_is_no_key_is_refused():
    with pytest.raises(TypeError, match="INFO is missing or not a games.contract.Info"):
        games.register(a_game(INFO={"id": "x"}))
    bad_id = Info(id="High Card", title="High Card", min_players=2, max_players=2, rules_version="h/1", tiebreak="")
    with pytest.raises(TypeError, match="INFO.id 'High Card' is not a lower-case name"):
        games.register(a_game(INFO=bad_id))


def test_a_game_registered_twice_is_refused():
    with pytest.raises(TypeError, match="'sanjuan' is registered already"):
        games.register(games.GAMES["sanjuan"])


def test_an_option_named_as_another_game_s_of_another_kind_is_refused():
    """Options of one name are one flag (client/table_options.py): they must agree on what it takes."""
    def info(*options):
        return Info(id="highcard", title="High Card", min_players=2, max_players=2,
                    rules_version="h/1", tiebreak="", options=options)
    for clash in (Option("expansion", 3, "a number", (3, 4)), Option("expansion", True, "on unless --no-expansion")):
        with pytest.raises(TypeError, match=r"one flag with another game's: expansion \(San Juan's is another kind"):
            games.register(a_game(INFO=info(clash)))
    assert "highcard" not in games.GAMES
    games.register(a_game(INFO=info(Option("expansion", False, "more cards"))))     # the same kind: one flag
    del games.GAMES["highcard"]


def test_what_a_game_leaves_out_is_the_contract_s_default():
    game = a_game(dealt=None, private_cards=None, private_room=None, random_move=None)
    games.register(game)
    try:
        assert games.get("highcard") is game
        assert set(DEFAULTS) <= set(vars(game))
        assert game.bots == {} and game.search is None
        manifest = game.manifest({})
        lines = "".join(f"{i} {key}\n" for i, key in enumerate(manifest))
        assert game.manifest_hash({}) == hashlib.sha256(lines.encode()).digest()
        rng = local_streams("defaults")
        s = game.setup(["A", "B"], {}, rng)
        assert game.view(s, 0) == game.views(s, [0])[0] and game.dealt(s, 0) is None
        assert game.private_room(game.view(s, 0)) is None
        assert game.private_cards(s, 0) == [] and game.private_cards(s, 1) == []
        assert game.legal(s, 0) == [[c] for c in game.prompt(s, 0)["options"]] and game.legal(s, 1) == []
        t = game.copy(s)
        game.random_move(t, 0, random.Random(1), rng)
        assert game.dump(t) != game.dump(s)     # a copy of its own: the move changed only it
        trick = game.apply(s, 0, game.random_action(s, 0, random.Random(1)), rng)
        trick += game.apply(s, 1, game.random_action(s, 1, random.Random(1)), rng)
        assert {e["to"] for e in trick} == {None, 0, 1}      # both draw, each told alone
        assert [e for e in game.visible_events(trick, 1)] == [e for e in trick if e["to"] in (None, 1)]
    finally:
        del games.GAMES["highcard"]


def test_variants_are_the_defaults_every_switch_on_and_each_other_number():
    info = Info(id="toy", title="Toy", min_players=2, max_players=2, rules_version="toy/1", tiebreak="",
                options=(Option("long", False, "long"), Option("fast", False, "fast"),
                         Option("rounds", 6, "rounds", (4, 6, 8))))
    assert info.variants() == [{"long": False, "fast": False, "rounds": 6},
                               {"long": True, "fast": True, "rounds": 6},
                               {"long": False, "fast": False, "rounds": 4},
                               {"long": False, "fast": False, "rounds": 8}]
