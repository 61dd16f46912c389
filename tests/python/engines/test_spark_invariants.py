"""Invariants of the spark engine on random workloads (DAGs of stages, several pools), under FIFO
and FAIR, with and without speculation and dynamic allocation: no executor runs more tasks than
it has cores, every task succeeds exactly once, nothing starts before its stage is submitted or
before its parent stages end, and a stage ends with its last task."""
import numpy as np
import pytest

import schedlab as sl
from schedlab.engines import spark

OPTIONS = [{}, {"speculation": True}, {"dynamic_allocation": True, "executor_idle_timeout": 5.0},
           {"locality_wait": 0.0, "shuffle_offers": False}]


@pytest.mark.parametrize("scheduler", ["spark_fifo", "spark_fair"])
@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "speculation", "dynamic_allocation", "no_wait"])
@pytest.mark.parametrize("seed", [1, 2])
def test_spark_invariants(scheduler, options, seed):
    cores = 2
    cluster = spark.cluster(executors=4, cores=cores)
    workload = sl.synthetic.generate(jobs=12, seed=seed, rate=0.2, chain=3, users=3, maps=("randint", 1, 10),
                                     reduces=("randint", 0, 4))
    r = sl.simulate(cluster, workload, scheduler, seed=seed, **options)
    tasks, jobs = r.tasks, r.jobs.set_index("job_id")
    ok = tasks[tasks["status"] == "succeeded"]
    assert ok["task_id"].is_unique and len(ok) == workload.n_tasks, "a task did not succeed exactly once"
    assert set(tasks["status"]) <= {"succeeded", "killed"}
    assert (tasks["finish"] >= tasks["start"]).all(), "an attempt ended before it started"
    assert (tasks["start"].to_numpy() >= jobs.loc[tasks["job_id"], "ready_time"].to_numpy() - 1e-9).all()
    assert (jobs["ready_time"] >= jobs["submit_time"] - 1e-9).all()
    for job_id, parents in jobs["parents"].items():
        for p in parents if isinstance(parents, (list, tuple, np.ndarray)) else []:
            assert jobs.loc[job_id, "ready_time"] >= jobs.loc[p, "finish_time"] - 1e-9, "a stage ran before its parent"
    last = ok.groupby("job_id")["finish"].max()
    np.testing.assert_allclose(last.reindex(jobs.index).to_numpy(), jobs["finish_time"].to_numpy())
    for node, g in tasks.groupby("node"):  # running attempts on an executor never exceed its cores
        times = np.concatenate([g["start"].to_numpy(), g["finish"].to_numpy()])
        delta = np.concatenate([np.ones(len(g)), -np.ones(len(g))])
        order = np.lexsort((delta, times))  # ends before starts at equal times
        assert np.cumsum(delta[order]).max() <= cores, f"executor {node} ran more tasks than its {cores} cores"


@pytest.mark.parametrize("scheduler", ["spark_fifo", "spark_fair"])
@pytest.mark.parametrize("seed", [1, 2])
def test_spark_invariants_with_failures(scheduler, seed):
    """Attempts that fail (probability 0.1) and two executor crashes, one restarted: every task
    still succeeds (max_failures is high), twice only when the crash lost its map output before
    its stage ended (Resubmitted), failed attempts are retried, a crashed executor runs nothing
    while it is down, and no executor runs more tasks than its cores."""
    cores = 2
    cluster = spark.cluster(executors=4, cores=cores)
    workload = sl.synthetic.generate(jobs=12, seed=seed, rate=0.2, chain=3, users=3, maps=("randint", 1, 10),
                                     reduces=("randint", 0, 4))
    faults = [sl.faults.Crash(node=1, at=20.0, restart_after=30.0), sl.faults.Crash(node=3, at=35.0)]
    r = sl.simulate(cluster, workload, scheduler, seed=seed, task_failure_probability=0.1, max_failures=50,
                    faults=faults, speculation=True)
    tasks = r.tasks
    ok = tasks[tasks["status"] == "succeeded"]
    assert set(ok["task_id"]) == set(range(workload.n_tasks)), "a task never succeeded"
    assert len(ok) == workload.n_tasks + r.counters["tasks_resubmitted"]
    crash = {1: 20.0, 3: 35.0}
    for _, g in ok[ok["task_id"].duplicated(keep=False)].groupby("task_id"):
        first = g.sort_values("finish").iloc[0]  # its output was on a crashed executor
        assert first["node"] in crash and first["finish"] <= crash[first["node"]] + 1e-9
    assert set(tasks["status"]) <= {"succeeded", "killed", "failed"}
    assert (tasks["status"] == "failed").any() and r.counters["tasks_failed"] > 0
    assert r.counters["executors_lost"] == 2
    assert r.counters["jobs_failed"] == 0
    on1 = tasks[tasks["node"] == 1]
    assert not ((on1["start"] > 20.0) & (on1["start"] < 50.0)).any(), "a task started on executor 1 while it was down"
    assert not (tasks[tasks["node"] == 3]["start"] > 35.0).any(), "a task started on executor 3 after its crash"
    assert (tasks.loc[tasks["node"] == 3, "finish"].fillna(0) <= 35.0 + 1e-9).all()
    for node, g in tasks.groupby("node"):
        times = np.concatenate([g["start"].to_numpy(), g["finish"].to_numpy()])
        delta = np.concatenate([np.ones(len(g)), -np.ones(len(g))])
        order = np.lexsort((delta, times))
        assert np.cumsum(delta[order]).max() <= cores, f"executor {node} ran more tasks than its {cores} cores"


def test_spark_failed_jobs_stop_their_stages():
    """With spark.task.maxFailures = 1 and attempts failing often, some Spark jobs fail: their
    stages never finish and no stage of theirs starts after the failure; the others finish."""
    cluster = spark.cluster(executors=4, cores=2)
    workload = sl.synthetic.generate(jobs=12, seed=3, rate=0.2, chain=3, users=3, maps=("randint", 1, 10),
                                     reduces=("randint", 0, 4))
    r = sl.simulate(cluster, workload, "spark_fifo", seed=3, task_failure_probability=0.05, max_failures=1)
    assert r.counters["jobs_failed"] > 0
    dags = r.dags
    assert dags["completion_time"].isna().sum() == r.counters["jobs_failed"]
    jobs = r.jobs
    failed_dags = set(dags.loc[dags["completion_time"].isna(), "dag"])
    assert jobs.loc[jobs["dag"].isin(failed_dags), "finish_time"].isna().any()
    assert jobs.loc[~jobs["dag"].isin(failed_dags), "finish_time"].notna().all()


def test_spark_stage_ids_from_job_labels():
    """An event log's stage ids name the task sets: on one core busy until 1 s, a FAIR tie between
    stages 7 and 13 (both arrived at 0.5 s, running nothing) goes to TaskSet_13.0 (the smaller
    string), as in Spark, when the workload's job_ids are those ids."""
    import pandas as pd
    jobs = pd.DataFrame({"job_id": [1, 7, 13], "submit_time": [0.0, 0.5, 0.5], "dag": [0, 1, 2]})
    tasks = pd.DataFrame({"job_id": [1, 7, 13], "work": [1.0, 10.0, 5.0]})
    w = sl.Workload.from_frames(jobs, tasks)
    assert spark.stage_ids(w) == "1,7,13"
    pools = {"default": {"schedulingMode": "FAIR"}}
    r = sl.simulate(spark.cluster(1, 1), w, spark.fair(w, pools=pools))
    start = r.jobs.set_index("job_id")["start_time"]
    assert start[13] == 1.0 and start[7] == 6.0
    # given explicitly, the dense ids: stage 7 (id 1) first
    r = sl.simulate(spark.cluster(1, 1), w, sl.schedulers.get("spark_fair", pools=pools, stage_ids="0,1,2"))
    start = r.jobs.set_index("job_id")["start_time"]
    assert start[7] == 1.0 and start[13] == 11.0


@pytest.mark.parametrize("shuffle_service", [False, True])
def test_spark_lost_map_outputs_of_finished_stages(shuffle_service):
    """Executor crashes (MTBF, restarted) on chains of stages: without the shuffle service the
    outputs of finished map stages are lost, reduce tasks fail to fetch them and the parent
    stages run again; every task still succeeds (the limits are high), every stage ends after its
    parents' last end, and no executor runs more tasks than its cores. With the shuffle service
    nothing is lost or fetched in vain."""
    cores = 2
    cluster = spark.cluster(executors=4, cores=cores)
    workload = sl.synthetic.generate(jobs=20, seed=5, rate=0.5, chain=4, users=2, maps=("randint", 2, 10),
                                     reduces=("randint", 1, 6), map_work=("exponential", 3.0),
                                     reduce_work=("exponential", 4.0))
    faults = [sl.faults.MTBF(mean_uptime=20.0, restart_after=3.0, horizon=150.0)]
    r = sl.simulate(cluster, workload, "spark_fifo", seed=2, faults=faults, shuffle_service=shuffle_service,
                    max_failures=100, max_consecutive_attempts=100)
    c = r.counters
    assert c["executors_lost"] > 3
    if shuffle_service:
        assert c["map_outputs_lost"] == 0 and c["fetch_failures"] == 0 and c["stages_resubmitted"] == 0
    else:
        assert c["map_outputs_lost"] > 0 and c["fetch_failures"] > 0 and c["stages_resubmitted"] > 0
    assert c["jobs_failed"] == 0
    tasks = r.tasks
    ok = tasks[tasks["status"] == "succeeded"]
    assert set(ok["task_id"]) == set(range(workload.n_tasks)), "a task never succeeded"
    jobs = r.jobs.set_index("job_id")
    assert jobs["finish_time"].notna().all()
    last_ok = ok.groupby("job_id")["finish"].max()
    assert np.allclose(last_ok.reindex(jobs.index).to_numpy(), jobs["finish_time"].to_numpy())
    deps = workload.jobs[["job_id", "parents"]] if "parents" in workload.jobs else None
    if deps is not None:
        for job, parents in zip(deps["job_id"], deps["parents"]):
            for p in parents or []:
                assert jobs.loc[p, "finish_time"] <= jobs.loc[job, "finish_time"] + 1e-9
    for node, g in tasks.groupby("node"):
        times = np.concatenate([g["start"].to_numpy(), g["finish"].to_numpy()])
        delta = np.concatenate([np.ones(len(g)), -np.ones(len(g))])
        order = np.lexsort((delta, times))
        assert np.cumsum(delta[order]).max() <= cores, f"executor {node} ran more tasks than its {cores} cores"
