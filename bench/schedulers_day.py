"""Every MapReduce-engine scheduler on a day of Facebook's 2010 workload (SWIM's
FB-2010_samples_24_times_1hr_0.tsv: 24,442 jobs, 16.9 M tasks) on 3,000 nodes.

    PYTHONPATH=python python bench/schedulers_day.py [--trace PATH] [--nodes 3000] [--schedulers fifo,fair,...]

Reads the trace once, then simulates it under each scheduler in turn (default: every scheduler
of the catalogue whose engine is "mapreduce") and prints per scheduler the wall time of
simulate, the process's CPU time during it (the run's helper threads included), the engine's own
CPU time (Result.cpu_seconds), the events and the jobs finished. The trace is looked up in
--trace, $SCHEDLAB_TRACES/swim or a shared/traces/swim folder above this file.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would spin on the CPU clock
import pathlib
import sys
import time

import schedlab as sl

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from swim_day import find  # noqa: E402  (the trace's lookup, shared)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace")
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--schedulers", help="comma-separated names (default: every mapreduce-engine scheduler)")
    a = ap.parse_args()
    catalogue = sl.schedulers.available()
    names = a.schedulers.split(",") if a.schedulers else list(catalogue[catalogue["engine"] == "mapreduce"]["name"])
    wl = sl.read_trace(find(a.trace))
    cluster = sl.Cluster(nodes=a.nodes)
    print(f"{wl.n_jobs:,} jobs, {wl.n_tasks:,} tasks on {a.nodes:,} nodes")
    print(f"{'scheduler':<18} {'wall s':>8} {'cpu s':>8} {'engine s':>9} {'events':>12} {'jobs done':>10}", flush=True)
    for name in names:
        w, c = time.perf_counter(), time.process_time()
        r = sl.simulate(cluster, wl, name, seed=0)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        done = int(r.jobs["finish_time"].notna().sum())
        print(f"{name:<18} {wall:8.2f} {cpu:8.2f} {r.cpu_seconds:9.2f} {r.events:12,} {done:10,}", flush=True)
        del r


if __name__ == "__main__":
    main()
