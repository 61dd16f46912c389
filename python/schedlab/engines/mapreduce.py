"""Helpers for the MapReduce engine (Hadoop MRv1 slots, YARN containers) that any experiment uses:

* :func:`with_containers` — a copy of a workload whose tasks ask for given YARN containers;
* :func:`best_static_split` — stock Hadoop's best static map/reduce slot split, found by trying
  every split (the baseline of DynamicMR, Tang et al. 2014, §6.2).

The papers' own helpers are in :mod:`schedlab.papers` (FRESH and OMO in ``wang2017``, EAS in
``zhao2013``, DynamicMR in ``tang2014``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.workload import Workload


def with_containers(workload: Workload, *, map_vcores=1.0, map_memory=1024.0, reduce_vcores=None,
                    reduce_memory=None) -> Workload:
    """A copy of ``workload`` whose map and reduce tasks request the given YARN containers
    (vcores, memory in MB); reduces default to the maps' request."""
    reduce_vcores = map_vcores if reduce_vcores is None else reduce_vcores
    reduce_memory = map_memory if reduce_memory is None else reduce_memory
    tasks = workload.tasks.copy()
    is_map = (tasks["stage"].astype(str) == "map").to_numpy()
    tasks["stage"] = np.where(is_map, 0, 1)
    tasks["vcores"] = np.where(is_map, float(map_vcores), float(reduce_vcores))
    tasks["memory"] = np.where(is_map, float(map_memory), float(reduce_memory))
    jobs = workload.jobs.drop(columns=["n_maps", "n_reduces", "ideal_time"])
    return Workload.from_frames(jobs, tasks.drop(columns=["task_id"]), name=workload.name)


def best_static_split(cluster_factory, workload: Workload, scheduler="fair", *, slots_per_node: int = 12,
                      metric: str = "makespan", seed: int = 0, **options) -> dict:
    """Stock Hadoop's best static slot configuration, found by trying them all.

    ``cluster_factory(map_slots, reduce_slots)`` builds the cluster with that many map and reduce
    slots per node; every split m + r = ``slots_per_node`` with m, r >= 1 is simulated under
    ``scheduler`` (a name or a configured scheduler) with the engine ``options``. Returns a dict
    with ``map_slots``, ``reduce_slots``, ``value`` (the best ``metric`` of ``result.summary()``,
    lower is better), ``result`` (the best run) and ``table`` (one row per split).
    """
    from ..core.simulate import simulate

    if isinstance(slots_per_node, bool) or not isinstance(slots_per_node, (int, np.integer)) or slots_per_node < 2:
        raise ValueError(f"best_static_split: slots_per_node must be a whole number >= 2, got {slots_per_node!r}")
    rows, best = [], None
    for m in range(1, slots_per_node):
        r = slots_per_node - m
        res = simulate(cluster_factory(m, r), workload, scheduler, seed=seed, **options)
        s = res.summary()
        if metric not in s:
            raise ValueError(f"best_static_split: unknown metric {metric!r}; choose one of {list(s.index)}")
        rows.append({"map_slots": m, "reduce_slots": r, metric: float(s[metric]),
                     "locality_node": float(s["locality_node"])})
        if best is None or s[metric] < best[2]:
            best = (m, r, float(s[metric]), res)
    return {"map_slots": best[0], "reduce_slots": best[1], "value": best[2], "result": best[3],
            "table": pd.DataFrame(rows)}
