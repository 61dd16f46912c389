"""Trace readers (.tr, SWIM) on real samples and on malformed files; the command line."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from conftest import REPO, assert_slot_invariants, trace_path


def write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


# ----------------------------------------------------------------------------- .tr
def test_tr_small_by_hand(tmp_path):
    # CRLF, trailing blanks, runs of spaces, no final newline
    p = write(tmp_path, "x.tr", b"0.5 2 3.0  2.0 4.0 \r\n1.25 1 7.5 7.5")
    wl = sl.read_trace(p)
    assert list(wl.jobs["submit_time"]) == [0.5, 1.25]
    assert list(wl.tasks["work"]) == [2.0, 4.0, 7.5]
    assert list(wl.jobs["mean_task_duration"]) == [3.0, 7.5]
    t = sl.read_trace(p, truncate=True)
    assert list(t.tasks["work"]) == [2.0, 4.0, 7.0]


def test_tr_tie_offset(tmp_path):
    p = write(tmp_path, "ties.tr", b"10 1 1 1\n10 1 1 1\n10 1 1 1\n11 1 1 1\n")
    wl = sl.read_trace(p, tie_offset=0.01)
    np.testing.assert_allclose(wl.jobs["submit_time"], [10, 10.01, 10.02, 11])


@pytest.mark.parametrize("content, match", [
    (b"0 2 1.0 1.0\n", "n_tasks says 2 but the line has 1"),
    (b"0 1 1.0 abc\n", "not a number"),
    (b"0 1\n", "expected"),
    (b"0 1 1.0 1.0\n0 1 -2.0 -2.0\n", "durations must be numbers >= 0"),
    (b"0 1 5.0 1.0\n", "differs from the mean"),
    (b"5 1 1 1\n3 1 1 1\n", "submitted before"),
    (b"0 0 0\n", "at least 1"),
    (b"\n\n", "no jobs"),
])
def test_tr_malformed_names_file_and_line(tmp_path, content, match):
    p = write(tmp_path, "bad.tr", content)
    with pytest.raises(ValueError, match=match) as e:
        sl.read_trace(p)
    assert "bad.tr" in str(e.value)


def test_tr_error_names_the_line(tmp_path):
    p = write(tmp_path, "bad.tr", b"0 1 1 1\n1 1 1 1\n2 2 1 1\n")
    with pytest.raises(ValueError, match=r"bad\.tr:3:"):
        sl.read_trace(p)


def test_tr_real_samples():
    yh = sl.read_trace(trace_path("hawk_eagle", "YH_small.tr"))  # no final newline
    assert yh.n_jobs == 10 and yh.n_tasks == 183
    goog = sl.read_trace(trace_path("hawk_eagle", "GOOG_subtrace.tr"))  # CRLF
    assert goog.n_jobs == 10000 and goog.n_tasks == 312558
    r = sl.simulate(sl.Cluster(nodes=20, map_slots=2, reduce_slots=0), yh, "fair")
    assert_slot_invariants(r)
    assert r.jobs["finish_time"].notna().all()


# ----------------------------------------------------------------------------- SWIM
def test_swim_by_hand(tmp_path):
    mb = 2**20
    p = write(tmp_path, "fb.tsv",
              f"job0\t0\t0\t{200 * mb}\t{3 * 2**30}\t{2**29}\r\njob1\t5\t5\t10\t0\t0".encode())
    wl = sl.read_trace(p, block_bytes=64 * mb, bytes_per_reduce=2**30)
    j = wl.jobs
    assert list(j["n_maps"]) == [4, 1]  # ceil(200/64); 1 block minimum
    assert list(j["n_reduces"]) == [4, 0]  # round(3.5 GB / 1 GB); no shuffle, no output -> none
    big = sl.read_trace(p, scale=2.0)
    assert big.jobs["n_maps"].iloc[0] == 7  # ceil(400/64)


@pytest.mark.parametrize("content, match", [
    (b"job0\t0\t0\t1\t2\n", "expected 6"),
    (b"job0\t0\t0\tx\t2\t3\n", "not a number"),
    (b"job0\t0\t0\t-1\t2\t3\n", ">= 0"),
])
def test_swim_malformed(tmp_path, content, match):
    p = write(tmp_path, "bad.tsv", content)
    with pytest.raises(ValueError, match=match) as e:
        sl.read_trace(p)
    assert "bad.tsv:1" in str(e.value)


@pytest.mark.parametrize("input_bytes", ["99999999999999999999", "1e300"])
def test_swim_job_with_too_many_tasks(tmp_path, input_bytes):
    # bytes that make more tasks than the engines can number: an error naming the line, not an
    # attempt to allocate terabytes (or a count wrapped around to a negative number)
    p = write(tmp_path, "huge.tsv", f"job0\t0\t0\t10\t0\t0\njob1\t1\t1\t{input_bytes}\t0\t0\n".encode())
    with pytest.raises(ValueError, match="job1") as e:
        sl.read_trace(p)
    assert "huge.tsv:2:" in str(e.value) and "max_tasks_per_job" in str(e.value)
    capped = sl.read_trace(p, max_tasks_per_job=10)
    assert list(capped.jobs["n_maps"]) == [1, 10]
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="max_tasks_per_job"):
            sl.read_trace(p, max_tasks_per_job=bad)


def test_swim_workload_with_too_many_tasks(tmp_path):
    # each job fits, the two together do not: the error names the line where the total passes
    p = write(tmp_path, "two.tsv", b"a\t0\t0\t1e17\t0\t0\nb\t1\t1\t1e17\t0\t0\n")
    with pytest.raises(ValueError, match="two.tsv:2: job 'b'"):
        sl.read_trace(p)


def test_swim_real_samples():
    fb = sl.read_trace(trace_path("swim", "FB-2009_samples_24_times_1hr_0.tsv"))
    assert fb.n_jobs == 5894
    paths = sl.read_trace(trace_path("swim", "FB-2010_samples_24_times_1hr_withInputPaths_0.tsv"))
    assert paths.n_jobs == 25428
    small = fb.jobs.head(60)
    assert (small["n_maps"] >= 1).all()


def test_unknown_format_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="suffix"):
        sl.read_trace(write(tmp_path, "x.weird", b"1"))
    with pytest.raises(ValueError, match="unknown trace format"):
        sl.read_trace(write(tmp_path, "x.tr", b"1"), format="nope")
    with pytest.raises(FileNotFoundError):
        sl.read_trace(tmp_path / "missing.tr")


# ----------------------------------------------------------------------------- CLI
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "schedlab", *args], capture_output=True, text=True, timeout=300)


def test_cli_demo():
    out = run_cli("demo", "--no-plot")
    assert out.returncode == 0, out.stderr
    for name in ("fifo", "fair", "capacity", "makespan"):
        assert name in out.stdout
    rows = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines() if line.split()[:1] in (["fifo"], ["fair"], ["capacity"])}
    # one queue per user: the Capacity Scheduler shares the cluster among them instead of acting as FIFO
    assert rows["capacity"] != rows["fifo"] and rows["fair"] != rows["fifo"]
    assert sl.datasets.load("demo_mix").jobs["queue"].nunique() == 3


def test_cli_run_writes_jobs(tmp_path):
    p = write(tmp_path, "t.tr", b"0 2 3.0 2.0 4.0\n1 1 7.5 7.5\n")
    csv = tmp_path / "jobs.csv"
    out = run_cli("run", "--trace", str(p), "--scheduler", "fifo", "--scheduler", "fair", "--nodes", "3",
                  "--jobs-out", str(csv), "--option", "heartbeat_interval=0.5")
    assert out.returncode == 0, out.stderr
    assert "fifo" in out.stdout and "fair" in out.stdout
    assert set(pd.read_csv(csv)["scheduler"]) == {"fifo", "fair"}


def test_cli_errors_are_clear(tmp_path):
    p = write(tmp_path, "t.tr", b"0 1 1 1\n")
    out = run_cli("run", "--trace", str(p), "--scheduler", "nope")
    assert out.returncode == 2 and "unknown scheduler 'nope'" in out.stderr
    out = run_cli("run", "--trace", str(tmp_path / "missing.tr"), "--scheduler", "fifo")
    assert out.returncode == 2 and "no such trace file" in out.stderr
    out = run_cli("--help")
    assert out.returncode == 0 and "run" in out.stdout and "demo" in out.stdout
