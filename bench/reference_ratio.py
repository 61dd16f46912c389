"""schedlab against the public Hawk/Eagle simulator on the simulator's own configurations.

    python bench/reference_ratio.py [--traces DIR] [--repeat 3] [--schedulers sparrow,hawk,eagle] [--workers 5200]

Runs the 24 configurations the simulator's README describes -- YH1_sub.tr on 3,000 and 4,000
workers, YH2_sub.tr on 4,200 and 6,200, GOOG_subtrace.tr on 5,200, 7,800, 11,600 and 17,400;
sparrow, hawk and eagle; Yahoo cutoff 90.5811 s with a 2 % short partition, Google 1129.532 s
with 17 % (schedlab.engines.worker.preset) -- and prints, per configuration and in total, schedlab's
wall time and its ratio to the simulator's wall time on this kind of machine (CPython 2.7, one
run at a time; the REFERENCE table below).

schedlab's time covers what the simulator's run covers: reading the trace, simulating, and the
per-job results (Result.jobs). Each configuration runs --repeat times and the best wall time
counts (on a shared machine the best is the closest to the code's own cost); the CPU time of
that run and the ratio on CPU time are printed beside it (on a loaded machine the CPU time is
the better measure of the code's own cost; the simulator's times are of runs alone). Beside them,
that run's wall time reading the trace and the CPU time of the engine's run (Result.cpu_seconds),
and in the last line their shares of the total. The traces are looked up in --traces,
$SCHEDLAB_TRACES/hawk_eagle or a shared/traces/hawk_eagle folder above this file.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would spin on the CPU clock
import pathlib
import time

import schedlab as sl

#: The simulator's wall times in seconds (sparrow, hawk, eagle), measured on the project machine.
REFERENCE = {
    ("YH1_sub.tr", 3000): (22.1, 23.3, 33.2),
    ("YH1_sub.tr", 4000): (19.8, 23.9, 31.6),
    ("YH2_sub.tr", 4200): (21.5, 30.4, 27.6),
    ("YH2_sub.tr", 6200): (23.0, 33.9, 35.6),
    ("GOOG_subtrace.tr", 5200): (43.4, 66.0, 269.8),
    ("GOOG_subtrace.tr", 7800): (50.7, 79.2, 192.4),
    ("GOOG_subtrace.tr", 11600): (51.6, 67.7, 118.4),
    ("GOOG_subtrace.tr", 17400): (50.8, 77.7, 131.6),
}
SCHEDULERS = ("sparrow", "hawk", "eagle")
PRESET = {"YH1_sub.tr": "yahoo", "YH2_sub.tr": "yahoo", "GOOG_subtrace.tr": "google"}


def trace_dir(given: str | None) -> pathlib.Path:
    cands = [pathlib.Path(given)] if given else []
    if os.environ.get("SCHEDLAB_TRACES"):
        cands.append(pathlib.Path(os.environ["SCHEDLAB_TRACES"]) / "hawk_eagle")
    cands += [p / "shared" / "traces" / "hawk_eagle" for p in pathlib.Path(__file__).resolve().parents]
    for c in cands:
        if (c / "YH1_sub.tr").exists():
            return c
    raise SystemExit("reference_ratio: the Hawk/Eagle traces (YH1_sub.tr, ...) were not found; pass --traces DIR")


def one_run(path: pathlib.Path, workers: int, scheduler: str):
    """(wall s, CPU s, wall s of reading the trace, result, its jobs table)."""
    w0, c0 = time.perf_counter(), time.process_time()
    wl = sl.engines.worker.read_trace(path)
    read = time.perf_counter() - w0
    r = sl.simulate(sl.engines.worker.cluster(workers), wl, scheduler, seed=0, **sl.engines.worker.preset(PRESET[path.name]))
    jobs = r.jobs
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return wall, cpu, read, r, jobs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", help="folder holding YH1_sub.tr, YH2_sub.tr and GOOG_subtrace.tr")
    ap.add_argument("--repeat", type=int, default=3, help="runs per configuration; the best wall time counts")
    ap.add_argument("--schedulers", default=",".join(SCHEDULERS))
    ap.add_argument("--workers", default="", help="only these worker counts, e.g. 5200,7800 (e.g. to profile one)")
    a = ap.parse_args()
    folder = trace_dir(a.traces)
    wanted = [s for s in a.schedulers.split(",") if s]
    sizes = {int(w) for w in a.workers.split(",") if w}
    print(f"{'trace':<17} {'workers':>7} {'scheduler':<8} {'wall s':>8} {'cpu s':>7} {'read s':>7} {'engine s':>8} "
          f"{'events':>11} {'reference s':>11} {'ratio':>7} {'on cpu':>7}")
    tot_ours = tot_cpu = tot_ref = tot_read = tot_engine = 0.0
    for (name, workers), ref in REFERENCE.items():
        if sizes and workers not in sizes:
            continue
        for scheduler, ref_s in zip(SCHEDULERS, ref):
            if scheduler not in wanted:
                continue
            runs = [one_run(folder / name, workers, scheduler) for _ in range(max(1, a.repeat))]
            wall, cpu, read, r, _ = min(runs, key=lambda x: x[0])
            tot_ours += wall
            tot_cpu += cpu
            tot_ref += ref_s
            tot_read += read
            tot_engine += r.cpu_seconds
            print(f"{name:<17} {workers:>7,} {scheduler:<8} {wall:>8.3f} {cpu:>7.3f} {read:>7.3f} {r.cpu_seconds:>8.3f} "
                  f"{r.events:>11,} {ref_s:>11.1f} {ref_s / wall:>6.0f}x {ref_s / cpu:>6.0f}x")
    print(f"total: schedlab {tot_ours:.2f} s wall ({tot_cpu:.2f} s CPU), reference {tot_ref:.1f} s, "
          f"ratio {tot_ref / tot_ours:.0f}x on wall time, {tot_ref / tot_cpu:.0f}x on CPU time")
    if tot_ours > 0:
        print(f"of schedlab's wall time: reading the traces {100 * tot_read / tot_ours:.0f} %, the engine's runs "
              f"{100 * tot_engine / tot_ours:.0f} % (their CPU time), the rest {100 * (1 - (tot_read + tot_engine) / tot_ours):.0f} % "
              f"(simulate's checks and result, Result.jobs)")


if __name__ == "__main__":
    main()
