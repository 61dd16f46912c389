"""The spark engine against a real Spark cluster (local-cluster[2,2,1024]): the 'cached' run of
schedlab.engines.spark_validation (a job caches an RDD, two jobs read it at once, delay
scheduling by PROCESS_LOCAL), after the warm-up and calibration jobs. Skipped without pyspark or
Java; about two minutes. The error bound is loose: this test checks that the pipeline (a real
application, its event log, the calibration, the simulation of the same workload) holds and
that the model is not grossly off; docs/spark.md reports the measured errors."""
import pytest

from schedlab.engines import spark_validation as sv

missing = sv.available()
pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")


def test_cached_run_against_real_spark(tmp_path):
    jobs, tasks, costs = sv.validate(runs=("cached",), seed=0, out=str(tmp_path))
    assert list(jobs["description"]) == ["cached/1", "cached/2"] or sorted(jobs["description"]) == ["cached/1", "cached/2"]
    assert jobs["simulated"].notna().all() and (jobs["simulated"] > 0).all()
    assert len(tasks) == 8  # both readers' four tasks matched by stage and index
    c = costs["FIFO"]
    assert c["first_task_overhead"] > 0 and c["task_launch_overhead"] >= 0
    assert jobs["rel_error"].median() < 1.0
