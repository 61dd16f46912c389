"""The DynamicMR paper's workloads (seed003 §6.2), built from ``datasets/dynamicmr_puma.json``.

Registered names (``schedlab.datasets.load(name, ...)``):

* ``dynamicmr_batch`` — ``jobs`` (5, 10, 20 or 30; any positive number works) PUMA jobs
  submitted together at t = 0, one pool per job, benchmarks in a seeded order and sizes
  cycling through 16, 32 and 160 maps;
* ``dynamicmr_single`` — one job of ``benchmark`` (default "sort") with ``maps`` maps
  (default 160); the PreScheduling locality experiment uses Sort with 16, 32 and 160 maps.

Job profiles are documented choices (the paper gives none); see the JSON file's "choices".
"""
from __future__ import annotations

import json

import numpy as np

from ._workload import Workload
from .datasets import data_path, from_job_types, register


def _spec():
    with open(data_path("dynamicmr_puma.json")) as f:
        return json.load(f)


def _job_type(spec, bench, maps):
    b = spec["benchmarks"][bench]
    reduces = max(1, maps // int(spec["maps_per_reduce"]))
    reduce_mb = float(spec["block_bytes"]) / 2**20 * float(b["shuffle_ratio"]) * maps / reduces
    return {"maps": maps, "reduces": reduces, "map_work": float(b["map_work"]),
            "reduce_work": float(spec["reduce_overhead"]) + reduce_mb / float(b["reduce_mb_per_s"]),
            "shuffle_ratio": float(b["shuffle_ratio"])}


def _build(spec, jobs, seed, name):
    """jobs: list of (benchmark, maps)."""
    types = {}
    seq = []
    for bench, maps in jobs:
        key = f"{bench}_{maps}"
        types[key] = _job_type(spec, bench, maps)
        seq.append(key)
    table = {"job_types": types, "block_bytes": spec["block_bytes"], "work_jitter": spec["work_jitter"]}
    return from_job_types(table, seq, submit_times=np.zeros(len(seq)), seed=seed,
                          users=[f"pool{i}" for i in range(len(seq))], name=name)


def _batch(jobs: int = 10, seed: int = 0) -> Workload:
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise ValueError(f"dataset dynamicmr_batch: jobs must be a whole number >= 1, got {jobs!r}")
    spec = _spec()
    names = sorted(spec["benchmarks"])
    order = [names[i] for i in np.random.default_rng([seed, 7]).permutation(len(names))]
    sizes = spec["job_maps"]
    plan = [(order[i % len(order)], int(sizes[i % len(sizes)])) for i in range(int(jobs))]
    return _build(spec, plan, seed, f"dynamicmr_batch_{jobs}")


def _single(benchmark: str = "sort", maps: int | None = None, seed: int = 0) -> Workload:
    spec = _spec()
    if benchmark not in spec["benchmarks"]:
        raise ValueError(f"dataset dynamicmr_single: unknown benchmark {benchmark!r}; choose one of {sorted(spec['benchmarks'])}")
    maps = int(spec["single_job_maps"]) if maps is None else maps
    if isinstance(maps, bool) or not isinstance(maps, (int, np.integer)) or maps < 1:
        raise ValueError(f"dataset dynamicmr_single: maps must be a whole number >= 1, got {maps!r}")
    return _build(spec, [(benchmark, int(maps))], seed, f"dynamicmr_single_{benchmark}_{maps}")


def benchmarks() -> list:
    """The nine benchmark names of the DynamicMR workloads."""
    return sorted(_spec()["benchmarks"])


register("dynamicmr_batch", _batch,
         "DynamicMR paper: a batch of PUMA jobs (16/32/160 maps, one pool each) submitted at t=0; options jobs (5/10/20/30), seed")
register("dynamicmr_single", _single,
         "DynamicMR paper: one PUMA job (default Sort, 160 maps); options benchmark, maps, seed")
