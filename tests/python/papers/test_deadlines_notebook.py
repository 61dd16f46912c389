"""Executes notebooks/deadlines.ipynb with small parameters (SCHEDLAB_SMALL=1) and checks the
MRCP paper's claims on its results (Lim et al. 2015, §5.2): mrcp never has more late jobs than edf and
has fewer at the highest tested rate of every workload; its scheduling work per job is a small
fraction of the turnaround (measured by CP-SAT's deterministic time, so the check does not
depend on the machine)."""
from __future__ import annotations

import pytest

from notebook_runner import run_notebook

pytest.importorskip("ortools")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return run_notebook("deadlines.ipynb", tmp_path_factory.mktemp("deadlines"))


def test_notebook_runs_every_workload_and_overhead_stays_small(results):
    assert set(results["workload"]) == {"small", "medium", "large", "mix"}
    assert set(results["scheduler"]) == {"edf", "edf_ideal", "mrcp"}
    cp = results[results["scheduler"] == "mrcp"]
    assert (cp["solves"] >= 1).all() and (cp["solves"] <= cp["jobs"]).all()   # at most one re-solve per arrival
    assert (cp["O_det"] > 0).all() and (cp["O_det"] / cp["T"] < 0.01).all()


@pytest.mark.xfail(reason="does not reproduce at the test's size (16 jobs per cell, solver limit 0.01): mrcp has "
                          "more late jobs than edf on large at 1/77.5 (3 vs 2) and mix at 1/30 (12 vs 10), and "
                          "neither is late on small; see notebooks/deadlines.ipynb. CP-SAT's deterministic time limit makes "
                          "the run repeatable, so the miss is asserted: a change either way is noticed", strict=True)
def test_mrcp_has_fewer_late_jobs_than_edf(results):
    late = results.pivot_table(index=["workload", "interarrival"], columns="scheduler", values="late", aggfunc="sum")
    assert (late["mrcp"] <= late["edf"]).all(), late
    highest = late.groupby(level="workload").head(1)   # the smallest inter-arrival time (highest rate)
    assert (highest["edf"] > 0).all(), highest
    assert (highest["mrcp"] < highest["edf"]).all(), highest
