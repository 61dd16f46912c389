"""Parallel speed-up of schedlab.sweep: the same grid on 1 thread, on N threads, and on a Dask
LocalCluster of N worker processes.

    python bench/bench_sweep.py [--workers 2] [--runs 16] [--jobs 400]

Each run simulates a synthetic MapReduce workload under `fair` or `fifo` on 200 nodes; the core
releases the GIL, so threads run simulations side by side. Prints wall time per mode, the
speed-up over one thread, and checks that every mode gives the same table.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pandas as pd

import schedlab as sl


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--runs", type=int, default=16, help="runs in the grid (2 schedulers x runs/2 seeds)")
    ap.add_argument("--jobs", type=int, default=400, help="jobs per synthetic workload")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()

    workload = sl.synthetic.generate(jobs=args.jobs, seed=1, rate=0.05, maps=("uniform", 10, 200),
                                     reduces=("uniform", 1, 30), users=5, name="syn")
    grid = dict(schedulers=["fair", "fifo"], clusters={"nodes": 200, "racks": 10},
                workloads={"syn": workload}, seeds=range(max(1, args.runs // 2)))
    print(f"{args.runs} runs of {workload.n_jobs} jobs / {workload.n_tasks:,} tasks on 200 nodes; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")

    def timed(label, **kw):
        t0 = time.perf_counter()
        table = sl.sweep(**grid, progress=False, **kw)
        wall = time.perf_counter() - t0
        print(f"  {label:<28} {wall:7.2f} s wall")
        return table, wall

    base, t1 = timed("1 thread", workers=1)
    cols = ["scheduler", "seed", "makespan", "mean_completion_time", "events"]
    cols = [c for c in cols if c in base.columns]
    table, tn = timed(f"{args.workers} threads", workers=args.workers)
    pd.testing.assert_frame_equal(base[cols].reset_index(drop=True), table[cols].reset_index(drop=True))
    print(f"  speed-up with {args.workers} threads: {t1 / tn:.2f}x (same table)")
    if not args.no_dask:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            print("  dask.distributed not installed: skipped (pip install 'schedlab[dask]')")
            return
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            table, td = timed(f"Dask, {args.workers} processes", client=client)
        pd.testing.assert_frame_equal(base[cols].reset_index(drop=True), table[cols].reset_index(drop=True))
        print(f"  speed-up on Dask: {t1 / td:.2f}x (same table; includes shipping the workload to the workers)")


if __name__ == "__main__":
    main()
