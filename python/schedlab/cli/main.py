"""The ``schedlab`` command line: ``run``, ``demo``, ``schedulers``, ``datasets``, ``sweep``,
``replay``, ``config`` (and ``reproduce`` when installed).

Every user error ends the command with one line on stderr, ``schedlab: error: ...``, and exit
code 2; an interrupted command (Ctrl-C) prints one line and exits with 130. A command's results
are printed (and written where asked) before any optional output, so a failure there never loses
a run.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
import time

from .args import kv as _kv

USAGE_ERROR = 2      # exit code of every user error
INTERRUPTED = 130    # exit code after Ctrl-C (128 + SIGINT)

SUMMARY_COLUMNS = ["makespan", "mean_completion_time", "p50_completion_time", "p90_completion_time",
                   "p99_completion_time", "total_flowtime", "fairness_jain", "locality_node", "utilization"]

# what each summary column means, its unit and which way is better (the demo's legend; Result.summary computes them)
METRICS = {
    "makespan": ("s", "lower", "time from the first submission to the last job's end"),
    "mean_completion_time": ("s", "lower", "mean time from a job's submission to its end"),
    "p50_completion_time": ("s", "lower", "median job completion time"),
    "p90_completion_time": ("s", "lower", "90th percentile of job completion time"),
    "p99_completion_time": ("s", "lower", "99th percentile of job completion time"),
    "total_flowtime": ("s", "lower", "sum of all jobs' completion times"),
    "fairness_jain": ("0-1", "higher", "Jain's index of the jobs' slowdowns (1 = every job slowed alike)"),
    "locality_node": ("0-1", "higher", "share of map attempts that ran on a node holding their input"),
    "utilization": ("0-1", "higher", "busy slot-seconds over all slot-seconds until the makespan"),
}

# the command modules beside this one that add a subcommand through add_command(subparsers);
# an optional one missing from this installation is left out
COMMAND_MODULES = ["datasets", "config", "sweep", "replay", "reproduce"]

# files the run command writes, by suffix
TABLE_SUFFIXES = {".csv": "CSV", ".tsv": "tab-separated text", ".parquet": "Parquet (needs pyarrow)",
                  ".json": "JSON records"}

# what the command line estimates for the resource guard, before anything allocates
BYTES_PER_NODE = 400   # the cluster's columns, the engine's node records and per-node state
BYTES_PER_TASK = 200   # the workload's columns, the engine's task and attempt records, the result


class UsageError(Exception):
    """A mistake in the command's input: reported in one line, exit code 2."""


def did_you_mean(word, choices) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, else ``''``."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) and "did you mean" for unknown options and
    commands."""

    def error(self, message):
        import re
        m = re.match(r"unrecognized arguments: (\S+)", message)
        if m:
            opts = _option_strings(self)
            message = f"unknown option {m.group(1)}{did_you_mean(m.group(1).split('=')[0], opts)}"
        m = re.match(r"argument (\S+): invalid choice: '([^']*)'", message)
        if m:
            choices = next((a.choices for a in self._actions if a.choices and m.group(1) in
                            (a.dest, a.metavar, *a.option_strings, "command")), None) or []
            message = f"unknown {m.group(1).strip('{}')} '{m.group(2)}'{did_you_mean(m.group(2), choices)}"
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _option_strings(parser):
    """Every option string of ``parser`` and of its subcommands."""
    out = []
    for a in parser._actions:
        out += a.option_strings
        if isinstance(a, argparse._SubParsersAction):
            for sub in a.choices.values():
                out += _option_strings(sub)
    return out


def _count(low):
    """argparse type: a whole number >= low."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value
    parse.__name__ = f"whole number >= {low}"
    return parse


def _fmt(value) -> str:
    """A metric for a table: four significant digits, never a small value shown as 0.000."""
    import math
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    value = float(value)
    if value == 0 or 1e-3 <= abs(value) < 1e6:
        return f"{value:,.4g}" if abs(value) >= 1000 else f"{value:.4g}"
    return f"{value:.3e}"


def summary_table(results):
    """One row per (label, Result) with the headline metrics."""
    import pandas as pd
    rows = {}
    for label, r in results:
        s = r.summary()
        rows[label] = {c: s.get(c) for c in SUMMARY_COLUMNS if c in s}
    return pd.DataFrame(rows).T


def print_table(df, file=None):
    import pandas as pd
    with pd.option_context("display.width", 220, "display.max_columns", 30):
        print(df.to_string(formatters={c: _fmt for c in df.columns}), file=file or sys.stdout)


# ----------------------------------------------------------------------------- inputs
def load_workload(trace, fmt=None, progress=None):
    """A trace file, or the name of a shipped or downloadable dataset (``schedlab datasets list``)."""
    import schedlab as sl
    from ..workloads import traces
    if fmt is not None and fmt not in traces.READERS:
        raise UsageError(f"unknown --format '{fmt}'{did_you_mean(fmt, traces.READERS)}; "
                         f"known: {', '.join(sorted(traces.READERS))}")
    if os.path.exists(trace):
        suffix = os.path.splitext(trace)[1].lower()
        if fmt is None and suffix not in traces.SUFFIXES:
            raise UsageError(f"{trace}: cannot tell the trace format from the suffix '{suffix}'; pass --format, "
                             f"one of {', '.join(sorted(traces.READERS))}")
        return sl.read_trace(trace, format=fmt, progress=progress)
    names = list(sl.datasets.available()["name"])
    if trace in names:
        if fmt is not None:
            raise UsageError(f"--format applies to trace files; '{trace}' is a dataset")
        return sl.datasets.load(trace)
    if os.sep in trace or "." in os.path.basename(trace):
        raise UsageError(f"no such trace file: {trace}{did_you_mean(trace, names)}")
    raise UsageError(f"'{trace}' is neither a trace file nor a dataset{did_you_mean(trace, names)}; "
                     "see 'schedlab datasets list'")


def check_memory(n_nodes, n_tasks):
    """Refuses in one line (the library's resource guard) a cluster and workload whose tables
    would not fit in memory, before anything allocates."""
    from ..core import guard
    guard.check_memory(n_nodes * BYTES_PER_NODE + n_tasks * BYTES_PER_TASK,
                       f"a run on {n_nodes:,} nodes with {n_tasks:,} tasks",
                       remedy="use fewer --nodes or --max-jobs")


def check_output(path, what="--jobs-out"):
    """Checks before any run that ``path`` can be written: a known suffix, an existing folder."""
    if path is None:
        return
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in TABLE_SUFFIXES:
        known = ", ".join(f"{k} ({v})" for k, v in TABLE_SUFFIXES.items())
        raise UsageError(f"{what} {path}: unknown file type '{suffix or '(none)'}'; use one of {known}")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError(f"{what} {path}: writing Parquet needs pyarrow (pip install pyarrow); "
                             "or use .csv") from None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{what} {path}: the folder {folder} does not exist")


def write_table(df, path):
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".parquet":
        df.to_parquet(path, index=False)
    elif suffix == ".json":
        df.to_json(path, orient="records", indent=1)
    else:
        df.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")


def preflight(cluster, workload, configs, options):
    """Runs every scheduler on a few of the workload's jobs (the first, and one of each shape of
    job), so that an engine that cannot run the workload, a bad option or a cluster on which the
    jobs can never run fail before the first full run."""
    import schedlab as sl
    jobs = workload.jobs
    stages = workload.tasks.groupby("job_id")["stage"].nunique()
    keep = {jobs["job_id"].iloc[0]}
    for shape in stages.unique():
        keep.add(stages.index[stages.to_numpy() == shape][0])
    small = jobs[jobs["job_id"].isin(list(keep))]
    tasks = workload.tasks[workload.tasks["job_id"].isin(small["job_id"])]
    if len(small) < len(jobs):
        small = small.drop(columns=[c for c in ("n_maps", "n_reduces", "ideal_time") if c in small])
        small = small.assign(submit_time=small["submit_time"] - small["submit_time"].min())
        keep_cols = [c for c in tasks.columns if c != "task_id"]
        workload = sl.Workload.from_frames(small, tasks[keep_cols], name=workload.name)
    for label, config in configs:
        try:
            sl.simulate(cluster, workload, config, seed=0, progress=False, **options)
        except (ValueError, RuntimeError) as e:
            raise UsageError(f"{label}: {e}") from None


# ----------------------------------------------------------------------------- commands
def cmd_run(args) -> int:
    import schedlab as sl
    if not args.trace:
        raise UsageError("run needs --trace FILE or --trace DATASET (see 'schedlab datasets list')")
    if not args.scheduler:
        raise UsageError("run needs at least one --scheduler NAME (see 'schedlab schedulers')")
    names = list(sl.schedulers.available()["name"])
    for name in args.scheduler:
        if name not in names:
            raise UsageError(f"unknown scheduler '{name}'{did_you_mean(name, names)}; see 'schedlab schedulers'")
    if len(set(args.scheduler)) != len(args.scheduler):
        raise UsageError("a scheduler is given twice")
    check_output(args.jobs_out)
    check_output(args.summary_out, "--summary-out")
    params = _kv(args.param, "--param")
    options = _kv(args.option, "--option")
    check_memory(args.nodes, 0)
    cluster = sl.Cluster(nodes=args.nodes, racks=args.racks, map_slots=args.map_slots,
                         reduce_slots=args.reduce_slots, slots=args.slots)
    progress = None if args.progress is None else args.progress
    workload = load_workload(args.trace, args.format, progress)
    if args.max_jobs is not None and args.max_jobs < workload.n_jobs:
        jobs = workload.jobs.head(args.max_jobs)
        tasks = workload.tasks[workload.tasks["job_id"].isin(jobs["job_id"])]
        workload = sl.Workload.from_frames(jobs.drop(columns=["n_maps", "n_reduces", "ideal_time"]),
                                           tasks.drop(columns=["task_id"]), name=workload.name)
    check_memory(cluster.n_nodes, workload.n_tasks)
    configs = []
    for name in args.scheduler:
        try:
            configs.append((name, sl.schedulers.get(name, **params)))
        except ValueError as e:
            raise UsageError(f"{name}: {e}") from None
    preflight(cluster, workload, configs, options)

    results = []
    failure = None
    for name, config in configs:
        t0 = time.perf_counter()
        try:
            r = sl.simulate(cluster, workload, config, seed=args.seed, progress=progress, **options)
        except (ValueError, RuntimeError) as e:  # keep the runs done so far
            failure = UsageError(f"{name}: {e}")
            break
        except KeyboardInterrupt:
            if not results:
                raise
            failure = KeyboardInterrupt()
            break
        results.append((name, r))
        if not args.quiet:
            print(f"# {name}: {r.events:,} events in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    if results:
        table = summary_table(results)
        print_table(table)
        if args.summary_out:
            write_table(table.rename_axis("scheduler").reset_index(), args.summary_out)
        if args.jobs_out:
            import pandas as pd
            jobs = pd.concat([r.jobs.assign(scheduler=name) for name, r in results], ignore_index=True)
            jobs = jobs[["scheduler"] + [c for c in jobs.columns if c != "scheduler"]]
            write_table(jobs, args.jobs_out)
        if not args.quiet:
            for path in (args.summary_out, args.jobs_out):
                if path:
                    print(f"# wrote {path}", file=sys.stderr)
    if failure is not None:
        raise failure
    return 0


def cmd_demo(args) -> int:
    import schedlab as sl
    nodes, racks, map_slots, reduce_slots = 10, 2, 2, 2
    workload = sl.datasets.load("demo_mix", seed=args.seed)
    cluster = sl.Cluster(nodes=nodes, racks=racks, map_slots=map_slots, reduce_slots=reduce_slots)
    print(f"schedlab demo: {workload.n_jobs} Hadoop jobs ({workload.n_tasks} tasks) from "
          f"{workload.jobs['user'].nunique()} users, 5 s apart (dataset 'demo_mix'), on "
          f"Cluster(nodes={nodes}, racks={racks}, map_slots={map_slots}, reduce_slots={reduce_slots}) "
          f"-- {map_slots} map and {reduce_slots} reduce slots per node\n")
    names = ("fifo", "fair", "capacity")
    results = [(name, sl.simulate(cluster, workload, name, seed=args.seed, progress=False)) for name in names]
    table = summary_table(results)
    print_table(table)
    print("\nTimes in seconds of simulated time, lower is better; fairness_jain, locality_node and "
          "utilization are fractions, higher is better:")
    for c in table.columns:
        unit, better, meaning = METRICS[c]
        print(f"  {c:<22} {meaning} ({unit}, {better} is better)")
    print("\nTakeaway: " + takeaway(table))
    if not args.no_plot:
        path = args.plot
        try:
            if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                raise UsageError(f"--plot {path}: the folder {os.path.dirname(os.path.abspath(path))} does not exist")
            import matplotlib
            matplotlib.use("Agg")
            fig = _demo_figure(results)
            fig.savefig(path, dpi=120, bbox_inches="tight")
            print(f"\nSaved the plot of job completion times to {path}")
        except ImportError:
            print("\n(no plot: matplotlib is not installed; pip install 'schedlab[plot]')")
    print("\nNext: compare schedulers on a real trace (downloaded and checked once), for example\n"
          "  schedlab datasets get swim_fb2009_0\n"
          "  schedlab run --trace swim_fb2009_0 --scheduler fifo --scheduler fair --nodes 50 --max-jobs 500\n"
          "or list every scheduler with 'schedlab schedulers'.")
    return 0


def takeaway(table) -> str:
    """A paragraph saying what the demo's table shows, from its numbers."""
    mean = table["mean_completion_time"].sort_values()
    best, worst = mean.index[0], mean.index[-1]
    ranking = ", ".join(f"{n} {v:.0f} s" for n, v in mean.items())
    text = (f"the same jobs on the same cluster; only the order in which the "
            f"schedulers hand out slots differs. Mean job completion time (lower is better): {ranking}: "
            f"{best} finishes the average job {1 - mean[best] / mean[worst]:.0%} sooner than {worst}, and its "
            f"slowest tenth of jobs take {table.loc[best, 'p90_completion_time']:.0f} s against "
            f"{table.loc[worst, 'p90_completion_time']:.0f} s.")
    wins = []
    for metric, label in (("locality_node", "node-local maps"), ("fairness_jain", "evenly slowed jobs")):
        if metric in table and table[metric].nunique() > 1:
            top = table[metric].idxmax()
            if top != best:
                wins.append(f"{top} has the most {label} ({metric} {table.loc[top, metric]:.3g})")
    if wins:
        text += " The ranking is not the same on every metric: " + "; ".join(wins) + "."
    text += (" FIFO serves jobs in submission order; Capacity gives each user's queue its share of the slots; "
             "Fair shares slots between users and delays a job's maps until a node-local slot frees.")
    return text


def _demo_figure(results):
    """Cumulative distribution of job completion times, one line per scheduler."""
    import numpy as np
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for name, r in results:
        t = np.sort(r.jobs["completion_time"].to_numpy())
        ax.step(t, np.arange(1, len(t) + 1) / len(t), where="post", label=name)
    ax.set_xlabel("job completion time (s, lower is better)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title("demo_mix on 10 nodes: 20 Hadoop jobs from 3 users")
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


def cmd_schedulers(args) -> int:
    import pandas as pd
    import schedlab as sl
    df = sl.schedulers.available()
    if args.engine:
        engines = sorted(set(df["engine"]))
        if args.engine not in engines:
            raise UsageError(f"unknown engine '{args.engine}'{did_you_mean(args.engine, engines)}; "
                             f"engines: {', '.join(engines)}")
        df = df[df["engine"] == args.engine]
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(df[["name", "engine", "citation"]].to_string(index=False))
    return 0


def _version():
    from .._version import __version__
    return __version__


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="schedlab", description="Simulate cluster schedulers on workload traces.",
               epilog="Errors print one line and exit with code 2. Documentation: docs/index.md "
                      "(build it with 'make -C docs html').")
    p.add_argument("--version", action="version", version=f"schedlab {_version()}")
    sub = p.add_subparsers(dest="command", metavar="command", parser_class=Parser)
    sub.required = True

    run = sub.add_parser("run", help="run a trace against one or more schedulers and print the summary table",
                         description="Runs the trace under each scheduler on the same cluster and seed, then "
                                     "prints one row of metrics per scheduler (times in seconds). Schedulers, "
                                     "options and outputs are checked before the first run.")
    run.add_argument("--trace", help="trace file (.tr Hawk/Eagle, .tsv SWIM, .csv Alibaba, .swf, ...) or a "
                                     "dataset name ('schedlab datasets list')")
    run.add_argument("--format", default=None, help="trace format when the suffix does not tell it")
    run.add_argument("--scheduler", action="append",
                     help="scheduler name (repeat to compare); see 'schedlab schedulers'")
    run.add_argument("--nodes", type=_count(1), default=20, help="number of nodes (default 20)")
    run.add_argument("--racks", type=_count(1), default=1, help="number of racks (default 1)")
    run.add_argument("--map-slots", type=_count(0), default=2, help="map slots per node (default 2)")
    run.add_argument("--reduce-slots", type=_count(0), default=2, help="reduce slots per node (default 2)")
    run.add_argument("--slots", type=_count(1), default=None,
                     help="worker slots per node (worker engine; default map + reduce slots)")
    run.add_argument("--seed", type=_count(0), default=0, help="random seed (default 0)")
    run.add_argument("--param", action="append", metavar="NAME=VALUE",
                     help="scheduler parameter (repeatable); see 'schedlab schedulers'")
    run.add_argument("--option", action="append", metavar="NAME=VALUE",
                     help="engine option, e.g. slowstart=0.5 (repeatable)")
    run.add_argument("--max-jobs", type=_count(1), default=None, help="only the first N jobs of the trace")
    run.add_argument("--jobs-out", default=None, metavar="FILE",
                     help="write the per-job table (a 'scheduler' column first) to FILE: .csv, .tsv, "
                          ".parquet or .json")
    run.add_argument("--summary-out", default=None, metavar="FILE",
                     help="write the summary table to FILE: .csv, .tsv, .parquet or .json")
    add_progress_options(run)
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="compare fifo, fair and capacity on a shipped dataset (a few seconds)")
    demo.add_argument("--seed", type=_count(0), default=0, help="random seed (default 0)")
    demo.add_argument("--plot", default="schedlab-demo.png", metavar="FILE",
                      help="where to save the plot (default schedlab-demo.png)")
    demo.add_argument("--no-plot", action="store_true", help="do not save the plot")
    demo.set_defaults(func=cmd_demo)

    sch = sub.add_parser("schedulers", help="list every built-in scheduler")
    sch.add_argument("--engine", default=None, help="only this engine's schedulers (mapreduce, worker, share, python)")
    sch.set_defaults(func=cmd_schedulers)

    for module in COMMAND_MODULES:
        try:
            mod = importlib.import_module(f"{__package__}.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{module}":
                raise
            continue
        mod.add_command(sub)
    return p


def add_progress_options(parser):
    """--progress / --no-progress / --quiet, shared by the commands that run for long."""
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show progress bars (default: only in an interactive terminal)")
    g.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress bars")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the results (no progress, no notes on stderr)")


def main(argv=None) -> int:
    """Runs the command line; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "quiet", False):
            args.progress = False
        return args.func(args) or 0
    except UsageError as e:
        print(f"schedlab: error: {e}", file=sys.stderr)
        return USAGE_ERROR
    except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError, ConnectionError) as e:
        print(f"schedlab: error: {e}", file=sys.stderr)
        return USAGE_ERROR
    except ImportError as e:  # an optional dependency (OR-Tools for mrcp, pyarrow, ...)
        print(f"schedlab: error: {e}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("schedlab: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # e.g. schedlab schedulers | head
        return 0


if __name__ == "__main__":
    sys.exit(main())
