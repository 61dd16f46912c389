"""Throughput of the MapReduce slot engine.

    python bench/bench_mapreduce.py [--tasks 1000000] [--nodes 10000] [--scheduler fair] [--repeat 3]

Prints simulated events per second, tasks per second and peak memory for (1) a synthetic
workload of ~1,000,000 tasks on 10,000 nodes and (2) the Google sample trace
../shared/traces/hawk_eagle/GOOG_subtrace.tr (when present) on 1,000 nodes. Each run is repeated
(--repeat) and the best and median CPU times are printed: on a shared machine the best is the
closest to the code's own cost, the median says how much the machine's load moved it.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would spin on the CPU clock
import pathlib
import resource
import time

import numpy as np

import schedlab as sl


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(label, cluster, workload, scheduler, repeat=1, **options):
    cpus = []
    for _ in range(repeat):
        c0 = time.process_time()
        r = sl.simulate(cluster, workload, scheduler, seed=0, **options)
        cpus.append(time.process_time() - c0)  # CPU time of the one simulating thread: robust to other load
    best, median = min(cpus), float(np.median(cpus))
    print(f"{label}: {workload.n_jobs:,} jobs, {workload.n_tasks:,} tasks, {cluster.n_nodes:,} nodes, {scheduler}")
    print(f"  simulated {r.end_time:,.0f} s in {best:.2f} s of CPU (best of {repeat}; median {median:.2f} s)")
    print(f"  {r.events:,} events -> {r.events / best / 1e6:.2f} M events/s (median {r.events / median / 1e6:.2f}); "
          f"{workload.n_tasks / best / 1e6:.3f} M tasks/s (per CPU second)")
    if "fair_map_scans" in r.counters:  # delay scheduling's scans (see README Performance)
        c = r.counters
        launched = int((r.tasks["stage"] == "map").sum())
        print(f"  map scans {c['fair_map_scans']:,.0f}, of which answered without visits "
              f"{c['fair_map_scans_without_visits']:,.0f}; {c['fair_map_job_visits']:,.0f} job visits "
              f"({c['fair_map_job_visits'] / max(launched, 1):.1f} per map attempt)")
    print(f"  peak RSS so far: {peak_rss_mb():,.0f} MB")
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=1_000_000)
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--scheduler", default="fair")
    ap.add_argument("--rates", default="0.1,0.5", help="job arrival rates (jobs/s) to try, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each case (best and median CPU time are printed)")
    args = ap.parse_args()

    # (1) synthetic: jobs of 400 maps + 100 reduces arriving as a Poisson process; at 0.1 jobs/s
    # the cluster is lightly loaded, at 0.5 jobs/s about half its map slots are busy
    per_job = 500
    jobs = max(1, args.tasks // per_job)
    cluster = sl.Cluster(nodes=args.nodes, racks=max(1, args.nodes // 40), map_slots=2, reduce_slots=2)
    for rate in (float(x) for x in args.rates.split(",")):
        t0 = time.perf_counter()
        wl = sl.synthetic.generate(jobs=jobs, seed=1, rate=rate, maps=("constant", 400), reduces=("constant", 100),
                                   map_work=("exponential", 40.0), reduce_work=("exponential", 60.0), users=20)
        print(f"built synthetic workload (rate {rate} jobs/s) in {time.perf_counter() - t0:.1f} s")
        run(f"synthetic, {rate} jobs/s", cluster, wl, args.scheduler, args.repeat)

    # (2) the Google sample trace, maps only, on 1,000 nodes with 4 map slots each
    goog = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "hawk_eagle" / "GOOG_subtrace.tr"
    goog = pathlib.Path(os.environ.get("SCHEDLAB_GOOG", goog))
    if goog.exists():
        t0 = time.perf_counter()
        wl = sl.read_trace(goog)
        print(f"read {goog.name} in {time.perf_counter() - t0:.1f} s")
        cluster = sl.Cluster(nodes=1000, racks=25, map_slots=4, reduce_slots=0)
        run("GOOG_subtrace", cluster, wl, args.scheduler, args.repeat)
    else:
        print(f"{goog} not present: skipped")


if __name__ == "__main__":
    main()
