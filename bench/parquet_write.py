"""Writing a production day's attempts to Parquet: SWIM's FB-2010 day (16.9 M attempts) simulated
under `fair` on 3,000 nodes, then `Result.to_parquet` with its default dictionary encoding (the
columns whose values repeat) and with pyarrow's (every column tried), alternately.

    PYTHONPATH=python python bench/parquet_write.py [--trace PATH] [--rounds 3] [--out FILE]

Prints the CPU time of each write and the file's size. The trace is looked up as
bench/swim_day.py looks it up.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would spin on the CPU clock
import pathlib
import sys
import tempfile
import time

import schedlab as sl

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from swim_day import find  # noqa: E402  (the trace's lookup, shared)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", help="the file to write (default: a temporary file, removed at the end)")
    a = ap.parse_args()
    wl = sl.read_trace(str(find(a.trace)))
    r = sl.simulate(sl.Cluster(nodes=3000), wl, "fair", seed=0)
    out = pathlib.Path(a.out) if a.out else pathlib.Path(tempfile.mkdtemp()) / "attempts.parquet"
    print(f"{wl.n_tasks:,} attempts of the FB-2010 day (fair, 3,000 nodes) to {out}")
    print(f"{'round':>5} {'use_dictionary':<32} {'CPU s':>7} {'MB':>7}", flush=True)
    for k in range(a.rounds):
        for label, options in (("default (columns that repeat)", {}), ("True (every column)", {"use_dictionary": True})):
            c0 = time.process_time()
            r.to_parquet(out, **options)
            cpu = time.process_time() - c0
            print(f"{k + 1:>5} {label:<32} {cpu:7.2f} {out.stat().st_size / 2 ** 20:7.1f}", flush=True)
    if not a.out:
        out.unlink()
        out.parent.rmdir()


if __name__ == "__main__":
    main()
