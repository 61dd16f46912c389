"""Executes notebooks/fresh_omo.ipynb with small parameters (SCHEDLAB_SMALL=1): the notebook runs
the FRESH and OMO claims of python/schedlab/papers/claims/wang2017.toml through their experiment
functions (schedlab.papers.wang2017.claim_*) and prints each verdict; every verdict must be the one
recorded for the small size (FRESH below Fair on Sets B-E with fairness above 0.95 and Fair's at
or below 0.8; OMO not faster than pooled Fair, faster than typed Fair-x and FRESH; YARN's memory
settings giving one makespan), so a change either way fails here as in test_claims.py."""
from __future__ import annotations

import pytest

from notebook_runner import assert_claims_as_recorded, execute_notebook, notebook_text

pytest.importorskip("matplotlib")

CLAIMS = ["fresh_vs_fair_sets_b_e", "fresh_vs_capacity_sets_b_e", "fresh_vs_fair_set_b_80_slots", "fresh_fairness", "fair_fairness", "omo_vs_pooled_fair", "omo_vs_typed_fair",
          "omo_vs_fresh", "lazy_start_terasort", "batch_finish_vs_fresh", "yarn_memory_spread", "omo_vs_yarn2",
          "omo_set_h_vs_pooled_fair", "omo_set_h_vs_typed_fair", "omo_set_h_vs_fresh",
          "calibration_fair1_tail"]


@pytest.fixture(scope="module")
def notebook():
    return execute_notebook("fresh_omo.ipynb", timeout=1200)


def test_notebook_shows_the_claims_as_recorded(notebook):
    assert "small run: True" in notebook_text(notebook)
    seen = assert_claims_as_recorded(notebook, "wang2017", CLAIMS)
    assert set(seen) == {f"wang2017/{c}" for c in CLAIMS}
