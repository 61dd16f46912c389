"""Faults and speculation on the mapreduce engine: slowdowns re-time attempts in flight, crashes
fail attempts and lose map outputs that re-run, no attempt runs on a down node, every task
succeeds exactly once under every speculator, speculators keep to their caps, seeded faults are
deterministic, and bad fault lists are rejected."""
import math

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from conftest import assert_slot_invariants
from schedlab.faults import MTBF, Crash, Slowdown
from schedlab.papers import wang2017

SPECULATORS = [s for s in sl.speculation.names()]


@pytest.fixture(scope="module")
def workload():
    return sl.synthetic.generate(jobs=10, seed=5, arrivals=list(np.arange(10) * 20.0), maps=("randint", 10, 30),
                                 reduces=("randint", 1, 4), map_work=("uniform", 20, 60), reduce_work=("uniform", 30, 90),
                                 users=2)


@pytest.fixture(scope="module")
def cluster():
    return sl.Cluster(nodes=8, racks=2, map_slots=3, reduce_slots=2, speeds=[0.5, 0.5, 1, 1, 1, 1, 2, 2])


FAULTS = [Slowdown(node=6, start=40, end=1040, factor=4), Slowdown(node=1, start=100, end=500, factor=2),
          Crash(node=7, at=150, restart_after=600), Crash(node=2, at=400, restart_after=300)]


def crash_windows(result):
    f = result.series["faults"]
    return f[f["kind"] == 1][["node", "start", "end"]].itertuples(index=False)


def assert_no_attempt_on_down_node(result):
    t = result.tasks
    for node, down, up in crash_windows(result):
        on = t[t["node"] == node]
        assert not ((on["start"] >= down) & (on["start"] < up)).any(), f"an attempt started on node {node} while it was down"
        before = on[on["start"] < down]
        assert (before["finish"] <= down + 1e-9).all(), f"an attempt on node {node} outlived its crash at {down}"


def assert_lost_maps_recomputed(result):
    t = result.tasks
    lost = t[t["status"] == "lost"]
    ok = t[t["status"] == "succeeded"].set_index("task_id")
    for row in lost.itertuples():
        assert row.stage == "map"
        assert ok.loc[row.task_id, "start"] >= row.finish, "a lost map output was not recomputed after it was lost"


def test_slowdown_retimes_the_attempt_in_flight():
    cl = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    wl = sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                 pd.DataFrame({"job_id": [0], "stage": ["map"], "work": [100.0]}))
    r = sl.simulate(cl, wl, "fifo", heartbeat_interval=1.0, faults=[Slowdown(0, 40, 60, 2)])
    # 40 s of work by t=40, 10 more in the 20 s at half speed, the remaining 50 by t=110
    assert r.tasks["finish"].tolist() == [110.0]


def test_crash_fails_attempts_and_reruns_lost_maps(cluster, workload):
    r = sl.simulate(cluster, workload, "fair", seed=2, faults=FAULTS, detection_delay=60)
    s = r.summary()
    assert s["failed_attempts"] > 0 and s["lost_map_outputs"] > 0
    assert r.counters["node_crashes"] == 2
    assert r.jobs["finish_time"].notna().all()
    assert_slot_invariants(r)
    assert_no_attempt_on_down_node(r)
    assert_lost_maps_recomputed(r)
    # failing and re-running work costs time against the same run without faults
    clean = sl.simulate(cluster, workload, "fair", seed=2)
    assert s["makespan"] > clean.summary()["makespan"]


def test_detection_delay_matters(cluster, workload):
    quick = sl.simulate(cluster, workload, "fair", seed=2, faults=[Crash(7, 150, math.inf)], detection_delay=10)
    slow = sl.simulate(cluster, workload, "fair", seed=2, faults=[Crash(7, 150, math.inf)], detection_delay=900)
    fq = quick.tasks[quick.tasks["status"] == "failed"]
    fs = slow.tasks[slow.tasks["status"] == "failed"]
    assert len(fq) > 0 and len(fq) == len(fs)
    # the failed attempts are re-run only after detection
    rerun_q = quick.tasks[quick.tasks["task_id"].isin(fq["task_id"]) & (quick.tasks["status"] == "succeeded")]
    rerun_s = slow.tasks[slow.tasks["task_id"].isin(fs["task_id"]) & (slow.tasks["status"] == "succeeded")]
    assert (rerun_q["start"] >= 160 - 1e-9).all() and (rerun_s["start"] >= 1050 - 1e-9).all()


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
@pytest.mark.parametrize("speculation", SPECULATORS)
def test_every_speculator_with_every_slot_scheduler_under_faults(cluster, workload, scheduler, speculation):
    r = sl.simulate(cluster, workload, scheduler, seed=1, speculation=speculation, faults=FAULTS,
                    detection_delay=120, time_limit=1e6)
    assert r.jobs["finish_time"].notna().all()
    assert_slot_invariants(r)  # includes: each task succeeds exactly once
    assert_no_attempt_on_down_node(r)
    assert_lost_maps_recomputed(r)
    t = r.tasks
    spec = t[t["speculative"]]
    if speculation == "none":
        assert len(spec) == 0
    # a copy never runs beside another running attempt of its task on the same node
    assert (spec["node"] != spec["orig_node"]).all()
    s = r.summary()
    assert s["speculative_attempts"] == len(spec)
    assert s["wasted_speculative_time"] == pytest.approx(float((spec["finish"] - spec["start"])[spec["status"] == "killed"].sum()))


def test_every_engine_scheduler_survives_faults_with_speculation(cluster, workload):
    av = sl.schedulers.available()
    for name in sorted(av[av["engine"] == "mapreduce"]["name"]):
        r = sl.simulate(cluster, workload, name, seed=1, speculation="yarn", faults=FAULTS, detection_delay=120,
                        time_limit=1e6)
        assert_no_attempt_on_down_node(r)
        ok = r.tasks[r.tasks["status"] == "succeeded"]["task_id"].value_counts()
        assert (ok == 1).all(), name
        assert r.jobs["finish_time"].notna().all(), name  # every job completes despite the crashes


def concurrent_speculative(t, key):
    """Max number of speculative attempts of one group running at the same moment."""
    peak = 0
    for _, g in t[t["speculative"]].groupby(key, observed=True):
        ends = np.where(np.isfinite(g["finish"]), g["finish"], np.inf)
        times = np.concatenate([g["start"].to_numpy(), ends])
        delta = np.concatenate([np.ones(len(g)), -np.ones(len(g))])
        order = np.lexsort((delta, times))
        peak = max(peak, int(np.cumsum(delta[order]).max()))
    return peak


def test_late_keeps_its_speculative_cap(cluster, workload):
    slots = int(cluster.nodes["map_slots"].sum() + cluster.nodes["reduce_slots"].sum())
    r = sl.simulate(cluster, workload, "fair", seed=1, speculation="late", faults=FAULTS,
                    speculation_params={"speculative_cap": 0.1})
    t = r.tasks.assign(all=0)
    assert t["speculative"].sum() > 0
    assert concurrent_speculative(t, "all") <= math.floor(0.1 * slots)


def test_yarn_keeps_its_per_type_allowance(cluster, workload):
    r = sl.simulate(cluster, workload, "fair", seed=1, speculation="yarn", faults=FAULTS,
                    speculation_params={"minimum_allowed": 1, "proportion_total": 0, "proportion_running": 0})
    t = r.tasks
    assert t["speculative"].sum() > 0
    assert concurrent_speculative(t, ["job_id", "stage"]) <= 1


@pytest.mark.parametrize("speculation", ["hadoop", "sepb"])
def test_hadoop_rule_keeps_its_per_job_cap(cluster, workload, speculation):
    cap = 0.3
    # slowdowns only: an attempt on a crashed node counts as running until the crash is detected,
    # which the attempt table (finish = crash time) does not show
    r = sl.simulate(cluster, workload, "fair", seed=1, speculation=speculation, faults=FAULTS[:2],
                    speculation_params={"speculative_cap": cap, "min_spec_cap": 0, "min_slots_cap": 0,
                                        "speculative_lag": 0})
    t = r.tasks
    spec = t[t["speculative"]]
    assert len(spec) > 0
    fin = np.where(np.isfinite(t["finish"]), t["finish"], np.inf)
    for row in spec.itertuples():
        same = (t["job_id"] == row.job_id) & (t["stage"] == row.stage)
        at = same & (t["start"] <= row.start) & (fin > row.start)
        others = at & t["speculative"] & (t.index != row.Index)
        running_tasks = t.loc[at & (t.index != row.Index), "task_id"].nunique()
        assert others.sum() < cap * running_tasks + 1e-9


def test_seeded_faults_are_deterministic(cluster, workload):
    kw = dict(speculation="esplash", faults=[MTBF(mean_uptime=400, restart_after=100, horizon=1500)], detection_delay=60)
    a = sl.simulate(cluster, workload, "fair", seed=11, **kw)
    b = sl.simulate(cluster, workload, "fair", seed=11, **kw)
    c = sl.simulate(cluster, workload, "fair", seed=12, **kw)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.series["faults"], b.series["faults"])
    assert not a.series["faults"].equals(c.series["faults"])
    assert a.counters["node_crashes"] > 0
    assert_no_attempt_on_down_node(a)
    assert_lost_maps_recomputed(a)


def test_bad_faults_and_speculation_are_rejected(cluster, workload):
    with pytest.raises(ValueError, match="end"):
        Slowdown(0, 10, 5, 2)
    with pytest.raises(ValueError, match="factor"):
        Slowdown(0, 1, 5, 0)
    with pytest.raises(ValueError, match="node"):
        Crash(-1, 5)
    with pytest.raises(ValueError, match="faults\\[0\\]"):
        sl.simulate(cluster, workload, "fifo", faults=[("crash", 1)])
    with pytest.raises(ValueError, match="faults item 1.*node"):
        sl.simulate(cluster, workload, "fifo", faults=[Crash(99, 5)])
    with pytest.raises(ValueError, match="faults item 2"):
        sl.simulate(cluster, workload, "fifo", faults="crash:1:5:10;slowdown:1")
    with pytest.raises(ValueError, match="speculation"):
        sl.simulate(cluster, workload, "fifo", speculation="nope")
    with pytest.raises(ValueError, match="no_such"):
        sl.simulate(cluster, workload, "fifo", speculation="late", speculation_params={"no_such": 1})
    with pytest.raises(ValueError, match="speculative_cap"):
        sl.simulate(cluster, workload, "fifo", speculation="late", speculation_params={"speculative_cap": 5})
    assert set(SPECULATORS) == {"none", "hadoop", "yarn", "late", "esplash", "sepb"}
    assert "tau" in set(sl.speculation.params("esplash")["name"])


def test_admission_control_reruns_lost_maps_of_jobs_in_reduce_phase(cluster, workload):
    # with k = 1 a job leaves the map set when its maps are done; lost outputs must still re-run
    r = sl.simulate(cluster, workload, sl.schedulers.get("fair", k=1), seed=2, faults=FAULTS, detection_delay=60,
                    time_limit=1e6)
    assert r.jobs["finish_time"].notna().all()
    assert r.summary()["lost_map_outputs"] > 0
    assert_lost_maps_recomputed(r)


def test_yarn_copies_a_straggling_task_by_eq_5_1_and_5_2():
    # three nodes with one map slot; node 2 runs 10x slower. The maps on nodes 0 and 1 end at
    # 10 and 10 + 1/3; the one on node 2 (from 2/3) would end at 100 + 2/3. Once a map has
    # finished, EstEnd (100.67) > EstRepEnd (now + 10): a copy goes to the next free slot and
    # finishes 10 s later; the original is killed then.
    cl = sl.Cluster(nodes=3, map_slots=1, reduce_slots=0)
    wl = sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                 pd.DataFrame({"job_id": [0] * 3, "stage": ["map"] * 3, "work": [10.0] * 3}))
    r = sl.simulate(cl, wl, "fifo", heartbeat_interval=1.0, faults=[Slowdown(2, 0, 1e6, 10)], speculation="yarn")
    t = r.tasks.sort_values("start").reset_index(drop=True)
    assert len(t) == 4
    orig, copy = t.iloc[2], t.iloc[3]
    assert orig["node"] == 2 and orig["start"] == pytest.approx(2 / 3)
    assert copy["speculative"] and copy["node"] in (0, 1) and copy["task_id"] == orig["task_id"]
    assert 10 <= copy["start"] <= 11 + 1e-9
    assert copy["finish"] == pytest.approx(copy["start"] + 10)
    assert copy["status"] == "succeeded" and orig["status"] == "killed" and orig["finish"] == copy["finish"]
    assert r.jobs["finish_time"].iloc[0] == copy["finish"]


def test_esplash_clustering_recovers_the_node_levels():
    r = sl.simulate(wang2017.esplash_cluster(), wang2017.esplash_workload(), "fair", speculation="esplash")
    levels = r.series["esplash_levels"].set_index("node")["level"]
    # 8 nodes, speeds 0.25, 0.25, 0.5, 0.5, 1, 1, 2, 2: four levels, slowest = 1
    assert r.counters["esplash_clusterings"] == 1
    assert levels.tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    cfg = sl.simulate(wang2017.esplash_cluster(), wang2017.esplash_workload(), "fair", speculation="esplash",
                      speculation_params={"levels": "node_type"})
    assert cfg.series["esplash_levels"]["level"].tolist() == [1, 1, 2, 2, 3, 3, 4, 4]


def test_esplash_places_copies_only_on_eligible_nodes():
    r = sl.simulate(wang2017.esplash_cluster(), wang2017.esplash_workload(), "fair", speculation="esplash",
                    faults=wang2017.esplash_scenarios()["straggler at level 4"])
    t = r.tasks
    spec = t[t["speculative"]]
    assert len(spec) > 0
    speed = wang2017.esplash_cluster().nodes["speed"].to_numpy()
    # never below the original's level, never on the slowed node while it is slowed
    assert (speed[spec["node"].to_numpy()] >= speed[spec["orig_node"].to_numpy()]).all()
    slowed = (spec["node"] == 7) & (spec["start"] >= 100) & (spec["start"] < 1100)
    assert not slowed.any()


def test_python_schedulers_compose_with_faults_and_speculation(cluster, workload):
    seen = []

    class Greedy(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            assert sim.node_up(node)
            for job in sim.active_jobs():
                while sim.free_slots(node, sl.MAP) > 0 and (t := sim.find_map(job, node)) >= 0:
                    a = sim.launch(t, node)
                    seen.append(sim.progress(a))
                while sim.free_slots(node, sl.REDUCE) > 0 and sim.reduces_allowed(job) and (t := sim.find_reduce(job)) >= 0:
                    sim.launch(t, node)

    r = sl.simulate(cluster, workload, Greedy(), seed=1, faults=FAULTS, detection_delay=60, speculation="late",
                    time_limit=1e6)
    assert r.jobs["finish_time"].notna().all()
    assert r.tasks["speculative"].sum() > 0
    assert set(seen) == {0.0}  # a new attempt has made no progress
    assert_no_attempt_on_down_node(r)
    assert_lost_maps_recomputed(r)
    ok = r.tasks[r.tasks["status"] == "succeeded"]["task_id"].value_counts()
    assert len(ok) == workload.n_tasks and (ok == 1).all()


@pytest.mark.parametrize("speculation,params", [
    ("esplash", {"sv_mode": "literal"}),
    ("esplash", {"levels": "node_type", "recluster_interval": 200}),
    ("sepb", {"kill_mode": "requeue", "percentage": 0.5}),
    ("hadoop", {"job_order": False}),
    ("yarn", {"min_finished": 0}),
    ("late", {"min_elapsed": 60}),
])
def test_speculator_readings_run_and_keep_invariants(cluster, workload, speculation, params):
    r = sl.simulate(cluster, workload, "fair", seed=4, speculation=speculation, speculation_params=params,
                    faults=FAULTS, detection_delay=90, time_limit=1e6)
    assert r.jobs["finish_time"].notna().all()
    assert_slot_invariants(r)
    assert_no_attempt_on_down_node(r)
    again = sl.simulate(cluster, workload, "fair", seed=4, speculation=speculation, speculation_params=params,
                        faults=FAULTS, detection_delay=90, time_limit=1e6)
    pd.testing.assert_frame_equal(r.tasks, again.tasks)


def test_dynamicmr_composes_with_sepb_and_faults(cluster, workload):
    if "dynamicmr" not in sl.schedulers.names():
        pytest.skip("no dynamicmr scheduler")
    kw = dict(speculation="sepb", faults=FAULTS, detection_delay=120, time_limit=1e6)
    r = sl.simulate(cluster, workload, "dynamicmr", seed=3, **kw)
    assert r.jobs["finish_time"].notna().all()
    assert_slot_invariants(r, typed=False)
    assert_no_attempt_on_down_node(r)
    assert_lost_maps_recomputed(r)
    assert r.tasks["speculative"].sum() > 0
    pd.testing.assert_frame_equal(r.tasks, sl.simulate(cluster, workload, "dynamicmr", seed=3, **kw).tasks)


def test_a_node_down_for_good_does_not_keep_a_stalled_run_going():
    # a reduce asking 2 reduce slots (2048 MB over 1024-MB slots) fits only node 2, which crashes
    # for good before the maps are done: the reduce can never run. The stall check used to wait for
    # the node to come back whenever one was down, and the run never ended. Now, once no fault is
    # left to come, the stall is reported.
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0, 0, 0], "stage": ["map", "map", "reduce"], "work": [50.0, 50.0, 5.0],
                          "memory": [512.0, 512.0, 2048.0]})
    wl = sl.Workload.from_frames(jobs, tasks)
    sched = sl.schedulers.get("capacity", map_memory_mb=1024, reduce_memory_mb=1024, max_map_memory_mb=4096,
                              max_reduce_memory_mb=4096)
    cluster = sl.Cluster(nodes=3, map_slots=2, reduce_slots=[1, 1, 2])
    with pytest.raises(RuntimeError, match="simulation made no progress: 0 map and 1 reduce tasks"):
        sl.simulate(cluster, wl, sched, faults="crash:2:1:inf", detection_delay=30.0, stall_limit=600.0)
    # back after a while, the node runs it
    r = sl.simulate(cluster, wl, sched, faults="crash:2:1:200", detection_delay=30.0, stall_limit=600.0)
    assert r.tasks.query("stage == 'reduce'")["node"].tolist() == [2]
