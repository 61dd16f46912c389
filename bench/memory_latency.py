"""What a random load costs on this machine, by working-set size: the simulators wait mostly on
loads of random records (a worker's record and queue, a task launched long ago), so their figures
follow these from machine to machine and, on a shared virtual machine, from hour to hour. Each
figure is the best of a few chains of dependent loads through one random cycle over a buffer of
that size (schedlab._core.memory_latency_ns).

    PYTHONPATH=python python bench/memory_latency.py [--loads 10000000] [--repeats 3]
"""
import argparse

from schedlab import _core

SIZES_MB = (1, 2, 4, 8, 16, 32, 64, 256)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"{'MB':>6} {'ns per load':>12}")
    for mb in SIZES_MB:
        print(f"{mb:>6} {_core.memory_latency_ns(mb, a.loads, a.repeats):>12.1f}", flush=True)


if __name__ == "__main__":
    main()
