"""The production-scale targets in one report: runs the benches behind them and prints, per target,
what this machine measured now and whether the target holds, with what a random load cost on
the machine just before and after (bench/memory_latency.py; the figures follow it).

    PYTHONPATH=python python bench/targets.py [--runs 3] [--skip-bytes]

- FB-2010 whole day (bench/swim_day.py): read + simulate (`fair`, 3,000 nodes) + Result.jobs
  <= 10 s of wall time and <= 2 GB peak; each of --runs runs counts. One more run asks for
  Result.summary() and Result.tasks on top (--summary --tasks), which must not raise the peak
  past 2 GB either.
- workload plus results <= 100 bytes per task on every engine (bench/bytes_per_task.py).
- `eagle` at Google scale (bench/hybrid_google_scale.py) >= 8 M events per second of CPU.
- >= 500x the reference Hawk/Eagle simulator's wall time on its 24 configurations
  (bench/reference_ratio.py --repeat 3), in total and per configuration.

The traces are found as the benches find them ($SCHEDLAB_TRACES or a shared/traces folder above
this file). Nothing here is a timed test: on a shared machine the figures move with its load.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys

from schedlab import _core

HERE = pathlib.Path(__file__).resolve().parent


def run_bench(script: str, *args: str) -> str:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"targets: {script} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


def grab(pattern: str, text: str, script: str) -> re.Match:
    m = re.search(pattern, text, re.M)
    if m is None:
        raise SystemExit(f"targets: {script} printed no line matching {pattern!r}:\n{text[-2000:]}")
    return m


def number(s: str) -> float:
    return float(s.replace(",", ""))


def span(values: list[float], fmt: str) -> str:
    lo, hi = min(values), max(values)
    return format(lo, fmt) if lo == hi else f"{format(lo, fmt)}-{format(hi, fmt)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of the FB-2010 day and of the Google-scale replay")
    ap.add_argument("--skip-bytes", action="store_true", help="leave out bench/bytes_per_task.py (about a minute)")
    a = ap.parse_args()
    if a.runs < 1:
        raise SystemExit("targets: --runs must be at least 1")
    latency = [_core.memory_latency_ns(16)]
    rows = []

    walls, peaks = [], []
    for _ in range(a.runs):
        out = run_bench("swim_day.py")
        m = grab(r"^total ([\d.]+) s wall, [\d.]+ s CPU; peak RSS ([\d.]+) GB", out, "swim_day.py")
        walls.append(float(m.group(1)))
        peaks.append(float(m.group(2)))
    rows.append(("FB-2010 day: read + simulate + Result.jobs <= 10 s wall", f"{span(walls, '.1f')} s",
                 all(w <= 10 for w in walls)))
    rows.append(("FB-2010 day: peak memory <= 2 GB", f"{span(peaks, '.2f')} GB", all(p <= 2 for p in peaks)))
    out = run_bench("swim_day.py", "--summary", "--tasks")
    peak = float(grab(r"^total [\d.]+ s wall, [\d.]+ s CPU; peak RSS ([\d.]+) GB", out, "swim_day.py").group(1))
    rows.append(("FB-2010 day: peak with Result.summary(), Result.tasks <= 2 GB", f"{peak:.2f} GB", peak <= 2))

    if not a.skip_bytes:
        out = run_bench("bytes_per_task.py")
        sums = [float(line.split()[-2]) for line in out.splitlines()
                if line.split() and line.split()[0] in ("mapreduce", "worker", "share", "spark")]
        if not sums:
            raise SystemExit(f"targets: bytes_per_task.py printed no engine rows:\n{out[-2000:]}")
        rows.append(("workload + results <= 100 bytes per task, every engine",
                     f"at most {max(sums):.1f} over {len(sums)} runs", max(sums) <= 100))

    rates = []
    for _ in range(a.runs):
        out = run_bench("hybrid_google_scale.py")
        rates.append(float(grab(r"([\d.]+) M events/s of CPU \(", out, "hybrid_google_scale.py").group(1)))
    rows.append(("eagle at Google scale >= 8 M events per second of CPU", f"{span(rates, '.2f')} M",
                 all(r >= 8 for r in rates)))

    out = run_bench("reference_ratio.py", "--repeat", "3")
    total = float(grab(r"^total: .* ratio ([\d.]+)x on wall time", out, "reference_ratio.py").group(1))
    per = [number(line.split()[-2].rstrip("x")) for line in out.splitlines()
           if re.match(r"^\S+\.tr\s", line)]
    rows.append((">= 500x the reference simulator, in total", f"{total:.0f}x", total >= 500))
    rows.append((">= 500x the reference simulator, per configuration",
                 f"{sum(r >= 500 for r in per)} of {len(per)} (lowest {min(per):.0f}x)",
                 len(per) > 0 and min(per) >= 500))
    latency.append(_core.memory_latency_ns(16))

    width = max(len(r[0]) for r in rows)
    print(f"{'target':<{width}}  {'measured':<28} holds")
    for name, measured, holds in rows:
        print(f"{name:<{width}}  {measured:<28} {'yes' if holds else 'no'}")
    print(f"a random load at 16 MB: {latency[0]:.0f} ns before the benches, {latency[1]:.0f} ns after "
          f"(bench/memory_latency.py)")


if __name__ == "__main__":
    main()
