"""Trace readers: each turns a trace file into a :class:`schedlab.Workload`.

``read_trace(path)`` picks the format from the suffix (``.tr`` Hawk/Eagle, ``.tsv`` SWIM,
``.swf`` Parallel Workloads Archive) or from ``format=`` (also ``google2011`` task_events,
``alibaba2017`` and ``alibaba2018`` batch_task, ``spark_eventlog`` Spark event logs: a file or a rolling
``eventlog_v2_*`` directory). Malformed input raises ``ValueError`` naming the file and line.
"""
from __future__ import annotations

import os

from ...core import progress as _progress
from . import _text
from .swim import read_swim
from .tr import read_tr

READERS = {"tr": read_tr, "swim": read_swim}
SUFFIXES = {".tr": "tr", ".tsv": "swim"}


def register_reader(name: str, reader, suffixes=()):
    """Adds a trace format: ``reader(path, **options) -> Workload``."""
    READERS[name] = reader
    for s in suffixes:
        SUFFIXES[s] = name


#: files at least this large show a progress bar while read (when progress is on)
PROGRESS_MIN_BYTES = 16 * 2**20


def read_trace(path, format: str | None = None, *, progress=None, **options):
    """Reads a workload trace. ``format`` is one of ``schedlab.traces.READERS`` (default: from the
    file's suffix); ``options`` go to that format's reader. ``progress``: a bar of the bytes
    parsed while a file (or folder of files) of more than 16 MB is read, fed as the reader
    goes; ``None``: on when interactive or ``$SCHEDLAB_PROGRESS`` says so, as for
    :func:`schedlab.simulate` (see :mod:`schedlab.core.progress`).

    A list of Spark event logs (``format="spark_eventlog"``) reads several applications into one
    workload (:func:`~schedlab.workloads.traces.spark_eventlog.read_spark_eventlogs`)."""
    if isinstance(path, (list, tuple)):
        if format != "spark_eventlog":
            raise ValueError(f"read_trace: a list of paths reads several Spark applications (format='spark_eventlog'), "
                             f"not format={format!r}")
        from .spark_eventlog import read_spark_eventlogs
        return read_spark_eventlogs(path, **options)
    path = os.fspath(path)
    if format is None:
        ext = os.path.splitext(path)[1].lower()
        if ext not in SUFFIXES:
            raise ValueError(f"{path}: cannot tell the trace format from the suffix {ext!r}; "
                             f"pass format= one of {sorted(READERS)}")
        format = SUFFIXES[ext]
    if format not in READERS:
        raise ValueError(f"{path}: unknown trace format {format!r}; known: {sorted(READERS)}")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such trace file")
    size = _size(path)
    if size >= PROGRESS_MIN_BYTES and _progress.enabled(progress):
        bar = _progress.bar(total=size, desc=f"reading {os.path.basename(os.path.normpath(path))}", unit="B",
                            unit_scale=True, leave=False)
        try:
            with _text.progress_feed(bar) as feed:
                workload = READERS[format](path, **options)
            feed.finish()  # readers that do not report
        finally:
            bar.close()
        return workload
    return READERS[format](path, **options)


def _size(path):
    if os.path.isdir(path):
        return sum(e.stat().st_size for e in os.scandir(path) if e.is_file())
    return os.path.getsize(path)


# further formats register themselves through register_reader
from .google import read_google_task_events  # noqa: E402
from .alibaba import read_alibaba2017, read_alibaba2018  # noqa: E402
from .swf import read_swf  # noqa: E402
from .spark_eventlog import read_spark_eventlog  # noqa: E402

register_reader("google2011", read_google_task_events)
register_reader("alibaba2017", read_alibaba2017)
register_reader("alibaba2018", read_alibaba2018)
register_reader("swf", read_swf, suffixes=(".swf",))
register_reader("spark_eventlog", read_spark_eventlog)
