"""Bad parameters, options, seeds and frames: one ValueError naming the parameter (or the row
and column) and what was expected; no OverflowError, TypeError or RuntimeError escapes."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl

CLUSTER = sl.Cluster(4, map_slots=2, reduce_slots=1)


def workload(**job_columns):
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 1.0], **job_columns})
    tasks = pd.DataFrame({"job_id": [1, 1, 2], "work": [1.0, 2.0, 3.0]})
    return sl.Workload.from_frames(jobs, tasks)


@pytest.mark.parametrize("seed", [2**64, -1, 1.5, True, "1"])
def test_seed_out_of_range(seed):
    with pytest.raises(ValueError, match=r"seed must be a whole number in \[0, 2\^64 - 1\]"):
        sl.simulate(CLUSTER, workload(), "fifo", seed=seed)


def test_largest_seed_runs():
    sl.simulate(CLUSTER, workload(), "fifo", seed=2**64 - 1)


@pytest.mark.parametrize("value", [float("inf"), -float("inf"), 10**400])
def test_integer_parameter_at_infinity(value):
    with pytest.raises(ValueError, match=r"fresh_static: parameter 'k' must be a whole number in \["):
        sl.schedulers.get("fresh_static", k=value)
    with pytest.raises(ValueError, match=r"parameter 'replication' must be a whole number in \["):
        sl.simulate(CLUSTER, workload(), "fifo", replication=value)


def test_nan_parameter_names_the_parameter():
    with pytest.raises(ValueError, match=r"fresh_static: parameter 'k' is NaN; expected a number in \["):
        sl.schedulers.get("fresh_static", k=float("nan"))
    with pytest.raises(ValueError, match=r"parameter 'replication' is NaN"):
        sl.simulate(CLUSTER, workload(), "fifo", replication=float("nan"))
    with pytest.raises(ValueError, match=r"fair: parameter 'locality_delay' is NaN"):
        sl.schedulers.get("fair", locality_delay=float("nan"))


@pytest.mark.parametrize("text", ["2147483648:1", "-1:1", "x:1", "99999999999999999999:1"])
def test_capacity_queue_keys_out_of_range(text):
    with pytest.raises(ValueError, match=r"capacity: capacities: key '.*' is not a pool or queue id"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("capacity", capacities=text))


def test_fair_pool_keys_out_of_range():
    with pytest.raises(ValueError, match=r"'pool_weights': key 1099511627776 is not a pool or queue id"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("fair", pool_weights={2**40: 2.0}))
    with pytest.raises(ValueError, match=r"fair.*key '2147483648' is not a pool or queue id"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("fair", pool_weights="2147483648:2"))


def test_tsf_weights_must_be_numbers():
    with pytest.raises(ValueError, match=r"scheduler parameter 'weights': a list must hold numbers only"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("tsf", weights=[[1]]))


@pytest.mark.parametrize("col,values,row", [("user", ["a", None], 1), ("user", [1.0, float("nan")], 1),
                                            ("queue", [None, "q"], 0)])
def test_from_frames_missing_user_or_queue(col, values, row):
    with pytest.raises(ValueError, match=rf"jobs row {row} \(job_id {row + 1}\): '{col}' is missing .*expected a label"):
        workload(**{col: values})


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 0.0, -1.0])
def test_from_frames_weight_must_be_finite_positive(value):
    with pytest.raises(ValueError, match=r"jobs row 1 \(job_id 2\): 'weight' must be a finite number > 0"):
        workload(weight=[1.0, value])


@pytest.mark.parametrize("workers", [2, 3, 5, 7, 10])
def test_dice_defaults_run_on_small_clusters(workers):
    jobs = pd.DataFrame({"job_id": range(6), "submit_time": np.arange(6) * 2.0})
    tasks = pd.DataFrame({"job_id": np.repeat(range(6), 3), "work": np.tile([1.0, 50.0, 400.0], 6)})
    r = sl.simulate(sl.engines.worker.cluster(workers), sl.Workload.from_frames(jobs, tasks), "dice")
    assert r.jobs["finish_time"].notna().all()


def test_yarn_am_heartbeat_beyond_the_stall_limit_is_refused_up_front():
    with pytest.raises(ValueError, match=r"yarn: parameter 'am_heartbeat' .* must be shorter than the simulate option 'stall_limit'"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("yarn", am_heartbeat=50000.0), stall_limit=3600.0)
    with pytest.raises(ValueError, match=r"yarn: parameter 'am_heartbeat' = 100000.0 is outside"):
        sl.schedulers.get("yarn", am_heartbeat=1e5)


def test_heartbeats_further_apart_than_the_stall_limit_are_no_stall():
    # found by the fuzz harness of the schedulers written in Python: mrcp with heartbeats 2 days
    # apart set timers in between, and the run was reported stalled ("made no progress", a
    # RuntimeError) a day after its last launch, before the next heartbeat could launch anything.
    # A stall now needs at least two heartbeat periods without progress
    pytest.importorskip("ortools")
    jobs = pd.DataFrame({"job_id": range(5), "submit_time": [0.0, 1.0, 1.0, 5.0, 9.0], "user": [0, 1, 0, 1, 2],
                         "deadline": [50.0, 80.0, np.nan, 100.0, 60.0]})
    tasks = pd.DataFrame({"job_id": np.repeat(range(5), 4), "work": np.tile([1.0, 3.0, 20.0, 2.0], 5),
                          "stage": np.tile(["map", "map", "map", "reduce"], 5)})
    wl = sl.Workload.from_frames(jobs, tasks)
    cluster = sl.Cluster(4, racks=2, map_slots=2, reduce_slots=1)
    r = sl.simulate(cluster, wl, sl.schedulers.get("mrcp", max_deterministic_time=0.0), heartbeat_interval=172801.0)
    assert r.jobs["finish_time"].notna().all()
    assert r.jobs["finish_time"].max() > 3 * 172801.0 - 1  # its last reduces at the third heartbeat


def test_yarn_container_larger_than_any_node_is_refused_up_front():
    jobs = pd.DataFrame({"job_id": [1], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [1], "work": [1.0], "vcores": [100.0]})
    with pytest.raises(ValueError, match=r"yarn: task 0 of job 0 asks for a container of 100.* vcores .* largest node has 3.* vcores"):
        sl.simulate(CLUSTER, sl.Workload.from_frames(jobs, tasks), "yarn")


@pytest.mark.parametrize("col", ["user", "queue", "dag"])
def test_from_frames_refuses_unhashable_labels(col):
    jobs = pd.DataFrame({"job_id": [0, 1, 2], "submit_time": 0.0, col: ["a", "a", []]})
    tasks = pd.DataFrame({"job_id": [0, 1, 2], "work": 1.0})
    with pytest.raises(ValueError, match=rf"jobs row 2 \(job_id 2\): '{col}' is \[\]; expected a label"):
        sl.Workload.from_frames(jobs, tasks)


@pytest.mark.parametrize("ids", [["a", "b", ["c"]], [0, 1, [2]], [0.5, 1.5, {"x": 1}]])
def test_from_frames_refuses_unhashable_job_ids(ids):
    # (strings and numbers pass by type inference; anything else is looked at value by value)
    jobs = pd.DataFrame({"job_id": pd.Series(ids, dtype=object), "submit_time": 0.0})
    tasks = pd.DataFrame({"job_id": pd.Series(ids[:2], dtype=object), "work": 1.0})
    with pytest.raises(ValueError, match=r"jobs 'job_id' row 2: .* is not a valid job id"):
        sl.Workload.from_frames(jobs, tasks)


def test_capacity_user_limit_below_one_task_is_refused_up_front():
    # before: "simulation made no progress" (a RuntimeError) after a simulated day
    with pytest.raises(ValueError, match=r"capacity: parameter 'user_limit_factor' .* = 1e-09 lets a user of queue 0 "
                                         r"hold at most 0 of its 8 map slots, fewer than the 1 a task of job 0 needs"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("capacity", user_limit_factor=1e-9))
    with pytest.raises(ValueError, match=r"user_limit_factors'\) = 0.1 lets a user of queue 0 hold at most 0"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("capacity", user_limit_factors="0:0.1"))
    # a factor that leaves one slot runs
    r = sl.simulate(CLUSTER, workload(), sl.schedulers.get("capacity", user_limit_factor=0.125))
    assert r.jobs["finish_time"].notna().all()


@pytest.mark.parametrize("param,what", [("pool_max_jobs", "pool_max_jobs of pool 0"), ("user_max_jobs", "user_max_jobs of user 0")])
def test_fair_job_limit_of_zero_on_jobs_is_refused_up_front(param, what):
    # before: "simulation made no progress" (a RuntimeError) after a simulated day
    with pytest.raises(ValueError, match=rf"^fair: {what} is 0, but job 0 is there: it could never run; expected at least 1$"):
        sl.simulate(CLUSTER, workload(), sl.schedulers.get("fair", **{param: "0:0"}))
    # a limit of 0 where no job is runs
    assert sl.simulate(CLUSTER, workload(), sl.schedulers.get("fair", **{param: "0:1,5:0"})).jobs["finish_time"].notna().all()
