"""Workload plus results stay within 100 bytes per task on every engine (one attempt per task):
the columns the engine hands to Python, before any pandas table is built. Real traces are read
from the shared samples and their cases skipped when absent; bench/bytes_per_task.py prints the
figures at full size."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab.engines import spark
from schedlab.papers import zhou2019

from conftest import trace_path

LIMIT = 100.0


def _nbytes(columns) -> int:
    if isinstance(columns, dict):
        return sum(_nbytes(v) for v in columns.values())
    if isinstance(columns, (tuple, list)):
        return sum(_nbytes(v) for v in columns)
    return getattr(columns, "nbytes", 0)


def _bytes_per_task(cluster, wl, scheduler, **options):
    r = sl.simulate(cluster, wl, scheduler, seed=0, **options)
    assert len(r._raw["attempts"]["task"]) == wl.n_tasks  # one attempt per task: the figure is per task
    return (wl.native().nbytes + _nbytes(r._raw)) / wl.n_tasks


def test_mapreduce_swim_day():
    wl = sl.read_trace(trace_path("swim", "FB-2009_samples_24_times_1hr_0.tsv"))
    assert _bytes_per_task(sl.Cluster(nodes=3000), wl, "fair") <= LIMIT


@pytest.mark.parametrize("name,workers,preset", [("YH1_sub.tr", 3000, "yahoo"), ("GOOG_subtrace.tr", 5200, "google")])
def test_worker_traces(name, workers, preset):
    w = sl.engines.worker
    wl = w.read_trace(trace_path("hawk_eagle", name))
    assert _bytes_per_task(w.cluster(workers), wl, "eagle", **w.preset(preset)) <= LIMIT


def test_share_alibaba():
    cluster, attrs = zhou2019.macro_cluster(seed=0, nodes=100)
    wl = zhou2019.macro_workload(cluster, attrs, seed=0, jobs=2888, span=5000.0,
                                 trace=trace_path("alibaba2017", "batch_task.csv"))
    assert _bytes_per_task(cluster, wl, "eunomia", performance=zhou2019.MACRO_PERFORMANCE_OPTION,
                           sample_interval=0) <= LIMIT


def test_spark_stages():
    rng = np.random.default_rng(0)
    jobs, width = 300, rng.integers(4, 65, 300)
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(jobs), width),
                          "work": rng.lognormal(np.log(2.0), 0.6, int(width.sum()))})
    stages = pd.DataFrame({"job_id": np.arange(jobs), "submit_time": np.sort(rng.uniform(0, 600, jobs)),
                           "dag": np.arange(jobs) // 3})
    deps = pd.DataFrame({"job_id": [j for j in range(jobs) if j % 3], "parent_id": [j - 1 for j in range(jobs) if j % 3]})
    wl = sl.Workload.from_frames(stages, tasks, dependencies=deps)
    assert _bytes_per_task(spark.cluster(50, 4), wl, "spark_fair") <= LIMIT
