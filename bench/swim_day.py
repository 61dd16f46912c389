"""A day of Facebook's 2010 workload (SWIM's FB-2010_samples_24_times_1hr_0.tsv: 24,442 jobs,
16.9 M tasks) read, simulated under `fair` on 3,000 nodes and summarised per job.

    PYTHONPATH=python python bench/swim_day.py [--trace PATH] [--nodes 3000] [--scheduler fair] [--summary]
                                               [--tasks] [--parquet FILE]

Prints the wall and CPU time of each step (read_trace, simulate, Result.jobs; with --summary
also Result.summary(), with --parquet Result.to_parquet, with --tasks Result.tasks), the
resident memory after each and its peak so far, the peak per task, and the bytes per task of
the workload's columns and of the result's columns. The trace is looked up in --trace,
$SCHEDLAB_TRACES/swim or a shared/traces/swim folder above this file.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would spin on the CPU clock
import pathlib
import resource
import time

import schedlab as sl

NAME = "FB-2010_samples_24_times_1hr_0.tsv"


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2  # Linux: KiB


def rss_gb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024 ** 3


def nbytes(columns) -> int:
    """Bytes of the arrays in (nested) dicts of columns."""
    if isinstance(columns, dict):
        return sum(nbytes(v) for v in columns.values())
    if isinstance(columns, (tuple, list)):
        return sum(nbytes(v) for v in columns)
    return getattr(columns, "nbytes", 0)


def find(given):
    cands = [pathlib.Path(given)] if given else []
    if os.environ.get("SCHEDLAB_TRACES"):
        cands.append(pathlib.Path(os.environ["SCHEDLAB_TRACES"]) / "swim" / NAME)
    cands += [p / "shared" / "traces" / "swim" / NAME for p in pathlib.Path(__file__).resolve().parents]
    for c in cands:
        if c.exists():
            return c
    raise SystemExit(f"swim_day: {NAME} was not found; pass --trace PATH")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace")
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--scheduler", default="fair")
    ap.add_argument("--summary", action="store_true", help="also compute Result.summary()")
    ap.add_argument("--tasks", action="store_true", help="also build Result.tasks")
    ap.add_argument("--parquet", metavar="FILE", help="also write the tasks with Result.to_parquet(FILE)")
    a = ap.parse_args()
    path = find(a.trace)
    w0, c0 = time.perf_counter(), time.process_time()

    def step(label, t):
        w, c = time.perf_counter(), time.process_time()
        print(f"{label:<17} {w - t[0]:7.2f} s wall {c - t[1]:7.2f} s CPU   RSS {rss_gb():.2f} GB, peak {peak_gb():.2f} GB",
              flush=True)
        return w, c

    t = (w0, c0)
    wl = sl.read_trace(path)
    t = step("read_trace", t)
    r = sl.simulate(sl.Cluster(nodes=a.nodes), wl, a.scheduler, seed=0)
    t = step("simulate", t)
    jobs = r.jobs
    t = step("Result.jobs", t)
    if a.summary:
        r.summary()
        t = step("Result.summary", t)
    if a.parquet:
        r.to_parquet(a.parquet)
        t = step("Result.to_parquet", t)
    if a.tasks:
        r.tasks
        t = step("Result.tasks", t)
    print(f"{wl.n_jobs:,} jobs, {wl.n_tasks:,} tasks, {r.events:,} events; {a.scheduler} on {a.nodes:,} nodes; "
          f"{len(jobs):,} job rows")
    print(f"total {time.perf_counter() - w0:.2f} s wall, {time.process_time() - c0:.2f} s CPU; "
          f"peak RSS {peak_gb():.2f} GB = {peak_gb() * 1024 ** 3 / wl.n_tasks:.0f} bytes per task")
    raw = r._raw
    print(f"bytes per task: workload columns {wl.native().nbytes / wl.n_tasks:.1f}, result columns "
          f"{nbytes([raw['jobs'], raw['attempts'], raw['series']]) / wl.n_tasks:.1f} "
          f"({len(raw['attempts']['task']):,} attempts)")


if __name__ == "__main__":
    main()
