"""Fair sharing under placement constraints on heterogeneous clusters (the ``share`` engine):
helpers for constraints and performance, and the share metrics. The Eunomia experiments'
clusters and workloads, and offline Eunomia, are in :mod:`schedlab.papers.zhou2019`.

>>> import schedlab as sl
>>> from schedlab.papers import zhou2019
>>> r = sl.simulate(zhou2019.micro_cluster(), zhou2019.micro2_workload(seed=0), "eunomia",
...                 performance=zhou2019.MICRO_PERFORMANCE_OPTION)
>>> sl.engines.share.progress_shares(r)   # time x user DataFrame
>>> sl.engines.share.dispersion(r)        # Jain's index and max/min ratio of progress shares

Conventions: node capacities are ``vcores`` (cores) and ``memory`` (GB in these helpers); a
node's performance class is its ``node_type`` and the normalized performance per class is the
engine option ``performance="p0,p1,..."``. Placement constraints are the job column
``eligible_nodes`` (a list of node ids, or None for any node); :func:`eligible_nodes` turns a
node-attribute predicate into such a list.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.cluster import Cluster


def performance_option(values) -> str:
    """The engine option string for a performance list by node type: ``[1, 1.5]`` -> ``"1.0,1.5"``."""
    vals = [float(v) for v in values]
    if not vals or not all(v > 0 and math.isfinite(v) for v in vals):
        raise ValueError(f"performance_option: values must be positive numbers, got {values!r}")
    return ",".join(repr(v) for v in vals)


def eligible_nodes(cluster: Cluster, where=None, *, node_types=None, nodes=None) -> list:
    """Node ids satisfying a placement constraint, for the ``eligible_nodes`` job column.

    ``node_types``: allowed node types; ``nodes``: an explicit id list; ``where``: a predicate
    on the cluster's node table (``cluster.nodes``) returning a boolean Series or array, e.g.
    ``lambda n: n.vcores >= 8``. The conditions are combined with AND."""
    table = cluster.nodes
    mask = np.ones(len(table), dtype=bool)
    if node_types is not None:
        mask &= table["node_type"].isin(list(node_types)).to_numpy()
    if nodes is not None:
        ids = np.asarray(list(nodes), dtype=np.int64)
        if ((ids < 0) | (ids >= len(table))).any():
            raise ValueError(f"eligible_nodes: node ids must be in 0..{len(table) - 1}, got {list(nodes)!r}")
        m = np.zeros(len(table), dtype=bool)
        m[ids] = True
        mask &= m
    if where is not None:
        mask &= np.asarray(where(table), dtype=bool)
    out = np.flatnonzero(mask).tolist()
    if not out:
        raise ValueError("eligible_nodes: the constraint matches no node")
    return out


# ------------------------------------------------------------------------------------ metrics
def share_table(result, column: str = "progress_share") -> pd.DataFrame:
    """A time x user table of one share series column (``progress_share``, ``task_share``,
    ``dominant_share``, ``running`` or ``pending``); users with no tasks at a time are 0."""
    if "shares" not in result.series:
        raise ValueError("the result has no 'shares' series: run the share engine with sample_interval > 0")
    s = result.series["shares"]
    if column not in s:
        raise ValueError(f"share_table: unknown column {column!r}; have {list(s.columns)}")
    t = s.pivot_table(index="time", columns="user", values=column, aggfunc="last").fillna(0.0)
    labels = result.workload.user_labels
    if labels is not None:
        t.columns = [labels[int(u)] for u in t.columns]
    else:
        t.columns = [int(u) for u in t.columns]
    return t


def progress_shares(result) -> pd.DataFrame:
    """Progress share per user over time (time x user) [Zhou 2019, §5.3.1, Eq. 5.1]."""
    return share_table(result, "progress_share")


def dispersion(result, start: float | None = None, end: float | None = None) -> pd.Series:
    """Dispersion of progress shares over the backlogged users (those with pending tasks),
    averaged over the samples in [start, end] with at least two backlogged users: mean and
    minimum Jain's index, mean max/min ratio, and the mean spread (max - min)."""
    s = result.series["shares"]
    s = s[s["pending"] > 0]
    if start is not None:
        s = s[s["time"] >= start]
    if end is not None:
        s = s[s["time"] <= end]
    g = s.groupby("time")["progress_share"]
    n = g.size()
    keep = n[n >= 2].index
    if len(keep) == 0:
        return pd.Series({"jain": np.nan, "jain_min": np.nan, "max_min": np.nan, "spread": np.nan, "samples": 0})
    x = s[s["time"].isin(keep)].groupby("time")["progress_share"]
    jain = x.sum() ** 2 / (x.size() * x.apply(lambda v: (v ** 2).sum()))
    mx, mn = x.max(), x.min()
    ratio = (mx / mn)[mn > 0]
    return pd.Series({"jain": float(jain.mean()), "jain_min": float(jain.min()),
                      "max_min": float(ratio.mean()) if len(ratio) else np.nan,
                      "spread": float((mx - mn).mean()), "samples": int(len(keep))})


def delays(result, warmup: float = 0.0) -> pd.DataFrame:
    """Per job: queueing delay (arrival -> first task dispatched) and completion delay (arrival
    -> last task done) [Zhou 2019, §5.4], dropping the first ``warmup`` fraction of jobs by arrival
    (the dissertation drops 10 %)."""
    j = result.jobs.sort_values("submit_time", kind="stable")
    j = j.iloc[int(round(warmup * len(j))):]
    return pd.DataFrame({"job_id": j["job_id"].to_numpy(), "queueing_delay": j["queueing_delay"].to_numpy(),
                         "completion_delay": j["completion_time"].to_numpy()})


def cdf(values) -> pd.DataFrame:
    """An empirical CDF table (value, fraction <= value) of finite values."""
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    return pd.DataFrame({"value": v, "cdf": np.arange(1, len(v) + 1) / max(len(v), 1)})


