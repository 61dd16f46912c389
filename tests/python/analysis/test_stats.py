"""schedlab.stats: confidence intervals over seeds and run-by-run improvement over a baseline."""
import math

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab import stats


@pytest.mark.parametrize("p, df, expected", [
    (0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 4, 2.7764), (0.975, 9, 2.2622), (0.95, 29, 1.6991),
    (0.995, 5, 4.0321), (0.025, 4, -2.7764),
])
def test_t_quantiles_match_tables(p, df, expected):
    assert stats.t_quantile(p, df) == pytest.approx(expected, abs=1e-4)
    assert stats.t_cdf(stats.t_quantile(p, df), df) == pytest.approx(p, abs=1e-12)
    # the starting point of the refinement
    assert stats._t_quantile_approx(p, df) == pytest.approx(expected, rel=2e-3 if df > 2 else 1e-9, abs=5e-3)


def test_t_quantile_agrees_with_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    for df in (3, 4, 7, 15, 60, 1000):
        for p in (0.6, 0.9, 0.975, 0.995, 0.9995, 0.01):
            assert stats.t_quantile(p, df) == pytest.approx(float(scipy_stats.t.ppf(p, df)), rel=1e-9, abs=1e-10)


def test_mean_ci_by_hand():
    n, m, sd, lo, hi = stats.mean_ci([10.0, 12.0, 14.0, 16.0, 18.0])
    assert (n, m) == (5, 14.0)
    assert sd == pytest.approx(math.sqrt(10.0))
    h = 2.7764451 * math.sqrt(10.0) / math.sqrt(5)
    assert lo == pytest.approx(14 - h, rel=1e-6) and hi == pytest.approx(14 + h, rel=1e-6)
    assert stats.mean_ci([3.0, np.nan])[0] == 1 and math.isnan(stats.mean_ci([3.0])[3])
    with pytest.raises(ValueError, match="confidence"):
        stats.mean_ci([1, 2], confidence=95)


def hand_table():
    rows = []
    for seed in range(3):
        rows.append({"scheduler": "fifo", "scheduler_name": "fifo", "cluster": "c", "workload": "w", "seed": seed,
                     "mean_completion_time": 100.0 + seed, "utilization": 0.5})
        rows.append({"scheduler": "fair", "scheduler_name": "fair", "cluster": "c", "workload": "w", "seed": seed,
                     "mean_completion_time": 80.0 + 2 * seed, "utilization": 0.6})
    return pd.DataFrame(rows)


def test_summarize_groups_over_seeds():
    s = stats.summarize(hand_table(), ["mean_completion_time"])
    assert list(s["scheduler"]) == ["fifo", "fair"]
    fifo = s.iloc[0]
    assert fifo["n"] == 3 and fifo["mean"] == 101.0
    assert fifo["ci_low"] == pytest.approx(101 - 4.302653 * 1 / math.sqrt(3), rel=1e-6)
    with pytest.raises(ValueError, match="no column 'nope'"):
        stats.summarize(hand_table(), ["nope"])


def test_improvement_pairs_runs_by_conditions():
    imp = stats.improvement(hand_table(), "fifo")
    assert list(imp["scheduler"]) == ["fair"] * 3
    np.testing.assert_allclose(imp["improvement"], [(100 - 80) / 100, (101 - 82) / 101, (102 - 84) / 102])
    np.testing.assert_allclose(imp["ratio"], [0.8, 82 / 101, 84 / 102])
    up = stats.improvement(hand_table(), "fifo", metric="utilization")  # higher is better
    np.testing.assert_allclose(up["improvement"], 0.2)
    t = hand_table()
    with pytest.raises(ValueError, match="no run of the baseline"):
        stats.improvement(t, "edf")
    with pytest.raises(ValueError, match="no baseline run for cluster='c', workload='w', seed=2"):
        stats.improvement(t.drop(index=4), "fifo")
    with pytest.raises(ValueError, match="several runs"):
        stats.improvement(pd.concat([t, t.iloc[[0]]]), "fifo")


def test_improvement_on_a_real_sweep():
    w = sl.synthetic.generate(jobs=30, seed=2, rate=0.05, users=3)
    table = sl.sweep(["fifo", sl.grid("fair", locality_delay=[0, 5])], {"nodes": [3, 5]}, w, range(3), progress=False)
    imp = stats.improvement(table, "fifo")
    assert len(imp) == 2 * 2 * 3
    row = imp.iloc[0]
    base = table[(table.scheduler == "fifo") & (table.cluster == row.cluster) & (table.seed == row.seed)]
    assert row["baseline_value"] == base["mean_completion_time"].iloc[0]
    s = stats.summarize(imp, "improvement")
    assert len(s) == 4 and (s["n"] == 3).all()
    by_name = stats.improvement(table, "fair(locality_delay=0)")
    assert set(by_name["scheduler"]) == {"fifo", "fair(locality_delay=5)"}
