"""Text snapshots of the full-screen table at key moments of both games, at 80×24 and 120×40:
the first question, a question in the middle of a game, `?` and a name explained, and the end
with its score table; and a Puerto Rico board at its tallest (4 and 5 players, late in a game)
on a 100×40 terminal, where the round, the roles and the question must stay in sight however
far the board is scrolled.

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

from .screens import screen_text
from .test_fullscreen import COMFY, SMALL, asking, check_screen, fixed_view, next_change, open_question, plain

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
        text = check_screen(app, [head_of(view)[0], app.question.text[:40], "play begins."])
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
