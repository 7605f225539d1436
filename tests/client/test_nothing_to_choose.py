"""A question with nothing to choose (San Juan's builder who can afford nothing is asked all the
same, so that skipping them would not tell the others what their hand holds): both screens say
it as the statement it is, and Enter goes on; no numbered option pretends to be a choice."""
import asyncio

from games import sanjuan
from client.answers import parse_answer
from client.fullscreen.app import Ask, TableApp
from client.render import Renderer
from tests.conformance.test_engine import random_game

from .screens import screen_text


def afford_nothing() -> dict:
    """A seat's view of a real game at a builder question with no building it can afford."""
    found = []

    def look(s, _n):
        for seat in sanjuan.to_act(s):
            v = sanjuan.view(s, seat)
            if not found and v["prompt"]["kind"] == "build" and not v["prompt"]["options"]:
                found.append(v)
    for seed in range(20):
        random_game(sanjuan, 4, sanjuan.INFO.check_options({}), f"afford/{seed}", check=look)
        if found:
            return found[0]
    raise AssertionError("no random game asked a builder who could afford nothing")


def test_plain_mode_states_it_and_an_empty_line_goes_on():
    v = afford_nothing()
    shown = Renderer("sanjuan", v["options"]).prompt(v)
    assert "you can afford no building now, so you build nothing" in shown
    assert "Nothing to choose: press Enter to go on." in shown
    assert " 0." not in shown and " 1." not in shown
    p = v["prompt"]
    assert parse_answer("", len(p["options"]), p["min"], p["max"]) == []


async def test_full_screen_states_it_and_enter_goes_on():
    v = afford_nothing()

    async def idle(app):
        await asyncio.Event().wait()
    app = TableApp(idle, settle=0)       # the Enter below comes at once: no question is new here
    async with app.run_test(size=(100, 30)) as pilot:
        answer = asyncio.get_running_loop().create_future()
        app.post_message(Ask(v, answer))
        await pilot.pause()
        text = screen_text(app)
        words = " ".join(text.replace("│", " ").split())     # the question pane wraps its text
        assert "you can afford no building now, so you build nothing" in words
        assert "Enter: go on" in text and "Continue" not in text and " 0. " not in text
        assert app.question.entries == []
        await pilot.press("enter")
        assert answer.result() == []
