"""Text snapshots of the full-screen table at key moments of both games, at 80×24 and 120×40:
the first question, a question in the middle of a game, `?` and a name explained, and the end
with its score table; and a Puerto Rico board at its tallest (4 and 5 players, late in a game)
on a 100×40 terminal, where the round, the roles and the question must stay in sight however
far the board is scrolled. Then what a decision needs on screen with it, at 80×24, 100×32 and
120×40: the whole hand (one's own lines in Puerto Rico), a log of a round, the building table
unbroken, the log wrapped again after a resize, `?` help that scrolls beside the options.

The views come from games played in-process by the heuristic players from fixed seeds (the
engines and the players are deterministic), so a screen is the same every run and a change to it
shows as a diff. After a change made on purpose: GOVERNOR_UPDATE_SNAPSHOTS=1 pytest this file,
and read the diff before committing it. (The live tests, test_fullscreen.py, play whole games on
a real server; these pin down what the screen looks like.)"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

import bots
import games
from client.fullscreen.app import TableApp
from client.render import renderer_for
from protocol.fairness import local_streams

from .screens import pane_text, screen_text
from .test_fullscreen import COMFY, SCROLLBAR, SMALL, asking, check_screen, fixed_view, next_change, open_question, plain

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("GOVERNOR_UPDATE_SNAPSHOTS") == "1"    # rewrite them instead of comparing
NAMES = ["Ana", "Bo", "Cy", "Di", "Ed"]
PR_TERMINAL = (100, 40)       # issue 10: a Puerto Rico game must fit it
LOG = ("[Every seat has committed; revealing our seed.]",
       "[All seeds revealed and checked against their commitments: play begins.]")


def played(game: str, players: int, seed: int, pick):
    """Play a game with heuristic players from a fixed seed; return the view, for the seat to
    act, that `pick(view, best)` prefers (it returns the view to keep), and the final view of
    seat 0."""
    engine = games.get(game)
    state = engine.setup(NAMES[:players], {}, local_streams(seed))
    players_ = [bots.make(game, "heuristic", seat) for seat in range(players)]
    kept = None
    while engine.to_act(state):
        seat = engine.to_act(state)[0]
        view = engine.view(state, seat)
        kept = pick(view, kept)
        engine.apply(state, seat, players_[seat].choose(view), local_streams(seed))
    return kept, engine.view(state, 0)


@functools.cache          # a whole game played for each: once per run is enough (nothing changes a view)
def mid_game(game: str) -> dict:
    """Ana's first question with three options or more from round 5 of a 3-player game."""
    def pick(view, kept):
        wanted = view["round"] >= 5 and view["seat"] == 0 and len(view["prompt"]["options"]) >= 3
        return kept or (view if wanted else None)
    return played(game, 3, 11, pick)[0]


@functools.cache
def end_of_game(game: str) -> dict:
    return played(game, 3, 11, lambda view, kept: None)[1]


@functools.cache
def tallest_board(players: int) -> dict:
    """The Puerto Rico view with the most lines of board in a game of `players`: the worst case
    a screen has to hold (big cities, every role with doubloons, the last round)."""
    def pick(view, kept):
        def height(v):
            return len(renderer_for(v, False).board(v).splitlines())
        return view if kept is None or height(view) >= height(kept) else kept
    return played("puertorico", players, 3, pick)[0]


def compare(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text + "\n")
    how = f"if on purpose, rewrite the snapshots: GOVERNOR_UPDATE_SNAPSHOTS=1 pytest {__file__}"
    assert path.exists(), f"no snapshot {path.name}; {how}"
    assert text + "\n" == path.read_text(), f"the screen {name} changed; {how}"


def size_name(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def head_of(view: dict) -> list[str]:
    """The board's first lines, the round and the roles, as the screen must show them."""
    return [line.strip() for line in plain(renderer_for(view, False).board(view)).splitlines()[:2]]


GAMES = ["sanjuan", "puertorico"]
SIZES = [SMALL, COMFY]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES, ids=size_name)
async def test_the_first_question(game, size):
    view = fixed_view(game)
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=size) as pilot:
        await open_question(app)
        await pilot.pause()
        text = check_screen(app, [head_of(view)[0], app.question.text[:40]])
        assert "commitments: play begins." in " ".join(pane_text(app, "#log").split())
    compare(f"{game}-first-question-{size_name(size)}", text)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES, ids=size_name)
async def test_a_question_in_the_middle_of_a_game(game, size):
    view = mid_game(game)
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=size) as pilot:
        await open_question(app)
        await pilot.pause()
        text = check_screen(app, [head_of(view)[0], app.question.text[:40]])
    compare(f"{game}-mid-game-{size_name(size)}", text)


@pytest.mark.parametrize("game, name, says", [("sanjuan", "chapel", "Chapel: city building"),
                                              ("puertorico", "small market", "Small market: violet building")])
@pytest.mark.parametrize("size", SIZES, ids=size_name)
async def test_a_name_explained(game, name, says, size):
    view = mid_game(game)
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=size) as pilot:
        await open_question(app)
        await pilot.press("question_mark", *name, "enter")
        await pilot.pause()
        text = check_screen(app, [says, app.question.text[:40]])
        assert app.sent == 0                    # asking answered nothing
    compare(f"{game}-explain-{size_name(size)}", text)


def ending(view: dict):
    """A job for TableApp: show the final view, and end with its score table (the audit's
    verdict under it comes from a real match: test_fullscreen.py plays them)."""
    async def job(app):
        renderer = renderer_for(view, True)
        app.set_connection("connected")
        app.show_view(view, renderer, "")
        return 0, renderer.result(view["result"], [p["name"] for p in view["players"]])
    return job


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES, ids=size_name)
async def test_the_end_of_a_game(game, size):
    view = end_of_game(game)
    assert view["over"] and view["result"]
    app = TableApp(ending(view), title="table t1 · seat 1, Ana")
    async with app.run_test(size=size) as pilot:
        while not app.over:
            await next_change(app)
        await pilot.pause()
        winner = view["players"][view["result"]["winners"][0]]["name"]
        text = check_screen(app, ["The match is over.", "total", winner])
    compare(f"{game}-end-{size_name(size)}", text)


@pytest.mark.parametrize("players", [4, 5])
async def test_a_tall_puerto_rico_board_keeps_round_roles_and_question_in_sight(players):
    view = tallest_board(players)
    board = plain(renderer_for(view, False).board(view)).splitlines()
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=PR_TERMINAL) as pilot:
        await open_question(app)
        await pilot.pause()
        first = screen_text(app)
        assert len(board) > PR_TERMINAL[1] - 20         # a board that does not fit beside the rest
        # However far the board is scrolled, the round, the roles and the question stay.
        for _ in range(4):
            check_screen(app, [*head_of(view), "Supply", "Ships", app.question.text[:40]])
            await pilot.press("pagedown")
            await pilot.pause()
        text = check_screen(app, [*head_of(view), "Supply", "Ships", app.question.text[:40]])
        assert board[-1].strip()[:60] in text          # the board's last line was reached
    compare(f"puertorico-{players}p-tallest-{size_name(PR_TERMINAL)}", first)


# ------------------------------------------------------------ what a decision needs on screen

SIZES_SEEN = [SMALL, (100, 32), COMFY]


@functools.cache
def late(game: str) -> dict:
    """Ana's question (three options or more) from a 4-player game with the most of her own on
    the board: her biggest hand in San Juan, her tallest lines (money, goods, island, city) in
    Puerto Rico."""
    def own(view):
        if game == "sanjuan":
            return len(view["you"]["hand"])
        return len(renderer_for(view, False).board_parts(view, 40)[2].splitlines())

    def pick(view, kept):
        if view["seat"] != 0 or len(view["prompt"]["options"]) < 3:
            return kept
        return view if kept is None or own(view) >= own(kept) else kept
    return played(game, 4, 5, pick)[0]


def rows_of(text: str) -> list[str]:
    """The rows that hold something, without scroll bars, spaces collapsed."""
    return [" ".join(row.translate(SCROLLBAR).split()) for row in text.splitlines() if row.strip()]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES_SEEN, ids=size_name)
async def test_the_whole_hand_and_the_options_are_on_screen_with_the_question(game, size):
    view = late(game)
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=size) as pilot:
        await open_question(app)
        await pilot.pause()
        side = app.side_width(size[0])
        mine = plain(app.renderer.board_parts(view, side - 3)[2])
        assert len(mine.splitlines()) >= 8         # a hand worth seeing whole
        shown, mine = rows_of(pane_text(app, "#mine")), rows_of(mine)
        under, shown = shown[-1].strip("─ "), shown[:-1]          # the line under them, and what it says
        if under:                                   # they cannot all be seen: those that fit, a count of the rest
            assert game == "puertorico" and size == SMALL      # (the only screen too small for it here)
            assert under == f"{len(mine) - len(shown)} more lines below: Tab, then ↓"
            assert len(shown) >= 10
        assert mine[:len(shown)] == shown, "\n".join(shown)
        question = pane_text(app, "#question-box")
        assert app.question.text[:30] in " ".join(rows_of(question))
        for label in app.question.labels:
            assert " ".join(label.split())[:30] in question
        if game == "sanjuan":
            assert f"Your hand ({len(view['you']['hand'])} cards" in shown[0]


async def test_a_hand_too_tall_for_the_screen_says_its_count_and_how_to_see_the_rest():
    view = late("sanjuan")
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=(80, 14)) as pilot:
        await open_question(app)
        await pilot.pause()
        shown = pane_text(app, "#mine")
        assert f"Your hand ({len(view['you']['hand'])} cards" in shown
        assert "more lines below: Tab, then ↓" in shown
        await pilot.press("tab", "tab")             # the board, then the hand
        assert app.focused.id == "mine"
        assert "your own things" in screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("game", GAMES)
async def test_the_log_shows_at_least_eight_lines_at_100x32(game):
    lines = tuple(f"[event {n:02d}]" for n in range(30))
    app = TableApp(asking(late(game), log=lines), title="table t1 · seat 1, Ana")
    async with app.run_test(size=(100, 32)) as pilot:
        await open_question(app)
        await pilot.pause()
        shown = [line for line in lines if line in pane_text(app, "#log")]
        assert len(shown) >= 8 and shown[-1] == lines[-1], shown    # the newest, and the 7 before


async def test_who_the_table_waits_for_is_one_line_that_changes():
    view = late("sanjuan")
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=SMALL) as pilot:
        await open_question(app)
        renderer = app.renderer
        for name in ("Bo", "Cy", "Di"):
            app.show_view(view, renderer, f"Waiting for {name}…")
        await pilot.pause()
        side = pane_text(app, "#side")
        assert "Waiting for Di…" in side and "Waiting for Bo" not in side and "Waiting for Cy" not in side
        assert not [line for line in app.logged if "Waiting" in line.plain]


def test_the_screen_s_terminal_logs_no_waiting_lines():
    import io
    import types
    from client.fullscreen.bridge import LogTerminal
    from client.terminal import Terminal
    view = dict(late("sanjuan"), prompt=None, to_act=[1])
    said = {}
    for kind in (Terminal, LogTerminal):
        out = io.StringIO()
        term = kind("ws://x", out=out)
        term.update(types.SimpleNamespace(view=view, prompt=None, exchange=True, deadline=None, turn_time=0, dealing="open"), [])
        said[kind] = out.getvalue()
    assert "Waiting for Bo" in said[Terminal]           # the plain mode says it in a line ...
    assert said[LogTerminal] == ""                      # ... the full screen on a line of its own


@pytest.mark.parametrize("size", [(100, 40), SMALL], ids=size_name)
async def test_puerto_rico_s_building_table_and_cities_are_never_broken_across_rows(size):
    view = tallest_board(5)
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=size) as pilot:
        await open_question(app)
        await pilot.pause()
        board = app.query_one("#board")
        width = board.scrollable_content_region.width
        head, rest, _ = (plain(part).splitlines() for part in app.renderer.board_parts(view, width))
        assert max(map(len, head + rest)) <= width          # drawn for the pane: nothing to wrap
        table = [line for line in rest if "│" in line]
        assert len(table) == (6 if size == (100, 40) else 12)   # the board's 4 columns, or 2 by 2
        assert all(line.count("│") == (3 if size == (100, 40) else 1) for line in table)
        seen = set()
        while True:                                         # every row of the board, scrolled through
            seen |= {row.translate(SCROLLBAR).strip() for row in pane_text(app, "#board").splitlines()}
            if board.scroll_y >= board.max_scroll_y:
                break
            await pilot.press("pagedown")
            await pilot.pause()
        for line in table + [line for line in rest if "city" in line]:
            assert line.strip() in seen, line               # a whole row of the table, or of a city


async def test_the_log_is_wrapped_again_after_a_resize():
    line = " ".join(f"word{n}" for n in range(30))          # far longer than the log is wide
    app = TableApp(asking(mid_game("puertorico"), log=(line,)), title="table t1 · seat 1, Ana")
    async with app.run_test(size=COMFY) as pilot:
        await open_question(app)
        await pilot.pause()
        for size in ((90, 40), (140, 40), (100, 32)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            log = app.query_one("#log")
            rows = pane_text(app, "#log").splitlines()
            assert " ".join(" ".join(rows).split()) == line       # every word, none cut off
            widest = max(len(row.strip()) for row in rows)
            assert log.scrollable_content_region.width - 12 < widest <= log.scrollable_content_region.width


@pytest.mark.parametrize("game", GAMES)
async def test_help_tells_the_keys_scrolls_and_leaves_the_options_in_sight(game):
    view = mid_game(game)
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=SMALL) as pilot:
        await open_question(app)
        await pilot.press("question_mark", "enter")
        await pilot.pause()
        assert "Keys" in pane_text(app, "#help")
        question = pane_text(app, "#question-box")
        assert all(" ".join(label.split())[:30] in question for label in app.question.labels)
        shown, pane = "", app.query_one("#help")
        while True:                                                 # read it to its end with PgDn
            shown += pane_text(app, "#help")
            if pane.scroll_y >= pane.max_scroll_y:
                break
            await pilot.press("pagedown")
            await pilot.pause()
            assert pane_text(app, "#question-box") == question      # the options stay as they were
        assert pane.scroll_y > 0 and "Keys" not in pane_text(app, "#help")     # it scrolled
        for key in ("Space", "Enter", "Tab", "b, Backspace", "1 … 9, 0", "PgUp, PgDn", "Esc", "q "):
            assert key in shown
        assert " ".join(app.question.labels[-1].split())[:30] in shown      # and the options' help
        await pilot.press("down")                                    # the arrows still move the options
        assert app.question.cursor == 1
        await pilot.press("escape")
        await pilot.pause()
        assert not app.query_one("#help").display and app.query_one("#board").display
        assert app.sent == 0


async def test_score_is_explained_in_san_juan():
    view = mid_game("sanjuan")
    app = TableApp(asking(view, log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=COMFY) as pilot:
        await open_question(app)
        await pilot.press("question_mark", *"score", "enter")
        await pilot.pause()
        text = " ".join(pane_text(app, "#help").split())
        assert "Score: what each player would have if the game ended now" in text
        for p in view["players"]:
            assert f"{p['name']} {p['score']['total']}" in text


async def test_tab_marks_the_pane_it_moves_to():
    app = TableApp(asking(mid_game("sanjuan"), log=LOG), title="table t1 · seat 1, Ana")
    async with app.run_test(size=COMFY) as pilot:
        await open_question(app)
        for pane, name in (("board", "the board"), ("mine", "your own things"), ("log", "the log")):
            await pilot.press("tab")
            await pilot.pause()
            assert app.focused.id == pane
            assert screen_text(app).splitlines()[-1].strip().startswith(f"▌{name}:")
            assert set(row[0] for row in pane_text(app, f"#{pane}").splitlines()) == {"█"}, pane   # a bar
        await pilot.press("escape")
        assert app.focused is None
