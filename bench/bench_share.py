"""Throughput of the fair-sharing (share) engine.

    python bench/bench_share.py [--nodes 300] [--jobs 28880] [--span 50000] [--schedulers eunomia,tsf,choosy]

Builds a macro-benchmark-like cluster (10 performance types) and the synthetic constrained
workload of schedlab.papers.zhou2019.macro_workload scaled to the given size (by default ten times the
dissertation's macro-benchmark in jobs and time on three times its nodes), and prints simulated
events, tasks per CPU second, utilization and peak memory per scheduler.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import resource
import time

import schedlab as sl
from schedlab.papers import zhou2019


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=28880)
    ap.add_argument("--span", type=float, default=50000.0)
    ap.add_argument("--schedulers", default="eunomia,tsf,choosy")
    args = ap.parse_args()
    t0 = time.perf_counter()
    cluster, attrs = zhou2019.macro_cluster(seed=0, nodes=args.nodes)
    wl = zhou2019.macro_workload(cluster, attrs, seed=0, jobs=args.jobs, span=args.span, trace=None)
    print(f"built {wl.n_jobs:,} jobs / {wl.n_tasks:,} tasks on {cluster.n_nodes:,} nodes in {time.perf_counter() - t0:.1f} s")
    for s in args.schedulers.split(","):
        c0 = time.process_time()
        r = sl.simulate(cluster, wl, s, seed=0, performance=zhou2019.MACRO_PERFORMANCE_OPTION, sample_interval=0)
        cpu = time.process_time() - c0
        print(f"{s}: simulated {r.end_time:,.0f} s in {cpu:.2f} s of CPU; {r.events:,} events -> "
              f"{r.events / cpu / 1e6:.2f} M events/s, {wl.n_tasks / cpu / 1e6:.3f} M tasks/s; "
              f"vcore utilization {r.counters['vcore_utilization']:.2f}; "
              f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")


if __name__ == "__main__":
    main()
