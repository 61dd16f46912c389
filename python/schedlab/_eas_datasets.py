"""The EAS paper's workload (seed001 §5.2, Table 1), built from ``datasets/eas_table1.json``.

Registered names (``schedlab.datasets.load(name, ...)``):

* ``eas_table1`` — 50 wordcount and sort jobs with uniform arrivals in [0, 120] s; options
  ``replication`` (1-7, the paper's independent variable), ``placement`` ("random" or
  "round_robin" first replica), ``map_machines`` (15), ``arrival_window`` (120 s), ``seed``.
"""
from __future__ import annotations

import json

import numpy as np

from ._workload import Workload
from .datasets import data_path, from_job_types, register


def _eas_table1(seed: int = 0, replication: int = 3, placement: str = "random", map_machines: int | None = None,
                arrival_window: float | None = None) -> Workload:
    """EAS paper's Table 1 mix (seed001 §5.2): 50 jobs, uniform arrivals, blocks replicated
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
