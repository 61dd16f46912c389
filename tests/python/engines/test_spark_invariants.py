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
