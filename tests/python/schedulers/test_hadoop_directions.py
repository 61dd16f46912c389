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


def _light_load():
    """Jobs of 40 maps on 200 nodes at a low rate: most heartbeats find no job with a map there."""
    return sl.synthetic.generate(jobs=40, seed=2, rate=0.05, maps=("constant", 40), reduces=("constant", 4),
                                 map_work=("exponential", 30.0), users=4)


def test_fair_answers_empty_map_scans_without_visiting_jobs():
    cluster = sl.Cluster(nodes=200, racks=5, map_slots=2, reduce_slots=2)
    c = sl.simulate(cluster, _light_load(), "fair").counters
    assert 0 < c["fair_map_scans_without_visits"] < c["fair_map_scans"]
    assert c["fair_map_job_visits"] > 0


def test_fair_visits_every_job_where_the_shortcut_cannot_know():
    cluster = sl.Cluster(nodes=200, racks=5, map_slots=2, reduce_slots=2)
    wl = _light_load()
    # delay scheduling off: any job may launch anywhere, so no scan is known empty in advance
    off = sl.simulate(cluster, wl, sl.schedulers.get("fair", locality_delay=0)).counters
    assert off["fair_map_scans"] > 0 and off["fair_map_scans_without_visits"] == 0
    # a map without replicas may run on any node, which the node's job bits cannot tell: every
    # job's first map has none (a job with one such map turns the shortcut off while it is active)
    tasks = wl.tasks
    first = ~tasks["job_id"].duplicated()
    tasks = tasks.assign(replicas=[[] if f else [int(i % 200), int((i * 7) % 200)] for i, f in enumerate(first)])
    unplaced = sl.Workload.from_frames(wl.jobs[["job_id", "submit_time", "user"]], tasks[["job_id", "stage", "work", "replicas"]])
    c = sl.simulate(cluster, unplaced, "fair").counters
    assert c["fair_map_scans"] > 0 and c["fair_map_scans_without_visits"] == 0
