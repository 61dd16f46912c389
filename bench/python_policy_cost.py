"""Cost per decision of a policy written in Python against the same policy in C++, on each engine:

* mapreduce: ``fifo`` against ``FifoInPython`` (a decision: one heartbeat);
* worker:    ``sparrow`` against ``SparrowInPython`` (a decision: one job's probe placement);
* share:     ``drf`` against ``DrfInPython`` (a decision: one user's share asked by the engine).

Each pair gives identical schedules. Per decision: ``measure_overhead=True`` times every callback
of both (``scheduler_seconds``, ``scheduler_calls``; the worker engine also per callback, of which
the C++ figure is on_job_arrival's, the decision SparrowInPython makes; a timed call includes the
clock reads; the least over ``--repeat`` runs). The extra cost of a Python decision is also given as the difference of the CPU times
of the two untimed runs per Python call. Best of ``--repeat`` runs (least CPU time). Run from the
repository root after building:

    python bench/python_policy_cost.py [--repeat 3] [--scale 1]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import schedlab as sl
from schedlab.papers import zhou2019
from schedlab.schedulers import DrfInPython, FifoInPython, SparrowInPython


def best_run(cluster, workload, scheduler, repeat, **options):
    """(wall s, CPU s, result) of the run with the least CPU time among ``repeat``."""
    best = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        r = sl.simulate(cluster, workload, scheduler, seed=1, **options)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if best is None or cpu < best[1]:
            best = (wall, cpu, r)
    return best


def per_decision(cluster, workload, scheduler, repeat, what, options):
    """The least time per call (µs) of the timed callbacks ``scheduler_seconds<what>`` among
    ``repeat`` runs with measure_overhead (a run preempted inside a call on a shared machine adds
    that wait to it), and the last run's result."""
    best = None
    for _ in range(repeat):
        r = sl.simulate(cluster, workload, scheduler, seed=1, measure_overhead=True, **options)
        us = r.counters["scheduler_seconds" + what] / r.counters["scheduler_calls" + what] * 1e6
        best = us if best is None else min(best, us)
    return best, r


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
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds of the untimed runs (best of {args.repeat})")
    print(f"{'engine':>10} {'policy':>8} {'C++ CPU s':>10} {'Py CPU s':>9} {'decisions':>10} "
          f"{'us/decision C++':>16} {'us/decision Py':>15} {'extra us/decision':>18} {'same schedule':>14}")
    for engine, name, py_policy, cluster, workload, opts in cases:
        _, ccpu, cr = best_run(cluster, workload, name, args.repeat, **opts)
        _, pcpu, pr = best_run(cluster, workload, py_policy, args.repeat, **opts)
        what = "_on_job_arrival" if engine == "worker" else ""  # the decision the Python policy makes
        cpp, ct = per_decision(cluster, workload, name, args.repeat, what, opts)
        py, pt = per_decision(cluster, workload, py_policy, args.repeat, "", opts)
        calls = pt.counters["scheduler_calls"]
        same = cr.tasks.equals(pr.tasks) and ct.tasks.equals(cr.tasks)
        print(f"{engine:>10} {name:>8} {ccpu:>10.3f} {pcpu:>9.3f} {int(calls):>10} {cpp:>16.2f} {py:>15.2f} "
              f"{(pcpu - ccpu) / calls * 1e6:>18.2f} {str(same):>14}")

if __name__ == "__main__":
    main()
