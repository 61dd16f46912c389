"""Several Spark applications on one cluster: the spark engine's standalone Master (FIFO of
applications, spark.deploy.spreadOut, spark.cores.max, spark.executor.cores, dynamic
allocation requesting from the shared cluster), driven from a workload's ``application`` job
column; hand-checked small schedules (the same as tests/cpp/test_spark.cpp's SparkStandalone)."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab.engines import spark


def two_apps(second_submit=1.0):
    """Application a: four 10 s tasks at 0 s; application b: two 1 s tasks."""
    jobs = pd.DataFrame({"job_id": ["a0", "b0"], "submit_time": [0.0, second_submit], "application": ["a", "b"]})
    tasks = pd.DataFrame({"job_id": ["a0"] * 4 + ["b0"] * 2, "work": [10.0] * 4 + [1.0] * 2})
    return sl.Workload.from_frames(jobs, tasks)


def test_applications_in_arrival_order():
    """Two workers of two cores: application a takes every core (spark.cores.max unset), b
    waits for a's end at 10 s; the jobs and dags tables name the application."""
    w = two_apps()
    assert spark.applications(w) == "0,1"
    r = sl.simulate(spark.cluster(2, 2), w, "spark_fifo", shuffle_offers=False)
    jobs = r.jobs.set_index("job_id")
    assert list(jobs["application"]) == ["a", "b"]
    assert jobs.loc["a0", "finish_time"] == 10 and jobs.loc["b0", "start_time"] == 10
    assert jobs.loc["b0", "finish_time"] == 11
    assert list(r.dags["application"]) == ["a", "b"]
    assert r.counters["applications"] == 2 and r.counters["executors_launched"] == 4
    # four tasks of a on two workers, two each: the executors spread over the workers
    ta = r.tasks[r.tasks["job_id"] == "a0"]
    assert sorted(ta["node"].value_counts()) == [2, 2]


@pytest.mark.parametrize("spread_out", [True, False])
def test_cores_max_and_spread_out(spread_out):
    """spark.cores.max = 2 for a (application_settings, a dict): b gets the two other cores at
    1 s; spread out, a has one core on each worker; packed, a fills worker 0 and b worker 1."""
    w = two_apps()
    sched = sl.schedulers.get("spark_fifo", application_settings={"a": {"cores_max": 2}})
    r = sl.simulate(spark.cluster(2, 2), w, sched, shuffle_offers=False, spread_out=spread_out)
    jobs = r.jobs.set_index("job_id")
    assert jobs.loc["a0", "finish_time"] == 20
    assert jobs.loc["b0", "start_time"] == 1 and jobs.loc["b0", "finish_time"] == 2
    nodes = r.tasks.groupby("job_id")["node"].apply(lambda s: sorted(set(s)))
    if spread_out:
        assert nodes["a0"] == [0, 1] and nodes["b0"] == [0, 1]
    else:
        assert nodes["a0"] == [0] and nodes["b0"] == [1]
    # the same through the engine option (both applications)
    r = sl.simulate(spark.cluster(2, 2), w, "spark_fifo", shuffle_offers=False, cores_max=2, spread_out=spread_out)
    assert r.jobs.set_index("job_id").loc["b0", "finish_time"] == 2


def test_dynamic_allocation_gives_cores_back():
    """a runs four 10 s tasks at 0 s and one at 100 s with dynamic allocation (initial 2
    executors of 2 cores, idle timeout 5 s); b arrives at 20 s. a's idle executors leave at 15 s
    so b runs at once; a asks again after the backlog timeout at 101 s. Without dynamic
    allocation b waits for a's end at 110 s."""
    jobs = pd.DataFrame({"job_id": ["a0", "b0", "a1"], "submit_time": [0.0, 20.0, 100.0], "dag": [0, 1, 2],
                         "application": ["a", "b", "a"]})
    tasks = pd.DataFrame({"job_id": ["a0"] * 4 + ["b0"] * 2 + ["a1"], "work": [10.0] * 4 + [1.0] * 2 + [10.0]})
    w = sl.Workload.from_frames(jobs, tasks)
    r = sl.simulate(spark.cluster(2, 2), w, "spark_fifo", executor_cores=2, dynamic_allocation=True,
                    initial_executors=2, executor_idle_timeout=5.0)
    j = r.jobs.set_index("job_id")
    assert j.loc["b0", "start_time"] == 20 and j.loc["b0", "finish_time"] == 21
    assert j.loc["a1", "start_time"] == pytest.approx(101)
    r = sl.simulate(spark.cluster(2, 2), w, "spark_fifo", executor_cores=2)
    assert r.jobs.set_index("job_id").loc["b0", "start_time"] == 110


@pytest.mark.parametrize("scheduler", ["spark_fifo", "spark_fair"])
def test_invariants_several_applications(scheduler):
    """Four applications of DAG jobs (FAIR pools inside each), executor cores 2, some with
    spark.cores.max, a worker crash: every task succeeds once (more only for lost map outputs),
    no worker runs more tasks than its cores, each application's stages start after its
    arrival, deterministic for a seed."""
    w0 = sl.synthetic.generate(jobs=16, seed=4, rate=0.4, chain=3, users=2, maps=("randint", 1, 8),
                               reduces=("randint", 0, 4), map_work=("exponential", 4.0), reduce_work=("exponential", 5.0))
    jobs = w0.jobs[["job_id", "submit_time", "user", "dag", "parents"]].copy()
    jobs["application"] = ["app%d" % (d % 4) for d in jobs["dag"]]
    w = sl.Workload.from_frames(jobs, w0.tasks[["job_id", "work"]])
    cores = 4
    cluster = spark.cluster(3, cores)
    settings = {"app1": {"cores_max": 4}, "app3": {"cores_max": 2, "arrival": 5.0}}
    sched = (spark.fair(w) if scheduler == "spark_fair" else sl.schedulers.get(scheduler))
    sched = sl.schedulers.get(sched.name, **{**sched.params, "application_settings": settings})
    faults = [sl.faults.Crash(node=2, at=15.0, restart_after=5.0)]
    r = sl.simulate(cluster, w, sched, seed=3, executor_cores=2, faults=faults)
    r2 = sl.simulate(cluster, w, sched, seed=3, executor_cores=2, faults=faults)
    pd.testing.assert_frame_equal(r.tasks, r2.tasks)
    tasks = r.tasks
    ok = tasks[tasks["status"] == "succeeded"]
    assert set(ok["task_id"]) == set(range(w.n_tasks))
    assert r.jobs["finish_time"].notna().all()
    start = r.jobs.set_index("job_id")
    assert (start.loc[start["application"] == "app3", "start_time"] >= 5.0).all()
    for node, g in tasks.groupby("node"):
        times = np.concatenate([g["start"].to_numpy(), g["finish"].to_numpy()])
        delta = np.concatenate([np.ones(len(g)), -np.ones(len(g))])
        order = np.lexsort((delta, times))
        assert np.cumsum(delta[order]).max() <= cores, f"worker {node} ran more tasks than its {cores} cores"
        # distinct cores at any moment: the slots of the running attempts differ
        for t in g["start"]:
            running = g[(g["start"] <= t) & (g["finish"] > t)]
            assert running["slot"].is_unique
    assert not ((tasks["node"] == 2) & (tasks["start"] > 15.0) & (tasks["start"] < 20.0)).any()


def test_bad_applications():
    w = two_apps()
    with pytest.raises(ValueError, match="unknown applications"):
        sl.simulate(spark.cluster(2, 2), w, sl.schedulers.get("spark_fifo", application_settings={"c": {}}))
    with pytest.raises(ValueError, match="unknown keys"):
        sl.simulate(spark.cluster(2, 2), w, sl.schedulers.get("spark_fifo", application_settings={"a": {"cores": 2}}))
    jobs = pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.0], "application": ["a", "b"], "parents": [[], [0]]})
    tasks = pd.DataFrame({"job_id": [0, 1], "work": [1.0, 1.0]})
    with pytest.raises(ValueError, match="of their own application"):
        sl.simulate(spark.cluster(2, 2), sl.Workload.from_frames(jobs, tasks), "spark_fifo")
