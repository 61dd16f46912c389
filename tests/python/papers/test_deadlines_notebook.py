"""Executes notebooks/deadlines.ipynb with small parameters (SCHEDLAB_SMALL=1): the notebook shows the
verdicts of the claims on P, T and O/T (Lim et al. 2015, §5.2; python/schedlab/papers/claims/lim2015.toml),
which must be the ones recorded for the small size, and its sweep shows mrcp's scheduling work per
job to be a small fraction of the turnaround (measured by CP-SAT's deterministic time, so the check does not
depend on the machine)."""
from __future__ import annotations

import pandas as pd
import pytest

from notebook_runner import assert_claims_as_recorded, execute_notebook

pytest.importorskip("ortools")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("deadlines") / "deadlines.csv"
    nb = execute_notebook("deadlines.ipynb", {"SCHEDLAB_OUT": str(out)})
    return nb, pd.read_csv(out)


def test_notebook_runs_every_workload_and_overhead_stays_small(results):
    results = results[1]
    assert set(results["workload"]) == {"small", "medium", "large", "mix"}
    assert set(results["scheduler"]) == {"edf", "edf_ideal", "mrcp"}
    cp = results[results["scheduler"] == "mrcp"]
    assert (cp["solves"] >= 1).all() and (cp["solves"] <= cp["jobs"]).all()   # at most one re-solve per arrival
    assert (cp["O_det"] > 0).all() and (cp["O_det"] / cp["T"] < 0.01).all()


def test_notebook_shows_the_claims_as_recorded(results):
    # the paper's P_CP <= P_EDF, T and O/T, judged by the interval rule of claims/lim2015.toml (the
    # notebook prints the claims' verdicts; test_claims.py runs the same experiment functions)
    ids = ["mrcp_fewer_late", "mrcp_lower_turnaround", "mrcp_overhead_small"]
    seen = assert_claims_as_recorded(results[0], "lim2015", ids)
    assert set(seen) == {f"lim2015/{c}" for c in ids}
