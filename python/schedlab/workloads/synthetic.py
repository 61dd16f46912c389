"""Seeded synthetic MapReduce workloads.

Distributions are given as a constant, or a tuple naming a distribution:

* ``("constant", x)``, ``("uniform", lo, hi)``, ``("randint", lo, hi)`` (inclusive),
* ``("exponential", mean)``, ``("lognormal", mu, sigma)``, ``("normal", mean, sd)`` (clipped at 0),
* ``("pareto", xm, alpha)``, ``("choice", [values])``,

or any callable ``f(rng, n) -> array`` of ``rng: numpy.random.Generator``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.workload import Workload


def draw(dist, rng: np.random.Generator, n: int, what: str = "value") -> np.ndarray:
    """``n`` draws from ``dist`` (see the module docstring)."""
    if callable(dist):
        out = np.asarray(dist(rng, n), dtype=float)
        if out.shape != (n,):
            raise ValueError(f"{what}: the callable returned shape {out.shape}, expected ({n},)")
        return out
    if isinstance(dist, (int, float, np.integer, np.floating)):
        return np.full(n, float(dist))
    if not isinstance(dist, (tuple, list)) or not dist or not isinstance(dist[0], str):
        raise ValueError(f"{what}: cannot read distribution {dist!r}")
    kind, *a = dist
    try:
        if kind == "constant":
            return np.full(n, float(a[0]))
        if kind == "uniform":
            return rng.uniform(a[0], a[1], n)
        if kind == "randint":
            return rng.integers(int(a[0]), int(a[1]) + 1, n).astype(float)
        if kind == "exponential":
            return rng.exponential(a[0], n)
        if kind == "lognormal":
            return rng.lognormal(a[0], a[1], n)
        if kind == "normal":
            return np.maximum(rng.normal(a[0], a[1], n), 0.0)
        if kind == "pareto":
            return a[0] * (1.0 + rng.pareto(a[1], n))
        if kind == "choice":
            return rng.choice(np.asarray(a[0], dtype=float), n)
    except (IndexError, TypeError) as e:
        raise ValueError(f"{what}: bad arguments for distribution {dist!r}: {e}") from None
    raise ValueError(f"{what}: unknown distribution {kind!r}")


def generate(jobs: int = 100, *, seed: int = 0, arrivals=None, rate: float | None = None,
             maps=("randint", 1, 20), reduces=("randint", 0, 5), map_work=("exponential", 30.0),
             reduce_work=("exponential", 60.0), users: int = 1, queues: int = 1, weights=1.0,
             block_bytes: float = 64e6, shuffle_ratio=1.0, deadline_factor=None, chain: int = 1,
             name: str = "synthetic") -> Workload:
    """A seeded synthetic workload of ``jobs`` MapReduce jobs.

    Arrivals: ``arrivals`` (explicit submit times), else a Poisson process of ``rate`` jobs per
    second, else all jobs at time 0. ``maps``/``reduces`` give task counts per job,
    ``map_work``/``reduce_work`` task work in seconds (at speed 1). Each map reads
    ``block_bytes`` and emits ``shuffle_ratio`` times as much; reduces share the job's map
    output. ``deadline_factor`` (a distribution) sets deadline = submit + factor x the job's
    sequential work on its own (optional). Users and queues are assigned round-robin.

    ``chain`` > 1 makes DAG jobs: consecutive runs of ``chain`` jobs form one chain
    (a Pig/Hive-style workflow) — each job depends on the one before it, all are submitted at
    the chain's first arrival, and they share a ``dag`` id (the chain's index). The draws are
    the same as with ``chain=1``, so a seed gives the same jobs either way.
    """
    if not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise ValueError(f"generate: 'jobs' must be a positive whole number, got {jobs!r}")
    if not isinstance(chain, (int, np.integer)) or chain < 1:
        raise ValueError(f"generate: 'chain' must be a positive whole number, got {chain!r}")
    rng = np.random.default_rng(seed)
    n = int(jobs)
    if arrivals is not None:
        submit = np.asarray(arrivals, dtype=float)
        if submit.shape != (n,):
            raise ValueError(f"generate: 'arrivals' has {submit.size} values, expected {n}")
    elif rate is not None:
        if not rate > 0:
            raise ValueError(f"generate: 'rate' must be positive, got {rate!r}")
        submit = np.cumsum(rng.exponential(1.0 / rate, n))
        submit -= submit[0]
    else:
        submit = np.zeros(n)
    n_maps = np.maximum(np.rint(draw(maps, rng, n, "maps")), 0).astype(np.int64)
    n_red = np.maximum(np.rint(draw(reduces, rng, n, "reduces")), 0).astype(np.int64)
    n_maps[(n_maps + n_red) == 0] = 1
    total_maps, total_red = int(n_maps.sum()), int(n_red.sum())
    mw = draw(map_work, rng, total_maps, "map_work")
    rw = draw(reduce_work, rng, total_red, "reduce_work")
    ratio = draw(shuffle_ratio, rng, n, "shuffle_ratio")
    job_ids = np.arange(n)
    deps = None
    if chain > 1:
        submit = submit[job_ids - job_ids % chain]  # a chain arrives at once
        child = job_ids[job_ids % chain != 0]
        deps = pd.DataFrame({"job_id": child, "parent_id": child - 1})
    map_job = np.repeat(job_ids, n_maps)
    red_job = np.repeat(job_ids, n_red)
    map_out = block_bytes * ratio[map_job]
    job_out = np.bincount(map_job, weights=map_out, minlength=n)
    red_in = job_out[red_job] / np.maximum(n_red[red_job], 1)
    tasks = pd.DataFrame({
        "job_id": np.concatenate([map_job, red_job]),
        "stage": np.concatenate([np.zeros(total_maps, np.int8), np.ones(total_red, np.int8)]),
        "work": np.concatenate([mw, rw]),
        "input_bytes": np.concatenate([np.full(total_maps, block_bytes), red_in]),
        "output_bytes": np.concatenate([map_out, np.zeros(total_red)]),
    })
    jobs_df = pd.DataFrame({
        "job_id": job_ids,
        "submit_time": submit,
        "user": [f"user{i % users}" for i in range(n)],
        "queue": job_ids % queues,
        "weight": draw(weights, rng, n, "weights"),
    })
    if deadline_factor is not None:
        seq = np.bincount(map_job, weights=mw, minlength=n) + np.bincount(red_job, weights=rw, minlength=n)
        jobs_df["deadline"] = submit + draw(deadline_factor, rng, n, "deadline_factor") * seq
    if chain > 1:
        jobs_df["dag"] = job_ids // chain
    return Workload.from_frames(jobs_df, tasks, dependencies=deps, name=name)
