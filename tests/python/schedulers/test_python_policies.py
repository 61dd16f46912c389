"""Schedulers written in Python on the worker engine (schedlab.schedulers.WorkerScheduler) and the
share engine (schedlab.schedulers.SharePolicy): the Python rewrites of sparrow and drf give the
built-ins' schedules exactly, other policies change them, and bad decisions fail cleanly."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab.papers import zhou2019
from schedlab.schedulers import DrfInPython, SharePolicy, SparrowInPython, WorkerScheduler


def worker_workload(seed, n=60):
    """Short jobs with a fifth of long ones (exponential task durations, 1-24 tasks)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 25, n)
    long_job = rng.random(n) < 0.2
    jobs = pd.DataFrame({"job_id": np.arange(n), "submit_time": np.sort(rng.uniform(0, 150, n))})
    work = np.concatenate([rng.exponential(200.0 if lj else 10.0, c) for lj, c in zip(long_job, counts)])
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(n), counts), "work": work})
    return sl.Workload.from_frames(jobs, tasks)


def check_worker_invariants(r):
    tasks = r.tasks
    ok = tasks[tasks["status"] == "succeeded"]["task_id"].value_counts()
    assert len(ok) == r.workload.n_tasks and (ok == 1).all(), "a task did not succeed exactly once"
    for _, g in tasks.groupby(["node", "slot"]):
        s, f = np.sort(g["start"].to_numpy()), np.sort(g["finish"].to_numpy())
        assert (s[1:] >= f[:-1] - 1e-9).all(), "a worker ran two tasks at once"
    assert r.jobs["finish_time"].notna().all()


CASES = [
    (20, 1, {}, {}),
    (30, 2, {"probe_ratio": 1.5, "min_probes": 3, "min_probes_long": 5}, {"cutoff": 60.0}),
    (12, 3, {}, {"network_delay": 0.01, "truncate": False}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_python_sparrow_reproduces_builtin_sparrow_exactly(case):
    nodes, seed, params, options = CASES[case]
    cluster, workload = sl.engines.worker.cluster(nodes), worker_workload(seed)
    ref = sl.simulate(cluster, workload, sl.schedulers.get("sparrow", **params), seed=seed, **options)
    mine = sl.simulate(cluster, workload, SparrowInPython(**params), seed=seed, **options)
    assert len(ref.tasks) == workload.n_tasks
    pd.testing.assert_frame_equal(mine.tasks, ref.tasks)
    pd.testing.assert_frame_equal(mine.jobs, ref.jobs)
    assert mine.events == ref.events
    check_worker_invariants(mine)
    # and by name, through the catalogue
    by_name = sl.simulate(cluster, workload, "sparrow_in_python", seed=seed, **options)
    assert by_name.scheduler.engine == "worker"


class ShortestJobFirstQueues(SparrowInPython):
    """Sparrow's probing with each worker serving the probe of the job with the fewest unlaunched
    tasks, and idle workers stealing the tail probe of a random worker's queue."""

    name = "sjf_queues_test"

    def init(self, sim):
        super().init(sim)
        self.steals = 0

    def pick_probe(self, sim, worker, short_only):
        best, best_left = -1, None
        for p in sim.queue(worker):
            if short_only and sim.probe_is_long(p):
                continue
            left = sim.pending(sim.probe_job(p))
            if best_left is None or left < best_left:
                best, best_left = p, left
        return best

    def on_idle(self, sim, worker):
        victim = sim.below(sim.n_workers)
        queue = sim.queue(victim)
        if victim != worker and len(queue) > 1:
            sim.move_probe(victim, worker, queue[-1])
            self.steals += 1
            sim.kick(worker)

    def finish(self, sim):
        return {"test_steals": self.steals}


def test_other_queue_disciplines_and_stealing_change_the_schedule():
    cluster, workload = sl.engines.worker.cluster(10), worker_workload(5, n=80)
    a = sl.simulate(cluster, workload, SparrowInPython(), seed=1)
    b = sl.simulate(cluster, workload, ShortestJobFirstQueues(), seed=1)
    check_worker_invariants(b)
    assert b.counters["test_steals"] > 0
    assert not a.tasks[["task_id", "node", "start"]].equals(b.tasks[["task_id", "node", "start"]])
    # deterministic
    c = sl.simulate(cluster, workload, ShortestJobFirstQueues(), seed=1)
    pd.testing.assert_frame_equal(b.tasks, c.tasks)


class CentralLeastLoaded(WorkerScheduler):
    """Central placement: one probe per task, each to the worker with the shortest queue."""

    def on_job_arrival(self, sim, job):
        loads = [sim.queue_length(w) + sim.busy(w) for w in range(sim.n_workers)]
        targets = []
        for _ in range(sim.n_tasks_of(job)):
            w = int(np.argmin(loads))
            targets.append(w)
            loads[w] += 1
        sim.send_probes(job, targets)


def test_central_placement_and_late_binding_choices():
    cluster, workload = sl.engines.worker.cluster(6), worker_workload(2, n=30)
    r = sl.simulate(cluster, workload, CentralLeastLoaded(), seed=0, measure_overhead=True)
    check_worker_invariants(r)
    assert r.counters["scheduler_calls"] == 30  # one on_job_arrival per job; defaults not called
    assert r.summary()["overhead_per_job"] > 0

    class LastTaskFirst(CentralLeastLoaded):
        def choose_task(self, sim, worker, job):
            b, n = sim.task_begin(job), sim.n_tasks_of(job)
            for t in range(b + n - 1, b - 1, -1):
                if sim.task_state(t) == 0:
                    return t
            return -1

    s = sl.simulate(cluster, workload, LastTaskFirst(), seed=0)
    check_worker_invariants(s)
    first = s.tasks.sort_values(["start", "task_id"]).groupby("job_id")["task_id"].first()
    last = s.workload.tasks.groupby("job_id")["task_id"].last()
    assert (first == last.loc[first.index]).mean() > 0.9


def test_bad_worker_decisions_raise_value_errors():
    cluster, workload = sl.engines.worker.cluster(4), worker_workload(1, n=10)

    class NoArrival(WorkerScheduler):
        pass

    with pytest.raises(ValueError, match="on_job_arrival"):
        sl.simulate(cluster, workload, NoArrival(), seed=0)

    class BadTarget(WorkerScheduler):
        def on_job_arrival(self, sim, job):
            sim.send_probes(job, [sim.n_workers])

    with pytest.raises(ValueError, match="no worker"):
        sl.simulate(cluster, workload, BadTarget(), seed=0)

    class BadPick(SparrowInPython):
        def pick_probe(self, sim, worker, short_only):
            return 10**6

    with pytest.raises(ValueError, match="not queued"):
        sl.simulate(cluster, workload, BadPick(), seed=0)

    class WrongJob(SparrowInPython):
        def choose_task(self, sim, worker, job):
            return sim.task_begin((job + 1) % sim.n_jobs)

    with pytest.raises(ValueError, match="not a task of job"):
        sl.simulate(cluster, workload, WrongJob(), seed=0)
    with pytest.raises(ValueError, match="option"):
        sl.simulate(cluster, workload, SparrowInPython(), seed=0, heartbeat_interval=3)


def test_python_drf_reproduces_builtin_drf_exactly():
    for seed in (1, 2):
        cluster, workload = zhou2019.micro_cluster(), zhou2019.micro2_workload(seed=seed, tasks_per_job=20)
        opts = {"performance": zhou2019.MICRO_PERFORMANCE_OPTION}
        ref = sl.simulate(cluster, workload, "drf", seed=seed, **opts)
        mine = sl.simulate(cluster, workload, DrfInPython(), seed=seed, **opts)
        assert len(ref.tasks) == workload.n_tasks
        pd.testing.assert_frame_equal(mine.tasks, ref.tasks)
        pd.testing.assert_frame_equal(mine.jobs, ref.jobs)
    cluster, attrs = zhou2019.macro_cluster(seed=1, nodes=20)
    workload = zhou2019.macro_workload(cluster, attrs, seed=1, jobs=80, span=300.0, trace=None)  # constraints
    opts = {"performance": zhou2019.MACRO_PERFORMANCE_OPTION}
    ref = sl.simulate(cluster, workload, "drf", seed=0, **opts)
    mine = sl.simulate(cluster, workload, DrfInPython(), seed=0, **opts)
    pd.testing.assert_frame_equal(mine.tasks, ref.tasks)
    pd.testing.assert_frame_equal(mine.jobs, ref.jobs)


def test_share_policy_placement_weights_and_errors():
    cluster = sl.Cluster(nodes=1, vcores=20, memory=12)
    jobs = pd.DataFrame({"job_id": ["A", "B"], "submit_time": [0, 0], "user": ["A", "B"]})
    tasks = pd.DataFrame({"job_id": ["A"] * 10 + ["B"] * 10, "work": 10.0,
                          "vcores": [1.0] * 10 + [2.0] * 10, "memory": [3.0] * 10 + [1.0] * 10})
    workload = sl.Workload.from_frames(jobs, tasks)
    # hand-checked DRF: A ends with 2 tasks (6/12), B with 6 (12/20)
    r = sl.simulate(cluster, workload, DrfInPython(), seed=0)
    first = r.tasks[r.tasks["start"] == 0]["job_id"].value_counts().to_dict()
    assert first == {"A": 2, "B": 6}

    class Weighted(DrfInPython):
        weights = {1: 0.25}  # user B counts four times its share

    w = sl.simulate(cluster, workload, Weighted(), seed=0)
    ref = sl.simulate(cluster, workload, sl.schedulers.get("drf", weights="1:0.25"), seed=0)
    pd.testing.assert_frame_equal(w.tasks, ref.tasks)

    class MostFirst(SharePolicy):  # the opposite of fairness: the largest allocation first
        def share(self, sim, user):
            return -sim.running(user)

    m = sl.simulate(cluster, workload, MostFirst(), seed=0, measure_overhead=True)
    assert m.tasks[m.tasks["start"] == 0]["job_id"].value_counts().max() >= 4
    assert m.counters["scheduler_calls"] > 0

    class NoShare(SharePolicy):
        pass

    with pytest.raises(ValueError, match="share"):
        sl.simulate(cluster, workload, NoShare(), seed=0)

    class BadUser(DrfInPython):
        weights = {5: 1.0}

    with pytest.raises(ValueError, match="no user"):
        sl.simulate(cluster, workload, BadUser(), seed=0)


def test_one_base_family():
    for cls in (sl.Scheduler, WorkerScheduler, SharePolicy):
        assert issubclass(cls, sl.schedulers.Policy)
    assert {SparrowInPython.engine, DrfInPython.engine, sl.schedulers.FifoInPython.engine} == {"worker", "share", "mapreduce"}
    av = sl.schedulers.available().set_index("name")
    assert {"sparrow_in_python", "drf_in_python"} <= set(av.index)


def test_builtin_worker_and_share_policies_measure_their_overhead():
    """measure_overhead on the worker and share engines times the C++ policy's callbacks (as the
    MapReduce engine does), without changing the schedule; the worker engine also counts per callback."""
    workload = worker_workload(3)
    cluster = sl.engines.worker.cluster(30)
    for name in ("sparrow", "eagle"):
        plain = sl.simulate(cluster, workload, name, seed=1)
        timed = sl.simulate(cluster, workload, name, seed=1, measure_overhead=True)
        pd.testing.assert_frame_equal(plain.tasks, timed.tasks)
        c = timed.counters
        assert c["scheduler_calls_on_job_arrival"] == workload.n_jobs
        assert c["scheduler_calls_choose_task"] == c["launches"] + c["noop_replies"]
        parts = [k for k in c if k.startswith("scheduler_calls_")]
        assert sum(c[k] for k in parts) == c["scheduler_calls"]
        assert 0 < c["scheduler_seconds_on_job_arrival"] <= c["scheduler_seconds"]
        assert timed.summary()["overhead_per_job"] > 0
        assert "scheduler_seconds" not in plain.counters
    cluster, workload = zhou2019.micro_cluster(), zhou2019.micro2_workload(seed=1, tasks_per_job=20)
    opts = {"performance": zhou2019.MICRO_PERFORMANCE_OPTION}
    plain = sl.simulate(cluster, workload, "drf", seed=1, **opts)
    timed = sl.simulate(cluster, workload, "drf", seed=1, measure_overhead=True, **opts)
    pd.testing.assert_frame_equal(plain.tasks, timed.tasks)
    python = sl.simulate(cluster, workload, DrfInPython(), seed=1, measure_overhead=True, **opts)
    # the same decisions: one share() call per user asked, plus init
    assert timed.counters["scheduler_calls"] == python.counters["scheduler_calls"]
    assert timed.counters["scheduler_seconds"] > 0
