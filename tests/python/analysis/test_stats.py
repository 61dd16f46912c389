"""schedlab.stats: confidence intervals over seeds and run-by-run improvement over a baseline."""
import math

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab import stats


@pytest.mark.parametrize("values, t975", [
    ([1.0, 3.0], 12.7062), ([1.0, 3.0, 5.0], 4.3027), ([1.0, 3.0, 5.0, 7.0, 9.0], 2.7764),
    (list(range(10)), 2.2622),
])
def test_mean_ci_uses_the_t_quantile_of_the_tables(values, t975):
    # the half width over sd / sqrt(n) is Student's t quantile, as printed in statistics tables
    n, m, sd, lo, hi = stats.mean_ci(values)
    assert (hi - lo) / 2 / (sd / math.sqrt(n)) == pytest.approx(t975, abs=1e-4)
    n, m, sd, lo, hi = stats.mean_ci(values, confidence=0.99)
    assert hi - m > t975 * sd / math.sqrt(n)  # a wider interval at 99 %


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
