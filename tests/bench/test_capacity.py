"""The capacity search of bench/cluster.py on a made-up setup whose limit is known, so that what
it finds can be checked exactly (the benchmark itself measures real servers)."""
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "bench_capacity", Path(__file__).resolve().parents[2] / "bench" / "capacity.py")
capacity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capacity)

FOREVER = float("inf")


def search(holds_up_to: int, start: int, steps: int = 20, deadline: float = FOREVER):
    measured = []

    def measure(n):
        measured.append(n)
        return {"tables": n}

    best, tried = capacity.largest_passing(measure, lambda r: r["tables"] <= holds_up_to, start, steps, deadline)
    assert [r["tables"] for r in tried] == measured
    return best, measured


@pytest.mark.parametrize("holds_up_to, start", [(36, 5), (200, 25), (7, 50), (1000, 1000), (1, 3)])
def test_it_finds_the_largest_n_within_a_tenth(holds_up_to, start):
    best, measured = search(holds_up_to, start)
    assert best["tables"] <= holds_up_to
    assert best["tables"] >= holds_up_to - max(1, holds_up_to // 10)
    assert any(n > holds_up_to for n in measured)     # it saw where the limit is, not only below it


def test_it_doubles_then_halves_the_gap():
    assert search(36, 5)[1] == [5, 10, 20, 40, 30, 35, 37]


def test_nothing_held():
    best, measured = search(0, 4)
    assert best is None and measured == [4, 2, 1]


def test_it_stops_after_its_steps_and_after_its_deadline():
    best, measured = search(1000, 10, steps=3)
    assert measured == [10, 20, 40] and best["tables"] == 40
    best, measured = search(1000, 10, deadline=0.0)   # already past: the first step only
    assert measured == [10] and best["tables"] == 10


def test_a_finer_search_stops_within_its_fraction():
    best, tried = capacity.largest_passing(lambda n: {"tables": n}, lambda r: r["tables"] <= 139, 50, 20,
                                           FOREVER, within=0.05)
    failed = min(r["tables"] for r in tried if r["tables"] > 139)
    assert best["tables"] <= 139 and failed - best["tables"] <= int(best["tables"] * 0.05)
