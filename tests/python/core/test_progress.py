"""Progress reports ride on the engines' polling point: every 2^20 events, with the simulated
time (schedulers written in Python: every 1,024 calls of their callbacks); a failing report stops
the run; the bar shows only when asked or interactive."""
import sys

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab.core import progress


def long_run(**kw):
    cluster = sl.Cluster(nodes=2, map_slots=2, reduce_slots=2)
    return sl.simulate(cluster, sl.datasets.load("demo_mix"), "fair", seed=0, heartbeat_interval=0.001, **kw)


def test_reports_every_2_20_events_with_the_simulated_time():
    reports = []
    r = long_run(progress=lambda events, now: reports.append((events, now)))
    assert r.events > 3 * 2**20
    assert [e for e, _ in reports] == [k * 2**20 for k in range(1, r.events // 2**20 + 1)]
    times = [t for _, t in reports]
    assert times == sorted(times) and 0 < times[-1] <= r.end_time
    # the same schedule as without reports
    assert long_run(progress=False).jobs.equals(r.jobs)


def test_an_error_in_the_report_stops_the_run():
    def fail(events, now):
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        long_run(progress=fail)


def test_bar_on_request_and_off_in_scripts(capsys, monkeypatch):
    long_run(progress=True)
    assert "events/s" in capsys.readouterr().err
    monkeypatch.delenv("SCHEDLAB_PROGRESS", raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)  # (a notebook test may have loaded it)
    long_run()  # stderr is captured, not a terminal: no bar
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("SCHEDLAB_PROGRESS", "1")
    assert progress.enabled() and not progress.enabled(False)
    monkeypatch.setenv("SCHEDLAB_PROGRESS", "0")
    assert not progress.enabled() and progress.enabled(True)


# ---- schedulers written in Python: reports every PROGRESS_EVERY calls of their callbacks

def python_runs():
    """(name, run(**kw)) for a scheduler written in Python on each engine that takes them."""
    from schedlab.schedulers import DrfInPython, FifoInPython, SparrowInPython
    rng = np.random.default_rng(3)
    counts = rng.integers(1, 12, 600)
    jobs = pd.DataFrame({"job_id": np.arange(600), "submit_time": np.sort(rng.uniform(0, 1200, 600))})
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(600), counts), "work": rng.exponential(8.0, counts.sum())})
    worker_wl = sl.Workload.from_frames(jobs, tasks)

    class SparrowCountingEnds(SparrowInPython):  # (a callback per task, so that the run has thousands)
        def on_task_end(self, sim, worker, attempt, first_copy):
            self.ends = getattr(self, "ends", 0) + 1
    return [
        ("mapreduce", lambda **kw: sl.simulate(sl.Cluster(nodes=2, map_slots=2, reduce_slots=2),
                                               sl.datasets.load("demo_mix"), FifoInPython(), seed=0,
                                               heartbeat_interval=0.05, **kw)),
        ("worker", lambda **kw: sl.simulate(sl.engines.worker.cluster(8), worker_wl, SparrowCountingEnds(), seed=0, **kw)),
        ("share", lambda **kw: sl.simulate(sl.Cluster(nodes=4), sl.datasets.load("demo_mix"), DrfInPython(), seed=0,
                                           **kw)),
    ]


@pytest.mark.parametrize("which", ["mapreduce", "worker", "share"])
def test_python_scheduler_reports_every_1024_callbacks_with_the_simulated_time(which):
    from schedlab.schedulers.base import PROGRESS_EVERY
    run = dict(python_runs())[which]
    reports = []
    r = run(progress=lambda calls, now: reports.append((calls, now)))
    assert PROGRESS_EVERY == 1024 and len(reports) >= 2, f"{len(reports)} reports: the run is too short to test"
    assert [c for c, _ in reports] == [k * PROGRESS_EVERY for k in range(1, len(reports) + 1)]
    times = [t for _, t in reports]
    assert times == sorted(times) and 0 <= times[0] and times[-1] <= r.end_time
    # the same schedule as without reports, and the same count of reports each time
    plain = run(progress=False)
    pd.testing.assert_frame_equal(plain.tasks, r.tasks)
    again = []
    run(progress=lambda calls, now: again.append((calls, now)))
    assert again == reports


def test_python_scheduler_report_error_stops_the_run_and_bar_on_request(capsys):
    run = dict(python_runs())["mapreduce"]

    def fail(calls, now):
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        run(progress=fail)
    run(progress=True)
    err = capsys.readouterr().err
    assert "callbacks/s" in err and "fifo_in_python" in err
