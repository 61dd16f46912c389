"""Wang 2017: J. Wang, "Building Efficient Large-Scale Big Data Processing Platforms", PhD
dissertation, University of Massachusetts Boston, 2017 — FRESH (ch. 3), OMO (ch. 4) and eSplash
(ch. 5): the workloads, clusters, metrics and experiment functions that the notebooks
``fresh_omo.ipynb`` and ``esplash.ipynb``, the tests and the reproduction report call.

Workloads, built from ``datasets/wang_fresh.json`` and ``datasets/wang_omo.json`` and registered
by name (``schedlab.datasets.load(name, seed=0)``):

* ``fresh_simple_<benchmark>`` — 10 jobs of one benchmark on the same input, 2 s apart
  (options ``jobs``, ``size`` = "8G" | "4G");
* ``fresh_set_a`` … ``fresh_set_e`` — Tables 3.1-3.5, ordered by Johnson's rule on the jobs'
  profiled map and reduce workloads, 2 s apart;
* ``omo_simple_<benchmark>`` — 8 jobs of 20 GB (80 maps, 2 reduces), 2 s apart;
* ``omo_set_a`` … ``omo_set_h`` — Table 4.5 with Table 4.4's shuffle sizes, 2 s apart.

Task work is jittered uniformly by +-``work_jitter`` with a generator seeded by ``seed``; the
FRESH profiles (task estimates) carry a per-job, per-stage bias uniform in +-30 %.

Metrics and helpers: :func:`fresh_static_split` (FRESH-static's offline search over map/reduce
slot splits, Algorithm 3.3.1, as the ``fresh_static`` scheduler does it); :func:`overall_fairness`
(the overall fairness F(T) of §3.2 computed from any result's attempts, so schedulers that do not
record it themselves can be compared with FRESH, which records it as
``result.series["overall_fairness"]``); :func:`johnson_order`; OMO's :func:`phase_breakdown` and
:func:`last_batch_sizes`.

eSplash experiments (§5.3, :func:`run_esplash`): 8 nodes at 4 levels, 8 MapReduce jobs (2 each of
four benchmarks, 80 maps and 10 reduces), and four scenarios: no fault, a recoverable straggler at
level 1 and at level 4 (slowed for 1000 s), and an unrecoverable straggler (a level-4 node slowed
for 1000 s, then crashed and restarted 600 s later). Each speculator's makespan increase is
measured against its own no-fault run, and the time wasted in killed copies is summed. Modelling
choices the dissertation leaves open: levels 1-4 have 32, 16, 8 and 4 vcores on identical 8-core
machines, modelled as 32/16/8/4 map slots and 8/4/2/1 reduce slots per node with per-task speeds
8/vcores = 0.25, 0.5, 1 and 2; task works per benchmark are not given (the values below are chosen
so that a run lasts about as long as the paper's 1000 s windows matter); all jobs arrive at t = 0;
the slowdown starts at t = 100 s with factor 3; the crash detection delay is YARN's 600 s.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .. import _core
from ..core.cluster import Cluster
from ..core.faults import Crash, Slowdown
from ..core.simulate import simulate
from ..core.workload import Workload
from ..workloads.datasets import data_path, register


_GB = 2.0 ** 30


def _spec(name):
    with open(data_path(name)) as f:
        return json.load(f)


def _build(rows, name, seed, jitter, bias, interarrival, order_by_johnson=False):
    """rows: list of dicts (label, benchmark, size, maps, reduces, map_work, reduce_work,
    map_in, map_out, red_in)."""
    rng = np.random.default_rng(seed)
    tm, tr = [], []
    for r in rows:
        r["map_works"] = r["map_work"] * (1 + rng.uniform(-jitter, jitter, r["maps"]))
        r["reduce_works"] = r["reduce_work"] * (1 + rng.uniform(-jitter, jitter, r["reduces"]))
        r["bias"] = 1 + rng.uniform(-bias, bias, 2) if bias > 0 else np.ones(2)
        tm.append(r["map_works"].sum() * r["bias"][0])
        tr.append(r["reduce_works"].sum() * r["bias"][1])
    order = johnson_order(tm, tr) if order_by_johnson else np.arange(len(rows))
    jobs, frames = [], []
    for pos, i in enumerate(order):
        r = rows[i]
        m, n = r["maps"], r["reduces"]
        work = np.concatenate([r["map_works"], r["reduce_works"]])
        est = np.concatenate([r["map_works"] * r["bias"][0], r["reduce_works"] * r["bias"][1]])
        frames.append(pd.DataFrame({
            "job_id": pos, "stage": np.r_[np.zeros(m, int), np.ones(n, int)], "work": work, "estimate": est,
            "input_bytes": np.r_[np.full(m, r["map_in"]), np.full(n, r["red_in"])],
            "output_bytes": np.r_[np.full(m, r["map_out"]), np.zeros(n)]}))
        jobs.append({"job_id": pos, "submit_time": pos * interarrival, "benchmark": r["benchmark"],
                     "input": r["size"], "label": r["label"]})
    return Workload.from_frames(pd.DataFrame(jobs), pd.concat(frames, ignore_index=True), name=name)


# ---------------------------------------------------------------------------------- FRESH
def _fresh_row(spec, bench, size):
    b = spec["benchmarks"][bench]
    maps, reduces = b["tasks"][size]
    inp = spec["input_bytes"][size]
    block = inp / maps
    out = block * b["shuffle_ratio"]
    return {"label": f"{bench}-{size}", "benchmark": bench, "size": size, "maps": maps, "reduces": reduces,
            "map_work": b["map_work"], "reduce_work": b["reduce_work"], "map_in": block, "map_out": out,
            "red_in": out * maps / reduces}


def fresh_set_jobs(set_name: str) -> list:
    """The (benchmark, size) list of FRESH's Set A-E before Johnson ordering."""
    spec = _spec("wang_fresh.json")
    s = spec["sets"][set_name]
    if "repeat_of" in s:
        return [tuple(x) for x in spec["sets"][s["repeat_of"]]["jobs"]] * s["times"]
    return [tuple(x) for x in s["jobs"]]


def _fresh_set(set_name):
    def build(seed: int = 0, johnson: bool = True, interarrival: float | None = None):
        spec = _spec("wang_fresh.json")
        rows = [_fresh_row(spec, b, z) for b, z in fresh_set_jobs(set_name)]
        ia = spec["interarrival"] if interarrival is None else interarrival
        return _build(rows, f"fresh_set_{set_name.lower()}", seed, spec["work_jitter"], spec["profile_bias"], ia,
                      order_by_johnson=johnson)
    return build


def _fresh_simple(bench):
    def build(seed: int = 0, jobs: int | None = None, size: str | None = None):
        spec = _spec("wang_fresh.json")
        size = size or spec["simple"]["size"]
        if size not in spec["input_bytes"]:
            raise ValueError(f"fresh_simple_{bench}: size must be one of {list(spec['input_bytes'])}, got {size!r}")
        n = int(jobs or spec["simple"]["jobs"])
        if n < 1:
            raise ValueError(f"fresh_simple_{bench}: jobs must be at least 1, got {jobs!r}")
        rows = [_fresh_row(spec, bench, size) for _ in range(n)]
        return _build(rows, f"fresh_simple_{bench}", seed, spec["work_jitter"], spec["profile_bias"], spec["interarrival"])
    return build


# ---------------------------------------------------------------------------------- OMO
def _omo_row(spec, bench, gb):
    b = spec["benchmarks"][bench]
    maps = int(round(gb * _GB / spec["split_bytes"]))
    reduces = max(1, int(round(gb / 10)))
    shuffle = b["shuffle_gb_per_20gb"] * _GB * gb / 20.0
    return {"label": f"{bench}-{gb}G", "benchmark": bench, "size": f"{gb}G", "maps": maps, "reduces": reduces,
            "map_work": b["map_work"], "reduce_work": b["reduce_work"], "map_in": float(spec["split_bytes"]),
            "map_out": shuffle / maps, "red_in": shuffle / reduces}


def omo_set_jobs(set_name: str) -> list:
    """The (benchmark, GB) list of OMO's Set A-H in submission order: benchmarks cycle in
    Table 4.4's order; where a set has two sizes, each benchmark's larger job comes first."""
    spec = _spec("wang_omo.json")
    s = spec["sets"][set_name]
    benches = spec["order"] if s["benchmarks"] == "all" else s["benchmarks"]
    out = []
    for _ in range(s["per_benchmark"]):
        for b in benches:
            for gb in s["sizes"]:
                out.append((b, gb))
    return out


def _omo_set(set_name):
    def build(seed: int = 0):
        spec = _spec("wang_omo.json")
        rows = [_omo_row(spec, b, gb) for b, gb in omo_set_jobs(set_name)]
        return _build(rows, f"omo_set_{set_name.lower()}", seed, spec["work_jitter"], 0.0, spec["interarrival"])
    return build


def _omo_simple(bench):
    def build(seed: int = 0, jobs: int | None = None, size_gb: float | None = None):
        spec = _spec("wang_omo.json")
        n = int(jobs or spec["simple"]["jobs"])
        gb = float(size_gb or spec["simple"]["size_gb"])
        if n < 1 or gb <= 0:
            raise ValueError(f"omo_simple_{bench}: jobs must be >= 1 and size_gb > 0")
        rows = [_omo_row(spec, bench, gb) for _ in range(n)]
        return _build(rows, f"omo_simple_{bench}", seed, spec["work_jitter"], 0.0, spec["interarrival"])
    return build


FRESH_BENCHMARKS = ("classification", "invertedindex", "wordcount", "grep", "histogram_ratings", "histogram_movies")
OMO_BENCHMARKS = ("terasort", "seqcount", "wordcount", "invertedindex", "histmovies", "classification")

for _b in FRESH_BENCHMARKS:
    register(f"fresh_simple_{_b}", _fresh_simple(_b), f"FRESH simple workload: 10 x {_b} (8 GB), 2 s apart [Wang §3.4.2.1]")
for _s, _t in zip("ABCDE", ("3.1", "3.4", "3.5", "3.2", "3.3")):
    register(f"fresh_set_{_s.lower()}", _fresh_set(_s),
             f"FRESH mixed Set {_s} (Table {_t}), Johnson-ordered, 2 s apart [Wang §3.4.2.2]")
for _b in OMO_BENCHMARKS:
    register(f"omo_simple_{_b}", _omo_simple(_b), f"OMO simple workload: 8 x {_b} 20 GB (80 maps, 2 reduces), 2 s apart [Wang §4.4.2]")
for _s in "ABCDEFGH":
    register(f"omo_set_{_s.lower()}", _omo_set(_s), f"OMO mixed Set {_s} (Table 4.5) with Table 4.4 shuffle sizes, 2 s apart [Wang §4.4.2]")


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


# seconds of work at speed 1 per task, and shuffle bytes per reduce
ESPLASH_BENCHMARKS = {
    "terasort": dict(map_work=80.0, reduce_work=150.0, shuffle=2.0e9),
    "wordcount": dict(map_work=120.0, reduce_work=60.0, shuffle=0.2e9),
    "grep": dict(map_work=60.0, reduce_work=20.0, shuffle=0.01e9),
    "wordmean": dict(map_work=100.0, reduce_work=40.0, shuffle=0.01e9),
}


# The paper's numbers (text of §5.3; figures unavailable) [Wang 2017, §5.3]
ESPLASH_PAPER = pd.DataFrame([
    ("no fault", "wasted time in killed copies (s)", 3536, 343, None),
    ("straggler at level 1", "increased makespan vs yarn", None, "-65.7%", "-76.7% vs none"),
    ("straggler at level 4", "increased makespan vs yarn", None, "-66.7%", "-69.4% vs none; yarn +47.9% vs none"),
    ("crash + 600 s restart", "increased makespan vs yarn", None, "-45.8%", "-42.4% vs none"),
], columns=["scenario", "metric", "yarn (paper: 'LATE')", "esplash", "note"])


def esplash_cluster() -> Cluster:
    vcores = np.repeat([32, 16, 8, 4], 2)
    return Cluster(nodes=8, racks=1, map_slots=vcores, reduce_slots=vcores // 4, speeds=8.0 / vcores,
                   node_types=np.repeat([1, 2, 3, 4], 2))


def esplash_workload(small: bool = False, seed: int = 0) -> Workload:
    maps, reduces = (20, 3) if small else (80, 10)
    rng = np.random.default_rng(seed)
    jobs, tasks = [], []
    for j, bench in enumerate(list(ESPLASH_BENCHMARKS) * 2):
        b = ESPLASH_BENCHMARKS[bench]
        jobs.append({"job_id": j, "submit_time": 0.0, "benchmark": bench})
        for _ in range(maps):
            tasks.append({"job_id": j, "stage": "map", "work": b["map_work"] * rng.uniform(0.9, 1.1),
                          "input_bytes": 128e6})
        for _ in range(reduces):
            tasks.append({"job_id": j, "stage": "reduce", "work": b["reduce_work"] * rng.uniform(0.9, 1.1),
                          "input_bytes": b["shuffle"] * maps / 80})
    return Workload.from_frames(pd.DataFrame(jobs), pd.DataFrame(tasks), name="esplash-mixed")


def esplash_scenarios(start: float = 100.0, window: float = 1000.0, factor: float = 3.0, restart: float = 600.0) -> dict:
    """Fault lists: level-1 straggler (node 0), level-4 straggler (node 7), and the level-4
    straggler that then crashes and restarts."""
    return {
        "no fault": [],
        "straggler at level 1": [Slowdown(0, start, start + window, factor)],
        "straggler at level 4": [Slowdown(7, start, start + window, factor)],
        "crash + 600 s restart": [Slowdown(7, start, start + window, factor), Crash(7, start + window, restart)],
    }


def run_esplash(speculators=("none", "yarn", "esplash", "hadoop", "late"), small: bool = False, seeds=(0,),
        scheduler: str = "fair", speculation_params: dict | None = None, **scenario_args) -> pd.DataFrame:
    """One row per (seed, scenario, speculator): makespan, increased makespan against the same
    speculator's no-fault run, speculative copies (launched, killed, killed on a slower-or-equal
    node or on the slowed node) and the time wasted in killed copies."""
    cl = esplash_cluster()
    rows = []
    for seed in seeds:
        wl = esplash_workload(small, seed)
        base = {}
        for scen, faults in esplash_scenarios(**scenario_args).items():
            for spec in speculators:
                params = (speculation_params or {}).get(spec)
                kw = {"speculation_params": params} if params else {}
                r = simulate(cl, wl, scheduler, seed=seed, faults=faults, speculation=spec, **kw)
                s = r.summary()
                if scen == "no fault":
                    base[spec] = s["makespan"]
                rows.append({
                    "seed": seed, "scenario": scen, "speculation": spec, "makespan": s["makespan"],
                    "increased_makespan": s["makespan"] - base[spec],
                    "copies": s["speculative_attempts"], "copies_killed": s["speculative_killed"],
                    "killed_on_slower_or_equal_node": s.get("speculative_killed_on_slower_or_equal_node", 0.0),
                    "killed_on_slowed_node": s.get("speculative_killed_on_slowed_node", 0.0),
                    "wasted_copy_time": s["wasted_speculative_time"],
                    "lost_map_outputs": s["lost_map_outputs"],
                })
    return pd.DataFrame(rows)



# ---------------------------------------------------------------------------------- claims
# The experiment functions of claims/wang2017.toml: each takes size ("small" for CI, "full" for
# the report), runs the dissertation's experiment through the functions above and returns a
# claims.Measured (one value per seed, and the numbers behind it). Runs are cached per process,
# so claims sharing runs (the OMO table) simulate them once.
import functools  # noqa: E402

from .claims import Measured  # noqa: E402
from ..workloads.datasets import load as _load_dataset  # noqa: E402

#: Network bandwidth of the OMO experiments (bytes/s). A calibration, not a reproduced number:
#: chosen so that 8 x Terasort's shuffle continues about 293 s after the map phase under pooled
#: Fair-1, as the dissertation measured (§4.4.3.1); see the claim "calibration_fair1_tail".
OMO_BANDWIDTH = 3.66e7
OMO_SLOWSTARTS = (0.05, 0.2, 0.4, 0.6, 0.8, 1.0)


def pct(new, base):
    """The dissertation's improvement, (baseline - scheme) / baseline, in %."""
    return 100.0 * (np.asarray(base, float) - np.asarray(new, float)) / np.asarray(base, float)


def _seeds(size):
    if size not in ("small", "full"):
        raise ValueError(f"size must be 'small' or 'full', got {size!r}")
    return (0,) if size == "small" else (0, 1, 2)


def _cluster(key):
    kind, nodes = key
    if kind == "yarn":
        return Cluster(nodes=nodes, map_slots=2, reduce_slots=2, vcores=8, memory=40 * 1024)
    return Cluster(nodes=nodes, map_slots=2, reduce_slots=2)


def _scheduler(key):
    from ..schedulers import get
    return key if isinstance(key, str) else get(key[0], **dict(key[1]))


def run_one(cluster, workload: str, sched, seed: int = 0, opts=(), yarn_memory_gb=None):
    """One run of the chapters' experiments exactly as the claim functions make it; returns the
    :class:`~schedlab.Result` (the notebook draws its Gantt charts and time series from these).

    ``cluster``: ("typed", nodes) — nodes of 2 map + 2 reduce slots — or ("yarn", nodes) —
    NodeManagers of 8 vcores and 40 GB; ``workload``: a registered dataset name; ``sched``: a
    scheduler name or (name, ((param, value), ...)), e.g. a value of :data:`OMO_SCHEDULERS`;
    ``opts``: engine options as ((name, value), ...), e.g. :data:`OMO_OPTIONS`; ``yarn_memory_gb``:
    every task asks for a container of 2 vcores and that many GB (YARN:g of Table 4.6)."""
    from ..engines.mapreduce import with_containers
    wl = _load_dataset(workload, seed=seed)
    if yarn_memory_gb is not None:
        wl = with_containers(wl, map_vcores=2, map_memory=yarn_memory_gb * 1024)
    return simulate(_cluster(cluster), wl, _scheduler(sched), seed=seed, **dict(opts))


@functools.lru_cache(maxsize=None)
def _run(cluster, workload, sched, seed, opts=(), fairness=False, phases=False, yarn_memory_gb=None):
    """Summary numbers of one run (cached): makespan, and on request the overall fairness and
    OMO's phase breakdown and last-batch sizes."""
    r = run_one(cluster, workload, sched, seed, opts, yarn_memory_gb)
    out = {"makespan": float(r.summary()["makespan"]), "counters": dict(r.counters)}
    if fairness:
        out["fairness"] = fairness_mean(overall_fairness(r, interval=5.0))
    if phases:
        out["phases"] = phase_breakdown(r)
        out["last_batch"] = float(last_batch_sizes(r).mean())
    return out


def _frame(rows):
    return pd.DataFrame(rows, columns=["label", "seed", "value"])


# FRESH, Sets B-E (Figs. 3.8-3.9): FRESH with k = half the jobs against Fair and Capacity
def fresh_sets_schedulers(workload: str) -> dict:
    """The schedulers of Figs. 3.8-3.9 on a FRESH set, by label: Fair, Capacity (2 queues, at
    most 90 % each) and FRESH (fresh_dynamic with k = half the jobs), on 10 nodes of 2 + 2 slots."""
    n = _load_dataset(workload).n_jobs
    return {"Fair": "fair", "Capacity": ("capacity", (("max_capacity", 0.9), ("queues", 2))),
            "FRESH": ("fresh_dynamic", (("k", max(1, n // 2)),))}


FRESH_CLUSTER = ("typed", 10)


def fresh_sets_table(size="small") -> pd.DataFrame:
    """Makespan and time-averaged overall fairness of Fair, Capacity and FRESH per set and seed
    (Sets B-C at size "small", B-E at "full"): what the FRESH claims are computed from."""
    return _fresh_sets(size).copy()


def _fresh_sets(size):
    sets = ("b", "c") if size == "small" else ("b", "c", "d", "e")
    table = []
    for seed in _seeds(size):
        for s in sets:
            name = f"fresh_set_{s}"
            for lab, key in fresh_sets_schedulers(name).items():
                r = _run(FRESH_CLUSTER, name, key, seed, fairness=True)
                table.append({"set": s.upper(), "seed": seed, "scheduler": lab, "makespan": r["makespan"],
                              "fairness": r["fairness"]})
    return pd.DataFrame(table)


def _fresh_vs(size, base):
    t = _fresh_sets(size).pivot_table(index=["seed", "set"], columns="scheduler", values="makespan")
    imp = pd.Series(pct(t["FRESH"], t[base]), index=t.index)
    per_set = imp.groupby(level="set").mean().round(1).to_dict()
    rows = [(f"Set {s}", seed, v) for (seed, s), v in imp.items()]
    return Measured(list(imp.groupby(level="seed").mean()), _frame(rows),
                    note=f"FRESH (k = half the jobs) vs {base} per set, %: {per_set}",
                    ylabel=f"makespan reduction vs {base} (%)")


def claim_fresh_vs_fair_sets(size="small"):
    return _fresh_vs(size, "Fair")


def claim_fresh_vs_capacity_sets(size="small"):
    return _fresh_vs(size, "Capacity")


def claim_fresh_vs_fair_set_b_80_slots(size="small"):
    """Fig. 3.10: Set B on 20 slaves (S = 80 slots), FRESH (k = half the jobs) against Fair."""
    vals, rows = [], []
    for seed in _seeds(size):
        sched = fresh_sets_schedulers("fresh_set_b")
        fair = _run(("typed", 20), "fresh_set_b", sched["Fair"], seed)["makespan"]
        fresh = _run(("typed", 20), "fresh_set_b", sched["FRESH"], seed)["makespan"]
        vals.append(float(pct(fresh, fair)))
        rows += [("Fair", seed, fair), ("FRESH", seed, fresh)]
    return Measured(vals, _frame(rows), note=f"makespan reduction per seed, %: {[round(v, 1) for v in vals]}",
                    ylabel="makespan (s), Set B on 20 slaves")


def claim_fresh_fairness(size="small"):
    t = _fresh_sets(size)
    f = t[t["scheduler"] == "FRESH"].set_index(["seed", "set"])["fairness"]
    rows = [(f"FRESH, Set {s}", seed, v) for (seed, s), v in f.items()]
    return Measured(list(f.groupby(level="seed").min()), _frame(rows),
                    note="the lowest set's time-averaged F(T) per seed; per set: "
                         f"{f.groupby(level='set').mean().round(3).to_dict()}", ylabel="overall fairness F(T)")


def claim_fair_fairness(size="small"):
    t = _fresh_sets(size)
    f = t[t["scheduler"] == "Fair"].set_index(["seed", "set"])["fairness"]
    rows = [(f"Fair, Set {s}", seed, v) for (seed, s), v in f.items()]
    return Measured(list(f.groupby(level="seed").max()), _frame(rows),
                    note="the highest set's time-averaged F(T) per seed; per set: "
                         f"{f.groupby(level='set').mean().round(3).to_dict()}", ylabel="overall fairness F(T)")


# OMO (Figs. 4.15-4.17): 20 nodes of 4 slots, typed (2 map + 2 reduce, Fair-x) or pooled
def omo_workloads(size="small"):
    if size == "small":
        return ("omo_simple_terasort", "omo_simple_wordcount", "omo_set_a")
    return tuple(f"omo_simple_{b}" for b in OMO_BENCHMARKS) + tuple(f"omo_set_{s}" for s in "abcdefgh")


OMO_SCHEDULERS = {"FRESH": ("fresh_dynamic", (("k", 0),)), "Lazy Start": "omo_lazy_start",
                  "Batch Finish": "omo_batch_finish", "OMO": "omo"}
#: Engine options of every OMO-chapter run (the calibrated network bandwidth).
OMO_OPTIONS = (("network_bandwidth", OMO_BANDWIDTH),)
OMO_CLUSTER = ("typed", 20)


def omo_config(label: str):
    """(scheduler, options) of a column of :func:`omo_table`: "Fair-x" (typed 2 + 2 slots,
    slowstart x), "FairTotal-x" (pooled 4 slots, slowstart x) or a key of :data:`OMO_SCHEDULERS`;
    pass them to :func:`run_one` with :data:`OMO_CLUSTER`."""
    for prefix, name in (("FairTotal-", "fair_total"), ("Fair-", "fair")):
        if label.startswith(prefix):
            return name, OMO_OPTIONS + (("slowstart", float(label[len(prefix):])),)
    if label not in OMO_SCHEDULERS:
        raise ValueError(f"omo_config: unknown column {label!r}; Fair-x, FairTotal-x or one of {list(OMO_SCHEDULERS)}")
    return OMO_SCHEDULERS[label], OMO_OPTIONS


def omo_table(size="small", workloads=None) -> pd.DataFrame:
    """Makespans of the OMO chapter's schedulers per workload and seed: Fair-x on typed 2 + 2
    slots, FairTotal-x (the chapter's Fair on the pooled 4 slots) for each slowstart x, FRESH,
    Lazy Start, Batch Finish and OMO, with ``Fair:best`` and ``FairTotal:best`` per row."""
    rows = []
    labels = [f"{p}-{x:g}" for x in OMO_SLOWSTARTS for p in ("Fair", "FairTotal")] + list(OMO_SCHEDULERS)
    for seed in _seeds(size):
        for w in workloads or omo_workloads(size):
            row = {"workload": w, "seed": seed}
            for lab in labels:
                sched, opts = omo_config(lab)
                row[lab] = _run(OMO_CLUSTER, w, sched, seed, opts)["makespan"]
            rows.append(row)
    t = pd.DataFrame(rows)
    t["Fair:best"] = t[[f"Fair-{x:g}" for x in OMO_SLOWSTARTS]].min(axis=1)
    t["FairTotal:best"] = t[[f"FairTotal-{x:g}" for x in OMO_SLOWSTARTS]].min(axis=1)
    return t


def _omo_vs(size, scheme, base, workloads=None, what=""):
    t = omo_table(size, workloads)
    t["imp"] = pct(t[scheme], t[base])
    rows = [(w.replace("omo_simple_", "8 x ").replace("omo_set_", "Set "), s, v)
            for w, s, v in zip(t["workload"], t["seed"], t["imp"])]
    per = t.groupby("workload", sort=False)["imp"].mean()
    worse = int((per < 0).sum())
    return Measured(list(t.groupby("seed")["imp"].mean()), _frame(rows),
                    note=f"{scheme} vs {base}{what}, % per workload: {per.round(1).to_dict()}; worse on {worse} of {len(per)}",
                    ylabel=f"makespan reduction vs {base} (%)")


def claim_omo_vs_pooled_fair(size="small"):
    return _omo_vs(size, "OMO", "FairTotal:best", what=" (pooled 4 slots, best slowstart per workload)")


def claim_omo_vs_typed_fair(size="small"):
    return _omo_vs(size, "OMO", "Fair:best", what=" (typed 2 map + 2 reduce slots, best slowstart per workload)")


def claim_omo_vs_fresh(size="small"):
    return _omo_vs(size, "OMO", "FRESH")


def claim_lazy_start_terasort(size="small"):
    return _omo_vs(size, "Lazy Start", "FairTotal:best", workloads=("omo_simple_terasort",))


def _simple(size):
    return tuple(w for w in omo_workloads(size) if w.startswith("omo_simple_"))


def claim_batch_finish_vs_fresh(size="small"):
    return _omo_vs(size, "Batch Finish", "FRESH", workloads=_simple(size), what=" (simple workloads)")


def claim_batch_finish_vs_pooled_fair1(size="small"):
    return _omo_vs(size, "Batch Finish", "FairTotal-1", workloads=_simple(size), what=" (simple workloads, both slowstart 1)")


# Table 4.7: Set H on 40 slaves (160 slots)
SET_H_CLUSTER = ("typed", 40)


def set_h_table(size="small") -> pd.DataFrame:
    """Table 4.7's runs: Set H on 40 slaves, makespans of Fair-0.05 (Hadoop's default slowstart) and
    Fair-1 on typed 2 + 2 slots, the same two on pooled slots (FairTotal), FRESH and OMO; one row
    per seed (one seed at size "small", three at "full")."""
    rows = []
    for seed in _seeds(size):
        row = {"seed": seed}
        for lab in ("Fair-0.05", "Fair-1", "FairTotal-0.05", "FairTotal-1", "FRESH", "OMO"):
            sched, opts = omo_config(lab)
            row[lab] = _run(SET_H_CLUSTER, "omo_set_h", sched, seed, opts)["makespan"]
        rows.append(row)
    return pd.DataFrame(rows)


def _set_h_claim(size, base):
    t = set_h_table(size)
    v = pct(t["OMO"], t[base])
    frame = t.melt(id_vars="seed", var_name="label", value_name="value")[["label", "seed", "value"]]
    means = t.drop(columns="seed").mean().round(0).to_dict()
    return Measured(list(v), frame, note=f"makespans (s), mean over seeds: {means} (paper: Fair-default 1885, Fair-1 "
                                         f"2258, FRESH 2037, OMO 1238)", ylabel="makespan (s), Set H on 40 slaves")


def claim_omo_set_h_vs_pooled_fair(size="small"):
    return _set_h_claim(size, "FairTotal-0.05")


def claim_omo_set_h_vs_typed_fair(size="small"):
    return _set_h_claim(size, "Fair-0.05")


def claim_omo_set_h_vs_fresh(size="small"):
    return _set_h_claim(size, "FRESH")


def calibration_fair1_tail(size="small"):
    rows, vals = [], []
    for seed in _seeds(size):
        sched, opts = omo_config("FairTotal-1")
        ph = _run(OMO_CLUSTER, "omo_simple_terasort", sched, seed, opts, phases=True)["phases"]
        vals.append(float(ph["shuffle_only"]))
        rows += [(k.replace("_", " "), seed, float(v)) for k, v in ph.items()]
    return Measured(vals, _frame(rows), note=f"network_bandwidth = {OMO_BANDWIDTH:g} B/s was chosen to give this tail",
                    ylabel="seconds (8 x Terasort, pooled Fair-1)")


YARN_CLUSTER = ("yarn", 20)
YARN_MEMORY_GB = (2, 4, 6, 8)


def yarn_table(size="small") -> pd.DataFrame:
    """Table 4.6: makespans of 8 x Terasort under YARN:g (every task a container of 2 vcores and
    g GB on NodeManagers of 8 vcores and 40 GB) and under OMO, per seed (columns label, seed, value)."""
    return _yarn(size)


def _yarn(size):
    out = []
    for seed in _seeds(size):
        for g in YARN_MEMORY_GB:
            r = _run(YARN_CLUSTER, "omo_simple_terasort", "yarn", seed, OMO_OPTIONS, yarn_memory_gb=g)
            out.append((f"YARN:{g}", seed, r["makespan"]))
        sched, opts = omo_config("OMO")
        out.append(("OMO", seed, _run(OMO_CLUSTER, "omo_simple_terasort", sched, seed, opts)["makespan"]))
    return _frame(out)


def claim_yarn_memory_spread(size="small"):
    f = _yarn(size).pivot(index="seed", columns="label", values="value")
    v = pct(f[["YARN:4", "YARN:6", "YARN:8"]].mean(axis=1), f["YARN:2"])
    return Measured(list(v), _yarn(size), note="makespans (s): " + ", ".join(
        f"{c} {f[c].mean():.0f}" for c in f.columns), ylabel="makespan (s), 8 x Terasort")


def claim_omo_vs_yarn2(size="small"):
    f = _yarn(size).pivot(index="seed", columns="label", values="value")
    return Measured(list(pct(f["OMO"], f["YARN:2"])), _yarn(size), ylabel="makespan (s), 8 x Terasort")


# eSplash (§5.3)
def esplash_table(size="small") -> pd.DataFrame:
    """The eSplash runs the claims are computed from (:func:`run_esplash` with no speculation,
    YARN's and eSplash's, full-size workload; one seed at size "small", three at "full")."""
    return _esplash(size).copy()


@functools.lru_cache(maxsize=None)
def _esplash(size):
    runs = run_esplash(speculators=("none", "yarn", "esplash"), small=False, seeds=_seeds(size))
    return runs


def _esplash_claim(size, scenario, metric):
    runs = _esplash(size)
    d = runs[(runs["scenario"] == scenario) & (runs["speculation"] != "none")]
    p = d.pivot(index="seed", columns="speculation", values=metric)
    rows = [(s, seed, v) for seed, r in p.iterrows() for s, v in r.items()]
    return Measured(list(pct(p["esplash"], p["yarn"])), _frame(rows),
                    note=f"{metric} (s), mean: yarn {p['yarn'].mean():.0f}, esplash {p['esplash'].mean():.0f}",
                    ylabel=f"{metric.replace('_', ' ')} (s), {scenario}")


def claim_esplash_waste(size="small"):
    return _esplash_claim(size, "no fault", "wasted_copy_time")


def claim_esplash_straggler_level1(size="small"):
    return _esplash_claim(size, "straggler at level 1", "increased_makespan")


def claim_esplash_straggler_level4(size="small"):
    return _esplash_claim(size, "straggler at level 4", "increased_makespan")


def claim_esplash_crash(size="small"):
    return _esplash_claim(size, "crash + 600 s restart", "increased_makespan")
