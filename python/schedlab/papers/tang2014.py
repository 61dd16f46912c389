"""Tang et al. 2014: S. Tang, B.-S. Lee, B. He, "DynamicMR: A Dynamic Slot Allocation
Optimization Framework for MapReduce Clusters", IEEE Trans. Cloud Computing, 2014 (as re-published
by A. Sagar T. and R. V. Moni, Int. J. of Computer Techniques 2(2), 2015): the testbed, the PUMA
workloads, the SEPB experiment and the speed-up metric that ``notebooks/dynamicmr.ipynb`` and
the tests call.

Registered datasets (``schedlab.datasets.load(name, ...)``), from ``datasets/dynamicmr_puma.json``:

* ``dynamicmr_batch`` — ``jobs`` (5, 10, 20 or 30; any positive number works) PUMA jobs
  submitted together at t = 0, one pool per job, benchmarks in a seeded order and sizes
  cycling through 16, 32 and 160 maps;
* ``dynamicmr_single`` — one job of ``benchmark`` (default "sort") with ``maps`` maps
  (default 160); the PreScheduling locality experiment uses Sort with 16, 32 and 160 maps.

Job profiles are documented choices (the paper gives none); see the JSON file's "choices".

SEPB (§4.5, §6.2, :func:`run_sepb`): 9 slaves with 6 map + 6 reduce slots (108 slots), batches of
5, 10 and 20 jobs submitted at t = 0 under the Fair Scheduler (one pool per job), speculation on,
and node-level stragglers (the paper needs "a straggler generator" and gives none: here two of the
nine nodes run 5x and 3x slower from t = 30 s and t = 100 s for the rest of the run). Job sizes
follow the PreScheduling experiments' 16, 32 and 160 maps; task works are not given.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..core.cluster import Cluster
from ..core.faults import Slowdown
from ..core.simulate import simulate
from ..core.workload import Workload
from ..workloads.datasets import data_path, from_job_types, register


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


def dynamicmr_cluster(map_slots: int = 6, reduce_slots: int = 6, nodes: int = 9) -> Cluster:
    """DynamicMR's testbed (Sagar & Moni 2015, §IV): 9 slaves of 12 slots in one rack; the map/reduce
    split per node is not given in the paper (6 + 6 by default)."""
    return Cluster(nodes=nodes, racks=1, map_slots=map_slots, reduce_slots=reduce_slots)


def speedup(baseline_time: float, new_time: float) -> float:
    """DynamicMR's performance improvement in percent: (T_baseline / T_new - 1) x 100."""
    return (float(baseline_time) / float(new_time) - 1.0) * 100.0


SEPB_PAPER = pd.DataFrame([
    ("SEPB vs percentage = 0", "3%-10% faster; gain grows with the percentage"),
    ("best percentage", "80% for 5 jobs, 100% for 10 jobs"),
    ("recommended range", "60%-100%"),
], columns=["quantity", "paper (Fig. 6, text)"])


def sepb_cluster() -> Cluster:
    return Cluster(nodes=9, racks=1, map_slots=6, reduce_slots=6)


def sepb_workload(jobs: int, seed: int = 0) -> Workload:
    from ..workloads.synthetic import generate
    return generate(jobs=jobs, seed=seed, arrivals=[0.0] * jobs, maps=("choice", [16, 32, 160]),
                    reduces=("randint", 4, 12), map_work=("uniform", 20, 40), reduce_work=("uniform", 40, 80),
                    users=jobs)


def sepb_faults():
    return [Slowdown(2, 30, 1e6, 5), Slowdown(5, 100, 1e6, 3)]


def run_sepb(batches=(5, 10, 20), percentages=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), seeds=(0,),
             scheduler: str = "fair") -> pd.DataFrame:
    """One row per (seed, batch, variant): makespan (the batch's workload execution time) for no
    speculation, Hadoop's speculation, and SEPB at each percentage (its other settings at their
    defaults: 2x kill, replacement on the node that has the free slot)."""
    cl = sepb_cluster()
    rows = []
    for seed in seeds:
        for jobs in batches:
            wl = sepb_workload(jobs, seed)
            variants = [("none", None, {}), ("hadoop", None, {})]
            variants += [("sepb", p, {"percentage": p}) for p in percentages]
            variants += [("sepb without kill", 1.0, {"percentage": 1.0, "kill_factor": 0})]
            for spec, pct, params in variants:
                r = simulate(cl, wl, scheduler, seed=seed, faults=sepb_faults(), speculation=spec.split()[0],
                             **({"speculation_params": params} if params else {}))
                s = r.summary()
                rows.append({"seed": seed, "jobs": jobs, "speculation": spec, "percentage": pct,
                             "makespan": s["makespan"], "copies": s["speculative_attempts"],
                             "sepb_kills": r.counters.get("sepb_kills", 0.0)})
    return pd.DataFrame(rows)


def run_dynamicmr(batches=(5, 10, 20), seeds=(0,)) -> pd.DataFrame:
    """DynamicMR in full [Sagar & Moni 2015, §III]: DHSA + Slot PreScheduling (the ``dynamicmr`` scheduler)
    with SEPB (``speculation="sepb"``), against stock Hadoop (Fair with Hadoop's speculation) and
    DynamicMR with Hadoop's speculation instead of SEPB, on the SEPB setup above."""
    cl = sepb_cluster()
    rows = []
    variants = [("fair", "hadoop", "stock Hadoop (fair + hadoop speculation)"),
                ("dynamicmr", "hadoop", "DHSA + PreScheduling + hadoop speculation"),
                ("dynamicmr", "sepb", "DynamicMR: DHSA + PreScheduling + SEPB")]
    for seed in seeds:
        for jobs in batches:
            wl = sepb_workload(jobs, seed)
            for sched, spec, label in variants:
                r = simulate(cl, wl, sched, seed=seed, faults=sepb_faults(), speculation=spec)
                rows.append({"seed": seed, "jobs": jobs, "variant": label, "makespan": r.summary()["makespan"]})
    return pd.DataFrame(rows)



# ---------------------------------------------------------------------------------- claims
# Experiment functions of claims/tang2014.toml (see schedlab.papers.claims).
import functools  # noqa: E402

from .claims import Measured  # noqa: E402


def _seeds(size):
    return (0,) if size == "small" else (0, 1, 2)


@functools.lru_cache(maxsize=None)
def _sepb_runs(size):
    return run_sepb(batches=(10,) if size == "small" else (5, 10, 20), percentages=(0.0, 1.0), seeds=_seeds(size))


def _sepb_claim(size, base):
    r = _sepb_runs(size)
    r = r[r["speculation"] != "sepb without kill"].copy()
    r["variant"] = r["speculation"] + r["percentage"].map(lambda p: "" if p != p else f"@{p:.0%}")
    p = r.pivot_table(index=["seed", "jobs"], columns="variant", values="makespan")
    sp = (p[base] / p["sepb@100%"] - 1) * 100          # the paper's speedup, (T_base / T_new - 1) x 100 %
    frame = r.groupby(["variant", "seed"])["makespan"].mean().reset_index()
    frame.columns = ["label", "seed", "value"]
    return Measured(list(sp.groupby(level="seed").mean()), frame,
                    note=f"SEPB at 100 % vs {base}, speedup % per batch: {sp.groupby(level='jobs').mean().round(1).to_dict()}",
                    ylabel="makespan (s), mean over batches")


def claim_sepb_vs_percentage0(size="small"):
    return _sepb_claim(size, "sepb@0%")


def claim_sepb_vs_hadoop(size="small"):
    return _sepb_claim(size, "hadoop")


def sepb_table(size="small") -> pd.DataFrame:
    """The SEPB runs the claims are computed from (:func:`run_sepb` at percentages 0 and 100 %;
    the 10-job batch and one seed at size "small", batches of 5, 10, 20 and three seeds at "full")."""
    return _sepb_runs(size).copy()


@functools.lru_cache(maxsize=None)
def _dynamicmr_runs(size):
    return run_dynamicmr(batches=(10,) if size == "small" else (5, 10, 20), seeds=_seeds(size))


def dynamicmr_table(size="small") -> pd.DataFrame:
    """The runs of the claim "dynamicmr_vs_stock" (:func:`run_dynamicmr`, batches and seeds as in
    :func:`sepb_table`)."""
    return _dynamicmr_runs(size).copy()


def claim_dynamicmr_vs_stock(size="small"):
    r = _dynamicmr_runs(size)
    p = r.pivot_table(index=["seed", "jobs"], columns="variant", values="makespan")
    sp = (p["stock Hadoop (fair + hadoop speculation)"] / p["DynamicMR: DHSA + PreScheduling + SEPB"] - 1) * 100
    frame = r.groupby(["variant", "seed"])["makespan"].mean().reset_index()
    frame.columns = ["label", "seed", "value"]
    frame["label"] = frame["label"].str.split(":").str[0].str.replace(" (fair + hadoop speculation)", "", regex=False)
    return Measured(list(sp.groupby(level="seed").mean()), frame,
                    note=f"speedup % per batch: {sp.groupby(level='jobs').mean().round(1).to_dict()}",
                    ylabel="makespan (s), mean over batches")


# Fig. 9: DynamicMR against stock Hadoop's Fair Scheduler with its best static map/reduce split
# (found by trying every split, mapreduce.best_static_split), single jobs (9a) and batches (9b).
FIG9 = {"small": {"benchmarks": ("sort", "wordcount", "self_join"), "single_seeds": (0,),
                  "batches": (5, 20), "batch_seeds": (0, 1)},
        "full": {"benchmarks": None, "single_seeds": (0, 1, 2), "batches": (5, 10, 20, 30), "batch_seeds": (0, 1, 2, 3, 4)}}


def _fig9_row(workload, seed):
    from ..engines.mapreduce import best_static_split
    best = best_static_split(dynamicmr_cluster, workload, "fair", seed=seed)
    row = {"fair_best_split": f"{best['map_slots']}+{best['reduce_slots']}", "fair_best": best["value"]}
    for name in ("fair", "pi_dhsa", "pd_dhsa", "dynamicmr"):
        row[name if name != "fair" else "fair_6+6"] = simulate(dynamicmr_cluster(6, 6), workload, name,
                                                               seed=seed).summary()["makespan"]
    row["speedup_%"] = speedup(row["fair_best"], row["dynamicmr"])
    row["speedup_vs_6+6_%"] = speedup(row["fair_6+6"], row["dynamicmr"])
    return row


@functools.lru_cache(maxsize=None)
def _fig9(size):
    from ..workloads.datasets import load
    if size not in FIG9:
        raise ValueError(f"size must be 'small' or 'full', got {size!r}")
    f = FIG9[size]
    rows = []
    for b in f["benchmarks"] or benchmarks():
        for seed in f["single_seeds"]:
            rows.append({"experiment": "single", "workload": b, "seed": seed,
                         **_fig9_row(load("dynamicmr_single", benchmark=b, seed=seed), seed)})
    for n in f["batches"]:
        for seed in f["batch_seeds"]:
            rows.append({"experiment": "batch", "workload": f"{n} jobs", "seed": seed,
                         **_fig9_row(load("dynamicmr_batch", jobs=n, seed=seed), seed)})
    return pd.DataFrame(rows)


def fig9_table(size="small") -> pd.DataFrame:
    """Fig. 9's runs, one row per (experiment, workload, seed): makespans of Fair with its best
    static split (and which split), Fair on 6 + 6 slots, PI-DHSA, PD-DHSA and DynamicMR (6 + 6
    slots, PI-DHSA + Slot PreScheduling), and DynamicMR's speedups. Single jobs of 160 maps (three
    benchmarks and one seed at size "small", all nine and three seeds at "full") and batches at
    t = 0 (5 and 20 jobs, two seeds; 5, 10, 20, 30 jobs, five seeds)."""
    return _fig9(size).copy()


def _fig9_claim(size, experiment):
    t = _fig9(size)
    t = t[t["experiment"] == experiment]
    per_seed = t.groupby("seed")["speedup_%"].min()
    per = t.groupby("workload", sort=False)["speedup_%"].mean().round(1).to_dict()
    frame = t[["workload", "seed", "speedup_%"]].rename(columns={"workload": "label", "speedup_%": "value"})
    return Measured(list(per_seed), frame.reset_index(drop=True),
                    note=f"DynamicMR's speedup over Fair with its best static split, % per workload (mean over seeds): "
                         f"{per}; value: the smallest over the workloads, per seed",
                    ylabel="speedup vs Fair:best static split (%)")


def claim_dynamicmr_vs_best_static_single(size="small"):
    return _fig9_claim(size, "single")


def claim_dynamicmr_vs_best_static_batches(size="small"):
    return _fig9_claim(size, "batch")


# Slot PreScheduling (Figs. 7-8), DynamicMR on FIFO (Fig. 10) and PI- against PD-DHSA: the runs and claims
#: The PreScheduling runs by size: Sort with 16, 32 and 160 maps over ``seeds`` (Fig. 7), and single
#: jobs of 32 maps of Fig. 9's benchmarks (Fig. 8, seed 0).
PRESCHEDULING = {"small": {"seeds": (0, 1, 2)}, "full": {"seeds": tuple(range(10))}}


@functools.lru_cache(maxsize=None)
def _prescheduling(size):
    from ..core.catalogue import get
    from ..workloads.datasets import load
    pre = get("dynamicmr", dhsa="none")          # Fair (delay scheduling) + Slot PreScheduling, no DHSA
    rows = []
    for maps in (16, 32, 160):
        for seed in PRESCHEDULING[size]["seeds"]:
            w = load("dynamicmr_single", benchmark="sort", maps=maps, seed=seed)
            a = simulate(dynamicmr_cluster(6, 6), w, "fair", seed=seed).summary()
            b = simulate(dynamicmr_cluster(6, 6), w, pre, seed=seed).summary()
            rows.append({"experiment": "locality", "workload": f"sort {maps} maps", "maps": maps, "seed": seed,
                         "locality_fair": a["locality_node"], "locality_presched": b["locality_node"],
                         "makespan_fair": a["makespan"], "makespan_presched": b["makespan"]})
    for bench in FIG9[size]["benchmarks"] or benchmarks():
        w = load("dynamicmr_single", benchmark=bench, maps=32, seed=0)
        a = simulate(dynamicmr_cluster(6, 6), w, "fair").summary()
        b = simulate(dynamicmr_cluster(6, 6), w, pre).summary()
        rows.append({"experiment": "performance", "workload": bench, "maps": 32, "seed": 0,
                     "locality_fair": a["locality_node"], "locality_presched": b["locality_node"],
                     "makespan_fair": a["makespan"], "makespan_presched": b["makespan"]})
    t = pd.DataFrame(rows)
    t["locality_gain_points"] = 100 * (t["locality_presched"] - t["locality_fair"])
    t["improvement_%"] = [speedup(a, b) for a, b in zip(t["makespan_fair"], t["makespan_presched"])]
    return t


def prescheduling_table(size="small") -> pd.DataFrame:
    """Slot PreScheduling's runs (Fair with delay scheduling, with and without PreScheduling, 6 + 6
    slots per node): ``experiment`` "locality" (Fig. 7: Sort with 16, 32 and 160 maps, seeds 0-2 at
    size "small", 0-9 at "full") and "performance" (Fig. 8: single jobs of 32 maps of Fig. 9's
    benchmarks, seed 0); node-local fractions, makespans, the locality gain in points and the
    improvement (speedup, %)."""
    return _prescheduling(size).copy()


def claim_prescheduling_locality(size="small"):
    """Fig. 7: PreScheduling raises node locality of Sort jobs of 16, 32 and 160 maps; value: the
    smallest gain over the three job sizes (points), per seed."""
    t = _prescheduling(size)
    t = t[t["experiment"] == "locality"]
    per = t.groupby("maps")[["locality_fair", "locality_presched"]].mean().mul(100).round(1)
    frame = t[["workload", "seed", "locality_gain_points"]].rename(columns={"workload": "label", "locality_gain_points": "value"})
    return Measured(list(t.groupby("seed")["locality_gain_points"].min()), frame.reset_index(drop=True),
                    note="node-local maps (%) without -> with PreScheduling, mean over seeds: "
                         + ", ".join(f"{m} maps {r['locality_fair']} -> {r['locality_presched']}" for m, r in per.iterrows()),
                    ylabel="locality gain (points)")


def claim_prescheduling_performance(size="small"):
    """Fig. 8: PreScheduling shortens single jobs by 1-9 %; value: the smallest improvement
    (speedup, %) over the benchmarks (one seed)."""
    t = _prescheduling(size)
    t = t[t["experiment"] == "performance"]
    frame = t[["workload", "seed", "improvement_%"]].rename(columns={"workload": "label", "improvement_%": "value"})
    return Measured([float(t["improvement_%"].min())], frame.reset_index(drop=True),
                    note="improvement of single jobs of 32 maps, % per benchmark: "
                         + ", ".join(f"{b} {v:.1f}" for b, v in zip(t["workload"], t["improvement_%"])),
                    ylabel="improvement with PreScheduling (%)")


def claim_pi_pd_alike(size="small"):
    """§IV: PI-DHSA and PD-DHSA perform "fundamentally the same"; value: the largest difference of
    PD-DHSA's makespan from PI-DHSA's (``abs(PD / PI - 1)``, %) over Fig. 9's workloads, per seed."""
    t = _fig9(size).copy()
    t["diff_%"] = 100 * (t["pd_dhsa"] / t["pi_dhsa"] - 1)
    frame = t[["workload", "seed", "diff_%"]].rename(columns={"workload": "label", "diff_%": "value"})
    return Measured(list(t.groupby("seed")["diff_%"].apply(lambda d: d.abs().max())), frame.reset_index(drop=True),
                    note=f"PD-DHSA's makespan against PI-DHSA's, % per workload (mean over seeds): "
                         f"{t.groupby('workload', sort=False)['diff_%'].mean().round(1).to_dict()}",
                    ylabel="PD-DHSA / PI-DHSA - 1 (%)")


@functools.lru_cache(maxsize=None)
def _fig10(size):
    from ..core.catalogue import get
    from ..engines.mapreduce import best_static_split
    from ..workloads.datasets import load
    fifo_dmr = get("dynamicmr", base="fifo")
    f = FIG9[size]
    todo = [("single", b, 0, load("dynamicmr_single", benchmark=b, seed=0)) for b in f["benchmarks"] or benchmarks()]
    todo += [("batch", f"{n} jobs", s, load("dynamicmr_batch", jobs=n, seed=s)) for n in f["batches"] for s in f["batch_seeds"]]
    rows = []
    for experiment, name, seed, w in todo:
        best = best_static_split(dynamicmr_cluster, w, "fifo", seed=seed)
        row = {"experiment": experiment, "workload": name, "seed": seed,
               "fifo_best_split": f"{best['map_slots']}+{best['reduce_slots']}", "fifo_best": best["value"],
               "fifo_6+6": simulate(dynamicmr_cluster(6, 6), w, "fifo", seed=seed).summary()["makespan"],
               "dynamicmr_fifo": simulate(dynamicmr_cluster(6, 6), w, fifo_dmr, seed=seed).summary()["makespan"]}
        row["speedup_%"] = speedup(row["fifo_best"], row["dynamicmr_fifo"])
        row["speedup_vs_6+6_%"] = speedup(row["fifo_6+6"], row["dynamicmr_fifo"])
        rows.append(row)
    return pd.DataFrame(rows)


def fig10_table(size="small") -> pd.DataFrame:
    """Fig. 10's runs: DynamicMR on Hadoop's FIFO scheduler (``dynamicmr`` with ``base="fifo"``,
    6 + 6 slots) against ``fifo`` with its best static split (all eleven tried) and with 6 + 6, on
    Fig. 9's single jobs (seed 0) and batches (its batch sizes and seeds)."""
    return _fig10(size).copy()


def _fig10_claim(size, experiment):
    t = _fig10(size)
    t = t[t["experiment"] == experiment]
    frame = t[["workload", "seed", "speedup_%"]].rename(columns={"workload": "label", "speedup_%": "value"})
    return Measured(list(t.groupby("seed")["speedup_%"].min()), frame.reset_index(drop=True),
                    note="DynamicMR on FIFO against FIFO with its best static split, % per workload (mean over seeds): "
                         f"{t.groupby('workload', sort=False)['speedup_%'].mean().round(1).to_dict()}; best splits: "
                         f"{t.groupby('workload', sort=False)['fifo_best_split'].agg(lambda s: '/'.join(s)).to_dict()}",
                    ylabel="speedup vs FIFO:best static split (%)")


def claim_dynamicmr_fifo_single(size="small"):
    """Fig. 10: DynamicMR is effective on the FIFO scheduler too; value: the smallest speedup over
    the benchmarks (single jobs) against FIFO with its best static split."""
    return _fig10_claim(size, "single")


def claim_dynamicmr_fifo_batches(size="small"):
    """Fig. 10, batches: value: the smallest speedup over the batch sizes, per seed."""
    return _fig10_claim(size, "batch")
