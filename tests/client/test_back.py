"""Going back, as a person does it: `b` (or `back`) typed in plain mode, `b` or Backspace in full
screen, at a real San Juan payment (the engine's own view and prompt); where the question offers
no back, a sentence and the question stays. The engine then asks for the building again."""
import asyncio
import io
import types

import pytest

from client.fullscreen.app import TableApp
from client.fullscreen.bridge import ScreenPlayer
from client.render import renderer_for
from client.terminal import Keyboard, Terminal
from games import sanjuan
from games.choice import BACK
from tests.games.sanjuan.test_back import bo_builds

from .screens import pane_text, screen_text

SMALL = (80, 24)
NOTHING_TO_GO_BACK_TO = "There is nothing to go back to in this question"


def at_payment():
    """Bo has chosen a palace, a chapel for his crane to cover and one good for the black market:
    he is asked which card pays."""
    s, rng = bo_builds()
    palace = s.players[1].hand[0]
    indigo, _, _, _, chapel = s.players[1].city
    for answer in ([palace], [chapel], [indigo]):
        sanjuan.apply(s, 1, answer, rng)
    assert sanjuan.prompt(s, 1)["kind"] == "pay"
    return s, rng


def table(s) -> types.SimpleNamespace:
    return types.SimpleNamespace(view=sanjuan.view(s, 1), deadline=None)   # no clock runs


# ------------------------------------------------------------------ plain mode

@pytest.mark.parametrize("word", ["b", "back", "B"])
async def test_plain_b_goes_back_and_the_building_is_asked_again(word):
    s, rng = at_payment()
    out = io.StringIO()
    t = Terminal("ws://x", Keyboard(io.StringIO(f"{word}\n")), out=out)
    action = await t.decide(table(s))
    assert action == [BACK]
    assert "   b. Back: choose the building again\n" in out.getvalue()
    sanjuan.apply(s, 1, action, rng)
    assert sanjuan.prompt(s, 1)["kind"] == "build"


async def test_plain_b_where_nothing_is_to_go_back_to_gets_a_sentence_and_the_question_stays():
    s, rng = bo_builds()
    out = io.StringIO()
    t = Terminal("ws://x", Keyboard(io.StringIO("b\nback\n1\n")), out=out)
    palace = s.players[1].hand[0]
    assert await t.decide(table(s)) == [palace]
    screen = out.getvalue()
    assert screen.count(NOTHING_TO_GO_BACK_TO) == 2 and "b. Back" not in screen


async def test_plain_help_says_where_back_goes():
    s, _ = at_payment()
    out = io.StringIO()
    t = Terminal("ws://x", Keyboard(io.StringIO("?\nb\n")), out=out)
    await t.decide(table(s))
    assert "`b` or `back` goes back: choose the building again." in out.getvalue()


# ------------------------------------------------------------------ full screen

async def decided_on_screen(s, keys: tuple[str, ...]):
    """The full-screen seat (bridge and app) asked the view of `s`, and `keys` pressed: what it
    decided, and the screen before the keys and after."""
    app = TableApp(lambda app: asyncio.Event().wait())
    async with app.run_test(size=SMALL) as pilot:
        player = ScreenPlayer(app, "ws://x")
        v = sanjuan.view(s, 1)
        app.show_view(v, renderer_for(v, True), "", None)
        deciding = asyncio.ensure_future(player.decide(types.SimpleNamespace(view=v, deadline=None)))
        while app.question is None:
            await pilot.pause()
        before = screen_text(app)
        await pilot.press(*keys)
        await pilot.pause()
        after = pane_text(app, "#question-box")     # the question and its note, read on their own
        done = deciding.done()
        decided = deciding.result() if done else None
        deciding.cancel()
    return decided, before, after


@pytest.mark.parametrize("key", ["b", "backspace"])
async def test_full_screen_b_or_backspace_goes_back(key):
    s, rng = at_payment()
    decided, before, _ = await decided_on_screen(s, (key,))
    keys = before.splitlines()[-1].strip()
    assert keys == "↑↓/number, Space: mark 2 · Enter: send · b: back · ? explain · q leave"
    assert decided == [BACK]
    sanjuan.apply(s, 1, decided, rng)
    assert sanjuan.prompt(s, 1)["kind"] == "build"


async def test_full_screen_b_where_nothing_is_to_go_back_to_says_so_and_keeps_the_question():
    s, _ = bo_builds()
    decided, before, after = await decided_on_screen(s, ("b",))
    assert decided is None and "b: back" not in before
    assert NOTHING_TO_GO_BACK_TO in " ".join(after.split())
