"""Steps per second of the schedlab.gym environments under a no-op policy (always action 0),
single and vectorized, in wall time and in CPU time of the process.

    python bench/bench_gym.py [--steps 200000] [--envs 8] [--jobs 200]

MapReduceEnv (action 0: the oldest shown job; 20 nodes, 200 synthetic jobs): steps/s of a single
environment on one fixed workload (the environment's own cost: the engine run to the next decision,
the observation's copies, and a reset per episode), the same with a fresh synthetic workload drawn
at every reset (adds the generator's cost), and a SyncVectorEnv of --envs environments on fixed
workloads. WorkerEnv (20 workers, default_workload with --jobs jobs at 0.03 jobs/s): both
decisions, fresh workload per episode. The machine is shared: compare the CPU figures.
"""
from __future__ import annotations

import argparse
import os
import time

import gymnasium
import numpy as np

import schedlab as sl
import schedlab.gym  # noqa: F401  (registers the environments)
from schedlab.gym import worker as gw


def workload(jobs, seed):
    return sl.synthetic.generate(jobs=jobs, rate=0.2, seed=seed, maps=("randint", 1, 30), reduces=("randint", 0, 3))


def make(jobs, fresh=False):
    cluster = sl.Cluster(nodes=20, racks=2, map_slots=2, reduce_slots=1)
    w = (lambda seed: workload(jobs, seed)) if fresh else workload(jobs, 1)
    return schedlab.gym.MapReduceEnv(cluster, w, max_jobs=8)


def make_worker(jobs, decision):
    return gw.WorkerEnv(sl.Cluster(nodes=10, slots=2), gw.default_workload(jobs=jobs, rate=0.03), decision=decision,
                        max_rows=16)


def single(env, steps):
    env.reset(seed=0)
    episodes = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(0)
        if terminated or truncated:
            episodes += 1
            env.reset()
    return time.perf_counter() - t0, time.process_time() - c0, episodes


def report(label, steps, wall, cpu, episodes=None):
    ep = f", {episodes} episodes" if episodes is not None else ""
    print(f"{label}: {steps} steps, {steps / wall:,.0f} steps/s wall ({wall:.3f} s), "
          f"{steps / cpu:,.0f} steps/s CPU ({cpu:.3f} s){ep}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=200)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")

    for label, fresh in (("MapReduce, fixed workload", False), ("MapReduce, new workload per episode", True)):
        wall, cpu, episodes = single(make(args.jobs, fresh), args.steps)
        report(label, args.steps, wall, cpu, episodes)
    for decision in gw.DECISIONS:
        wall, cpu, episodes = single(make_worker(args.jobs, decision), args.steps)
        report(f"Worker {decision}, new workload per episode", args.steps, wall, cpu, episodes)

    venv = gymnasium.vector.SyncVectorEnv([lambda: make(args.jobs) for _ in range(args.envs)])
    venv.reset(seed=0)
    actions = np.zeros(args.envs, dtype=np.int64)
    n = max(1, args.steps // args.envs)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        venv.step(actions)
    report(f"MapReduce SyncVectorEnv x{args.envs}", n * args.envs, time.perf_counter() - t0, time.process_time() - c0)


if __name__ == "__main__":
    main()
