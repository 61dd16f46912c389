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
