"""Statistics over sweep tables: means with confidence intervals over seeds, and the improvement
of each scheduler over a baseline, run by run.

>>> table = sl.sweep(["fifo", "fair"], cluster, workload, seeds=range(10))
>>> sl.stats.summarize(table, ["mean_completion_time", "p99_completion_time"])
>>> sl.stats.improvement(table, baseline="fifo")               # one row per non-baseline run
>>> sl.stats.summarize(sl.stats.improvement(table, "fifo"), "improvement")

Confidence intervals are Student-t intervals of the mean over the runs of a group (normally its
seeds): mean +- t(1 - (1 - confidence) / 2, n - 1) * sd / sqrt(n), with Student's t quantile
from ``scipy.stats.t``. A group of one run has an
undefined interval (NaN).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: Metrics summarized when none are named.
DEFAULT_METRICS = ["mean_completion_time", "p50_completion_time", "p90_completion_time", "p99_completion_time",
                   "makespan"]
#: Metrics where larger is better (improvement is computed the other way round).
HIGHER_IS_BETTER = {"fairness_jain", "utilization", "locality_node", "locality_rack", "throughput"}


def mean_ci(values, confidence: float = 0.95) -> tuple:
    """(n, mean, sd, ci_low, ci_high) of the finite values."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return 0, math.nan, math.nan, math.nan, math.nan
    m = float(x.mean())
    if n == 1:
        return 1, m, math.nan, math.nan, math.nan
    sd = float(x.std(ddof=1))
    from scipy import stats as scipy_stats  # (imported here: it takes a moment)
    h = float(scipy_stats.t.ppf(1 - (1 - confidence) / 2, n - 1)) * sd / math.sqrt(n)
    return n, m, sd, m - h, m + h


def _attrs(table, key):
    return list((table.attrs.get("schedlab") or {}).get(key, []))


def default_by(table: pd.DataFrame) -> list:
    """The grouping of a sweep table that leaves the seeds: scheduler, cluster, workload and any
    swept engine options."""
    by = [c for c in ("scheduler", "cluster", "workload") if c in table]
    return by + [c for c in _attrs(table, "options") if c in table and c not in by]


def summarize(table: pd.DataFrame, metrics=None, by=None, confidence: float = 0.95) -> pd.DataFrame:
    """Mean, standard deviation and confidence interval of each metric over the runs of each
    group (default groups: :func:`default_by`, i.e. over seeds). Returns a tidy table: the ``by``
    columns, ``metric``, ``n``, ``mean``, ``sd``, ``ci_low``, ``ci_high`` (groups in order of
    first appearance)."""
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ValueError("summarize: the table is empty")
    metrics = [metrics] if isinstance(metrics, str) else list(metrics or [m for m in DEFAULT_METRICS if m in table])
    by = [by] if isinstance(by, str) else list(default_by(table) if by is None else by)
    for c in metrics + by:
        if c not in table:
            raise ValueError(f"summarize: no column {c!r} in the table (have {list(table.columns)})")
    rows = []
    groups = table.groupby(by, sort=False, dropna=False) if by else [((), table)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        for m in metrics:
            n, mean, sd, lo, hi = mean_ci(g[m].to_numpy(float), confidence)
            rows.append(dict(zip(by, key)) | {"metric": m, "n": n, "mean": mean, "sd": sd, "ci_low": lo,
                                              "ci_high": hi})
    out = pd.DataFrame(rows)
    out.attrs["confidence"] = confidence
    return out


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def _baseline_mask(table, baseline):
    if isinstance(baseline, dict):
        mask = np.ones(len(table), bool)
        for k, v in baseline.items():
            if k not in table:
                raise ValueError(f"improvement: baseline column {k!r} is not in the table")
            mask &= (table[k] == v).to_numpy()
        what = baseline
    else:
        mask = (table["scheduler"] == baseline).to_numpy()
        if not mask.any() and "scheduler_name" in table:
            mask = (table["scheduler_name"] == baseline).to_numpy()
        what = f"scheduler {baseline!r}"
    if not mask.any():
        have = sorted(table["scheduler"].unique()) if "scheduler" in table else []
        raise ValueError(f"improvement: no run of the baseline {what} in the table (schedulers: {have})")
    return mask


def improvement(table: pd.DataFrame, baseline, metric: str = "mean_completion_time", on=None,
                higher_is_better: bool | None = None) -> pd.DataFrame:
    """Each non-baseline run compared with the baseline run under the same conditions (same
    ``on`` columns; default cluster, workload, seed and swept options).

    ``baseline`` is a scheduler label (``"fifo"``, ``"fair(locality_delay=0)"``) or name, or a
    dict of column values. Returns the non-baseline rows with ``baseline_value``, ``value``,
    ``ratio`` = value / baseline and ``improvement`` = (baseline - value) / baseline (the other
    way round for metrics where higher is better), so positive means better than the baseline."""
    if metric not in table:
        raise ValueError(f"improvement: no metric column {metric!r} in the table")
    on = list(on) if on is not None else [c for c in ("cluster", "workload", "seed") if c in table] + \
        [c for c in _attrs(table, "options") if c in table]
    for c in on:
        if c not in table:
            raise ValueError(f"improvement: no column {c!r} in the table")
    mask = _baseline_mask(table, baseline)
    base = table[mask]
    if on and base.duplicated(on).any():
        raise ValueError(f"improvement: the baseline has several runs for the same {on}; "
                         "name a single configuration (e.g. its full label) or pass on=")
    hib = metric in HIGHER_IS_BETTER if higher_is_better is None else higher_is_better
    others = table[~mask].copy()
    if on:
        ref = base.set_index(on)[metric]
        idx = pd.MultiIndex.from_frame(others[on]) if len(on) > 1 else pd.Index(others[on[0]])
        pos = ref.index.get_indexer(idx)
        if (pos < 0).any():
            row = others.iloc[int(np.argmax(pos < 0))]
            raise ValueError("improvement: no baseline run for " + ", ".join(f"{c}={_py(row[c])!r}" for c in on))
        b = ref.to_numpy(float)[pos]
    else:
        if len(base) != 1:
            raise ValueError("improvement: without 'on' columns the baseline must be a single run")
        b = np.full(len(others), float(base[metric].iloc[0]))
    v = others[metric].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        others["baseline_value"] = b
        others["value"] = v
        others["ratio"] = v / b
        others["improvement"] = (v - b) / b if hib else (b - v) / b
    others.attrs = dict(table.attrs) | {"baseline": baseline, "metric": metric}
    return others.reset_index(drop=True)
