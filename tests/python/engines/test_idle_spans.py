"""Idle spans cost no events: when nothing runs, waits or is in flight until the next arrival,
the worker engine closes the windows of the span and the MapReduce engine writes the samples of
the span without going through the event queue (the MapReduce engine's heartbeats already stop
while the cluster is idle). The rows are those the events would have written: a run kept from
idling (a scheduler timer far in the future stays in the queue) gives the same rows and the same
schedule, with one event more per window or sample of the span."""
import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

import schedlab as sl
from schedlab.schedulers.base import FifoInPython
from schedlab.schedulers.sparrow import SparrowInPython

LATER = 2.0**31  # a job submitted 68 years after the first


class _KeptBusy:
    """A timer beyond the end of the run keeps the event queue from holding only the next
    arrival, so the engines step through the idle span event by event, as before."""

    def init(self, sim):
        super().init(sim)
        sim.set_timer(1e15, 0)

    def on_timer(self, sim, tag):
        pass


class SparrowKeptBusy(_KeptBusy, SparrowInPython):
    name = "sparrow_kept_busy"


class FifoKeptBusy(_KeptBusy, FifoInPython):
    name = "fifo_kept_busy"


def _worker_workload():
    jobs = pd.DataFrame({"job_id": [0, 1, 2], "submit_time": [0.0, 5000.0, LATER]})
    tasks = pd.DataFrame({"job_id": [0, 0, 1, 2, 2], "work": [10.0, 300.0, 20.0, 5.0, 7.0]})
    return sl.Workload.from_frames(jobs, tasks)


def test_worker_job_at_2_31_s_costs_no_idle_events():
    cluster = sl.engines.worker.cluster(4)
    for sched in ("sparrow", "hawk", "eagle", "dice"):
        r = sl.simulate(cluster, _worker_workload(), sched, window=3600.0, short_partition=0.25)
        assert r.events < 100, sched  # before: one event per window, ~600,000
        assert r.jobs["finish_time"].notna().all()
        w = r.series["windows"]
        assert len(w) == int(LATER // 3600)  # the run ends with the last job, inside its window
        assert r.counters["idle_windows"] == len(w) - 2  # all but the windows at 3600 and 7200 s
        idle = w[(w["time"] > 7200) & (w["time"] < LATER)]
        assert (idle["utilization"] == 0).all() and (idle["short_tasks_started"] == 0).all()


def test_worker_idle_windows_give_the_rows_and_schedule_of_event_by_event_windows():
    cluster = sl.engines.worker.cluster(4)
    fast = sl.simulate(cluster, _worker_workload(), SparrowInPython(), window=3600.0, seed=3)
    slow = sl.simulate(cluster, _worker_workload(), SparrowKeptBusy(), window=3600.0, seed=3)
    assert "idle_windows" not in slow.counters
    assert slow.events - fast.events == fast.counters["idle_windows"] > 500_000
    pdt.assert_frame_equal(fast.series["windows"], slow.series["windows"])
    pdt.assert_frame_equal(fast.tasks, slow.tasks)
    pdt.assert_frame_equal(fast.jobs, slow.jobs)


def test_mapreduce_idle_samples_give_the_rows_of_event_by_event_samples():
    jobs = pd.DataFrame({"job_id": [0, 1, 2], "submit_time": [0.0, 1000.0, 1e7]})
    tasks = pd.DataFrame({"job_id": [0, 0, 0, 1, 2, 2], "stage": ["map", "map", "reduce", "map", "map", "reduce"],
                          "work": [10.0, 12.0, 3.0, 40.0, 5.0, 2.0]})
    wl = sl.Workload.from_frames(jobs, tasks)
    cluster = sl.Cluster(nodes=3, map_slots=2, reduce_slots=1)
    fast = sl.simulate(cluster, wl, FifoInPython(), sample_interval=7.0)
    slow = sl.simulate(cluster, wl, FifoKeptBusy(), sample_interval=7.0)
    assert fast.events < 1000 and fast.counters["idle_samples"] > 1e6
    assert slow.events - fast.events == fast.counters["idle_samples"]
    pdt.assert_frame_equal(fast.series["slots"], slow.series["slots"])
    pdt.assert_frame_equal(fast.tasks, slow.tasks)
    pdt.assert_frame_equal(fast.jobs, slow.jobs)
    s = fast.series["slots"]
    assert np.array_equal(s["time"].to_numpy(), np.arange(len(s)) * 7.0)
    # the built-in fifo gives the same schedule and samples
    native = sl.simulate(cluster, wl, "fifo", sample_interval=7.0)
    pdt.assert_frame_equal(native.series["slots"], s)


def test_worker_run_that_can_never_finish_is_refused_not_windowed_forever():
    # three tasks, one probe (probe_ratio 0.5 x 3, min_probes 1): two tasks are never launched.
    # Before, the windows went on forever with nothing else left to happen (memory grew until
    # the process was killed); found by fuzzing the schedulers written in Python
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0, 0, 0], "work": [5.0, 5.0, 5.0]})
    wl = sl.Workload.from_frames(jobs, tasks)
    for sched in (SparrowInPython(probe_ratio=0.5, min_probes=1), sl.schedulers.get("sparrow", probe_ratio=0.5,
                                                                                     min_probes=1)):
        try:
            r = sl.simulate(sl.engines.worker.cluster(4), wl, sched)
        except ValueError as e:
            assert "1 jobs can never finish" in str(e) and "probe_ratio" in str(e)
        else:  # a scheduler that binds every task late finishes
            assert r.jobs["finish_time"].notna().all()


def test_worker_run_that_can_never_finish_without_windows_is_refused():
    # with window = 0 no window event keeps the queue going: the queue runs dry with tasks never
    # launched. Before, the run ended silently with NaN finish times
    jobs = pd.DataFrame({"job_id": [0], "submit_time": [0.0]})
    tasks = pd.DataFrame({"job_id": [0, 0, 0], "work": [5.0, 5.0, 5.0]})
    wl = sl.Workload.from_frames(jobs, tasks)
    sched = sl.schedulers.get("sparrow", probe_ratio=0.5, min_probes=1)
    with pytest.raises(ValueError, match=r"worker engine: 1 jobs can never finish: at t=5\.0015\d* s no task runs"):
        sl.simulate(sl.engines.worker.cluster(4), wl, sched, window=0)
    # a time limit is another matter: the run stops there, unfinished jobs get NaN
    r = sl.simulate(sl.engines.worker.cluster(4), wl, sched, window=0, time_limit=3.0)
    assert r.jobs["finish_time"].isna().all()


def _share_workload():
    jobs = pd.DataFrame({"job_id": [0, 1, 2, 3], "submit_time": [0.0, 3.0, 5000.0, 2.0**20],
                         "user": ["a", "b", "a", "b"]})
    tasks = pd.DataFrame({"job_id": [0, 0, 1, 1, 2, 3, 3], "work": [10.0, 300.0, 20.0, 7.5, 5.0, 7.0, 1.0],
                          "vcores": [1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 2.0]})
    return sl.Workload.from_frames(jobs, tasks)


@pytest.mark.parametrize("sched", ["drf", "tsf", "eunomia", "choosy", "drfh", "drf_in_python"])
def test_share_idle_samples_give_the_rows_of_event_by_event_samples(sched):
    # the share engine samples (sample_interval) through an idle gap of 2^20 s without events:
    # before, 1,497,987 events, one per sample; the rows and schedule are those the events wrote
    # (compared with the event-by-event engine when this was written; pinned here by their values)
    cluster, wl = sl.Cluster(3, vcores=4), _share_workload()
    r = sl.simulate(cluster, wl, sched, sample_interval=0.7, seed=1)
    idle = r.counters["idle_samples"]
    d = r.series["dispersion"]
    assert r.events < 1000 and idle > 1.4e6
    # one event per sample not in an idle span, plus the final sample written at the end
    plain = sl.simulate(cluster, wl, sched, sample_interval=0, seed=1)
    assert r.events == plain.events + len(d) - idle - 1
    pdt.assert_frame_equal(r.tasks, plain.tasks)
    pdt.assert_frame_equal(r.jobs, plain.jobs)
    # the sample times are the repeated additions the events made; the idle rows are empty
    t = d["time"].to_numpy()
    assert t[0] == 0.0 and np.array_equal(t[1:-1], t[:-2] + 0.7)
    gaps = (t > 400) & (t < 5000) | (t > 5006) & (t < 2.0**20)
    assert (d.loc[gaps, "backlogged_users"] == 0).all() and d.loc[gaps].drop(columns=["time", "backlogged_users"]).isna().all().all()
    st = r.series["shares"]["time"]
    assert ((st < 400) | (st >= 5000) & (st <= 5006) | (st >= 2.0**20)).all()  # no user active in the gaps


def _spark_workload():
    jobs = pd.DataFrame({"job_id": [0, 1, 2, 3], "submit_time": [0.0, 3.0, 5000.0, 2.0**17]})
    tasks = pd.DataFrame({"job_id": [0, 0, 1, 1, 2, 2, 2, 3, 3], "work": [10.0, 300.0, 20.0, 7.5, 5.0, 1, 2, 7.0, 1.0]})
    return sl.Workload.from_frames(jobs, tasks)


@pytest.mark.parametrize("options", [{}, {"min_executors": 2}, {"executor_idle_timeout": 1e6}, {"executor_start_time": 2.0},
                                     {"speculation": True}, {"speculation": True, "min_executors": 2}])
def test_spark_dynamic_allocation_skips_the_ticks_of_idle_spans(options):
    # dynamic allocation ticks every allocation_interval (0.1 s) through idle gaps: before,
    # 1.31 M events for this 2^17-s workload (11.3 M with executors idle for 1e6 s after the
    # end); the ticks that change nothing are skipped, the jobs, tasks and executors tables and
    # the end time are those of the run stepping through every tick (compared when this was
    # written over 20 configurations), pinned here by what must hold of them
    r = sl.simulate(sl.Cluster(4, slots=2), _spark_workload(), "spark_fifo", dynamic_allocation=True, seed=2, **options)
    skipped = r.counters["idle_allocation_ticks"]
    # (speculation ticks every 0.1 s while tasks run: 3,000 over the 300-s task)
    assert r.events < (7000 if options.get("speculation") else 5000) and skipped > 1e6  # speculation: 1.27 M before
    assert r.jobs["finish_time"].notna().all()
    ex = r.series["executors"]
    timeout = options.get("executor_idle_timeout", 60.0)
    floor = options.get("min_executors", 0)
    # an executor idle for executor_idle_timeout goes at the first tick after it, skipped ticks or not
    ends = r.tasks.groupby(r.tasks["job_id"].map({0: 0, 1: 0, 2: 1, 3: 2}))["finish"].max().to_numpy()
    for end, next_submit in zip(ends, [5000.0, 2.0**17, np.inf]):
        due = np.ceil(round((end + timeout) / 0.1, 6)) * 0.1
        gone = ex[(ex["time"] > end) & (ex["time"] < next_submit) & (ex["executors"] == floor)]
        if floor or due >= next_submit:  # none goes (minExecutors), or the next job comes first
            assert gone.empty, (end, ex)
        else:
            assert len(gone) and gone["time"].iloc[0] == pytest.approx(due), (end, ex)
    # the end time is the tick of the last removal (or the last job's end): never a skipped tick
    assert r.end_time == pytest.approx(max(ex["time"].max(), r.jobs["finish_time"].max()))


def test_spark_backlog_timer_is_cleared_when_no_stage_is_left():
    # ExecutorAllocationListener.onStageCompleted: with no submitted stage left, the backlog timer
    # is cleared (onSchedulerQueueEmpty). Here the second task of job 0 becomes speculatable at
    # about 1.6 s (its copy has no executor: max one, busy with the original), which sets the
    # timer; the original ends at 10 s and the copy is not needed. Before, the timer stayed set:
    # renewed every second through the idle span (10,186 events, every allocation tick), it
    # requested job 1's executor at 1000.6 s, before job 1's own backlog timeout
    jobs = pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1000.05], "dag": [0, 1]})
    tasks = pd.DataFrame({"job_id": [0, 0, 1], "work": [1.0, 10.0, 3.0]})
    r = sl.simulate(sl.Cluster(1, slots=2), sl.Workload.from_frames(jobs, tasks), "spark_fifo", dynamic_allocation=True,
                    speculation=True, initial_executors=1, seed=0)
    assert r.events < 400 and r.counters["idle_allocation_ticks"] > 10000
    assert r.counters["speculative_launched"] == 0
    # job 1: submitted at 1000.05 s, backlogged 1 s (scheduler_backlog_timeout), the executor
    # requested at the next allocation tick (1001.1 s) registers at once and runs the task
    assert r.tasks["start"].tolist() == pytest.approx([0.0, 0.0, 1001.1])
    ex = r.series["executors"]
    assert ex["time"].tolist() == pytest.approx([0.0, 10.0, 70.0, 1001.1, 1001.1, 1004.1, 1064.1])


@pytest.mark.parametrize("options", [{"dynamic_allocation": True, "allocation_interval": 0.05},
                                     {"speculation": True}, {"speculation": True, "speculation_interval": 0.05},
                                     {"revive_interval": 0.05, "locality_wait": 0.0}])
def test_spark_timers_past_2_20_seconds_move_on(options):
    # past about 2^20 s, now / interval rounded below the index of the tick firing: the next tick
    # came out at the same time and the run ticked there forever (a job at 2^21 s never ended)
    for later in (2.0**20 + 3.3, 2.0**21 + 0.7, 1e9):
        jobs = pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, later]})
        tasks = pd.DataFrame({"job_id": [0, 0, 1, 1, 1], "work": [10.0, 30.0, 20.0, 7.5, 5.0]})
        r = sl.simulate(sl.Cluster(2, slots=1), sl.Workload.from_frames(jobs, tasks), "spark_fifo", seed=2,
                        max_events=1e5, **options)
        assert r.jobs["finish_time"].notna().all() and r.events < 5000, (later, r.events)
        assert r.jobs["finish_time"].iloc[1] == pytest.approx(later + 20.0, abs=1.0)


def test_spark_time_limit_inside_an_idle_span_ends_on_its_last_tick():
    for limit in (70000.0, 70000.05):
        r = sl.simulate(sl.Cluster(4, slots=2), _spark_workload(), "spark_fifo", dynamic_allocation=True,
                        time_limit=limit)
        assert r.end_time == 70000.0 and r.events < 5000
        assert r.jobs["finish_time"].isna().sum() == 1
