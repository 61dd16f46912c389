"""DAG jobs: workloads whose jobs depend on other jobs (Hadoop 1 workflows run as DAGs of
MapReduce jobs). Building them from frames, bad inputs, the engine's submission rule under
every MapReduce-engine scheduler, per-DAG results, synthetic chains and the Alibaba 2018
reader's real DAGs."""
import pickle
import re

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from conftest import assert_slot_invariants, trace_path

TYPED = {"fifo", "fair", "capacity", "edf", "edf_ideal"}


def diamond():
    """A -> C <- B, and D independent; C's row comes first in the table."""
    jobs = pd.DataFrame({"job_id": ["C", "A", "B", "D"], "submit_time": [0.0, 0.0, 0.0, 2.0],
                         "parents": [["A", "B"], None, [], []], "dag": ["w", "w", "w", "x"]})
    tasks = pd.DataFrame({"job_id": ["A", "A", "A", "B", "C", "C", "D"], "work": [4, 4, 3, 6, 2, 1, 5],
                          "stage": ["map", "map", "reduce", "map", "map", "reduce", "map"]})
    return jobs, tasks


def check_dag_rule(r):
    """Every job is ready at max(submit, last parent's finish) and no attempt starts before."""
    jobs = r.jobs.set_index("job_id")
    for jid, row in jobs.iterrows():
        parents = row["parents"] if "parents" in jobs else []
        last = max([row["submit_time"]] + [jobs.at[p, "finish_time"] for p in parents])
        if np.isfinite(row["finish_time"]):
            assert row["ready_time"] == last, jid
        t = r.tasks[r.tasks["job_id"] == jid]
        assert (t["start"] >= row["ready_time"]).all(), jid


def test_from_frames_orders_parents_first_and_round_trips():
    jobs, tasks = diamond()
    w = sl.Workload.from_frames(jobs, tasks)
    assert w.has_dependencies
    j = w.jobs
    assert list(j["job_id"]) == ["A", "B", "C", "D"]  # equal submit times: parents before children
    assert list(j["parents"]) == [[], [], ["A", "B"], []]
    assert list(j["dag"]) == ["w", "w", "w", "x"]
    cols = w.native().columns()[0]
    assert list(cols["parent_begin"]) == [0, 0, 0, 2, 2] and list(cols["parent_job"]) == [0, 1]
    # the same DAG as an edge table
    edges = pd.DataFrame({"job_id": ["C", "C"], "parent_id": ["B", "A"]})
    w2 = sl.Workload.from_frames(jobs.drop(columns="parents"), tasks, dependencies=edges)
    assert w2.fingerprint() == w.fingerprint()
    # round trips: through the frames it gives back, and pickling
    w3 = sl.Workload.from_frames(w.jobs, w.tasks)
    keep = ["job_id", "submit_time", "n_maps", "n_reduces", "dag", "parents"]
    pd.testing.assert_frame_equal(w3.jobs[keep], w.jobs[keep])
    pd.testing.assert_frame_equal(w3.tasks, w.tasks)
    w4 = pickle.loads(pickle.dumps(w))
    assert w4.fingerprint() == w.fingerprint()
    pd.testing.assert_frame_equal(w4.jobs, w.jobs)
    # the dependencies and DAG ids are part of the fingerprint
    no_deps = sl.Workload.from_frames(jobs.drop(columns="parents"), tasks)
    other_dag = sl.Workload.from_frames(jobs.assign(dag=["w", "w", "v", "x"]), tasks)
    assert len({w.fingerprint(), no_deps.fingerprint(), other_dag.fingerprint()}) == 3
    # without DAG columns nothing changes: every job is its own DAG, no parents column
    plain = sl.Workload.from_frames(jobs.drop(columns=["parents", "dag"]), tasks)
    assert not plain.has_dependencies and "parents" not in plain.jobs
    assert list(plain.jobs["dag"]) == list(plain.jobs["job_id"])


def test_simulated_dag_by_hand():
    # 1 node, 2 map slots, 1 reduce slot, heartbeats each second: A's maps [0,4], its reduce
    # [4,7]; B's map [4,10]; D's map [4,9]; C is ready at 10 (B's end): map [10,12], reduce [12,13]
    jobs, tasks = diamond()
    w = sl.Workload.from_frames(jobs, tasks)
    r = sl.simulate(sl.Cluster(nodes=1, map_slots=2, reduce_slots=1), w, "fifo", heartbeat_interval=1)
    j = r.jobs.set_index("job_id")
    assert list(j["ready_time"]) == [0.0, 0.0, 10.0, 2.0]
    assert list(j["finish_time"]) == [7.0, 10.0, 13.0, 9.0]
    assert list(j["queueing_delay"]) == [0.0, 4.0, 0.0, 2.0]  # from ready, not from submit
    assert j.at["C", "completion_time"] == 13.0
    d = r.dags.set_index("dag")
    assert list(d["n_jobs"]) == [3, 1]
    assert list(d["finish_time"]) == [13.0, 9.0] and list(d["completion_time"]) == [13.0, 7.0]
    s = r.summary()
    assert s["dags"] == 2 and s["mean_dag_completion_time"] == 10.0
    assert s["p50_dag_completion_time"] == 10.0
    check_dag_rule(r)
    assert_slot_invariants(r)
    # without multi-job DAGs the summary has no DAG rows
    plain = sl.Workload.from_frames(jobs.drop(columns=["parents", "dag"]), tasks)
    assert "dags" not in sl.simulate(sl.Cluster(nodes=1), plain, "fifo").summary()


@pytest.mark.parametrize("jobs_patch, deps, message", [
    ({"parents": [["A", "Z"], None, [], []]}, None, r"jobs row 0 \(job_id 'C'\): 'parents' names job_id 'Z', which is not in the jobs table"),
    ({"parents": [["C"], None, [], []]}, None, r"jobs row 0 \(job_id 'C'\): 'parents' names the job itself"),
    ({"parents": [["A"], ["C"], [], []]}, None, r"'parents' form a dependency cycle"),
    ({"parents": [[], None, [], ["A"]], "submit_time": [0.0, 3.0, 0.0, 2.0]}, None,
     r"jobs row 3 \(job_id 'D'\): 'parents' names job_id 'A', which is submitted later"),
    ({}, pd.DataFrame({"job_id": ["C"], "parent_id": ["Q"]}), r"dependencies row 0: 'parent_id' 'Q' is not in the jobs table"),
    ({}, pd.DataFrame({"child": ["C"]}), r"dependencies must be a DataFrame with columns 'job_id' and 'parent_id'"),
    ({"dag": ["w", None, "w", "x"]}, None, r"jobs row 1 \(job_id 'A'\): 'dag' is missing"),
])
def test_bad_dependencies_name_the_field(jobs_patch, deps, message):
    jobs, tasks = diamond()
    jobs = jobs.assign(**jobs_patch)
    with pytest.raises(ValueError, match=message):
        sl.Workload.from_frames(jobs, tasks, dependencies=deps, source="dagtest")


def test_cycle_message_names_a_job_on_the_cycle():
    jobs = pd.DataFrame({"job_id": [1, 2, 3, 4], "submit_time": 0.0, "parents": [[], [4], [2], [3]]})
    tasks = pd.DataFrame({"job_id": [1, 2, 3, 4], "work": 1.0})
    with pytest.raises(ValueError, match=r"job_id (2|3|4)\): 'parents' form a dependency cycle") as e:
        sl.Workload.from_frames(jobs, tasks)
    assert "job_id 1)" not in str(e.value)


def test_worker_and_share_engines_reject_dependencies():
    jobs, tasks = diamond()
    w = sl.Workload.from_frames(jobs, tasks.assign(stage="map"))
    for name in ("sparrow", "eunomia"):
        with pytest.raises(ValueError, match="workload field 'parents': the .* engine does not run jobs with dependencies"):
            sl.simulate(sl.Cluster(nodes=2, map_slots=2, reduce_slots=0), w, name)


def chained_workload():
    return sl.synthetic.generate(jobs=24, rate=0.05, seed=3, users=3, queues=2, maps=("randint", 1, 10),
                                 reduces=("randint", 0, 3), map_work=("exponential", 20.0),
                                 reduce_work=("exponential", 30.0), chain=3)


def mapreduce_schedulers():
    av = sl.schedulers.available()
    return sorted(av[av["engine"] == "mapreduce"]["name"])


@pytest.mark.parametrize("name", mapreduce_schedulers())
def test_invariants_and_determinism_with_dags(name):
    w = chained_workload()
    cluster = sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=2)
    r = sl.simulate(cluster, w, name, seed=1)
    assert r.jobs["finish_time"].notna().all(), f"{name} left jobs unfinished"
    assert_slot_invariants(r, typed=name in TYPED)
    check_dag_rule(r)
    again = sl.simulate(cluster, w, name, seed=1)
    pd.testing.assert_frame_equal(r.tasks, again.tasks)
    pd.testing.assert_frame_equal(r.jobs, again.jobs)


def test_dag_rule_holds_under_crashes():
    w = chained_workload()
    cluster = sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=2)
    r = sl.simulate(cluster, w, "fair", seed=2, faults="mtbf:150:60:400", detection_delay=30)
    assert r.counters["node_crashes"] > 0 and (r.tasks["status"] == "failed").any()
    check_dag_rule(r)
    assert_slot_invariants(r)


def test_synthetic_chains():
    w = chained_workload()
    plain = sl.synthetic.generate(jobs=24, rate=0.05, seed=3, users=3, queues=2, maps=("randint", 1, 10),
                                  reduces=("randint", 0, 3), map_work=("exponential", 20.0),
                                  reduce_work=("exponential", 30.0))
    j = w.jobs
    assert list(j["dag"]) == [i // 3 for i in range(24)]
    assert list(j["parents"][:4]) == [[], [0], [1], []]
    assert (j.groupby("dag")["submit_time"].nunique() == 1).all()
    pd.testing.assert_frame_equal(w.tasks, plain.tasks)  # same draws as without chains
    r = sl.simulate(sl.Cluster(nodes=4), w, "fifo", seed=0)
    assert len(r.dags) == 8 and r.summary()["dags"] == 8
    with pytest.raises(ValueError, match="'chain' must be a positive whole number"):
        sl.synthetic.generate(jobs=3, chain=0)


# ----------------------------------------------------------------------------------- Alibaba 2018
ALI2018 = """
M1,2,j_1,1,Terminated,100,110,100,0.5
R2_1,1,j_1,1,Terminated,110,130,100,0.5
J3_1_2,3,j_1,1,Terminated,130,135,100,0.5
task_LTg0MTUwNTA5Mjg4MDkwNjIzMA==,5,j_2,2,Terminated,50,80,50,0.2
M1,1,j_3,1,Failed,60,70,100,0.3
R2_1,1,j_3,1,Terminated,70,90,100,0.3
M4,1,j_3,1,Terminated,60,62,100,0.3
"""


def independent_edge_count(path, statuses=("Terminated",)):
    """Dependencies whose both ends are kept tasks, counted straight from the file."""
    kept = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.strip().split(",")
        if len(f) != 9 or f[4].strip() not in statuses:
            continue
        m = re.fullmatch(r"[A-Za-z]+(\d+)((?:_\d+)*)", f[0].strip())
        if m:
            kept[(f[2].strip(), int(m.group(1)))] = [int(x) for x in m.group(2).split("_") if x]
    return sum(1 for (job, _), deps in kept.items() for d in deps if (job, d) in kept)


def test_alibaba2018_real_dag(tmp_path):
    p = tmp_path / "batch_task.csv"
    p.write_text(ALI2018.strip() + "\n")
    w = sl.read_trace(p, format="alibaba2018", dag="jobs")
    j = w.jobs.set_index("job_id")
    assert set(j.index) == {"j_1/M1", "j_1/R2_1", "j_1/J3_1_2", "j_2/task_LTg0MTUwNTA5Mjg4MDkwNjIzMA==",
                            "j_3/R2_1", "j_3/M4"}
    assert j.at["j_1/J3_1_2", "parents"] == ["j_1/M1", "j_1/R2_1"]
    assert j.at["j_1/R2_1", "parents"] == ["j_1/M1"]
    assert j.at["j_3/R2_1", "parents"] == []  # its parent failed and is not kept
    assert (j.loc[["j_1/M1", "j_1/R2_1", "j_1/J3_1_2"], "submit_time"] == 50.0).all()  # the DAG's arrival
    assert list(j.loc[["j_1/M1", "j_1/R2_1", "j_1/J3_1_2"], "dag_depth"]) == [0, 1, 2]
    assert (j["dag"] == [i.split("/")[0] for i in j.index]).all()
    assert (j["n_reduces"] == 0).all()
    assert list(j["n_maps"]) == [5, 1, 1, 2, 1, 3]  # instances become tasks
    assert len(w.native().columns()[0]["parent_job"]) == independent_edge_count(p) == 3
    r = sl.simulate(sl.Cluster(nodes=2, map_slots=4, reduce_slots=1), w, "fifo", heartbeat_interval=1)
    check_dag_rule(r)
    d = r.dags.set_index("dag")
    assert d.at["j_1", "n_jobs"] == 3
    # the critical path M1 (10) -> R2_1 (20) -> J3_1_2 (5), each waiting at most one heartbeat
    assert 35.0 <= d.at["j_1", "completion_time"] <= 38.0
    # the other modes are unchanged
    assert sl.read_trace(p, format="alibaba2018").n_jobs == 3


@pytest.mark.parametrize("line, message", [
    ("M2_,1,j_9,1,Terminated,1,2,1,1", "task name 'M2_' is malformed"),
    ("R5_x,1,j_9,1,Terminated,1,2,1,1", "task name 'R5_x' is malformed"),
    ("R5_5,1,j_9,1,Terminated,1,2,1,1", "task 'R5_5' of job 'j_9' depends on itself"),
    ("R1_2,1,j_1,1,Terminated,1,2,1,1", "task 'R1_2' of job 'j_1' has the number 1 of the task on line 1"),
])
def test_alibaba2018_malformed_names(tmp_path, line, message):
    lines = ALI2018.strip().splitlines()
    p = tmp_path / "b.csv"
    p.write_text("\n".join(lines[:2] + [line] + lines[2:]) + "\n")
    for mode in ("jobs", "depth"):
        with pytest.raises(ValueError, match=rf"b\.csv:3: {re.escape(message)}"):
            sl.read_trace(p, format="alibaba2018", dag=mode)


def test_alibaba2018_shared_sample_dag():
    d = sl_traces_dir_2018()
    w = sl.read_trace(d, format="alibaba2018", dag="jobs", max_instances_per_task=4)
    assert len(w.native().columns()[0]["parent_job"]) == independent_edge_count(d)
    r = sl.simulate(sl.Cluster(nodes=20, map_slots=4, reduce_slots=1), w, "fair", seed=0)
    check_dag_rule(r)


def sl_traces_dir_2018():
    """The shared Alibaba 2018 batch_task sample, or skip."""
    from conftest import traces_dir
    d = traces_dir()
    if d is not None:
        for cand in sorted(d.glob("alibaba2018*/batch_task*")):
            return cand
    return trace_path("alibaba2018", "batch_task.csv")  # skips


def test_python_scheduler_sees_dag_submissions():
    """Python schedulers get on_job_submitted at the ready time (the FIFO written in Python
    keeps the built-in fifo's schedule on DAGs) and can read JobState.ready."""
    w = chained_workload()
    cluster = sl.Cluster(nodes=4, racks=2, map_slots=2, reduce_slots=1)
    ref = sl.simulate(cluster, w, "fifo", seed=1)
    py = sl.simulate(cluster, w, sl.schedulers.base.FifoInPython(), seed=1)
    pd.testing.assert_frame_equal(py.tasks, ref.tasks)
    seen = {}

    class Probe(sl.schedulers.base.FifoInPython):
        name = "dag_probe"

        def on_job_submitted(self, sim, job):
            seen[job] = (sim.now(), sim.job(job).ready)
            super().on_job_submitted(sim, job)

    r = sl.simulate(cluster, w, Probe(), seed=1)
    ready = r.jobs["ready_time"].to_numpy()
    assert sorted(seen) == list(range(w.n_jobs))
    assert all(now == rd == ready[j] for j, (now, rd) in seen.items())
