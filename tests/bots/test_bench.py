"""bench/tournament.py and bench/search.py: the statistics and a tiny run of each."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wilson_interval():
    t = load("tournament")
    lo, hi = t.wilson(90, 100)
    assert lo == pytest.approx(0.8256, abs=1e-3) and hi == pytest.approx(0.9448, abs=1e-3)
    assert t.wilson(0, 0) == (0.0, 1.0)
    lo, hi = t.wilson(0, 10)
    assert lo == 0.0 and 0 < hi < 0.35


def test_a_small_series_rotates_seats_and_splits_ties(capsys):
    t = load("tournament")
    t.main(["--lineup", "heuristic,random", "--games", "4", "--seed", "tiny", "--json"])
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    levels = out["levels"]
    assert out["games"] == 4 and set(levels) == {"heuristic", "random"}
    assert levels["heuristic"]["seat_games"] == levels["random"]["seat_games"] == 4
    assert levels["heuristic"]["wins"] + levels["random"]["wins"] == pytest.approx(4)
    assert all(x is not None for x in levels["heuristic"]["by_seat"])


def test_search_positions_are_found():
    s = load("search")
    for players, expansion, after, kind in s.POSITIONS[:2]:
        view = s.position(players, expansion, after, kind)
        assert view["prompt"]["kind"] == kind
