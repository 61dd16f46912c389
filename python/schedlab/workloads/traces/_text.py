"""Shared helpers of the text trace readers: opening plain or gzip files, splitting lines with
their numbers, and errors that name the file and line."""
from __future__ import annotations

import gzip
import os

import numpy as np

MAX_TASKS = 2**31 - 1  # the engines number tasks with 32-bit integers


def read_lines(path):
    """Yields (line number, text) of a plain or ``.gz`` file; CRLF endings and a missing final
    newline are accepted; undecodable bytes are replaced."""
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    for lineno, raw in enumerate(data.splitlines(), start=1):
        yield lineno, raw.decode("utf-8", errors="replace").rstrip("\r\n")


def fail(path, lineno, msg):
    raise ValueError(f"{path}:{lineno}: {msg}")


def number(path, lineno, field, text, *, integer=False, allow_empty=False):
    """Parses a numeric field, raising ValueError naming the file, line and field."""
    t = text.strip()
    if not t:
        if allow_empty:
            return None
        fail(path, lineno, f"field '{field}' is empty")
    try:
        return int(t) if integer else float(t)
    except ValueError:
        fail(path, lineno, f"field '{field}' is not a {'whole ' if integer else ''}number: {t!r}")


def check_task_total(path, linenos, counts, describe, remedy):
    """Raises ValueError naming the line at which the running total of ``counts`` (tasks per
    row, in floating point so that no count wraps around) passes MAX_TASKS; ``describe(i)``
    says what row i holds. Called before the tasks are made, so that an absurd count is an
    error rather than an attempt to allocate terabytes."""
    total = np.cumsum(np.asarray(counts, dtype=np.float64))
    if len(total) and not total[-1] <= MAX_TASKS:
        i = int(np.argmax(~(total <= MAX_TASKS)))
        fail(path, linenos[i], f"{describe(i)}: {total[i]:.4g} tasks with the lines above it; a workload holds at most "
                               f"{MAX_TASKS:,} tasks; {remedy}")
