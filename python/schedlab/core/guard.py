"""The resource guard: before a workload is built or a simulation allocates, estimate the memory
and the number of events it needs and refuse, with one line naming the estimate and the limit,
when it exceeds the machine (or the caller's ``max_memory`` / ``max_events``), instead of
allocating for minutes until the system kills the process or running for days.

The limits:

* memory: the memory available to this process now (``MemAvailable`` of ``/proc/meminfo``,
  lowered by a cgroup limit when one is set, and by the environment variable
  ``SCHEDLAB_MAX_MEMORY`` in bytes when set), or ``max_memory`` bytes;
* events: ``DEFAULT_MAX_EVENTS`` (about half an hour of simulation at the engines' few million
  events per second), or ``max_events``.

:class:`ResourceError` is a ``ValueError``: code that catches bad input catches it too.
"""
from __future__ import annotations

import math
import os

#: events a simulation may need before the guard refuses it, unless ``max_events`` says otherwise
DEFAULT_MAX_EVENTS = 1e10
#: bytes per task while a trace reader builds its tables and the workload (columns of the
#: reader's frames, the sorted copies of ``Workload.from_frames`` and the native workload)
READER_BYTES_PER_TASK = 160


class ResourceError(ValueError):
    """A run or a workload would need more memory or events than the limit allows."""


def _meminfo_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_limit():
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            return int(text)
    return None


def available_memory() -> int:
    """Bytes of memory this process may still use (the machine's available memory, or a
    cgroup's limit when lower); 2^63 when neither can be read."""
    known = [m for m in (_meminfo_available(), _cgroup_limit()) if m is not None]
    return min(known) if known else 2**63


def _limit(value, name, default):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or math.isnan(value):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def memory_limit(max_memory=None) -> float:
    """``max_memory`` (bytes) when given, else the environment variable ``SCHEDLAB_MAX_MEMORY``
    (bytes) when set and lower, else :func:`available_memory`."""
    default = available_memory()
    env = os.environ.get("SCHEDLAB_MAX_MEMORY")
    if env:
        try:
            value = float(env)
        except ValueError:
            raise ValueError(f"SCHEDLAB_MAX_MEMORY must be a number of bytes, got {env!r}") from None
        default = min(default, _limit(value, "SCHEDLAB_MAX_MEMORY", default))
    return _limit(max_memory, "max_memory", default)


def events_limit(max_events=None) -> float:
    return _limit(max_events, "max_events", DEFAULT_MAX_EVENTS)


def _bytes(n):
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} bytes"


def check_memory(estimate: float, what: str, max_memory=None, remedy: str = ""):
    """Raises :class:`ResourceError` when ``estimate`` bytes exceed the memory limit."""
    limit = memory_limit(max_memory)
    if not estimate <= limit:
        source = ("max_memory" if max_memory is not None else "SCHEDLAB_MAX_MEMORY"
                  if os.environ.get("SCHEDLAB_MAX_MEMORY") and limit < available_memory() else "memory available on this machine")
        raise ResourceError(f"{what} needs about {_bytes(estimate)} of memory, more than the {_bytes(limit)} "
                            f"limit ({source})" + (f"; {remedy}" if remedy else ""))


def check_events(estimate: float, what: str, max_events=None, remedy: str = ""):
    """Raises :class:`ResourceError` when ``estimate`` events exceed the event limit."""
    limit = events_limit(max_events)
    if not estimate <= limit:
        source = "max_events" if max_events is not None else "the default max_events"
        raise ResourceError(f"{what} needs about {estimate:.3g} events, more than the {limit:.3g} limit ({source})"
                            + (f"; {remedy}" if remedy else ""))


class EventLimit:
    """The event limit while a run goes on: the up-front check works from an estimate, so the
    engines' polling point (every 2^20 events, where Ctrl-C and the progress bar are handled too)
    calls this, which stops a run that has gone past ``limit`` events with :class:`ResourceError`;
    ``report`` (a progress callable or None) is called as before."""

    def __init__(self, limit: float, what: str, source: str, report=None):
        self.limit, self.what, self.source, self.report = float(limit), what, source, report

    def __call__(self, events, simulated_time):
        if events > self.limit:
            raise ResourceError(f"{self.what} passed the {self.limit:.3g}-event limit ({self.source}) after "
                                f"{events:,} events, at simulated time {simulated_time:.6g} s: stopped; raise "
                                "max_events to let it run on")
        if self.report is not None:
            self.report(events, simulated_time)


def event_limit(report, what: str, max_events=None):
    """``report`` wrapped in an :class:`EventLimit` (unchanged when there is no finite limit)."""
    limit = events_limit(max_events)
    if not math.isfinite(limit):
        return report
    return EventLimit(limit, what, "max_events" if max_events is not None else "the default max_events", report)


def check_reader_tasks(n_tasks: float, what: str, remedy: str = ""):
    """Refuses a trace whose tasks would not fit in memory while its workload is built."""
    check_memory(float(n_tasks) * READER_BYTES_PER_TASK, f"{what} ({float(n_tasks):.4g} tasks)", remedy=remedy)


# ----------------------------------------------------------------------------- simulations
# Bytes a run adds to the peak resident memory, per engine, measured by bench/guard_bytes.py
# (python bench/guard_bytes.py: slopes between two runs that differ in one quantity, each in a
# fresh process; the run and its jobs and tasks tables). Figures of the measurement, rounded up:
#   per task:      mapreduce 171, worker 111 with sparrow's two probes per task (about 20 without them,
#                  counted apart), share 68, spark 109
#   per node:      mapreduce 283, share 81, spark 178; worker engine: 258 per worker (one per slot)
#   per probe:     worker 46
#   per row:       mapreduce 84 (slots series), worker 100 (windows), share 107 (dispersion)
#: bytes per task during a run and in its results (attempt record and side columns, task state,
#: the result's NumPy columns and its jobs and tasks tables), by engine
RUN_BYTES_PER_TASK = {"mapreduce": 180, "worker": 30, "share": 70, "spark": 110}
#: bytes per node the engines keep (node records, slot positions, running lists, heartbeats), by engine
RUN_BYTES_PER_NODE = {"mapreduce": 290, "worker": 0, "share": 90, "spark": 180}
#: bytes per worker of the worker engine, one per slot (its state, suspension record, probe queue,
#: node and slot ids and the probe records it owns), whatever the workload
RUN_BYTES_PER_WORKER = 260
#: bytes per probe of the worker engine (probe record and its queue entry)
RUN_BYTES_PER_PROBE = 48
#: bytes per row of a time series (a few float64 columns, the vector's growth and the DataFrame)
RUN_BYTES_PER_SAMPLE = 110


def _number(options, key, default):
    v = options.get(key, default)
    try:
        return float(v)
    except (TypeError, ValueError):
        return float(default)


#: periodic timers of the engines (options) and schedulers (parameters) whose count grows with the
#: simulated span rather than with the workload: ``(engine or "*", name, events, rows)``. ``events``
#: says over what they cost an event: "busy" (they stop, or the engine jumps idle gaps without
#: them, while nothing runs or waits), "span" (they fire through idle gaps); ``rows``: each writes
#: a row of a time series over "span" (idle gaps included), "busy" or None. A value <= 0 is off.
#: The MapReduce engine's heartbeats (one per node per interval, busy time) are counted apart.
PERIODIC_OPTIONS = [
    ("mapreduce", "sample_interval", "busy", "span"),
    ("worker", "window", "busy", "span"),
    ("share", "sample_interval", "busy", "span"),
    ("spark", "revive_interval", "busy", None),
]
PERIODIC_PARAMS = [
    ("fairness_interval", "span", "span"),  # fresh_static, fresh_dynamic: F(T) samples
    ("window", "span", "span"),             # omo*: monitoring windows
    ("am_heartbeat", "span", None),         # yarn: ApplicationMaster heartbeats
    ("preemption_interval", "busy", None),  # fair: preemption checks
]


def _defaults(engine):
    from .catalogue import _engines
    try:
        specs = _engines()[engine]["options"]
    except KeyError:
        return {}
    return {p[0] if isinstance(p, (tuple, list)) else p["name"]: p[2] if isinstance(p, (tuple, list)) else p["default"]
            for p in specs}


#: MapReduce-engine schedulers whose heartbeats change nothing while no task is pending
#: (``Scheduler::quiet_without_pending`` in the C++ core): with them, and with no speculator and no
#: faults, the engine lets nodes sleep through such spans, so heartbeats cost events only while
#: tasks are pending. Other schedulers (fresh_dynamic's slot-type estimate counts every heartbeat;
#: schedulers written in Python) heartbeat all the busy time. tests/python/engines/test_sleeping_heartbeats.py
#: checks this list against the engine.
QUIET_SCHEDULERS = frozenset({
    "fifo", "edf", "edf_ideal", "fair", "capacity", "fresh_static", "eas", "pi_dhsa", "pd_dhsa", "dynamicmr",
    "omo", "omo_lazy_start", "omo_batch_finish", "fair_total", "yarn"})


def heartbeats_sleep(scheduler, options: dict) -> bool:
    """Whether the MapReduce engine lets nodes sleep while nothing is pending in this run."""
    return (scheduler in QUIET_SCHEDULERS and options.get("speculation", "none") in ("none", "", None)
            and not options.get("faults"))


def estimate(cluster, workload, engine: str, options: dict, params: dict, scheduler=None) -> dict:
    """Estimates a simulation's memory (bytes) and events before it runs, from the cluster, the
    workload, the options (the engine's defaults where not given) and the scheduler's parameters:
    ``{"memory", "events", "span", "busy", "heartbeats", "samples", "probes", "attempts"}``.

    The simulated span is taken as the last submission plus the work left if the cluster were kept
    busy, plus the longest task and shuffle copy (capped by ``time_limit``); the busy time, during
    which tasks run or wait, as the sum over jobs of the longer of the job's work spread over the
    cluster and its longest map plus its longest reduce (capped by the span). MapReduce heartbeats
    are counted over the busy time, or, where nodes sleep while nothing is pending
    (:func:`heartbeats_sleep`, for the ``scheduler`` named), over the time tasks wait: per job, its
    work spread over the cluster less its longest task (map-only), or its map stage (the longer of
    its maps' work spread over the cluster and its longest map: reduces wait for it), plus two
    heartbeats per node and job around its arrival. Periodic events
    (heartbeats, samples, windows, scheduler timers, :data:`PERIODIC_OPTIONS` and
    :data:`PERIODIC_PARAMS`) are counted over the busy time or the span, whichever they fire
    through, and the rows they write over the span (idle gaps write rows without events). It is an
    estimate of the usual case, meant to catch runs that are out of reach by orders of magnitude."""
    import numpy as np

    from .workload import stage_max

    options = {**_defaults(engine), **options}
    j, t = workload.native().columns()
    n_tasks = float(workload.n_tasks)
    n_jobs = float(len(j["submit_time"]))
    nodes = float(cluster.n_nodes)
    cols = cluster._cols
    submit = np.asarray(j["submit_time"], dtype=np.float64)
    speed = float(cols["speed"].max())
    if engine in ("worker", "spark"):
        slots = float(cols["slots"].sum())
    elif engine == "share":
        slots = float(cols["vcores"].sum())
    else:
        slots = float(cols["map_slots"].sum() + cols["reduce_slots"].sum())
    bandwidth = _number(options, "network_bandwidth", 1.25e8)
    begin = np.asarray(j["task_begin"], dtype=np.int64)
    counts = np.diff(begin)
    work_blocks, input_blocks = t.blocks("work"), t.blocks("input_bytes")
    # per job: its work (job_work) and its longest task of each stage, maps then reduces (longest);
    # over all tasks: the longest work and the longest copy (a reduce copies its input at
    # network_bandwidth before it computes)
    if work_blocks is not None and input_blocks is not None:
        # columns held one value per (job, stage): the same figures from those values and the
        # stages' task counts, without an array per task
        n_maps = np.asarray(j["n_maps"], dtype=np.int64)
        per_stage = np.stack([n_maps, counts - n_maps], 1)
        work_b = work_blocks.reshape(-1, 2)
        present = per_stage > 0
        with np.errstate(over="ignore", invalid="ignore"):
            copy_b = np.zeros_like(work_b)
            if engine == "mapreduce":
                copy_b[:, 1] = input_blocks.reshape(-1, 2)[:, 1] / bandwidth
            job_work = (work_b * per_stage).sum(axis=1)
            total = float(job_work.sum()) / speed
            longest_work, longest_copy = float(work_b[present].max()) / speed, max(float(copy_b[present].max()), 0.0)
            longest = np.where(present, np.maximum(work_b / speed + copy_b, 0.0), 0.0)
    else:
        work = np.asarray(t["work"], dtype=np.float64)
        stage = np.asarray(t["stage"])
        longest_work_per_stage, job_work = workload._work_per_job()
        with np.errstate(over="ignore", invalid="ignore"):
            total = float(work.sum()) / speed
            longest_work, longest_copy = float(work.max()) / speed, 0.0
            if engine == "mapreduce" and len(t["input_bytes"]):
                copy = np.where(stage == 1, np.asarray(t["input_bytes"], dtype=np.float64), 0.0) / bandwidth
                longest_copy = float(np.max(copy))
                longest = stage_max(work / speed + copy, begin, stage)
            else:  # (dividing by a positive speed keeps which task is longest)
                longest = longest_work_per_stage / speed
    with np.errstate(over="ignore", invalid="ignore"):
        span = float(submit.max()) + total / max(slots, 1.0) + longest_work + longest_copy
        per_job = np.maximum(job_work / speed / max(slots, 1.0), longest.sum(axis=1))
        busy = float(per_job.sum())
    time_limit = _number(options, "time_limit", float("inf"))
    if time_limit > 0:
        span = min(span, time_limit)
    busy = min(busy, span)
    attempts = n_tasks
    if engine == "spark":
        # spark.task.maxFailures attempts at most, each failing with task_failure_probability
        p = min(max(_number(options, "task_failure_probability", 0), 0.0), 1.0)
        mf = max(_number(options, "max_failures", 4), 1.0)
        attempts = n_tasks * (mf if p >= 1 else (1.0 - p ** mf) / (1.0 - p))
    events = 4.0 * attempts + 2.0 * n_jobs
    memory = nodes * RUN_BYTES_PER_NODE.get(engine, 290) + attempts * RUN_BYTES_PER_TASK.get(engine, 180)
    heartbeats = samples = probes = 0.0

    def periodic(interval, events_over, rows_over):
        nonlocal events, samples
        if not interval > 0:
            return
        length = {"span": span, "busy": busy, None: 0.0}
        with np.errstate(over="ignore", invalid="ignore"):
            events += length[events_over] / interval
            samples += length[rows_over] / interval

    if engine == "mapreduce":
        # a crashed node is noticed detection_delay after the crash (or at its restart): its tasks
        # wait that long while the other nodes heartbeat (detection_delay 1e6 s with a crash ran
        # 3e8 heartbeats at 0.01 s, found by fuzzing)
        delay = max(_number(options, "detection_delay", 600.0), 0.0)
        held = 0.0
        for part in str(options.get("faults") or "").split(";"):
            f = part.strip().split(":")
            try:
                if f[0] == "crash" and len(f) >= 4:
                    held += min(delay, max(float(f[3]), 0.0))
                elif f[0] == "mtbf" and len(f) >= 4:  # crashes over the horizon, each held as long
                    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                        held += (nodes * min(span, max(float(f[3]), 0.0)) / max(float(f[1]), 1e-300)
                                 * min(delay, max(float(f[2]), 0.0)))
            except ValueError:
                pass  # (the engine names a bad fault)
        if held > 0:
            span, busy = span + held, busy + held
        hb = _number(options, "heartbeat_interval", -1)
        if hb < 0:  # Hadoop 1: 1 s per 100 nodes, at least 0.3 s (engine's default)
            hb = max(1.0 * np.ceil(nodes / 100.0), 0.3)
        length = busy
        if heartbeats_sleep(scheduler, options):
            with np.errstate(over="ignore", invalid="ignore"):
                spread = job_work / speed / max(slots, 1.0)
                if work_blocks is not None and input_blocks is not None:
                    maps_work = work_b[:, 0] * per_stage[:, 0] / speed / max(slots, 1.0)
                    reduces = per_stage[:, 1] > 0
                else:
                    maps_work = np.zeros(len(counts))
                    some = counts > 0
                    if some.any():
                        maps_work[some] = np.add.reduceat(np.where(stage == 0, work, 0.0), begin[:-1][some])
                    maps_work /= speed * max(slots, 1.0)
                    reduces = np.asarray(j["n_maps"], dtype=np.int64) < counts
                waiting = np.where(reduces, np.maximum(maps_work, longest[:, 0]),
                                   np.maximum(spread - longest.max(axis=1), 0.0))
                length = min(float(waiting.sum()), span) + 2.0 * n_jobs * hb
        heartbeats = nodes * length / hb if hb > 0 else float("inf")
        if hb > 0 and np.isfinite(span) and span + hb == span:  # no longer advances the clock before the end
            heartbeats = float("inf")
        events += heartbeats
    elif engine == "worker":
        memory += slots * RUN_BYTES_PER_WORKER
        ratio = _number(params, "probe_ratio", 2)
        min_probes = _number(params, "min_probes", 1)
        probes = float(np.maximum(np.ceil(counts * ratio), min_probes).sum())
        memory += probes * RUN_BYTES_PER_PROBE
        events += 2.0 * probes
    elif engine == "spark":
        if options.get("speculation"):
            periodic(_number(options, "speculation_interval", 0.1), "busy", None)
        ai = _number(options, "allocation_interval", 0.1)
        if options.get("dynamic_allocation") and ai > 0:
            # allocation ticks while tasks run or wait and until idle executors time out; the
            # engine skips those of idle spans that change nothing
            idle = n_jobs * max(_number(options, "executor_idle_timeout", 60.0), 0.0)
            with np.errstate(over="ignore", invalid="ignore"):
                events += min(span, busy + idle) / ai
        meta = getattr(workload, "_job_meta", None)
        apps = int(meta["application"].nunique()) if meta is not None and "application" in meta.columns else 1
        if apps > 1:
            # several applications on a standalone Master: an application's tasks can wait for
            # cores another application holds (its executors, until it ends without dynamic
            # allocation), and the waiting application's timers tick all the while: each
            # application's revive, speculation and allocation ticks over the whole span
            for name, on in (("revive_interval", True), ("speculation_interval", options.get("speculation")),
                             ("allocation_interval", options.get("dynamic_allocation"))):
                interval = _number(options, name, 1.0)
                if on and interval > 0:
                    with np.errstate(over="ignore", invalid="ignore"):
                        events += apps * span / interval
    for eng, name, events_over, rows_over in PERIODIC_OPTIONS:
        if eng == engine:
            periodic(_number(options, name, 0), events_over, rows_over)
    si = _number(options, "sample_interval", 0)
    if engine == "share" and si > 0 and n_jobs:
        # a row per sample and user with tasks running or waiting: a user is active about as long
        # as its jobs run, all users at most all the busy time
        users = float(len(np.unique(np.asarray(j["user"]))))
        with np.errstate(over="ignore", invalid="ignore"):
            samples += min(users * busy, float(per_job.sum())) / si
    for name, events_over, rows_over in PERIODIC_PARAMS:
        if name in params and engine == "mapreduce":
            periodic(_number(params, name, 0), events_over, rows_over)
    events += samples
    memory += samples * RUN_BYTES_PER_SAMPLE
    return {"memory": memory, "events": events, "span": span, "busy": busy, "heartbeats": heartbeats,
            "samples": samples, "probes": probes, "attempts": attempts, "slots": slots}


def check_run(cluster, workload, engine: str, options: dict, params: dict, *, max_memory=None, max_events=None,
              scheduler=None):
    """Refuses (:class:`ResourceError`) a simulation whose estimated memory or events exceed the
    limits; returns the estimate otherwise."""
    e = estimate(cluster, workload, engine, options, params, scheduler)
    slots = f", {e['slots']:.4g} workers (slots)" if engine == "worker" else ""
    what = (f"this simulation ({engine} engine, {cluster.n_nodes} nodes{slots}, {workload.n_tasks} tasks, "
            f"simulated span about {e['span']:.3g} s")
    parts = [f"{e['heartbeats']:.3g} heartbeats"] if e["heartbeats"] else []
    parts += [f"{e['samples']:.3g} {'windows and samples' if engine == 'worker' else 'samples'}"] if e["samples"] else []
    parts += [f"{e['attempts']:.3g} attempts"] if e["attempts"] > workload.n_tasks else []
    parts += [f"{e['probes']:.3g} probes"] if e["probes"] else []
    what += (", " + ", ".join(parts) if parts else "") + ")"
    remedy = "lower the cluster, workload or option that drives it, or raise max_memory / max_events"
    check_memory(e["memory"], what, max_memory, remedy)
    check_events(e["events"], what, max_events, remedy)
    return e


def _status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"no {field} in /proc/self/status")


def measure_peak(fn):
    """Calls ``fn()`` and returns ``(bytes, value)``: the peak resident memory the call added over
    the resident memory before it, and what ``fn`` returned. Linux only (the peak is reset through
    ``/proc/self/clear_refs``, then read as ``VmHWM``); measures the guard's constants in
    ``bench/guard_bytes.py``. Run it in a fresh process: memory the allocator kept from earlier
    work is reused and hides part of the cost."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak resident set size to the current one
    before = _status_kib("VmRSS")
    value = fn()
    return (_status_kib("VmHWM") - before) * 1024, value
