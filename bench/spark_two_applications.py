"""Two Spark applications on a real standalone cluster, replayed on the spark engine's Master.

    python bench/spark_two_applications.py --out DIR [--cores-max 0] [--gap 3]

Needs pyspark (``schedlab[spark]``) and Java 17. Starts a standalone Master and one Worker of
four cores (``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker`` from
pyspark's own scripts), submits two applications ``--gap`` seconds apart, each with two Spark
jobs (eight tasks sleeping 1 s; then a shuffle: eight 1 s map tasks, four 1 s reduce tasks) and
``spark.cores.max`` = ``--cores-max`` (0: unset, so the first application takes the worker's four
cores and the second waits for its end). Then reads both event logs together
(``read_trace([...], format="spark_eventlog")``), replays them on one worker of four cores with
the recorded task durations and prints each Spark job's recorded and simulated completion times.
``executor_start_time`` is measured from the run: with ``--cores-max 0`` from the first
application's last job's end to the second one's executor registration (the release of the
cores, the Master's launch and the executor's start); else from the first application's start
to its executor's registration.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pandas as pd

import schedlab as sl
from schedlab.engines import spark

APP = textwrap.dedent('''
    import sys, time
    from operator import add
    from pyspark.sql import SparkSession
    name, evdir, cores_max = sys.argv[1], sys.argv[2], sys.argv[3]
    b = (SparkSession.builder.master("spark://127.0.0.1:7077").appName(name)
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", evdir)
         .config("spark.executor.memory", "512m").config("spark.driver.memory", "512m").config("spark.ui.enabled", "false"))
    if cores_max != "0":
        b = b.config("spark.cores.max", cores_max)
    sc = b.getOrCreate().sparkContext
    def slow(x):
        time.sleep(1.0)
        return x
    sc.parallelize(range(8), 8).map(slow).count()
    sc.parallelize(range(8), 8).map(slow).map(lambda x: (x % 4, x)).reduceByKey(add, 4).map(slow).collect()
    sc.stop()
''')


def record(out: str, cores_max: int, gap: float) -> list[str]:
    """Runs the two applications; returns their event logs."""
    import pyspark
    home = os.path.dirname(pyspark.__file__)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    app = os.path.join(out, "app.py")
    with open(app, "w") as f:
        f.write(APP)
    env = dict(os.environ, SPARK_HOME=home, SPARK_NO_DAEMONIZE="1", PYSPARK_PYTHON=sys.executable)
    log = open(os.path.join(out, "cluster.log"), "w")
    cls = os.path.join(home, "bin", "spark-class")
    master = subprocess.Popen([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", "7077",
                               "--webui-port", "18089"], env=env, stdout=log, stderr=log)
    time.sleep(6)
    worker = subprocess.Popen([cls, "org.apache.spark.deploy.worker.Worker", "--cores", "4", "--memory", "2g",
                               "--webui-port", "18091", "spark://127.0.0.1:7077"], env=env, stdout=log, stderr=log)
    time.sleep(8)
    try:
        a = subprocess.Popen([sys.executable, app, "first", out, str(cores_max)], env=env, stdout=log, stderr=log)
        time.sleep(gap)
        b = subprocess.Popen([sys.executable, app, "second", out, str(cores_max)], env=env, stdout=log, stderr=log)
        a.wait(timeout=600)
        b.wait(timeout=600)
    finally:
        for p in (worker, master):
            p.terminate()
            p.wait()
    return sorted(glob.glob(os.path.join(out, "eventlog_v2_*")) + glob.glob(os.path.join(out, "app-*")))


def compare(logs: list[str], cores_max: int) -> pd.DataFrame:
    w = sl.read_trace(logs, format="spark_eventlog")
    apps = list(w.spark_applications.index)
    first, second = (w.spark_logs[a] for a in apps)
    arrival2 = float(w.spark_applications.loc[apps[1], "arrival"])
    if cores_max == 0:
        est = float(second.executors["added"].min() + arrival2 - first.jobs["finish_time"].max())
    else:
        est = float(first.executors["added"].min())
    r = sl.simulate(spark.cluster(1, 4), w, "spark_fifo", executor_start_time=est)
    sim = r.jobs.groupby("dag")["finish_time"].max()
    rows = []
    for a in apps:
        log = w.spark_logs[a]
        off = float(w.spark_applications.loc[a, "arrival"])
        for _, j in log.jobs.iterrows():
            submit = j["submit_time"] + off
            rec, got = j["finish_time"] + off - submit, sim[f"{a}/{j['job_id']}"] - submit
            rows.append({"application": a, "spark_job": j["job_id"], "recorded": rec, "simulated": got,
                         "error_%": 100 * abs(got - rec) / rec})
    table = pd.DataFrame(rows)
    print(f"executor_start_time {est:.2f} s; second application's first task: recorded "
          f"{second.attempts['launch_time'].min() + arrival2:.2f} s, simulated "
          f"{r.tasks[r.tasks['job_id'].str.startswith(apps[1])]['start'].min():.2f} s")
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cores-max", type=int, default=0)
    ap.add_argument("--gap", type=float, default=3.0)
    args = ap.parse_args(argv)
    logs = record(args.out, args.cores_max, args.gap)
    table = compare(logs, args.cores_max)
    print(table.round(3).to_string(index=False))
    print(f"median error {table['error_%'].median():.1f} %, max {table['error_%'].max():.1f} %; "
          f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
