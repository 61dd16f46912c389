"""Executes notebooks/fresh_omo.ipynb with small parameters (SCHEDLAB_SMALL=1) and checks the
dissertation's directions with its thresholds: FRESH below Fair and Capacity in makespan on Sets
B-E with overall fairness above 0.95 and Fair's at or below 0.8 (§3.4.2.3); OMO against the
chapter's own baseline, Fair on the same pooled slots (fair_total, primary: does not reproduce, a
strict xfail), against typed Fair-x (secondary) and below YARN. The claims with their numbers:
python/schedlab/papers/claims/wang2017.toml."""
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


def test_fresh_fairness_above_095(directions):
    assert all(v > 0.95 for v in directions["fresh_fairness_B_to_E"].values()), directions["fresh_fairness_B_to_E"]


def test_fair_fairness_at_most_08(directions):
    assert all(v <= 0.8 for v in directions["fair_fairness_B_to_E"].values()), directions["fair_fairness_B_to_E"]


@pytest.mark.xfail(strict=True, reason="not reproduced: against Fair on the same pooled 4 slots (fair_total at its best "
                                       "slowstart) OMO is slower on 8 x Terasort (-10.6 % over three seeds) and on "
                                       "7 of 14 workloads; mean +0.3 % (95 % CI -0.7 to 1.4), see docs/reproduction")
def test_omo_below_pooled_fair_best(directions):
    for w, (omo, fair_best) in directions["omo_vs_fairtotal_best"].items():
        assert omo < fair_best, (w, omo, fair_best)


def test_omo_below_best_typed_fair_slowstart(directions):
    # secondary: Fair-x on 2 map + 2 reduce slots per node, slowstart x (most of the gap is pooling)
    for w, (omo, fair_best) in directions["omo_vs_fair_best"].items():
        assert omo < fair_best, (w, omo, fair_best)


def test_omo_below_yarn(directions):
    omo, yarn = directions["omo_vs_yarn"]
    assert omo < yarn
