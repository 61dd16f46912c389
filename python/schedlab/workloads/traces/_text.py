"""Shared helpers of the text trace readers: opening plain or gzip files, splitting lines with
their numbers, and errors that name the file and line."""
from __future__ import annotations

import gzip
import math
import os
import zlib

import numpy as np

from ...core.guard import check_reader_tasks

MAX_TASKS = 2**31 - 1  # the engines number tasks with 32-bit integers
INT64 = (-2**63, 2**63 - 1)  # integer fields are held in 64-bit columns


def read_lines(path):
    """Yields (line number, text) of a plain or ``.gz`` file; CRLF endings and a missing final
    newline are accepted; undecodable bytes are replaced."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        try:
            with gzip.open(path, "rb") as f:
                data = f.read()
        except (gzip.BadGzipFile, EOFError, zlib.error) as e:
            raise ValueError(f"{path}: not a readable gzip file ({type(e).__name__}: {e or 'truncated'}); "
                             f"expected a complete .gz file") from None
    else:
        with open(path, "rb") as f:
            data = f.read()
    for lineno, raw in enumerate(data.splitlines(), start=1):
        yield lineno, raw.decode("utf-8", errors="replace").rstrip("\r\n")


def fail(path, lineno, msg):
    raise ValueError(f"{path}:{lineno}: {msg}")


def number(path, lineno, field, text, *, integer=False, allow_empty=False):
    """Parses a numeric field, raising ValueError naming the file, line and field: a whole
    number must fit a 64-bit integer, any other number must be finite (no nan or inf)."""
    t = text.strip()
    if not t:
        if allow_empty:
            return None
        fail(path, lineno, f"field '{field}' is empty")
    try:
        v = int(t) if integer else float(t)
    except ValueError:
        fail(path, lineno, f"field '{field}' is not a {'whole ' if integer else ''}number: {t!r}")
    if integer and not INT64[0] <= v <= INT64[1]:
        fail(path, lineno, f"field '{field}' is out of range: {t}; expected a whole number between -2^63 and 2^63 - 1")
    if not integer and not math.isfinite(v):
        fail(path, lineno, f"field '{field}' must be a finite number, got {t!r}")
    return v


def check_finite(path, linenos, values, what):
    """Raises ValueError naming the first line whose derived value (e.g. a span or a shifted
    submit time) is not finite (an overflow of finite fields, such as 1e308 - -1e308)."""
    v = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.argmax(bad))
        fail(path, linenos[i], f"{what} is out of range ({v[i]}); expected a finite number of seconds")


def check_task_total(path, linenos, counts, describe, remedy):
    """Raises ValueError naming the line at which the running total of ``counts`` (tasks per
    row, in floating point so that no count wraps around) passes MAX_TASKS; ``describe(i)``
    says what row i holds. Called before the tasks are made, so that an absurd count is an
    error rather than an attempt to allocate terabytes; then refuses (``ResourceError``, naming
    the line of the largest row) a total whose workload would not fit in memory."""
    total = np.cumsum(np.asarray(counts, dtype=np.float64))
    if len(total) and not total[-1] <= MAX_TASKS:
        i = int(np.argmax(~(total <= MAX_TASKS)))
        fail(path, linenos[i], f"{describe(i)}: {total[i]:.4g} tasks with the lines above it; a workload holds at most "
                               f"{MAX_TASKS:,} tasks; {remedy}")
    if len(total):
        # the tasks fit the engines' numbering; do they fit in memory while the workload is built?
        i = int(np.argmax(np.asarray(counts, dtype=np.float64)))
        check_reader_tasks(total[-1], f"{path}:{linenos[i]}: {describe(i)}; the trace's workload", remedy=remedy)
