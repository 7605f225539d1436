"""The conformance suite (tests/conformance/test_engine.py) run against Puerto Rico, which is not
registered yet: `game` is this engine, `table` each player count with each option set."""
from __future__ import annotations

import games.puertorico
from tests.conformance.test_engine import (  # noqa: F401  (collected here with our parameters)
    test_an_illegal_pick_raises_and_changes_nothing, test_dump_load_round_trip_and_independent_copies,
    test_every_pick_within_the_bounds_is_legal, test_games_end_and_views_and_results_are_well_formed,
    test_no_view_depends_on_what_it_may_not_see, test_same_seed_and_moves_same_game,
    test_setup_refuses_bad_tables)

GAME = games.puertorico
TABLES = [(n, options) for n in GAME.INFO.players for options in GAME.INFO.variants()]


def pytest_generate_tests(metafunc):
    if "game" in metafunc.fixturenames:
        metafunc.parametrize("game", [GAME], ids=["puertorico"])
    if "table" in metafunc.fixturenames:
        metafunc.parametrize("table", TABLES, ids=[f"{n}p" for n, _ in TABLES])
