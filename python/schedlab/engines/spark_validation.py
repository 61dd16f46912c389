"""The spark engine checked against a real Spark cluster on this machine.

    python -m schedlab.engines.spark_validation [--runs fifo,fair,cached] [--seed 0] [--out DIR]

Starts Spark's ``local-cluster[2,2,1024]`` (two executors of two cores on one host; needs the
optional extra ``schedlab[spark]`` = pyspark, and Java 17), runs synthetic applications whose
tasks sleep for chosen durations, reads Spark's own event log, simulates the same workload --
the chosen sleep durations, the recorded job submission times, the same pools -- and compares
each Spark job's completion time and each task's launch time.

The real system's fixed costs are measured once, by a calibration run at the start of each
application (two warm-up jobs, then :func:`calibrate`'s job), and become the engine options
``task_launch_overhead`` (a task's recorded duration beyond its sleep), ``stage_submit_delay`` (a
job's submission, or its parent stage's end, to its stage's first launch) and
``first_task_overhead`` (a Python worker's start on a core's first task; the warm-up starts every
core's worker, so the runs after it do not pay it). Each run is simulated twice: from the chosen
sleep durations with the calibrated costs (the model's prediction), and from each task's
recorded duration and each stage's recorded submission without costs (a replay, which checks
the task scheduler's decisions alone, whatever the machine's load did to the durations). The
runs:

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


# The first warm-up job starts each core's Python worker; the second takes first-use costs
# (class loading, JIT, the first shuffle fetches) that the event logs show in the first jobs
# after it. The calibration job then measures the fixed costs. Its tasks sleep for staggered
# durations (0.2-1.2 s, as the runs' tasks do): in event logs of a calibration whose tasks all
# slept 0.3 s, the four cores' launches came in waves, contended for the two CPUs and cost 2-4x
# the per-task overhead of the runs' staggered launches.
WARMUP = {"offset": 0.0, "pool": "default", "stages": [[0.1] * 4, [0.1] * 4], "cached": False}
WARMUP2 = {"offset": 0.0, "pool": "default", "stages": [[0.3] * 8, [0.3] * 8], "cached": False}
CALIBRATION = {"offset": 0.0, "pool": "default", "cached": False, "stages": [
    [0.3, 0.9, 0.5, 1.1, 0.2, 0.7, 1.0, 0.4],
    [0.8, 0.2, 1.2, 0.4, 0.6, 1.0, 0.3, 0.5],
    [0.5, 1.1, 0.3, 0.7, 0.9, 0.2, 0.6, 1.2]]}


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


def run_app(specs: dict, log_dir: str, mode: str, pools_xml: str | None = None, master="local-cluster[2,2,1024]",
            loads: dict | None = None):
    """Runs the warm-up and calibration jobs and then each run of ``specs`` (jobs started at their
    offsets in threads; a run starts when the one before has ended) in one Spark application;
    returns its event log path. ``loads`` (a dict) receives each run's 1-minute load average at
    its end (``os.getloadavg``), and the calibration's under ``"calibration"``."""
    loads = {} if loads is None else loads
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
        _run_job(sc, "warmup/1", WARMUP2, {})
        _run_job(sc, "calibration/0", CALIBRATION, {})
        loads["calibration"] = os.getloadavg()[0]
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
            loads[name] = os.getloadavg()[0]
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
    first launch) and (each stage's last end to the next stage's first launch);
    ``first_task_overhead`` = the first warm-up job's first-stage tasks' (each core's first)
    median duration beyond their sleep and the launch overhead."""
    log = w.spark
    ok = log.attempts[log.attempts["succeeded"]]
    (job, stages), = _stages_of(log, "calibration/")
    a = ok[ok["stage"].isin(stages)]
    pos = {sid: k for k, sid in enumerate(stages)}
    sleep = np.array([CALIBRATION["stages"][pos[sid]][i] for sid, i in zip(a["stage"], a["index"])])
    launch_overhead = float(max(np.median(a["finish_time"] - a["launch_time"] - sleep), 0.0))
    by = [a[a["stage"] == s] for s in stages]
    delays = [by[0]["launch_time"].min() - job.submit_time]
    delays += [nxt["launch_time"].min() - prev["finish_time"].max() for prev, nxt in zip(by, by[1:])]
    (_, wstages), = [x for x in _stages_of(log, "warmup/") if x[0].description == "warmup/0"]
    wa = ok[ok["stage"].isin(wstages)]
    wa = wa[wa["stage"] == wstages[0]]
    first_overhead = float(max(np.median(wa["finish_time"] - wa["launch_time"] - 0.1) - launch_overhead, 0.0))
    return {"task_launch_overhead": launch_overhead, "first_task_overhead": first_overhead,
            "stage_submit_delay": float(max(np.median(delays), 0.0))}


def model_workload(w: Workload, run: str, spec: dict, durations: str = "sleep") -> Workload:
    """The run's stages with the chosen sleep durations as work (``durations="sleep"``: what the
    model predicts from, with the calibrated costs) or each task's recorded duration and each
    stage's recorded submission as its submit time (``"recorded"``: the task scheduler's
    decisions alone are checked, the costs and the machine's load being in the durations and the
    driver's stage submissions)."""
    if durations not in ("sleep", "recorded"):
        raise ValueError(f"durations must be 'sleep' or 'recorded', not {durations!r}")
    log = w.spark
    jobs_tab = w.jobs.set_index("job_id")
    ok = log.attempts[log.attempts["succeeded"]].drop_duplicates(["stage", "index"]).set_index(["stage", "index"])
    recorded = (ok["finish_time"] - ok["launch_time"]).to_dict()
    rows, tasks = [], []
    for row, stages in _stages_of(log, f"{run}/"):
        k = int(row.description.split("/")[1])
        job = spec["jobs"][k]
        if job.get("cached") == "make":
            continue
        if len(stages) != len(job["stages"]):
            raise ValueError(f"run {run} job {k}: {len(stages)} stages in the log, {len(job['stages'])} in the spec")
        for sid, sleeps in zip(stages, job["stages"]):
            parents = [p for p in jobs_tab.loc[sid, "parents"] if p in stages]
            submit = row.submit_time if durations == "sleep" else log.stage_submitted.get(sid, row.submit_time)
            rows.append({"job_id": sid, "submit_time": submit, "user": row.pool, "dag": row.job_id,
                         "parents": parents})
            for i, d in enumerate(sleeps):
                work = d if durations == "sleep" else max(float(recorded[(sid, i)]), 1e-3)
                tasks.append({"job_id": sid, "work": work, "task_index": i})
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


def _simulate(w: Workload, mw: Workload, opts: dict, pools_xml, mode: str, seed: int):
    log = w.spark
    opts = dict(opts)
    opts["executors_per_host"] = log.options.get("executors_per_host", 1)
    opts["executor_start_time"] = float(np.nanmax(log.executors["added"]))
    sched = spark_engine.fair(mw, pools=pools_xml) if mode == "FAIR" else "spark_fifo"
    r = simulate(log.cluster(), mw, sched, seed=seed, **opts)
    # each task's first start by (stage, task index); a stage's tasks are in index order
    start = r.tasks.groupby("task_id")["start"].min()
    mt = mw.tasks
    keys = list(zip(mt["job_id"], mt.groupby("job_id").cumcount()))
    starts = {keys[tid]: float(v) for tid, v in start.items()}
    return r.dags.set_index("dag")["completion_time"], starts


def compare(w: Workload, run: str, spec: dict, costs: dict, pools_xml: str | None, mode: str, seed=0):
    """Simulates one run twice and returns (per-job table, per-task launch table). ``simulated``:
    the chosen sleep durations plus the calibrated costs (the model's prediction); ``replayed``:
    each task's recorded duration and each stage's recorded submission, no fixed costs (the task
    scheduler's decisions alone: launch order, executors, pools, delay scheduling)."""
    opts = dict(costs)
    opts["first_task_overhead"] = 0.0  # the warm-up started every core's Python worker
    mw = model_workload(w, run, spec)
    sim_done, sim_start = _simulate(w, mw, opts, pools_xml, mode, seed)
    rw = model_workload(w, run, spec, durations="recorded")
    rep_opts = {}
    rep_done, rep_start = _simulate(w, rw, rep_opts, pools_xml, mode, seed)
    log = w.spark
    rec = log.jobs.set_index("job_id")
    rows = []
    for dag in sim_done.index:
        real = rec.loc[dag, "finish_time"] - rec.loc[dag, "submit_time"]
        sim, rep = sim_done.loc[dag], rep_done.loc[dag]
        rows.append({"run": run, "mode": mode, "spark_job": int(dag), "description": rec.loc[dag, "description"],
                     "recorded": float(real), "simulated": float(sim), "rel_error": float(abs(sim - real) / real),
                     "replayed": float(rep), "replay_error": float(abs(rep - real) / real)})
    # task launches: simulated start vs recorded launch of the successful attempt, by (stage, index)
    a = log.attempts[log.attempts["succeeded"]].drop_duplicates(["stage", "index"]).set_index(["stage", "index"])["launch_time"]
    errs = []
    for key, sim in sim_start.items():
        if key in rep_start and key in a.index:
            real, rep = float(a.loc[key]), rep_start[key]
            errs.append({"run": run, "stage": int(key[0]), "index": int(key[1]), "recorded": real,
                         "simulated": sim, "error": sim - real, "replayed": rep, "replay_error": rep - real})
    return pd.DataFrame(rows), pd.DataFrame(errs)


def summary(jobs: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
    """Per run and over all: job completion errors (median, p90, max; simulated and replayed),
    task launch errors (median absolute, s) and launch-order rank correlations."""
    def block(j, t):
        return {"jobs": len(j), "tasks": len(t),
                "median": j["rel_error"].median(), "p90": j["rel_error"].quantile(0.9), "max": j["rel_error"].max(),
                "replay_median": j["replay_error"].median(), "replay_p90": j["replay_error"].quantile(0.9),
                "replay_max": j["replay_error"].max(),
                "launch_err_s": t["error"].abs().median(), "replay_launch_err_s": t["replay_error"].abs().median(),
                "spearman": t["recorded"].corr(t["simulated"], method="spearman"),
                "replay_spearman": t["recorded"].corr(t["replayed"], method="spearman")}
    rows = {run: block(jobs[jobs["run"] == run], tasks[tasks["run"] == run]) for run in jobs["run"].unique()}
    rows["all"] = block(jobs, tasks)
    return pd.DataFrame(rows).T


def validate(runs=("fifo", "fair", "cached"), seed=0, out=None, master="local-cluster[2,2,1024]"):
    """Runs the validation; returns (jobs table, task launch table, costs by application: the
    calibrated costs, the event log and the 1-minute load average at the end of the calibration
    and of each run)."""
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
        loads = {}
        path = run_app(group, log_dir, mode, xml if mode == "FAIR" else None, master=master, loads=loads)
        w = read_spark_eventlog(path)
        costs = calibrate(w)
        costs_by[mode] = costs | {"log": path} | {f"load_{k}": v for k, v in loads.items()}
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
    print("per run (errors of job completion times as fractions; launch errors in seconds):")
    print(summary(jobs, tasks).to_string(float_format=lambda x: f"{x:.3f}"))
    e = jobs["rel_error"]
    print(f"job completion: median abs error {100 * e.median():.1f} %, p90 {100 * e.quantile(0.9):.1f} %, "
          f"max {100 * e.max():.1f} % over {len(e)} jobs (replayed with the recorded task durations: "
          f"median {100 * jobs['replay_error'].median():.1f} %, p90 {100 * jobs['replay_error'].quantile(0.9):.1f} %)")
    te = tasks["error"].abs()
    print(f"task launch: median abs error {te.median():.3f} s, p90 {te.quantile(0.9):.3f} s over {len(te)} tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
