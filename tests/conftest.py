"""Fixtures for tests in more than one folder."""
import pytest


@pytest.fixture
def drawrace_registered():
    """Draw Race (tests/protocol/drawrace.py), a game of the blind queue's tests, among the games
    while a test runs."""
    import games
    from tests.protocol import drawrace
    games.register(drawrace)
    try:
        yield
    finally:
        del games.GAMES[drawrace.INFO.id]
