"""The games kept with the conformance suite, and `python -m tests.conformance.kept ARGS`: the
`governor` command with them registered, as their registry line would have it (what the client
processes of their networked match run)."""
from __future__ import annotations

import games
from tests.conformance import highcard

KEPT_HERE = (highcard,)

if __name__ == "__main__":
    for game in KEPT_HERE:
        games.register(game)
    from client.cli import main
    raise SystemExit(main())
