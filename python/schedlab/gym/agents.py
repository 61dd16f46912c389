"""Reference agents for :class:`schedlab.gym.MapReduceEnv` and a small policy-gradient trainer
(NumPy only), used by ``notebooks/gym.ipynb``.

* :func:`random_agent` — a uniformly random shown job;
* :func:`fifo_action` — the oldest shown job (Hadoop's FIFO choice);
* :func:`heuristic_agent` — the shown job with the least remaining map work (pending maps x mean
  map work), node-local jobs first: shortest-remaining-work-first with locality;
* :class:`LinearSoftmaxPolicy` — a softmax over the shown jobs of a linear score of their
  (scaled) features, trained by REINFORCE (Williams 1992) with a batch-normalized return-to-go
  as advantage: :func:`train`.

:func:`evaluate` runs an agent over episodes with given seeds and returns their total job times;
:func:`builtin_job_times` runs built-in schedulers on the very same workloads.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from ..core.simulate import simulate
from .mapreduce import JOB_FEATURES, MapReduceEnv, fifo_action, random_action

#: divides each job feature before the linear score (seconds by 100, counts by 10)
FEATURE_SCALE = np.array([1.0, 100.0, 10.0, 10.0, 10.0, 10.0, 100.0, 1.0, 100.0, 1.0], dtype=np.float64)
assert len(FEATURE_SCALE) == len(JOB_FEATURES)


def random_agent(seed: int = 0) -> Callable:
    rng = np.random.default_rng(seed)
    return lambda obs: random_action(obs, rng)


def heuristic_agent(obs) -> int:
    valid = np.flatnonzero(obs["action_mask"][:-1])
    if not len(valid):
        return len(obs["action_mask"]) - 1
    jobs = obs["jobs"][valid]
    remaining = jobs[:, 2] * jobs[:, 6]  # pending maps x mean map work
    key = np.lexsort((remaining, -jobs[:, 7]))  # node-local first, then least remaining work
    return int(valid[key[0]])


class LinearSoftmaxPolicy:
    """pi(job row i | obs) proportional to exp(w . x_i / scale) over the shown jobs (never idle)."""

    def __init__(self, n_features: int = len(JOB_FEATURES), seed: int = 0):
        self.w = np.zeros(n_features)
        self.rng = np.random.default_rng(seed)

    def probabilities(self, obs):
        valid = np.flatnonzero(obs["action_mask"][:-1])
        x = obs["jobs"][valid].astype(np.float64) / FEATURE_SCALE
        z = x @ self.w
        p = np.exp(z - z.max())
        return valid, x, p / p.sum()

    def act(self, obs, greedy: bool = False):
        """(action, grad of log pi(action)) — the idle action (grad None) when no job is shown."""
        valid, x, p = self.probabilities(obs)
        if not len(valid):
            return len(obs["action_mask"]) - 1, None
        i = int(np.argmax(p)) if greedy else int(self.rng.choice(len(valid), p=p))
        return int(valid[i]), x[i] - p @ x

    def __call__(self, obs):
        return self.act(obs, greedy=True)[0]


def evaluate(env: MapReduceEnv, agent: Callable, seeds) -> np.ndarray:
    """The total job time (sum of completion - submission, seconds) of each episode."""
    out = []
    for s in seeds:
        obs, _ = env.reset(seed=int(s))
        while True:
            obs, _, terminated, truncated, _ = env.step(agent(obs))
            if terminated or truncated:
                jobs = env.result().jobs
                out.append(float((jobs["finish_time"] - jobs["submit_time"]).sum()))
                break
    return np.array(out)


def builtin_job_times(env: MapReduceEnv, scheduler, seeds, **options) -> np.ndarray:
    """The total job time of a built-in scheduler on the workload of each episode seed."""
    out = []
    for s in seeds:
        env.reset(seed=int(s))
        r = simulate(env.cluster, env.workload, scheduler, seed=env._seed, **(env.options | options))
        jobs = r.jobs
        out.append(float((jobs["finish_time"] - jobs["submit_time"]).sum()))
    return np.array(out)


def train(env: MapReduceEnv, iterations: int = 30, episodes: int = 8, lr: float = 0.05, seed: int = 0,
          eval_seeds=None, policy: LinearSoftmaxPolicy | None = None) -> tuple:
    """REINFORCE on ``env`` (rewards as the environment gives them), with Decima's input-driven
    baseline (Mao et al., SIGCOMM 2019): each iteration runs ``episodes`` episodes on one fresh
    workload seed, so that they differ only by the agent's choices; a step's advantage is its
    return-to-go minus the mean return-to-go of the batch's episodes at the same simulated time.
    The weights move by ``lr`` along the mean of advantage x grad log pi (Adam). Returns the policy
    and a DataFrame (the learning curve): per iteration, the batch's mean episode return and, with
    ``eval_seeds``, the greedy policy's mean total job time on them."""
    policy = policy or LinearSoftmaxPolicy(seed=seed)
    m, v = np.zeros_like(policy.w), np.zeros_like(policy.w)
    rows = []
    for it in range(iterations):
        workload_seed = 10_000 + 1000 * seed + it
        runs = []
        for _ in range(episodes):
            obs, _ = env.reset(seed=workload_seed)
            g_steps, r_steps, t_steps = [], [], []
            while True:
                action, g = policy.act(obs)
                t = float(obs["node"][4])
                obs, r, terminated, truncated, _ = env.step(action)
                if g is not None:
                    g_steps.append(g)
                    r_steps.append(r)
                    t_steps.append(t)
                elif r_steps:
                    r_steps[-1] += r
                if terminated or truncated:
                    break
            rtg = np.cumsum(np.asarray(r_steps)[::-1])[::-1]
            runs.append((np.asarray(t_steps), rtg, np.asarray(g_steps)))

        def rtg_at(run, t):  # an episode's return-to-go at simulated time t (0 after its end)
            times, rtg, _ = run
            k = np.searchsorted(times, t, side="left")
            return np.where(k < len(rtg), rtg[np.minimum(k, len(rtg) - 1)], 0.0)

        grads, advs = [], []
        for times, rtg, g in runs:
            if not len(rtg):
                continue
            baseline = np.mean([rtg_at(other, times) for other in runs], axis=0)
            advs.append(rtg - baseline)
            grads.append(g)
        if advs:
            adv = np.concatenate(advs)
            adv = adv / (adv.std() + 1e-9)
            grad = (adv[:, None] * np.concatenate(grads)).mean(axis=0)
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad ** 2
            policy.w += lr * (m / (1 - 0.9 ** (it + 1))) / (np.sqrt(v / (1 - 0.999 ** (it + 1))) + 1e-8)
        row = {"iteration": it, "mean_return": float(np.mean([r[1][0] if len(r[1]) else 0.0 for r in runs]))}
        if eval_seeds is not None:
            row["eval_job_time"] = float(evaluate(env, policy, eval_seeds).mean())
        rows.append(row)
    return policy, pd.DataFrame(rows)


__all__ = ["random_agent", "heuristic_agent", "fifo_action", "LinearSoftmaxPolicy", "evaluate",
           "builtin_job_times", "train", "FEATURE_SCALE"]
