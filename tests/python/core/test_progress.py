"""Progress reports ride on the engines' polling point: every 2^20 events, with the simulated
time; a failing report stops the run; the bar shows only when asked or interactive."""
import sys

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
