"""Ctrl-C stops a sweep on threads (runs already going on the pool's threads, which see no
signal, are cancelled through schedlab._core.cancel_runs) and a single long worker-engine job;
the results store stays readable and holds the runs that finished. Each case runs in a child
process that sends itself SIGINT; the parent's timeout only guards against a hang."""
import subprocess
import sys
import textwrap

SWEEP = textwrap.dedent("""
    import os, signal, sys, threading, time
    import pandas as pd
    import schedlab as sl

    store = sys.argv[1]
    quick = sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                    pd.DataFrame({"job_id": [0], "work": [1.0]}), name="quick")
    endless = sl.Workload.from_frames(pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.0]}),
                                      pd.DataFrame({"job_id": [0, 1], "work": [1e12, 1.0]}), name="endless")
    def interrupt_once_the_quick_run_is_stored():
        for _ in range(600):
            if os.path.isdir(store) and sl.store.Store(store).keys():
                break
            time.sleep(0.1)
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_once_the_quick_run_is_stored, daemon=True).start()
    try:
        sl.sweep(["fair"], {"nodes": [4]}, {"quick": quick, "endless": endless}, seeds=[0],
                 options={"max_events": float("inf"), "max_memory": float("inf")}, store=store, workers=2,
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
