"""Executes notebooks/fresh_omo.ipynb with small parameters (SCHEDLAB_SMALL=1) and checks the
dissertation's directions: FRESH below Fair and Capacity in makespan on Sets B-E with overall
fairness above 0.9; OMO below the best Fair slowstart setting and below YARN."""
from __future__ import annotations

import json

import pytest

from notebook_runner import execute_notebook, notebook_text

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def directions():
    text = notebook_text(execute_notebook("fresh_omo.ipynb", timeout=1200))
    assert "small run: True" in text
    line = next(l for l in text.splitlines() if l.startswith("DIRECTIONS "))
    return json.loads(line[len("DIRECTIONS "):])


def test_fresh_below_fair_and_capacity_on_sets_b_to_e(directions):
    below = directions["fresh_below_fair_and_capacity_B_to_E"]
    assert sorted(below) == ["B", "C", "D", "E"]
    assert all(below.values()), below


def test_fresh_fairness_above_09(directions):
    assert all(v > 0.9 for v in directions["fresh_fairness_B_to_E"].values()), directions["fresh_fairness_B_to_E"]


def test_omo_below_best_fair_slowstart(directions):
    # Fair-x as the dissertation's §4.4.3 states it: 2 map + 2 reduce slots per node, slowstart x
    for w, (omo, fair_best) in directions["omo_vs_fair_best"].items():
        assert omo < fair_best, (w, omo, fair_best)


def test_omo_below_yarn(directions):
    omo, yarn = directions["omo_vs_yarn"]
    assert omo < yarn
