"""Zhou 2019: W. Zhou, "Improving Performance and Fairness for Big Data Job Schedulers in
Large-Scale Datacenters", PhD dissertation, University of Virginia, 2019 — Dice (ch. 3),
Eirene (ch. 4) and Eunomia (ch. 5): the clusters, workloads and presets of its experiments, and
offline Eunomia by progressive filling with linear programs.

Worker engine (Dice, Eirene): :data:`CLUSTER_SIZES` of the experiments and :func:`dice_params`
(Dice's MaxSPS per trace); the traces' cutoffs and short partitions are
:func:`schedlab.engines.worker.preset`.

Share engine (Eunomia against TSF, Choosy, DRF): the micro-benchmark cluster and workloads
(:func:`micro_cluster`, :func:`micro1_workload`, :func:`micro2_workload`, Table 5.3), the
macro-benchmark cluster and workload drawn from the Alibaba 2017 batch task table
(:func:`macro_cluster`, :func:`macro_workload`), :func:`monopoly_tasks` and
:func:`offline_eunomia`.

>>> import schedlab as sl
>>> from schedlab.papers import zhou2019
>>> r = sl.simulate(zhou2019.micro_cluster(), zhou2019.micro2_workload(seed=0), "eunomia",
...                 performance=zhou2019.MICRO_PERFORMANCE_OPTION)
>>> sl.engines.share.dispersion(r)    # Jain's index and max/min ratio of progress shares
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from ..core.cluster import Cluster
from ..core.workload import Workload
from ..engines.share import eligible_nodes
from ..engines.worker import PRESETS


#: Micro-benchmark node types [Zhou 2019, §5.4, Table 5.3]: 4 types x 5 nodes, 4 cores, 4 GB each.
MICRO_PERFORMANCE = (1.0, 1.5, 2.0, 3.0)


MICRO_PERFORMANCE_OPTION = ",".join(str(p) for p in MICRO_PERFORMANCE)


#: Macro-benchmark performance types [Zhou 2019, §5.4]: 1.00, 1.25, ..., 3.25.
MACRO_PERFORMANCE = tuple(1.0 + 0.25 * k for k in range(10))


MACRO_PERFORMANCE_OPTION = ",".join(str(p) for p in MACRO_PERFORMANCE)


# --------------------------------------------------------------------------------- experiments
def micro_cluster() -> Cluster:
    """The micro-benchmark cluster [Zhou 2019, §5.4, Table 5.3]: 20 nodes, types 0..3 (performance
    1, 1.5, 2, 3 via :data:`MICRO_PERFORMANCE_OPTION`), 5 nodes each, 4 cores and 4 GB per node."""
    return Cluster(nodes=20, racks=1, map_slots=4, reduce_slots=0, vcores=4.0, memory=4.0,
                   node_types=np.repeat(np.arange(4), 5))


def _durations(rng, mean, n, kind):
    if kind == "exponential":
        return rng.exponential(mean, n)
    if kind == "constant":
        return np.full(n, float(mean))
    raise ValueError(f"durations must be 'exponential' or 'constant', got {kind!r}")


def _jobs_frame(specs, cluster, rng, durations):
    jobs, tasks = [], []
    for name, arrival, n, mean, types in specs:
        elig = None if types is None else eligible_nodes(cluster, node_types=types)
        jobs.append({"job_id": name, "submit_time": float(arrival), "user": name, "eligible_nodes": elig})
        tasks.append(pd.DataFrame({"job_id": name, "work": _durations(rng, mean, n, durations),
                                   "vcores": 1.0, "memory": 1.0}))
    return pd.DataFrame(jobs), pd.concat(tasks, ignore_index=True)


def micro1_workload(seed: int = 0, durations: str = "exponential", cluster: Cluster | None = None) -> Workload:
    """Micro-benchmark 1 [Zhou 2019, §5.4, Table 5.4]: 4 users with one job each (arrivals 0, 10,
    150, 150 s; 1000/150/100/100 tasks of <1 core, 1 GB>; mean task time on type 1 23.2, 18.3,
    21.3, 55.6 s; allowed types all / 2-4 / 3-4 / 4, i.e. node types 0-3 / 1-3 / 2-3 / 3).
    Task durations are exponential with the given means (or constant) [Zhou 2019]."""
    cluster = cluster or micro_cluster()
    rng = np.random.default_rng(seed)
    specs = [("job1", 0, 1000, 23.2, None), ("job2", 10, 150, 18.3, [1, 2, 3]),
             ("job3", 150, 100, 21.3, [2, 3]), ("job4", 150, 100, 55.6, [3])]
    jobs, tasks = _jobs_frame(specs, cluster, rng, durations)
    return Workload.from_frames(jobs, tasks, name="eunomia-micro1")


def micro2_workload(seed: int = 0, durations: str = "exponential", tasks_per_job: int = 1000,
                    cluster: Cluster | None = None) -> Workload:
    """Micro-benchmark 2 [Zhou 2019, §5.4, Table 5.5]: 4 users, one job each, all at time 0, 1000
    tasks of <1 core, 1 GB> with mean 2 s on type 1; jobs 1-3 run anywhere, job 4 only on type 4
    (node type 3) — a user claiming a false constraint to get the fast nodes."""
    cluster = cluster or micro_cluster()
    rng = np.random.default_rng(seed)
    specs = [(f"job{i}", 0, tasks_per_job, 2.0, None) for i in (1, 2, 3)] + [("job4", 0, tasks_per_job, 2.0, [3])]
    jobs, tasks = _jobs_frame(specs, cluster, rng, durations)
    return Workload.from_frames(jobs, tasks, name="eunomia-micro2")


#: Node attributes of the macro-benchmark cluster and how often a node has each (a Sharma et
#: al.-style attribute model: constraints are conjunctions of required attributes).
MACRO_ATTRIBUTES = {"attr_a": 0.85, "attr_b": 0.65, "attr_c": 0.5, "attr_d": 0.35}


def macro_cluster(seed: int = 0, nodes: int = 100) -> tuple[Cluster, pd.DataFrame]:
    """The 100-node macro-benchmark cluster [Zhou 2019, §5.4] and its node-attribute table.

    Ten performance types 1.00..3.25 (:data:`MACRO_PERFORMANCE_OPTION`), ``nodes / 10`` nodes each
    [Zhou 2019 default]. The dissertation samples cores and memory from the Google machine
    table, which is not among the shared traces; this stand-in draws normalized CPU capacity
    from {0.25, 0.5, 1} (p = 0.05, 0.8, 0.15) x 32 cores and normalized memory from
    {0.25, 0.5, 0.75, 1} (p = 0.3, 0.5, 0.1, 0.1) x 128 GB, the shape of the Google machine
    mix (most machines half-size, a few full-size). Each node also gets the boolean attributes
    of :data:`MACRO_ATTRIBUTES`."""
    if nodes % 10:
        raise ValueError(f"macro_cluster: nodes must be a multiple of 10 (ten performance types), got {nodes}")
    rng = np.random.default_rng(seed)
    cores = 32.0 * rng.choice([0.25, 0.5, 1.0], size=nodes, p=[0.05, 0.8, 0.15])
    mem = 128.0 * rng.choice([0.25, 0.5, 0.75, 1.0], size=nodes, p=[0.3, 0.5, 0.1, 0.1])
    types = rng.permutation(np.repeat(np.arange(10), nodes // 10))
    attrs = pd.DataFrame({a: rng.random(nodes) < p for a, p in MACRO_ATTRIBUTES.items()})
    slots = np.maximum(cores.astype(np.int32), 1)  # one slot per core (used by the generic summary)
    cluster = Cluster(nodes=nodes, racks=1, map_slots=slots, reduce_slots=0, vcores=cores, memory=mem,
                      node_types=types)
    return cluster, attrs


def _alibaba_tasks(path) -> pd.DataFrame:
    d = pd.read_csv(path, skipinitialspace=True)
    d.columns = [c.strip() for c in d.columns]
    d = d[d["status"].astype(str).str.strip() == "Terminated"].copy()
    d["duration"] = d["task_end_time"] - d["task_create_time"]
    cpu = pd.to_numeric(d["number_of_cpus_requested_per_instance_in_the_task"], errors="coerce")
    mem = pd.to_numeric(d["normalized_memory_requested_per_instance_in_the_task"], errors="coerce")
    d = d.assign(cpus=cpu / 100.0, mem=mem)
    d = d[(d["duration"] > 0) & (d["task_create_time"] >= 0) & (d["cpus"] > 0) & (d["mem"] > 0)]
    return d.sort_values(["task_create_time", "job_id", "task_id"], kind="stable").reset_index(drop=True)


def macro_workload(cluster: Cluster, attrs: pd.DataFrame, seed: int = 0, *, jobs: int = 2888, span: float = 5000.0,
                   trace: str | pathlib.Path | None = None, max_tasks: int = 60, max_work: float = 3000.0,
                   unconstrained: float = 0.18, memory_scale: float = 128.0) -> Workload:
    """The macro-benchmark workload [Zhou 2019, §5.4]: ``jobs`` jobs (one user each) over ``span`` s.

    From the Alibaba 2017 batch task table (``trace``, e.g. ``../shared/traces/alibaba2017/
    batch_task.csv``): each terminated task row is one job; ``jobs`` rows are drawn (seeded)
    from the first ``span`` seconds of the trace and keep their creation times; the job has
    ``min(instances, max_tasks)`` tasks of <CPUs/100 cores, normalized memory x memory_scale GB>,
    each running the row's duration (capped at ``max_work``) on a type-1 node. The default cap
    of 60 gives about 21 tasks per job on the 2017 sample, near the dissertation's 63,976 /
    2,888 = 22.2.

    Without a trace, a documented synthetic generator stands in: Poisson arrivals, task counts
    1 + geometric(mean 21), per-task work lognormal (median 28 s, p90 ~430 s, the Alibaba
    terminated-task quantiles), task counts capped at ``max_tasks``, 0.5 or 1 core
    (p = 0.6, 0.4) and lognormal memory (median 0.7 GB).

    Constraints, after Sharma et al. (SoCC'11) as the dissertation says [Zhou 2019, §5.4]: a
    fraction ``unconstrained`` (18 %) of jobs may run anywhere; every other job requires one
    (p = 0.7) or two node attributes of :data:`MACRO_ATTRIBUTES`, drawn in proportion to their
    prevalence, and may run on the nodes having all of them (redrawn until some eligible node
    can hold its task). The constraint model is not calibrated further; the notebook reports
    the resulting node/job eligibility figures beside the dissertation's."""
    rng = np.random.default_rng(seed)
    if trace is not None:
        d = _alibaba_tasks(trace)
        t0 = d["task_create_time"].min()
        window = d[d["task_create_time"] < t0 + span]
        if len(window) < jobs:
            raise ValueError(f"macro_workload: only {len(window)} terminated tasks in the first {span} s of {trace}")
        pick = np.sort(rng.choice(len(window), size=jobs, replace=False))
        w = window.iloc[pick]
        submit = (w["task_create_time"] - t0).to_numpy(float)
        ntasks = np.minimum(w["number_of_instances"].to_numpy(np.int64), max_tasks)
        work = np.minimum(w["duration"].to_numpy(float), max_work)
        cpus = w["cpus"].to_numpy(float)
        mem = w["mem"].to_numpy(float) * memory_scale
        work_per_task = [np.full(n, x) for n, x in zip(ntasks, work)]
        source = "alibaba2017"
    else:
        submit = np.sort(rng.uniform(0, span, jobs))
        ntasks = 1 + rng.geometric(1 / 21.0, jobs)
        ntasks = np.minimum(ntasks, max_tasks)
        cpus = rng.choice([0.5, 1.0], size=jobs, p=[0.6, 0.4])
        mem = np.exp(rng.normal(np.log(0.7), 0.5, jobs))
        sigma = np.log(430 / 28) / 1.2816
        work_per_task = [np.minimum(np.exp(rng.normal(np.log(28), sigma, n)), max_work) for n in ntasks]
        source = "synthetic"
    node_vc = cluster.nodes["vcores"].to_numpy(float)
    node_mem = cluster.nodes["memory"].to_numpy(float)
    has = attrs.to_numpy(bool)  # nodes x attributes
    prev = has.mean(axis=0)
    elig = []
    for j in range(jobs):
        fits = (node_vc >= cpus[j]) & (node_mem >= mem[j])
        if not fits.any():
            raise ValueError(f"macro_workload: job {j}'s task <{cpus[j]} cores, {mem[j]} GB> fits no node")
        if rng.random() < unconstrained:
            elig.append(None)
            continue
        for _ in range(1000):
            k = 1 if rng.random() < 0.7 else 2
            req = rng.choice(has.shape[1], size=k, replace=False, p=prev / prev.sum())
            ok = has[:, req].all(axis=1) & fits
            if ok.any():
                elig.append(np.flatnonzero(ok).tolist())
                break
        else:
            elig.append(None)
    jobs_df = pd.DataFrame({"job_id": np.arange(jobs), "submit_time": submit, "user": np.arange(jobs),
                            "eligible_nodes": elig})
    lens = np.array([len(x) for x in work_per_task])
    tasks_df = pd.DataFrame({"job_id": np.repeat(np.arange(jobs), lens), "work": np.concatenate(work_per_task),
                             "vcores": np.repeat(cpus, lens), "memory": np.repeat(mem, lens)})
    return Workload.from_frames(jobs_df, tasks_df, name=f"eunomia-macro-{source}")


# ------------------------------------------------------------------------------ offline Eunomia
def monopoly_tasks(capacity: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """H[u, m] = min_r floor(A[m, r] / D[u, r]) over the resources u demands [Zhou 2019]."""
    A = np.asarray(capacity, float)
    D = np.asarray(demand, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(D[:, None, :] > 0, np.floor(A[None, :, :] / D[:, None, :] + 1e-9), np.inf)
    H = ratio.min(axis=2)
    if not np.isfinite(H).all():
        raise ValueError("monopoly_tasks: every user must demand some resource")
    return H


def offline_eunomia(capacity, demand, eligible, performance, weights=None, tasks=None, *, freeze: str = "progress",
                    integral: bool = False, tol: float = 1e-7) -> dict:
    """Offline Eunomia: max-min progress shares by progressive filling with linear programs
    [Zhou 2019, Algorithm 1, with its printed defects fixed].

    ``capacity``: M x R node capacities; ``demand``: N x R per-task demands; ``eligible``: N x M
    0/1 constraints; ``performance``: N x M (or M) normalized performance; ``weights``: N
    (default 1); ``tasks``: N task counts bounding each user (default unbounded).

    Each round maximizes the common share S of the active users (their progress equals
    S * W_u * sum_m H P), keeping every frozen user at its frozen level; a user is saturated when,
    with the other active users held at S and frozen users at their levels, its own share cannot
    rise above S. Saturated users are frozen. ``freeze="progress"`` (default) freezes each
    saturated user's progress sum T*P — the faithful max-min reading; ``"tasks"`` freezes its task
    count sum T as the printed algorithm does (the LP may then move its tasks to slower nodes).
    ``integral=True`` solves each LP as a MILP in T (HiGHS via linprog's ``integrality``); the
    default is the LP relaxation.

    Returns ``{"T": N x M allocation, "share": N progress shares, "rounds": count}``."""
    from scipy.optimize import linprog

    if freeze not in ("progress", "tasks"):
        raise ValueError(f"offline_eunomia: freeze must be 'progress' or 'tasks', got {freeze!r}")
    A = np.atleast_2d(np.asarray(capacity, float))
    D = np.atleast_2d(np.asarray(demand, float))
    C = np.asarray(eligible, float)
    N, M = D.shape[0], A.shape[0]
    if D.shape[1] != A.shape[1]:
        raise ValueError("offline_eunomia: demand and capacity must list the same resources")
    if C.shape != (N, M):
        raise ValueError(f"offline_eunomia: eligible must be {N} x {M}, got {C.shape}")
    P = np.asarray(performance, float)
    P = np.broadcast_to(P, (N, M)).astype(float)
    W = np.ones(N) if weights is None else np.asarray(weights, float)
    H = monopoly_tasks(A, D)
    den = W * (H * P).sum(axis=1)  # W_u sum_m H P, constraints removed (Eq. 5.1)
    pairs = [(u, m) for u in range(N) for m in range(M) if C[u, m] > 0]
    nv = len(pairs) + 1  # T variables, then S
    S_IDX = nv - 1
    prog_row = np.zeros((N, nv))
    task_row = np.zeros((N, nv))
    for k, (u, m) in enumerate(pairs):
        prog_row[u, k] = P[u, m]
        task_row[u, k] = 1.0
    cap_rows, cap_rhs = [], []
    for m in range(M):
        for r in range(A.shape[1]):
            row = np.zeros(nv)
            for k, (u, mm) in enumerate(pairs):
                if mm == m:
                    row[k] = D[u, r]
            if row.any():
                cap_rows.append(row)
                cap_rhs.append(A[m, r])
    bounds = [(0, None)] * (nv - 1) + [(0, None)]
    integrality = np.r_[np.ones(nv - 1), 0] if integral else None

    def solve(active, target, level, frozen):
        """Maximize the share of `target` users (one common S); others in `level` kept at >= their
        share value; frozen users at their frozen level."""
        A_ub, b_ub = list(cap_rows), list(cap_rhs)
        A_eq, b_eq = [], []
        for u in target:
            row = prog_row[u].copy()
            row[S_IDX] = -den[u]
            if integral:  # exact equality is rarely reachable with integers: progress >= S
                A_ub.append(-row)
                b_ub.append(0.0)
            else:
                A_eq.append(row)
                b_eq.append(0.0)
        for u, s in level.items():
            A_ub.append(-prog_row[u])
            b_ub.append(-s * den[u] + tol)
        for u, v in frozen.items():
            if freeze == "progress":
                A_ub.append(-prog_row[u])
            else:
                A_ub.append(-task_row[u])
            b_ub.append(-v + tol)
        if tasks is not None:
            for u in range(N):
                A_ub.append(task_row[u])
                b_ub.append(float(tasks[u]))
        c = np.zeros(nv)
        c[S_IDX] = -1.0
        res = linprog(c, A_ub=np.array(A_ub) if A_ub else None, b_ub=np.array(b_ub) if b_ub else None,
                      A_eq=np.array(A_eq) if A_eq else None, b_eq=np.array(b_eq) if b_eq else None,
                      bounds=bounds, method="highs", integrality=integrality)
        if res.status != 0:
            raise RuntimeError(f"offline_eunomia: LP failed: {res.message}")
        return res.x

    active = [u for u in range(N) if C[u].any()]
    frozen: dict = {}
    x = np.zeros(nv)
    rounds = 0
    while active:
        rounds += 1
        x = solve(active, active, {}, frozen)
        S = x[S_IDX]
        saturated = []
        for u in active:
            others = {v: S for v in active if v != u}
            y = solve(active, [u], others, frozen)
            if y[S_IDX] <= S + 1e-6:
                saturated.append(u)
        if not saturated:  # numerical safety: cannot happen for an exact LP solver
            saturated = list(active)
        for u in saturated:
            frozen[u] = float(prog_row[u] @ x) if freeze == "progress" else float(task_row[u] @ x)
        active = [u for u in active if u not in saturated]
        if rounds > N + 1:
            break
    T = np.zeros((N, M))
    for k, (u, m) in enumerate(pairs):
        T[u, m] = x[k]
    share = (T * P).sum(axis=1) / den
    return {"T": T, "share": share, "rounds": rounds}


#: Cluster sizes of the dissertation's experiments [Zhou 2019, §3.3.3, §3.4.3, §3.6 (Dice), §6.5 (Eirene)].
CLUSTER_SIZES = {
    "dice": {"yahoo": [3000, 4000, 5000], "cloudera": [11000, 12000, 13000], "google": [11000, 12000, 13000]},
    "eirene": {"yahoo": [3500, 4000, 4500, 5000], "cloudera": [13000, 13500, 14000, 14500],
               "google": [12000, 13000, 14000, 15000], "facebook": [50000, 55000, 60000, 65000]},
}


def dice_params(trace: str) -> dict:
    """Dice's per-trace scheduler parameters (MaxSPS as a fraction of the workers)."""
    key = str(trace).lower()
    if key not in PRESETS:
        raise ValueError(f"unknown trace preset {trace!r}; presets: {', '.join(PRESETS)}")
    return {"max_short_partition": PRESETS[key]["max_short_partition"]}



# ---------------------------------------------------------------------------------- claims
# Experiment functions of claims/zhou2019.toml (see schedlab.papers.claims). The Hawk/Eagle trace
# samples are read from the traces folder or ../shared/traces (never shipped); without them the
# hybrid claims raise FileNotFoundError and their tests skip.
import functools  # noqa: E402

from .claims import Measured  # noqa: E402


def _trace(name):
    from ..workloads.download import find_sample
    path = find_sample(f"hawk_eagle/{name}")
    if path is None:
        raise FileNotFoundError(f"the Hawk/Eagle trace sample {name} is not present (set SCHEDLAB_TRACES or "
                                "'schedlab config set traces FOLDER')")
    return pathlib.Path(path)


HYBRID_WORKERS = {"yahoo": {"small": (3000,), "full": (3000, 3500, 4000, 5000, 6000)},
                  "google": {"small": (8000,), "full": (6000, 8000, 10000, 12000)}}


@functools.lru_cache(maxsize=None)
def _hybrid(trace, workers, scheduler):
    from ..core.simulate import simulate
    from ..engines import worker
    wl = worker.read_trace(_trace({"yahoo": "YH1_sub.tr", "google": "GOOG_subtrace.tr"}[trace]))
    r = simulate(worker.cluster(workers), wl, scheduler, seed=0, **worker.preset(trace))
    s = r.summary(by="class", percentiles=(50, 90))
    return {f"p{p}": float(s.loc["short", f"p{p}_completion_time"]) for p in (50, 90)}


def _eagle_vs_hawk(trace, size):
    rows, vals = [], []
    for n in HYBRID_WORKERS[trace][size]:
        h, e = _hybrid(trace, n, "hawk"), _hybrid(trace, n, "eagle")
        for p in (50, 90):
            imp = 100.0 * (1 - e[f"p{p}"] / h[f"p{p}"])
            rows.append((f"{n} workers, P{p}", 0, imp))
            vals.append(imp)
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    # the claim holds at every worker count and percentile: the value is the smallest improvement
    return Measured([min(vals)], frame, note="Eagle's short-job improvement over Hawk (%), per worker count: " +
                    "; ".join(f"{l} {v:.1f}" for l, _, v in rows), ylabel="Eagle vs Hawk, short jobs (%)")


def claim_hawk_vs_sparrow(size="small"):
    """§3.2.2 (citing Hawk): Hawk completes short jobs faster than Sparrow; value: the smallest
    short-job improvement of Hawk over Sparrow at P50 and P90 over both samples and the worker
    counts of :data:`HYBRID_WORKERS`."""
    rows = []
    for trace in ("yahoo", "google"):
        for n in HYBRID_WORKERS[trace][size]:
            h, s = _hybrid(trace, n, "hawk"), _hybrid(trace, n, "sparrow")
            for p in (50, 90):
                rows.append((f"{trace} {n}, P{p}", 0, 100.0 * (1 - h[f"p{p}"] / s[f"p{p}"])))
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    return Measured([float(frame["value"].min())], frame,
                    note="Hawk's short-job improvement over Sparrow (%): " + "; ".join(f"{l} {v:.1f}" for l, _, v in rows),
                    ylabel="Hawk vs Sparrow, short jobs (%)")


def claim_eagle_vs_hawk_yahoo(size="small"):
    return _eagle_vs_hawk("yahoo", size)


def claim_eagle_vs_hawk_google(size="small"):
    return _eagle_vs_hawk("google", size)


MICRO2_SCHEDULERS = ("tsf", "choosy", "eunomia", "drf", "drfh")


def _micro_seeds(size):
    if size not in ("small", "full"):
        raise ValueError(f"size must be 'small' or 'full', got {size!r}")
    return (0,) if size == "small" else (0, 1, 2)


@functools.lru_cache(maxsize=None)
def micro2_runs(size="small") -> dict:
    """Micro-benchmark 2 (Table 5.5) as the claims run it: {(seed, scheduler): Result} for the
    schedulers of :data:`MICRO2_SCHEDULERS`, 1000 tasks per job (the dissertation's; with fewer the
    exponential task times alone spread the finishes), one seed at size "small", three at "full".
    Cached: treat the results as read-only."""
    from ..core.simulate import simulate
    out = {}
    for seed in _micro_seeds(size):
        wl = micro2_workload(seed=seed, tasks_per_job=1000)
        for s in MICRO2_SCHEDULERS:
            out[(seed, s)] = simulate(micro_cluster(), wl, s, seed=seed, performance=MICRO_PERFORMANCE_OPTION)
    return out


def claim_eunomia_equal_progress(size="small"):
    """Micro-2 (Fig. 5.4): Eunomia gives the four jobs equal progress shares, so they finish
    together; the value is the largest over smallest finish time (the dissertation: about 1)."""
    rows, vals = [], []
    for (seed, s), r in micro2_runs(size).items():
        if s not in ("tsf", "eunomia"):
            continue
        fin = r.jobs["finish_time"]
        rows.append((s, seed, float(fin.max() / fin.min())))
        if s == "eunomia":
            vals.append(float(fin.max() / fin.min()))
    return Measured(vals, pd.DataFrame(rows, columns=["label", "seed", "value"]),
                    ylabel="last / first job finish time, micro-2")


def claim_tsf_false_constraint(size="small"):
    """Micro-2 (Figs. 5.4-5.5): under TSF and Choosy job 4, which claims it can run only on type-4
    nodes, holds the largest share and finishes much earlier than jobs 1-3; the value is the mean
    finish time of jobs 1-3 over job 4's, the smaller of TSF's and Choosy's."""
    rows, per_seed = [], {}
    for (seed, s), r in micro2_runs(size).items():
        fin = r.jobs.set_index("job_id")["finish_time"]
        v = float(fin.drop("job4").mean() / fin["job4"])
        rows.append((s, seed, v))
        if s in ("tsf", "choosy"):
            per_seed[seed] = min(per_seed.get(seed, np.inf), v)
    return Measured([per_seed[k] for k in sorted(per_seed)], pd.DataFrame(rows, columns=["label", "seed", "value"]),
                    ylabel="jobs 1-3 mean finish / job 4 finish, micro-2")


# Dice (§3.6.2) and Eirene (§6.5) against their bases on the Yahoo sample at 3000 workers, where
# the sample overloads the short partition; one run per seed (the seed draws the probes).
HYBRID_SEEDS = {"small": (0,), "full": (0, 1, 2)}
DICE_WORKERS = EIRENE_WORKERS = 3000


@functools.lru_cache(maxsize=None)
def _yahoo_result(workers, scheduler, seed, options=()):
    """One replay of the Yahoo sample (cached; treat as read-only). ``scheduler``: a name or
    (name, ((param, value), ...)); ``options``: engine options over the Yahoo preset, as
    ((option, value), ...)."""
    from ..core.simulate import simulate
    from ..engines import worker
    from ..schedulers import get
    wl = _yahoo_workload()
    sched = scheduler if isinstance(scheduler, str) else get(scheduler[0], **dict(scheduler[1]))
    return simulate(worker.cluster(workers), wl, sched, seed=seed, **(worker.preset("yahoo") | dict(options)))


@functools.lru_cache(maxsize=None)
def _yahoo_workload():
    from ..engines import worker
    return worker.read_trace(_trace("YH1_sub.tr"))


def dice_config(base: str):
    """Dice on ``base`` ("hawk" or "eagle") with the dissertation's final Yahoo configuration."""
    return ("dice", tuple(sorted({"base": base, **dice_params("yahoo")}.items())))


def hybrid_improvements(size="small") -> pd.DataFrame:
    """Dice on Hawk and on Eagle against its base, and Eirene against Eagle, Yahoo sample at 3000
    workers: one row per (variant, seed) with the improvements of short and long jobs at P50, P75
    and P90 as the dissertation defines them (``engines.worker.improvement``: positive is better,
    so a long-job cost is negative)."""
    from ..engines.worker import improvement
    rows = []
    for seed in HYBRID_SEEDS[size]:
        for label, sched, base in (("Hawk+Dice vs Hawk", dice_config("hawk"), "hawk"),
                                   ("Eagle+Dice vs Eagle", dice_config("eagle"), "eagle"),
                                   ("Eirene vs Eagle", "eirene", "eagle")):
            imp = improvement(_yahoo_result(DICE_WORKERS, sched, seed), _yahoo_result(DICE_WORKERS, base, seed))
            rows.append({"variant": label, "seed": seed,
                         **{f"{c}_p{p}": float(imp.loc[c, f"p{p}"]) for c in ("short", "long") for p in (50, 75, 90)}})
    return pd.DataFrame(rows)


def _hybrid_claim(size, variant):
    t = hybrid_improvements(size)
    t = t[t["variant"] == variant]
    frame = t.melt(id_vars=["seed"], value_vars=["short_p50", "short_p90", "long_p50", "long_p90"],
                   var_name="label", value_name="value")[["label", "seed", "value"]]
    means = t[["short_p50", "short_p75", "short_p90", "long_p50", "long_p90"]].mean().round(1).to_dict()
    return Measured(list(t["short_p90"]), frame, note=f"{variant}, improvement % (mean over seeds; long jobs negative "
                                                      f"= a cost): {means}", ylabel=f"{variant}: improvement (%)")


def claim_dice_over_hawk(size="small"):
    return _hybrid_claim(size, "Hawk+Dice vs Hawk")


def claim_dice_over_eagle(size="small"):
    return _hybrid_claim(size, "Eagle+Dice vs Eagle")


def claim_eirene_over_eagle(size="small"):
    return _hybrid_claim(size, "Eirene vs Eagle")


def _class_percentiles(r, percentiles=(50, 75, 90)) -> dict:
    sm = r.summary(by="class", percentiles=percentiles)
    return {f"{c}_p{p}": float(sm.loc[c, f"p{p}_completion_time"]) if c in sm.index else float("nan")
            for c in ("short", "long") for p in percentiles}


# Table 3.1 (§3.6.1): the static short partition of Hawk and Eagle, Yahoo sample at 4000 workers
#: The dissertation's Table 3.1 (full Yahoo trace, 4000 nodes): short and long P50 / P75 / P90 (s).
PAPER_TABLE_3_1 = pd.DataFrame([
    ("hawk", 2, 327.7, 687.1, 1226.4, 3145.2, 6837.4, 10089.1), ("hawk", 4, 191.2, 322.3, 457.7, 3455.5, 7467.1, 10754.7),
    ("hawk", 6, 157.0, 243.8, 331.6, 3947.6, 8168.3, 11447.7), ("hawk", 8, 138.2, 204.3, 270.8, 4654.6, 8891.4, 12010.3),
    ("eagle", 2, 29.8, 59.1, 147.3, 3160.0, 6837.7, 10070.3), ("eagle", 4, 23.2, 42.0, 66.0, 3455.6, 7469.1, 10764.3),
    ("eagle", 6, 22.4, 40.4, 62.9, 3943.5, 8166.6, 11391.0), ("eagle", 8, 22.1, 39.9, 62.1, 4650.2, 8901.9, 12025.4)],
    columns=["scheduler", "short_partition_%", "short_p50", "short_p75", "short_p90", "long_p50", "long_p75", "long_p90"])
TABLE_3_1_WORKERS = 4000
TABLE_3_1_PARTITIONS = {"small": (2, 8), "full": (2, 4, 6, 8)}


def table_3_1(size="small") -> pd.DataFrame:
    """Table 3.1's runs: Hawk and Eagle on the Yahoo sample at 4000 workers with a static short
    partition of 2 and 8 % (and 4, 6 % at size "full"), one row per (scheduler, partition, seed)
    with short and long P50 / P75 / P90 (s)."""
    rows = []
    for seed in HYBRID_SEEDS[size]:
        for s in ("hawk", "eagle"):
            for sp in TABLE_3_1_PARTITIONS[size]:
                r = _yahoo_result(TABLE_3_1_WORKERS, s, seed, (("short_partition", sp / 100),))
                rows.append({"scheduler": s, "short_partition_%": sp, "seed": seed, **_class_percentiles(r)})
    return pd.DataFrame(rows)


def claim_partition_tradeoff(size="small"):
    """Table 3.1: a larger static short partition (2 -> 8 %) helps short jobs and hurts long jobs,
    for Hawk and for Eagle; value: the smallest of the short jobs' improvements and the long jobs'
    costs at P50 and P90 over both schedulers (%), per seed."""
    t = table_3_1(size)
    rows, vals = [], {}
    for (seed, s), g in t.groupby(["seed", "scheduler"], sort=False):
        a, b = g.set_index("short_partition_%").loc[2], g.set_index("short_partition_%").loc[8]
        for p in (50, 90):
            for label, v in ((f"{s} short P{p} gain", 100 * (1 - b[f"short_p{p}"] / a[f"short_p{p}"])),
                             (f"{s} long P{p} cost", 100 * (b[f"long_p{p}"] / a[f"long_p{p}"] - 1))):
                rows.append((label, seed, float(v)))
                vals[seed] = min(vals.get(seed, np.inf), float(v))
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    means = frame.groupby("label", sort=False)["value"].mean().round(1).to_dict()
    return Measured([vals[k] for k in sorted(vals)], frame,
                    note=f"2 -> 8 % short partition, Yahoo sample at 4000 workers, % (mean over seeds): {means}",
                    ylabel="short gain / long cost, 2 -> 8 % (%)")


def claim_dice_4000(size="small"):
    """§3.6.2: Dice (final Yahoo configuration) improves short jobs on Hawk and on Eagle at 4000
    workers too (the dissertation: P50 / P90 17.7 / 38.3 % on Hawk, 4.1 / 34.0 % on Eagle); value:
    the smallest short-job improvement at P50 and P90 over the two bases (%), per seed."""
    from ..engines.worker import improvement
    rows, vals = [], {}
    for seed in HYBRID_SEEDS[size]:
        for base in ("hawk", "eagle"):
            imp = improvement(_yahoo_result(4000, dice_config(base), seed), _yahoo_result(4000, base, seed))
            for c, p in (("short", 50), ("short", 90), ("long", 50), ("long", 90)):
                rows.append((f"{base}+Dice {c} P{p}", seed, float(imp.loc[c, f"p{p}"])))
                if c == "short":
                    vals[seed] = min(vals.get(seed, np.inf), float(imp.loc[c, f"p{p}"]))
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    means = frame.groupby("label", sort=False)["value"].mean().round(1).to_dict()
    return Measured([vals[k] for k in sorted(vals)], frame,
                    note=f"Dice against its base at 4000 workers, improvement % (mean over seeds; long jobs negative = a cost): {means}",
                    ylabel="Dice vs base at 4000 workers (%)")


# Eirene's two mechanisms over cluster sizes (§6.5, Fig. 4.8): CCDM under overload, SATC under light load
EIRENE_SIZES = {"small": (3000, 4000), "full": (3000, 6000)}
EIRENE_VARIANTS = {"eirene": ("eirene", ()), "CCDM only": ("eirene", (("satc", False),)),
                   "SATC only": ("eirene", (("ccdm", False),))}


def eirene_table(size="small") -> pd.DataFrame:
    """Eirene, CCDM alone and SATC alone against Eagle on the Yahoo sample at the smallest and
    largest cluster of :data:`EIRENE_SIZES`: one row per (workers, variant, seed) with the short
    jobs' improvements at P50 / P75 / P90, the long jobs' P90 cost and the beneficiary counters."""
    from ..engines.worker import improvement
    rows = []
    for seed in HYBRID_SEEDS[size]:
        for n in EIRENE_SIZES[size]:
            b = _yahoo_result(n, "eagle", seed)
            for variant, sched in EIRENE_VARIANTS.items():
                r = _yahoo_result(n, sched, seed)
                imp = improvement(r, b)
                rows.append({"workers": n, "variant": variant, "seed": seed,
                             **{f"short_p{p}": float(imp.loc["short", f"p{p}"]) for p in (50, 75, 90)},
                             "long_cost_p90": -float(imp.loc["long", "p90"]),
                             "ccdm_beneficiaries": float(r.counters.get("ccdm_beneficiaries", np.nan)),
                             "satc_beneficiaries": float(r.counters.get("satc_beneficiaries", np.nan))})
    return pd.DataFrame(rows)


def _eirene_claim(size, value, note, ylabel):
    t = eirene_table(size)
    vals, rows = [], []
    for seed, g in t.groupby("seed"):
        v, r = value(g.set_index(["workers", "variant"]), min(g["workers"]), max(g["workers"]))
        vals.append(v)
        rows += [(lab, seed, x) for lab, x in r]
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    means = frame.groupby("label", sort=False)["value"].mean().round(1).to_dict()
    return Measured(vals, frame, note=f"{note} (mean over seeds): {means}", ylabel=ylabel)


def claim_eirene_ccdm_overloaded(size="small"):
    """§6.5: overloaded (the smallest cluster), Eirene's gain over Eagle comes from CCDM; value:
    CCDM alone's short-job P90 improvement minus SATC alone's (points)."""
    def value(g, n0, n1):
        c, s = g.loc[(n0, "CCDM only"), "short_p90"], g.loc[(n0, "SATC only"), "short_p90"]
        return float(c - s), [(f"CCDM only, {n0}", c), (f"SATC only, {n0}", s)]
    return _eirene_claim(size, value, "short-job P90 improvement over Eagle at the smallest cluster, %",
                         "short P90 improvement over Eagle (%)")


def claim_eirene_satc_light(size="small"):
    """§6.5: lightly loaded (the largest cluster), the gain comes from SATC; value: SATC alone's
    short-job P50 improvement minus CCDM alone's (points)."""
    def value(g, n0, n1):
        c, s = g.loc[(n1, "CCDM only"), "short_p50"], g.loc[(n1, "SATC only"), "short_p50"]
        return float(s - c), [(f"CCDM only, {n1}", c), (f"SATC only, {n1}", s)]
    return _eirene_claim(size, value, "short-job P50 improvement over Eagle at the largest cluster, %",
                         "short P50 improvement over Eagle (%)")


def claim_eirene_beneficiaries(size="small"):
    """Fig. 4.8: as the cluster grows, CCDM's beneficiaries fall and SATC's rise; value: the
    smaller of the two relative changes from the smallest to the largest cluster (%: CCDM's fall,
    SATC's rise)."""
    def value(g, n0, n1):
        c0, c1 = g.loc[(n0, "eirene"), "ccdm_beneficiaries"], g.loc[(n1, "eirene"), "ccdm_beneficiaries"]
        s0, s1 = g.loc[(n0, "eirene"), "satc_beneficiaries"], g.loc[(n1, "eirene"), "satc_beneficiaries"]
        fall = 100 * (1 - c1 / c0) if c0 > 0 else float("nan")
        rise = 100 * (s1 / s0 - 1) if s0 > 0 else (float("inf") if s1 > 0 else 0.0)
        return float(min(fall, rise)), [(f"CCDM beneficiaries, {n0}", c0), (f"CCDM beneficiaries, {n1}", c1),
                                        (f"SATC beneficiaries, {n0}", s0), (f"SATC beneficiaries, {n1}", s1)]
    return _eirene_claim(size, value, "Eirene's beneficiary counters", "jobs")


# The Google-scale synthetic trace (500,000 jobs over 29 days on 15,000 workers; 5,000 jobs on 150 at size "small")
GOOGLE_SCALE = {"small": {"jobs": 5000, "workers": 150}, "full": {"jobs": 500_000, "workers": 15000}}


@functools.lru_cache(maxsize=None)
def _google_scale(size, seed):
    from ..core.simulate import simulate
    from ..engines import worker
    g = worker.google_scale(jobs=GOOGLE_SCALE[size]["jobs"], seed=seed, sample=worker.read_trace(_trace("GOOG_subtrace.tr")))
    out = {}
    for s in ("sparrow", "hawk", "eagle"):
        r = simulate(worker.cluster(GOOGLE_SCALE[size]["workers"]), g, s, seed=seed, **worker.preset("google"))
        out[s] = {**_class_percentiles(r, (50, 90)), "events": r.events, "wall_s": r.wall_seconds}
    return out


def google_scale_table(size="small") -> pd.DataFrame:
    """Sparrow, Hawk and Eagle on the Google-scale synthetic trace (``engines.worker.google_scale``
    drawn from the Google sample, :data:`GOOGLE_SCALE`), seed 0: short and long P50 / P90."""
    return pd.DataFrame([{"scheduler": s, **v} for s, v in _google_scale(size, 0).items()]).set_index("scheduler")


def claim_google_scale_order(size="small"):
    """§3.2.2 / §3.6: Eagle < Hawk < Sparrow for short jobs on a Google-scale trace; value: the
    smallest improvement (%) of Eagle over Hawk and of Hawk over Sparrow at P50 and P90 (seed 0)."""
    g = _google_scale(size, 0)
    rows = []
    for p in (50, 90):
        c = f"short_p{p}"
        rows.append((f"Eagle vs Hawk P{p}", 0, 100 * (1 - g["eagle"][c] / g["hawk"][c])))
        rows.append((f"Hawk vs Sparrow P{p}", 0, 100 * (1 - g["hawk"][c] / g["sparrow"][c])))
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    return Measured([float(frame["value"].min())], frame,
                    note=f"{GOOGLE_SCALE[size]['jobs']} jobs on {GOOGLE_SCALE[size]['workers']} workers, short-job "
                         "improvement %: " + "; ".join(f"{l} {v:.1f}" for l, _, v in rows),
                    ylabel="short-job improvement (%)")


# Micro-benchmark 1 (Fig. 5.3) and the macro-benchmark (§5.4.3, Figs. 5.6-5.7)
def claim_eunomia_micro1_equal_shares(size="small"):
    """Micro-1 (Fig. 5.3): once job 2 arrives (t = 10 s), Eunomia gives jobs 1 and 2 equal progress
    shares (about 50 % / 50 %); value: ``abs(share of job 1 - share of job 2)`` at t = 25 s (runtime =
    work / P), per seed."""
    from ..core.simulate import simulate
    from ..engines.share import progress_shares
    rows, vals = [], []
    for seed in _micro_seeds(size):
        r = simulate(micro_cluster(), micro1_workload(seed=seed), "eunomia", seed=seed, performance=MICRO_PERFORMANCE_OPTION)
        ps = progress_shares(r).loc[25.0]
        rows += [("job 1 share at 25 s", seed, float(ps["job1"])), ("job 2 share at 25 s", seed, float(ps["job2"]))]
        vals.append(float(abs(ps["job1"] - ps["job2"])))
    return Measured(vals, pd.DataFrame(rows, columns=["label", "seed", "value"]),
                    note="progress shares at 25 s, per seed: " + "; ".join(f"{l} (seed {s}) {v:.3f}" for l, s, v in rows),
                    ylabel="progress share at 25 s, micro-1")


MACRO = {"small": {"jobs": 500, "span": 900.0}, "full": {"jobs": 2888, "span": 5000.0}}


@functools.lru_cache(maxsize=None)
def macro_runs(size="small") -> dict:
    """The macro-benchmark as the claims run it: {(seed, scheduler, placement): Result} for Choosy,
    TSF and Eunomia with each one's default placement and with the common placements first_fit
    and fastest, on ``macro_cluster`` and ``macro_workload`` built from the Alibaba 2017 batch task
    sample (500 jobs over 900 s, one seed at size "small"; 2,888 over 5,000 s, three seeds at
    "full"). Cached: treat the results as read-only."""
    from ..core.simulate import simulate
    from ..schedulers import get
    from ..workloads.download import find_sample
    path = find_sample("alibaba2017/batch_task.csv")
    if path is None:
        raise FileNotFoundError("the Alibaba 2017 sample alibaba2017/batch_task.csv is not present (set SCHEDLAB_TRACES "
                                "or 'schedlab config set traces FOLDER')")
    out = {}
    for seed in _micro_seeds(size):
        mc, attrs = macro_cluster(seed=seed)
        wl = macro_workload(mc, attrs, seed=seed, jobs=MACRO[size]["jobs"], span=MACRO[size]["span"], trace=path)
        for s in ("choosy", "tsf", "eunomia"):
            for pl in ("default", "first_fit", "fastest"):
                cfg = get(s) if pl == "default" else get(s, placement=pl)
                out[(seed, s, pl)] = simulate(mc, wl, cfg, seed=seed, performance=MACRO_PERFORMANCE_OPTION, sample_interval=10)
    return out


def claim_eunomia_macro_like_baselines(size="small"):
    """Macro (Figs. 5.6-5.7): Eunomia's job delays are "nearly the same" as TSF's and Choosy's;
    value: the largest ``abs(Eunomia's mean completion delay / the baseline's - 1)`` (%) over TSF and
    Choosy under a common placement (first_fit, fastest), per seed (first 10 % of jobs dropped)."""
    from ..engines.share import delays
    runs = macro_runs(size)
    mean = {k: float(delays(r, warmup=0.1)["completion_delay"].mean()) for k, r in runs.items()}
    rows, vals = [], {}
    for (seed, s, pl), v in mean.items():
        if s == "eunomia" or pl == "default":
            continue
        d = 100 * (mean[(seed, "eunomia", pl)] / v - 1)
        rows.append((f"Eunomia / {s}, {pl}", seed, d))
        vals[seed] = max(vals.get(seed, 0.0), abs(d))
    frame = pd.DataFrame(rows, columns=["label", "seed", "value"])
    dflt = {s: round(100 * (mean[(seed, "eunomia", "default")] / mean[(seed, s, "default")] - 1), 1)
            for seed in vals for s in ("tsf", "choosy")}
    return Measured([vals[k] for k in sorted(vals)], frame,
                    note="Eunomia's mean completion delay against the baseline's, % (mean over seeds): "
                         f"{frame.groupby('label', sort=False)['value'].mean().round(1).to_dict()}; with each scheduler's "
                         f"default placement (Eunomia fastest free node, the others first fit; last seed): {dflt}",
                    ylabel="Eunomia / baseline mean completion delay - 1 (%)")
