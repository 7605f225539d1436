"""`governor play`: the answer parser, a whole game answered by a bot, bad input, quitting."""
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from client import local
from client.cli import main
from client.local import LocalGame
from client.play import BadAnswer, _names, parse_answer
from games import sanjuan
from games.errors import IllegalAction

ROOT = Path(__file__).resolve().parents[2]
PROMPT_END = "(? for help, q to quit)"


def governor(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "client", "play", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def role_seed() -> str:
    """A seed whose first question to the human (seat 0 of 4) is a choice of role."""
    for seed in map(str, range(100)):
        game = LocalGame(sanjuan, _names("You", 4), {}, seed)
        game.play_bots()
        if game.view(0)["prompt"]["kind"] == "role":
            return seed
    raise AssertionError("no seed starts with a role choice")


# ------------------------------------------------------------ the parser, as a pure function

@pytest.mark.parametrize("text, count, lo, hi, picks", [
    ("3", 5, 1, 1, [2]),
    ("1 4 5", 5, 0, 3, [0, 3, 4]),
    (" 2,1 ", 3, 2, 2, [1, 0]),
    ("", 4, 0, 1, []),
    ("  ", 4, 0, 2, []),
])
def test_parse_answer_accepts(text, count, lo, hi, picks):
    assert parse_answer(text, count, lo, hi) == picks


@pytest.mark.parametrize("text, count, lo, hi, sentence", [
    ("a", 5, 1, 1, '"a" is not an option number'),
    ("1 x", 5, 0, 2, '"x" is not an option number'),
    ("-1", 5, 1, 1, "is not an option number"),
    ("1.5", 5, 1, 1, "is not an option number"),
    ("²", 5, 1, 1, "is not an option number"),
    ("0", 5, 1, 1, "There is no option 0: the options go from 1 to 5."),
    ("6", 5, 1, 1, "There is no option 6"),
    ("2 2", 5, 0, 2, "You picked option 2 twice"),
    ("1 2", 5, 1, 1, "You picked 2, but you must pick 1 option."),
    ("1", 5, 2, 2, "You picked 1, but you must pick exactly 2 options."),
    ("", 5, 1, 1, "You must pick 1 option."),
    ("1 2 3", 5, 0, 2, "at most 2 options"),
    ("1", 5, 2, 3, "between 2 and 3 options"),
])
def test_parse_answer_explains(text, count, lo, hi, sentence):
    with pytest.raises(BadAnswer) as exc:
        parse_answer(text, count, lo, hi)
    assert sentence in str(exc.value)
    assert str(exc.value).endswith(".")


# ------------------------------------------------------------ through the real entry point

@pytest.mark.parametrize("args", [[], ["--players", "2", "--expansion"],
                                  ["--players", "3", "--setup-variant"]])
def test_auto_plays_a_whole_game(args):
    proc = governor("--auto", "--seed", "11", *args)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert out.startswith("Seed 11: replay this deal with --seed 11.")
    table = out[out.rindex("\nbuildings "):]
    assert "\ntotal " in table and "\ntie-break " in table
    assert re.search(r"\nWinners?[^:]*: [^\n]+, after \d+ rounds?\.\n$", out)
    # The bot answered through the same input path as a person, every time.
    assert out.count(PROMPT_END) == out.count("\n> ")


def test_same_seed_same_game():
    assert governor("--auto", "--seed", "4").stdout == governor("--auto", "--seed", "4").stdout


def test_bad_input_gets_a_sentence_and_the_game_goes_on():
    seed = role_seed()
    proc = governor("--seed", seed, stdin="abc\n99\n0\n1 1\n1 2\n\n?\n1\n")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    out = proc.stdout
    for sentence in ['"abc" is not an option number', "There is no option 99", "There is no option 0",
                     "You picked option 1 twice", "You picked 2, but you must pick 1 option.",
                     "You must pick 1 option.", "Builder: Everyone may build"]:
        assert sentence in out
    # `1` was accepted: the game asked its next question, then stdin ran out.
    assert out.count(PROMPT_END) >= 2
    assert "Input closed: the game is abandoned." in out


def test_ctrl_d_exits_cleanly():
    proc = governor("--seed", "1", stdin="")
    assert proc.returncode == 0
    assert "Input closed" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_quit_asks_first():
    proc = governor("--seed", "1", stdin="q\nn\nquit\ny\n")
    assert proc.returncode == 0
    assert proc.stdout.count("Quit this game? [y/N]") == 2
    assert "You left the game." in proc.stdout


@pytest.mark.parametrize("args, sentence", [
    (["--players", "1"], "2 to 4 players"),
    (["--name", ""], "1 to 20 printable characters"),
    (["--seed", ""], "1 to 200 printable characters"),
])
def test_bad_flags_exit_2(args, sentence):
    proc = governor(*args)
    assert proc.returncode == 2
    assert sentence in proc.stderr and "Traceback" not in proc.stderr


# ------------------------------------------------------------ in-process paths

def test_ctrl_c_exits_130(monkeypatch, capsys):
    def interrupt(prompt=""):
        raise KeyboardInterrupt
    monkeypatch.setattr("builtins.input", interrupt)
    assert main(["play", "--seed", "1"]) == 130
    assert "Interrupted" in capsys.readouterr().err


def test_engine_refusal_is_printed_as_its_message(monkeypatch, capsys):
    real_apply = LocalGame.apply
    refused = []

    def apply(self, seat, action):
        if seat == 0 and not refused:
            refused.append(action)
            raise IllegalAction("test", "The engine says no.")
        return real_apply(self, seat, action)

    monkeypatch.setattr(local.LocalGame, "apply", apply)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n"))
    assert main(["play", "--seed", role_seed(), "--name", "Ana"]) == 0
    out = capsys.readouterr().out
    assert "The engine says no." in out and refused
    assert out.count(PROMPT_END) >= 2
