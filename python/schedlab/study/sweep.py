"""Parameter sweeps: every combination of schedulers (with parameter grids), clusters, workloads,
engine options and seeds, run in parallel, gathered into one tidy DataFrame.

>>> import schedlab as sl
>>> table = sl.sweep(
...     schedulers=["fifo", sl.grid("fair", locality_delay=[0, 5, 15])],
...     clusters={"nodes": [10, 20], "racks": 2},          # Cluster kwargs; lists are swept
...     workloads=["demo_mix", lambda: sl.synthetic.generate(jobs=100, rate=0.1, seed=1)],
...     seeds=range(5),
...     store="results/")                                  # resumable; optional
>>> sl.stats.summarize(table)                              # means and confidence intervals over seeds

Grid axes
---------
``schedulers``
    a name, a :class:`~schedlab.schedulers.SchedulerConfig`, a dict ``{"name": ..., param: value
    or [values], ...}`` (or ``{"name": ..., "params": {...}}``), the list :func:`grid` returns, or
    a list of any of these. In a dict or :func:`grid`, a list value is a set of alternatives; a
    text parameter that itself takes a list is given as a list of lists.
``clusters``
    a :class:`~schedlab.Cluster`, a dict of ``Cluster`` keyword arguments whose list values are
    swept, a dict ``{label: Cluster}``, or a list of any of these.
``workloads``
    a :class:`~schedlab.Workload`, a shipped dataset name (``schedlab.datasets``), a zero-argument
    function returning a workload, a dict ``{label: any of these}``, or a list of them.
``seeds``
    an iterable of non-negative integers (``range(5)``).
``options``
    engine options (see ``schedlab.schedulers.options()``); list values are swept.

Everything is validated, and every workload factory called, before the first run starts: an
unknown scheduler, parameter or option, a bad cluster or an empty axis raises ``ValueError``.

The table
---------
One row per run, in grid order (scheduler, cluster, workload, options, seed): ``run_key``,
``scheduler`` (label), ``scheduler_name``, one column per scheduler parameter set anywhere in the
grid (filled with the scheduler's value, default included, and NaN for schedulers without it),
``cluster`` (label), ``nodes``, ``racks``, ``map_slots``, ``reduce_slots`` (per node; the mean
when nodes differ), ``workload`` (label), ``workload_fingerprint``, ``seed``, one column per
swept or set engine option, then the summary metrics of :meth:`schedlab.Result.summary`,
``events``, ``end_time``, ``wall_seconds`` and ``cached`` (True when the run came from the store).

Parallelism: local threads by default (the simulation core releases the GIL), or a Dask
cluster with ``client=distributed.Client(...)``; the table is the same either way.
"""
from __future__ import annotations

import concurrent.futures as cf
import copy
import itertools
import math
import os
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.cluster import Cluster
from ..core.workload import Workload
from ..core import catalogue as _sched
from ..core.catalogue import SchedulerConfig
from . import store as _store

#: Returned by :func:`sweep` when per-job or per-attempt tables are asked for.
SweepResult = namedtuple("SweepResult", ["runs", "jobs", "tasks"])

#: Columns describing a run's configuration (besides scheduler parameters and engine options).
CONFIG_COLUMNS = ["run_key", "scheduler", "scheduler_name", "cluster", "nodes", "racks", "map_slots",
                  "reduce_slots", "workload", "workload_fingerprint", "seed"]
#: Columns that identify a run's conditions apart from its scheduler (for pairing with a baseline).
CONDITION_COLUMNS = ["cluster", "workload", "seed"]
_TRAILER = ["events", "end_time", "wall_seconds", "cached"]


# ---------------------------------------------------------------------------------- grid helpers
def _alternatives(owner, key, value):
    if isinstance(value, (list, tuple, range, np.ndarray)):
        vals = list(value)
        if not vals:
            raise ValueError(f"{owner}: '{key}' has an empty list of values")
        return vals
    return [value]


def _product(owner, spec: dict) -> list:
    """Every combination of a dict whose list values are alternatives."""
    keys = list(spec)
    choices = [_alternatives(owner, k, spec[k]) for k in keys]
    return [dict(zip(keys, combo)) for combo in itertools.product(*choices)]


def grid(name: str, **params) -> list:
    """Configured schedulers for every combination of parameter values: list values are
    alternatives, other values fixed. ``grid("fair", locality_delay=[0, 5], assign_multiple=False)``
    gives two :class:`~schedlab.schedulers.SchedulerConfig`. Bad names and values raise ``ValueError``."""
    return [SchedulerConfig(name, **combo) for combo in _product(f"grid({name!r})", params)]


def _as_list(value, what):
    if value is None:
        raise ValueError(f"sweep: no {what} given")
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"sweep: the grid is empty: the list of {what} is empty")
        return list(value)
    return [value]


def _schedulers(spec) -> list:
    out = []
    for item in _as_list(spec, "schedulers"):
        if isinstance(item, (list, tuple)):
            if not item:
                raise ValueError("sweep: the grid is empty: a scheduler grid has no entries")
            out.extend(_schedulers(list(item)))
        elif isinstance(item, dict):
            d = dict(item)
            if "name" not in d:
                raise ValueError(f"sweep: scheduler entry {item!r} has no 'name'")
            name = d.pop("name")
            params = d.pop("params", {})
            if not isinstance(params, dict):
                raise ValueError(f"sweep: scheduler {name!r}: 'params' must be a table of parameters, got {params!r}")
            out.extend(grid(name, **(params | d)))
        elif isinstance(item, (str, SchedulerConfig)):
            out.append(_sched.as_config(item))
        elif getattr(item, "_simulate", None) is not None:
            out.append(item)  # a scheduler written in Python
        else:
            raise ValueError(f"sweep: cannot read scheduler {item!r}; give a name, a SchedulerConfig or a dict")
    labels = [_label(s) for s in out]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise ValueError(f"sweep: scheduler {sorted(dup)[0]!r} appears more than once in the grid")
    return out


def _label(s) -> str:
    return s.label if isinstance(s, SchedulerConfig) else getattr(s, "label", getattr(s, "name", type(s).__name__))


def _fmt(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def _cluster_label(c: Cluster) -> str:
    n = c.nodes
    ms, rs = n["map_slots"], n["reduce_slots"]
    slots = f"{int(ms.iloc[0])}+{int(rs.iloc[0])}" if ms.nunique() == 1 and rs.nunique() == 1 else "mixed"
    return f"{c.n_nodes} nodes/{c.n_racks} racks/{slots} slots"


def _clusters(spec) -> list:
    out = []
    for item in _as_list(spec, "clusters"):
        if isinstance(item, Cluster):
            out.append((_cluster_label(item), item))
        elif isinstance(item, dict) and item and all(isinstance(v, Cluster) for v in item.values()):
            out.extend((str(k), v) for k, v in item.items())
        elif isinstance(item, dict):
            for kwargs in _product("sweep: cluster", item):
                try:
                    c = Cluster(**kwargs)
                except TypeError as e:
                    raise ValueError(f"sweep: cluster {kwargs}: {e}") from None
                out.append((" ".join(f"{k}={_fmt(v)}" for k, v in kwargs.items()), c))
        else:
            raise ValueError(f"sweep: cannot read cluster {item!r}; give a Cluster or a dict of Cluster arguments")
    return _unique_labels(out)


def _unique_labels(pairs):
    seen, out = {}, []
    for label, obj in pairs:
        n = seen.get(label, 0)
        seen[label] = n + 1
        out.append((label if n == 0 else f"{label}#{n + 1}", obj))
    return out


def _workload(item, label=None):
    from ..workloads import datasets
    if isinstance(item, Workload):
        return (label or item.name, item)
    if isinstance(item, str):
        return (label or item, datasets.load(item))
    if callable(item):
        w = item()
        if not isinstance(w, Workload):
            raise ValueError(f"sweep: workload factory {getattr(item, '__name__', item)!r} returned "
                             f"{type(w).__name__}, not a schedlab.Workload")
        return (label or w.name, w)
    raise ValueError(f"sweep: cannot read workload {item!r}; give a Workload, a dataset name or a function")


def _workloads(spec) -> list:
    out = []
    for item in _as_list(spec, "workloads"):
        if isinstance(item, dict):
            if not item:
                raise ValueError("sweep: the grid is empty: the workloads table is empty")
            out.extend(_workload(v, str(k)) for k, v in item.items())
        else:
            out.append(_workload(item))
    return _unique_labels(out)


def _seeds(seeds) -> list:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        raise ValueError(f"sweep: seeds must be a list of seeds such as range({seeds}), got the number {seeds}")
    try:
        out = list(seeds)
    except TypeError:
        raise ValueError(f"sweep: seeds must be an iterable of integers, got {seeds!r}") from None
    if not out:
        raise ValueError("sweep: the grid is empty: no seeds")
    for s in out:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"sweep: seeds must be non-negative integers, got {s!r}")
    if len(set(out)) != len(out):
        raise ValueError("sweep: a seed appears more than once")
    return [int(s) for s in out]


# ---------------------------------------------------------------------------------- running
@dataclass
class Run:
    """One cell of the grid."""
    index: int
    scheduler: object
    cluster_label: str
    cluster: Cluster
    workload_label: str
    workload: Workload
    seed: int
    options: dict
    key: str = ""
    config: dict = field(default_factory=dict)

    def labels(self) -> dict:
        return {"scheduler": _label(self.scheduler), "cluster": self.cluster_label,
                "workload": self.workload_label}


def plan(schedulers, clusters, workloads, seeds=(0,), options=None) -> list:
    """The runs of a sweep, validated, in grid order (what :func:`sweep` would run)."""
    scheds = _schedulers(schedulers)
    cl = _clusters(clusters)
    wl = _workloads(workloads)
    sd = _seeds(seeds)
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"sweep: options must be a dict of engine options, got {options!r}")
    opts = _product("sweep: options", options or {})
    for s in scheds:
        engine = getattr(s, "engine", None)
        if engine is not None:
            for o in opts:
                _sched.check_options(engine, {k: v for k, v in o.items() if k not in ("max_memory", "max_events")})
    cids = {id(c): _store.cluster_identity(c) for _, c in cl}
    wids = {id(w): _store.workload_identity(w) for _, w in wl}
    runs = []
    for s, (cname, c), (wname, w), o, seed in itertools.product(scheds, cl, wl, opts, sd):
        cfg = _store.run_config(s, c, w, seed, o, cluster_id=cids[id(c)], workload_id=wids[id(w)])
        runs.append(Run(len(runs), s, cname, c, wname, w, seed, o, _store.run_key(cfg), cfg))
    keys = [r.key for r in runs]
    if len(set(keys)) != len(keys):
        dup = next(r for r in runs if keys.count(r.key) > 1)
        raise ValueError(f"sweep: the grid holds the same run twice (e.g. {_label(dup.scheduler)} on "
                         f"{dup.cluster_label} / {dup.workload_label}, seed {dup.seed}); "
                         "two clusters or workloads are identical")
    return runs


def execute(scheduler, cluster, workload, seed, options, want_tasks=False) -> dict:
    """Runs one simulation and returns what a sweep keeps of it (runs on threads or Dask workers)."""
    from ..core.simulate import simulate
    if not isinstance(scheduler, SchedulerConfig):
        # a scheduler written in Python keeps per-run state on itself: one copy per run, so that
        # concurrent runs on threads do not share it
        scheduler = copy.copy(scheduler)
    r = simulate(cluster, workload, scheduler, seed=seed, progress=False, **options)  # the sweep's own bar
    summary = {k: (float(v) if v is not None else math.nan) for k, v in r.summary().items()}
    return {"summary": summary, "events": int(r.events), "end_time": float(r.end_time),
            "wall_seconds": float(r.wall_seconds), "counters": {k: float(v) for k, v in r.counters.items()},
            "jobs": r.jobs, "tasks": r.tasks if want_tasks else None}


def _record(run: Run, out: dict) -> dict:
    return {"config": run.config, "labels": run.labels(), "summary": out["summary"], "events": out["events"],
            "end_time": out["end_time"], "wall_seconds": out["wall_seconds"], "counters": out["counters"]}


def _progress(total, initial, enabled):
    from ..core import progress as _p
    if _p.enabled(enabled):
        try:
            from tqdm.auto import tqdm
            return tqdm(total=total, initial=initial, desc="sweep", unit="run")
        except ImportError:
            pass

    class _Quiet:
        def update(self, n=1):
            pass

        def close(self):
            pass
    return _Quiet()


def _new_scope() -> int:
    """A cancellation scope for one sweep's runs: random, so that it differs from every other
    sweep's, in this process and on the Dask workers it shares with other clients."""
    import secrets
    return secrets.randbits(62) + 1


def _execute_in_scope(scope, *args):
    """execute(*args) under the sweep's cancellation scope: _core.cancel_runs(scope) stops it."""
    from .. import _core
    before = _core.set_cancel_scope(scope)
    try:
        return execute(*args)
    finally:
        _core.set_cancel_scope(before)


def _run_local(todo, want_tasks, workers, on_done):
    if workers <= 1:  # (on the calling thread: Ctrl-C reaches the run itself)
        for run in todo:
            on_done(run, execute(run.scheduler, run.cluster, run.workload, run.seed, run.options, want_tasks))
        return
    scope = _new_scope()
    with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="schedlab-sweep") as ex:
        futures = {ex.submit(_execute_in_scope, scope, r.scheduler, r.cluster, r.workload, r.seed, r.options,
                             want_tasks): r
                   for r in todo}
        try:
            for fut in cf.as_completed(futures):
                on_done(futures[fut], fut.result())
        except BaseException:
            for f in futures:
                f.cancel()
            # runs already going on the pool's threads see no signal: stop them too, so that
            # Ctrl-C (or a run's error) ends the sweep within a poll of the engines, before the
            # pool is shut down (runs recorded so far are kept). Only this sweep's runs: runs
            # of other threads of the process go on, as Python threads do under Ctrl-C
            _cancel_runs(scope)
            raise


def _run_dask(todo, want_tasks, client, on_done):
    from distributed import as_completed
    # ship each distinct cluster and workload once, not once per run
    shipped = {}
    for r in todo:
        for obj in (r.cluster, r.workload):
            if id(obj) not in shipped:
                shipped[id(obj)] = client.scatter(obj, broadcast=False, hash=False)
    futures = {}
    scope = _new_scope()
    for r in todo:
        f = client.submit(_execute_on_worker, scope, r.scheduler, shipped[id(r.cluster)], shipped[id(r.workload)], r.seed,
                          r.options, want_tasks, pure=False, key=f"schedlab-run-{r.index}-{r.key}")
        futures[f.key] = (f, r)
    try:
        for f in as_completed([f for f, _ in futures.values()]):
            on_done(futures[f.key][1], f.result())
    except BaseException:
        client.cancel([f for f, _ in futures.values()])
        # cancelling a future does not stop a run a worker has started: every worker process
        # cancels this sweep's runs going there (and so does this one, for in-process threaded
        # workers); other clients' runs on the same workers go on
        try:
            client.run(_cancel_runs, scope)
        except Exception:  # a cluster already gone has nothing left running
            pass
        _cancel_runs(scope)
        raise


def _cancel_runs(scope):
    """Stops the runs of the sweep ``scope`` going in this process (on a Dask worker: those there)."""
    from .. import _core
    _core.cancel_runs(scope)


class RunCancelled(RuntimeError):
    """A run on a Dask worker stopped by an interrupted sweep."""


def _execute_on_worker(scope, *args):
    # a cancelled run raises KeyboardInterrupt; escaping a Dask worker's thread it would leave
    # the worker unable to run anything else: it ends as an ordinary task error instead
    try:
        return _execute_in_scope(scope, *args)
    except KeyboardInterrupt as e:
        raise RunCancelled(str(e)) from None


def sweep(schedulers, clusters, workloads, seeds=(0,), *, options=None, store=None, jobs: bool = False,
          tasks: bool = False, workers: int | None = None, client=None, progress: bool | None = None,
          rerun: bool = False):
    """Runs every combination of ``schedulers`` x ``clusters`` x ``workloads`` x ``options`` x
    ``seeds`` (see the module documentation for the accepted forms) and returns one row per run.

    * ``store``: a folder or :class:`schedlab.store.Store`; finished runs are written there as
      they complete, and runs already there are read back instead of simulated (``rerun=True``
      simulates them again and overwrites them).
    * ``jobs`` / ``tasks``: also return the per-job / per-attempt tables of every run (with the
      run's configuration columns in front); the result is then ``SweepResult(runs, jobs, tasks)``.
    * ``workers``: local threads (default: the machine's cores); ``client``: a
      ``distributed.Client`` to run on a Dask cluster instead.
    * ``progress``: a tqdm progress bar of the runs; ``None`` shows it when interactive (see
      :mod:`schedlab.core.progress`).
    """
    runs = plan(schedulers, clusters, workloads, seeds, options)
    st = _store.as_store(store)
    if client is not None and workers is not None:
        raise ValueError("sweep: give either workers (local threads) or client (Dask), not both")
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"sweep: workers must be a positive whole number, got {workers!r}")

    results: dict = {}
    todo = []
    for r in runs:
        if st is not None and not rerun and st.has(r.key, tasks=tasks):
            results[r.index] = (st.record(r.key), True)
        else:
            todo.append(r)
    frames_jobs, frames_tasks = {}, {}
    bar = _progress(len(runs), len(runs) - len(todo), progress)

    def on_done(run, out):
        rec = _record(run, out)
        if st is not None:
            st.write(run.key, rec, out["jobs"], out["tasks"])
        results[run.index] = (rec, False)
        # with a store, every run's tables are read back from it below, so that fresh and
        # stored runs give identical tables
        if jobs and st is None:
            frames_jobs[run.index] = out["jobs"]
        if tasks and st is None:
            frames_tasks[run.index] = out["tasks"]
        bar.update(1)

    try:
        if todo:
            if client is not None:
                _run_dask(todo, tasks, client, on_done)
            else:
                _run_local(todo, tasks, int(workers), on_done)
    finally:
        bar.close()

    table = _table(runs, results)
    if not (jobs or tasks):
        return table
    conf = table[[c for c in CONFIG_COLUMNS if c in table]]

    def gather(frames, load):
        parts = []
        for r in runs:
            df = frames.get(r.index)
            if df is None:
                df = load(r.key)
            head = conf.iloc[[r.index]].reset_index(drop=True)
            head = pd.concat([head] * len(df), ignore_index=True) if len(df) else head.iloc[:0]
            parts.append(pd.concat([head, df.reset_index(drop=True)], axis=1))
        return pd.concat(parts, ignore_index=True)

    return SweepResult(table,
                       gather(frames_jobs, st.jobs if st is not None else None) if jobs else None,
                       gather(frames_tasks, st.tasks if st is not None else None) if tasks else None)


def _table(runs, results) -> pd.DataFrame:
    param_names, option_names = [], []
    for r in runs:
        for k in getattr(r.scheduler, "params", {}) or {}:
            if k not in param_names:
                param_names.append(k)
        for k in r.options:
            if k not in option_names:
                option_names.append(k)
    reserved = set(CONFIG_COLUMNS) | set(_TRAILER)
    pcol = {k: (f"param_{k}" if k in reserved else k) for k in param_names}
    ocol = {k: (f"option_{k}" if k in reserved or k in pcol.values() else k) for k in option_names}
    rows = []
    fingerprints = {}  # (a workload's, once: runs share their workloads)
    for r in runs:
        rec, cached = results[r.index]
        n = r.cluster._cols
        if id(r.workload) not in fingerprints:
            fingerprints[id(r.workload)] = r.workload.fingerprint()
        row = {"run_key": r.key, "scheduler": _label(r.scheduler),
               "scheduler_name": getattr(r.scheduler, "name", _label(r.scheduler))}
        resolved = r.scheduler.resolved() if hasattr(r.scheduler, "resolved") else {}
        for k in param_names:
            row[pcol[k]] = resolved.get(k, np.nan)
        row.update({"cluster": r.cluster_label, "nodes": r.cluster.n_nodes, "racks": r.cluster.n_racks,
                    "map_slots": float(n["map_slots"].mean()), "reduce_slots": float(n["reduce_slots"].mean()),
                    "workload": r.workload_label, "workload_fingerprint": fingerprints[id(r.workload)], "seed": r.seed})
        for k in option_names:
            row[ocol[k]] = r.options.get(k, np.nan)
        row.update(rec["summary"])
        row.update({"events": rec["events"], "end_time": rec["end_time"], "wall_seconds": rec["wall_seconds"],
                    "cached": cached})
        rows.append(row)
    table = pd.DataFrame(rows)
    for c in ("map_slots", "reduce_slots"):
        if (table[c] == table[c].round()).all():
            table[c] = table[c].astype(np.int64)
    table.attrs["schedlab"] = {"params": [pcol[k] for k in param_names], "options": [ocol[k] for k in option_names]}
    return table
