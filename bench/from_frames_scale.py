"""Workload.from_frames on a cluster log of millions of tasks: wall time, CPU time and peak
memory of building the workload from a job table and a task table, each case in a process of
its own (so that each peak is its own).

    PYTHONPATH=python python bench/from_frames_scale.py [--jobs 100000]

The tables are synthetic: --jobs jobs submitted over a day, each of 1-199 tasks (about 10 M
tasks for 100,000 jobs) of exponential work, 80 % of them maps; the task table's stage is a
label ("map" / "reduce"), its job_id either whole numbers or strings ("job_0000042"), as a log
exported to CSV and read with pandas would give. The peak includes the tables themselves
(printed before the call).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

ONE = """
import json, resource, sys, time
import numpy as np, pandas as pd
import schedlab as sl
jobs_n, kind = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(0)
n = rng.integers(1, 200, jobs_n)
ids = np.array([f"job_{i:07d}" for i in range(jobs_n)], dtype=object) if kind == "strings" else np.arange(jobs_n)
jobs = pd.DataFrame({"job_id": ids, "submit_time": np.sort(rng.uniform(0, 86400, jobs_n))})
tj = np.repeat(np.arange(jobs_n), n)
tasks = pd.DataFrame({"job_id": ids[tj], "work": rng.exponential(30, len(tj)),
                      "stage": np.where(rng.random(len(tj)) < 0.8, "map", "reduce")})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
w0, c0 = time.perf_counter(), time.process_time()
w = sl.Workload.from_frames(jobs, tasks)
print(json.dumps({"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "tasks": w.n_tasks,
                  "before": before, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    a = ap.parse_args()
    print(f"{'job_id':<15} {'jobs':>9} {'tasks':>11} {'wall s':>7} {'cpu s':>7} {'tables GB':>10} {'peak GB':>8}")
    for kind in ("whole numbers", "strings"):
        out = subprocess.run([sys.executable, "-c", ONE, str(a.jobs), kind], check=True, capture_output=True,
                             text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{kind:<15} {a.jobs:>9,} {r['tasks']:>11,} {r['wall']:>7.2f} {r['cpu']:>7.2f} "
              f"{r['before'] / 1e9:>10.2f} {r['peak'] / 1e9:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
