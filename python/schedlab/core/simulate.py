"""simulate(): run one scheduler over one workload on one cluster, and the Result it returns."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .. import _core
from .cluster import Cluster
from .workload import Workload
from . import catalogue as schedulers_mod
from . import guard
from .catalogue import as_config, check_options
from . import progress as _progress

STATUS = ["running", "succeeded", "killed", "failed", "lost"]  # lost: succeeded map whose output died with its node
LOCALITY = ["node", "rack", "remote", "none"]
# the per-attempt integer columns whose values repeat (Result.to_parquet dictionary-encodes them)
_REPEATING = ("node", "slot", "orig_node")


#: Encoders of scheduler parameters that need the workload, by (scheduler name, parameter name):
#: ``encoder(value, workload) -> str`` (e.g. the spark engine's pools from a fairscheduler.xml).
PARAM_ENCODERS: dict = {}


def register_param_encoder(scheduler: str, param: str, encoder):
    """Lets an engine's helpers turn a scheduler parameter given as a Python object (a path, a
    dict, ...) into the core's string, with the workload at hand."""
    PARAM_ENCODERS[(scheduler, param)] = encoder


#: Defaults of scheduler parameters that come from the workload, by (scheduler name, parameter
#: name): ``default(workload) -> str | None`` (None: the core's own default), used when the
#: parameter is not given (e.g. the spark engine's stage ids from the workload's job_id labels).
PARAM_DEFAULTS: dict = {}


def register_param_default(scheduler: str, param: str, default):
    """Lets an engine fill a scheduler parameter from the workload when it is not given."""
    PARAM_DEFAULTS[(scheduler, param)] = default


def _encode_param(name, value, workload: Workload):
    """Dict/list parameters become the core's 'key:value,...' strings; dict keys that are user
    labels are translated to pool ids. Keys must be pool or queue ids (0 .. 2^31 - 1) and values
    numbers: anything else is a ValueError naming the parameter."""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            key = k
            if workload.user_labels is not None and not isinstance(k, (int, np.integer)):
                key = workload.user_code(k)
            if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or not 0 <= key < 2**31:
                raise ValueError(f"scheduler parameter {name!r}: key {k!r} is not a pool or queue id "
                                 f"(a whole number in [0, 2^31 - 1] or a user label of the workload)")
            parts.append(f"{key}:{v!r}" if not isinstance(v, str) else f"{key}:{v}")
        return ",".join(parts)
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            return ",".join(repr(float(v)) for v in value)
        except (TypeError, ValueError):
            raise ValueError(f"scheduler parameter {name!r}: a list must hold numbers only, got {value!r}") from None
    return value


def simulate(cluster: Cluster, workload: Workload, scheduler="fifo", seed: int = 0, *, progress=None,
             **options) -> "Result":
    """Simulates ``workload`` on ``cluster`` under ``scheduler`` (a name such as ``"fair"`` or a
    :class:`~schedlab.schedulers.SchedulerConfig`) and returns a :class:`Result`.

    ``options`` are the engine's settings (see ``schedlab.schedulers.options()``), e.g.
    ``heartbeat_interval``, ``slowstart``, ``replication``, ``measure_overhead``; ``faults`` takes a
    list of :mod:`schedlab.faults` objects, ``speculation`` a speculator name (``"hadoop"``,
    ``"yarn"``, ``"late"``, ``"esplash"``, ``"sepb"``; see :mod:`schedlab.speculation`) and
    ``speculation_params`` a dict of its parameters. ``scheduler`` may
    also be an instance of a :class:`schedlab.Scheduler` subclass (a scheduler written in Python).
    Before it allocates, the run is checked by the resource guard (:mod:`schedlab.core.guard`):
    a run whose estimated memory or event count exceeds the machine's available memory (or
    ``max_memory`` bytes) or ``max_events`` (default ``guard.DEFAULT_MAX_EVENTS``) raises
    :class:`~schedlab.core.guard.ResourceError` (a ``ValueError``) naming the estimate and the limit;
    a run that passes ``max_events`` all the same (the estimate fell short) is stopped with it
    within 2^20 events of the limit.
    The same inputs and seed always give the same result. The simulation runs without the GIL, so threads run simulations in parallel.

    ``progress``: a progress bar (events, events/s, simulated time) for runs past 2^20 events;
    ``None`` shows it when interactive (see :mod:`schedlab.core.progress`), ``True``/``False``
    force it, a callable is called as ``progress(events, simulated_time)`` instead. A scheduler
    written in Python counts calls of its callbacks instead of events, every 1,024
    (``schedlab.schedulers.base.PROGRESS_EVERY``): a callback may cost more than a million events.
    """
    if not isinstance(cluster, Cluster):
        raise ValueError(f"cluster must be a schedlab.Cluster, got {type(cluster).__name__}")
    if not isinstance(workload, Workload):
        raise ValueError(f"workload must be a schedlab.Workload, got {type(workload).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed must be a whole number in [0, 2^64 - 1], got {seed!r}")
    if isinstance(scheduler, str) and scheduler in schedulers_mod._PYTHON:
        scheduler = schedulers_mod.get(scheduler)  # a scheduler written in Python, by name
    max_memory = options.pop("max_memory", None)
    max_events = options.pop("max_events", None)
    options = _encode_options(options)
    hook = getattr(scheduler, "_simulate", None)
    if hook is not None:  # schedulers written in Python plug in here
        engine = getattr(scheduler, "engine", "mapreduce")
        # a scheduler written in Python times its callbacks on every engine (measure_overhead)
        check_options(engine, {k: v for k, v in options.items() if k != "measure_overhead"})
        guard.check_run(cluster, workload, engine, options, getattr(scheduler, "params", {}) or {},
                        max_memory=max_memory, max_events=max_events)
        report = progress if callable(progress) else (
            _progress.SimulationProgress(getattr(scheduler, "name", "simulate"), unit=" callbacks")
            if _progress.enabled(progress) else None)
        try:
            return hook(cluster, workload, int(seed), options, progress=report)
        finally:
            if isinstance(report, _progress.SimulationProgress):
                report.close()
    config = as_config(scheduler)
    check_options(config.engine, options)
    guard.check_run(cluster, workload, config.engine, options, config.resolved(), max_memory=max_memory,
                    max_events=max_events, scheduler=config.name)
    params = {k: PARAM_ENCODERS[(config.name, k)](v, workload) if (config.name, k) in PARAM_ENCODERS
              else _encode_param(k, v, workload) for k, v in config.params.items()}
    for (name, k), default in PARAM_DEFAULTS.items():
        if name == config.name and k not in params:
            v = default(workload)
            if v is not None:
                params[k] = v
    report = progress if callable(progress) else (
        _progress.SimulationProgress(config.name) if _progress.enabled(progress) else None)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        raw = _core.run(cluster.native(), workload.native(), config.name, params, dict(options), int(seed),
                        progress=guard.event_limit(report, f"the {config.name} run", max_events))
    finally:
        if isinstance(report, _progress.SimulationProgress):
            report.close()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    res = Result(raw, cluster, workload, config, int(seed), dict(options), wall)
    res.cpu_seconds = cpu
    return res


def _encode_options(options: dict) -> dict:
    """Faults and speculator parameters given as Python objects become the engine's strings."""
    from . import faults as faults_mod
    from . import speculation as speculation_mod
    out = dict(options)
    for key, value in out.items():  # a list of numbers for a 'p0,p1,...' option, e.g. performance=[1, 1.5, 2]
        if key not in ("faults", "speculation_params") and isinstance(value, (list, tuple, np.ndarray)):
            try:
                out[key] = ",".join(repr(float(v)) for v in value)
            except (TypeError, ValueError):
                raise ValueError(f"simulate option {key!r}: a list must hold numbers only, got {value!r}") from None
    if "faults" in out:
        out["faults"] = faults_mod.encode(out["faults"])
    if "speculation_params" in out:
        out["speculation_params"] = speculation_mod.encode_params(out.get("speculation", "none"), out["speculation_params"])
    return out


class Result:
    """The outcome of one simulation.

    * ``jobs`` — one row per job: ``job_id, submit_time, start_time, finish_time,
      completion_time, queueing_delay, map_finish_time``, the job's user, queue, weight, deadline
      (and ``late``), task counts, its ``dag`` (and ``parents`` when jobs depend on others), and
      any extra columns of the workload's job table. The mapreduce engine adds ``ready_time``:
      when the job was submitted to the scheduler (its submit time, or for a job with parents
      the later of that and its last parent's finish); ``queueing_delay`` is then
      ``start_time - ready_time``, while ``completion_time`` stays ``finish_time - submit_time``.
    * ``dags`` — one row per DAG (workflow) of jobs: ``dag, n_jobs, submit_time`` (earliest
      submit), ``start_time, finish_time`` (last job's finish; NaN if a job is unfinished) and
      ``completion_time``.
    * ``tasks`` — one row per attempt: ``job_id, task_id, stage, node, start, finish, duration,
      status, locality, slot, slot_type, speculative``.
    * ``summary()`` — the headline metrics as a Series.
    * ``series`` — named time series (DataFrames); ``counters`` — named counts.
    """

    def __init__(self, raw, cluster, workload, config, seed, options, wall_seconds):
        self._raw = raw
        self.cluster = cluster
        self.workload = workload
        self.scheduler = config
        self.seed = seed
        self.options = options
        self.wall_seconds = wall_seconds
        self.cpu_seconds = None  # CPU time of the process during the engine's run (built-in schedulers)
        self.events = int(raw["events"])
        self.end_time = float(raw["end_time"])
        self.counters = dict(raw["counters"])
        self._jobs = self._tasks = self._dags = None
        self.series = {name: pd.DataFrame({k: np.asarray(v) for k, v in cols.items()})
                       for name, cols in raw["series"].items()}

    @property
    def jobs(self) -> pd.DataFrame:
        if self._jobs is None:
            wcols = self.workload._job_columns()
            raw = self._raw["jobs"]
            submit = wcols["submit_time"]
            start, finish = np.asarray(raw["start_time"]), np.asarray(raw["finish_time"])
            cols = {}
            for k, v in wcols.items():
                cols[k] = v
                if k == "submit_time":  # (a workload's columns begin with job_id, submit_time)
                    cols.update(start_time=start, finish_time=finish, completion_time=finish - submit,
                                queueing_delay=start - submit)
            for k, v in raw.items():
                if k not in ("start_time", "finish_time"):
                    name = {"map_finish": "map_finish_time", "ready": "ready_time"}.get(k, k)
                    v = np.asarray(v)
                    if k == "class":  # worker engine: 0 = short job, 1 = long job
                        v = pd.Categorical.from_codes(v.astype(np.int8), ["short", "long"])
                    elif k == "ended":  # MapReduce engine, when some job ended without success
                        name = "status"
                        v = _job_status(v, finish)
                    cols[name] = v
            if "ready_time" in cols:  # the wait in the scheduler's queue, not for parents
                cols["queueing_delay"] = start - np.asarray(cols["ready_time"])
            deadline = cols["deadline"]
            if np.isfinite(deadline).any():
                late = finish > deadline
                if "status" in cols:  # a killed or failed job missed its deadline
                    late |= np.isin(np.asarray(cols["status"]), ["killed", "failed"]) & np.isfinite(deadline)
                cols["late"] = late
            df = pd.DataFrame(cols)
            self._jobs = df
        return self._jobs

    @property
    def dags(self) -> pd.DataFrame:
        """One row per DAG (workflow) of jobs: ``dag, n_jobs, submit_time, start_time,
        finish_time, completion_time`` (from the DAG's first submission to its last job's
        finish; NaN while a job of it is unfinished)."""
        if self._dags is None:
            jobs = self.jobs
            g = jobs.assign(_unfinished=jobs["finish_time"].isna()).groupby("dag", sort=False)
            df = pd.DataFrame({
                "n_jobs": g.size(),
                "submit_time": g["submit_time"].min(),
                "start_time": g["start_time"].min(),
                "finish_time": g["finish_time"].max().where(~g["_unfinished"].any()),
            })
            df["completion_time"] = df["finish_time"] - df["submit_time"]
            if "application" in jobs:  # several Spark applications
                df.insert(0, "application", g["application"].first())
            self._dags = df.rename_axis("dag").reset_index()
        return self._dags

    @property
    def tasks(self) -> pd.DataFrame:
        if self._tasks is None:
            cols = self._task_columns()
            task = cols["task_id"]
            job = cols.pop("job")
            # copy=False: the columns stay the result's arrays (no second copy of millions of rows)
            df = pd.DataFrame({"job_id": self._job_id_column(job) if len(task) else np.empty(0), **{
                k: pd.Categorical.from_codes(v[0], v[1]) if isinstance(v, tuple) else v for k, v in cols.items()}},
                copy=False)
            self._tasks = df
        return self._tasks

    def _job_id_column(self, job: np.ndarray):
        """Each attempt's job_id. Job ids that are strings go into a pandas column of Arrow strings:
        Arrow takes them from the jobs' ids, rather than pandas converting an array of one Python
        reference per attempt (millions of them on a production trace)."""
        ids = self.workload.job_ids
        if ids.dtype == object:
            dtype = pd.Series(ids, copy=False).dtype  # (the column's dtype as pandas infers it)
            if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
                import pyarrow as pa
                return pd.array(pa.array(ids, type=pa.large_string()).take(pa.array(job)), dtype=dtype)
        return ids[job]

    def _task_columns(self) -> dict:
        """The per-attempt columns as NumPy arrays, in the order of :attr:`tasks` (``job``: the
        dense job index; categorical columns as (int8 codes, labels)); views of the engine's
        arrays where the type allows."""
        a = self._raw["attempts"]
        task = np.asarray(a["task"])
        _, t = self.workload.native().columns()
        start, finish = np.asarray(a["start"]), np.asarray(a["finish"])
        cols = {
            "job": np.asarray(t["job"])[task],
            "task_id": task,
            "stage": (np.asarray(t["stage"])[task].astype(np.int8), ["map", "reduce"]),
            "node": np.asarray(a["node"]),
            "start": start,
            "finish": finish,
            "duration": finish - start,
            "status": (np.asarray(a["status"]).astype(np.int8), STATUS),
            "locality": (np.asarray(a["locality"]).astype(np.int8), LOCALITY),
            "slot": np.asarray(a["slot"]),
            "speculative": np.asarray(a["speculative"]).astype(bool),
        }
        for k, v in a.items():
            if k not in ("task", "node", "start", "finish", "status", "locality", "slot", "speculative"):
                v = np.asarray(v)
                if k == "slot_type":
                    v = (v.astype(np.int8), ["map", "reduce"])
                elif k == "orig_node":  # speculative copies: the node of the attempt copied; else -1
                    # (handed over empty when no attempt is a copy)
                    v = v.astype(np.int32) if len(v) == len(task) else np.full(len(task), -1, np.int32)
                elif k == "speed_at_start" and len(v) != len(task):
                    # (handed over empty when every attempt started at its node's nominal speed)
                    v = self.cluster._cols["speed"][cols["node"]]
                cols[k] = v
        return cols

    def to_parquet(self, path, table: str = "tasks", **options):
        """Writes :attr:`tasks` (``table="tasks"``, one row per attempt) or :attr:`jobs` to a
        Parquet file (with pyarrow, a dependency of schedlab). The tasks are written straight from
        the result's arrays, without building the DataFrame: ``job_id`` and the categorical
        columns are dictionary-encoded (pandas reads them back as categoricals). ``options`` go
        to ``pyarrow.parquet.write_table`` (e.g. ``compression="zstd"``). Parquet's dictionary
        encoding is tried, unless ``use_dictionary`` says otherwise, on the columns whose values
        repeat (the categorical ones, ``node``, ``slot``, ``orig_node``) and not on times and
        task ids, which seldom repeat (trying them costs time and seldom saves space)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("Result.to_parquet needs pyarrow: pip install 'schedlab[parquet]'") from None
        if table == "jobs":
            pq.write_table(pa.Table.from_pandas(self.jobs, preserve_index=False), path, **options)
            return
        if table != "tasks":
            raise ValueError(f"Result.to_parquet: table must be 'tasks' or 'jobs', got {table!r}")
        cols = self._task_columns()
        job = cols.pop("job").astype(np.int32)
        try:
            labels = pa.array(list(self.workload.job_ids))
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # ids of mixed types: written as text
            labels = pa.array([str(x) for x in self.workload.job_ids])
        arrays = {"job_id": pa.DictionaryArray.from_arrays(pa.array(job), labels)}
        for k, v in cols.items():
            if isinstance(v, tuple):
                arrays[k] = pa.DictionaryArray.from_arrays(pa.array(v[0]), pa.array(list(v[1]), pa.string()))
            else:
                arrays[k] = pa.array(v)
        options.setdefault("use_dictionary", [k for k in arrays if k in _REPEATING or isinstance(arrays[k], pa.DictionaryArray)])
        pq.write_table(pa.table(arrays), path, **options)

    def _utilization(self, tasks: dict, span: float) -> float:
        """Busy capacity over total capacity x makespan, in the unit the engine allocates: typed or
        pooled slots (map + reduce slots, each attempt weighted by the slots it holds), generic worker slots, or vcores (YARN containers and the
        multi-resource engine, each attempt weighted by its task's vcores). ``tasks``: :meth:`_task_columns`."""
        nodes = self.cluster._cols
        held = np.where(np.isfinite(tasks["finish"]), tasks["finish"], self.end_time) - tasks["start"]
        engine = getattr(self.scheduler, "engine", "mapreduce")
        if engine == "worker":
            capacity = float(nodes["slots"].sum())
        elif engine == "share" or self.counters.get("slot_model") == 2:
            _, t = self.workload.native().columns()
            held = held * np.asarray(t["vcores"])[tasks["task_id"]]
            capacity = float(nodes["vcores"].sum())
        else:
            capacity = float(nodes["map_slots"].sum() + nodes["reduce_slots"].sum())
            if "slots" in tasks:  # DynamicMR slot weights: a borrowing attempt may hold several slots
                held = held * tasks["slots"]
        busy = float(np.nansum(held))
        return busy / (capacity * span) if span > 0 and capacity > 0 else np.nan

    def summary(self, by: str | None = None, percentiles=(50, 90, 99),
                percentile_method: str | None = None) -> pd.Series | pd.DataFrame:
        """Headline metrics: makespan, mean and percentile completion times, total flowtime,
        Jain's fairness index over per-job slowdowns, locality fractions, slot utilization.
        With deadlines: ``late_fraction`` (P, the proportion of late jobs), ``late_jobs`` and
        ``mean_tardiness``; the mean turnaround T is ``mean_completion_time``. With
        ``measure_overhead=True``: ``overhead_per_job`` (O, wall seconds spent in the scheduler
        per finished job) and ``overhead_fraction`` (O/T). When some DAG holds several jobs:
        ``dags``, ``unfinished_dags``, ``mean_dag_completion_time`` and the percentiles
        ``pNN_dag_completion_time`` over :attr:`dags`. ``by`` groups the job metrics by a job column
        (e.g. ``"class"``) and returns one row per group. ``percentile_method`` is NumPy's
        (``"linear"``, ``"nearest"``, ``"inverted_cdf"`` = nearest rank, ...); by default nearest
        rank on the worker engine, as the hybrid-scheduler studies report percentiles (Zhou 2019), and ``"linear"`` elsewhere."""
        if percentile_method is None:
            percentile_method = "inverted_cdf" if getattr(self.scheduler, "engine", "mapreduce") == "worker" else "linear"
        jobs = self.jobs
        if by is not None:
            if by not in jobs:
                raise ValueError(f"summary(by={by!r}): no such job column; have {list(jobs.columns)}")
            rows = {key: pd.Series(_job_metrics(group, percentiles, percentile_method))
                    for key, group in jobs.groupby(by, sort=True)}
            return pd.DataFrame(rows).T.rename_axis(by)
        s = _job_metrics(jobs, percentiles, percentile_method)  # a dict while filling: Series item assignment is slow
        # the attempts' metrics from their columns: no Result.tasks table (millions of rows on a
        # production trace) is built for them
        tasks = self._task_columns()
        locality = tasks["locality"]
        known = _holds(tasks["stage"], "map") & ~_holds(locality, "none")
        for level in ("node", "rack", "remote"):
            s[f"locality_{level}"] = float(_holds(locality, level)[known].mean()) if known.any() else np.nan
        span = s["makespan"]
        s["utilization"] = self._utilization(tasks, span)
        wasted = _holds(tasks["status"], "killed")
        s["wasted_attempt_time"] = float(np.nansum(tasks["finish"][wasted] - tasks["start"][wasted]))
        for k, v in _attempt_metrics(tasks, self.cluster._cols["speed"]).items():
            s[k] = v
        s["attempts"] = float(len(tasks["task_id"]))
        if len(jobs) and jobs["dag"].duplicated().any():  # multi-job DAGs
            dc = self.dags["completion_time"].to_numpy(float)
            done = dc[np.isfinite(dc)]
            s["dags"] = float(len(dc))
            s["unfinished_dags"] = float(len(dc) - len(done))
            s["mean_dag_completion_time"] = float(done.mean()) if len(done) else np.nan
            for p in percentiles:
                s[f"p{p}_dag_completion_time"] = float(np.percentile(done, p, method=percentile_method)) if len(done) else np.nan
        if "scheduler_seconds" in self.counters:  # simulate(..., measure_overhead=True)
            finished = float(np.isfinite(jobs["finish_time"].to_numpy(float)).sum())
            s["overhead_per_job"] = self.counters["scheduler_seconds"] / finished if finished else np.nan
            t = s["mean_completion_time"]
            s["overhead_fraction"] = s["overhead_per_job"] / t if t > 0 else np.nan
        return pd.Series(s, dtype=float)

    def __repr__(self):
        s = self.summary()
        return (f"Result({self.scheduler.label}, jobs={len(self.jobs)}, makespan={s['makespan']:.1f}, "
                f"mean_completion={s['mean_completion_time']:.1f}, events={self.events})")


def _holds(column, label) -> np.ndarray:
    """Where a categorical column of Result._task_columns ((codes, labels)) holds ``label``."""
    codes, labels = column
    return codes == labels.index(label) if label in labels else np.zeros(len(codes), dtype=bool)


def _attempt_metrics(tasks: dict, speed: np.ndarray) -> dict:
    """Failed and lost attempts, and speculative copies: how many, their fate, where they ran and
    the time wasted in killed copies (eSplash's metric) [Wang 2017, §5.3]. ``tasks``:
    Result._task_columns(); ``speed``: each node's."""
    s = {}
    dur = tasks["duration"]
    status = tasks["status"]
    failed = _holds(status, "failed")
    s["failed_attempts"] = float(failed.sum())
    s["failed_attempt_time"] = float(np.nansum(dur[failed]))
    s["lost_map_outputs"] = float(_holds(status, "lost").sum())
    spec = tasks["speculative"]
    killed = _holds(status, "killed")
    s["speculative_attempts"] = float(spec.sum())
    s["speculative_succeeded"] = float((spec & _holds(status, "succeeded")).sum())
    s["speculative_killed"] = float((spec & killed).sum())
    s["wasted_speculative_time"] = float(np.nansum(dur[spec & killed]))
    if "orig_node" in tasks and spec.any():
        speed = np.asarray(speed, dtype=float)
        node = tasks["node"]
        orig = tasks["orig_node"]
        has = spec & (orig >= 0)
        o = np.where(has, orig, 0).astype(int)
        slower = has & (speed[node] <= speed[o])
        s["speculative_on_slower_or_equal_node"] = float(slower.sum())
        s["speculative_killed_on_slower_or_equal_node"] = float((slower & killed).sum())
        s["speculative_on_same_node"] = float((has & (node == orig)).sum())
        if "speed_at_start" in tasks:
            slowed = spec & (np.asarray(tasks["speed_at_start"], dtype=float) < speed[node] * (1 - 1e-12))
            s["speculative_on_slowed_node"] = float(slowed.sum())
            s["speculative_killed_on_slowed_node"] = float((slowed & killed).sum())
    return s


JOB_STATUSES = ["succeeded", "killed", "failed", "unfinished"]


def _job_status(ended, finish):
    """The ``status`` column: a job ended without success (killed, failed, refused at submission:
    the engine's attempt status codes 2 and 3), else succeeded when it finished, else unfinished."""
    codes = np.where(ended == 2, 1, np.where(ended == 3, 2, np.where(np.isfinite(finish), 0, 3)))
    return pd.Categorical.from_codes(codes.astype(np.int8), JOB_STATUSES)


def _job_metrics(jobs: pd.DataFrame, percentiles, method: str = "linear") -> dict:
    ct = jobs["completion_time"].to_numpy(float)
    done = np.isfinite(ct)
    s = {}
    s["jobs"] = float(len(jobs))
    if "status" in jobs:  # killed or failed jobs are not completions: counted apart
        status = jobs["status"].astype(str).to_numpy()
        s["killed_jobs"] = float((status == "killed").sum())
        s["failed_jobs"] = float((status == "failed").sum())
        done &= status == "succeeded"
        ct = np.where(done, ct, np.nan)
    s["unfinished_jobs"] = float((~np.isfinite(jobs["completion_time"].to_numpy(float))).sum())
    fin = np.where(done, jobs["finish_time"].to_numpy(float), np.nan)
    s["makespan"] = float(np.nanmax(fin) - jobs["submit_time"].min()) if done.any() else np.nan
    c = ct[done]
    s["mean_completion_time"] = float(c.mean()) if len(c) else np.nan
    for p in percentiles:
        s[f"p{p}_completion_time"] = float(np.percentile(c, p, method=method)) if len(c) else np.nan
    s["total_flowtime"] = float(c.sum())
    # Jain's index over per-job slowdowns (completion time / time on an empty speed-1 cluster)
    if "ideal_time" in jobs and len(c):
        x = ct[done] / np.maximum(jobs["ideal_time"].to_numpy(float)[done], 1e-9)
        s["fairness_jain"] = float(x.sum() ** 2 / (len(x) * (x ** 2).sum()))
    qd = jobs["queueing_delay"].to_numpy(float)
    s["mean_queueing_delay"] = float(np.nanmean(qd)) if np.isfinite(qd).any() else np.nan
    if "late" in jobs and np.isfinite(jobs["deadline"]).any():
        has = np.isfinite(jobs["deadline"].to_numpy(float))
        s["late_fraction"] = float(jobs["late"][has].mean())
        s["late_jobs"] = float(jobs["late"][has].sum())
        tardy = (jobs["finish_time"] - jobs["deadline"]).clip(lower=0)[has & done]
        s["mean_tardiness"] = float(tardy.mean()) if len(tardy) else np.nan
    return s
