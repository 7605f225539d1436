import pytest

from .real_terminal import RealTerminal


@pytest.fixture
def real_terminal(tmp_path):
    """Start the real `governor` in a pty: `real_terminal(args, cols, rows)` gives a started
    RealTerminal (tests/client/real_terminal.py) whose HOME and data folders are in tmp_path.
    At the end every one started is closed, and none may have left a process behind."""
    started: list[RealTerminal] = []

    def start(args: list[str], cols: int = 80, rows: int = 24, home=None, **kw) -> RealTerminal:
        """`home`: the folder the program runs in (default: a new one); the same home twice
        finds the first one's saved games."""
        term = RealTerminal(args, home or tmp_path / f"home-{len(started)}", cols, rows, **kw)
        started.append(term)
        return term.start()

    yield start
    for term in started:
        term.close()
    for term in started:
        assert not term.leftovers(), f"processes of `governor {' '.join(term.args)}` outlived it: {term.leftovers()}"
