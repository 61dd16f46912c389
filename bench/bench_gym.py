"""Steps per second of schedlab.gym.MapReduceEnv under a no-op policy (always action 0: the
oldest shown job), single and vectorized.

    python bench/bench_gym.py [--steps 200000] [--envs 8] [--jobs 200]

Prints steps/s of a single environment on one fixed workload (the environment's own cost: the
engine run to the next decision, the observation's copies, and a reset per episode), the same
with a fresh synthetic workload drawn at every reset (adds the generator's cost), and a
SyncVectorEnv of --envs environments on fixed workloads.
"""
from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import schedlab as sl
import schedlab.gym  # noqa: F401  (registers the environments)


def workload(jobs, seed):
    return sl.synthetic.generate(jobs=jobs, rate=0.2, seed=seed, maps=("randint", 1, 30), reduces=("randint", 0, 3))


def make(jobs, fresh=False):
    cluster = sl.Cluster(nodes=20, racks=2, map_slots=2, reduce_slots=1)
    w = (lambda seed: workload(jobs, seed)) if fresh else workload(jobs, 1)
    return schedlab.gym.MapReduceEnv(cluster, w, max_jobs=8)


def single(env, steps):
    env.reset(seed=0)
    episodes = 0
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(0)
        if terminated or truncated:
            episodes += 1
            env.reset()
    return time.perf_counter() - t0, episodes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=200)
    args = ap.parse_args()

    for label, fresh in (("single env, fixed workload", False), ("single env, new workload per episode", True)):
        dt, episodes = single(make(args.jobs, fresh), args.steps)
        print(f"{label}: {args.steps} steps in {dt:.3f} s = {args.steps / dt:,.0f} steps/s ({episodes} episodes)")

    venv = gymnasium.vector.SyncVectorEnv([lambda: make(args.jobs) for _ in range(args.envs)])
    venv.reset(seed=0)
    actions = np.zeros(args.envs, dtype=np.int64)
    n = max(1, args.steps // args.envs)
    t0 = time.perf_counter()
    for _ in range(n):
        venv.step(actions)
    dt = time.perf_counter() - t0
    print(f"SyncVectorEnv x{args.envs}: {n * args.envs} steps in {dt:.3f} s = {n * args.envs / dt:,.0f} steps/s")


if __name__ == "__main__":
    main()
