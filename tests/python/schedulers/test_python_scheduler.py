"""Schedulers written in Python (schedlab.Scheduler over the MapReduce engine's trampoline)."""
import pandas as pd
import pytest

import schedlab as sl
from schedlab.schedulers.base import FifoInPython

from conftest import assert_slot_invariants


def _workloads():
    yield sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=1), sl.synthetic.generate(jobs=25, rate=0.05, seed=3)
    yield sl.Cluster(nodes=4, racks=1, map_slots=1, reduce_slots=1), sl.synthetic.generate(
        jobs=15, rate=0.02, seed=8, maps=("randint", 1, 12), reduces=("randint", 0, 2))
    yield sl.Cluster(nodes=5, racks=1, map_slots=3, reduce_slots=2, speeds=[1, 1, 2, 0.5, 1]), sl.datasets.load("demo_mix")


@pytest.mark.parametrize("case", range(3))
def test_python_fifo_reproduces_builtin_fifo_exactly(case):
    cluster, workload = list(_workloads())[case]
    ref = sl.simulate(cluster, workload, "fifo", seed=4)
    mine = sl.simulate(cluster, workload, FifoInPython(), seed=4)
    assert len(ref.tasks) > 0
    pd.testing.assert_frame_equal(mine.tasks, ref.tasks)
    pd.testing.assert_frame_equal(mine.jobs, ref.jobs)
    # (the built-in lets nodes sleep through heartbeats that change nothing; the Python one keeps them)
    assert mine.events >= ref.events
    assert_slot_invariants(mine)


def test_a_different_python_policy_gives_a_different_schedule():
    # guards the test above against comparing a run with itself
    class LastJobFirst(FifoInPython):
        def on_job_submitted(self, sim, job):
            self.queue.insert(0, job)

    cluster, workload = next(_workloads())
    a = sl.simulate(cluster, workload, FifoInPython(), seed=4)
    b = sl.simulate(cluster, workload, LastJobFirst(), seed=4)
    assert not a.tasks[["task_id", "node", "start"]].equals(b.tasks[["task_id", "node", "start"]])
    assert_slot_invariants(b)


class GreedyHandChecked(sl.Scheduler):
    """Fills every free slot with the lowest pending task of the oldest job, reduces only after
    all maps of their job are done; counts its callbacks."""

    def init(self, sim):
        self.calls = {"submitted": 0, "attempt": 0, "stage": 0, "job": 0, "timer": 0}
        sim.set_timer(5.5, 42)

    def on_job_submitted(self, sim, job):
        self.calls["submitted"] += 1

    def on_attempt_finished(self, sim, attempt):
        a = sim.attempt(attempt)
        assert a.finish == sim.now() and a.status == 1
        self.calls["attempt"] += 1

    def on_stage_finished(self, sim, job, stage):
        self.calls["stage"] += 1

    def on_job_finished(self, sim, job):
        assert sim.job(job).finish == sim.now()
        self.calls["job"] += 1

    def on_timer(self, sim, tag):
        assert tag == 42 and sim.now() == 5.5
        self.calls["timer"] += 1

    def on_heartbeat(self, sim, node):
        for j in sim.active_jobs():
            while sim.free_slots(node, sl.MAP) > 0 and (t := sim.find_map(j, node)) >= 0:
                sim.launch(t, node)
            n_maps = int(self.job_columns["n_maps"][j])
            if sim.done(j, sl.MAP) == n_maps:
                while sim.free_slots(node, sl.REDUCE) > 0 and (t := sim.find_reduce(j)) >= 0:
                    sim.launch(t, node)

    def finish(self, sim):
        return {f"calls_{k}": float(v) for k, v in self.calls.items()}


def test_hand_checked_schedule_and_callbacks():
    # one node, one map and one reduce slot, heartbeat every 1 s, no locality effects
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    jobs = pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.5]})
    tasks = pd.DataFrame({"job_id": [0, 0, 0, 1, 1], "stage": [0, 0, 1, 0, 1],
                          "work": [2.0, 3.0, 4.0, 1.0, 2.0]})
    wl = sl.Workload.from_frames(jobs, tasks)
    r = sl.simulate(cluster, wl, GreedyHandChecked(), seed=0)
    t = r.tasks.set_index("task_id")
    # job 0: map0 0-2, map1 2-5 (heartbeat at 2), reduce 5-9; job 1 (arrives 1.5): map 5-6, reduce 9-11
    assert t.loc[[0, 1, 2, 3, 4], "start"].tolist() == [0.0, 2.0, 5.0, 5.0, 9.0]
    assert t.loc[[0, 1, 2, 3, 4], "finish"].tolist() == [2.0, 5.0, 9.0, 6.0, 11.0]
    assert r.jobs["finish_time"].tolist() == [9.0, 11.0]
    assert r.counters["calls_submitted"] == 2
    assert r.counters["calls_attempt"] == 5
    assert r.counters["calls_stage"] == 4
    assert r.counters["calls_job"] == 2
    assert r.counters["calls_timer"] == 1
    assert_slot_invariants(r)


def test_python_scheduler_is_deterministic_and_reusable():
    cluster, workload = next(_workloads())
    s = FifoInPython()
    a = sl.simulate(cluster, workload, s, seed=11)
    b = sl.simulate(cluster, workload, s, seed=11)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)


def test_measure_overhead_reports_scheduler_time():
    cluster, workload = next(_workloads())
    for sched in ("fifo", FifoInPython()):
        r = sl.simulate(cluster, workload, sched, seed=1, measure_overhead=True)
        assert r.counters["scheduler_seconds"] > 0
        assert r.counters["scheduler_calls"] >= r.counters["heartbeats"]
        r0 = sl.simulate(cluster, workload, sched, seed=1)
        assert "scheduler_seconds" not in r0.counters


def test_bad_actions_raise_value_error():
    cluster = sl.Cluster(nodes=2, map_slots=1, reduce_slots=1)
    wl = sl.synthetic.generate(jobs=3, seed=1, maps=2, reduces=1)

    class DoubleLaunch(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            t = sim.find_map(sim.active_jobs()[0], node)
            sim.launch(t, node)
            sim.launch(t, node)

    with pytest.raises(ValueError, match="already running"):
        sl.simulate(cluster, wl, DoubleLaunch())

    class NoRoom(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            j = sim.active_jobs()[0]
            sim.launch(sim.find_map(j, node), node)
            sim.launch(sim.find_map(j, node), node)

    with pytest.raises(ValueError, match="no free slot"):
        sl.simulate(cluster, wl, NoRoom())

    class BadIds(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            sim.find_map(10**6, node)

    with pytest.raises(ValueError, match="no job 1000000"):
        sl.simulate(cluster, wl, BadIds())

    class BadNode(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            sim.free_slots(7, sl.MAP)

    with pytest.raises(ValueError, match="no node 7"):
        sl.simulate(cluster, wl, BadNode())


def test_errors_in_callbacks_propagate_and_handles_expire():
    cluster = sl.Cluster(nodes=2, map_slots=1, reduce_slots=1)
    wl = sl.synthetic.generate(jobs=3, seed=1)

    class Boom(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        sl.simulate(cluster, wl, Boom())

    class Keeps(FifoInPython):
        def init(self, sim):
            super().init(sim)
            self.sim = sim

    s = Keeps()
    sl.simulate(cluster, wl, s)
    with pytest.raises(RuntimeError, match="simulation has ended"):
        s.sim.now()

    class NoHeartbeat(sl.Scheduler):
        pass

    with pytest.raises(ValueError, match="on_heartbeat"):
        sl.simulate(cluster, wl, NoHeartbeat())
    with pytest.raises(ValueError, match="unknown parameter"):
        sl.simulate(cluster, wl, FifoInPython(), bogus_option=1)


def test_python_scheduler_parameters_are_checked():
    class WithParams(FifoInPython):
        name = "with_params"
        param_specs = [{"name": "alpha", "type": "number", "default": 0.5, "min": 0, "max": 1, "doc": "a weight"}]

    assert WithParams().params == {"alpha": 0.5}
    assert WithParams(alpha=0.2).label == "with_params(alpha=0.2)"
    with pytest.raises(ValueError, match="outside"):
        WithParams(alpha=2)
    with pytest.raises(ValueError, match="unknown parameter"):
        WithParams(beta=1)


def test_summary_reports_deadline_metrics_and_overhead():
    cluster = sl.Cluster(nodes=3, map_slots=1, reduce_slots=1)
    wl = sl.synthetic.generate(jobs=12, rate=0.1, seed=2, deadline_factor=("uniform", 1, 3))
    r = sl.simulate(cluster, wl, "edf", seed=0, measure_overhead=True)
    s = r.summary()
    jobs = r.jobs
    late = jobs["finish_time"] > jobs["deadline"]
    assert s["late_jobs"] == late.sum()
    assert s["late_fraction"] == pytest.approx(late.mean())
    assert s["mean_tardiness"] == pytest.approx((jobs["finish_time"] - jobs["deadline"]).clip(lower=0).mean())
    assert s["overhead_per_job"] == pytest.approx(r.counters["scheduler_seconds"] / 12)
    assert s["overhead_fraction"] == pytest.approx(s["overhead_per_job"] / s["mean_completion_time"])
    assert "overhead_per_job" not in sl.simulate(cluster, wl, "edf", seed=0).summary()


class NeverLaunches(sl.Scheduler):
    """A scheduler that never acts: tasks stay pending forever."""

    def on_heartbeat(self, sim, node):
        pass


def test_a_scheduler_that_never_launches_fails_clearly_instead_of_running_forever():
    cluster, workload = next(_workloads())
    with pytest.raises(RuntimeError, match=r"no progress.*stall_limit") as info:
        sl.simulate(cluster, workload, NeverLaunches(), seed=1, stall_limit=600)
    first_submit = workload.jobs["submit_time"].min()
    assert f"t={first_submit:.6f}" in str(info.value)  # names when the stall began
    # with the guard off, a time limit still ends the run, with every job unfinished
    r = sl.simulate(cluster, workload, NeverLaunches(), seed=1, stall_limit=0, time_limit=5000)
    assert r.jobs["finish_time"].isna().all() and len(r.tasks) == 0


def test_the_stall_guard_counts_only_time_with_nothing_running():
    # fifo on a busy cluster keeps tasks pending for long stretches while others run: no error
    cluster = sl.Cluster(nodes=1, racks=1, map_slots=1, reduce_slots=1)
    workload = sl.synthetic.generate(jobs=30, rate=1.0, seed=2, maps=("randint", 5, 10))
    r = sl.simulate(cluster, workload, "fifo", seed=1, stall_limit=1)
    assert r.jobs["finish_time"].notna().all() and r.end_time > 100


class ReducesFirst(sl.Scheduler):
    """Fills pooled slots with reduces before any map: reduces waiting in their copy phase for
    maps that can no longer get a slot (the deadlock slowstart exists to avoid)."""
    slot_model = "pooled"

    def on_heartbeat(self, sim, node):
        for stage, find in ((sl.REDUCE, sim.find_reduce), (sl.MAP, lambda j: sim.find_map(j, node, sl.ANY))):
            for job in sim.active_jobs():
                while sim.free_slots(node, stage) > 0:
                    task = find(job)
                    if task < 0:
                        break
                    sim.launch(task, node)


def test_reduces_holding_every_slot_for_maps_that_cannot_start_fail_clearly():
    cluster = sl.Cluster(nodes=1, racks=1, map_slots=1, reduce_slots=1)  # a pool of 2 slots
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0, 0, 0], "stage": ["map", "reduce", "reduce"], "work": [5.0, 3.0, 3.0]})
    workload = sl.Workload.from_frames(jobs, tasks)
    with pytest.raises(RuntimeError, match=r"no progress.*2 reduce attempts hold slots waiting for maps.*stall_limit"):
        sl.simulate(cluster, workload, ReducesFirst(), seed=1, slowstart=0.0, stall_limit=600)
    # with room for the map as well, the same scheduler finishes: map 0-5, reduces copy until 5, then 3 s
    r = sl.simulate(sl.Cluster(nodes=1, racks=1, map_slots=2, reduce_slots=1), workload, ReducesFirst(), seed=1, slowstart=0.0,
                    stall_limit=600, heartbeat_interval=1.0)
    assert r.jobs["finish_time"].iloc[0] == pytest.approx(8.0)
