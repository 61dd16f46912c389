"""Cost per scheduling decision: the built-in C++ ``fifo`` against the same policy written in
Python (``schedlab.schedulers.FifoInPython``), which makes identical decisions.

A decision is one heartbeat handled by the scheduler. Prints, per cluster size, the wall time
spent in scheduler callbacks per heartbeat (``measure_overhead=True``) and the run's total
wall time. Run from the repository root after building:

    PYTHONPATH=python python bench/python_scheduler_cost.py [--jobs 300] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import schedlab as sl
from schedlab.schedulers.base import FifoInPython


def measure(cluster, workload, scheduler, repeat):
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = sl.simulate(cluster, workload, scheduler, seed=0, measure_overhead=True)
        wall = time.perf_counter() - t0
        row = (r.counters["scheduler_seconds"], r.counters["heartbeats"], r.counters["scheduler_calls"], wall,
               len(r.tasks))
        best = row if best is None or row[0] < best[0] else best
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'nodes':>6} {'scheduler':>15} {'heartbeats':>11} {'us/heartbeat':>13} {'us/callback':>12} "
          f"{'run wall s':>11} {'ratio':>7}")
    for nodes in (10, 50, 200):
        cluster = sl.Cluster(nodes=nodes, racks=max(1, nodes // 20), map_slots=2, reduce_slots=1)
        wl = sl.synthetic.generate(jobs=args.jobs, rate=nodes / 400.0, seed=1)
        base = None
        for name, sched in (("fifo (C++)", "fifo"), ("fifo (Python)", FifoInPython())):
            secs, hb, calls, wall, _ = measure(cluster, wl, sched, args.repeat)
            per_hb = secs / hb * 1e6
            base = per_hb if base is None else base
            print(f"{nodes:>6} {name:>15} {int(hb):>11} {per_hb:>13.2f} {secs / calls * 1e6:>12.2f} {wall:>11.3f} "
                  f"{per_hb / base:>7.1f}")


if __name__ == "__main__":
    main()
