"""read_trace(..., format="spark_eventlog"): Spark event logs recorded by a real Spark 4.3
local-cluster[2,2,1024] application (two concurrent jobs in FAIR pools: a two-stage shuffle job
and a job caching an RDD, then a job reading the cache), compressed as Spark writes them, as a
rolling directory and as plain files; malformed and truncated logs; ``schedlab replay``."""
import json
import os
import shutil

import numpy as np
import pytest

import schedlab as sl
from schedlab.cli.main import main as cli_main

DATA = os.path.join(os.path.dirname(__file__), "data", "spark_eventlogs")
ROLLING = os.path.join(DATA, "eventlog_v2_zstd")
cramjam = pytest.importorskip("cramjam")


def plain_lines():
    f = [n for n in os.listdir(ROLLING) if n.startswith("events_")][0]
    return cramjam.zstd.decompress(open(os.path.join(ROLLING, f), "rb").read()).read().decode().splitlines()


@pytest.fixture
def plain_log(tmp_path):
    p = tmp_path / "app-0000"
    p.write_text("\n".join(plain_lines()) + "\n")
    return str(p)


def check_structure(w):
    jobs = w.jobs.set_index("job_id")
    # four stages in three Spark jobs: a 6-task map stage feeding a 2-task reduce stage (pool
    # prod, one job), a 4-task stage caching an RDD and a 4-task stage reading it (pool adhoc,
    # two jobs); the two threads race for the first job ids, so stages are found by shape
    assert len(jobs) == 4 and jobs["dag"].nunique() == 3
    child = jobs[jobs["parents"].map(len) > 0]
    assert len(child) == 1
    (parent,) = child["parents"].iloc[0]
    assert child["n_maps"].iloc[0] == 2 and jobs.loc[parent, "n_maps"] == 6
    assert child["dag"].iloc[0] == jobs.loc[parent, "dag"]
    assert child["user"].iloc[0] == jobs.loc[parent, "user"] == "prod"
    adhoc = jobs[jobs["user"] == "adhoc"]
    assert list(adhoc["n_maps"]) == [4, 4] and adhoc["dag"].nunique() == 2
    log = w.spark
    assert list(log.executors["cores"]) == [2, 2]
    assert log.scheduler == "spark_fair"
    assert log.options["executors_per_host"] == 2
    # recorded by Spark 4.3 without speculation settings: Spark 4's defaults, not the engine's (3.x)
    assert log.spark_version.startswith("4.")
    assert log.options["speculation_multiplier"] == 3.0 and log.options["speculation_quantile"] == 0.9
    assert (w.tasks["work"] > 0).all()
    assert log.jobs["result"].eq("JobSucceeded").all()


def test_rolling_zstd_directory():
    w = sl.read_trace(ROLLING, format="spark_eventlog")
    check_structure(w)
    # the cached stage's tasks prefer the executor they ran on; the shuffle reads prefer both
    a = w.spark.attempts
    assert set(a["locality"]) <= {"PROCESS_LOCAL", "NODE_LOCAL", "ANY", "RACK_LOCAL"}


@pytest.mark.parametrize("name", ["app-lz4.lz4", "app-snappy.snappy"])
def test_compressed_files(name):
    check_structure(sl.read_trace(os.path.join(DATA, name), format="spark_eventlog"))


def test_plain_file_and_split_rolling(plain_log, tmp_path):
    w = sl.read_trace(plain_log, format="spark_eventlog")
    check_structure(w)
    lines = plain_lines()
    d = tmp_path / "eventlog_v2_app-1"
    d.mkdir()
    half = len(lines) // 2
    (d / "events_2_app-1").write_text("\n".join(lines[half:]) + "\n")
    (d / "events_1_app-1").write_text("\n".join(lines[:half]) + "\n")
    (d / "appstatus_app-1").write_text("")
    w2 = sl.read_trace(str(d), format="spark_eventlog")
    assert w2.jobs.drop(columns=["parents"]).equals(w.jobs.drop(columns=["parents"]))
    assert list(w2.tasks["work"]) == list(w.tasks["work"])


def test_replay_matches_structure(plain_log):
    w = sl.read_trace(plain_log, format="spark_eventlog")
    r = sl.simulate(w.spark.cluster(), w, "spark_fifo", **w.spark.options)
    assert r.dags["finish_time"].notna().all()
    assert len(r.tasks) == w.n_tasks
    # every task of the cached stage that ran PROCESS_LOCAL prefers an executor
    _, t = w.native().columns()
    assert len(t["replica_node"]) > 0


def test_malformed_and_truncated(plain_log, tmp_path):
    lines = plain_lines()
    bad = tmp_path / "bad"
    bad.write_text("\n".join(lines[:5] + ["{not json"] + lines[5:]) + "\n")
    with pytest.raises(ValueError, match=r"bad:6: not a JSON event"):
        sl.read_trace(str(bad), format="spark_eventlog")
    cut = tmp_path / "cut"
    text = "\n".join(lines)
    cut.write_text(text[: len(text) - 40])  # the last event cut in the middle, no final newline
    with pytest.raises(ValueError, match=rf"cut:{len(lines)}: truncated event"):
        sl.read_trace(str(cut), format="spark_eventlog")
    # a task event without its launch time: the line and the field are named
    k = next(i for i, l in enumerate(lines) if '"SparkListenerTaskEnd"' in l)
    ev = json.loads(lines[k])
    del ev["Task Info"]["Launch Time"]
    missing = tmp_path / "missing"
    missing.write_text("\n".join(lines[:k] + [json.dumps(ev)] + lines[k + 1:]) + "\n")
    with pytest.raises(ValueError, match=rf"missing:{k + 1}: SparkListenerTaskEnd has no field 'Launch Time'"):
        sl.read_trace(str(missing), format="spark_eventlog")
    zbad = tmp_path / "events.zstd"
    zbad.write_bytes(b"\x28\xb5\x2f\xfd garbage")
    with pytest.raises(ValueError, match="cannot decompress the zstd event log"):
        sl.read_trace(str(zbad), format="spark_eventlog")
    empty = tmp_path / "eventlog_v2_empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="not a rolling Spark event log"):
        sl.read_trace(str(empty), format="spark_eventlog")
    nojobs = tmp_path / "nojobs"
    nojobs.write_text(lines[0] + "\n")
    with pytest.raises(ValueError, match="no SparkListenerJobStart"):
        sl.read_trace(str(nojobs), format="spark_eventlog")


def test_replay_command(plain_log, capsys):
    assert cli_main(["replay", plain_log, "--scheduler", "spark_fifo", "--scheduler", "fair",
                     "--executors", "4", "--cores", "2"]) == 0
    out = capsys.readouterr().out
    assert "recorded" in out and "spark_fifo" in out and "fair" in out and "p90_job_time" in out


_TIME_KEYS = {"Timestamp", "Submission Time", "Completion Time", "Launch Time", "Finish Time", "Getting Result Time"}


def _shifted(lines, app_id, ms):
    """The log's lines as another application's: another App ID, every time ``ms`` later."""
    def shift(x):
        if isinstance(x, dict):
            return {k: (v + ms if k in _TIME_KEYS and isinstance(v, (int, float)) and v > 0 else shift(v))
                    for k, v in x.items()}
        if isinstance(x, list):
            return [shift(v) for v in x]
        return x
    out = []
    for line in lines:
        ev = shift(json.loads(line))
        if ev.get("Event") == "SparkListenerApplicationStart":
            ev["App ID"] = app_id
        out.append(json.dumps(ev))
    return out


def test_several_event_logs_together(plain_log, tmp_path, capsys):
    """Two applications' logs (the recorded one and a copy started 5 s later) read together:
    one workload whose jobs name their application, times from the first start, stage ids kept
    per application, workers from the executors' hosts; replayed on the standalone Master the
    second application waits for the first one's cores (spark.cores.max unset)."""
    second = tmp_path / "app-0001"
    second.write_text("\n".join(_shifted(plain_lines(), "app-copy", 5000)) + "\n")
    w = sl.read_trace([plain_log, str(second)], format="spark_eventlog")
    one = sl.read_trace(plain_log, format="spark_eventlog")
    assert w.n_jobs == 2 * one.n_jobs and w.n_tasks == 2 * one.n_tasks
    jobs = w.jobs
    assert set(jobs["application"]) == {one.spark.app_id, "app-copy"}
    first = jobs[jobs["application"] == one.spark.app_id]["submit_time"].to_numpy()
    copy = jobs[jobs["application"] == "app-copy"]["submit_time"].to_numpy()
    assert np.allclose(np.sort(copy), np.sort(first) + 5.0)
    apps = w.spark_applications
    assert apps.loc["app-copy", "arrival"] == pytest.approx(5.0) and apps.loc[one.spark.app_id, "arrival"] == 0
    assert sorted(w.spark_stage_ids.tolist()) == sorted(2 * [int(s) for s in one.job_ids])
    assert w.spark_workers.n_nodes == one.spark.executors["host"].nunique()
    r = sl.simulate(w.spark_workers, w, "spark_fifo")
    assert r.jobs["finish_time"].notna().all() and r.counters["applications"] == 2
    j = r.jobs
    a_end = j.loc[j["application"] == one.spark.app_id, "finish_time"].max()
    assert j.loc[j["application"] == "app-copy", "start_time"].min() >= a_end - 1e-9
    assert cli_main(["replay", plain_log, str(second), "--scheduler", "spark_fifo", "--scheduler", "spark_fair"]) == 0
    out = capsys.readouterr().out
    assert "recorded" in out and "spark_fair" in out
    with pytest.raises(ValueError, match="appears twice"):
        sl.read_trace([plain_log, plain_log], format="spark_eventlog")
    with pytest.raises(ValueError, match="several Spark applications"):
        sl.read_trace([plain_log], format="tr")
