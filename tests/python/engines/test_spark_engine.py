"""The spark engine from Python: stages of Spark jobs as a workload, FIFO and FAIR pools (from a
fairscheduler.xml file and from a dict), delay scheduling options, results as DataFrames."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab.engines import spark


def two_jobs():
    # job "a" (pool prod): two 10 s tasks at 0; job "b" (pool adhoc): a 5 s stage at 1 s
    # after a 1 s stage of its own (a DAG of two stages)
    jobs = pd.DataFrame({"job_id": ["a0", "b0", "b1"], "submit_time": [0.0, 1.0, 1.0],
                         "user": ["prod", "adhoc", "adhoc"], "dag": ["a", "b", "b"],
                         "parents": [[], [], ["b0"]]})
    tasks = pd.DataFrame({"job_id": ["a0", "a0", "b0", "b1"], "work": [10.0, 10.0, 1.0, 5.0]})
    return sl.Workload.from_frames(jobs, tasks)


XML = """<?xml version="1.0"?>
<allocations>
  <pool name="prod"><schedulingMode>FAIR</schedulingMode><weight>1</weight><minShare>1</minShare></pool>
  <pool name="adhoc"><schedulingMode>FIFO</schedulingMode><weight>2</weight><minShare>0</minShare></pool>
</allocations>
"""


def test_fifo_by_job_then_stage():
    w = two_jobs()
    r = sl.simulate(spark.cluster(executors=1, cores=1), w, "spark_fifo")
    dags = r.dags.set_index("dag")
    # one core: a's tasks 0-20 s, then b0 20-21 s, b1 21-26 s
    assert dags.loc["a", "finish_time"] == 20
    assert dags.loc["b", "finish_time"] == 26
    jobs = r.jobs.set_index("job_id")
    assert jobs.loc["b1", "ready_time"] == 21
    assert set(r.tasks["status"]) == {"succeeded"}


def test_fair_pools_from_xml_file_and_dict(tmp_path):
    w = two_jobs()
    c = spark.cluster(executors=1, cores=1)
    # without pools defined: both FIFO weight 1, ties by name: "adhoc" < "prod" -> b0 runs at 10 s;
    # its end at 11 s offers the core before b1 is submitted: a's second task takes it (11-21 s)
    r = sl.simulate(c, w, spark.fair(w))
    d = r.dags.set_index("dag")
    assert (d.loc["a", "finish_time"], d.loc["b", "finish_time"]) == (21, 26)
    # prod with minShare 1 is needy when it runs nothing: a keeps the core
    path = tmp_path / "fairscheduler.xml"
    path.write_text(XML)
    r_file = sl.simulate(c, w, spark.fair(w, pools=str(path)))
    r_dict = sl.simulate(c, w, spark.fair(w, pools={"prod": {"minShare": 1, "schedulingMode": "FAIR"},
                                                     "adhoc": {"weight": 2}}))
    for r in (r_file, r_dict):
        d = r.dags.set_index("dag")
        assert d.loc["a", "finish_time"] == 20
        assert d.loc["b", "finish_time"] == 26
    pd.testing.assert_frame_equal(r_file.tasks, r_dict.tasks)
    # the same pools given to the catalogue's config (encoded at simulate time)
    for given in (str(path), XML, {"prod": {"minShare": 1}}):
        r = sl.simulate(c, w, sl.schedulers.get("spark_fair", pools=given))
        pd.testing.assert_frame_equal(r.tasks, r_file.tasks)


def test_read_pools_errors(tmp_path):
    assert spark.read_pools(XML)["adhoc"] == {"schedulingMode": "FIFO", "weight": 2.0, "minShare": 0}
    bad = tmp_path / "bad.xml"
    bad.write_text("<allocations><pool name='x'><weight>1</pool></allocations>")
    with pytest.raises(ValueError, match="bad.xml: not well-formed XML"):
        spark.read_pools(str(bad))
    with pytest.raises(ValueError, match="schedulingMode must be FIFO or FAIR"):
        spark.read_pools({"x": {"schedulingMode": "LIFO"}})
    with pytest.raises(ValueError, match="minShare must be a whole number"):
        spark.read_pools("<allocations><pool name='x'><minShare>1.5</minShare></pool></allocations>")
    with pytest.raises(ValueError, match="unknown keys"):
        spark.read_pools({"x": {"weigth": 2}})
    with pytest.raises(FileNotFoundError):
        spark.read_pools(str(tmp_path / "missing.xml"))


def test_delay_scheduling_and_locality_columns():
    # two executors, both tasks cached on executor 0
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0, 0], "work": [10.0, 10.0], "replicas": [[0], [0]]})
    w = sl.Workload.from_frames(jobs, tasks)
    c = spark.cluster(executors=2, cores=1)
    r = sl.simulate(c, w, "spark_fifo")
    t = r.tasks.sort_values("start")
    assert list(t["start"]) == [0.0, 6.0]  # PROCESS_LOCAL then NODE_LOCAL waits of 3 s
    assert list(t["spark_locality"]) == [0, 4]  # PROCESS_LOCAL, ANY
    r = sl.simulate(c, w, "spark_fifo", locality_wait=0)
    assert list(r.tasks.sort_values("start")["start"]) == [0.0, 0.0]


def test_deterministic_and_options_checked():
    rng = np.random.default_rng(1)
    n_stages = 30
    jobs = pd.DataFrame({"job_id": range(n_stages), "submit_time": np.sort(rng.uniform(0, 20, n_stages)),
                         "user": rng.choice(["a", "b", "c"], n_stages)})
    tasks = pd.DataFrame({"job_id": np.repeat(range(n_stages), 8), "work": rng.uniform(0.5, 4, n_stages * 8),
                          "replicas": [[int(x)] for x in rng.integers(0, 6, n_stages * 8)]})
    w = sl.Workload.from_frames(jobs, tasks)
    c = spark.cluster(executors=6, cores=2, racks=2)
    kw = dict(speculation=True, dynamic_allocation=True, executor_start_time=1.0)
    r1 = sl.simulate(c, w, spark.fair(w), seed=5, **kw)
    r2 = sl.simulate(c, w, spark.fair(w), seed=5, **kw)
    pd.testing.assert_frame_equal(r1.tasks, r2.tasks)
    assert r1.jobs["finish_time"].notna().all()
    assert r1.summary()["utilization"] <= 1.0
    with pytest.raises(ValueError, match="locality_wait"):
        sl.simulate(c, w, "spark_fifo", locality_wait=-1)
    with pytest.raises(ValueError, match="unknown parameter"):
        sl.simulate(c, w, "spark_fifo", heartbeat_interval=3)
