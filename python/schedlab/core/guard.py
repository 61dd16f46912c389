"""The resource guard: before a workload is built or a simulation allocates, estimate the memory
and the number of events it needs and refuse, with one line naming the estimate and the limit,
when it exceeds the machine (or the caller's ``max_memory`` / ``max_events``), instead of
allocating for minutes until the system kills the process or running for days.

The limits:

* memory: the memory available to this process now (``MemAvailable`` of ``/proc/meminfo``,
  lowered by a cgroup limit when one is set), or ``max_memory`` bytes;
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
    """``max_memory`` (bytes) when given, else :func:`available_memory`."""
    return _limit(max_memory, "max_memory", available_memory())


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
        source = "max_memory" if max_memory is not None else "memory available on this machine"
        raise ResourceError(f"{what} needs about {_bytes(estimate)} of memory, more than the {_bytes(limit)} "
                            f"limit ({source})" + (f"; {remedy}" if remedy else ""))


def check_events(estimate: float, what: str, max_events=None, remedy: str = ""):
    """Raises :class:`ResourceError` when ``estimate`` events exceed the event limit."""
    limit = events_limit(max_events)
    if not estimate <= limit:
        source = "max_events" if max_events is not None else "the default max_events"
        raise ResourceError(f"{what} needs about {estimate:.3g} events, more than the {limit:.3g} limit ({source})"
                            + (f"; {remedy}" if remedy else ""))


def check_reader_tasks(n_tasks: float, what: str, remedy: str = ""):
    """Refuses a trace whose tasks would not fit in memory while its workload is built."""
    check_memory(float(n_tasks) * READER_BYTES_PER_TASK, f"{what} ({float(n_tasks):.4g} tasks)", remedy=remedy)


# ----------------------------------------------------------------------------- simulations
#: bytes per node the engines keep (node records, slot positions, running lists, heartbeats)
RUN_BYTES_PER_NODE = 256
#: bytes per task during a run and in its results (attempt record and side columns, task state,
#: the result's NumPy columns and its tasks DataFrame)
RUN_BYTES_PER_TASK = 320
#: bytes per worker of the worker engine, one per slot (its state, suspension record, probe queue,
#: node and slot ids and the probe records it owns), whatever the workload
RUN_BYTES_PER_WORKER = 256
#: bytes per probe of the worker engine (probe record and its queue entry)
RUN_BYTES_PER_PROBE = 48
#: bytes per sample of a time series (a row of a few float64 columns; per user for the share engine)
RUN_BYTES_PER_SAMPLE = 48


def _number(options, key, default):
    v = options.get(key, default)
    try:
        return float(v)
    except (TypeError, ValueError):
        return float(default)


def estimate(cluster, workload, engine: str, options: dict, params: dict) -> dict:
    """Estimates a simulation's memory (bytes) and events before it runs, from the cluster, the
    workload and the options: ``{"memory", "events", "span", "heartbeats", "samples",
    "probes"}``. The simulated span is taken as the last submission plus the work left if the
    cluster were kept busy, plus the longest task and shuffle copy (capped by ``time_limit``); periodic events
    (heartbeats, samples, windows) are counted over that span. It is an estimate of the usual
    case, meant to catch runs that are out of reach by orders of magnitude."""
    import numpy as np

    j, t = workload.native().columns()
    n_tasks = float(len(t["work"]))
    n_jobs = float(len(j["submit_time"]))
    nodes = float(cluster.n_nodes)
    cols = cluster._cols
    work = np.asarray(t["work"], dtype=np.float64)
    submit = np.asarray(j["submit_time"], dtype=np.float64)
    speed = float(cols["speed"].max())
    if engine == "worker":
        slots = float(cols["slots"].sum())
    elif engine == "share":
        slots = float(cols["vcores"].sum())
    else:
        slots = float(cols["map_slots"].sum() + cols["reduce_slots"].sum())
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(work.sum()) / speed
        span = float(submit.max()) + total / max(slots, 1.0) + float(work.max()) / speed
    if engine == "mapreduce" and "input_bytes" in t and len(t["input_bytes"]):
        # a reduce copies its input at network_bandwidth before it computes: the longest copy
        stage = np.asarray(t["stage"])
        inputs = np.asarray(t["input_bytes"], dtype=np.float64)[stage == 1]
        if len(inputs):
            with np.errstate(over="ignore", invalid="ignore"):
                span += float(inputs.max()) / _number(options, "network_bandwidth", 1.25e8)
    time_limit = _number(options, "time_limit", float("inf"))
    if time_limit > 0:
        span = min(span, time_limit)
    events = 4.0 * n_tasks + 2.0 * n_jobs
    memory = nodes * RUN_BYTES_PER_NODE + n_tasks * RUN_BYTES_PER_TASK
    heartbeats = samples = probes = 0.0
    if engine == "mapreduce":
        hb = _number(options, "heartbeat_interval", -1)
        if hb < 0:  # Hadoop 1: 1 s per 100 nodes, at least 0.3 s (engine's default)
            hb = max(1.0 * np.ceil(nodes / 100.0), 0.3)
        heartbeats = nodes * span / hb if hb > 0 else float("inf")
        si = _number(options, "sample_interval", 0)
        if si > 0:
            samples = span / si
    elif engine == "worker":
        memory += slots * RUN_BYTES_PER_WORKER
        window = _number(options, "window", 60)
        if window > 0:
            samples = span / window
        ratio = _number(params, "probe_ratio", 2)
        min_probes = _number(params, "min_probes", 1)
        per_job = np.diff(np.asarray(j["task_begin"], dtype=np.float64))
        probes = float(np.maximum(per_job * ratio, min_probes).sum())
        memory += probes * RUN_BYTES_PER_PROBE
        events += 2.0 * probes
    elif engine == "share":
        si = _number(options, "sample_interval", 0)
        if si > 0:
            users = float(len(np.unique(np.asarray(j["user"])))) if len(j["user"]) else 1.0
            samples = span / si * users
    events += heartbeats + samples
    memory += samples * RUN_BYTES_PER_SAMPLE
    return {"memory": memory, "events": events, "span": span, "heartbeats": heartbeats, "samples": samples,
            "probes": probes, "slots": slots}


def check_run(cluster, workload, engine: str, options: dict, params: dict, *, max_memory=None, max_events=None):
    """Refuses (:class:`ResourceError`) a simulation whose estimated memory or events exceed the
    limits; returns the estimate otherwise."""
    e = estimate(cluster, workload, engine, options, params)
    slots = f", {e['slots']:.4g} workers (slots)" if engine == "worker" else ""
    what = (f"this simulation ({engine} engine, {cluster.n_nodes} nodes{slots}, {workload.n_tasks} tasks, "
            f"simulated span about {e['span']:.3g} s")
    parts = [f"{e['heartbeats']:.3g} heartbeats"] if e["heartbeats"] else []
    parts += [f"{e['samples']:.3g} samples"] if e["samples"] else []
    parts += [f"{e['probes']:.3g} probes"] if e["probes"] else []
    what += (", " + ", ".join(parts) if parts else "") + ")"
    remedy = "lower the cluster, workload or option that drives it, or raise max_memory / max_events"
    check_memory(e["memory"], what, max_memory, remedy)
    check_events(e["events"], what, max_events, remedy)
    return e
