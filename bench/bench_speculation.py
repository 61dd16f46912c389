"""Cost of faults and speculation in the mapreduce engine: wall time of one simulation per
speculator (100 nodes, 500 synthetic jobs, Fair, crashes drawn from an MTBF model).

    PYTHONPATH=python python bench/bench_speculation.py [--repeat 3]
"""
import argparse
import time

import schedlab as sl


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=500)
    args = ap.parse_args()
    cluster = sl.Cluster(nodes=args.nodes, racks=4, map_slots=4, reduce_slots=2)
    workload = sl.synthetic.generate(jobs=args.jobs, rate=0.2, seed=1, maps=("randint", 1, 60), reduces=("randint", 0, 8))
    faults = [sl.faults.MTBF(mean_uptime=20000, restart_after=600, horizon=5000)]
    print(f"{args.nodes} nodes, {args.jobs} jobs, {workload.n_tasks} tasks; best of {args.repeat}")
    print(f"{'speculation':12s} {'seconds':>8s} {'events':>9s} {'copies':>7s} {'makespan':>9s}")
    for spec in sl.speculation.names():
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            r = sl.simulate(cluster, workload, "fair", seed=0, speculation=spec, faults=faults, detection_delay=60)
            best = min(best, time.perf_counter() - t0)
        s = r.summary()
        print(f"{spec:12s} {best:8.2f} {r.events:9d} {int(s['speculative_attempts']):7d} {s['makespan']:9.0f}")


if __name__ == "__main__":
    main()
