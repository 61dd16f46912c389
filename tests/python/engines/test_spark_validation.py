"""The spark engine against a real Spark cluster (local-cluster[2,2,1024]): the 'fair' run of
schedlab.engines.spark_validation (four chains of 2-4 stages in two FAIR pools, one with
minShare 2 and FAIR inside), after the warm-up and calibration jobs. Skipped without pyspark or
Java; about two minutes (four when the replay's bound is missed once, below).

Two checks of different strength. The replay (each task's recorded duration and each stage's
recorded submission, no fixed costs) checks the task scheduler's decisions alone -- which pool
and task set gets each freed core, on which executor -- and must match Spark closely whatever
the machine's load (measured on the fair run at load averages 1-22: per-job errors 0.0-1.3 %
but one of 9.1 %, a 3.6 s job whose stage became schedulable ~60 ms after its recorded
submission and lost a near-tie; launch-order rank correlation 0.998-1.000). Such a near-tie is
Spark's own timing, not a decision the log records: a stage's recorded submission precedes the
moment its task set reaches the task scheduler by up to ~80 ms on a loaded machine (seen: stage
12 of a run at load average 7.9 submitted at 47.888 s, a core freed at 47.969 s went to the
other task set of its pool, which had one task running to its none), and when it flips, two
jobs of the pool move by 1-9 %. The replay's bound is therefore checked on a second application
when the first misses it, and both tables are in the message: a scheduler that decides wrongly
misses it in both. The prediction from the chosen sleep durations and the calibrated fixed
costs depends on how the load moves between the calibration and the run (measured: median
error 5-45 %): its bound is loose, its launch order is not."""
import pytest

from schedlab.engines import spark_validation as sv

missing = sv.available()
pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")


def _fair_application(out):
    jobs, tasks, costs = sv.validate(runs=("fair",), seed=0, out=out)
    assert sorted(jobs["description"]) == ["fair/0", "fair/1", "fair/2", "fair/3"]
    spec_tasks = sum(len(st) for job in sv.run_specs(0)["fair"]["jobs"] for st in job["stages"])
    assert len(tasks) == spec_tasks  # every task matched by (stage, index)
    c = costs["FAIR"]
    assert c["first_task_overhead"] > 0 and c["task_launch_overhead"] >= 0 and c["stage_submit_delay"] >= 0
    return jobs, sv.summary(jobs, tasks).loc["fair"]


def test_fair_run_against_real_spark(tmp_path):
    seen = []
    for k in range(2):
        jobs, s = _fair_application(str(tmp_path / f"application{k}"))
        seen.append(jobs.to_string())
        if s["replay_median"] < 0.03 and s["replay_max"] < 0.15:
            break
    tables = "\n".join(seen)
    # the scheduling decisions, replayed with what the machine did: close to Spark's
    assert s["replay_median"] < 0.03, tables
    assert s["replay_max"] < 0.15, tables
    assert s["replay_spearman"] > 0.95
    assert s["replay_launch_err_s"] < 0.25
    # the prediction: the launch order holds; the times move with the machine's load
    assert s["spearman"] > 0.9
    assert s["median"] < 1.0
