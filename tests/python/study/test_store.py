"""The results store: atomic Parquet files keyed by configuration; resuming a killed sweep."""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import schedlab as sl
from schedlab.store import Store

pytest.importorskip("pyarrow")
PYTHON_DIR = pathlib.Path(sl.__file__).resolve().parents[1]


def wl(seed=1, jobs=12):
    return sl.synthetic.generate(jobs=jobs, seed=seed, rate=0.2, maps=("randint", 2, 6), reduces=("randint", 0, 2))


def test_second_sweep_reads_every_run_from_the_store(tmp_path, monkeypatch):
    args = (["fifo", sl.grid("fair", locality_delay=[0, 5])], {"nodes": [3, 4]}, wl(), range(2))
    first = sl.sweep(*args, store=tmp_path, progress=False)
    assert not first["cached"].any()
    assert len(Store(tmp_path).keys()) == len(first)
    calls = []
    real = sl.study.sweep.execute
    monkeypatch.setattr(sl.study.sweep, "execute", lambda *a, **k: calls.append(a) or real(*a, **k))
    second = sl.sweep(*args, store=tmp_path, progress=False)
    assert calls == []
    assert second["cached"].all()
    cols = [c for c in first.columns if c not in ("cached", "wall_seconds")]
    pd.testing.assert_frame_equal(first[cols], second[cols])
    # a larger grid only runs what is new
    third = sl.sweep(args[0], args[1], args[2], range(3), store=tmp_path, progress=False)
    assert len(calls) == 6 and third["cached"].sum() == 12
    # rerun=True simulates again
    sl.sweep("fifo", {"nodes": 3}, args[2], [0], store=tmp_path, rerun=True, progress=False)
    assert len(calls) == 7


def test_stored_jobs_and_tasks_round_trip(tmp_path):
    a = sl.sweep(["fifo", "fair"], sl.Cluster(nodes=3), wl(), [0, 1], store=tmp_path, jobs=True, tasks=True,
                 progress=False)
    b = sl.sweep(["fifo", "fair"], sl.Cluster(nodes=3), wl(), [0, 1], store=tmp_path, jobs=True, tasks=True,
                 progress=False)
    assert b.runs["cached"].all()
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    # asking for tasks the store does not hold reruns those runs only
    c = sl.sweep("fifo", sl.Cluster(nodes=4), wl(), [0], store=tmp_path, progress=False)
    d = sl.sweep("fifo", sl.Cluster(nodes=4), wl(), [0], store=tmp_path, tasks=True, progress=False)
    assert not c["cached"].any()
    assert not d.runs["cached"].any()
    store = Store(tmp_path)
    rec = store.record(a.runs.run_key[0])
    assert rec["config"]["scheduler"]["name"] == "fifo"
    assert rec["summary"]["mean_completion_time"] == a.runs["mean_completion_time"][0]
    assert set(store.table()["run_key"]) == set(store.keys())
    assert not [f for f in os.listdir(store.runs_dir) if f.endswith(".tmp")]


def key_of(scheduler="fifo", cluster=None, workload=None, seed=0, options=None):
    run = sl.study.sweep.plan(scheduler, cluster or sl.Cluster(nodes=3), workload or wl(), [seed], options)[0]
    return run.key


def test_key_covers_the_whole_configuration(monkeypatch):
    base = key_of()
    assert key_of() == base  # stable
    assert key_of("fair") != base
    assert key_of(sl.schedulers.get("fair", locality_delay=5)) != key_of("fair")
    assert key_of(sl.schedulers.get("fair", locality_delay=5)) == key_of(sl.schedulers.get("fair", locality_delay=5.0))
    assert key_of(sl.schedulers.get("fair", k=0)) == key_of("fair")  # explicit default = default
    assert key_of(cluster=sl.Cluster(nodes=4)) != base
    assert key_of(cluster=sl.Cluster(nodes=3, speeds=[1, 1, 2])) != base
    assert key_of(workload=wl(seed=2)) != base
    assert key_of(seed=1) != base
    assert key_of(options={"slowstart": 0.5}) != base
    assert key_of(options={"slowstart": 0.05}) == base  # the engine default
    monkeypatch.setattr(sl._version, "__version__", "99.0")
    assert key_of() != base


def test_store_rejects_foreign_keys_and_reports_missing_runs(tmp_path):
    store = Store(tmp_path)
    with pytest.raises(ValueError, match="not a run key"):
        store.has("../../etc/passwd")
    with pytest.raises(KeyError):
        store.record("0123abcd")
    assert sl.store.as_store(str(tmp_path)).path == store.path
    with pytest.raises(ValueError, match="store must be"):
        sl.store.as_store(42)


def test_temporary_files_are_ignored_and_cleaned(tmp_path):
    store = Store(tmp_path)
    junk = pathlib.Path(store.runs_dir) / ".0123.parquet.99.1.1.tmp"
    junk.write_bytes(b"half a file")
    assert store.keys() == []
    assert store.clean() == 1 and not junk.exists()


SCRIPT = textwrap.dedent("""
    import sys
    import schedlab as sl
    w = sl.synthetic.generate(jobs=400, seed=5, rate=0.5, maps=("randint", 5, 30), reduces=("randint", 1, 5))
    sl.sweep(["fifo", "fair"], {"nodes": [4, 8]}, w, seeds=range(6), store=sys.argv[1],
             workers=1, progress=False)
    print("finished")
""")


def test_a_killed_sweep_loses_nothing_finished_and_resumes(tmp_path):
    store_dir = tmp_path / "store"
    script = tmp_path / "run_sweep.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, str(script), str(store_dir)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    runs_dir = store_dir / "runs"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if runs_dir.exists() and len([f for f in os.listdir(runs_dir) if not f.startswith(".")]) >= 3:
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the sweep finished before it could be killed: " + proc.stderr.read().decode()
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    store = Store(store_dir)
    done = set(store.keys())
    assert 3 <= len(done) < 24, len(done)
    # every finished run is complete and readable
    for k in done:
        rec = store.record(k)
        assert rec["summary"]["jobs"] == 400
        assert len(store.jobs(k)) == 400
    # resuming runs only what is missing, and gives the same table as an uninterrupted sweep
    w = sl.synthetic.generate(jobs=400, seed=5, rate=0.5, maps=("randint", 5, 30), reduces=("randint", 1, 5))
    args = (["fifo", "fair"], {"nodes": [4, 8]}, w, range(6))
    resumed = sl.sweep(*args, store=store_dir, progress=False)
    assert set(resumed.loc[resumed["cached"], "run_key"]) == done
    assert (~resumed["cached"]).sum() == 24 - len(done)
    fresh = sl.sweep(*args, progress=False)
    cols = [c for c in fresh.columns if c not in ("cached", "wall_seconds")]
    pd.testing.assert_frame_equal(resumed[cols], fresh[cols])
    store.clean()
    assert len(store.keys()) == 24
