"""The `>>>` examples in the project's docstrings run and show what they say."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("games", "protocol", "server", "client", "bots")


def modules_with_examples() -> list[str]:
    """Every module of the packages whose source holds an example, by its dotted name."""
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = modules_with_examples()


def test_the_games_examples_are_among_those_run():
    # The engines' module docstrings show the contract in use; a finder that missed them would
    # leave every example unrun without a failure.
    assert {"games.sanjuan", "games.puertorico"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_examples_run_as_shown(name):
    # doctest prints each failing example with what it expected and got; pytest shows that output.
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name}: the examples were not found by doctest"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
