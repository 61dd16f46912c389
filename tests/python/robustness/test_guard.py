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
    (MR, workload(), "fifo", {"heartbeat_interval": 5e-324}, r"inf heartbeats\) needs about inf events, more than the 1e\+10 limit"),
    (MR, workload(), "fifo", {"sample_interval": 5e-324}, r"inf samples\) needs about inf TiB of memory"),
    (MR, workload(work=1e9), "fifo", {}, r"simulated span about 1\.\d+e\+09 s, .*heartbeats\) needs about .* events"),
    (WORKERS, workload(submit=1e308), "sparrow", {}, r"simulated span about 1e\+308 s"),
    (WORKERS, workload(work=1e308), "eagle", {}, r"simulated span about 1.1e\+308 s"),
    (MR, workload(submit=1e308), "drf", {"sample_interval": 1.0}, r"share engine.*1e\+308 samples"),
    (WORKERS, workload(n=20000), sl.schedulers.get("eagle", probe_ratio=1e6), {}, r"2e\+10 probes\) needs about"),
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


def test_estimate_counts_heartbeats_over_the_span():
    e = guard.estimate(MR, workload(work=100.0), "mapreduce", {"heartbeat_interval": 0.5}, {})
    # span: last submission 0 + 103 s of work over 30 slots + the longest task (100 s)
    assert e["span"] == pytest.approx(100 + 103 / 30)
    assert e["heartbeats"] == pytest.approx(10 * e["span"] / 0.5)
    assert guard.estimate(MR, workload(work=100.0), "mapreduce", {"time_limit": 10.0}, {})["span"] == 10.0


def test_python_schedulers_are_guarded_too():
    with pytest.raises(ResourceError, match="heartbeats"):
        sl.simulate(MR, workload(), "mrcp", heartbeat_interval=1e-300)
