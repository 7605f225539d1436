"""The conformance suite runs against every registered game: `game` is each module of the
registry in turn, and `table` each (players, options) worth playing: every player count, with the
default options and with every switch on."""
from __future__ import annotations


import games


def tables(engine) -> list[tuple[int, dict]]:
    info = engine.INFO
    return [(n, options) for n in info.players for options in info.variants()]


def pytest_generate_tests(metafunc):
    if "game" in metafunc.fixturenames:
        engines = list(games.GAMES.values())
        if "table" in metafunc.fixturenames:
            cases = [(e, t) for e in engines for t in tables(e)]
            ids = [f"{e.INFO.id}-{n}p-{'+'.join(k for k, v in o.items() if v is True) or 'defaults'}"
                   for e, (n, o) in cases]
            metafunc.parametrize("game,table", cases, ids=ids)
        else:
            metafunc.parametrize("game", engines, ids=[e.INFO.id for e in engines])
