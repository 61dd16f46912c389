"""Speculative execution policies of the mapreduce engine, usable with every scheduler:

>>> sl.simulate(cluster, workload, "fair", speculation="late", speculation_params={"speculative_cap": 0.05})

* ``hadoop`` — the JobTracker's rule of Hadoop 0.21 (HADOOP-2141): slow-tracker test, per-job
  speculative cap, slow tasks by progress rate against the job's statistics (a rate per task
  scheduled so far, finished ones at their last; ``rate_statistics="running"``: the running
  attempts alone), longest estimated time left first [Sagar & Moni 2015, §III].
* ``yarn`` — YARN 2.7's default speculator, Eq. 5.1/5.2 (the eSplash dissertation calls it
  "LATE") [Wang 2017, §2.4].
* ``late`` — the original LATE paper: SpeculativeCap, SlowNodeThreshold, SlowTaskThreshold.
* ``esplash`` — eSplash: node levels by clustering, per-level straggler detection, copies placed
  by minimum level and expected saving, re-evaluation of waiting requests [Wang 2017, §5.2.1; §5.2.3].
* ``sepb`` — DynamicMR's Speculative Execution Performance Balancing over the Hadoop rule
  [Sagar & Moni 2015, §III].

The engine offers each node's free slots to the speculator after the scheduler has assigned its
pending tasks. ``Result.summary()`` reports ``speculative_attempts``, ``speculative_killed``,
``wasted_speculative_time`` and where copies ran.
"""
from __future__ import annotations

import functools

import pandas as pd

from .. import _core

__all__ = ["names", "params", "encode_params"]


@functools.lru_cache(maxsize=None)
def _catalogue():
    return {s["name"]: s for s in _core.speculators()}


def names() -> list:
    """Every speculator name (``"none"`` switches speculation off)."""
    return list(_catalogue())


def params(name: str) -> pd.DataFrame:
    """The parameters of speculator ``name`` with their defaults and meaning."""
    if name not in _catalogue():
        raise ValueError(f"unknown speculation {name!r}; available: {', '.join(_catalogue())}")
    return pd.DataFrame(_catalogue()[name]["params"], columns=["name", "type", "default", "min", "max", "choices", "doc"])


def encode_params(name, values) -> str:
    """``{"speculative_cap": 0.05}`` -> ``"speculative_cap:0.05"`` (strings pass through); the
    engine checks names, types and ranges."""
    if values is None:
        return ""
    if isinstance(values, str):
        return values
    if not isinstance(values, dict):
        raise ValueError(f"speculation_params must be a dict, got {type(values).__name__}")
    parts = []
    for k, v in values.items():
        if not isinstance(k, str) or any(c in k for c in ",:"):
            raise ValueError(f"speculation_params: bad parameter name {k!r}")
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, str) and any(c in v for c in ",:"):
            raise ValueError(f"speculation_params: value of {k!r} may not contain ',' or ':'")
        parts.append(f"{k}:{v!r}" if not isinstance(v, str) else f"{k}:{v}")
    return ",".join(parts)
