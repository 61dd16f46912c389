"""Reading an Alibaba 2018 batch_task table at production scale: wall time, CPU time and peak
memory of read_trace, each mode in a process of its own (so that each peak is its own).

    PYTHONPATH=python python bench/alibaba_scale.py [--jobs 750000] [--keep DIR]

The table is synthetic, written by bench/read_traces.py's writer (DAG task names M1, R2_1,
J3_1_2 ..., independent task_... names, failed tasks, negative spans, lines shuffled): 750,000
jobs give 3.0 M lines (160 MB; the real table has about 14 M). --keep DIR keeps the file for the
next run (writing it takes about a minute).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

MODES = (("depth", {}), ("flatten", {"dag": "flatten"}), ("jobs", {"dag": "jobs", "instances": False}))

ONE = """
import json, resource, sys, time
import schedlab as sl
path, opts = sys.argv[1], json.loads(sys.argv[2])
w0, c0 = time.perf_counter(), time.process_time()
w = sl.read_trace(path, format="alibaba2018", **opts)
print(json.dumps({"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "jobs": w.n_jobs,
                  "tasks": w.n_tasks, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=750_000)
    ap.add_argument("--keep", help="write the table into DIR (kept) instead of a temporary folder")
    a = ap.parse_args()
    folder = a.keep or tempfile.mkdtemp(prefix="schedlab-alibaba-")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"batch_task_{a.jobs}.csv")
    if not os.path.exists(path):
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        from read_traces import write_alibaba2018
        write_alibaba2018(path, jobs=a.jobs)
    with open(path, "rb") as f:
        lines = sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b""))
    size = os.path.getsize(path)
    print(f"{path}: {lines:,} lines, {size / 1e6:.1f} MB")
    print(f"{'dag':<8} {'jobs':>10} {'tasks':>10} {'wall s':>7} {'cpu s':>7} {'peak GB':>8} {'peak / file':>11}")
    for mode, opts in MODES:
        out = subprocess.run([sys.executable, "-c", ONE, path, json.dumps(opts)], check=True, capture_output=True,
                             text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{mode:<8} {r['jobs']:>10,} {r['tasks']:>10,} {r['wall']:>7.2f} {r['cpu']:>7.2f} "
              f"{r['peak'] / 1e9:>8.2f} {r['peak'] / size:>10.1f}x", flush=True)


if __name__ == "__main__":
    main()
