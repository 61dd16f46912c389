"""sweep() on a Dask cluster of several worker processes gives the same table as a local run."""
import os
import pathlib

import pandas as pd
import pytest

import schedlab as sl

distributed = pytest.importorskip("distributed")
PYTHON_DIR = pathlib.Path(sl.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    # worker processes must import the same schedlab as this process
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(PYTHON_DIR) + (os.pathsep + old if old else "")
    try:
        cluster = distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
        c = distributed.Client(cluster)
        yield c
        c.close()
        cluster.close()
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def workloads():
    return {"syn": sl.synthetic.generate(jobs=30, seed=4, rate=0.1, users=3, name="syn"), "demo": "demo_mix"}


def test_dask_cluster_gives_the_same_tables_as_local_threads(client, tmp_path):
    assert len(client.scheduler_info()["workers"]) == 3
    args = (["fifo", sl.grid("fair", locality_delay=[0, 5])], {"nodes": [4, 6], "racks": 2}, workloads(), range(2))
    local = sl.sweep(*args, jobs=True, workers=2, store=tmp_path / "local", progress=False)
    remote = sl.sweep(*args, jobs=True, client=client, store=tmp_path / "dask", progress=False)
    assert not remote.runs["cached"].any()
    cols = [c for c in local.runs.columns if c not in ("wall_seconds",)]
    pd.testing.assert_frame_equal(local.runs[cols], remote.runs[cols])
    pd.testing.assert_frame_equal(local.jobs, remote.jobs)
    in_memory = sl.sweep(*args, jobs=True, workers=2, progress=False)
    pd.testing.assert_frame_equal(in_memory.runs[cols], remote.runs[cols])
    pd.testing.assert_frame_equal(in_memory.jobs, remote.jobs, check_dtype=False)
    # the runs really went to the workers, and the store now holds them all
    assert len(sl.store.Store(tmp_path / "dask").keys()) == len(local.runs)
    again = sl.sweep(*args, client=client, store=tmp_path / "dask", progress=False)
    assert again["cached"].all()


def test_workloads_and_clusters_pickle_for_workers():
    import pickle
    w = sl.datasets.load("demo_mix")
    w2 = pickle.loads(pickle.dumps(w))
    assert w2.fingerprint() == w.fingerprint() and w2.name == w.name
    pd.testing.assert_frame_equal(w2.jobs, w.jobs)
    c = sl.Cluster(nodes=5, racks=2, speeds=[1, 1, 2, 2, 3])
    c.native()
    c2 = pickle.loads(pickle.dumps(c))
    assert c2.config() == c.config()
    a = sl.simulate(c, w, "fair", seed=3).summary()
    b = sl.simulate(c2, w2, "fair", seed=3).summary()
    pd.testing.assert_series_equal(a, b)


def test_workers_and_client_together_are_rejected(client):
    with pytest.raises(ValueError, match="not both"):
        sl.sweep("fifo", sl.Cluster(nodes=2), "demo_mix", client=client, workers=2, progress=False)
