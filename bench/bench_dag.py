"""Cost of DAG jobs (job dependencies) in the MapReduce engine and in Workload.from_frames.

    python bench/bench_dag.py [--jobs 20000] [--chain 4]

Prints (1) the simulation time of the same synthetic jobs run independent and as chains of
``--chain`` jobs (fair scheduler, 100 nodes), with the mean job and p90 DAG completion times,
and (2) the time Workload.from_frames takes to validate and order 200,000 jobs with 180,000
dependency edges (vectorised level computation).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import schedlab as sl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--chain", type=int, default=4)
    a = ap.parse_args()
    cluster = sl.Cluster(nodes=100, racks=5, map_slots=4, reduce_slots=2)
    for chain in (1, a.chain):
        w = sl.synthetic.generate(jobs=a.jobs, rate=0.5, seed=1, maps=("randint", 1, 20),
                                  reduces=("randint", 0, 5), chain=chain)
        c0 = time.process_time()
        r = sl.simulate(cluster, w, "fair", seed=0)
        cpu = time.process_time() - c0
        s = r.summary()
        print(f"chain={chain}: {w.n_jobs} jobs, {w.n_tasks} tasks: {cpu:.2f} s CPU, {r.events} events, "
              f"mean job completion {s['mean_completion_time']:.1f} s, "
              f"p90 DAG completion {s.get('p90_dag_completion_time', float('nan')):.1f} s")
    n = 200_000
    rng = np.random.default_rng(0)
    jobs = pd.DataFrame({"job_id": np.arange(n), "submit_time": np.repeat(np.arange(n // 10), 10).astype(float)})
    child = np.arange(n)[np.arange(n) % 10 != 0]
    parent = child - 1 - rng.integers(0, 2, len(child)) * (child % 10 > 1)
    deps = pd.DataFrame({"job_id": child, "parent_id": parent})
    tasks = pd.DataFrame({"job_id": np.arange(n), "work": 1.0})
    c0 = time.process_time()
    sl.Workload.from_frames(jobs, tasks, dependencies=deps)
    print(f"from_frames: {n} jobs, {len(deps)} edges: {time.process_time() - c0:.2f} s CPU")


if __name__ == "__main__":
    main()
