"""The workloads of FRESH (Wang dissertation ch. 3) and OMO (ch. 4), built from
``datasets/wang_fresh.json`` and ``datasets/wang_omo.json`` (spec seed000 §2.5, §3.6).

Registered names (``schedlab.datasets.load(name, seed=0)``):

* ``fresh_simple_<benchmark>`` — 10 jobs of one benchmark on the same input, 2 s apart
  (options ``jobs``, ``size`` = "8G" | "4G");
* ``fresh_set_a`` … ``fresh_set_e`` — Tables 3.1-3.5, ordered by Johnson's rule on the jobs'
  profiled map and reduce workloads, 2 s apart;
* ``omo_simple_<benchmark>`` — 8 jobs of 20 GB (80 maps, 2 reduces), 2 s apart;
* ``omo_set_a`` … ``omo_set_h`` — Table 4.5 with Table 4.4's shuffle sizes, 2 s apart.

Task work is jittered uniformly by +-``work_jitter`` with a generator seeded by ``seed``; the
FRESH profiles (task estimates) carry a per-job, per-stage bias uniform in +-30 %.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ._workload import Workload
from .datasets import data_path, register
from .mapreduce import johnson_order

_GB = 2.0 ** 30


def _spec(name):
    with open(data_path(name)) as f:
        return json.load(f)


def _build(rows, name, seed, jitter, bias, interarrival, order_by_johnson=False):
    """rows: list of dicts (label, benchmark, size, maps, reduces, map_work, reduce_work,
    map_in, map_out, red_in)."""
    rng = np.random.default_rng(seed)
    tm, tr = [], []
    for r in rows:
        r["map_works"] = r["map_work"] * (1 + rng.uniform(-jitter, jitter, r["maps"]))
        r["reduce_works"] = r["reduce_work"] * (1 + rng.uniform(-jitter, jitter, r["reduces"]))
        r["bias"] = 1 + rng.uniform(-bias, bias, 2) if bias > 0 else np.ones(2)
        tm.append(r["map_works"].sum() * r["bias"][0])
        tr.append(r["reduce_works"].sum() * r["bias"][1])
    order = johnson_order(tm, tr) if order_by_johnson else np.arange(len(rows))
    jobs, frames = [], []
    for pos, i in enumerate(order):
        r = rows[i]
        m, n = r["maps"], r["reduces"]
        work = np.concatenate([r["map_works"], r["reduce_works"]])
        est = np.concatenate([r["map_works"] * r["bias"][0], r["reduce_works"] * r["bias"][1]])
        frames.append(pd.DataFrame({
            "job_id": pos, "stage": np.r_[np.zeros(m, int), np.ones(n, int)], "work": work, "estimate": est,
            "input_bytes": np.r_[np.full(m, r["map_in"]), np.full(n, r["red_in"])],
            "output_bytes": np.r_[np.full(m, r["map_out"]), np.zeros(n)]}))
        jobs.append({"job_id": pos, "submit_time": pos * interarrival, "benchmark": r["benchmark"],
                     "input": r["size"], "label": r["label"]})
    return Workload.from_frames(pd.DataFrame(jobs), pd.concat(frames, ignore_index=True), name=name)


# ---------------------------------------------------------------------------------- FRESH
def _fresh_row(spec, bench, size):
    b = spec["benchmarks"][bench]
    maps, reduces = b["tasks"][size]
    inp = spec["input_bytes"][size]
    block = inp / maps
    out = block * b["shuffle_ratio"]
    return {"label": f"{bench}-{size}", "benchmark": bench, "size": size, "maps": maps, "reduces": reduces,
            "map_work": b["map_work"], "reduce_work": b["reduce_work"], "map_in": block, "map_out": out,
            "red_in": out * maps / reduces}


def fresh_set_jobs(set_name: str) -> list:
    """The (benchmark, size) list of FRESH's Set A-E before Johnson ordering."""
    spec = _spec("wang_fresh.json")
    s = spec["sets"][set_name]
    if "repeat_of" in s:
        return [tuple(x) for x in spec["sets"][s["repeat_of"]]["jobs"]] * s["times"]
    return [tuple(x) for x in s["jobs"]]


def _fresh_set(set_name):
    def build(seed: int = 0, johnson: bool = True, interarrival: float | None = None):
        spec = _spec("wang_fresh.json")
        rows = [_fresh_row(spec, b, z) for b, z in fresh_set_jobs(set_name)]
        ia = spec["interarrival"] if interarrival is None else interarrival
        return _build(rows, f"fresh_set_{set_name.lower()}", seed, spec["work_jitter"], spec["profile_bias"], ia,
                      order_by_johnson=johnson)
    return build


def _fresh_simple(bench):
    def build(seed: int = 0, jobs: int | None = None, size: str | None = None):
        spec = _spec("wang_fresh.json")
        size = size or spec["simple"]["size"]
        if size not in spec["input_bytes"]:
            raise ValueError(f"fresh_simple_{bench}: size must be one of {list(spec['input_bytes'])}, got {size!r}")
        n = int(jobs or spec["simple"]["jobs"])
        if n < 1:
            raise ValueError(f"fresh_simple_{bench}: jobs must be at least 1, got {jobs!r}")
        rows = [_fresh_row(spec, bench, size) for _ in range(n)]
        return _build(rows, f"fresh_simple_{bench}", seed, spec["work_jitter"], spec["profile_bias"], spec["interarrival"])
    return build


# ---------------------------------------------------------------------------------- OMO
def _omo_row(spec, bench, gb):
    b = spec["benchmarks"][bench]
    maps = int(round(gb * _GB / spec["split_bytes"]))
    reduces = max(1, int(round(gb / 10)))
    shuffle = b["shuffle_gb_per_20gb"] * _GB * gb / 20.0
    return {"label": f"{bench}-{gb}G", "benchmark": bench, "size": f"{gb}G", "maps": maps, "reduces": reduces,
            "map_work": b["map_work"], "reduce_work": b["reduce_work"], "map_in": float(spec["split_bytes"]),
            "map_out": shuffle / maps, "red_in": shuffle / reduces}


def omo_set_jobs(set_name: str) -> list:
    """The (benchmark, GB) list of OMO's Set A-H in submission order: benchmarks cycle in
    Table 4.4's order; where a set has two sizes, each benchmark's larger job comes first."""
    spec = _spec("wang_omo.json")
    s = spec["sets"][set_name]
    benches = spec["order"] if s["benchmarks"] == "all" else s["benchmarks"]
    out = []
    for _ in range(s["per_benchmark"]):
        for b in benches:
            for gb in s["sizes"]:
                out.append((b, gb))
    return out


def _omo_set(set_name):
    def build(seed: int = 0):
        spec = _spec("wang_omo.json")
        rows = [_omo_row(spec, b, gb) for b, gb in omo_set_jobs(set_name)]
        return _build(rows, f"omo_set_{set_name.lower()}", seed, spec["work_jitter"], 0.0, spec["interarrival"])
    return build


def _omo_simple(bench):
    def build(seed: int = 0, jobs: int | None = None, size_gb: float | None = None):
        spec = _spec("wang_omo.json")
        n = int(jobs or spec["simple"]["jobs"])
        gb = float(size_gb or spec["simple"]["size_gb"])
        if n < 1 or gb <= 0:
            raise ValueError(f"omo_simple_{bench}: jobs must be >= 1 and size_gb > 0")
        rows = [_omo_row(spec, bench, gb) for _ in range(n)]
        return _build(rows, f"omo_simple_{bench}", seed, spec["work_jitter"], 0.0, spec["interarrival"])
    return build


FRESH_BENCHMARKS = ("classification", "invertedindex", "wordcount", "grep", "histogram_ratings", "histogram_movies")
OMO_BENCHMARKS = ("terasort", "seqcount", "wordcount", "invertedindex", "histmovies", "classification")

for _b in FRESH_BENCHMARKS:
    register(f"fresh_simple_{_b}", _fresh_simple(_b), f"FRESH simple workload: 10 x {_b} (8 GB), 2 s apart [Wang §3.4.2.1]")
for _s, _t in zip("ABCDE", ("3.1", "3.4", "3.5", "3.2", "3.3")):
    register(f"fresh_set_{_s.lower()}", _fresh_set(_s),
             f"FRESH mixed Set {_s} (Table {_t}), Johnson-ordered, 2 s apart [Wang §3.4.2.2]")
for _b in OMO_BENCHMARKS:
    register(f"omo_simple_{_b}", _omo_simple(_b), f"OMO simple workload: 8 x {_b} 20 GB (80 maps, 2 reduces), 2 s apart [Wang §4.4.2]")
for _s in "ABCDEFGH":
    register(f"omo_set_{_s.lower()}", _omo_set(_s), f"OMO mixed Set {_s} (Table 4.5) with Table 4.4 shuffle sizes, 2 s apart [Wang §4.4.2]")
