"""capacity's Hadoop 1.2.1 parameters from simulate: user limits, maximum capacities, high-memory
jobs taking several slots, and clear errors for bad values (priorities: the harness tests,
tests/python/conformance)."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl

CLUSTER = sl.Cluster(nodes=4, racks=1, map_slots=2, reduce_slots=1)  # 8 map slots


def workload(users=("a",), queues=(0,), jobs=4, maps=20, memory=1024.0, priorities=None):
    """`jobs` jobs at time 0, round-robin over users and queues, of `maps` 10-second maps each."""
    jf = pd.DataFrame({"job_id": range(jobs), "submit_time": 0.0,
                       "user": [users[j % len(users)] for j in range(jobs)],
                       "queue": [queues[j % len(queues)] for j in range(jobs)]})
    tf = pd.DataFrame({"job_id": np.repeat(np.arange(jobs), maps), "stage": "map", "work": 10.0, "memory": memory})
    return sl.Workload.from_frames(jf, tf)


def peak_slots(result, slots_per_task=1, job_ids=None):
    """The most map slots held at once (by the given jobs)."""
    t = result.tasks
    if job_ids is not None:
        t = t[t["job_id"].isin(job_ids)]
    events = sorted([(s, slots_per_task) for s in t["start"]] + [(f, -slots_per_task) for f in t["finish"]])
    held = peak = 0
    for _, d in events:
        held += d
        peak = max(peak, held)
    return peak


def test_user_limit_factor_caps_a_lone_user_at_the_queue_capacity():
    w = workload(queues=(0,))
    params = dict(capacities="0:0.5,1:0.5")
    # schedlab's default: no cap, the lone user takes the idle queue's slots too
    assert peak_slots(sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", **params))) == 8
    # Hadoop's default user-limit-factor 1: the queue's capacity, (int)(50 % x 8) = 4 slots
    assert peak_slots(sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", user_limit_factor=1, **params))) == 4
    # a maximum capacity of 75 %: 6 slots
    assert peak_slots(sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", max_capacities="0:0.75", **params))) == 6


def test_minimum_user_limit_shares_a_queue_between_users():
    """Two users in one queue with minimum-user-limit-percent 50: each holds at most half of it
    while both have maps waiting."""
    w = workload(users=("a", "b"), jobs=4)
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", min_user_limit_percent=50))
    assert peak_slots(r, job_ids=[0, 2]) == 4 and peak_slots(r, job_ids=[1, 3]) == 4
    # without it, the first job (user a) takes all 8 slots first
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity"))
    assert peak_slots(r, job_ids=[0, 2]) == 8


def test_high_memory_maps_take_several_slots():
    """2 GB maps on 1 GB slots take two slots each: one map per 2-slot tracker at a time."""
    w = workload(memory=2048.0, jobs=1, maps=8)
    mem = dict(map_memory_mb=1024, reduce_memory_mb=1024, max_map_memory_mb=2048, max_reduce_memory_mb=2048)
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", **mem))
    assert peak_slots(r) == 4  # tasks at once: 4 trackers x 1
    assert r.jobs["completion_time"].iloc[0] == pytest.approx(20.0, abs=3.0)
    # memory-based scheduling off (a setting missing): one slot each
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", map_memory_mb=1024))
    assert peak_slots(r) == 8


MEMORY = dict(map_memory_mb=1024, reduce_memory_mb=1024, max_map_memory_mb=2048, max_reduce_memory_mb=2048)


def jobs_with_memory(memory):
    """One job per (map MB, reduce MB or None for no reduce), submitted a second apart."""
    jf = pd.DataFrame({"job_id": range(len(memory)), "submit_time": np.arange(len(memory), dtype=float)})
    rows = [(j, "map", m) for j, (m, _) in enumerate(memory)] + [(j, "reduce", r) for j, (_, r) in enumerate(memory) if r]
    tf = pd.DataFrame(rows, columns=["job_id", "stage", "memory"]).assign(work=5.0)
    return sl.Workload.from_frames(jf, tf)


def test_a_job_over_the_cluster_memory_maxima_is_refused_at_submission():
    """Hadoop 1.2.1's JobTracker.checkMemoryRequirements: with memory-based scheduling, a job whose
    map or reduce asks more than mapred.cluster.max.map/reduce.memory.mb fails at submission; the
    others run. A job within both maxima (2 GB on 1 GB slots: two slots a task) is not refused."""
    w = jobs_with_memory([(1024, 1024), (3072, 1024), (1024, 2049), (2048, None)])
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", **MEMORY))
    j = r.jobs.sort_values("job_id")
    assert j["status"].astype(str).tolist() == ["succeeded", "failed", "failed", "succeeded"]
    assert (j["finish_time"] == j["submit_time"])[j["status"] == "failed"].all()
    assert sorted(r.tasks["job_id"].unique()) == [0, 3]
    # without memory-based scheduling (a setting missing) nothing is refused
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", map_memory_mb=1024))
    assert "status" not in r.jobs and len(r.tasks) == 7


def test_a_refused_job_misses_its_deadline():
    """A refused job's finish time is its submission, before any deadline, yet it never ran: the
    jobs table counts it late; the others by their finish time."""
    w = jobs_with_memory([(1024, 1024), (3072, 1024), (1024, None)])
    jf = w.jobs[["job_id", "submit_time"]].assign(deadline=[100.0, 100.0, 3.0])
    w = sl.Workload.from_frames(jf, w.tasks[["job_id", "stage", "memory", "work"]])
    j = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", **MEMORY)).jobs.sort_values("job_id")
    assert j["status"].astype(str).tolist() == ["succeeded", "failed", "succeeded"]
    assert j["late"].tolist() == [False, True, True]
    assert j["finish_time"].iloc[2] > 3.0


def test_a_task_larger_than_every_node_is_refused_up_front():
    """A reduce of 2 GB takes two 1-GB reduce slots; on nodes of one reduce slot it could never run
    (Hadoop would hold a reservation for it for ever): the run is refused, naming the job, instead
    of stalling a simulated day later."""
    w = jobs_with_memory([(1024, 1024), (1024, 2048)])
    with pytest.raises(ValueError, match="a reduce of job 1 asks 2048 MB, 2 reduce slots .* no node has more than 1"):
        sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", **MEMORY))
    # one node with two reduce slots is enough
    cluster = sl.Cluster(nodes=4, racks=1, map_slots=2, reduce_slots=[1, 1, 1, 2])
    r = sl.simulate(cluster, w, sl.schedulers.get("capacity", **MEMORY))
    assert r.tasks.query("job_id == 1 and stage == 'reduce'")["node"].tolist() == [3]


@pytest.mark.parametrize("params, message", [
    ({"capacities": "0:0.5,1:0.5", "max_capacities": "1:0.4"}, "below its capacity"),
    ({"min_user_limit_percents": "0:0"}, "minimum user limit"),
    ({"user_limit_factors": "0:-1"}, "user limit factor"),
    ({"max_capacities": "0:1.5"}, "maximum capacity of queue 0"),
    ({"queue_order": "x:1"}, "queue_order"),
])
def test_bad_values_are_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        sl.simulate(CLUSTER, workload(queues=(0, 1)), sl.schedulers.get("capacity", **params))


def test_job_initializer_limits_the_jobs_that_run():
    """job_initialization='poller' with maximum-system-jobs 1: the initializer polls every 5 s and
    lets one job of the queue run at a time; by default every job runs from its submission."""
    w = workload(jobs=3, maps=8)
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", job_initialization="poller", max_system_jobs=1))
    j = r.jobs.sort_values("job_id")
    starts, finishes = j["start_time"].to_numpy(), j["finish_time"].to_numpy()
    assert starts[0] >= 5.0  # the first poll
    assert starts[1] >= finishes[0] and starts[2] >= finishes[1]
    assert starts[1] <= finishes[0] + 5.0 + 1e-9  # at the next poll
    j = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity")).jobs.sort_values("job_id")
    assert j["start_time"].iloc[0] == 0.0 and j["start_time"].iloc[1] < j["finish_time"].iloc[0]


def test_jobs_refused_at_submission_are_failed_not_completions():
    """With the job initializer's submission limits (maximum-system-jobs 1, init-accept-jobs-factor
    10: a queue accepts 10 jobs), 2 of 12 jobs submitted together are refused: the jobs table says
    so in its status column, and the summary counts them apart from the completions."""
    w = workload(jobs=12, maps=2)
    r = sl.simulate(CLUSTER, w, sl.schedulers.get("capacity", job_initialization="poller", max_system_jobs=1))
    j = r.jobs.sort_values("job_id")
    assert j["status"].astype(str).tolist() == ["succeeded"] * 10 + ["failed"] * 2
    refused = j[j["status"] == "failed"]
    assert (refused["finish_time"] == refused["submit_time"]).all()  # ended at their submission
    assert not r.tasks["job_id"].isin(refused["job_id"]).any()       # none of their tasks ran
    s = r.summary()
    assert s["failed_jobs"] == 2 and s["killed_jobs"] == 0 and s["unfinished_jobs"] == 0
    done = j[j["status"] == "succeeded"]
    assert s["mean_completion_time"] == pytest.approx(done["completion_time"].mean())
    assert s["mean_completion_time"] > 0
    # without refusals there is no status column: tables as before
    assert "status" not in sl.simulate(CLUSTER, workload(jobs=3, maps=2), sl.schedulers.get("capacity")).jobs
