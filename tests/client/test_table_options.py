"""The table flags and the lobby's questions are made from the registered games' metadata: a
second game's options appear, and a flag the chosen game has not is refused by name."""
from __future__ import annotations

import argparse
import types

import pytest

import games
from client import table_options
from games.contract import Info, Option
from games.errors import IllegalAction

TOY = types.SimpleNamespace(INFO=Info(
    id="toy", title="Toy", min_players=3, max_players=5, rules_version="toy/1", tiebreak="none",
    options=(Option("long_game", False, "play to 20 points"), Option("rounds", 6, "rounds to play", (4, 6, 8)))),
    bots={}, search=None)   # computer players: "random" only


@pytest.fixture
def two_games(monkeypatch):
    monkeypatch.setattr(games, "GAMES", {**games.GAMES, "toy": TOY})


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    table_options.add_table_arguments(p)
    return p.parse_args(argv)


def test_every_game_s_options_are_flags(two_games):
    args = parse("--game", "toy", "--long-game", "--rounds", "8", "--players", "5")
    engine, players, options = table_options.chosen_table(args)
    assert engine is TOY and players == 5 and options == {"long_game": True, "rounds": 8}
    engine, players, options = table_options.chosen_table(parse("--expansion"))
    assert engine.INFO.id == "sanjuan" and players == 4
    assert options == {"expansion": True, "setup_variant": False}


def test_another_game_s_flag_or_a_count_out_of_range_is_refused_by_name(two_games):
    with pytest.raises(IllegalAction, match="San Juan has no option --long-game"):
        table_options.chosen_table(parse("--long-game"))
    with pytest.raises(IllegalAction, match="Toy has no option --expansion"):
        table_options.chosen_table(parse("--game", "toy", "--expansion"))
    with pytest.raises(IllegalAction, match="Toy is for 3 to 5 players, not 2"):
        table_options.chosen_table(parse("--game", "toy", "--players", "2"))
    with pytest.raises(SystemExit):
        parse("--game", "toy", "--rounds", "5")          # not one of the choices


def test_the_default_table_of_a_game(two_games):
    engine, players, options = table_options.chosen_table(parse("--game", "toy"))
    assert players == 4 and options == {"long_game": False, "rounds": 6}


def test_info_checks_and_describes_options():
    info = TOY.INFO
    assert info.check_options(None) == {"long_game": False, "rounds": 6}
    for bad in ({"rounds": 5}, {"rounds": True}, {"long_game": 1}, {"colour": "red"}, ["rounds"]):
        with pytest.raises(IllegalAction):
            info.check_options(bad)
    assert info.describe({"long_game": True, "rounds": 8}) == "long game, rounds 8"
    assert info.describe(info.check_options({})) == ""


def test_the_lobby_asks_for_the_game_and_each_of_its_options(two_games, capsys):
    import asyncio
    import io

    from client.lobby import create_dialog
    from client.terminal import Keyboard

    class Link:
        async def create(self, game, seats, bots, options, levels=None, rated=False, blind=None):
            self.created = (game, seats, bots, options, rated, blind)
            return "t1"

    link = Link()
    toy = list(games.GAMES).index("toy") + 1
    # Toy, 5 players, 1 computer, long game, 5 then 8 rounds, blind dealing as it comes (yes)
    answers = io.StringIO(f"{toy}\n5\n1\ny\n5\n8\n\n")
    assert asyncio.run(create_dialog(link, Keyboard(answers))) == "t1"
    assert link.created == ("toy", 5, 1, {"long_game": True, "rounds": 8}, False, True)
    asked = capsys.readouterr().out
    assert f"{toy}. Toy" in asked and "1. San Juan" in asked and "Play to 20 points?" in asked and "Rounds to play (4, 6, 8)" in asked
    assert "Please type one of 4, 6, 8." in asked
    assert "Rated" not in asked         # a computer player's match is never rated: not asked
    assert "Blind dealing (nobody, the server included, knows a card until it is opened to whoever may see it)? " \
           "(1. no, 2. yes) [yes]" in asked

    # A table of people only is asked whether it is rated; this one deals open.
    answers = io.StringIO(f"{toy}\n5\n0\nn\n4\nyes\nno\n")
    assert asyncio.run(create_dialog(link, Keyboard(answers))) == "t1"
    assert link.created == ("toy", 5, 0, {"long_game": False, "rounds": 4}, True, False)
    assert "Rated (the match counts for every player's rating)? (1. no, 2. yes) [no]" in capsys.readouterr().out

    # One person against computer players: blind dealing is not asked (the server deals open).
    answers = io.StringIO(f"{toy}\n3\n2\n\n\n")
    assert asyncio.run(create_dialog(link, Keyboard(answers))) == "t1"
    assert link.created == ("toy", 3, 2, {"long_game": False, "rounds": 6}, False, None)
    assert "Blind" not in capsys.readouterr().out


def test_rated_is_for_a_table_of_people_that_one_creates(capsys):
    from client.cli import main

    assert main(["play", "--rated", "--plain"]) == 2          # every other seat a computer by default
    assert ("governor play: a rated table is a table of people (a computer player's match never counts): "
            "add --bots 0.") in capsys.readouterr().err
    assert main(["join", "ws://127.0.0.1:9", "--rated", "--bot", "random", "--no-input"]) == 2
    assert "--seats, --bots, --level, --rated, --blind and --open describe a table you create: add --create GAME." \
        in capsys.readouterr().err


def test_blind_or_open_dealing_is_chosen_for_a_table_one_creates(capsys):
    from client.cli import main, parser

    def parsed(*argv):
        return parser(argv[0]).parse_args(list(argv))

    assert parsed("play", "--host", "0.0.0.0", "--bots", "1", "--blind").blind is True
    assert parsed("play", "--host", "0.0.0.0", "--bots", "1", "--open").blind is False
    assert parsed("play").blind is None            # the server's default: blind with two people or more
    assert parsed("join", "ws://127.0.0.1:9", "--create", "sanjuan", "--blind").blind is True
    assert parsed("join", "ws://127.0.0.1:9", "--create", "sanjuan", "--open").blind is False
    assert parsed("join", "ws://127.0.0.1:9", "--create", "sanjuan").blind is None
    with pytest.raises(SystemExit):
        parsed("join", "ws://127.0.0.1:9", "--create", "sanjuan", "--blind", "--open")
    assert "not allowed with argument" in capsys.readouterr().err

    # Against computer players alone the deal stays open: --blind there is refused, saying why.
    assert main(["play", "--blind", "--plain"]) == 2
    err = capsys.readouterr().err
    assert "governor play: --blind is for a table with seats for friends" in err and "--bots fewer than 3" in err
    # Dealing describes a table one creates.
    assert main(["join", "ws://127.0.0.1:9", "--open", "--bot", "random", "--no-input"]) == 2
    assert "--blind and --open describe a table you create" in capsys.readouterr().err

    from client.join import describe_created
    args = parsed("join", "ws://127.0.0.1:9", "--create", "sanjuan", "--blind")
    args.seats, args.levels, args.options = 2, [], {}
    assert describe_created(args) == "San Juan, 2 seats, no computer players, blind dealing"
