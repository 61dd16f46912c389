"""The ``schedlab`` command line: ``schedlab run``, ``schedlab demo``, ``schedlab schedulers``, ``schedlab sweep``,
``schedlab replay``."""
from __future__ import annotations

import argparse
import sys
import time

import pandas as pd

from . import replay as replay_command
from .args import kv as _kv
from . import sweep as sweep_command

SUMMARY_COLUMNS = ["makespan", "mean_completion_time", "p50_completion_time", "p90_completion_time",
                   "p99_completion_time", "total_flowtime", "fairness_jain", "locality_node", "utilization"]


def _table(results) -> pd.DataFrame:
    rows = {}
    for label, r in results:
        s = r.summary()
        rows[label] = {c: s.get(c) for c in SUMMARY_COLUMNS if c in s}
    return pd.DataFrame(rows).T


def cmd_run(args) -> int:
    import schedlab as sl
    workload = sl.read_trace(args.trace, format=args.format)
    if args.max_jobs:
        jobs, tasks = workload.jobs.head(args.max_jobs), workload.tasks
        tasks = tasks[tasks["job_id"].isin(jobs["job_id"])]
        workload = sl.Workload.from_frames(jobs.drop(columns=["n_maps", "n_reduces", "ideal_time"]), tasks,
                                           name=workload.name)
    cluster = sl.Cluster(nodes=args.nodes, racks=args.racks, map_slots=args.map_slots,
                         reduce_slots=args.reduce_slots, slots=args.slots)
    params = _kv(args.param, "--param")
    options = _kv(args.option, "--option")
    results = []
    for name in args.scheduler:
        t0 = time.perf_counter()
        r = sl.simulate(cluster, workload, sl.schedulers.get(name, **params), seed=args.seed, **options)
        results.append((name, r))
        print(f"# {name}: {r.events} events in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
        if args.jobs_out:
            out = args.jobs_out if len(args.scheduler) == 1 else args.jobs_out.replace(".", f".{name}.", 1)
            (r.jobs.to_parquet if out.endswith(".parquet") else r.jobs.to_csv)(out, index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(_table(results).to_string(float_format=lambda x: f"{x:.3f}"))
    return 0


def cmd_demo(args) -> int:
    import schedlab as sl
    workload = sl.datasets.load("demo_mix", seed=args.seed)
    cluster = sl.Cluster(nodes=10, racks=2, map_slots=2, reduce_slots=2)
    print(f"schedlab demo: {workload.n_jobs} jobs / {workload.n_tasks} tasks of the 'demo_mix' dataset "
          f"on {cluster}")
    results = [(name, sl.simulate(cluster, workload, name, seed=args.seed)) for name in ("fifo", "fair", "capacity")]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(_table(results).to_string(float_format=lambda x: f"{x:.3f}"))
    return 0


def cmd_schedulers(args) -> int:
    import schedlab as sl
    df = sl.schedulers.available()
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(df[["name", "engine", "citation"]].to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="schedlab", description="Simulate cluster schedulers on workload traces.")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a trace against one or more schedulers and print the summary table")
    run.add_argument("--trace", required=True, help="trace file (.tr Hawk/Eagle, .tsv SWIM, ...)")
    run.add_argument("--format", default=None, help="trace format if the suffix does not tell it")
    run.add_argument("--scheduler", action="append", required=True,
                     help="scheduler name (repeat to compare); see 'schedlab schedulers'")
    run.add_argument("--nodes", type=int, default=20, help="number of nodes (default 20)")
    run.add_argument("--racks", type=int, default=1, help="number of racks (default 1)")
    run.add_argument("--map-slots", type=int, default=2, help="map slots per node (default 2)")
    run.add_argument("--reduce-slots", type=int, default=2, help="reduce slots per node (default 2)")
    run.add_argument("--slots", type=int, default=None, help="generic slots per node (worker engines)")
    run.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    run.add_argument("--param", action="append", help="scheduler parameter name=value (repeatable)")
    run.add_argument("--option", action="append", help="engine option name=value, e.g. slowstart=0.5 (repeatable)")
    run.add_argument("--max-jobs", type=int, default=None, help="only the first N jobs of the trace")
    run.add_argument("--jobs-out", default=None, help="write the per-job table to this .csv or .parquet file")
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="compare fifo, fair and capacity on a shipped dataset (a few seconds)")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)

    sch = sub.add_parser("schedulers", help="list every built-in scheduler")
    sch.set_defaults(func=cmd_schedulers)
    sweep_command.add_command(sub)
    replay_command.add_command(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as e:
        print(f"schedlab: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
