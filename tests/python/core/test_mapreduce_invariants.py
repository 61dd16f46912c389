"""Invariants on every scheduler of the MapReduce engine, run on a mixed synthetic workload:
no node runs more attempts than its slots, every task succeeds exactly once, reduces never
finish before their job's last map, time never goes backwards, and the run is deterministic."""
import pandas as pd
import pytest

import schedlab as sl
from conftest import assert_slot_invariants

TYPED = {"fifo", "fair", "capacity", "edf", "edf_ideal"}  # schedulers that keep Hadoop's static slot types


def mapreduce_schedulers():
    av = sl.schedulers.available()
    return sorted(av[av["engine"] == "mapreduce"]["name"])


@pytest.fixture(scope="module")
def workload():
    return sl.synthetic.generate(jobs=25, rate=0.08, seed=3, users=3, queues=2, maps=("randint", 1, 12),
                                 reduces=("randint", 0, 4), map_work=("exponential", 20.0),
                                 reduce_work=("exponential", 30.0))


@pytest.mark.parametrize("name", mapreduce_schedulers())
def test_invariants(name, workload):
    cluster = sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=2)
    r = sl.simulate(cluster, workload, name, seed=1)
    assert r.jobs["finish_time"].notna().all(), f"{name} left jobs unfinished"
    assert_slot_invariants(r, typed=name in TYPED)
    again = sl.simulate(cluster, workload, name, seed=1)
    pd.testing.assert_frame_equal(r.tasks, again.tasks)
