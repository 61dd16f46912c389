"""MapReduce-engine helpers from the Wang dissertation (spec seed000 §2-3).

* :func:`fresh_static_split` — FRESH-static's offline search over map/reduce slot splits
  (Algorithm 3.3.1), as used by the ``fresh_static`` scheduler.
* :func:`overall_fairness` — the overall fairness F(T) of §2.3 computed from any result's
  attempts, so schedulers that do not record it themselves (fair, capacity, fifo) can be compared
  with FRESH, which records it as ``result.series["overall_fairness"]``.
* :func:`with_containers` — a copy of a workload whose tasks ask for given YARN containers.
* :func:`johnson_order` — Johnson's two-stage rule used to order FRESH's mixed sets.

EAS (seed001) and DynamicMR (seed003):

* :func:`eas_cluster` — dedicated map machines and reduce machines (EAS testbed: 15 + 5, 2 slots).
* :func:`machine_throughput` — EAS eqs. (1)-(4): per machine D / T, bytes processed over the
  finish time of its last task.
* :func:`map_load_balance` — EAS Fig. 4's load-balance value (sum of the standard deviations of
  map-machine load sampled every N_m map assignments).
* :func:`best_static_split` — stock Hadoop's best static map/reduce slot split, found by trying
  every split (DynamicMR's baseline, seed003 §6.2).
* :func:`dynamicmr_cluster` — DynamicMR's testbed, 9 slaves x 12 slots.
* :func:`speedup` — DynamicMR's performance improvement (T_base / T_new - 1).
* :func:`eas_experiment`, :func:`eas_strategies`, :data:`EAS_OPTIONS` — the EAS paper's runs.
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


# ------------------------------------------------------------------------------------------
# EAS (seed001) and DynamicMR (seed003) helpers

def eas_cluster(map_machines: int = 15, reduce_machines: int = 5, slots: int = 2, speed: float = 1.0) -> Cluster:
    """One rack of ``map_machines`` nodes with ``slots`` map slots only (nodes 0 .. N_m-1, the
    HDFS DataNodes) followed by ``reduce_machines`` nodes with ``slots`` reduce slots only."""
    for name, v in (("map_machines", map_machines), ("reduce_machines", reduce_machines), ("slots", slots)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"eas_cluster: {name} must be a whole number >= 1, got {v!r}")
    n = map_machines + reduce_machines
    ms = [slots] * map_machines + [0] * reduce_machines
    rs = [0] * map_machines + [slots] * reduce_machines
    return Cluster(nodes=n, racks=1, map_slots=ms, reduce_slots=rs, speeds=speed)


def _succeeded(result, stage):
    t = result.tasks
    t = t[(t["status"] == "succeeded") & (t["stage"] == stage)]
    wl = result.workload.tasks
    return t.assign(input_bytes=wl["input_bytes"].to_numpy()[t["task_id"].to_numpy()])


def machine_throughput(result, stage: str = "map") -> pd.DataFrame:
    """Per machine that ran tasks of ``stage``: ``bytes`` processed (map input or reduce shuffle
    input of its succeeded attempts), ``last_finish`` (T, measured from time 0) and
    ``throughput`` = bytes / T in bytes per second. ``.throughput.sum()`` is eq. (3) / (4)."""
    if stage not in ("map", "reduce"):
        raise ValueError(f"machine_throughput: stage must be 'map' or 'reduce', got {stage!r}")
    t = _succeeded(result, stage)
    g = t.groupby("node").agg(bytes=("input_bytes", "sum"), last_finish=("finish", "max"))
    g["throughput"] = g["bytes"] / g["last_finish"]
    return g


def map_load_balance(result, every: int | None = None) -> float:
    """EAS Fig. 4's load-balance value of one run (lower is better).

    The load of a map machine is the unprocessed input bytes of the map tasks assigned to it and
    not finished (a running task counts its unprocessed fraction); a non-local map's load is
    charged to the machine it reads from (its first replica). Samples are taken when the
    ``every``-th, 2·``every``-th, ... map is assigned (default every = number of map machines);
    "assigned" is the result's ``assigned`` column where the scheduler records it (EAS: when the
    plan is made) and the launch time otherwise. Returns the sum over samples of the standard
    deviation of the loads; normalise across strategies yourself."""
    t = _succeeded(result, "map")
    nodes = result.cluster.nodes
    machines = np.flatnonzero(nodes["map_slots"].to_numpy() > 0)
    every = len(machines) if every is None else int(every)
    if every < 1:
        raise ValueError(f"map_load_balance: every must be >= 1, got {every!r}")
    _, cols = result.workload.native().columns()
    rb = np.asarray(cols["replica_begin"])
    rn = np.asarray(cols["replica_node"])
    task = t["task_id"].to_numpy()
    node = t["node"].to_numpy()
    if len(rb):
        first = np.where(rb[task + 1] > rb[task], rn[np.minimum(rb[task], max(len(rn) - 1, 0))], node)
        charged = np.where(t["locality"].to_numpy() == "node", node, first)
    else:
        charged = node
    assigned = t["assigned"].to_numpy(float) if "assigned" in t else t["start"].to_numpy(float)
    start, finish = t["start"].to_numpy(float), t["finish"].to_numpy(float)
    size = t["input_bytes"].to_numpy(float)
    order = np.sort(assigned)
    idx = pd.Index(machines)
    pos = idx.get_indexer(charged)
    total = 0.0
    for k in range(every, len(order) + 1, every):
        tau = order[k - 1]
        live = (assigned <= tau) & (finish > tau) & (pos >= 0)
        frac = np.clip((finish - np.maximum(tau, start)) / np.maximum(finish - start, 1e-12), 0.0, 1.0)
        loads = np.bincount(pos[live], weights=(size * frac)[live], minlength=len(machines))
        total += float(loads.std())
    return total


def best_static_split(cluster_factory, workload: Workload, scheduler="fair", *, slots_per_node: int = 12,
                      metric: str = "makespan", seed: int = 0, **options) -> dict:
    """Stock Hadoop's best static slot configuration, found by trying them all.

    ``cluster_factory(map_slots, reduce_slots)`` builds the cluster with that many map and reduce
    slots per node; every split m + r = ``slots_per_node`` with m, r >= 1 is simulated under
    ``scheduler`` (a name or a configured scheduler) with the engine ``options``. Returns a dict
    with ``map_slots``, ``reduce_slots``, ``value`` (the best ``metric`` of ``result.summary()``,
    lower is better), ``result`` (the best run) and ``table`` (one row per split).
    """
    from ._simulate import simulate

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


def dynamicmr_cluster(map_slots: int = 6, reduce_slots: int = 6, nodes: int = 9) -> Cluster:
    """DynamicMR's testbed (seed003 §6.1): 9 slaves of 12 slots in one rack; the map/reduce
    split per node is not given in the paper (6 + 6 by default)."""
    return Cluster(nodes=nodes, racks=1, map_slots=map_slots, reduce_slots=reduce_slots)


def speedup(baseline_time: float, new_time: float) -> float:
    """DynamicMR's performance improvement in percent: (T_baseline / T_new - 1) x 100."""
    return (float(baseline_time) / float(new_time) - 1.0) * 100.0


# ------------------------------------------------------------------------------------------
# EAS reproduction (seed001 §5)

#: Engine options of the EAS experiments: no map/reduce overlap inside a job (slowstart 1.0,
#: assumption (i)); one rack, so a non-local read costs the same as an off-rack one.
EAS_OPTIONS = {"slowstart": 1.0, "rack_local_factor": 1.5, "remote_factor": 1.5}


def eas_strategies(assign_multiple: bool = True) -> dict:
    """The five strategies of the EAS paper as configured schedulers: EAS, FIFO-BE, FIFO-S,
    HFS-BE (Fair without delay scheduling, the spec's default reading) and HFS-S."""
    from . import schedulers as s
    return {
        "EAS": s.get("eas"),
        "FIFO-BE": s.get("fifo"),
        "FIFO-S": s.get("fifo", strict_locality=True),
        "HFS-BE": s.get("fair", locality_delay=0, assign_multiple=assign_multiple),
        "HFS-S": s.get("fair", strict_locality=True, assign_multiple=assign_multiple),
    }


def eas_experiment(replications=range(1, 8), seeds=range(5), strategies: dict | None = None,
                   cluster: Cluster | None = None, **options) -> pd.DataFrame:
    """Runs every strategy on the ``eas_table1`` workload for each replication factor and seed
    (the seed draws arrivals, the job order and block placement). One row per run with
    ``total_flowtime``, ``locality`` (node-local map fraction), ``map_throughput`` and
    ``reduce_throughput`` (MB/s summed over machines, eqs. 3-4), ``load_balance`` (Fig. 4's value
    before normalisation) and ``makespan``. ``options`` override :data:`EAS_OPTIONS`."""
    from . import datasets
    from ._simulate import simulate

    strategies = eas_strategies() if strategies is None else strategies
    cluster = eas_cluster() if cluster is None else cluster
    opts = EAS_OPTIONS | options
    rows = []
    for rf in replications:
        for seed in seeds:
            wl = datasets.load("eas_table1", replication=int(rf), seed=int(seed))
            for name, sched in strategies.items():
                res = simulate(cluster, wl, sched, seed=int(seed), **opts)
                s = res.summary()
                rows.append({
                    "replication": int(rf), "seed": int(seed), "strategy": name,
                    "total_flowtime": float(s["total_flowtime"]), "locality": float(s["locality_node"]),
                    "map_throughput": float(machine_throughput(res, "map")["throughput"].sum() / 2**20),
                    "reduce_throughput": float(machine_throughput(res, "reduce")["throughput"].sum() / 2**20),
                    "load_balance": map_load_balance(res), "makespan": float(s["makespan"]),
                })
    return pd.DataFrame(rows)


def phase_breakdown(result) -> pd.Series:
    """OMO's phases of a run (Fig. 4.18), cluster-wide: ``map_only`` = [first map start, first
    reduce start), ``overlap`` = [first reduce start, last map end), ``shuffle_only`` = [last
    map end, last shuffle (copy) end); plus ``reduce_only`` = [last copy end, last finish)."""
    t = result.tasks
    t = t[t["status"] == "succeeded"]
    maps, reds = t[t["stage"] == "map"], t[t["stage"] == "reduce"]
    first_map = maps["start"].min()
    last_map = maps["finish"].max()
    first_red = reds["start"].min() if len(reds) else last_map
    last_copy = reds["copy_end"].max() if len(reds) else last_map
    end = t["finish"].max()
    return pd.Series({"map_only": max(0.0, min(first_red, last_map) - first_map),
                      "overlap": max(0.0, last_map - first_red),
                      "shuffle_only": max(0.0, last_copy - last_map),
                      "reduce_only": max(0.0, end - max(last_copy, last_map))})


def last_batch_sizes(result, window: float = 10.0) -> pd.Series:
    """Per job, the size of its "last batch" of maps (Fig. 4.10): the maps whose finish times lie
    within ``window`` seconds of the job's last map finish (the spec's first reading)."""
    t = result.tasks
    m = t[(t["status"] == "succeeded") & (t["stage"] == "map")]
    last = m.groupby("job_id")["finish"].transform("max")
    return (m["finish"] >= last - window).groupby(m["job_id"]).sum().rename("last_batch")
