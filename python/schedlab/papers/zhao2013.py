"""Zhao et al. 2013: H. Zhao, S. Yang, H. Fan, Z. Chen, J. Xu, "An Efficiency-Aware Scheduling
for Data-Intensive Computations on MapReduce Clusters", IEICE Trans. Inf. & Syst. E96-D(12), 2013
— EAS: the testbed, the workload of Table 1, the metrics (machine throughput eqs. 1-4, Fig. 4's
map load balance) and the experiment of §5 that ``notebooks/eas.ipynb`` and the tests call.

Registered dataset (``schedlab.datasets.load(name, ...)``), from ``datasets/eas_table1.json``:

* ``eas_table1`` — 50 wordcount and sort jobs with uniform arrivals in [0, 120] s; options
  ``replication`` (1-7, the paper's independent variable), ``placement`` ("random" or
  "round_robin" first replica), ``map_machines`` (15), ``arrival_window`` (120 s), ``seed``.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..core.cluster import Cluster
from ..core.workload import Workload
from ..workloads.datasets import data_path, from_job_types, register


def _eas_table1(seed: int = 0, replication: int = 3, placement: str = "random", map_machines: int | None = None,
                arrival_window: float | None = None) -> Workload:
    """EAS paper's Table 1 mix (Zhao et al. 2013): 50 jobs, uniform arrivals, blocks replicated
    ``replication`` times on the map machines (nodes 0 .. map_machines-1)."""
    with open(data_path("eas_table1.json")) as f:
        spec = json.load(f)
    nm = int(spec["map_machines"] if map_machines is None else map_machines)
    if isinstance(replication, bool) or not isinstance(replication, (int, np.integer)) or not 1 <= replication <= nm:
        raise ValueError(f"dataset eas_table1: replication must be a whole number in [1, {nm}] (map machines), got {replication!r}")
    if placement not in ("random", "round_robin"):
        raise ValueError(f"dataset eas_table1: placement must be 'random' or 'round_robin', got {placement!r}")
    window = float(spec["arrival_window"] if arrival_window is None else arrival_window)
    rng = np.random.default_rng([seed, 1])
    sequence = [t for t, jt in spec["job_types"].items() for _ in range(int(jt["count"]))]
    sequence = [sequence[i] for i in rng.permutation(len(sequence))]
    submit = np.sort(rng.uniform(0.0, window, len(sequence)))
    rep_rng = np.random.default_rng([seed, 2])
    next_first = [0]

    def replicas(_job, m):
        out = []
        for _ in range(m):
            if placement == "round_robin":
                first = next_first[0] % nm
                next_first[0] += 1
                rest = rep_rng.permutation(np.delete(np.arange(nm), first))[: replication - 1]
                out.append([first] + [int(x) for x in rest])
            else:
                out.append([int(x) for x in rep_rng.choice(nm, size=replication, replace=False)])
        return out

    return from_job_types(spec, sequence, submit_times=submit, seed=seed, name=f"eas_table1_r{replication}",
                          map_replicas=replicas)


register("eas_table1", _eas_table1,
         "EAS paper Table 1: 50 wordcount/sort jobs, uniform arrivals in [0,120] s, 128 MB blocks on 15 map machines; "
         "options replication (1-7), placement, seed")


def eas_cluster(map_machines: int = 15, reduce_machines: int = 5, slots: int = 2, speed: float = 1.0) -> Cluster:
    """One rack of ``map_machines`` nodes with ``slots`` map slots only (nodes 0 .. N_m-1, the
    HDFS DataNodes) followed by ``reduce_machines`` nodes with ``slots`` reduce slots only."""
    for name, v in (("map_machines", map_machines), ("reduce_machines", reduce_machines), ("slots", slots)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"eas_cluster: {name} must be a whole number >= 1, got {v!r}")
    n = map_machines + reduce_machines
    ms = [slots] * map_machines + [0] * reduce_machines
    rs = [0] * map_machines + [slots] * reduce_machines
    return Cluster(nodes=n, racks=1, map_slots=ms, reduce_slots=rs, speeds=speed)


def _succeeded(result, stage):
    t = result.tasks
    t = t[(t["status"] == "succeeded") & (t["stage"] == stage)]
    wl = result.workload.tasks
    return t.assign(input_bytes=wl["input_bytes"].to_numpy()[t["task_id"].to_numpy()])


def machine_throughput(result, stage: str = "map") -> pd.DataFrame:
    """Per machine that ran tasks of ``stage``: ``bytes`` processed (map input or reduce shuffle
    input of its succeeded attempts), ``last_finish`` (T, measured from time 0) and
    ``throughput`` = bytes / T in bytes per second. ``.throughput.sum()`` is eq. (3) / (4)."""
    if stage not in ("map", "reduce"):
        raise ValueError(f"machine_throughput: stage must be 'map' or 'reduce', got {stage!r}")
    t = _succeeded(result, stage)
    g = t.groupby("node").agg(bytes=("input_bytes", "sum"), last_finish=("finish", "max"))
    g["throughput"] = g["bytes"] / g["last_finish"]
    return g


def map_load_balance(result, every: int | None = None) -> float:
    """EAS Fig. 4's load-balance value of one run (lower is better).

    The load of a map machine is the unprocessed input bytes of the map tasks assigned to it and
    not finished (a running task counts its unprocessed fraction); a non-local map's load is
    charged to the machine it reads from (its first replica). Samples are taken when the
    ``every``-th, 2·``every``-th, ... map is assigned (default every = number of map machines);
    "assigned" is the result's ``assigned`` column where the scheduler records it (EAS: when the
    plan is made) and the launch time otherwise. Returns the sum over samples of the standard
    deviation of the loads; normalise across strategies yourself."""
    t = _succeeded(result, "map")
    nodes = result.cluster.nodes
    machines = np.flatnonzero(nodes["map_slots"].to_numpy() > 0)
    every = len(machines) if every is None else int(every)
    if every < 1:
        raise ValueError(f"map_load_balance: every must be >= 1, got {every!r}")
    _, cols = result.workload.native().columns()
    rb = np.asarray(cols["replica_begin"])
    rn = np.asarray(cols["replica_node"])
    task = t["task_id"].to_numpy()
    node = t["node"].to_numpy()
    if len(rb):
        first = np.where(rb[task + 1] > rb[task], rn[np.minimum(rb[task], max(len(rn) - 1, 0))], node)
        charged = np.where(t["locality"].to_numpy() == "node", node, first)
    else:
        charged = node
    assigned = t["assigned"].to_numpy(float) if "assigned" in t else t["start"].to_numpy(float)
    start, finish = t["start"].to_numpy(float), t["finish"].to_numpy(float)
    size = t["input_bytes"].to_numpy(float)
    order = np.sort(assigned)
    idx = pd.Index(machines)
    pos = idx.get_indexer(charged)
    total = 0.0
    for k in range(every, len(order) + 1, every):
        tau = order[k - 1]
        live = (assigned <= tau) & (finish > tau) & (pos >= 0)
        frac = np.clip((finish - np.maximum(tau, start)) / np.maximum(finish - start, 1e-12), 0.0, 1.0)
        loads = np.bincount(pos[live], weights=(size * frac)[live], minlength=len(machines))
        total += float(loads.std())
    return total


#: Engine options of the EAS experiments: no map/reduce overlap inside a job (slowstart 1.0,
#: assumption (i)); one rack, so a non-local read costs the same as an off-rack one.
EAS_OPTIONS = {"slowstart": 1.0, "rack_local_factor": 1.5, "remote_factor": 1.5}


def eas_strategies(assign_multiple: bool = True) -> dict:
    """The five strategies of the EAS paper as configured schedulers: EAS, FIFO-BE, FIFO-S,
    HFS-BE (Fair without delay scheduling, the spec's default reading) and HFS-S."""
    from ..core import catalogue as s
    return {
        "EAS": s.get("eas"),
        "FIFO-BE": s.get("fifo"),
        "FIFO-S": s.get("fifo", strict_locality=True),
        "HFS-BE": s.get("fair", locality_delay=0, assign_multiple=assign_multiple),
        "HFS-S": s.get("fair", strict_locality=True, assign_multiple=assign_multiple),
    }


def eas_experiment(replications=range(1, 8), seeds=range(5), strategies: dict | None = None,
                   cluster: Cluster | None = None, **options) -> pd.DataFrame:
    """Runs every strategy on the ``eas_table1`` workload for each replication factor and seed
    (the seed draws arrivals, the job order and block placement). One row per run with
    ``total_flowtime``, ``locality`` (node-local map fraction), ``map_throughput`` and
    ``reduce_throughput`` (MB/s summed over machines, eqs. 3-4), ``load_balance`` (Fig. 4's value
    before normalisation) and ``makespan``. ``options`` override :data:`EAS_OPTIONS`."""
    from ..workloads import datasets
    from ..core.simulate import simulate

    strategies = eas_strategies() if strategies is None else strategies
    cluster = eas_cluster() if cluster is None else cluster
    opts = EAS_OPTIONS | options
    rows = []
    for rf in replications:
        for seed in seeds:
            wl = datasets.load("eas_table1", replication=int(rf), seed=int(seed))
            for name, sched in strategies.items():
                res = simulate(cluster, wl, sched, seed=int(seed), **opts)
                s = res.summary()
                rows.append({
                    "replication": int(rf), "seed": int(seed), "strategy": name,
                    "total_flowtime": float(s["total_flowtime"]), "locality": float(s["locality_node"]),
                    "map_throughput": float(machine_throughput(res, "map")["throughput"].sum() / 2**20),
                    "reduce_throughput": float(machine_throughput(res, "reduce")["throughput"].sum() / 2**20),
                    "load_balance": map_load_balance(res), "makespan": float(s["makespan"]),
                })
    return pd.DataFrame(rows)



# ---------------------------------------------------------------------------------- claims
# Experiment functions of claims/zhao2013.toml (see schedlab.papers.claims).
import functools  # noqa: E402

from .claims import Measured  # noqa: E402


@functools.lru_cache(maxsize=None)
def _eas_runs(size):
    reps = (1, 4, 7) if size == "small" else tuple(range(1, 8))
    seeds = range(1) if size == "small" else range(5)
    return eas_experiment(replications=reps, seeds=seeds)


def eas_table(size="small") -> pd.DataFrame:
    """The runs the claims are computed from (:func:`eas_experiment` with the five strategies:
    replication 1, 4, 7 and one seed at size "small", 1-7 and five seeds at "full")."""
    return _eas_runs(size).copy()


def _eas_claim(size, rival):
    t = _eas_runs(size)
    p = t.pivot_table(index=["seed", "replication"], columns="strategy", values="total_flowtime")
    rival_ft = p[rival] if rival != "best other" else p.drop(columns="EAS").min(axis=1)
    imp = 100.0 * (rival_ft - p["EAS"]) / rival_ft
    per = imp.groupby(level="replication").mean().round(1).to_dict()
    frame = t.groupby(["strategy", "seed"])["total_flowtime"].mean().reset_index()
    frame.columns = ["label", "seed", "value"]
    return Measured(list(imp.groupby(level="seed").min()), frame,
                    note=f"EAS total flowtime below {rival} by % per replication factor: {per} (value: the smallest)",
                    ylabel="total flowtime (s), mean over replication factors")


def claim_eas_below_fifo_be(size="small"):
    return _eas_claim(size, "FIFO-BE")


def claim_eas_lowest_flowtime(size="small"):
    return _eas_claim(size, "best other")


def _eas_highest(size, column, what):
    t = _eas_runs(size)
    p = t.pivot_table(index=["seed", "replication"], columns="strategy", values=column)
    best_other = p.drop(columns="EAS").max(axis=1)
    margin = 100.0 * (p["EAS"] - best_other) / best_other
    per = margin.groupby(level="replication").mean().round(1).to_dict()
    frame = t.groupby(["strategy", "seed"])[column].mean().reset_index()
    frame.columns = ["label", "seed", "value"]
    return Measured(list(margin.groupby(level="seed").min()), frame,
                    note=f"EAS's {what} above the best other strategy's, % per replication factor: {per} (value: the smallest)",
                    ylabel=f"{what} (MB/s), mean over replication factors")


def claim_eas_highest_map_throughput(size="small"):
    return _eas_highest(size, "map_throughput", "map-machine throughput")


def claim_eas_highest_reduce_throughput(size="small"):
    return _eas_highest(size, "reduce_throughput", "reduce-machine throughput")


def _per_seed(size, column):
    """{seed: strategies x replication factors table of ``column``} of the claims' runs."""
    t = _eas_runs(size)
    return {s: g.pivot_table(index="replication", columns="strategy", values=column) for s, g in t.groupby("seed")}


def _strategy_frame(size, column, scale=1.0):
    frame = _eas_runs(size).groupby(["strategy", "seed"])[column].mean().reset_index()
    frame.columns = ["label", "seed", "value"]
    frame["value"] *= scale
    return frame


def claim_be_locality_rises(size="small"):
    """Fig. 3 (§5.3): the best-effort strategies' node-local fraction rises with the replication
    factor; value: the smallest rise, in percentage points, between two consecutive replication
    factors measured, over FIFO-BE and HFS-BE (per seed)."""
    per = _per_seed(size, "locality")
    vals, steps = [], {}
    for seed, p in per.items():
        d = 100.0 * p[["FIFO-BE", "HFS-BE"]].diff().dropna()
        vals.append(float(d.min().min()))
        for r, row in d.iterrows():
            steps.setdefault(int(r), []).append(float(row.min()))
    loc = {s: round(100.0 * _eas_runs(size).query("strategy == @s").groupby("replication")["locality"].mean(), 1).to_dict()
           for s in ("FIFO-BE", "HFS-BE")}
    return Measured(vals, _strategy_frame(size, "locality", 100.0),
                    note=f"node-local maps (%) per replication factor, mean over seeds: {loc}; EAS and the strict "
                         "strategies are 100 % node-local by construction (not a result)",
                    ylabel="node-local maps (%), mean over replication factors")


def claim_eas_balance_like_best_effort(size="small"):
    """Fig. 4 (§5.4): EAS, FIFO-BE and HFS-BE balance the map machines' load much better than
    FIFO-S and HFS-S, EAS "nearly the same" as best effort; value: the smallest margin, over
    replication factors, of EAS's load-balance value below the better strict strategy's (% of
    the strict one's; lower values are better balanced)."""
    per = _per_seed(size, "load_balance")
    vals, by_r = [], {}
    for seed, p in per.items():
        strict = p[["FIFO-S", "HFS-S"]].min(axis=1)
        m = 100.0 * (strict - p["EAS"]) / strict
        vals.append(float(m.min()))
        for r, v in m.items():
            by_r.setdefault(int(r), []).append(float(v))
    t = _eas_runs(size)
    norm = t.assign(value=t["load_balance"] / t.groupby(["seed", "replication"])["load_balance"].transform("max"))
    frame = norm.groupby(["strategy", "seed"])["value"].mean().reset_index().rename(columns={"strategy": "label"})
    return Measured(vals, frame,
                    note="EAS's load-balance value below the better strict strategy's, % per replication factor "
                         f"(mean over seeds): { {r: round(sum(v) / len(v), 1) for r, v in by_r.items()} }",
                    ylabel="load-balance value / the worst at its replication factor")


def claim_strict_overtakes_be_map_throughput(size="small"):
    """Fig. 5 (§5.5): at replication 1 the best-effort strategies have the higher map-machine
    throughput, at replication 7 the strict ones; value: the smaller of the two margins (MB/s):
    min over the BE/S pairs of (BE - S) at the lowest replication factor and (S - BE) at the
    highest."""
    per = _per_seed(size, "map_throughput")
    vals, parts = [], []
    for seed, p in per.items():
        lo, hi = p.index.min(), p.index.max()
        low = min(p.loc[lo, "FIFO-BE"] - p.loc[lo, "FIFO-S"], p.loc[lo, "HFS-BE"] - p.loc[lo, "HFS-S"])
        high = min(p.loc[hi, "FIFO-S"] - p.loc[hi, "FIFO-BE"], p.loc[hi, "HFS-S"] - p.loc[hi, "HFS-BE"])
        vals.append(float(min(low, high)))
        parts.append((low, high))
    n = len(parts)
    return Measured(vals, _strategy_frame(size, "map_throughput"),
                    note=f"BE minus S at the lowest replication factor {sum(a for a, _ in parts) / n:.1f} MB/s, S minus BE at "
                         f"the highest {sum(b for _, b in parts) / n:.1f} MB/s (means over seeds, the smaller pair each)",
                    ylabel="map-machine throughput (MB/s), mean over replication factors")


def claim_strict_flowtime_drops_most(size="small"):
    """Fig. 7 (§6.3): replication shortens the strict strategies' total flowtime most; value: the
    smaller drop (%, lowest to highest replication factor) of FIFO-S and HFS-S minus the largest
    drop of EAS, FIFO-BE and HFS-BE (percentage points)."""
    per = _per_seed(size, "total_flowtime")
    vals, drops = [], {}
    for seed, p in per.items():
        d = 100.0 * (1 - p.loc[p.index.max()] / p.loc[p.index.min()])
        vals.append(float(d[["FIFO-S", "HFS-S"]].min() - d[["EAS", "FIFO-BE", "HFS-BE"]].max()))
        for s, v in d.items():
            drops.setdefault(s, []).append(float(v))
    frame = pd.DataFrame([(s, i, v) for s, vs in drops.items() for i, v in enumerate(vs)], columns=["label", "seed", "value"])
    return Measured(vals, frame,
                    note="total flowtime drop from the lowest to the highest replication factor, % (mean over seeds): "
                         + ", ".join(f"{s} {sum(v) / len(v):.1f}" for s, v in drops.items()),
                    ylabel="flowtime drop with replication (%)")
