"""The behaviour Hadoop's schedulers exist for, on a workload of one large job followed by
small jobs from other users: FIFO makes the small jobs wait behind the large one; Fair and
Capacity (small jobs in their own queue) let them through; delay scheduling raises locality."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl


@pytest.fixture(scope="module")
def big_then_small():
    rng = np.random.default_rng(0)
    jobs = pd.DataFrame({"job_id": range(11), "submit_time": [0.0] + list(np.arange(1, 11) * 5.0),
                         "user": ["big"] + ["small"] * 10, "queue": [0] + [1] * 10})
    tasks = [pd.DataFrame({"job_id": 0, "stage": "map", "work": rng.uniform(40, 60, 200)})]
    for j in range(1, 11):
        tasks.append(pd.DataFrame({"job_id": j, "stage": "map", "work": rng.uniform(8, 12, 4)}))
    return sl.Workload.from_frames(jobs, pd.concat(tasks, ignore_index=True))


def small_mean(result):
    j = result.jobs
    return j.loc[j["user"] == "small", "completion_time"].mean()


def test_fair_and_capacity_serve_small_jobs_fifo_does_not(big_then_small):
    cluster = sl.Cluster(nodes=10, racks=2, map_slots=2, reduce_slots=1)
    fifo = sl.simulate(cluster, big_then_small, "fifo")
    fair = sl.simulate(cluster, big_then_small, "fair")
    cap = sl.simulate(cluster, big_then_small, sl.schedulers.get("capacity", capacities="0:0.5,1:0.5"))
    assert small_mean(fair) < 0.5 * small_mean(fifo)
    assert small_mean(cap) < 0.5 * small_mean(fifo)
    # the large job is not starved: the makespan stays within 10 % of FIFO's
    assert fair.summary()["makespan"] <= 1.1 * fifo.summary()["makespan"]


def test_delay_scheduling_raises_locality():
    wl = sl.synthetic.generate(jobs=30, rate=0.2, seed=2, users=5, maps=("randint", 2, 8), reduces=0,
                               map_work=("exponential", 20.0))
    cluster = sl.Cluster(nodes=20, racks=4, map_slots=2, reduce_slots=0)
    off = sl.simulate(cluster, wl, sl.schedulers.get("fair", locality_delay=0), seed=1).summary()
    on = sl.simulate(cluster, wl, sl.schedulers.get("fair", locality_delay=5), seed=1).summary()
    assert on["locality_node"] > off["locality_node"] + 0.1
