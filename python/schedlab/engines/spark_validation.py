"""The spark engine checked against a real Spark cluster on this machine.

    python -m schedlab.engines.spark_validation [--runs fifo,fair,cached] [--seed 0] [--out DIR]

Starts Spark's ``local-cluster[2,2,1024]`` (two executors of two cores on one host; needs the
optional extra ``schedlab[spark]`` = pyspark, and Java 17), runs synthetic applications whose
tasks sleep for chosen durations, reads Spark's own event log, simulates the same workload --
the chosen sleep durations, the recorded job submission times, the same pools -- and compares
each Spark job's completion time and each task's launch time.

The real system's fixed costs are measured once, by a calibration run at the start of each
application (a warm-up job, then :func:`calibrate`'s job), and become the engine options ``task_launch_overhead`` (a
task's recorded duration beyond its sleep), ``stage_submit_delay`` (a job's submission, or its
parent stage's end, to its stage's first launch, beyond the above) and ``first_task_overhead``
(a Python worker's start on a core's first task; the calibration run warms every core, so the
runs after it do not pay it). The runs:

* ``fifo``: FIFO scheduling mode; three jobs submitted 0.4 s apart, each a chain of 2-4 stages
  (shuffles) of 2-6 tasks sleeping 0.2-1.2 s;
* ``fair``: FAIR mode, pools ``a`` (weight 1) and ``b`` (weight 2, minShare 2, FAIR inside);
  four such jobs alternating between the pools;
* ``cached``: FIFO; a job caches an RDD of 4 partitions, then two jobs read it at once (tasks
  prefer the executor holding their partition: delay scheduling by PROCESS_LOCAL).

:func:`validate` returns a table with one row per Spark job (recorded and simulated completion,
relative error) and per-task launch errors; ``docs/spark.md`` reports the figures.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time

import numpy as np
import pandas as pd

from ..core.simulate import simulate
from ..core.workload import Workload
from ..workloads.traces.spark_eventlog import read_spark_eventlog
from . import spark as spark_engine

POOLS_XML = """<?xml version="1.0"?>
<allocations>
  <pool name="a"><schedulingMode>FIFO</schedulingMode><weight>1</weight><minShare>0</minShare></pool>
  <pool name="b"><schedulingMode>FAIR</schedulingMode><weight>2</weight><minShare>2</minShare></pool>
</allocations>
"""


def available() -> str | None:
    """None when pyspark and Java are there, else what is missing."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'schedlab[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "java is not installed (Debian: openjdk-17-jre-headless)"
    return None


# ------------------------------------------------------------------------------ workloads

def chain_jobs(rng, n_jobs, pools, gap=0.4, tasks=(2, 6), sleep=(0.2, 1.2), stages=(2, 4)):
    """Jobs as dicts: offset (s), pool, stages (a list of per-task sleep lists)."""
    out = []
    for k in range(n_jobs):
        n_st = int(rng.integers(stages[0], stages[1] + 1))
        st = [[round(float(x), 2) for x in rng.uniform(sleep[0], sleep[1], int(rng.integers(tasks[0], tasks[1] + 1)))]
              for _ in range(n_st)]
        out.append({"offset": gap * k, "pool": pools[k % len(pools)], "stages": st, "cached": False})
    return out


def run_specs(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "fifo": {"mode": "FIFO", "jobs": chain_jobs(rng, 3, ["default"])},
        "fair": {"mode": "FAIR", "jobs": chain_jobs(rng, 4, ["a", "b"])},
        "cached": {"mode": "FIFO", "jobs": [
            {"offset": 0.0, "pool": "default", "stages": [[0.3] * 4], "cached": "make"},
            {"offset": 0.0, "pool": "default", "stages": [[round(float(x), 2) for x in rng.uniform(0.5, 1.5, 4)]],
             "cached": "read", "after": 0},
            {"offset": 0.3, "pool": "default", "stages": [[round(float(x), 2) for x in rng.uniform(0.5, 1.5, 4)]],
             "cached": "read", "after": 0},
        ]},
    }


# the warm-up starts each core's Python worker; the calibration job then measures the fixed costs
WARMUP = {"offset": 0.0, "pool": "default", "stages": [[0.1] * 4, [0.1] * 4], "cached": False}
CALIBRATION = {"offset": 0.0, "pool": "default", "stages": [[0.3] * 8, [0.3] * 8], "cached": False}


# ------------------------------------------------------------------------------ running Spark

def _sleeper(durations):
    def f(index, it):
        import time as _t
        for _ in it:
            pass
        _t.sleep(durations[index])
        # one record per partition of the next stage (partitionBy sends key i to partition i)
        return iter([(i, 0) for i in range(64)])
    return f


def _run_job(sc, tag, job, cache_store):
    sc.setLocalProperty("spark.scheduler.pool", job["pool"])
    sc.setJobDescription(tag)
    st = job["stages"]
    if job.get("cached") == "read":
        rdd = cache_store["rdd"].mapPartitionsWithIndex(_sleeper(st[0]))
    else:
        rdd = sc.parallelize(range(len(st[0])), len(st[0])).mapPartitionsWithIndex(_sleeper(st[0]))
    for durations in st[1:]:
        rdd = rdd.partitionBy(len(durations)).mapPartitionsWithIndex(_sleeper(durations))
    if job.get("cached") == "make":
        rdd = rdd.cache()
        cache_store["rdd"] = rdd
        rdd.count()
        return
    rdd.count()


def run_app(specs: dict, log_dir: str, mode: str, pools_xml: str | None = None, master="local-cluster[2,2,1024]"):
    """Runs the calibration job and then each run of ``specs`` (jobs started at their offsets in
    threads; a run starts when the one before has ended) in one Spark application; returns its
    event log path."""
    from pyspark.sql import SparkSession
    b = (SparkSession.builder.master(master).appName(f"schedlab-validation-{mode}")
         .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", log_dir)
         .config("spark.eventLog.compress", "false").config("spark.eventLog.rolling.enabled", "false")
         .config("spark.ui.enabled", "false").config("spark.scheduler.mode", mode)
         .config("spark.python.worker.reuse", "true"))
    if pools_xml:
        b = b.config("spark.scheduler.allocation.file", pools_xml)
    spark = b.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    try:
        deadline = time.time() + 120
        while sc._jsc.sc().getExecutorMemoryStatus().size() < 3 and time.time() < deadline:  # driver + 2 executors
            time.sleep(0.2)
        _run_job(sc, "warmup/0", WARMUP, {})
        _run_job(sc, "calibration/0", CALIBRATION, {})
        for name, spec in specs.items():
            store = {}
            threads = []
            t0 = time.time()
            jobs = spec["jobs"]
            for k, job in enumerate(jobs):
                if job.get("cached") == "make":
                    _run_job(sc, f"{name}/{k}", job, store)  # the cache exists before the readers start
                    t0 = time.time()
                    continue

                def go(k=k, job=job):
                    time.sleep(max(0.0, t0 + job["offset"] - time.time()))
                    _run_job(sc, f"{name}/{k}", job, store)
                threads.append(threading.Thread(target=go))
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        spark.stop()
    logs = [os.path.join(log_dir, f) for f in os.listdir(log_dir) if not f.endswith(".inprogress")]
    return max(logs, key=os.path.getmtime)


# ------------------------------------------------------------------------------ model side

def _stages_of(log, prefix):
    """(Spark job row, its stage ids in chain order) for the jobs whose description starts with prefix."""
    jobs = log.jobs[log.jobs["description"].fillna("").str.startswith(prefix)]
    return [(row, sorted(row.stages)) for row in jobs.itertuples()]


def calibrate(w: Workload) -> dict:
    """The fixed costs, from the warm-up and calibration jobs of an application's event log:
    ``task_launch_overhead`` = the median of the calibration tasks' recorded durations beyond
    their sleep; ``stage_submit_delay`` = the median of (job submission to its first stage's
    first launch) and (the first stage's last end to the second stage's first launch);
    ``first_task_overhead`` = the warm-up tasks' (each core's first) median duration beyond their
    sleep and the launch overhead (its second stage warms the workers' shuffle reading)."""
    log = w.spark
    ok = log.attempts[log.attempts["succeeded"]]
    (job, stages), = _stages_of(log, "calibration/")
    a = ok[ok["stage"].isin(stages)]
    launch_overhead = float(max(np.median(a["finish_time"] - a["launch_time"] - 0.3), 0.0))
    s0, s1 = a[a["stage"] == stages[0]], a[a["stage"] == stages[1]]
    delays = [s0["launch_time"].min() - job.submit_time, s1["launch_time"].min() - s0["finish_time"].max()]
    (_, wstages), = _stages_of(log, "warmup/")
    wa = ok[ok["stage"].isin(wstages)]
    wa = wa[wa["stage"] == wstages[0]]
    first_overhead = float(max(np.median(wa["finish_time"] - wa["launch_time"] - 0.1) - launch_overhead, 0.0))
    return {"task_launch_overhead": launch_overhead, "first_task_overhead": first_overhead,
            "stage_submit_delay": float(max(np.median(delays), 0.0))}


def model_workload(w: Workload, run: str, spec: dict) -> Workload:
    """The run's stages with the chosen sleep durations as work (not the recorded durations)."""
    log = w.spark
    jobs_tab = w.jobs.set_index("job_id")
    rows, tasks = [], []
    for row, stages in _stages_of(log, f"{run}/"):
        k = int(row.description.split("/")[1])
        job = spec["jobs"][k]
        if job.get("cached") == "make":
            continue
        if len(stages) != len(job["stages"]):
            raise ValueError(f"run {run} job {k}: {len(stages)} stages in the log, {len(job['stages'])} in the spec")
        for sid, durations in zip(stages, job["stages"]):
            parents = [p for p in jobs_tab.loc[sid, "parents"] if p in stages]
            rows.append({"job_id": sid, "submit_time": row.submit_time, "user": row.pool, "dag": row.job_id,
                         "parents": parents})
            for i, d in enumerate(durations):
                tasks.append({"job_id": sid, "work": d, "task_index": i})
    jt, tt = pd.DataFrame(rows), pd.DataFrame(tasks)
    # preferred locations as the reader inferred them, by (stage, task index); a stage's tasks
    # are in index order in the workload
    pref = {}
    _, t = w.native().columns()
    rb, rn = np.asarray(t["replica_begin"]), np.asarray(t["replica_node"])
    if len(rb):
        wt = w.tasks
        for tid, (sid, ti) in enumerate(zip(wt["job_id"], wt.groupby("job_id").cumcount())):
            nodes = rn[rb[tid]:rb[tid + 1]]
            if len(nodes):
                pref[(sid, ti)] = [int(x) for x in nodes]
    tt["replicas"] = [pref.get((s, i)) for s, i in zip(tt["job_id"], tt["task_index"])]
    return Workload.from_frames(jt, tt.drop(columns=["task_index"]), name=f"{run}", source=f"validation run {run}")


def compare(w: Workload, run: str, spec: dict, costs: dict, pools_xml: str | None, mode: str, seed=0):
    """Simulates one run and returns (per-job table, per-task launch errors)."""
    mw = model_workload(w, run, spec)
    log = w.spark
    opts = dict(costs)
    opts["first_task_overhead"] = 0.0  # the calibration run warmed every core's Python worker
    opts["executors_per_host"] = log.options.get("executors_per_host", 1)
    opts["executor_start_time"] = float(np.nanmax(log.executors["added"]))
    sched = spark_engine.fair(mw, pools=pools_xml) if mode == "FAIR" else "spark_fifo"
    r = simulate(log.cluster(), mw, sched, seed=seed, **opts)
    d = r.dags.set_index("dag")
    rec = log.jobs.set_index("job_id")
    rows = []
    for dag in d.index:
        real = rec.loc[dag, "finish_time"] - rec.loc[dag, "submit_time"]
        sim = d.loc[dag, "completion_time"]
        rows.append({"run": run, "mode": mode, "spark_job": int(dag), "description": rec.loc[dag, "description"],
                     "recorded": float(real), "simulated": float(sim), "rel_error": float(abs(sim - real) / real)})
    # task launches: simulated start vs recorded launch of the successful attempt, by (stage, index)
    mt = mw.tasks
    sim_start = r.tasks.groupby("task_id")["start"].min()
    a = log.attempts[log.attempts["succeeded"]].drop_duplicates(["stage", "index"]).set_index(["stage", "index"])["launch_time"]
    errs = []
    for tid, (sid, ti) in enumerate(zip(mt["job_id"], mt.groupby("job_id").cumcount())):
        if tid in sim_start.index and (sid, ti) in a.index:
            errs.append({"run": run, "stage": int(sid), "index": int(ti), "recorded": float(a.loc[(sid, ti)]),
                         "simulated": float(sim_start.loc[tid]), "error": float(sim_start.loc[tid] - a.loc[(sid, ti)])})
    return pd.DataFrame(rows), pd.DataFrame(errs)


def validate(runs=("fifo", "fair", "cached"), seed=0, out=None, master="local-cluster[2,2,1024]"):
    """Runs the validation; returns (jobs table, task launch table, costs by application)."""
    missing = available()
    if missing:
        raise RuntimeError(f"spark validation: {missing}")
    specs = run_specs(seed)
    work = out or tempfile.mkdtemp(prefix="schedlab-spark-")
    os.makedirs(work, exist_ok=True)
    xml = os.path.join(work, "fairscheduler.xml")
    with open(xml, "w") as f:
        f.write(POOLS_XML)
    by_mode = {}
    for r in runs:
        by_mode.setdefault(specs[r]["mode"], {})[r] = specs[r]
    job_tabs, task_tabs, costs_by = [], [], {}
    for mode, group in by_mode.items():
        log_dir = os.path.join(work, f"logs-{mode.lower()}")
        os.makedirs(log_dir, exist_ok=True)
        path = run_app(group, log_dir, mode, xml if mode == "FAIR" else None, master=master)
        w = read_spark_eventlog(path)
        costs = calibrate(w)
        costs_by[mode] = costs | {"log": path}
        for run, spec in group.items():
            j, t = compare(w, run, spec, costs, xml if mode == "FAIR" else None, mode, seed=seed)
            job_tabs.append(j)
            task_tabs.append(t)
    return pd.concat(job_tabs, ignore_index=True), pd.concat(task_tabs, ignore_index=True), costs_by


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="fifo,fair,cached")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="folder for the event logs (default: a temporary one)")
    args = ap.parse_args(argv)
    jobs, tasks, costs = validate(args.runs.split(","), seed=args.seed, out=args.out)
    pd.set_option("display.width", 200)
    for mode, c in costs.items():
        print(f"calibration ({mode} application): " + ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                                             for k, v in c.items()))
    print(jobs.to_string(float_format=lambda x: f"{x:.3f}"))
    e = jobs["rel_error"]
    print(f"job completion: median abs error {100 * e.median():.1f} %, p90 {100 * e.quantile(0.9):.1f} %, "
          f"max {100 * e.max():.1f} % over {len(e)} jobs")
    te = tasks["error"].abs()
    print(f"task launch: median abs error {te.median():.3f} s, p90 {te.quantile(0.9):.3f} s over {len(te)} tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
