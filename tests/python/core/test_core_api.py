"""The Python API contract: Cluster, Workload.from_frames, simulate, Result, schedulers."""
import threading

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from conftest import assert_slot_invariants


def small_frames():
    jobs = pd.DataFrame({"job_id": ["a", "b", "c"], "submit_time": [0.0, 1.0, 2.5], "user": ["u1", "u2", "u1"],
                         "weight": [1.0, 2.0, 1.0], "deadline": [50.0, np.nan, 30.0], "kind": ["x", "y", "x"]})
    tasks = pd.DataFrame({
        "job_id": ["a", "a", "a", "b", "b", "c", "c", "c"],
        "stage": ["map", "map", "reduce", "map", "reduce", "reduce", "map", "map"],
        "work": [10.0, 12.0, 5.0, 3.0, 2.0, 4.0, 8.0, 9.0],
    })
    return jobs, tasks


def test_from_frames_orders_and_keeps_columns():
    jobs, tasks = small_frames()
    wl = sl.Workload.from_frames(jobs.iloc[::-1], tasks)  # any row order
    assert wl.n_jobs == 3 and wl.n_tasks == 8
    j = wl.jobs
    assert list(j["job_id"]) == ["a", "b", "c"]  # sorted by submit time
    assert list(j["n_maps"]) == [2, 1, 2] and list(j["n_reduces"]) == [1, 1, 1]
    assert list(j["user"]) == ["u1", "u2", "u1"]
    assert list(j["kind"]) == ["x", "y", "x"]  # extra columns are kept
    t = wl.tasks
    # maps before reduces inside each job, original order otherwise
    assert list(t["stage"].astype(str)) == ["map", "map", "reduce", "map", "reduce", "map", "map", "reduce"]
    assert list(t["work"]) == [10.0, 12.0, 5.0, 3.0, 2.0, 8.0, 9.0, 4.0]


def test_result_columns_and_dtypes():
    jobs, tasks = small_frames()
    wl = sl.Workload.from_frames(jobs, tasks)
    r = sl.simulate(sl.Cluster(nodes=2, racks=1), wl, "fair", seed=3)
    j = r.jobs
    for col in ("job_id", "submit_time", "start_time", "finish_time", "completion_time", "queueing_delay",
                "user", "weight", "deadline", "late", "n_maps", "n_reduces", "map_finish_time"):
        assert col in j, col
    assert j["finish_time"].dtype == np.float64
    assert j["late"].dtype == bool
    np.testing.assert_allclose(j["completion_time"], j["finish_time"] - j["submit_time"])
    t = r.tasks
    for col in ("job_id", "task_id", "stage", "node", "start", "finish", "duration", "status", "locality",
                "slot", "slot_type", "speculative"):
        assert col in t, col
    assert isinstance(t["stage"].dtype, pd.CategoricalDtype)
    assert set(t["status"].astype(str)) == {"succeeded"}
    assert t["node"].dtype == np.int32
    s = r.summary()
    for key in ("makespan", "mean_completion_time", "p50_completion_time", "p90_completion_time",
                "p99_completion_time", "total_flowtime", "fairness_jain", "locality_node", "locality_rack",
                "locality_remote", "utilization", "late_fraction"):
        assert key in s.index, key
    assert s["total_flowtime"] == pytest.approx(j["completion_time"].sum())
    assert 0 < s["fairness_jain"] <= 1
    assert 0 < s["utilization"] <= 1
    by = r.summary(by="kind")
    assert list(by.index) == ["x", "y"] and by.loc["x", "jobs"] == 2
    assert_slot_invariants(r)


@pytest.mark.parametrize("options", [{"speculation": "late", "faults": "crash:2:40.0:300.0"},
                                     {"speculation": "esplash", "faults": "slowdown:1:20.0:400.0:3.0"}])
def test_summary_attempt_metrics_are_the_tasks_tables(options):
    """summary() reads the attempts' columns, not Result.tasks (millions of rows on a production
    trace): it leaves the table unbuilt, and its attempt metrics are the table's."""
    w = sl.synthetic.generate(jobs=40, rate=0.2, seed=3, maps=("randint", 5, 30), reduces=("randint", 0, 4))
    r = sl.simulate(sl.Cluster(nodes=8, racks=2, speeds=[0.5, 1, 1, 2, 1, 1, 1, 1]), w, "fair", seed=4, **options)
    s = r.summary()
    assert r._tasks is None
    t = r.tasks
    status, spec = t["status"].astype(str), t["speculative"]
    known = t[(t["stage"] == "map") & (t["locality"] != "none")]
    assert s["attempts"] == len(t)
    for level in ("node", "rack", "remote"):
        assert s[f"locality_{level}"] == pytest.approx((known["locality"] == level).mean())
    assert s["wasted_attempt_time"] == pytest.approx(t["duration"][status == "killed"].sum())
    assert s["failed_attempts"] == (status == "failed").sum()
    assert s["lost_map_outputs"] == (status == "lost").sum()
    assert s["speculative_attempts"] == spec.sum() > 0
    assert s["speculative_killed"] == (spec & (status == "killed")).sum()
    assert s["wasted_speculative_time"] == pytest.approx(t["duration"][spec & (status == "killed")].sum())
    if options["faults"].startswith("crash"):  # (the crash's failed or lost attempts are counted)
        assert s["failed_attempts"] + s["lost_map_outputs"] > 0
    held = np.where(np.isfinite(t["finish"]), t["finish"], r.end_time) - t["start"]
    slots = r.cluster.nodes[["map_slots", "reduce_slots"]].to_numpy().sum()
    assert s["utilization"] == pytest.approx(np.nansum(held) / (slots * s["makespan"]))


@pytest.mark.parametrize("ids", [["a", "bb", "c"], [10, 20, 30], ["a", 2, "c"]])
def test_tasks_job_id_column_is_the_jobs_ids(ids):
    """Result.tasks' job_id: each attempt's job's id, with the dtype pandas gives those ids (string
    ids are taken by Arrow straight into the column)."""
    jobs = pd.DataFrame({"job_id": ids, "submit_time": [0.0, 1.0, 2.0]})
    tasks = pd.DataFrame({"job_id": [ids[0], ids[1], ids[1], ids[2], ids[0]], "work": [1.0, 2.0, 3.0, 4.0, 5.0]})
    r = sl.simulate(sl.Cluster(nodes=2), sl.Workload.from_frames(jobs, tasks), "fifo")
    job = r._task_columns()["job"]
    expected = pd.Series(np.asarray(r.workload.job_ids)[job], name="job_id")
    pd.testing.assert_series_equal(r.tasks["job_id"], expected)
    assert sorted(map(str, r.tasks["job_id"])) == sorted(map(str, tasks["job_id"]))


def test_same_seed_same_result_and_seed_matters():
    wl = sl.synthetic.generate(jobs=40, rate=0.2, seed=5, users=3)
    c = sl.Cluster(nodes=8, racks=2)
    a = sl.simulate(c, wl, "fair", seed=1)
    b = sl.simulate(c, wl, "fair", seed=1)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    d = sl.simulate(c, wl, "fair", seed=2)
    assert not a.tasks["node"].equals(d.tasks["node"])  # replica placement follows the seed


def test_synthetic_generator_is_seeded():
    a = sl.synthetic.generate(jobs=30, rate=0.5, seed=9, map_work=("lognormal", 2.0, 0.5))
    b = sl.synthetic.generate(jobs=30, rate=0.5, seed=9, map_work=("lognormal", 2.0, 0.5))
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    assert not a.tasks.equals(sl.synthetic.generate(jobs=30, rate=0.5, seed=10).tasks)
    arr = sl.synthetic.generate(jobs=3, arrivals=[0, 5, 7], maps=2, reduces=1)
    assert list(arr.jobs["submit_time"]) == [0, 5, 7]
    assert list(arr.jobs["n_maps"]) == [2, 2, 2]


def test_explicit_replicas_control_locality():
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0, 0], "work": [5.0, 5.0], "replica_0": [1, 1], "replica_1": [-1, 2]})
    wl = sl.Workload.from_frames(jobs, tasks)
    r = sl.simulate(sl.Cluster(nodes=3, racks=3, map_slots=1, reduce_slots=0), wl, "fair")
    assert (r.tasks["locality"] == "node").all()
    assert set(r.tasks["node"]) <= {1, 2}


def test_parallel_threads_give_identical_results():
    wl = sl.synthetic.generate(jobs=60, rate=0.3, seed=2)
    c = sl.Cluster(nodes=10, racks=2)
    out = {}

    def work(i):
        out[i] = sl.simulate(c, wl, "fair", seed=7).jobs

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    for i in range(1, 4):
        pd.testing.assert_frame_equal(out[0], out[i])


def test_scheduler_catalogue():
    av = sl.schedulers.available()
    assert {"fifo", "fair", "capacity", "edf"} <= set(av["name"])
    assert av["citation"].str.len().gt(10).all()
    p = sl.schedulers.params("fair")
    assert "locality_delay" in set(p["name"])
    assert sl.schedulers.get("fair", locality_delay=3).resolved()["locality_delay"] == 3
    assert "slowstart" in set(sl.schedulers.options("mapreduce")["name"])


def test_scheduler_parameters_take_effect():
    wl = sl.synthetic.generate(jobs=30, seed=4, maps=("randint", 5, 10), reduces=2)
    c = sl.Cluster(nodes=4)
    a = sl.simulate(c, wl, sl.schedulers.get("fifo", k=1)).summary()
    b = sl.simulate(c, wl, "fifo").summary()
    assert a["makespan"] != b["makespan"]
    late = sl.simulate(c, wl, "fifo", slowstart=1.0).tasks
    first_reduce = late[late["stage"] == "reduce"].groupby("job_id")["start"].min()
    last_map = late[late["stage"] == "map"].groupby("job_id")["finish"].max()
    assert (first_reduce >= last_map.loc[first_reduce.index] - 1e-9).all()


def test_pool_weights_by_user_label():
    wl = sl.synthetic.generate(jobs=20, seed=1, users=2, maps=20, reduces=0)
    c = sl.Cluster(nodes=2, map_slots=2, reduce_slots=0)
    r = sl.simulate(c, wl, sl.schedulers.get("fair", pool_weights={"user0": 3.0}))
    assert_slot_invariants(r)
    with pytest.raises(ValueError, match="unknown user"):
        sl.simulate(c, wl, sl.schedulers.get("fair", pool_weights={"nobody": 3.0}))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(nodes=0), "nodes"),
    (dict(nodes=-3), "nodes"),
    (dict(nodes=4, racks=5), "racks"),
    (dict(nodes=2, speeds=[1.0, -1.0]), "speeds"),
    (dict(nodes=2, speeds=[1.0, 2.0, 3.0]), "speeds"),
    (dict(nodes=2, map_slots=-1), "map_slots"),
])
def test_bad_cluster(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sl.Cluster(**kwargs)


def test_stage_labels_in_any_case_and_mixed_with_numbers():
    jobs, tasks = small_frames()
    want = sl.Workload.from_frames(jobs, tasks).tasks
    labels = {"map": ["MAP", "m", 0, "Map", "map"], "reduce": ["Reduce", "r", 1, "R", "REDUCE"]}
    mixed = [labels[v][k % 5] for k, v in enumerate(tasks["stage"])]
    got = sl.Workload.from_frames(jobs, tasks.assign(stage=pd.Series(mixed, dtype=object))).tasks
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("table, mutate, match", [
    ("tasks", lambda t: t.assign(work=[-1.0] + list(t["work"][1:])), "'work' must be"),
    ("tasks", lambda t: t.assign(work=[np.nan] + list(t["work"][1:])), "'work' must be"),
    ("jobs", lambda j: j.assign(submit_time=[-5.0, 1.0, 2.5]), "submit_time"),
    ("tasks", lambda t: t.assign(stage=["map"] * 7 + ["shuffle"]), "stage"),
    # labelled stages: each distinct label read once; a missing or unhashable one names its row
    ("tasks", lambda t: t.assign(stage=["map", "MAP", None, "r"] + ["reduce"] * 4), r"tasks row 2: 'stage' .* got (None|nan)"),
    ("tasks", lambda t: t.assign(stage=["map"] * 5 + [["map"], "m", 1]), r"tasks row 5: 'stage' .* got \['map'\]"),
    # numeric stages: 0 / 1 (the whole part of a number); anything else names the row
    ("tasks", lambda t: t.assign(stage=[0] * 7 + [2]), r"tasks row 7: 'stage' must be 'map' or 'reduce', got 2"),
    ("tasks", lambda t: t.assign(stage=[0.0] * 6 + [np.nan, 1.0]), r"tasks row 6: 'stage' .* got nan"),
    ("tasks", lambda t: t.assign(stage=[0.0] * 5 + [np.inf, 0.0, 1.0]), r"tasks row 5: 'stage' .* got inf"),
    ("tasks", lambda t: t.assign(stage=[0] * 4 + [-1, 0, 0, 1]), r"tasks row 4: 'stage'"),
    ("tasks", lambda t: t.assign(job_id=["a"] * 7 + ["zzz"]), "zzz"),
    ("jobs", lambda j: j.assign(job_id=["a", "a", "c"]), "more than once"),
    ("jobs", lambda j: j.assign(weight=[1.0, 0.0, 1.0]), "weight"),
    ("tasks", lambda t: t.drop(columns=["work"]), "work"),
    ("jobs", lambda j: j.assign(job_id=["a", "b", "d"]), "not in the jobs table"),
    # replicas: a list per task (None for none), or replica_k columns (-1 / NaN for none)
    ("tasks", lambda t: t.assign(replicas=[[0, 1]] * 6 + [7, [1]]), r"tasks row 6 .*'replicas' must be a list"),
    ("tasks", lambda t: t.assign(replicas=[[0]] * 7 + ["12"]), r"tasks row 7 .*'replicas' must be a list"),
    ("tasks", lambda t: t.assign(replicas=[[0]] * 7 + [[1.5]]), r"tasks row 7 .*'replicas' must be a list"),
    ("tasks", lambda t: t.assign(replicas=[[0]] * 5 + [[2, -3], [0], [0]]), r"tasks row 5 .*>= 0 .*got -3"),
    ("tasks", lambda t: t.assign(replicas=[[0]] * 7 + [[2**40]]), r"tasks row 7 .*below 2\^31\), got 1099511627776"),
    ("tasks", lambda t: t.assign(replica_0=[0] * 7 + ["x"]), r"tasks row 7 .*'replica_0' must be a node id"),
    ("tasks", lambda t: t.assign(replica_0=[0] * 3 + [-2] + [0] * 4), r"tasks row 3 .*>= 0 .*got -2"),
])
def test_bad_workload(table, mutate, match):
    jobs, tasks = small_frames()
    if table == "jobs":
        jobs = mutate(jobs)
    else:
        tasks = mutate(tasks)
    with pytest.raises(ValueError, match=match):
        sl.Workload.from_frames(jobs, tasks)


def test_numeric_stages_read_as_map_and_reduce():
    jobs, tasks = small_frames()
    named = sl.Workload.from_frames(jobs, tasks)
    codes = (tasks["stage"] == "reduce").astype(int)
    for column in (codes, codes.astype(np.int8), codes.astype(float) + 0.25, codes.astype(bool),
                   codes.astype("Int64")):
        w = sl.Workload.from_frames(jobs, tasks.assign(stage=column))
        pd.testing.assert_frame_equal(w.tasks, named.tasks)


def test_replica_columns_with_gaps():
    # NaN (a shorter row of replica_k columns) and -1 both mean "no replica there"
    jobs, tasks = small_frames()
    tasks = tasks.assign(replica_0=[0, 1, 2, 0, 1, 2, 0, 1], replica_1=[1, np.nan, -1, 2, np.nan, 0, 1, 2])
    w = sl.Workload.from_frames(jobs, tasks)
    listed = sl.Workload.from_frames(jobs, tasks.drop(columns=["replica_0", "replica_1"]).assign(
        replicas=[[0, 1], [1], [2], [0, 2], [1], [2, 0], [0, 1], [1, 2]]))
    r1 = sl.simulate(sl.Cluster(nodes=3, map_slots=1, reduce_slots=1), w, "fair")
    r2 = sl.simulate(sl.Cluster(nodes=3, map_slots=1, reduce_slots=1), listed, "fair")
    pd.testing.assert_frame_equal(r1.tasks, r2.tasks)
    assert (r1.tasks["locality"] == "node").any()


def test_job_without_tasks_is_an_error():
    jobs, tasks = small_frames()
    with pytest.raises(ValueError, match="has no tasks"):
        sl.Workload.from_frames(jobs, tasks[tasks["job_id"] != "b"])


def test_bad_scheduler_and_options():
    wl = sl.synthetic.generate(jobs=3, seed=1)
    c = sl.Cluster(nodes=2)
    with pytest.raises(ValueError, match="unknown scheduler 'nope'"):
        sl.simulate(c, wl, "nope")
    with pytest.raises(ValueError, match="unknown parameter 'delay'"):
        sl.schedulers.get("fair", delay=3)
    with pytest.raises(ValueError, match="outside"):
        sl.schedulers.get("fair", locality_delay=-5)
    with pytest.raises(ValueError, match="not one of"):
        sl.schedulers.get("fair", pool_mode="lottery")
    with pytest.raises(ValueError, match="slowstart"):
        sl.simulate(c, wl, "fifo", slowstart=1.5)
    with pytest.raises(ValueError, match="unknown parameter 'colour'"):
        sl.simulate(c, wl, "fifo", colour=1)
    with pytest.raises(ValueError, match="seed"):
        sl.simulate(c, wl, "fifo", seed=-1)
    with pytest.raises(ValueError, match="capacities"):
        sl.simulate(c, wl, sl.schedulers.get("capacity", capacities="0:0.7,0:x"))
    with pytest.raises(ValueError, match="more than 1"):
        sl.simulate(c, sl.synthetic.generate(jobs=4, queues=2), sl.schedulers.get("capacity", capacities=[0.7, 0.6]))
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0], "work": [1.0], "replica_0": [7]})
    with pytest.raises(ValueError, match="not in the cluster"):
        sl.simulate(c, sl.Workload.from_frames(jobs, tasks), "fifo")


def test_time_limit_leaves_unfinished_jobs_as_nan():
    wl = sl.synthetic.generate(jobs=10, seed=1, maps=5, map_work=100.0)
    r = sl.simulate(sl.Cluster(nodes=1, map_slots=1), wl, "fifo", time_limit=250)
    assert r.jobs["finish_time"].isna().any()
    assert r.summary()["unfinished_jobs"] > 0


def _one_job(works, **task_columns):
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0] * len(works), "stage": ["map"] * len(works), "work": works, **task_columns})
    return sl.Workload.from_frames(jobs, tasks)


def test_utilization_counts_the_capacity_of_the_engine_that_ran():
    # typed slots: 2 tasks of 10 s on one node with 2 map + 2 reduce slots -> 20 / (4 x 10)
    r = sl.simulate(sl.Cluster(nodes=1, map_slots=2, reduce_slots=2), _one_job([10.0, 10.0]), "fifo")
    span = r.summary()["makespan"]
    assert r.summary()["utilization"] == pytest.approx(20.0 / (4 * span))
    # generic worker slots: the same node with slots=1 runs the tasks one after the other
    r = sl.simulate(sl.Cluster(nodes=1, map_slots=2, reduce_slots=2, slots=1), _one_job([10.0, 10.0]), "sparrow")
    span = r.summary()["makespan"]
    assert span > 20 and r.summary()["utilization"] == pytest.approx(20.0 / span)
    # containers: tasks of 1 and 3 vcores on a 4-vcore node run together -> (10 + 30) / (4 x span)
    w = _one_job([10.0, 10.0], vcores=[1.0, 3.0], memory=[1.0, 1.0])
    r = sl.simulate(sl.Cluster(nodes=1, vcores=4, memory=8), w, "yarn")
    span = r.summary()["makespan"]
    assert r.summary()["utilization"] == pytest.approx(40.0 / (4 * span))


def test_fingerprint_tells_apart_workloads_that_differ_only_in_ids_or_extra_columns():
    base = sl.synthetic.generate(jobs=5, seed=1)
    jobs, tasks = base.jobs, base.tasks
    same = sl.Workload.from_frames(jobs, tasks)
    assert same.fingerprint() == base.fingerprint()
    renamed = sl.Workload.from_frames(jobs.assign(job_id=jobs["job_id"] + 100), tasks.assign(job_id=tasks["job_id"] + 100))
    tagged = sl.Workload.from_frames(jobs.assign(kind=["a", "b", "a", "b", "a"]), tasks)
    assert len({base.fingerprint(), renamed.fingerprint(), tagged.fingerprint()}) == 3


def test_memory_latency_probe_answers_and_rejects_bad_arguments():
    from schedlab import _core
    ns = _core.memory_latency_ns(0.05, 20_000, 1)  # (a figure of the machine, not checked against any bound)
    assert np.isfinite(ns) and ns > 0
    for args in ((0.0,), (-1.0,), (float("nan"),), (1e9,), (1.0, 0), (1.0, 10, 0)):
        with pytest.raises(ValueError, match="memory_latency_ns"):
            _core.memory_latency_ns(*args)
