"""No scheduler of the MapReduce engine deadlocks: on random clusters and workloads, with and
without node crashes (lost map outputs re-run after their job's map phase) and speculation, every
job finishes. A deadlock (e.g. reduces waiting in their copy phase in every slot a map could use)
would raise the engine's stall error instead of running forever."""
from __future__ import annotations

import numpy as np
import pytest

import schedlab as sl
from schedlab.faults import Crash

AV = sl.schedulers.available()
NAMES = sorted(AV[AV["engine"] == "mapreduce"]["name"])


def random_case(seed):
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(2, 12))
    cluster = sl.Cluster(nodes=nodes, racks=int(rng.integers(1, 3)), map_slots=int(rng.integers(1, 4)),
                         reduce_slots=int(rng.integers(1, 3)))
    workload = sl.synthetic.generate(jobs=int(rng.integers(3, 25)), seed=int(rng.integers(1_000_000)),
                                     rate=float(rng.uniform(0.01, 0.5)), maps=("randint", 1, int(rng.integers(2, 60))),
                                     reduces=("randint", 0, int(rng.integers(1, 40))), users=int(rng.integers(1, 4)))
    options = dict(slowstart=float(rng.choice([0.0, 0.05, 0.5, 1.0])), stall_limit=20000.0)
    if rng.random() < 0.4:
        options["faults"] = [Crash(node=int(rng.integers(0, nodes)), at=float(rng.uniform(10, 300)),
                                   restart_after=float(rng.uniform(50, 500)))]
    if rng.random() < 0.3:
        options["speculation"] = str(rng.choice(["hadoop", "late", "yarn", "esplash"]))
    return cluster, workload, options


# cases 12 of seed 0 (yarn), 3 and 7 of seed 0 (fresh_dynamic with a crash) and 10 and 17 of
# seed 1 (pi_dhsa / pd_dhsa with a crash) deadlocked before the fixes this test guards
@pytest.mark.parametrize("case", range(12))
def test_every_scheduler_finishes_random_workloads(case):
    cluster, workload, options = random_case(1000 + case)
    for name in NAMES:
        r = sl.simulate(cluster, workload, name, seed=1, **options)
        assert r.jobs["finish_time"].notna().all(), (name, options)
        ok = r.tasks[r.tasks["status"] == "succeeded"]["task_id"].value_counts()
        assert len(ok) == workload.n_tasks and (ok == 1).all(), name


@pytest.mark.parametrize("seed, trial, name", [(0, 12, "yarn"), (0, 3, "fresh_dynamic"), (0, 7, "fresh_dynamic"),
                                               (1, 10, "pi_dhsa"), (1, 17, "pd_dhsa")])
def test_cases_that_deadlocked(seed, trial, name):
    cluster, workload, options = exploration_case(seed, trial)
    r = sl.simulate(cluster, workload, name, seed=1, **options)
    assert r.jobs["finish_time"].notna().all()


def exploration_case(seed, trial):
    """The trial-th case of the random exploration that found the deadlocks (one generator per seed)."""
    rng = np.random.default_rng(seed)
    for t in range(trial + 1):
        nodes = int(rng.integers(2, 12)); ms = int(rng.integers(1, 4)); rs = int(rng.integers(1, 3))
        cluster = sl.Cluster(nodes=nodes, racks=int(rng.integers(1, 3)), map_slots=ms, reduce_slots=rs)
        spec = dict(jobs=int(rng.integers(3, 25)), seed=int(rng.integers(1e6)), rate=float(rng.uniform(0.01, 0.5)),
                    maps=("randint", 1, int(rng.integers(2, 60))), reduces=("randint", 0, int(rng.integers(1, 40))),
                    users=int(rng.integers(1, 4)))
        options = dict(slowstart=float(rng.choice([0.0, 0.05, 0.5, 1.0])), stall_limit=20000.0)
        if rng.random() < 0.4:
            n = int(rng.integers(0, nodes))
            options["faults"] = [Crash(node=n, at=float(rng.uniform(10, 300)), restart_after=float(rng.uniform(50, 500)))]
        if rng.random() < 0.3:
            options["speculation"] = str(rng.choice(["hadoop", "late", "yarn", "esplash"]))
    return cluster, sl.synthetic.generate(**spec), options
