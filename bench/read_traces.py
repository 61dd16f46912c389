"""Reading traces: CPU time of read_trace per format, whole-block parsing (the default) against
the line-by-line reading alone (the readers' fallback, `_text.FAST = False`), on synthetic files
written here (a 200,000-job SWF file, 901,968 Google task events, a 120,148-line Alibaba 2018
table) and on the shared samples when present (SWIM, .tr, Alibaba 2017).

    PYTHONPATH=python python bench/read_traces.py [--repeat 3] [--keep DIR]

Prints, per file, the best CPU time (time.process_time) of each way, their ratio and whether the
two workloads are the same (fingerprints).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import tempfile
import time

import numpy as np

import schedlab as sl
from schedlab.workloads.traces import _text


def write_swf(path, n=200_000, seed=1):
    rng = np.random.default_rng(seed)
    sub = np.cumsum(rng.integers(0, 30, n))
    run = np.where(np.arange(n) % 97 == 0, -1, rng.integers(-1, 5000, n))
    procs = rng.integers(1, 64, n)
    rows = np.column_stack([np.arange(1, n + 1), sub, rng.integers(0, 1000, n), run, procs, -np.ones(n, int),
                            -np.ones(n, int), procs, np.full(n, 3600), -np.ones(n, int), rng.integers(0, 2, n),
                            rng.integers(1, 50, n), rng.integers(1, 5, n), -np.ones(n, int), rng.integers(0, 3, n),
                            -np.ones((n, 3), int)])
    with open(path, "w") as f:
        f.write("; Version: 2.2\n; Computer: synthetic\n;\n\n")
        np.savetxt(f, rows, fmt="%d")


def write_google(path, jobs=20_000, seed=1):
    rng = np.random.default_rng(seed)
    ev = []
    t = 600_000_000
    for j in range(jobs):
        job = 6_000_000_000 + j
        for k in range(int(rng.integers(1, 30))):
            t0 = t + int(rng.integers(0, 10**7))
            sc = int(rng.integers(0, 4))
            ev += [(t0, job, k, 0, sc), (t0 + 1000, job, k, 1, sc),
                   (t0 + 1000 + int(rng.integers(10**6, 10**9)), job, k, 4 if rng.random() < .9 else 5, sc)]
        t += 10**6
    ev.sort()
    with open(path, "w") as f:
        for ts, job, k, e, sc in ev:
            f.write(f"{ts},,{job},{k},{'' if e == 0 else 1234},{e},user{job % 37}=,{sc},{job % 11},0.06,0.03,0.0001,"
                    f"{'' if k % 3 else 0}\n")


def write_alibaba2018(path, jobs=30_000, seed=5):
    rng = np.random.default_rng(seed)
    lines = []
    for j in range(jobs):
        n = int(rng.integers(1, 8))
        t0 = int(rng.integers(0, 10**6))
        if rng.random() < 0.2:
            lines += [f"task_X{j}x{k}==,{rng.integers(0, 50)},j_{j},1,{'Terminated' if rng.random() < .9 else 'Failed'},"
                      f"{t0},{t0 + int(rng.integers(-2, 500))},100,0.3" for k in range(n)]
            continue
        for k in range(1, n + 1):
            deps = sorted({int(d) for d in rng.integers(1, k, size=int(rng.integers(0, min(k, 3))))}) if k > 1 else []
            name = ("M" if not deps else str(rng.choice(["R", "J"]))) + str(k) + "".join(f"_{d}" for d in deps)
            st = t0 + 10 * k
            lines.append(f"{name},{rng.integers(0, 200)},j_{j},1,{'Terminated' if rng.random() < .95 else 'Failed'},"
                         f"{st},{st + int(rng.integers(-1, 300))},100,0.3")
    with open(path, "w") as f:
        f.write("\n".join(lines[i] for i in rng.permutation(len(lines))) + "\n")


def shared():
    for p in pathlib.Path(__file__).resolve().parents:
        d = pathlib.Path(os.environ.get("SCHEDLAB_TRACES", p / "shared" / "traces"))
        if d.is_dir():
            return d
    return None


def best(path, opts, fast, repeat):
    _text.FAST = fast
    try:
        times = []
        for _ in range(repeat):
            c = time.process_time()
            w = sl.read_trace(path, **opts)
            times.append(time.process_time() - c)
        return min(times), w
    finally:
        _text.FAST = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", help="write the synthetic files into DIR (kept) instead of a temporary folder")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="schedlab-read-")
    os.makedirs(tmp, exist_ok=True)
    cases = []
    for name, writer, opts in (("synthetic.swf", write_swf, {}), ("task_events.csv", write_google, {"format": "google2011"}),
                               ("batch_task_2018.csv", write_alibaba2018, {"format": "alibaba2018"})):
        p = os.path.join(tmp, name)
        if not os.path.exists(p):
            writer(p)
        cases.append((p, opts))
    d = shared()
    if d is not None:
        for rel, opts in (("swim/FB-2010_samples_24_times_1hr_withInputPaths_0.tsv", {"max_tasks_per_job": 200}),
                          ("hawk_eagle/GOOG_subtrace.tr", {}), ("alibaba2017/batch_task.csv", {"format": "alibaba2017"})):
            if (d / rel).exists():
                cases.append((str(d / rel), opts))
    print(f"{'file':<58} {'lines':>9} {'tasks':>11} {'blocks s':>9} {'by line s':>9} {'ratio':>6}  same")
    for path, opts in cases:
        fast, w1 = best(path, opts, True, a.repeat)
        slow, w2 = best(path, opts, False, a.repeat)
        with open(path, "rb") as f:
            lines = f.read().count(b"\n")
        print(f"{os.path.basename(path):<58} {lines:>9,} {w1.n_tasks:>11,} {fast:>9.3f} {slow:>9.3f} {slow / fast:>5.1f}x  "
              f"{w1.fingerprint() == w2.fingerprint()}", flush=True)


if __name__ == "__main__":
    main()
