"""Throughput of the spark engine on a synthetic load of 1,000 executors.

    python bench/bench_spark.py [--executors 1000] [--cores 4] [--jobs 20000] [--load 0.8]
                                [--schedulers spark_fifo,spark_fair] [--repeat 3]

Spark jobs arrive as a Poisson process; each is a chain of 2-4 stages (the first one reads cached
partitions: each task prefers one random executor; later stages have no preference) of 4-64
tasks lasting lognormal durations (median 2 s). The arrival rate is set so that the executors'
cores are busy about ``--load`` of the time. Jobs are spread over 8 pools (FAIR: weights 1-4).
Prints simulated events, CPU seconds and events per CPU second for each scheduler (best of
``--repeat`` runs), with speculation and dynamic allocation off and on.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import resource
import time

import numpy as np
import pandas as pd

import schedlab as sl
from schedlab.engines import spark


def synthetic(executors: int, cores: int, jobs: int, load: float, seed: int = 0) -> sl.Workload:
    rng = np.random.default_rng(seed)
    n_stages = rng.integers(2, 5, jobs)
    stage_job = np.repeat(np.arange(jobs), n_stages)
    first = np.r_[0, np.cumsum(n_stages)[:-1]]
    stage_pos = np.arange(len(stage_job)) - np.repeat(first, n_stages)
    width = rng.integers(4, 65, len(stage_job))
    task_stage = np.repeat(np.arange(len(stage_job)), width)
    work = rng.lognormal(np.log(2.0), 0.6, len(task_stage))
    per_job_work = np.bincount(stage_job[task_stage], weights=work, minlength=jobs)
    rate = load * executors * cores / per_job_work.mean()
    submit = np.cumsum(rng.exponential(1 / rate, jobs))
    pools = rng.integers(0, 8, jobs)
    job_tab = pd.DataFrame({
        "job_id": np.arange(len(stage_job)),
        "submit_time": submit[stage_job],
        "dag": stage_job,
        "user": np.array([f"pool{p}" for p in range(8)])[pools[stage_job]],
    })
    child = np.flatnonzero(stage_pos > 0)
    deps = pd.DataFrame({"job_id": child, "parent_id": child - 1})
    cached = stage_pos[task_stage] == 0
    tasks = pd.DataFrame({
        "job_id": task_stage,
        "work": work,
        "replica_0": np.where(cached, rng.integers(0, executors, len(task_stage)), -1),
    })
    return sl.Workload.from_frames(job_tab, tasks, dependencies=deps, name="spark-synthetic")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--executors", type=int, default=1000)
    ap.add_argument("--cores", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--load", type=float, default=0.8)
    ap.add_argument("--schedulers", default="spark_fifo,spark_fair")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    t0 = time.perf_counter()
    w = synthetic(args.executors, args.cores, args.jobs, args.load)
    cluster = spark.cluster(args.executors, args.cores, racks=20)
    print(f"built {args.jobs:,} Spark jobs / {w.n_jobs:,} stages / {w.n_tasks:,} tasks on {args.executors:,} executors "
          f"x {args.cores} cores in {time.perf_counter() - t0:.1f} s")
    weights = {f"pool{p}": {"weight": 1 + p % 4} for p in range(8)}
    for name in args.schedulers.split(","):
        sched = spark.fair(w, pools=weights) if name == "spark_fair" else name
        for label, opts in (("plain", {}), ("speculation+dynamic", {"speculation": True, "dynamic_allocation": True,
                                                                     "executor_start_time": 2.0})):
            best = None
            for _ in range(args.repeat):
                c0 = time.process_time()
                r = sl.simulate(cluster, w, sched, seed=0, **opts)
                cpu = time.process_time() - c0
                best = cpu if best is None else min(best, cpu)
            s = r.summary()
            print(f"{name} {label}: {r.events:,} events, {len(r.tasks):,} attempts in {best:.2f} s of CPU -> "
                  f"{r.events / best / 1e6:.2f} M events/s, {len(r.tasks) / best / 1e6:.2f} M attempts/s; "
                  f"mean job-stage completion {s['mean_completion_time']:.1f} s, utilization {s['utilization']:.2f}, "
                  f"process-local {np.mean(r.tasks['spark_locality'] == 0):.2f}")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")


if __name__ == "__main__":
    main()
