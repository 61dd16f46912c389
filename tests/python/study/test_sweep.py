"""schedlab.sweep: grid expansion, the tidy table, validation before any run, determinism."""
import numpy as np
import pandas as pd
import pytest

import schedlab as sl

sweep_module = sl.study.sweep


def small_workload(seed=1, jobs=12):
    return sl.synthetic.generate(jobs=jobs, seed=seed, rate=0.2, maps=("randint", 2, 6), reduces=("randint", 0, 2),
                                 name=f"syn{seed}")


def test_grid_expands_list_values_and_validates():
    g = sl.grid("fair", locality_delay=[0, 5, 15], assign_multiple=False)
    assert [c.params for c in g] == [{"locality_delay": v, "assign_multiple": False} for v in (0, 5, 15)]
    with pytest.raises(ValueError, match="unknown parameter 'no_such'"):
        sl.grid("fair", no_such=[1, 2])
    with pytest.raises(ValueError, match="empty list"):
        sl.grid("fair", locality_delay=[])


def test_table_has_one_row_per_run_in_grid_order():
    table = sl.sweep(["fifo", {"name": "fair", "locality_delay": [0, 5]}], {"nodes": [3, 6], "racks": 1},
                     {"a": small_workload(1), "b": lambda: small_workload(2)}, seeds=[0, 1], progress=False)
    assert len(table) == 3 * 2 * 2 * 2
    assert table["run_key"].is_unique
    assert list(table["scheduler"].unique()) == ["fifo", "fair(locality_delay=0)", "fair(locality_delay=5)"]
    # grid order: scheduler, cluster, workload, seed
    first = table.iloc[:8]
    assert (first["scheduler"] == "fifo").all()
    assert list(first["nodes"]) == [3, 3, 3, 3, 6, 6, 6, 6]
    assert list(first["workload"]) == ["a", "a", "b", "b"] * 2
    assert list(first["seed"]) == [0, 1] * 4
    # a scheduler parameter column, filled with defaults / NaN where the scheduler lacks it
    assert table.loc[table.scheduler == "fair(locality_delay=5)", "locality_delay"].eq(5).all()
    assert table.loc[table.scheduler == "fifo", "locality_delay"].isna().all()
    for col in ("mean_completion_time", "p50_completion_time", "p90_completion_time", "p99_completion_time",
                "makespan", "utilization", "events", "wall_seconds", "cached", "workload_fingerprint"):
        assert col in table
    assert not table["cached"].any()
    # each row equals a direct simulate() call
    row = table.iloc[5]
    r = sl.simulate(sl.Cluster(nodes=6, racks=1), small_workload(1), "fifo", seed=1)
    assert row["nodes"] == 6 and row["workload"] == "a" and row["seed"] == 1
    assert row["mean_completion_time"] == r.summary()["mean_completion_time"]
    assert row["events"] == r.events


def test_option_grid_becomes_columns():
    table = sl.sweep("fifo", sl.Cluster(nodes=4), small_workload(), seeds=[0],
                     options={"slowstart": [0.05, 1.0], "heartbeat_interval": 1.0}, progress=False)
    assert list(table["slowstart"]) == [0.05, 1.0]
    assert (table["heartbeat_interval"] == 1.0).all()
    assert table["mean_completion_time"].iloc[0] != table["mean_completion_time"].iloc[1]
    assert sl.stats.default_by(table) == ["scheduler", "cluster", "workload", "slowstart", "heartbeat_interval"]


def test_threads_and_serial_give_the_same_table():
    args = (["fifo", "fair"], {"nodes": [3, 5]}, [small_workload(1), small_workload(3)], range(3))
    a = sl.sweep(*args, workers=1, progress=False)
    b = sl.sweep(*args, workers=4, progress=False)
    drop = ["wall_seconds"]
    pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop))


def test_jobs_and_tasks_tables_on_request():
    res = sl.sweep(["fifo", "fair"], sl.Cluster(nodes=3), small_workload(), seeds=[0, 1], jobs=True, tasks=True,
                   progress=False)
    assert isinstance(res, sl.study.sweep.SweepResult)
    runs, jobs, tasks = res
    assert len(jobs) == len(runs) * 12
    assert list(jobs.columns[:4]) == ["run_key", "scheduler", "scheduler_name", "cluster"]
    assert set(jobs["run_key"]) == set(runs["run_key"])
    one = jobs[jobs.run_key == runs.run_key[3]]
    r = sl.simulate(sl.Cluster(nodes=3), small_workload(), "fair", seed=1)
    np.testing.assert_array_equal(one["completion_time"].to_numpy(), r.jobs["completion_time"].to_numpy())
    assert {"node", "slot", "start", "finish", "stage", "job_id"} <= set(tasks.columns)
    assert len(tasks[tasks.run_key == runs.run_key[3]]) == len(r.tasks)


def test_identical_runs_in_the_grid_are_rejected():
    w = small_workload()
    with pytest.raises(ValueError, match="same run twice"):
        sl.sweep("fifo", [sl.Cluster(nodes=3), sl.Cluster(nodes=3)], w, progress=False)
    with pytest.raises(ValueError, match="more than once"):
        sl.sweep(["fifo", "fifo"], sl.Cluster(nodes=3), w, progress=False)


@pytest.mark.parametrize("kwargs, message", [
    (dict(schedulers=["fifo", "no_such_scheduler"]), "unknown scheduler 'no_such_scheduler'"),
    (dict(schedulers=[{"name": "fair", "locality_dealy": [0, 5]}]), "unknown parameter 'locality_dealy'"),
    (dict(schedulers=[sl.grid("fair", locality_delay=[1, 2]), {"name": "fair", "k": -3}]), "outside"),
    (dict(schedulers=[{"locality_delay": 3}]), "has no 'name'"),
    (dict(schedulers=[]), "grid is empty.*schedulers"),
    (dict(clusters=[]), "grid is empty.*clusters"),
    (dict(workloads=[]), "grid is empty.*workloads"),
    (dict(seeds=[]), "grid is empty.*seeds"),
    (dict(seeds=3), "range\\(3\\)"),
    (dict(seeds=[0, -1]), "non-negative"),
    (dict(clusters={"nodes": []}), "empty list"),
    (dict(clusters={"nodes": [2, 0]}), "'nodes' must be at least 1"),
    (dict(clusters={"nodez": 3}), "unexpected keyword"),
    (dict(workloads=["no_such_dataset"]), "unknown dataset 'no_such_dataset'"),
    (dict(workloads=[lambda: 42]), "returned int"),
    (dict(options={"slowstrat": 0.5}), "unknown parameter 'slowstrat'"),
    (dict(options={"slowstart": [0.5, 7.0]}), "outside"),
    (dict(workers=0), "workers"),
])
def test_bad_configurations_fail_before_any_run(monkeypatch, tmp_path, kwargs, message):
    calls = []
    monkeypatch.setattr(sweep_module, "execute", lambda *a, **k: calls.append(a))
    args = dict(schedulers=["fifo", "fair"], clusters={"nodes": [2, 3]}, workloads=[small_workload()], seeds=[0, 1])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sl.sweep(**args, store=tmp_path / "store", progress=False)
    assert calls == []
    assert not (tmp_path / "store" / "runs").exists() or not list((tmp_path / "store" / "runs").iterdir())


def test_a_failing_run_names_itself(monkeypatch):
    def boom(scheduler, cluster, workload, seed, options, want_tasks=False):
        if seed == 1:
            raise ValueError("engine said no")
        return real(scheduler, cluster, workload, seed, options, want_tasks)
    real = sweep_module.execute
    monkeypatch.setattr(sweep_module, "execute", boom)
    with pytest.raises(ValueError, match="engine said no"):
        sl.sweep("fifo", sl.Cluster(nodes=2), small_workload(), seeds=[0, 1, 2], workers=2, progress=False)


def test_progress_bar_uses_tqdm_when_installed(capsys):
    pytest.importorskip("tqdm")
    sl.sweep("fifo", sl.Cluster(nodes=2), small_workload(), seeds=[0, 1], progress=True, workers=1)
    err = capsys.readouterr().err
    assert "sweep" in err and "2/2" in err
    sl.sweep("fifo", sl.Cluster(nodes=2), small_workload(), seeds=[0, 1], progress=False, workers=1)
    assert capsys.readouterr().err == ""


class Greedy(sl.Scheduler):
    """Fills free slots with the oldest job's tasks; counts heartbeats per run on itself."""
    param_specs = [{"name": "max_per_heartbeat", "type": "integer", "default": 100, "min": 1, "max": 1000,
                    "choices": [], "doc": "tasks launched per heartbeat at most"}]

    def init(self, sim):
        self.heartbeats = 0

    def on_heartbeat(self, sim, node):
        self.heartbeats += 1
        n = 0
        for j in sim.active_jobs():
            while n < self.params["max_per_heartbeat"] and sim.free_slots(node, sl.MAP) > 0 \
                    and (t := sim.find_map(j, node)) >= 0:
                sim.launch(t, node)
                n += 1
            if sim.done(j, sl.MAP) == int(self.job_columns["n_maps"][j]):
                while sim.free_slots(node, sl.REDUCE) > 0 and (t := sim.find_reduce(j)) >= 0:
                    sim.launch(t, node)

    def finish(self, sim):
        return {"heartbeats_seen": float(self.heartbeats)}


def test_schedulers_written_in_python_sweep_on_threads(tmp_path):
    scheds = [Greedy(), Greedy(max_per_heartbeat=1), "fifo"]
    a = sl.sweep(scheds, {"nodes": [2, 3]}, small_workload(), seeds=range(3), workers=1, progress=False)
    b = sl.sweep(scheds, {"nodes": [2, 3]}, small_workload(), seeds=range(3), workers=4, store=tmp_path,
                 progress=False)
    pd.testing.assert_frame_equal(a.drop(columns=["wall_seconds"]), b.drop(columns=["wall_seconds"]))
    assert list(a["scheduler"].unique()) == ["greedy", "greedy(max_per_heartbeat=1)", "fifo"]
    assert a.loc[a.scheduler == "greedy(max_per_heartbeat=1)", "max_per_heartbeat"].eq(1).all()
    assert a["run_key"].is_unique
    direct = sl.simulate(sl.Cluster(nodes=3), small_workload(), Greedy(max_per_heartbeat=1), seed=2)
    row = a[(a.scheduler == "greedy(max_per_heartbeat=1)") & (a.nodes == 3) & (a.seed == 2)].iloc[0]
    assert row["mean_completion_time"] == direct.summary()["mean_completion_time"]
