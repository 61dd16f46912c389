"""Ctrl-C stops a sweep on threads (runs already going on the pool's threads, which see no
signal, are cancelled through schedlab._core.cancel_runs with the sweep's scope), a sweep on a
Dask cluster (the runs its worker processes started are cancelled too), a sweep of a scheduler
written in Python, and a single long worker-engine job;
the results store stays readable and holds the runs that finished. Each case runs in a child
process that sends itself SIGINT; the parent's timeout only guards against a hang."""
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import schedlab as sl


# The child scripts' common start: a quick and an endless workload, and a thread that sends SIGINT
# once the quick run is in the store (polls x 0.1 s at most, then `settle` seconds for the endless
# run to get going).
def _child_prelude(polls=600, settle=0.5, imports=""):
    return textwrap.dedent("""
        import os, signal, sys, threading, time
        import pandas as pd
        import schedlab as sl
    """) + imports + textwrap.dedent("""
        store = sys.argv[1]
        quick = sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                        pd.DataFrame({"job_id": [0], "work": [1.0]}), name="quick")
        # (a speculator keeps the nodes heartbeating through the endless map: without, they sleep)
        endless = sl.Workload.from_frames(pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.0]}),
                                          pd.DataFrame({"job_id": [0, 1], "work": [1e12, 1.0]}), name="endless")

        def interrupt_once_the_quick_run_is_stored():
            for _ in range(POLLS):
                if os.path.isdir(store) and sl.store.Store(store).keys():
                    break
                time.sleep(0.1)
            time.sleep(SETTLE)
            os.kill(os.getpid(), signal.SIGINT)
    """).replace("POLLS", str(polls)).replace("SETTLE", str(settle))


SWEEP = _child_prelude() + textwrap.dedent("""
    threading.Thread(target=interrupt_once_the_quick_run_is_stored, daemon=True).start()
    try:
        sl.sweep(["fair"], {"nodes": [4]}, {"quick": quick, "endless": endless}, seeds=[0],
                 options={"max_events": float("inf"), "max_memory": float("inf"), "speculation": "hadoop"},
                 store=store, workers=2,
                 progress=False)
    except KeyboardInterrupt:
        print("interrupted")
    else:
        print("ran to the end")
    st = sl.store.Store(store)
    print("stored", len(st.keys()), len(st.table()))
""")


def test_sigint_stops_a_threaded_sweep_and_keeps_the_store(tmp_path):
    done = subprocess.run([sys.executable, "-c", SWEEP, str(tmp_path / "store")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert lines[0] == "interrupted", done.stdout + done.stderr
    assert lines[1] == "stored 1 1", done.stdout + done.stderr  # the finished run, readable


LONG_JOB = textwrap.dedent("""
    import os, signal, threading
    import numpy as np, pandas as pd
    import schedlab as sl

    n = 300_000
    wl = sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                 pd.DataFrame({"job_id": np.zeros(n, int), "work": np.full(n, 10000.0)}))
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        sl.simulate(sl.engines.worker.cluster(6), wl, "eagle")
    except KeyboardInterrupt:
        print("interrupted")
    else:
        print("ran to the end")
""")


def test_sigint_stops_one_job_of_300000_tasks_under_eagle():
    done = subprocess.run([sys.executable, "-c", LONG_JOB], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "interrupted", done.stdout + done.stderr


DASK_SWEEP = _child_prelude(polls=1200, settle=1.0,  # (then the endless run is on the worker's only thread)
                            imports="import distributed\n") + textwrap.dedent("""
    if __name__ == "__main__":
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=50)
        client = distributed.Client(cluster)
        threading.Thread(target=interrupt_once_the_quick_run_is_stored, daemon=True).start()
        try:
            sl.sweep(["fair"], {"nodes": [4]}, {"quick": quick, "endless": endless}, seeds=[0],
                     options={"max_events": float("inf"), "max_memory": float("inf"), "speculation": "hadoop"},
                     store=store,
                     client=client, progress=False)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        else:
            print("ran to the end", flush=True)
        st = sl.store.Store(store)
        print("stored", len(st.keys()), len(st.table()), flush=True)
        # the worker's only thread is free again: the endless run stopped (before, it ran on)
        try:
            print("worker free", client.submit(sum, [1, 2], pure=False).result(timeout=30), flush=True)
        except Exception as e:
            print("worker busy", type(e).__name__, flush=True)
        client.close()
        cluster.close()
""")


def test_sigint_stops_a_dask_sweep_and_the_runs_on_its_workers(tmp_path):
    pytest.importorskip("distributed")
    script = tmp_path / "dask_sweep.py"  # a file: the worker processes re-import the main module
    script.write_text(DASK_SWEEP)
    env = dict(os.environ)
    python_dir = str(pathlib.Path(sl.__file__).resolve().parents[1])  # the workers import this schedlab
    env["PYTHONPATH"] = python_dir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "store")], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)
    lines = done.stdout.split("\n")
    assert lines[:3] == ["interrupted", "stored 1 1", "worker free 3"], done.stdout + done.stderr


SLOW_PYTHON_SWEEP = _child_prelude() + textwrap.dedent("""
    class Slow(sl.Scheduler):
        # a scheduler written in Python whose heartbeats take 2 ms: the engine's own poll, every
        # 2^20 events, would come after more than half an hour
        name = "slow_fifo"

        def on_heartbeat(self, sim, node):
            time.sleep(0.002)
            for job in sim.active_jobs():
                while sim.free_slots(node, sl.MAP) > 0 and (t := sim.find_map(job, node)) >= 0:
                    sim.launch(t, node)

    threading.Thread(target=interrupt_once_the_quick_run_is_stored, daemon=True).start()
    try:
        sl.sweep([Slow()], {"nodes": [4]}, {"quick": quick, "endless": endless}, seeds=[0],
                 options={"max_events": float("inf"), "max_memory": float("inf")}, store=store, workers=2,
                 progress=False)
    except KeyboardInterrupt:
        print("interrupted")
    st = sl.store.Store(store)
    print("stored", len(st.keys()), len(st.table()))
""")


def test_sigint_stops_a_sweep_of_a_scheduler_written_in_python(tmp_path):
    # its callbacks poll for the cancellation (every 256): before, the endless run went on until
    # the engine's next poll, 2^20 events later (here hours; 19 s for a plain Python FIFO)
    done = subprocess.run([sys.executable, "-c", SLOW_PYTHON_SWEEP, str(tmp_path / "store")], capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["interrupted", "stored 1 1"], done.stdout + done.stderr


def test_cancelling_a_scope_stops_its_runs_only():
    # a sweep cancels its own runs (its scope) when Ctrl-C or an error ends it: a simulation of
    # another thread of the process goes on until it is cancelled by itself
    import threading

    import pandas as pd

    from schedlab import _core
    endless = sl.Workload.from_frames(pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.0]}),
                                      pd.DataFrame({"job_id": [0, 1], "work": [1e12, 1.0]}))
    outcome = {}

    def run(name, scope):
        _core.set_cancel_scope(scope)
        try:
            sl.simulate(sl.Cluster(4, map_slots=1, reduce_slots=1), endless, "fair", max_events=float("inf"),
                        max_memory=float("inf"), progress=False, speculation="hadoop")  # (heartbeating all along)
            outcome[name] = "ended"
        except KeyboardInterrupt as e:
            outcome[name] = str(e)

    ours = threading.Thread(target=run, args=("ours", 12345))
    other = threading.Thread(target=run, args=("other", 0))
    ours.start()
    other.start()
    try:
        ours.join(0.5)
        _core.cancel_runs(12345)
        ours.join(60)
        assert not ours.is_alive() and outcome["ours"] == "the run was cancelled (schedlab._core.cancel_runs)"
        other.join(0.5)
        assert other.is_alive() and "other" not in outcome
    finally:
        _core.cancel_runs()  # every run of the process
        other.join(60)
    assert outcome["other"] == "the run was cancelled (schedlab._core.cancel_runs)"
