"""Result.to_parquet: the tasks table written from the result's arrays (no DataFrame) and the
jobs table read back equal to Result.tasks and Result.jobs; the per-attempt columns that hold
only defaults without speculation and faults, handed over empty and filled on demand."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl

pytest.importorskip("pyarrow")


@pytest.mark.parametrize("scheduler,options", [("fair", {}), ("fifo", {"speculation": "late"}), ("eagle", {})])
def test_tasks_and_jobs_read_back(tmp_path, scheduler, options):
    w = sl.synthetic.generate(30, seed=3, reduces=("randint", 0, 0) if scheduler == "eagle" else ("randint", 0, 5))
    r = sl.simulate(sl.Cluster(nodes=6), w, scheduler, seed=1, **options)
    r.to_parquet(tmp_path / "t.parquet")
    back = pd.read_parquet(tmp_path / "t.parquet")
    want = r.tasks
    assert list(back.columns) == list(want.columns)
    back["job_id"] = back["job_id"].astype(want["job_id"].dtype)
    for col in ("stage", "status", "locality", "slot_type"):
        if col in want:
            assert list(back[col].cat.categories) == list(want[col].cat.categories)
    pd.testing.assert_frame_equal(back, want, check_categorical=False, check_dtype=False)
    for col in want.columns:
        if col != "job_id" and not isinstance(want[col].dtype, pd.CategoricalDtype):
            assert back[col].dtype == want[col].dtype, col
    r.to_parquet(tmp_path / "j.parquet", table="jobs")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "j.parquet"), r.jobs, check_dtype=False)
    with pytest.raises(ValueError, match="table must be 'tasks' or 'jobs'"):
        r.to_parquet(tmp_path / "x.parquet", table="attempts")


def test_string_job_ids(tmp_path):
    jobs = pd.DataFrame({"job_id": ["a", "b"], "submit_time": [0.0, 1.0]})
    tasks = pd.DataFrame({"job_id": ["a", "a", "b"], "work": [1.0, 2.0, 3.0], "stage": ["map", "reduce", "map"]})
    r = sl.simulate(sl.Cluster(nodes=1), sl.Workload.from_frames(jobs, tasks), "fifo")
    r.to_parquet(tmp_path / "t.parquet", compression="zstd")
    back = pd.read_parquet(tmp_path / "t.parquet")
    assert back["job_id"].astype(object).tolist() == r.tasks["job_id"].tolist() == ["a", "b", "a"]
    assert back["stage"].astype(str).tolist() == ["map", "map", "reduce"]
    np.testing.assert_array_equal(back["finish"], r.tasks["finish"])


def test_default_columns_are_filled_on_demand():
    from schedlab.core.faults import Slowdown
    w = sl.synthetic.generate(40, seed=4)
    cluster = sl.Cluster(nodes=5, speeds=[1.0, 0.5, 2.0, 1.25, 1.0])
    plain = sl.simulate(cluster, w, "fair", seed=0)
    raw = plain._raw["attempts"]
    assert len(raw["orig_node"]) == len(raw["speed_at_start"]) == 0  # only defaults: not kept per attempt
    t = plain.tasks
    assert (t["orig_node"] == -1).all() and t["orig_node"].dtype == np.int32
    np.testing.assert_array_equal(t["speed_at_start"], np.array([1.0, 0.5, 2.0, 1.25, 1.0])[t["node"]])
    slowed = sl.simulate(cluster, w, "fair", seed=0, faults=[Slowdown(1, 0, 10**6, 4)])
    assert len(slowed._raw["attempts"]["speed_at_start"]) == len(slowed.tasks)  # kept: not all defaults
    on_1 = slowed.tasks["node"] == 1
    assert on_1.any() and (slowed.tasks["speed_at_start"][on_1] == 0.125).all()
    late = sl.simulate(cluster, w, "fair", seed=0, speculation="late")
    if late.tasks["speculative"].any():
        assert (late.tasks["orig_node"][late.tasks["speculative"]] >= 0).any()


def test_dictionary_encoding_where_values_repeat(tmp_path):
    import pyarrow.parquet as pq
    w = sl.synthetic.generate(30, seed=3)
    r = sl.simulate(sl.Cluster(nodes=6), w, "fair", seed=1, speculation="late")

    def encoded(path):
        meta = pq.ParquetFile(path).metadata
        names = [meta.schema.column(i).name for i in range(meta.num_columns)]
        return {n for i, n in enumerate(names)
                if any("DICTIONARY" in e for e in meta.row_group(0).column(i).encodings)}

    r.to_parquet(tmp_path / "t.parquet")
    assert encoded(tmp_path / "t.parquet") == {"job_id", "stage", "status", "locality", "slot_type", "node", "slot", "orig_node"}
    r.to_parquet(tmp_path / "all.parquet", use_dictionary=True)  # the caller's choice wins
    assert {"start", "finish", "task_id"} <= encoded(tmp_path / "all.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), pd.read_parquet(tmp_path / "all.parquet"))
