"""Cost per decision of a policy written in Python against the same policy in C++, on each engine:

* mapreduce: ``fifo`` against ``FifoInPython`` (a decision: one heartbeat);
* worker:    ``sparrow`` against ``SparrowInPython`` (a decision: one job's probe placement);
* share:     ``drf`` against ``DrfInPython`` (a decision: one user's share asked by the engine).

Each pair gives identical schedules. ``measure_overhead=True`` times every Python callback
(``scheduler_seconds``, ``scheduler_calls``); the C++ worker and share policies are not timed call
by call, so the extra cost of a Python decision is also given as the difference of the two runs'
wall times per Python call. Best of ``--repeat`` runs. Run from the repository root after building:

    python bench/python_policy_cost.py [--repeat 3] [--scale 1]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import schedlab as sl
from schedlab.papers import zhou2019
from schedlab.schedulers import DrfInPython, FifoInPython, SparrowInPython


def best_run(cluster, workload, scheduler, repeat, **options):
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = sl.simulate(cluster, workload, scheduler, seed=1, **options)
        wall = time.perf_counter() - t0
        if best is None or wall < best[0]:
            best = (wall, r)
    return best


def worker_workload(n, seed=1):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 50, n)
    jobs = pd.DataFrame({"job_id": np.arange(n), "submit_time": np.sort(rng.uniform(0, n * 0.5, n))})
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(n), counts), "work": rng.exponential(20.0, counts.sum())})
    return sl.Workload.from_frames(jobs, tasks)


def share_case(scale):
    cluster, attrs = zhou2019.macro_cluster(seed=1, nodes=100)
    return cluster, zhou2019.macro_workload(cluster, attrs, seed=1, jobs=int(1500 * scale), span=1500.0 * scale, trace=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the number of jobs")
    args = ap.parse_args()
    cases = [
        ("mapreduce", "fifo", FifoInPython(), sl.Cluster(nodes=50, racks=2, map_slots=2, reduce_slots=1),
         sl.synthetic.generate(jobs=int(300 * args.scale), rate=0.125, seed=1), {}),
        ("worker", "sparrow", SparrowInPython(), sl.engines.worker.cluster(200), worker_workload(int(4000 * args.scale)), {}),
        ("share", "drf", DrfInPython(), *share_case(args.scale), {"performance": zhou2019.MACRO_PERFORMANCE_OPTION}),
    ]
    print(f"{'engine':>10} {'policy':>8} {'C++ wall s':>11} {'Py wall s':>10} {'decisions':>10} "
          f"{'us/decision C++':>18} {'us/decision in Py':>18} {'extra us/decision':>18} {'same schedule':>14}")
    for engine, name, py_policy, cluster, workload, opts in cases:
        timed = {"measure_overhead": True} if engine == "mapreduce" else {}  # the C++ MapReduce engine times its scheduler
        cw, cr = best_run(cluster, workload, name, args.repeat, **timed, **opts)
        pw, pr = best_run(cluster, workload, py_policy, args.repeat, measure_overhead=True, **opts)
        calls = pr.counters["scheduler_calls"]
        same = cr.tasks.equals(pr.tasks)
        cpp = (f"{cr.counters['scheduler_seconds'] / cr.counters['scheduler_calls'] * 1e6:.2f}"
               if "scheduler_seconds" in cr.counters else "n/a")
        print(f"{engine:>10} {name:>8} {cw:>11.3f} {pw:>10.3f} {int(calls):>10} {cpp:>18} "
              f"{pr.counters['scheduler_seconds'] / calls * 1e6:>18.2f} {(pw - cw) / calls * 1e6:>18.2f} {str(same):>14}")


if __name__ == "__main__":
    main()
