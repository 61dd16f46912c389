"""The resource guard's byte costs, measured: peak resident memory a run adds, per task, node,
worker, probe and time-series row, engine by engine.

    python bench/guard_bytes.py [--engines mapreduce,worker,share,spark] [--tasks 50000,200000]

Each measurement runs in a fresh process: it builds the cluster and workload, resets the peak
resident set (Linux: ``/proc/self/clear_refs``), runs ``sl.simulate`` and builds the result's
``jobs`` and ``tasks`` tables, and reports the peak resident memory added
(:func:`schedlab.core.guard.measure_peak`). A cost is the slope between two sizes that differ in
one quantity only (tasks, nodes, probes, samples), so the interpreter and the tables built before
the run cancel out. The constants ``RUN_BYTES_PER_*`` of ``schedlab/core/guard.py`` come from
this script; the last column prints the guard's estimate of the larger run over its measured peak.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys
import numpy as np, pandas as pd
import schedlab as sl
from schedlab.core import guard
engine, n_tasks, nodes, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
params, options = json.loads(sys.argv[5]), json.loads(sys.argv[6])
rng = np.random.default_rng(0)
per_job = 10
n_jobs = max(n_tasks // per_job, 1)
jobs = pd.DataFrame({"job_id": np.arange(n_jobs), "submit_time": np.sort(rng.uniform(0, n_tasks / 50.0, n_jobs))})
tasks = pd.DataFrame({"job_id": np.repeat(np.arange(n_jobs), per_job), "work": rng.exponential(10.0, n_jobs * per_job)})
scheduler = sl.schedulers.get(name, **params)
if engine == "mapreduce":
    tasks["stage"] = np.tile(["map"] * 8 + ["reduce"] * 2, n_jobs)
    cluster = sl.Cluster(nodes, map_slots=2, reduce_slots=1)
elif engine == "worker":
    cluster = sl.engines.worker.cluster(nodes)
elif engine == "share":
    cluster = sl.Cluster(nodes, vcores=4)
    jobs["user"] = np.arange(n_jobs) % 10
else:
    cluster = sl.Cluster(nodes, slots=4)
wl = sl.Workload.from_frames(jobs, tasks)
estimate = guard.estimate(cluster, wl, engine, options, scheduler.resolved())
def run():
    r = sl.simulate(cluster, wl, scheduler, progress=False, **options)
    r.jobs, r.tasks
    return r
peak, r = guard.measure_peak(run)
print(json.dumps({"peak": peak, "estimate": estimate["memory"], "events": r.events,
                  "rows": int(sum(len(v) for v in r.series.values()))}))
"""

SCHEDULER = {"mapreduce": "fifo", "worker": "sparrow", "share": "drf", "spark": "spark_fifo"}


def measure(engine: str, n_tasks: int, nodes: int, params=None, **options) -> dict:
    """Peak resident bytes a run adds (and the guard's estimate of them), in a fresh process."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, engine, str(n_tasks), str(nodes), SCHEDULER[engine],
                          json.dumps(params or {}), json.dumps(options)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(a: dict, b: dict, da: float, what: str):
    per = (b["peak"] - a["peak"]) / da
    print(f"  per {what:6s} {per:8.0f} bytes   (peaks {a['peak'] / 2**20:7.1f} -> {b['peak'] / 2**20:7.1f} MiB; "
          f"guard estimate / measured peak of the larger run: {b['estimate'] / b['peak']:.2f})", flush=True)
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engines", default="mapreduce,worker,share,spark")
    ap.add_argument("--tasks", default="50000,200000", help="two workload sizes (tasks)")
    args = ap.parse_args()
    small, large = (int(x) for x in args.tasks.split(","))
    for engine in args.engines.split(","):
        print(engine, flush=True)
        quiet = {"mapreduce": {}, "worker": {"window": 0}, "share": {"sample_interval": 0}, "spark": {}}[engine]
        slope(measure(engine, small, 100, **quiet), measure(engine, large, 100, **quiet), large - small, "task")
        slope(measure(engine, 1000, 1000, **quiet), measure(engine, 1000, 20000, **quiet), 19000,
              "worker" if engine == "worker" else "node")
        if engine == "worker":  # sparrow's probe_ratio 2 -> 20: the extra probes only
            slope(measure(engine, small, 100, **quiet), measure(engine, small, 100, {"probe_ratio": 20}, **quiet),
                  small * 18, "probe")
        if engine in ("mapreduce", "worker", "share"):
            key = "window" if engine == "worker" else "sample_interval"
            base, rows = measure(engine, small, 100, **{key: 0}), measure(engine, small, 100, **{key: 0.05})
            slope(base, rows, rows["rows"] - base["rows"], "row")


if __name__ == "__main__":
    main()
