"""Ctrl-C stops a simulation: the core runs without the GIL but polls Python's pending signals,
so a KeyboardInterrupt reaches the caller of simulate (a notebook cell, a script) instead of
waiting for a run that may not end. Each case runs in a child process that sends itself SIGINT
while it simulates a job of 10^12 s; the parent's timeout only guards against a hang."""
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading
    import pandas as pd
    import schedlab as sl

    engine = sys.argv[1]
    jobs = pd.DataFrame({"job_id": [0, 1], "submit_time": [0.0, 1.0]})
    tasks = pd.DataFrame({"job_id": [0, 1], "work": [1e12, 1.0]})
    wl = sl.Workload.from_frames(jobs, tasks)

    class Greedy(sl.Scheduler):  # a scheduler written in Python
        def on_heartbeat(self, sim, node):
            for job in sim.active_jobs():
                while sim.free_slots(node, sl.MAP) > 0 and (t := sim.find_map(job, node)) >= 0:
                    sim.launch(t, node)

    scheduler = {"mapreduce": "fair", "worker": "eagle", "share": "drf", "python": Greedy()}[engine]
    options = {"sample_interval": 1.0} if engine == "share" else {}
    if engine == "mapreduce":  # a speculator keeps every heartbeat (without, the nodes sleep through the task)
        options["speculation"] = "hadoop"
    options |= {"max_events": float("inf"), "max_memory": float("inf")}  # past the resource guard, on purpose
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        sl.simulate(sl.Cluster(nodes=4, map_slots=1, reduce_slots=1), wl, scheduler, **options)
    except KeyboardInterrupt:
        print("interrupted")
        # the package works on after an interrupt
        r = sl.simulate(sl.Cluster(nodes=2, map_slots=1, reduce_slots=1), sl.datasets.load("demo_mix"), "fifo")
        print("then ran", len(r.jobs), "jobs")
    else:
        print("ran to the end")
""")


@pytest.mark.parametrize("engine", ["mapreduce", "worker", "share", "python"])
def test_sigint_stops_a_simulation(engine):
    done = subprocess.run([sys.executable, "-c", SCRIPT, engine], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["interrupted", "then ran 20 jobs"], done.stdout + done.stderr
