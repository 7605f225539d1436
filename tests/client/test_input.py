"""Input a player can trust in the plain terminal: nothing typed before a question answers it (on
a terminal; a pipe's lines are a script's answers and are kept), picking nothing is said
plainly and confirmed in one's own phase, leaving says what it does, and no line crashes."""
import asyncio
import queue
import types

import pytest

from client.answers import BadAnswer, parse_answer
from client.terminal import Keyboard, Quit, Terminal, own_phase


class Typed:
    """A stand-in for stdin: readline blocks until the test types a line."""

    def __init__(self) -> None:
        self.lines: queue.Queue = queue.Queue()

    def type(self, line: str) -> None:
        self.lines.put(line)

    def readline(self) -> str:
        return self.lines.get()

    def isatty(self) -> bool:
        return True


async def _arrived(keyboard: Keyboard, count: int) -> None:
    """Until the keyboard's reader has queued `count` lines (it runs in a thread of its own)."""
    while keyboard.queue.qsize() < count:
        await asyncio.sleep(0)


async def test_lines_typed_before_a_question_do_not_answer_it_on_a_terminal(capsys):
    typed = Typed()
    keyboard = Keyboard(typed)                 # isatty(): type-ahead is dropped
    assert keyboard.drop_typeahead
    keyboard._start()
    typed.type("2\n")                          # pressed while "Waiting for Ana…"
    typed.type("q\n")
    await _arrived(keyboard, 2)
    answer = asyncio.ensure_future(keyboard.readline("> "))
    await asyncio.sleep(0)
    typed.type("1\n")                          # typed after the question appeared
    assert await answer == "1"
    assert "2 lines typed before this question appeared were ignored" in capsys.readouterr().out
    typed.type("")                             # the end of input is never dropped
    await _arrived(keyboard, 1)
    with pytest.raises(EOFError):
        await keyboard.readline()


async def test_a_pipe_keeps_its_lines_in_order():
    typed = Typed()
    keyboard = Keyboard(typed, drop_typeahead=False)     # what a pipe or a file gets
    keyboard._start()
    typed.type("2\n")
    typed.type("3\n")
    await _arrived(keyboard, 2)
    assert [await keyboard.readline(), await keyboard.readline()] == ["2", "3"]


def test_a_pipe_is_not_a_terminal():
    import io
    assert not Keyboard(io.StringIO("1\n")).drop_typeahead


# ------------------------------------------------------------------ the answers

@pytest.mark.parametrize("word", ["none", "PASS", "-", "0", " 0 "])
def test_picking_nothing_is_allowed_only_where_none_is(word):
    assert parse_answer(word, 3, 0, 2) == []
    assert parse_answer(word, 0, 0, 0) == []
    with pytest.raises(BadAnswer, match="You must pick 1 option"):
        parse_answer(word, 3, 1, 1)


@pytest.mark.parametrize("line", ["", "  ", " , "])
def test_an_empty_line_is_no_answer_where_there_is_a_choice(line):
    """One Enter too many never passes: it says how to pick nothing on purpose."""
    with pytest.raises(BadAnswer, match="An empty line is no answer: type 0 or none to pick nothing, or"):
        parse_answer(line, 3, 0, 2)
    with pytest.raises(BadAnswer, match="You must pick 1 option"):
        parse_answer(line, 3, 1, 1)


@pytest.mark.parametrize("line", ["", "  ", "0", "none"])
def test_enter_goes_on_where_nothing_can_be_chosen(line):
    """A statement the seat must see (San Juan's builder who can afford nothing): Enter goes on,
    as the instructions say; a number is still no option."""
    assert parse_answer(line, 0, 0, 0) == []
    with pytest.raises(BadAnswer, match="There are no options here"):
        parse_answer("1", 0, 0, 0)


def test_the_instructions_say_how_to_pick_nothing():
    from client.render import how_to_answer
    assert [how_to_answer(0, 0), how_to_answer(0, 1), how_to_answer(0, 2)] == [
        "Nothing to choose: press Enter to go on.", "Type a number, or 0 for none.",
        "Type up to 2 different numbers, or 0 for none."]
    assert parse_answer("0", 0, 0, 0) == [] and parse_answer("0", 2, 0, 1) == []


@pytest.mark.parametrize("text", ["9" * 5000, "1" + "0" * 4999, "0" * 4999 + "2 " + "7" * 300])
def test_a_huge_number_is_no_option_and_the_message_stays_short(text):
    with pytest.raises(BadAnswer) as e:
        parse_answer(text, 5, 1, 1)
    assert "There is no option" in str(e.value) and len(str(e.value)) < 100


def test_leading_zeros_still_name_an_option():
    assert parse_answer("0003", 5, 1, 1) == [2]


# ------------------------------------------------------------------ the questions

class Screen:
    """The few things Terminal.decide asks of a game's rendering."""

    def view(self, v):
        return "BOARD"

    def prompt(self, v):
        return "QUESTION"

    def paint(self, text, style):
        return text


def _trader(seat: int, chooser: int) -> types.SimpleNamespace:
    view = {"seat": seat, "role": "trader", "chooser": chooser, "to_act": [seat],
            "prompt": {"kind": "sell", "text": "Trader phase: sell up to 2 goods.", "options": [11, 12],
                       "min": 0, "max": 2, "labels": ["Indigo", "Sugar"], "help": ["", ""]}}
    return types.SimpleNamespace(view=view, deadline=None)


def _terminal(answers: str) -> tuple[Terminal, list]:
    import io
    said: list[str] = []
    t = Terminal("ws://x", Keyboard(io.StringIO(answers)), out=io.StringIO())
    t.screen = Screen()
    t.say = lambda text="", style=None: said.append(text)
    return t, said


@pytest.mark.parametrize("answers, picked", [("0\ny\n", []), ("pass\nn\n2\n", [12]), ("none\nyes\n", [])])
async def test_passing_in_ones_own_phase_is_confirmed(answers, picked, capsys):
    t, said = _terminal(answers)
    assert await t.decide(_trader(seat=1, chooser=1)) == picked
    assert "You chose the trader yourself: pick nothing? [y/N]" in capsys.readouterr().out


async def test_an_empty_line_asks_again_and_picks_nothing(capsys):
    t, said = _terminal("\n\n2\n")
    assert await t.decide(_trader(seat=1, chooser=0)) == [12]
    assert said.count("An empty line is no answer: type 0 or none to pick nothing, "
                      "or the numbers of your picks.") == 2
    assert "pick nothing?" not in capsys.readouterr().out


async def test_passing_in_anothers_phase_is_not_asked_about(capsys):
    t, _ = _terminal("none\n")
    assert await t.decide(_trader(seat=1, chooser=0)) == []
    assert "pick nothing?" not in capsys.readouterr().out
    assert not own_phase({"seat": 1, "role": None, "chooser": 1})


async def test_leaving_is_confirmed_and_says_what_happens(capsys):
    t, said = _terminal("q\nn\n1\nquit\nyes\n")
    t.leaving = "If you leave, the game is saved."
    assert await t.decide(_trader(seat=1, chooser=0)) == [11]     # "n": the question again
    assert said.count("If you leave, the game is saved.") == 1
    assert "You stay: here is the question again." in said
    with pytest.raises(Quit):
        await t.decide(_trader(seat=1, chooser=0))
    assert capsys.readouterr().out.count("Leave this game? [y/N]") == 2


async def test_a_one_line_question_leaves_the_rest_of_the_input_alone():
    import io
    from client.terminal import ask_once
    stream, out = io.StringIO("y\nlater\n"), io.StringIO()
    assert await ask_once("Resume it? [Y/n] ", stream, out) == "y"
    assert out.getvalue() == "Resume it? [Y/n] " and stream.readline() == "later\n"
    with pytest.raises(EOFError):
        await ask_once("Again? ", stream, out)


# ------------------------------------------------------------------ chat

async def test_a_bang_line_is_chat_and_never_an_answer(capsys):
    t, said = _terminal("! hi all\n!\n2\n")
    sent: list[str] = []
    t.bind_chat(lambda text: sent.append(text) or True)
    assert await t.decide(_trader(seat=1, chooser=0)) == [12]      # the `!` lines answered nothing
    assert sent == ["hi all"]
    assert any("type ! and your line" in s for s in said)           # a bare `!` says how
    t.bind_chat(None)                                                # no seat: still never an answer
    t2, said2 = _terminal("! hi\n1\n")
    assert await t2.decide(_trader(seat=1, chooser=0)) == [11]
    assert "Chat is not available here." in said2


async def test_chat_while_waiting_is_sent_and_not_kept_as_type_ahead():
    typed = Typed()
    keyboard = Keyboard(typed)
    sent: list[str] = []
    keyboard.on_chat = sent.append
    keyboard._start()
    typed.type("!  hello \n")                 # typed while waiting for another player
    while not sent:
        await asyncio.sleep(0)
    assert sent == ["hello"] and keyboard.queue.empty()


def test_incoming_chat_is_printed_without_control_characters():
    from client.table import Table
    table = Table("abc")
    table.feed({"type": "chat", "table": "abc", "seat": 1, "name": "Ana\x1b[31m", "text": "hi\x07 there\n"})
    table.feed({"type": "chat", "table": "other", "seat": 0, "name": "Zed", "text": "elsewhere"})
    happened = table.drain()
    assert happened == [("chat", {"seat": 1, "name": "Ana[31m", "text": "hi there"})]
    import io
    out = io.StringIO()
    t = Terminal("ws://x", out=out)
    t.update(types.SimpleNamespace(view=None, prompt=None, exchange=None), happened)
    assert out.getvalue() == "[chat] Ana[31m: hi there\n"


async def test_a_name_asked_before_the_full_screen_leaves_no_reader_behind(monkeypatch, capsys):
    """`join --table ID` (or --create) on a terminal without --name: the name is read line by line
    by readers that stop once answered, and a bad name is explained and asked again."""
    import io
    import threading
    from client.lobby import ask_name
    readers = {t for t in threading.enumerate() if t.name in ("ask-once", "keyboard")}    # other tests'
    monkeypatch.setattr("sys.stdin", io.StringIO("x" * 30 + "\nAna\n"))
    assert await ask_name(None) == "Ana"
    assert "A name is 1 to 20 printable characters (yours has 30): please type another." in capsys.readouterr().out
    await asyncio.sleep(0.05)
    assert not {t for t in threading.enumerate() if t.name in ("ask-once", "keyboard")} - readers
