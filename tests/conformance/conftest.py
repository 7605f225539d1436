"""The conformance suite runs against every registered game, and the games kept here
(kept.py: High Card, highcard.py), and registered only while a test of it runs: `game` is each in turn, and `table` each
(players, options) worth playing: every player count with each of the game's variants (the
defaults, every switch on, each other value of each number option)."""
from __future__ import annotations

import pytest

import games
from tests.conformance.kept import KEPT_HERE


def tables(engine) -> list[tuple[int, dict]]:
    info = engine.INFO
    return [(n, options) for n in info.players for options in info.variants()]


def _variant(info, options: dict) -> str:
    changed = [o.name if options[o.name] is True else f"{o.name}={options[o.name]}"
               for o in info.options if options[o.name] != o.default]
    return "+".join(changed) or "defaults"


def pytest_generate_tests(metafunc):
    if "game" in metafunc.fixturenames:
        engines = [*games.GAMES.values(), *KEPT_HERE]
        if "table" in metafunc.fixturenames:
            cases = [(e, t) for e in engines for t in tables(e)]
            ids = [f"{e.INFO.id}-{n}p-{_variant(e.INFO, o)}" for e, (n, o) in cases]
            metafunc.parametrize("game,table", cases, ids=ids)
        else:
            metafunc.parametrize("game", engines, ids=[e.INFO.id for e in engines])


@pytest.fixture(autouse=True)
def registered(request):
    """A game kept here is in the registry for the test that plays it, as its registry line would
    put it there, and out of it again afterwards."""
    game = getattr(request.node, "callspec", None) and request.node.callspec.params.get("game")
    if game is None or game.INFO.id in games.GAMES:
        yield
        return
    games.register(game)
    try:
        yield
    finally:
        del games.GAMES[game.INFO.id]
