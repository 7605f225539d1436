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
    assert '(Ignored "2", "q": typed before this question appeared.)' in capsys.readouterr().out
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


# ------------------------------------------------------------------ counts

# "How many colonists on your corn plantations? 0–2": options that are counts (games/contract.py).
HOW_MANY = {"kind": "place", "text": "How many?", "options": [0, 1, 2], "min": 1, "max": 1,
            "labels": ["0 colonists", "1 colonist", "2 colonists"], "help": ["", "", ""], "back": "",
            "counts": True}


def test_a_count_typed_is_that_count():
    from client.render import first_number
    first = first_number(HOW_MANY)
    assert first == 0 and first_number({**HOW_MANY, "counts": False}) == 1
    assert [parse_answer(n, 3, 1, 1, first) for n in ("0", "1", "2", "02")] == [[0], [1], [2], [2]]
    with pytest.raises(BadAnswer, match=r"There is no option 3: the options go from 0 to 2\."):
        parse_answer("3", 3, 1, 1, first)
    with pytest.raises(BadAnswer, match="You must pick 1 option"):     # the words for nothing are no count
        parse_answer("none", 3, 1, 1, first)
    assert parse_answer("3", 3, 1, 1, 1) == [2]                          # not counts: from 1, as always
    late = {**HOW_MANY, "options": [2, 3, 4]}                          # counts need not start at 0
    assert parse_answer("3", 3, 1, 1, first_number(late)) == [1]


def test_the_full_screen_numbers_counts_by_their_count():
    from client.fullscreen.question import Question
    q = Question(HOW_MANY)
    assert [q.entry_text(k) for k in range(len(q.entries))] == [
        "  0. 0 colonists", "  1. 1 colonist", "  2. 2 colonists"]       # no "none" entry: 0 is a count
    q.digit("0")
    assert q.answer() == [0]
    q.digit("2")
    assert q.answer() == [2]


def test_the_plain_screen_numbers_counts_by_their_count_and_says_so():
    from client.render import Renderer
    r = Renderer("puertorico", {})
    shown = r.prompt({"prompt": HOW_MANY})
    assert "   0. 0 colonists" in shown and "   2. 2 colonists" in shown and "   3." not in shown
    assert "Each option's number is the count it stands for" in r.help({"prompt": HOW_MANY})


def test_auto_answers_type_the_count():
    from client.terminal import AutoAnswers
    bot = types.SimpleNamespace(choose=lambda view: [2])
    assert asyncio.run(AutoAnswers(bot).answer({"prompt": HOW_MANY})) == "2"
    assert asyncio.run(AutoAnswers(bot).answer({"prompt": {**HOW_MANY, "counts": False}})) == "3"


# ------------------------------------------------------------------ a number that is no option

def test_a_number_that_is_no_option_highlights_nothing_and_says_what_the_plain_mode_says():
    from client.fullscreen.question import Question
    q = Question({"kind": "k", "text": "T", "options": ["a", "b", "c"], "min": 0, "max": 2,
                  "labels": ["A", "B", "C"], "help": ["", "", ""]})
    q.digit("2")
    q.toggle()                                     # B marked
    q.digit("7")
    with pytest.raises(BadAnswer) as plain:
        parse_answer("7", 3, 0, 2)
    assert q.refused == str(plain.value) == "There is no option 7: the options go from 1 to 3."
    assert q.highlighted() is None and q.help_line() == q.refused
    q.toggle()                                     # Space marks nothing while nothing is highlighted
    assert q.marked == [1]
    for _ in range(2):                             # Enter sends nothing, however often
        with pytest.raises(BadAnswer, match="There is no option 7"):
            q.answer()
    q.digit("3")                                   # a valid pick again
    assert q.highlighted() == 2 and not q.refused and q.answer() == [1]    # the marked one
    single = Question({"kind": "k", "text": "T", "options": ["a", "b"], "min": 1, "max": 1,
                       "labels": ["A", "B"], "help": ["", ""]})
    single.digit("0")                              # no "none" entry here: 0 is what plain mode says of it
    assert single.refused == "You must pick 1 option." and single.highlighted() is None
    single.move(1)                                 # the arrows pick again
    assert not single.refused and single.answer() == [1]


# ------------------------------------------------------------------ a question just shown

def test_a_question_takes_keys_only_once_it_has_settled():
    from client.answers import QUESTION_SETTLE, settled
    from client.fullscreen.question import Question
    assert 0.3 < QUESTION_SETTLE <= 1.0          # longer than a double Enter, shorter than reading
    assert not settled(100.0, 100.1) and not settled(100.0, 100.0 + QUESTION_SETTLE - 0.01)
    assert settled(100.0, 100.0 + QUESTION_SETTLE) and settled(100.0, 100.0, settle=0)
    q = Question(HOW_MANY, shown_at=50.0)
    assert not q.settled(50.3) and q.settled(50.0 + QUESTION_SETTLE)
    assert Question(HOW_MANY, shown_at=50.0, settle=2.0).settled(51.9) is False


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


def _terminal(answers: str, **keyboard) -> tuple[Terminal, list]:
    import io
    said: list[str] = []
    t = Terminal("ws://x", Keyboard(io.StringIO(answers), **keyboard), out=io.StringIO())
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
    t.update(types.SimpleNamespace(view=None, prompt=None, exchange=None, dealing="open"), happened)
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
    async with asyncio.timeout(30):     # patience for the readers to end: one left behind never does
        while {t for t in threading.enumerate() if t.name in ("ask-once", "keyboard")} - readers:
            await asyncio.sleep(0.01)


# ------------------------------------------------------------------ a question just shown, in plain mode

@pytest.mark.parametrize("gap", [0.1, 0.3])
async def test_a_line_typed_just_after_an_answer_does_not_answer_the_next_question(gap):
    """On a real terminal (a pty): the question after ours comes at once (the bots answer at
    once), and a line typed `gap` seconds after our answer (an Enter pressed twice, a number
    meant for the question before) is dropped with a note naming it, and the question is asked
    again; a line typed once it has settled answers it."""
    import io
    import os
    import time
    from client.answers import QUESTION_SETTLE
    master, slave = os.openpty()
    stream = os.fdopen(slave, "r")
    try:
        keyboard = Keyboard(stream)
        assert keyboard.drop_typeahead                 # a terminal: a person types here
        t = Terminal("ws://x", keyboard, out=io.StringIO())
        t.screen = Screen()
        said: list[str] = []
        t.say = lambda text="", style=None: said.append(text)

        first = asyncio.ensure_future(t.decide(_trader(seat=1, chooser=0)))
        await asyncio.sleep(QUESTION_SETTLE + 0.1)     # read, then answer
        os.write(master, b"1\n")
        answered = time.monotonic()
        assert await first == [11]
        second = asyncio.ensure_future(t.decide(_trader(seat=1, chooser=0)))
        await asyncio.sleep(answered + gap - time.monotonic())
        os.write(master, b"1\n")                       # meant for the question before
        await asyncio.sleep(QUESTION_SETTLE + 0.1)
        assert not second.done()
        assert '(Ignored "1": this question had just appeared. Here it is again.)' in said
        assert said.count("QUESTION") == 1             # asked again
        os.write(master, b"2\n")
        assert await asyncio.wait_for(second, 10) == [12]
    finally:
        os.close(master)
        stream.close()


async def test_a_script_and_auto_answers_are_never_held_back(capsys):
    """The window is for a person's keys: lines from a pipe answer at once, and so does --auto.
    The keyboard's clock is stopped: every line comes the very instant its question appeared,
    the case a person's keys would be refused in."""
    import io
    from client.terminal import AutoAnswers
    t, said = _terminal("1\n2\n1\n", clock=lambda: 0.0)
    async with asyncio.timeout(30):     # patience: a script waiting for the window would never end
        assert [await t.decide(_trader(seat=1, chooser=0)) for _ in range(3)] == [[11], [12], [11]]
        bot = types.SimpleNamespace(choose=lambda view: [12])
        auto = Terminal("ws://x", Keyboard(Typed(), clock=lambda: 0.0), auto=AutoAnswers(bot), out=io.StringIO())
        auto.screen = Screen()
        assert [await auto.decide(_trader(seat=1, chooser=0)) for _ in range(3)] == [[12]] * 3
    assert not any("Ignored" in line for line in said)


@pytest.mark.parametrize("typed, colonists", [("0", 0), ("2", 2)])
async def test_the_plain_mayor_count_typed_is_the_count_placed(typed, colonists):
    from games import puertorico
    from tests.games.puertorico.scenario import make, play
    s, rng = make([{"island": {"corn": (2, 2), "quarry": (1, 1)}, "city": {"indigo_plant": 0, "harbor": 0},
                    "san_juan": 1}, {}, {}], colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    t, _ = _terminal(f"{typed}\n")
    assert await t.decide(types.SimpleNamespace(view=puertorico.view(s, 0), deadline=None)) == [colonists]
