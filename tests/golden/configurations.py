"""The golden configurations: small runs of every scheduler, under every speculator, with faults
and engine options, whose jobs and tasks tables are pinned by hash in ``schedules.json``.

A change that moves any of these schedules fails ``tests/python/core/test_golden_schedules.py``.
When the change is meant, regenerate the hashes with ``python tests/golden/regenerate.py`` and give
the reason in the commit message.
"""
from __future__ import annotations

import hashlib
import pathlib

import numpy as np
import pandas as pd

import schedlab as sl

GOLDEN_FILE = pathlib.Path(__file__).with_name("schedules.json")
# the schedules of trace_configurations(), on the shared real-trace samples
TRACE_GOLDEN_FILE = pathlib.Path(__file__).with_name("trace_schedules.json")

# the columns that define a schedule, per engine; new result columns do not move the goldens
JOB_COLUMNS = ["job_id", "submit_time", "start_time", "finish_time"]
TASK_COLUMNS = {
    "mapreduce": ["job_id", "task_id", "stage", "node", "slot", "start", "finish", "status", "locality",
                  "speculative", "copy_end"],
    "worker": ["job_id", "task_id", "node", "slot", "start", "finish", "status"],
    "share": ["job_id", "task_id", "node", "start", "finish", "status"],
}

SPECULATORS = ["hadoop", "late", "yarn", "esplash", "sepb"]
MAPREDUCE_OPTIONS = {
    "plain": {},
    **{f"spec_{s}": {"speculation": s} for s in SPECULATORS},
    "faults": {"faults": "slowdown:1:20.0:400.0:3.0;crash:4:60.0:200.0", "detection_delay": 30.0,
               "speculation": "hadoop"},
    "hb_slowstart": {"heartbeat_interval": 0.5, "slowstart": 0.5, "out_of_band_heartbeat": True},
}


def _mapreduce_workload(seed):
    return sl.synthetic.generate(jobs=10, rate=0.05, seed=seed, users=2, queues=2, maps=("randint", 1, 12),
                                 reduces=("randint", 0, 3), map_work=("exponential", 20.0),
                                 reduce_work=("exponential", 30.0), deadline_factor=("uniform", 1.5, 4.0))


def _mapreduce_cluster():
    return sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=1)


def _worker_workload(seed):
    rng = np.random.default_rng(seed)
    n = 40
    counts = rng.integers(1, 25, n)
    long_job = rng.random(n) < 0.2
    jobs = pd.DataFrame({"job_id": np.arange(n), "submit_time": np.sort(rng.uniform(0, 200, n))})
    work = np.concatenate([rng.exponential(200.0 if lj else 10.0, c) for lj, c in zip(long_job, counts)])
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(n), counts), "work": work})
    return sl.Workload.from_frames(jobs, tasks)


def _overloading_workload(seed):
    # short jobs of 1-40 s tasks (so that some probes fit a slack and some do not) arriving faster
    # than twelve workers serve them, and a few long ones
    rng = np.random.default_rng(seed)
    n = 1500
    counts = np.where(np.arange(n) % 7 == 0, rng.integers(1, 31, n), rng.integers(1, 7, n))
    scale = np.where(rng.random(n) < 0.05, 200.0, rng.uniform(1, 40, n))
    jobs = pd.DataFrame({"job_id": np.arange(n), "submit_time": np.cumsum(rng.exponential(0.2, n))})
    work = np.repeat(scale, counts) * rng.uniform(0.5, 1.5, counts.sum())
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(n), counts), "work": work})
    return sl.Workload.from_frames(jobs, tasks)


def configurations():
    """Yields (name, engine, thunk) where thunk() runs the simulation and returns its Result."""
    mr = sl.schedulers.available()
    for engine_name in ("mapreduce",):
        for sched in mr[mr["engine"] == engine_name]["name"]:
            for opt_name, opts in MAPREDUCE_OPTIONS.items():
                for seed in (1, 2):
                    yield (f"{sched}/{opt_name}/seed{seed}", "mapreduce",
                           lambda sched=sched, opts=opts, seed=seed: sl.simulate(
                               _mapreduce_cluster(), _mapreduce_workload(seed), sched, seed=seed, **opts))
    for sched in ("fifo", "fair"):
        yield (f"{sched}/strict_locality/seed1", "mapreduce",
               lambda sched=sched: sl.simulate(_mapreduce_cluster(), _mapreduce_workload(1),
                                               sl.schedulers.get(sched, strict_locality=True), seed=1))
    # YARN's speculator on a cluster with more than a thousand attempts running at once, reading only
    # the stages with min_finished finished tasks (its snapshot's selective and whole-list passes)
    yield ("fair/spec_yarn,min_finished=3,600_nodes/seed1", "mapreduce", lambda: sl.simulate(
        sl.Cluster(nodes=600, racks=20, map_slots=2, reduce_slots=1,
                   speeds=np.random.default_rng(3).choice([0.5, 1.0, 1.0, 1.5], size=600)),
        sl.synthetic.generate(jobs=40, rate=0.5, seed=3, maps=("randint", 50, 400), reduces=("randint", 0, 20),
                              map_work=("exponential", 30.0), reduce_work=("exponential", 40.0)),
        "fair", seed=1, speculation="yarn", speculation_params={"min_finished": 3}))
    worker_variants = [(s, {}) for s in mr[mr["engine"] == "worker"]["name"]] + [
        ("hawk", {"stealing": False}), ("hawk", {"steal_rule": "random"}), ("eagle", {"srpt": False}),
        ("eagle", {"sss": False, "sbp": False}), ("dice", {"base": "hawk"}), ("dice", {"elastic_sizing": False}),
        ("eirene", {"satc": False}), ("eirene", {"ccdm": False})]
    for sched, params in worker_variants:
        label = ",".join(f"{k}={v}" for k, v in params.items()) or "defaults"
        for seed in (1, 2):
            yield (f"{sched}/{label}/seed{seed}", "worker",
                   lambda sched=sched, params=params, seed=seed: sl.simulate(
                       sl.engines.worker.cluster(30), _worker_workload(seed), sl.schedulers.get(sched, **params),
                       seed=seed, cutoff=60.0, short_partition=0.2))
    # Eagle on an overloaded cluster, with queues of hundreds of probes: its SRPT pick passes whole
    # blocks of them where no probe can win
    yield ("eagle/overloaded_queues/seed1", "worker", lambda: sl.simulate(
        sl.engines.worker.cluster(12), _overloading_workload(1), "eagle", seed=1, cutoff=100.0, short_partition=0.25))
    for seed in (1, 2):  # the CP-SAT scheduler, on a fixed deterministic solver budget
        yield (f"mrcp/seed{seed}", "mapreduce",
               lambda seed=seed: sl.simulate(_mapreduce_cluster(), _mapreduce_workload(seed),
                                             sl.schedulers.get("mrcp", max_deterministic_time=0.05), seed=seed))
    from schedlab.papers import zhou2019
    for sched in mr[mr["engine"] == "share"]["name"]:
        for seed in (1, 2):
            yield (f"{sched}/seed{seed}", "share",
                   lambda sched=sched, seed=seed: sl.simulate(zhou2019.micro_cluster(), zhou2019.micro2_workload(
                       seed=seed, tasks_per_job=20), sched, seed=seed, performance=zhou2019.MICRO_PERFORMANCE_OPTION))


def trace_configurations():
    """Yields (name, engine, trace, run) on the shared real-trace samples: ``trace`` is a sample's
    path under the traces folder, ``run(path)`` simulates it and returns the Result. The worker
    engine's are the Hawk/Eagle simulator's own configurations (its three traces with its worker
    counts and presets); the MapReduce engine's, SWIM's FB-2009 day under every scheduler but
    ``mrcp`` (a solve per scheduling round: more than five minutes on this day) and, under
    ``fair``, every speculator and node crashes."""
    worker = sl.engines.worker
    for trace, workers, preset in (("YH1_sub.tr", 3000, "yahoo"), ("YH2_sub.tr", 4200, "yahoo"),
                                   ("GOOG_subtrace.tr", 5200, "google")):
        for sched in ("sparrow", "hawk", "eagle", "dice", "eirene"):
            yield (f"{trace}/{workers}_workers/{sched}/seed1", "worker", f"hawk_eagle/{trace}",
                   lambda path, workers=workers, preset=preset, sched=sched: sl.simulate(
                       worker.cluster(workers), worker.read_trace(path), sched, seed=1, **worker.preset(preset)))
    day = "swim/FB-2009_samples_24_times_1hr_0.tsv"
    options = {"plain": {}, **{f"spec_{s}": {"speculation": s} for s in SPECULATORS},
               "crashes": {"faults": "crash:4:600.0:2000.0", "speculation": "hadoop"}}
    mr = sl.schedulers.available()
    runs = [(s, "plain") for s in mr[mr["engine"] == "mapreduce"]["name"] if s != "mrcp"]
    runs += [("fair", o) for o in options if o != "plain"]
    for sched, opt in runs:
        yield (f"FB-2009_0/600_nodes/{sched}/{opt}/seed2", "mapreduce", day,
               lambda path, sched=sched, opt=opt: sl.simulate(
                   sl.Cluster(nodes=600, racks=20, map_slots=2, reduce_slots=1), sl.read_trace(path), sched, seed=2,
                   **options[opt]))


def _table_hash(df: pd.DataFrame, columns) -> str:
    h = hashlib.sha256()
    for c in columns:
        col = df[c]
        if pd.api.types.is_float_dtype(col):
            text = "\n".join(f"{v:.9g}" for v in col.to_numpy())
        else:
            text = "\n".join(map(str, col.tolist()))
        h.update(c.encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()[:24]


def fingerprint(engine, thunk) -> str:
    """The hash of a run's jobs and tasks tables, or the type and message of the error it raised."""
    try:
        r = thunk()
    except (ValueError, RuntimeError) as e:  # a configuration the library refuses is pinned too
        return f"error: {type(e).__name__}: {e}"
    return _table_hash(r.jobs, JOB_COLUMNS) + "-" + _table_hash(r.tasks, TASK_COLUMNS[engine])
