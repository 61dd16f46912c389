"""The eSplash experiments [seed000 §4.6] on the simulator: 8 nodes at 4 levels, 8 MapReduce jobs
(2 each of four benchmarks, 80 maps and 10 reduces), and four scenarios: no fault, a recoverable
straggler at level 1 and at level 4 (slowed for 1000 s), and an unrecoverable straggler (a level-4
node slowed for 1000 s, then crashed and restarted 600 s later). Each speculator's makespan
increase is measured against its own no-fault run, and the time wasted in killed copies is
summed. Used by ``notebooks/esplash.ipynb`` and its test.

Modelling choices the dissertation leaves open ([I] items of the digest): levels 1-4 have 32, 16,
8 and 4 vcores on identical 8-core machines, modelled as 32/16/8/4 map slots and 8/4/2/1 reduce
slots per node with per-task speeds 8/vcores = 0.25, 0.5, 1 and 2; task works per benchmark are
not given (the values below are chosen so that a run lasts about as long as the paper's
1000 s windows matter); all jobs arrive at t = 0; the slowdown starts at t = 100 s with factor 3;
the crash detection delay is YARN's 600 s.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._cluster import Cluster
from ._simulate import simulate
from ._workload import Workload
from .faults import Crash, Slowdown

# seconds of work at speed 1 per task, and shuffle bytes per reduce
BENCHMARKS = {
    "terasort": dict(map_work=80.0, reduce_work=150.0, shuffle=2.0e9),
    "wordcount": dict(map_work=120.0, reduce_work=60.0, shuffle=0.2e9),
    "grep": dict(map_work=60.0, reduce_work=20.0, shuffle=0.01e9),
    "wordmean": dict(map_work=100.0, reduce_work=40.0, shuffle=0.01e9),
}

# The paper's numbers (text of §5.3; figures unavailable) [seed000 §4.6, §6 E2-E5]
PAPER = pd.DataFrame([
    ("no fault", "wasted time in killed copies (s)", 3536, 343, None),
    ("straggler at level 1", "increased makespan vs yarn", None, "-65.7%", "-76.7% vs none"),
    ("straggler at level 4", "increased makespan vs yarn", None, "-66.7%", "-69.4% vs none; yarn +47.9% vs none"),
    ("crash + 600 s restart", "increased makespan vs yarn", None, "-45.8%", "-42.4% vs none"),
], columns=["scenario", "metric", "yarn (paper: 'LATE')", "esplash", "note"])


def cluster() -> Cluster:
    vcores = np.repeat([32, 16, 8, 4], 2)
    return Cluster(nodes=8, racks=1, map_slots=vcores, reduce_slots=vcores // 4, speeds=8.0 / vcores,
                   node_types=np.repeat([1, 2, 3, 4], 2))


def workload(small: bool = False, seed: int = 0) -> Workload:
    maps, reduces = (20, 3) if small else (80, 10)
    rng = np.random.default_rng(seed)
    jobs, tasks = [], []
    for j, bench in enumerate(list(BENCHMARKS) * 2):
        b = BENCHMARKS[bench]
        jobs.append({"job_id": j, "submit_time": 0.0, "benchmark": bench})
        for _ in range(maps):
            tasks.append({"job_id": j, "stage": "map", "work": b["map_work"] * rng.uniform(0.9, 1.1),
                          "input_bytes": 128e6})
        for _ in range(reduces):
            tasks.append({"job_id": j, "stage": "reduce", "work": b["reduce_work"] * rng.uniform(0.9, 1.1),
                          "input_bytes": b["shuffle"] * maps / 80})
    return Workload.from_frames(pd.DataFrame(jobs), pd.DataFrame(tasks), name="esplash-mixed")


def scenarios(start: float = 100.0, window: float = 1000.0, factor: float = 3.0, restart: float = 600.0) -> dict:
    """Fault lists: level-1 straggler (node 0), level-4 straggler (node 7), and the level-4
    straggler that then crashes and restarts."""
    return {
        "no fault": [],
        "straggler at level 1": [Slowdown(0, start, start + window, factor)],
        "straggler at level 4": [Slowdown(7, start, start + window, factor)],
        "crash + 600 s restart": [Slowdown(7, start, start + window, factor), Crash(7, start + window, restart)],
    }


def run(speculators=("none", "yarn", "esplash", "hadoop", "late"), small: bool = False, seeds=(0,),
        scheduler: str = "fair", speculation_params: dict | None = None, **scenario_args) -> pd.DataFrame:
    """One row per (seed, scenario, speculator): makespan, increased makespan against the same
    speculator's no-fault run, speculative copies (launched, killed, killed on a slower-or-equal
    node or on the slowed node) and the time wasted in killed copies."""
    cl = cluster()
    rows = []
    for seed in seeds:
        wl = workload(small, seed)
        base = {}
        for scen, faults in scenarios(**scenario_args).items():
            for spec in speculators:
                params = (speculation_params or {}).get(spec)
                kw = {"speculation_params": params} if params else {}
                r = simulate(cl, wl, scheduler, seed=seed, faults=faults, speculation=spec, **kw)
                s = r.summary()
                if scen == "no fault":
                    base[spec] = s["makespan"]
                rows.append({
                    "seed": seed, "scenario": scen, "speculation": spec, "makespan": s["makespan"],
                    "increased_makespan": s["makespan"] - base[spec],
                    "copies": s["speculative_attempts"], "copies_killed": s["speculative_killed"],
                    "killed_on_slower_or_equal_node": s.get("speculative_killed_on_slower_or_equal_node", 0.0),
                    "killed_on_slowed_node": s.get("speculative_killed_on_slowed_node", 0.0),
                    "wasted_copy_time": s["wasted_speculative_time"],
                    "lost_map_outputs": s["lost_map_outputs"],
                })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# SEPB [seed003 §4.5, §6.2]: 9 slaves with 6 map + 6 reduce slots (108 slots), batches of 5, 10
# and 20 jobs submitted at t = 0 under the Fair Scheduler (one pool per job), speculation on, and
# node-level stragglers (the seed needs "a straggler generator" and gives none: here two of the
# nine nodes run 5x and 3x slower from t = 30 s and t = 100 s for the rest of the run). Job sizes
# follow the PreScheduling experiments' 16, 32 and 160 maps; task works are not given.

SEPB_PAPER = pd.DataFrame([
    ("SEPB vs percentage = 0", "3%-10% faster; gain grows with the percentage"),
    ("best percentage", "80% for 5 jobs, 100% for 10 jobs"),
    ("recommended range", "60%-100%"),
], columns=["quantity", "paper (Fig. 6, text)"])


def sepb_cluster() -> Cluster:
    return Cluster(nodes=9, racks=1, map_slots=6, reduce_slots=6)


def sepb_workload(jobs: int, seed: int = 0) -> Workload:
    from .synthetic import generate
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
    """DynamicMR in full [seed003 §4.7]: DHSA + Slot PreScheduling (the ``dynamicmr`` scheduler)
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
