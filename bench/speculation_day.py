"""Speculative execution on a production day: SWIM's FB-2010 day (24,442 jobs, 16.9 M tasks) under
`fair` on 3,000 nodes, once per speculator.

    PYTHONPATH=python python bench/speculation_day.py [--trace PATH] [--nodes 3000]
                                                      [--speculation none,hadoop,yarn,late,esplash,sepb]

Each speculator runs in a process of its own (so that each peak is its own) and prints the CPU
time of `simulate`, its events, the speculative copies launched, the run's makespan and the
process's peak resident memory (in all and per task). The trace is looked up as
bench/swim_day.py looks it up.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would spin on the CPU clock
import pathlib
import resource
import subprocess
import sys
import time

import schedlab as sl

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from swim_day import find  # noqa: E402  (the trace's lookup, shared)


def one(path: str, nodes: int, speculation: str) -> None:
    wl = sl.read_trace(path)
    c0 = time.process_time()
    r = sl.simulate(sl.Cluster(nodes=nodes), wl, "fair", seed=0, speculation=speculation)
    cpu = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2  # Linux: KiB
    makespan = float(r.jobs["finish_time"].max() - r.jobs["submit_time"].min())
    copies = int(r.counters.get("speculative_launched", 0))
    print(f"{speculation:<11} {cpu:9.2f} {r.events:12,d} {copies:8,d} {makespan:12,.0f} {peak:8.2f} "
          f"{peak * 1024 ** 3 / wl.n_tasks:10.0f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace")
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--speculation", default=",".join(sl.speculation.names()))
    ap.add_argument("--one", help=argparse.SUPPRESS)  # (the child process's speculator)
    a = ap.parse_args()
    path = str(find(a.trace))
    if a.one:
        return one(path, a.nodes, a.one)
    print(f"FB-2010 day, fair on {a.nodes:,} nodes")
    print(f"{'speculation':<11} {'CPU s':>9} {'events':>12} {'copies':>8} {'makespan s':>12} {'peak GB':>8} "
          f"{'peak B/task':>10}", flush=True)
    for spec in a.speculation.split(","):
        subprocess.run([sys.executable, __file__, "--nodes", str(a.nodes), "--trace", path, "--one", spec], check=True)


if __name__ == "__main__":
    main()
