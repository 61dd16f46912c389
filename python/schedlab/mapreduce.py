"""MapReduce-engine helpers from the Wang dissertation (spec seed000 §2-3).

* :func:`fresh_static_split` — FRESH-static's offline search over map/reduce slot splits
  (Algorithm 3.3.1), as used by the ``fresh_static`` scheduler.
* :func:`overall_fairness` — the overall fairness F(T) of §2.3 computed from any result's
  attempts, so schedulers that do not record it themselves (fair, capacity, fifo) can be compared
  with FRESH, which records it as ``result.series["overall_fairness"]``.
* :func:`with_containers` — a copy of a workload whose tasks ask for given YARN containers.
* :func:`johnson_order` — Johnson's two-stage rule used to order FRESH's mixed sets.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import _core
from ._cluster import Cluster
from ._workload import Workload


def fresh_static_split(cluster: Cluster, workload: Workload, k: int = 5, *, share: str = "set_size",
                       deduction: str = "remaining", network_bandwidth: float = 1.25e8) -> dict:
    """The map/reduce slot split FRESH-static chooses for ``workload`` on ``cluster``.

    Runs the fluid model of Algorithm 3.3.1 for every cluster-wide number of map slots
    s_m = 1 .. S-1 (S = all map + reduce slots) with admission control ``k`` (0 = none) and
    keeps the split with the smallest predicted makespan. Profiles are the workload's task
    estimates (a reduce's includes its shuffle, input bytes / ``network_bandwidth``).
    ``share`` and ``deduction`` select the spec's readings (see ``schedulers.params("fresh_static")``).

    Returns a dict: ``map_slots``, ``reduce_slots``, ``makespan`` (predicted),
    ``makespan_by_split`` (a Series indexed by s_m), ``node_map_slots`` and ``node_reduce_slots``
    (the split laid out over the nodes round-robin).
    """
    if not isinstance(cluster, Cluster) or not isinstance(workload, Workload):
        raise ValueError("fresh_static_split(cluster, workload): expected a schedlab.Cluster and a schedlab.Workload")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"fresh_static_split: k must be a non-negative whole number, got {k!r}")
    d = _core.fresh_static_split(cluster.native(), workload.native(), int(k), share, deduction, float(network_bandwidth))
    curve = np.asarray(d["makespan_by_split"])
    d["makespan_by_split"] = pd.Series(curve[1:-1], index=pd.RangeIndex(1, len(curve) - 1, name="map_slots"),
                                       name="predicted_makespan")
    d["node_map_slots"] = np.asarray(d["node_map_slots"])
    d["node_reduce_slots"] = np.asarray(d["node_reduce_slots"])
    return d


def overall_fairness(result, interval: float = 5.0, start: str | None = None) -> pd.DataFrame:
    """F(T) (Jain's index over the active jobs of r_i(T) = slot-seconds used by job i's attempts
    up to T / (T - T_i)) sampled every ``interval`` seconds from time 0 to the end of the run.

    T_i is ``start``: "admit" (the result's ``admit_time`` job column, written by schedulers with
    FRESH's admission control), "submit", or "first_start" (the job's first attempt). By default
    "admit" when the column exists, else "submit". A job is active from T_i until it finishes.
    Returns a DataFrame with columns ``time, fairness, active_jobs``; use
    :func:`fairness_mean` for the time average over samples with at least two active jobs.
    """
    jobs = result.jobs
    if start is None:
        start = "admit" if "admit_time" in jobs else "submit"
    col = {"admit": "admit_time", "submit": "submit_time", "first_start": "start_time"}.get(start)
    if col is None or col not in jobs:
        raise ValueError(f"overall_fairness: start must be 'admit' (with an admit_time column), 'submit' or 'first_start', got {start!r}")
    if not interval > 0:
        raise ValueError(f"overall_fairness: interval must be positive, got {interval!r}")
    ti = jobs[col].to_numpy(float)
    fin = jobs["finish_time"].to_numpy(float)
    fin = np.where(np.isfinite(fin), fin, np.inf)
    tasks = result.tasks
    job_index = pd.Index(jobs["job_id"]).get_indexer(tasks["job_id"])
    st = tasks["start"].to_numpy(float)
    en = tasks["finish"].to_numpy(float)
    en = np.where(np.isfinite(en), en, result.end_time)
    times = np.arange(0.0, result.end_time + 1e-9, float(interval))
    used = np.zeros((len(times), len(ti)))
    for j in range(len(ti)):
        sel = job_index == j
        s, e = np.sort(st[sel]), np.sort(en[sel])
        cs, ce = np.concatenate([[0.0], np.cumsum(s)]), np.concatenate([[0.0], np.cumsum(e)])
        ns = np.searchsorted(s, times, side="right")   # attempts started by T
        ne = np.searchsorted(e, times, side="right")   # attempts ended by T
        used[:, j] = (ce[ne] + (ns - ne) * times) - cs[ns]
    active = (ti[None, :] <= times[:, None]) & (times[:, None] < fin[None, :]) & np.isfinite(ti)[None, :]
    dt = times[:, None] - ti[None, :]
    r = np.where(active & (dt > 0), used / np.where(dt > 0, dt, 1.0), 0.0)
    n = active.sum(axis=1)
    s1, s2 = r.sum(axis=1), (r * r).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(n == 0, np.nan, np.where(s2 > 0, s1 * s1 / (np.maximum(n, 1) * s2), 1.0))
    return pd.DataFrame({"time": times, "fairness": f, "active_jobs": n})


def fairness_mean(series: pd.DataFrame) -> float:
    """Time average of F(T) over samples with at least two active jobs (NaN if none)."""
    sel = series[series["active_jobs"] >= 2]["fairness"]
    return float(sel.mean()) if len(sel) else float("nan")


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


def johnson_order(map_work, reduce_work) -> np.ndarray:
    """Johnson's rule for two-stage flow shops: jobs with map work <= reduce work first, by
    ascending map work; then the rest by descending reduce work. Returns the job positions in
    that order (ties keep the input order)."""
    a = np.asarray(map_work, float)
    b = np.asarray(reduce_work, float)
    idx = np.arange(len(a))
    first = idx[a <= b]
    second = idx[a > b]
    first = first[np.argsort(a[first], kind="stable")]
    second = second[np.argsort(-b[second], kind="stable")]
    return np.concatenate([first, second]).astype(int)
