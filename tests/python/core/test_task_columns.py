"""The workload's per-task columns held one value per (job, stage) when their values allow: the
same arrays read back, the same schedules, fewer bytes; and the read-only mapping that
``native().columns()`` returns for the task columns."""
import pickle

import numpy as np
import pandas as pd
import pytest

import schedlab as sl


def _blocks_workload(per_task_noise=False):
    """Three jobs whose task columns are one value per (job, stage); with per_task_noise, one
    task's work differs from the rest of its stage."""
    n_maps = np.array([3, 2, 4])
    n_red = np.array([1, 0, 2])
    per_stage = np.stack([n_maps, n_red], 1).ravel()

    def blocks(m, r):
        return np.repeat(np.stack([m, r], 1).ravel(), per_stage).astype(float)

    work = blocks(np.array([10.0, 20.0, 5.0]), np.array([30.0, 0.0, 7.0]))
    if per_task_noise:
        work[1] += 0.5
    tasks = {"work": work, "input_bytes": blocks(np.array([1e6, 2e6, 3e6]), np.array([4e8, 0, 1e8])),
             "output_bytes": blocks(np.array([1e5, 0, 2e5]), np.zeros(3))}
    jobs = pd.DataFrame({"job_id": ["a", "b", "c"], "submit_time": [0.0, 1.0, 2.5]})
    return sl.Workload.from_job_blocks(jobs, n_maps + n_red, tasks, n_maps=n_maps), tasks


def test_block_columns_read_back_the_same_values_in_fewer_bytes():
    wl, tasks = _blocks_workload()
    noisy, noisy_tasks = _blocks_workload(per_task_noise=True)
    _, t = wl.native().columns()
    _, tn = noisy.native().columns()
    for k in ("work", "input_bytes", "output_bytes"):
        np.testing.assert_array_equal(np.asarray(t[k]), tasks[k])
        np.testing.assert_array_equal(np.asarray(tn[k]), noisy_tasks[k])
        assert not np.asarray(t[k]).flags.writeable
    np.testing.assert_array_equal(np.asarray(t["estimate"]), tasks["work"])  # estimate defaults to work
    np.testing.assert_array_equal(np.asarray(t["vcores"]), np.ones(12))
    np.testing.assert_array_equal(np.asarray(t["memory"]), np.full(12, 1024.0))
    # the noisy workload keeps its work per task (its estimate shares those values); every other
    # column is per (job, stage), the other workload's work and estimate too
    assert noisy.native().nbytes - wl.native().nbytes == 12 * 8 - 2 * 6 * 8
    # an estimate of its own is held apart
    own = sl.Workload.from_job_blocks(noisy.jobs[["job_id", "submit_time"]], [4, 2, 6],
                                      {**noisy_tasks, "estimate": noisy_tasks["work"] * 2}, n_maps=[3, 2, 4])
    assert own.native().nbytes - noisy.native().nbytes == 12 * 8
    # a large workload of that kind: about 5 bytes per task (job id and stage)
    n = 20_000
    big = sl.Workload.from_job_blocks(pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.0]}),
                                      np.array([n, n]), {"work": np.repeat([1.0, 2.0], n)})
    assert big.native().nbytes < 6 * big.n_tasks


def test_block_columns_give_the_same_schedule_as_per_task_columns():
    n_maps, n_red = np.array([3, 2, 4]), np.array([1, 1, 2])
    per_stage = np.stack([n_maps, n_red], 1).ravel()
    work = np.repeat([10.0, 30.0, 0.0, 25.0, 5.0, 7.0], per_stage)
    jobs = pd.DataFrame({"job_id": ["a", "b", "c"], "submit_time": [0.0, 1.0, 2.5]})
    blocks = sl.Workload.from_job_blocks(jobs, n_maps + n_red, {"work": work}, n_maps=n_maps)
    # the same work, but one zero written -0.0: bitwise not one value per (job, stage), so held per task
    signed = work.copy()
    signed[4] = -0.0
    per_task = sl.Workload.from_job_blocks(jobs, n_maps + n_red, {"work": signed}, n_maps=n_maps)
    assert per_task.native().nbytes > blocks.native().nbytes
    cluster = sl.Cluster(nodes=2)
    for scheduler in ("fair", "fifo"):
        a = sl.simulate(cluster, blocks, scheduler, seed=3)
        b = sl.simulate(cluster, per_task, scheduler, seed=3)
        pd.testing.assert_frame_equal(a.tasks, b.tasks)
        pd.testing.assert_frame_equal(a.jobs, b.jobs)


def test_task_columns_mapping():
    wl, tasks = _blocks_workload()
    _, t = wl.native().columns()
    assert list(t) == list(t.keys())
    assert {"job", "stage", "work", "estimate", "replica_begin"} <= set(t.keys())
    assert "work" in t and "nope" not in t and len(t) == len(list(t))
    assert t.get("nope") is None
    with pytest.raises(KeyError):
        t["nope"]
    assert t["work"] is t["work"]  # expanded once, kept by the mapping
    d = dict(t)
    np.testing.assert_array_equal(d["input_bytes"], tasks["input_bytes"])
    assert [k for k, _ in t.items()] == list(t.keys())
    blocks = t.blocks("work")
    np.testing.assert_array_equal(blocks, [10.0, 30.0, 20.0, 0.0, 5.0, 7.0])
    noisy, _ = _blocks_workload(per_task_noise=True)
    assert noisy.native().columns()[1].blocks("work") is None


def test_run_guard_reads_block_columns_as_it_reads_per_task_ones():
    from schedlab.core import guard
    n_maps, n_red = np.array([3, 2]), np.array([2, 1])
    per_stage = np.stack([n_maps, n_red], 1).ravel()
    tasks = {"work": np.repeat([10.0, 0.0, 20.0, 4.0], per_stage),
             "input_bytes": np.repeat([1e6, 3e8, 2e6, 1e8], per_stage)}
    jobs = pd.DataFrame({"job_id": ["a", "b"], "submit_time": [0.0, 1.0]})
    wl = sl.Workload.from_job_blocks(jobs, n_maps + n_red, tasks, n_maps=n_maps)
    # the same values, one zero written -0.0: held per task
    signed = tasks["work"].copy()
    signed[4] = -0.0
    per_task = sl.Workload.from_job_blocks(jobs, n_maps + n_red, {**tasks, "work": signed}, n_maps=n_maps)
    assert wl.native().columns()[1].blocks("work") is not None
    assert per_task.native().columns()[1].blocks("work") is None
    cluster = sl.Cluster(nodes=3)
    for engine in ("mapreduce", "worker"):
        a = guard.estimate(cluster, wl, engine, {}, {})
        b = guard.estimate(cluster, per_task, engine, {}, {})
        for k in a:
            assert a[k] == pytest.approx(b[k], rel=1e-12), (engine, k)


def test_an_estimate_that_is_the_work_stays_shared_through_pickling():
    noisy, _ = _blocks_workload(per_task_noise=True)
    back = pickle.loads(pickle.dumps(noisy))
    assert back.native().nbytes == noisy.native().nbytes
    _, t = back.native().columns()
    assert np.shares_memory(np.asarray(t["estimate"]), np.asarray(t["work"]))
    pd.testing.assert_frame_equal(back.tasks, noisy.tasks)
