"""``schedlab sweep CONFIG.toml``: a sweep described in a TOML file, its results store, the
standard plots and a summary table."""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pandas as pd


CONFIG_HELP = """\
The TOML file describes the grid; every list is a set of alternatives:

  seeds = 5                      # seeds 0..4, or a list: seeds = [0, 7, 42]
  store = "results"              # results folder (relative to the file; default: NAME-results)
  workers = 2                    # local threads (default: all cores)
  baseline = "fifo"              # scheduler the others are compared with (optional)
  metric = "mean_completion_time"   # metric of the improvement plot and column
  x = "nodes"                    # swept column of the improvement plot (default: the first that varies)
  job_class = "size"             # job column splitting the latency CDFs into panels (optional)

  [options]                      # engine options (schedlab.schedulers.options()); lists are swept
  slowstart = [0.05, 0.8]

  [[scheduler]]                  # one table per scheduler; parameters beside the name
  name = "fifo"
  [[scheduler]]
  name = "fair"
  locality_delay = [0, 5, 15]

  [[cluster]]                    # schedlab.Cluster arguments; lists are swept
  nodes = [10, 20]
  racks = 2
  map_slots = 2
  reduce_slots = 2

  [[workload]]                   # exactly one of trace / dataset / synthetic
  label = "fb2009"               # name in the tables (optional)
  trace = "FB-2009_samples_24_times_1hr_0.tsv"   # path relative to the file
  format = "swim"                # optional when the suffix tells
  options = { max_tasks_per_job = 200 }          # reader options
  max_jobs = 300                 # keep the first N jobs (optional)
  time_scale = 0.25              # multiply submit times (optional)
  [[workload]]
  dataset = "demo_mix"           # schedlab.datasets.available()
  [[workload]]
  synthetic = { jobs = 100, rate = 0.1, seed = 1 }   # schedlab.synthetic.generate arguments

Everything is checked, and every workload read, before the first run; finished runs are kept
in the store, so an interrupted sweep resumes where it stopped when run again. The plots
(percentiles.png, latency_cdf.png and, with a baseline, improvement.png) go to STORE/plots.
"""

_TOP = {"seeds", "store", "workers", "baseline", "metric", "x", "job_class", "options", "scheduler", "cluster",
        "workload"}
_WORKLOAD_KEYS = {"label", "trace", "format", "options", "max_jobs", "time_scale", "dataset", "synthetic"}
_SUMMARY = ["mean_completion_time", "p50_completion_time", "p90_completion_time", "p99_completion_time", "makespan"]


def _fail(path, msg):
    raise ValueError(f"{path}: {msg}")


def _subset(workload, max_jobs=None, time_scale=None):
    import schedlab as sl
    if max_jobs is None and time_scale is None:
        return workload
    jobs, tasks = workload.jobs, workload.tasks
    if max_jobs is not None:
        jobs = jobs.head(int(max_jobs))
        tasks = tasks[tasks["job_id"].isin(jobs["job_id"])]
    jobs = jobs.drop(columns=["n_maps", "n_reduces", "ideal_time"])
    if time_scale is not None:
        jobs = jobs.assign(submit_time=jobs["submit_time"] * float(time_scale))
    return sl.Workload.from_frames(jobs, tasks.drop(columns=["task_id"]), name=workload.name)


def _workload(path, base, k, entry):
    import schedlab as sl
    where = f"[[workload]] #{k + 1}"
    if not isinstance(entry, dict):
        _fail(path, f"{where} must be a table")
    unknown = set(entry) - _WORKLOAD_KEYS
    if unknown:
        _fail(path, f"{where}: unknown key(s) {sorted(unknown)}; known: {sorted(_WORKLOAD_KEYS)}")
    kinds = [x for x in ("trace", "dataset", "synthetic") if x in entry]
    if len(kinds) != 1:
        _fail(path, f"{where} needs exactly one of 'trace', 'dataset' or 'synthetic', got {kinds or 'none'}")
    opts = entry.get("options", {})
    if not isinstance(opts, dict):
        _fail(path, f"{where}: 'options' must be a table")
    for key in ("max_jobs",):
        if key in entry and (not isinstance(entry[key], int) or entry[key] < 1):
            _fail(path, f"{where}: '{key}' must be a positive whole number, got {entry[key]!r}")
    if "time_scale" in entry and not (isinstance(entry["time_scale"], (int, float)) and entry["time_scale"] > 0):
        _fail(path, f"{where}: 'time_scale' must be a positive number, got {entry['time_scale']!r}")
    try:
        if "trace" in entry:
            tpath = os.path.join(base, os.path.expanduser(entry["trace"]))
            w = sl.read_trace(tpath, format=entry.get("format"), **opts)
            label = entry.get("label") or os.path.basename(tpath)
        elif "dataset" in entry:
            w = sl.datasets.load(entry["dataset"], **opts)
            label = entry.get("label") or entry["dataset"]
        else:
            if not isinstance(entry["synthetic"], dict):
                _fail(path, f"{where}: 'synthetic' must be a table of schedlab.synthetic.generate arguments")
            w = sl.synthetic.generate(**entry["synthetic"])
            label = entry.get("label") or "synthetic"
    except TypeError as e:
        _fail(path, f"{where}: {e}")
    return str(label), _subset(w, entry.get("max_jobs"), entry.get("time_scale"))


def load_config(path) -> dict:
    """Reads and checks a sweep file; returns ``sweep()`` arguments plus the store, baseline and
    plot settings. Workloads are read here, so a bad one fails before any run."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    path = os.fspath(path)
    with open(path, "rb") as f:
        try:
            cfg = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            _fail(path, f"not valid TOML: {e}")
    unknown = set(cfg) - _TOP
    if unknown:
        _fail(path, f"unknown key(s) {sorted(unknown)}; known: {sorted(_TOP)}")
    base = os.path.dirname(os.path.abspath(path))
    for section in ("scheduler", "cluster", "workload"):
        if section not in cfg:
            _fail(path, f"no [[{section}]] table: the grid would be empty")
        if not isinstance(cfg[section], list) or not cfg[section]:
            _fail(path, f"'{section}' must be one or more [[{section}]] tables")
    seeds = cfg.get("seeds", 1)
    if isinstance(seeds, bool) or not isinstance(seeds, (int, list)):
        _fail(path, f"'seeds' must be a count or a list of seeds, got {seeds!r}")
    if isinstance(seeds, int):
        if seeds < 1:
            _fail(path, f"'seeds' must be at least 1, got {seeds}")
        seeds = list(range(seeds))
    schedulers = []
    for k, s in enumerate(cfg["scheduler"]):
        if not isinstance(s, dict) or "name" not in s:
            _fail(path, f"[[scheduler]] #{k + 1} has no 'name'")
        schedulers.append(dict(s))
    clusters = [dict(c) for c in cfg["cluster"]]
    workloads = dict(_workload(path, base, k, w) for k, w in enumerate(cfg["workload"]))
    if len(workloads) != len(cfg["workload"]):
        _fail(path, "two workloads have the same label; set 'label' to tell them apart")
    options = cfg.get("options", {})
    if not isinstance(options, dict):
        _fail(path, "'options' must be a table")
    workers = cfg.get("workers")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        _fail(path, f"'workers' must be a positive whole number, got {workers!r}")
    store = os.path.join(base, cfg["store"]) if "store" in cfg else \
        os.path.join(base, os.path.splitext(os.path.basename(path))[0] + "-results")
    return {"sweep": {"schedulers": schedulers, "clusters": clusters, "workloads": workloads, "seeds": seeds,
                      "options": options, "workers": workers},
            "store": store, "baseline": cfg.get("baseline"), "metric": cfg.get("metric", "mean_completion_time"),
            "x": cfg.get("x"), "job_class": cfg.get("job_class")}


def summary_table(runs: pd.DataFrame, baseline=None, metric="mean_completion_time", confidence=0.95) -> pd.DataFrame:
    """Mean and CI half-width over seeds of the headline metrics, one row per configuration,
    plus the mean improvement over ``baseline``."""
    from ..analysis import stats
    by = stats.default_by(runs)
    s = stats.summarize(runs, [m for m in _SUMMARY if m in runs], by=by, confidence=confidence)
    s["half"] = (s["ci_high"] - s["ci_low"]) / 2
    wide = s.pivot_table(index=by, columns="metric", values="mean", sort=False)
    half = s.pivot_table(index=by, columns="metric", values="half", sort=False, dropna=False)
    out = pd.DataFrame(index=wide.index)
    out["runs"] = s.groupby(by, sort=False)["n"].max()
    for m in [m for m in _SUMMARY if m in wide]:
        out[m] = wide[m]
        if m == metric:
            out[f"{m}_ci"] = half[m] if m in half else np.nan
    if baseline is not None and runs["scheduler"].nunique() > 1:
        imp = stats.improvement(runs, baseline, metric)
        mean_imp = imp.groupby(by, sort=False)["improvement"].mean()
        out[f"improvement_vs_{baseline}"] = mean_imp.reindex(out.index)
    return out.reset_index()


def cmd_sweep(args) -> int:
    import schedlab as sl
    conf = load_config(args.config)
    kw = dict(conf["sweep"])
    if args.workers is not None:
        kw["workers"] = args.workers
    store = args.store or conf["store"]
    if args.dry_run:
        runs = sl.study.sweep.plan(kw["schedulers"], kw["clusters"], kw["workloads"], kw["seeds"], kw["options"])
        st = sl.store.Store(store) if os.path.isdir(store) else None
        done = sum(1 for r in runs if st is not None and st.has(r.key))
        print(f"{len(runs)} runs ({done} already in {store})")
        return 0
    res = sl.sweep(**kw, store=store, jobs=not args.no_plots, progress=False if args.no_progress else None)
    runs = res.runs if hasattr(res, "runs") else res
    cached = int(runs["cached"].sum())
    print(f"# {len(runs)} runs ({len(runs) - cached} simulated, {cached} from the store) -> {store}",
          file=sys.stderr)
    if not args.no_plots:
        import matplotlib
        matplotlib.use("Agg")
        from ..analysis import plot
        paths = plot.standard_plots(runs, res.jobs, os.path.join(store, "plots"), baseline=conf["baseline"],
                                    x=conf["x"], job_class=conf["job_class"], metric=conf["metric"])
        for p in paths:
            print(f"# wrote {p}", file=sys.stderr)
    runs.to_csv(os.path.join(store, "runs.csv"), index=False)
    table = summary_table(runs, conf["baseline"], conf["metric"])
    with pd.option_context("display.width", 220, "display.max_columns", 30, "display.max_colwidth", 40):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


def add_command(sub):
    p = sub.add_parser("sweep", help="run a parameter sweep described in a TOML file (resumable)",
                       description="Runs every combination of the schedulers, clusters, workloads, engine "
                                   "options and seeds of CONFIG.toml, keeps each finished run in a results "
                                   "store, writes the standard plots and prints a summary table "
                                   "(means over seeds, CI half-width of the metric, improvement over the "
                                   "baseline).",
                       epilog=CONFIG_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", help="the sweep file (TOML)")
    p.add_argument("--store", default=None, help="results folder (default: the file's 'store', else NAME-results)")
    p.add_argument("--workers", type=int, default=None, help="local threads (default: the file's, else all cores)")
    p.add_argument("--no-plots", action="store_true", help="do not write the plots")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--dry-run", action="store_true", help="check the file and count the runs, run nothing")
    p.set_defaults(func=cmd_sweep)

