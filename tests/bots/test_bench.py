"""bench/tournament.py and bench/search.py: the statistics and a tiny run of each."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load(name: str):
    if str(ROOT / "bench") not in sys.path:   # as when run as a script: bench/common.py importable
        sys.path.insert(0, str(ROOT / "bench"))
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


def test_search_positions_are_found_and_searched():
    s = load("search")
    from games import sanjuan
    view, bot, _ = s.searched_position(sanjuan, 4, {"expansion": True, "setup_variant": False}, 0.5, 20)
    assert view["prompt"]["kind"] in sanjuan.search().searched
    assert bot.last_iterations == 20


def test_every_benchmark_runs_for_the_game_and_options_given(capsys):
    e = load("engine")
    e.main(["--game", "sanjuan", "--option", "expansion=true", "--games", "2", "--json"])
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["game"] == "sanjuan"
    assert {tuple(sorted(r["options"].items())) for r in out["configs"]} == {
        (("expansion", True), ("setup_variant", False))}
    assert [r["players"] for r in out["configs"]] == [2, 3, 4]
