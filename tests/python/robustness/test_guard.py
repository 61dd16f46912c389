"""The resource guard: runs and clusters out of reach are refused up front with one line naming
the estimate and the limit (a ResourceError, which is a ValueError), before they allocate."""
import pandas as pd
import pytest

import schedlab as sl
from schedlab.core import guard
from schedlab.core.guard import ResourceError


def workload(work=1.0, submit=0.0, n=3):
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, submit]})
    tasks = pd.DataFrame({"job_id": [1] * n + [2], "work": [1.0] * n + [work]})
    return sl.Workload.from_frames(jobs, tasks)


MR = sl.Cluster(10, map_slots=2, reduce_slots=1)
WORKERS = sl.engines.worker.cluster(10)


def test_resource_error_is_a_value_error():
    assert issubclass(ResourceError, ValueError)


def test_cluster_of_two_billion_nodes_is_refused_before_allocating():
    with pytest.raises(ResourceError, match=r"Cluster: 2000000000 nodes needs about .* GiB of memory, more than the .* limit"):
        sl.Cluster(2_000_000_000)
    with pytest.raises(ValueError, match=r"'nodes' must be at least 1 and at most 2\^31 - 1"):
        sl.Cluster(2**31)


def test_cli_nodes_two_billion_is_one_error_line(tmp_path, capsys):
    from schedlab.cli.main import main
    trace = tmp_path / "t.tr"
    trace.write_text("0 2 1 1 1\n")
    assert main(["run", "--trace", str(trace), "--scheduler", "fifo", "--nodes", "2000000000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs about" in err[0] and "limit" in err[0]


def test_slots_the_engines_cannot_count_are_refused(tmp_path, capsys):
    # before: 20 nodes x 1e9 map slots overflowed the engines' 32-bit counts and fifo stalled
    # with a RuntimeError after a simulated day
    with pytest.raises(ValueError, match=r"Cluster: 'map_slots' adds up to 20000000000 over the 20 nodes, more than "
                                         r"the engines can count \(2\^31 - 1\)"):
        sl.Cluster(20, map_slots=1_000_000_000)
    with pytest.raises(ValueError, match=r"'slots' must be whole numbers in \[-2\^31, 2\^31 - 1\]"):
        sl.Cluster(1, map_slots=2**31 - 1, reduce_slots=2)  # map + reduce per node, no int32 wrap
    from schedlab.cli.main import main
    trace = tmp_path / "t.tr"
    trace.write_text("0 2 1 1 1\n")
    assert main(["run", "--trace", str(trace), "--scheduler", "fifo", "--map-slots", "1000000000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'map_slots' adds up to" in err[0]
    # the worker engine keeps a worker per slot: counted in the memory estimate
    with pytest.raises(ResourceError, match=r"1e\+09 workers \(slots\).*needs about"):
        sl.simulate(sl.Cluster(1, slots=1_000_000_000), workload(), "sparrow", max_memory=2**30)


@pytest.mark.parametrize("cluster,wl,scheduler,options,expected", [
    # (tasks waiting for slots: the nodes heartbeat all the while)
    (MR, workload(n=100), "fifo", {"heartbeat_interval": 5e-324},
     r"inf heartbeats\) needs about inf events, more than the 1e\+10 limit"),
    (MR, workload(), "fifo", {"sample_interval": 5e-324}, r"inf samples\) needs about inf TiB of memory"),
    # (without the speculator the nodes sleep while nothing is pending: test_sleeping_heartbeats.py)
    (MR, workload(work=1e9), "fifo", {"speculation": "hadoop"},
     r"simulated span about 1\.\d+e\+09 s, .*heartbeats\) needs about .* events"),
    (WORKERS, workload(submit=1e308), "sparrow", {}, r"simulated span about 1e\+308 s"),
    (WORKERS, workload(work=1e308), "eagle", {}, r"simulated span about 1.1e\+308 s"),
    (MR, workload(submit=1e308), "drf", {"sample_interval": 1.0}, r"share engine.*1e\+308 samples"),
    (WORKERS, workload(n=20000), sl.schedulers.get("eagle", probe_ratio=1000), {"max_memory": 2**28},
     r"2e\+07 probes\) needs about"),
])
def test_runs_out_of_reach_are_refused(cluster, wl, scheduler, options, expected):
    with pytest.raises(ResourceError, match=expected):
        sl.simulate(cluster, wl, scheduler, **options)


def test_max_events_and_max_memory_options():
    wl = workload()
    with pytest.raises(ResourceError, match=r"needs about [\d.]+ events, more than the 5 limit \(max_events\)"):
        sl.simulate(MR, wl, "fifo", max_events=5)
    with pytest.raises(ResourceError, match=r"more than the 1000 bytes limit \(max_memory\)"):
        sl.simulate(MR, wl, "fifo", max_memory=1000)
    with pytest.raises(ValueError, match="max_events must be a positive number"):
        sl.simulate(MR, wl, "fifo", max_events=float("nan"))
    # within the limits the options change nothing
    a, b = sl.simulate(MR, wl, "fifo"), sl.simulate(MR, wl, "fifo", max_events=1e6, max_memory=2**30)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)


def test_estimate_counts_heartbeats_over_the_busy_time():
    e = guard.estimate(MR, workload(work=100.0), "mapreduce", {"heartbeat_interval": 0.5}, {})
    # span: last submission 0 + 103 s of work over 30 slots + the longest task (100 s)
    assert e["span"] == pytest.approx(100 + 103 / 30)
    # busy: job 1's longest task (1 s, more than its 3 s of work over 30 slots) + job 2's (100 s)
    assert e["busy"] == pytest.approx(101)
    assert e["heartbeats"] == pytest.approx(10 * 101 / 0.5)
    assert guard.estimate(MR, workload(work=100.0), "mapreduce", {"time_limit": 10.0}, {})["span"] == 10.0
    # the heartbeats stop while the cluster is idle: a job 68 years later adds its own busy time only
    late = guard.estimate(MR, workload(submit=2.0**31), "mapreduce", {"heartbeat_interval": 0.5}, {})
    assert late["span"] > 2**31 and late["busy"] == pytest.approx(2) and late["heartbeats"] == pytest.approx(40)
    sl.simulate(MR, workload(submit=2.0**31), "fifo", heartbeat_interval=0.5, max_events=1e4)


LATER = 2.0**31  # a job submitted 68 years after the first


@pytest.mark.parametrize("cluster,scheduler,options,rows", [
    (WORKERS, "sparrow", {}, r"3\.58e\+07 windows and samples"),              # window 60 s (the default)
    (MR, "fifo", {"sample_interval": 60.0}, r"3\.58e\+07 samples"),
    (sl.Cluster(4, vcores=4), "drf", {}, r"[24]\.\d+e\+09 samples"),          # sample_interval 1 s (the default)
    (MR, sl.schedulers.get("fresh_static", fairness_interval=60.0), {}, r"3\.58e\+07 samples"),
    (MR, sl.schedulers.get("omo", window=60.0), {}, r"3\.58e\+07 samples"),
])
def test_rows_of_idle_spans_are_counted(cluster, scheduler, options, rows):
    # the engines jump the idle gap without events, but write a row per window or sample of it:
    # before, a worker job at 2^31 s wrote 35.8 M rows (9 s, 1.7 GB) whatever the limit
    with pytest.raises(ResourceError, match=r"simulated span about 2\.15e\+09 s, .*" + rows + r".* needs about .* "
                                            r"of memory, more than the 1 GiB limit \(max_memory\)"):
        sl.simulate(cluster, workload(submit=LATER), scheduler, max_memory=2**30, **options)


def test_scheduler_timers_through_idle_gaps_are_counted():
    # yarn's ApplicationMaster heartbeat fires through idle gaps: 2^31 events at 1 s
    with pytest.raises(ResourceError, match=r"needs about 2\.1\de\+09 events, more than the 1e\+09 limit"):
        sl.simulate(MR, workload(submit=LATER), "yarn", max_events=1e9)
    e = guard.estimate(MR, workload(submit=1e6), "mapreduce", {}, {"am_heartbeat": 0.01})
    assert e["events"] > 1e8


def test_spark_attempts_of_failing_tasks_are_counted():
    # each attempt fails with probability 1 - 1e-6, up to max_failures times: before, 2.1e8 events
    # (9.5 s) on 120 tasks went unnoticed by the guard
    cluster = sl.Cluster(3, slots=2)
    with pytest.raises(ResourceError, match=r"2\.53e\+06 attempts\) needs about .* events, more than the 1e\+06 limit"):
        sl.simulate(cluster, workload(), "spark_fifo", max_failures=10**6, task_failure_probability=0.999999,
                    max_events=1e6)
    assert guard.estimate(cluster, workload(), "spark", {}, {})["attempts"] == 4


def test_spark_applications_waiting_for_cores_are_counted():
    # application b waits 1e5 s for the cores application a holds until its last job: b's revive
    # timer ticks all the while (100,010 events); the guard had estimated 33 events
    jobs = pd.DataFrame({"job_id": [0, 1, 2], "submit_time": [0.0, 10.0, 1e5], "application": ["a", "b", "a"]})
    wl = sl.Workload.from_frames(jobs, pd.DataFrame({"job_id": [0, 1, 2], "work": [5.0, 5.0, 5.0]}))
    cluster = sl.Cluster(2, slots=2)
    assert sl.simulate(cluster, wl, "spark_fifo").events == 100_010
    assert guard.estimate(cluster, wl, "spark", {}, {})["events"] >= 100_010
    with pytest.raises(ResourceError, match=r"needs about 2(\.\d+)?e\+05 events, more than the 1e\+05 limit"):
        sl.simulate(cluster, wl, "spark_fifo", max_events=1e5)


def test_heartbeats_while_a_crash_goes_unnoticed_are_counted():
    # a crashed node's tasks wait detection_delay for it to be noticed while every node heartbeats:
    # detection_delay 1e6 s with heartbeats every 0.01 s ran 3e8 events (266 s), unnoticed by the
    # guard (found by fuzzing the schedulers written in Python)
    crash = [sl.faults.Crash(node=1, at=0.5, restart_after=float("inf"))]
    with pytest.raises(ResourceError, match=r"needs about [1-9]\.?\d*e\+0[89] events"):
        sl.simulate(MR, workload(), "fifo", faults=crash, detection_delay=1e6, heartbeat_interval=0.01, max_events=1e8)
    # restarted sooner, it is noticed at its restart
    quick = guard.estimate(MR, workload(), "mapreduce", {"faults": "crash:1:0.5:5.0", "detection_delay": 1e6}, {})
    assert quick["busy"] < 100
    r = sl.simulate(MR, workload(), "fifo", faults=crash, detection_delay=5.0)
    assert r.jobs["finish_time"].notna().all()


def test_python_schedulers_are_guarded_too():
    with pytest.raises(ResourceError, match="heartbeats"):
        sl.simulate(MR, workload(), "mrcp", heartbeat_interval=1e-300)


def test_max_memory_from_the_environment(monkeypatch):
    # SCHEDLAB_MAX_MEMORY lowers the default limit (the fuzz harnesses use it), never raises it
    monkeypatch.setenv("SCHEDLAB_MAX_MEMORY", "1000")
    with pytest.raises(ResourceError, match=r"more than the 1000 bytes limit \(SCHEDLAB_MAX_MEMORY\)"):
        sl.simulate(MR, workload(), "fifo")
    assert guard.memory_limit(2000) == 2000  # max_memory, when given, decides
    monkeypatch.setenv("SCHEDLAB_MAX_MEMORY", str(2**80))
    assert guard.memory_limit() == guard.available_memory()
    monkeypatch.setenv("SCHEDLAB_MAX_MEMORY", "lots")
    with pytest.raises(ValueError, match="SCHEDLAB_MAX_MEMORY must be a number of bytes, got 'lots'"):
        sl.simulate(MR, workload(), "fifo")


def test_a_run_past_max_events_is_stopped_while_it_runs():
    """The up-front check works from an estimate (3.7 M events here); the run makes 4.86 M. With
    max_events at 4 M it passes the check and is stopped at the engines' polling point (every 2^20
    events: 4,194,304), naming the limit; with room, it runs to the end."""
    wl = sl.synthetic.generate(jobs=1500, rate=0.5, seed=1, maps=("randint", 1, 400), reduces=("randint", 0, 10))
    cluster = sl.Cluster(nodes=20)
    with pytest.raises(guard.ResourceError, match=r"fair run passed the 4e\+06-event limit \(max_events\) after "
                                                  r"4,194,304 events"):
        sl.simulate(cluster, wl, "fair", max_events=4e6)
    assert sl.simulate(cluster, wl, "fair", max_events=5e6).events == 4_859_841


def test_the_event_limit_still_reports_progress():
    seen = []
    limit = guard.event_limit(lambda e, t: seen.append((e, t)), "the run", 10)
    limit(8, 1.5)
    with pytest.raises(guard.ResourceError, match="the run passed the 10-event limit"):
        limit(11, 2.0)
    assert seen == [(8, 1.5)]
