"""`governor play` and the terminal seat: the answer parser, bad input, quitting, interrupting,
what the screen says about rejects and the connection, and a whole Puerto Rico game typed at the
keyboard. (More whole games: test_network.py.)"""
import asyncio
import io
import os
import re
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest

from client.answers import BadAnswer, parse_answer
from client.interrupt import run_interruptibly
from client.link import Pace
from client.terminal import Terminal

ROOT = Path(__file__).resolve().parents[2]
PROMPT_END = "(? for help, q to quit)"


def governor(tmp_path, *args, stdin=""):
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "client", "play", "--port", "0", "--data-dir", str(tmp_path),
                           *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60, env=env)


# ------------------------------------------------------------ the parser, as a pure function

@pytest.mark.parametrize("text, count, lo, hi, picks", [
    ("3", 5, 1, 1, [2]),
    ("1 4 5", 5, 0, 3, [0, 3, 4]),
    (" 2,1 ", 3, 2, 2, [1, 0]),
    ("0", 4, 0, 1, []),
    (" none ", 4, 0, 2, []),
])
def test_parse_answer_accepts(text, count, lo, hi, picks):
    assert parse_answer(text, count, lo, hi) == picks


@pytest.mark.parametrize("text, count, lo, hi, sentence", [
    ("a", 5, 1, 1, '"a" is not an option number'),
    ("1 x", 5, 0, 2, '"x" is not an option number'),
    ("-1", 5, 1, 1, "is not an option number"),
    ("1.5", 5, 1, 1, "is not an option number"),
    ("²", 5, 1, 1, "is not an option number"),
    ("0 1", 5, 1, 2, "There is no option 0: the options go from 1 to 5."),
    ("0", 5, 1, 1, "You must pick 1 option."),
    ("", 5, 0, 2, "An empty line is no answer: type 0 or none to pick nothing"),
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

def test_bad_input_gets_a_sentence_and_the_question_again(tmp_path):
    proc = governor(tmp_path, "--players", "2", stdin="abc\n99\n0 1\n1 1\n?\n")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    out = proc.stdout
    for sentence in ['"abc" is not an option number', "There is no option 99", "There is no option 0",
                     "You picked option 1 twice", "Answer with option numbers separated by spaces"]:
        assert sentence in out
    assert out.count(PROMPT_END) == 1          # nothing was accepted: the same question throughout
    assert "Input closed. The game is saved:" in out and "offers to resume it." in out
    assert len(list((tmp_path / "sessions").glob("*.json"))) == 1   # the seat, to resume


def test_quit_asks_first(tmp_path):
    proc = governor(tmp_path, stdin="q\nn\nquit\ny\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Leave this game? [y/N]") == 2
    assert proc.stdout.count("If you leave, the game is saved:") == 2
    assert "You left the game. The game is saved:" in proc.stdout


@pytest.mark.parametrize("args, sentence", [
    (["--players", "1"], "2 to 4 players"),
    (["--name", ""], "1 to 20 printable characters"),
    (["--players", "2", "--bots", "2"], "leave no seat for you"),
    (["--bots", "7"], "7 computer players leave no seat for you at a table of 4"),
    (["--bots", "many"], "San Juan has no computer player of level 'many'; there is: random, heuristic, ismcts."),
    (["--bots", "9!"], "--bots is a number of computer players or their levels"),
    (["--game", "puertorico", "--level", "genius"], "Puerto Rico has no computer player of level 'genius'"),
    (["--game", "sanjuan", "--players", "5"], "San Juan is for 2 to 4 players, not 5"),
])
def test_bad_flags_exit_2(tmp_path, args, sentence):
    proc = governor(tmp_path, *args)
    assert proc.returncode == 2
    assert sentence in proc.stderr and "Traceback" not in proc.stderr


def test_ctrl_c_exits_130_and_stops_the_server(tmp_path):
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "client", "play", "--port", "0", "--data-dir", str(tmp_path)],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    seen = ""
    while PROMPT_END not in seen:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        seen += line
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Interrupted" in err and "Traceback" not in err


def test_a_ctrl_c_is_not_lost_when_the_command_returns_anyway():
    """The coroutine may absorb the cancellation a Ctrl-C becomes (or have chosen to return as it
    came, when stdin closed at the same moment): the command is interrupted all the same."""
    async def absorbs():
        os.kill(os.getpid(), signal.SIGINT)
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass
        return 0
    with pytest.raises(KeyboardInterrupt):
        run_interruptibly(absorbs())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    async def returns():
        return 7
    assert run_interruptibly(returns()) == 7


def test_the_deal_cannot_be_chosen():
    """--seed is kept (hidden) only to seed --auto's answers: it is not a play option any more."""
    from client.cli import parser
    text = parser().parse_args(["play"])
    assert text.seed is None
    help_text = subprocess.run([sys.executable, "-m", "client", "play", "--help"], cwd=ROOT,
                               capture_output=True, text=True).stdout
    assert "--seed" not in help_text and "fair" in help_text


# ------------------------------------------------------------ the terminal seat, without a server

class FakeTable:
    def __init__(self, view=None):
        self.view = view
        self.turn_time = None
        self.seats = []
        self.exchange = object()
        self.prompt = (view or {}).get("prompt")
        self.dealing = "open"

    def names(self):
        return [p["name"] for p in self.view["players"]] if self.view else []


def test_the_screen_shows_rejects_errors_and_the_connection():
    out = io.StringIO()
    t = Terminal("ws://h:1", out=out)
    t.connection("connected", "fp")
    t.update(FakeTable(), [("reject", ("illegal", "The engine says no.")),
                           ("reject", ("stale", "Too late.")),
                           ("error", ("busy", "The table is busy.")),
                           ("status", [{"name": "Ana", "bot": None, "connected": True},
                                       {"name": "Bot 2", "bot": "heuristic", "connected": True},
                                       {"name": "Cy", "bot": None, "connected": False, "standin": True},
                                       {"name": None, "bot": None, "connected": False}])])
    t.connection("reconnecting", "connection dropped")
    t.connection("connected", "fp")
    text = out.getvalue()
    assert "The engine says no." in text
    assert "Too late. (the game moved on: here is the question again)" in text
    assert "[server: The table is busy.]" in text
    assert "Ana: connected; Bot 2: computer; Cy: away, a computer plays for them; free seat" in text
    assert "[connection lost: connection dropped; reconnecting…]" in text
    assert "[connected to ws://h:1 again]" in text
    assert t.header().startswith("[connected to ws://h:1 · Seats — Ana: connected")


def test_the_screen_tells_of_the_clock_and_of_a_question_that_ran_out():
    out = io.StringIO()
    t = Terminal("ws://h:1", out=out)
    table = FakeTable({"game": "sanjuan", "seat": 1, "options": {}, "players": [{"name": "Ana"}, {"name": "Bo"}]})
    table.turn_time, table.seats = 300.0, [{"name": "Ana", "bot": None, "connected": True},
                                           {"name": "Bo", "bot": None, "connected": True, "out_of_time": True}]
    t.update(table, [("status", table.seats)])
    t.update(table, [("status", table.seats)])
    t.stop_deciding(table)
    table.seats[1]["out_of_time"] = False
    t.stop_deciding(table)
    text = out.getvalue()
    assert text.count("[This server gives 5 minutes per decision; when it runs out, a computer answers "
                      "that question for you.]") == 1
    assert "Bo (you): out of time, a computer answers this question for them" in text
    assert "(Your time for that question ran out: a computer answered it for you.)" in text
    assert "(That question has gone: the game moved on.)" in text


def test_the_pace_keeps_under_the_servers_rate(monkeypatch):
    """5 at once, then 10 at 32 a second, on a clock the test keeps: the bucket reads it, and the
    pace's sleeps move it on by exactly what they ask for (a 32nd of a second is exact in binary,
    so the bucket's sums are too)."""
    from protocol import bucket
    now = 0.0
    sent = []       # the clock's time as each message is let through

    async def sleep(seconds: float) -> None:
        nonlocal now
        now += seconds
    monkeypatch.setattr(bucket, "time", types.SimpleNamespace(monotonic=lambda: now))
    monkeypatch.setattr(asyncio, "sleep", sleep)

    async def burst():
        pace = Pace(rate=32, burst=5)
        for _ in range(15):
            await pace.take()
            sent.append(now)
    asyncio.run(burst())
    assert sent == [0.0] * 5 + [i / 32 for i in range(1, 11)]


def test_the_lan_server_of_governor_play_has_no_clock(tmp_path):
    from argparse import Namespace

    from client.play import _start_server
    from games import sanjuan

    async def start():
        args = Namespace(host="127.0.0.1", port=0, name="Ana", engine=sanjuan)
        server, port = await _start_server(str(tmp_path), args)
        try:
            return server.limits.turn_time, port
        finally:
            await server.stop()
    turn_time, port = asyncio.run(start())
    assert turn_time == 0 and port > 0


# ------------------------------------------------------------ a whole game, played by a person

def first_option(lines: list[str]) -> int:
    """The number of the first option of the question printed last (the lines just above its
    instruction line): 1, or a count where the options are counts."""
    numbers = []
    for line in reversed(lines[:-1]):
        m = re.match(r"\s+(\d+)\. ", line)
        if m:
            numbers.append(int(m.group(1)))
        elif numbers or not re.match(r"\s+b\. Back", line):
            break
    return min(numbers, default=0)      # no options: 0 goes on


def play_every_question(proc, asides=()) -> tuple[str, int]:
    """Play a `governor play` process as a person at the keyboard: read the screen up to each
    question and answer it with its first option(s), as many as the question asks for. At the
    first question, type the `asides` first (help requests, say). Returns all it printed and the
    number of questions answered."""
    out, asked = [], 0
    for line in proc.stdout:
        out.append(line)
        if PROMPT_END not in line:
            continue
        if asked == 0:
            for aside in asides:
                proc.stdin.write(aside + "\n")
        need = re.search(r"Type (\d+) different numbers", line)   # else one number, or none
        first = first_option(out)
        proc.stdin.write(" ".join(str(i) for i in range(first, first + int(need.group(1)))) if need else str(first))
        proc.stdin.write("\n")
        proc.stdin.flush()
        asked += 1
    proc.wait(timeout=60)
    return "".join(out), asked


def test_a_person_plays_a_whole_four_player_puerto_rico_game(tmp_path):
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "client", "play", "--game", "puertorico", "--players", "4",
                             "--port", "0", "--data-dir", str(tmp_path)], cwd=ROOT, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, asked = play_every_question(proc, asides=["? small market", "? zeppelin", "?"])
    assert proc.returncode == 0, out[-2000:]
    assert "Traceback" not in out
    # Every question was asked on a board with the roles and the building supply.
    assert out.count(PROMPT_END) == asked > 20
    assert out.count("Roles left") >= asked and out.count("← your price") >= asked
    # `? name` explained a building, an unknown name got a sentence, plain `?` the options.
    assert "Small market: violet building, column 1. Cost 1" in out
    assert 'Nothing here is called "zeppelin".' in out
    assert "Answer with option numbers separated by spaces" in out
    # The end: the board, the score table with a winner, and the match audited by this client.
    table = out[out.rindex("\ntotal "):]
    assert re.search(r"Winners?[^:]*: [^\n]+, after \d+ rounds?\.", table)
    assert "VERIFIED: the deal and the scores are honest." in table
    assert len(list((tmp_path / "records").glob("*.govrec"))) == 1
