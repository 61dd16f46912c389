"""``schedlab replay``: a Spark event log replayed under other schedulers and cluster sizes."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from .args import kv

PERCENTILES = (50, 90, 99)


def replay(log_path, schedulers=("spark_fifo", "spark_fair"), *, executors=None, cores=None, pools=None,
           options=None, seed=0):
    """Replays the Spark event log ``log_path`` under each scheduler and returns (workload, a
    table with one row per scheduler -- and 'recorded' for the log itself -- of Spark job
    completion times: mean, percentiles, makespan). Spark schedulers run on the spark engine;
    others (e.g. the Hadoop 'fair' scheduler) on their engine, the stages as a DAG of jobs and each
    executor as a node with its cores as map slots. ``executors``/``cores`` replace the recorded
    executors (default: as recorded).

    A list of event logs replays several applications together on a standalone cluster (the
    spark engine's Master; docs/spark.md): its workers are the hosts the executors ran on
    (``executors``/``cores``: that many workers of that many cores), each application arrives
    at its recorded start with its spark.cores.max and spark.executor.cores."""
    import schedlab as sl
    from ..engines import spark

    several = isinstance(log_path, (list, tuple)) and len(log_path) > 1
    if isinstance(log_path, (list, tuple)) and not several:
        log_path = log_path[0]
    w = sl.read_trace(list(log_path) if several else log_path, format="spark_eventlog")
    logs = list(w.spark_logs.values()) if several else [w.spark]
    log = logs[0]
    if executors is None and cores is None:
        cluster = w.spark_workers if several else log.cluster()
    else:
        n = executors if executors is not None else (w.spark_workers.n_nodes if several else len(log.executors))
        c = cores if cores is not None else int(max(lg.executors["cores"].max() for lg in logs))
        cluster = spark.cluster(n, c)
    rows = {}
    t0 = min(lg.app_start for lg in logs)
    rec = pd.concat([lg.jobs.assign(submit_time=lg.jobs["submit_time"] + lg.app_start - t0,
                                    finish_time=lg.jobs["finish_time"] + lg.app_start - t0) for lg in logs])
    rec = rec.dropna(subset=["finish_time"])
    rec = rec[rec["stages"].map(len) > 0]
    rows["recorded"] = _row((rec["finish_time"] - rec["submit_time"]).to_numpy(float),
                            float(rec["finish_time"].max() - rec["submit_time"].min()) if len(rec) else np.nan)
    engine_options = {k: v for k, v in log.options.items()
                      if not ((executors is not None or several) and k == "executors_per_host")}
    engine_options.update(options or {})
    results = {}
    for name in schedulers:
        t0 = time.perf_counter()
        if name == "spark_fair":
            sched = spark.fair(w, pools=pools)
        else:
            sched = sl.schedulers.get(name)
        engine = getattr(sched, "engine", None)
        opts = dict(engine_options) if engine == "spark" else dict(options or {})
        r = sl.simulate(cluster, w, sched, seed=seed, **opts)
        d = r.dags
        rows[name] = _row(d["completion_time"].to_numpy(float), float(d["finish_time"].max() - d["submit_time"].min()))
        rows[name]["seconds"] = time.perf_counter() - t0
        results[name] = r
    return w, pd.DataFrame(rows).T, results


def _row(ct, makespan):
    ct = ct[np.isfinite(ct)]
    out = {"jobs": float(len(ct)), "mean_job_time": float(ct.mean()) if len(ct) else np.nan}
    for p in PERCENTILES:
        out[f"p{p}_job_time"] = float(np.percentile(ct, p)) if len(ct) else np.nan
    out["makespan"] = makespan
    return out


def cmd_replay(args) -> int:
    _, table, _ = replay(args.log, args.scheduler or ["spark_fifo", "spark_fair"], executors=args.executors,
                         cores=args.cores, pools=args.pools, options=kv(args.option, "--option"), seed=args.seed)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(float_format=lambda x: f"{x:.3f}"))
    return 0


def add_command(sub):
    p = sub.add_parser("replay", help="replay a Spark event log under other schedulers or cluster sizes",
                       description="Reads a Spark event log (a file, plain or .zstd/.lz4/.snappy, or a rolling "
                                   "eventlog_v2_* directory), simulates its stages under each scheduler and prints "
                                   "the Spark jobs' completion times (mean, p50, p90, p99) and the makespan, next "
                                   "to the recorded ones.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", nargs="+", help="the event log file or eventlog_v2_* directory; several: the applications "
                                          "replayed together on a standalone cluster")
    p.add_argument("--scheduler", action="append",
                   help="scheduler (repeatable; default spark_fifo and spark_fair); others run the stages as a DAG "
                        "of jobs on their own engine")
    p.add_argument("--executors", type=int, default=None, help="number of executors (default: as recorded)")
    p.add_argument("--cores", type=int, default=None, help="cores per executor (default: as recorded)")
    p.add_argument("--pools", default=None, help="fairscheduler.xml for spark_fair")
    p.add_argument("--option", action="append", help="engine option name=value (repeatable)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_replay)
