"""Replays a Google-scale synthetic trace (500,000 jobs, ~15.6 million tasks drawn from the Google
sample) on 15,000 one-slot workers under a hybrid scheduler (default eagle) and prints the wall
time of the trace build and of the simulation (wall and CPU: the machine may be shared), the
events per second of CPU of the engine's run (Result.cpu_seconds: what the throughput target is
about) and of the whole simulate call (with the resource guard's estimate and the result
conversion), and the peak resident memory.

    PYTHONPATH=python python bench/hybrid_google_scale.py [--jobs 500000] [--workers 15000] [--scheduler eagle]
"""
import argparse
import resource
import time

import schedlab as sl


def peak_rss_gb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2  # Linux: KiB


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=500_000)
    ap.add_argument("--workers", type=int, default=15_000)
    ap.add_argument("--scheduler", default="eagle")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    wl = sl.engines.worker.google_scale(jobs=a.jobs, seed=a.seed)
    t1 = time.perf_counter()
    print(f"trace: {wl.n_jobs:,} jobs, {wl.n_tasks:,} tasks, built in {t1 - t0:.1f} s (peak RSS {peak_rss_gb():.2f} GB)")
    c0 = time.process_time()
    r = sl.simulate(sl.engines.worker.cluster(a.workers), wl, a.scheduler, seed=a.seed, **sl.engines.worker.preset("google"))
    t2 = time.perf_counter()
    cpu = time.process_time() - c0
    print(f"{a.scheduler} on {a.workers:,} workers: {r.events:,} events; the engine's run {r.wall_seconds:.2f} s wall, "
          f"{r.cpu_seconds:.2f} s CPU: {r.events / r.cpu_seconds / 1e6:.2f} M events/s of CPU "
          f"({r.events / r.wall_seconds / 1e6:.2f} M/s wall); the whole simulate call (checks, resource guard, "
          f"run, result conversion) {t2 - t1:.2f} s wall, {cpu:.2f} s CPU: {r.events / cpu / 1e6:.2f} M events/s of CPU; "
          f"peak RSS {peak_rss_gb():.2f} GB")
    s = r.summary(by="class", percentiles=(50, 90, 99))
    print(s[["jobs", "unfinished_jobs", "p50_completion_time", "p90_completion_time", "p99_completion_time"]].to_string())
    print(f"total wall {time.perf_counter() - t0:.1f} s, peak RSS {peak_rss_gb():.2f} GB")


if __name__ == "__main__":
    main()
