"""Bytes per task of a workload and of a run's results, engine by engine, on the shared traces.

    python bench/bytes_per_task.py [--traces FOLDER] [--google-scale-jobs 100000]

For each engine, a run on a real trace where the engine has one (SWIM's Facebook days on the
MapReduce engine, the Hawk/Eagle simulator's Yahoo and Google samples and the Google-scale
replay on the worker engine, Alibaba 2017 on the share engine; Spark jobs of several stages are
synthetic, as in bench/bench_spark.py), it prints the bytes per task of the workload's columns
(``Workload.native().nbytes``) and of the result's columns as the engine hands them to Python
(every array of the run's jobs, attempts, probes and time series), and their sum. The pandas
tables (``Result.jobs``, ``Result.tasks``) are built from these columns on demand and are not
counted; bench/guard_bytes.py measures the peak memory of whole runs, tables included.
The traces are looked up in --traces, $SCHEDLAB_TRACES or a shared/traces folder above this file.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import pathlib
import sys

import schedlab as sl
from schedlab.engines import spark
from schedlab.papers import zhou2019

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_spark import synthetic as spark_synthetic  # noqa: E402
from swim_day import nbytes  # noqa: E402


def traces_folder(given):
    cands = [pathlib.Path(given)] if given else []
    if os.environ.get("SCHEDLAB_TRACES"):
        cands.append(pathlib.Path(os.environ["SCHEDLAB_TRACES"]))
    cands += [p / "shared" / "traces" for p in pathlib.Path(__file__).resolve().parents]
    for c in cands:
        if (c / "swim").is_dir() and (c / "hawk_eagle").is_dir():
            return c
    raise SystemExit("bytes_per_task: no traces folder with swim/ and hawk_eagle/ found; pass --traces FOLDER")


def cases(t: pathlib.Path, google_scale_jobs: int):
    """(engine, label, cluster, workload, scheduler, options) for each run, built lazily."""
    w = sl.engines.worker
    for day in ("FB-2009_samples_24_times_1hr_0.tsv", "FB-2010_samples_24_times_1hr_0.tsv"):
        wl = sl.read_trace(t / "swim" / day)
        yield "mapreduce", f"{day[:7]} day, fair, 3,000 nodes", sl.Cluster(nodes=3000), wl, "fair", {}
    wl = sl.read_trace(t / "swim" / "FB-2009_samples_24_times_1hr_0.tsv")
    yield ("mapreduce", "FB-2009 day, fair + LATE speculation + crashes, 600 nodes", sl.Cluster(nodes=600), wl,
           "fair", {"speculation": "late", "faults": "mtbf:200000:600:80000"})
    for name, workers, preset in (("YH1_sub.tr", 3000, "yahoo"), ("GOOG_subtrace.tr", 5200, "google")):
        wl = w.read_trace(t / "hawk_eagle" / name)
        yield "worker", f"{name}, eagle, {workers:,} workers", w.cluster(workers), wl, "eagle", w.preset(preset)
    wl = w.google_scale(jobs=google_scale_jobs, seed=0, sample=t / "hawk_eagle" / "GOOG_subtrace.tr")
    yield ("worker", f"Google scale ({google_scale_jobs:,} jobs), eagle, 15,000 workers", w.cluster(15000), wl,
           "eagle", w.preset("google"))
    cluster, attrs = zhou2019.macro_cluster(seed=0, nodes=300)
    wl = zhou2019.macro_workload(cluster, attrs, seed=0, jobs=28880, span=50000.0,
                                 trace=t / "alibaba2017" / "batch_task.csv")
    yield ("share", "Alibaba 2017 (28,880 jobs), eunomia, 300 nodes", cluster, wl, "eunomia",
           {"performance": zhou2019.MACRO_PERFORMANCE_OPTION, "sample_interval": 0})
    wl = spark_synthetic(1000, 4, 2000, 0.8)
    yield "spark", "synthetic (2,000 jobs of 2-4 stages), spark_fair, 1,000 x 4 cores", \
        spark.cluster(1000, 4, racks=20), wl, spark.fair(wl, pools={f"pool{p}": {"weight": 1 + p % 4} for p in range(8)}), {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces")
    ap.add_argument("--google-scale-jobs", type=int, default=100_000)
    a = ap.parse_args()
    t = traces_folder(a.traces)
    print(f"{'engine':<10} {'run':<62} {'tasks':>11} {'attempts':>11} {'workload':>9} {'results':>8} {'sum':>6} {'per attempt':>12}")
    for engine, label, cluster, wl, sched, options in cases(t, a.google_scale_jobs):
        r = sl.simulate(cluster, wl, sched, seed=0, **options)
        raw = r._raw
        attempts = raw.get("attempts", {}).get("task")
        n = wl.n_tasks
        work, res = wl.native().nbytes / n, nbytes(raw) / n
        n_att = len(attempts) if attempts is not None else n
        print(f"{engine:<10} {label:<62} {n:>11,} {n_att:>11,} {work:>9.1f} {res:>8.1f} {work + res:>6.1f} "
              f"{res * n / n_att:>12.1f}", flush=True)
    print("bytes per task: the workload's columns, the result's columns and their sum; per attempt: the result's")


if __name__ == "__main__":
    main()
