"""Hawk/Eagle/Sparrow simulator job files (``.tr``).

One job per line: ``submit_time n_tasks mean_duration d_1 ... d_n``, separated by runs of
blanks; CRLF endings, trailing blanks and a missing final newline are accepted. Each job
becomes a single-stage job of n tasks with the given durations.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ... import _core
from ...core.workload import Workload
from . import _text
from ._text import read_bytes


def read_tr(path, *, truncate: bool = False, tie_offset: float = 0.0, mean_tolerance: float = 1e-6,
            name: str | None = None) -> Workload:
    """Reads a ``.tr`` file.

    ``truncate=True`` applies the Eagle simulator's ``int(float(x))`` to every duration (its
    default semantics); ``tie_offset`` > 0 separates jobs with the same submit time by that many
    seconds each, as the Eagle simulator does with 0.01. The mean field is checked against the
    durations (relative ``mean_tolerance``) and kept as column ``mean_task_duration``.
    """
    path = os.fspath(path)
    data = read_bytes(path)
    parsed = _parse_columns(data, mean_tolerance) if _text.FAST else None
    if parsed is None:  # some line is not plain: the line-by-line reading names the error
        parsed = _parse_lines(path, data, mean_tolerance)
    submit, counts, mean, durations = parsed
    if (np.diff(submit) < 0).any():
        i = int(np.argmax(np.diff(submit) < 0)) + 1
        raise ValueError(f"{path}: job {i + 1} is submitted before the job above it; .tr files are in time order")
    if tie_offset > 0 and len(submit) > 1:
        # k-th repeat of the same submit time moves by k * tie_offset (repeats are adjacent: the
        # times are in order)
        index = np.arange(len(submit))
        first_of_run = np.maximum.accumulate(np.where(np.r_[True, submit[1:] != submit[:-1]], index, 0))
        submit = submit + (index - first_of_run) * tie_offset
    if truncate:
        durations = np.trunc(durations)
        mean = np.trunc(mean)
    jobs = pd.DataFrame({"job_id": np.arange(len(submit)), "submit_time": submit, "mean_task_duration": mean})
    return Workload.from_job_blocks(jobs, counts, {"work": durations}, name=name or os.path.basename(path), source=path)


def _parse_columns(data: bytes, mean_tolerance: float):
    """The whole file at once: (submit, counts, mean, durations), or None if any line needs a
    closer look (a bad or unusual field, a count that does not match, a mean near the
    tolerance): then the line-by-line reading decides, and its error names the line. Plain
    decimal numbers are parsed and checked in one C++ pass; other tokens (e.g. "inf", "1_0")
    by NumPy's conversion, checked by column."""
    fast = _core.tr_columns(data, mean_tolerance)
    if fast is not None:
        return fast or None
    rows = [r for r in map(bytes.split, data.splitlines()) if r]
    if not rows:
        return None
    lens = np.fromiter(map(len, rows), np.int64, len(rows))
    if (lens < 3).any() or not all(r[1].isdigit() for r in rows):
        return None
    try:
        vals = np.array([t for r in rows for t in r], dtype=np.float64)
    except ValueError:
        return None
    starts = np.zeros(len(lens), np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    with np.errstate(invalid="ignore"):  # (a count past 64 bits: told apart below, by the line-by-line reading)
        counts = vals[starts + 1].astype(np.int64)
    if (counts < 1).any() or (counts != lens - 3).any():
        return None
    submit, mean = vals[starts], vals[starts + 2]
    keep = np.ones(len(vals), bool)
    keep[starts] = keep[starts + 1] = keep[starts + 2] = False
    durations = vals[keep]
    if not (np.isfinite(submit).all() and (submit >= 0).all() and np.isfinite(durations).all()
            and (durations >= 0).all() and np.isfinite(mean).all()):
        return None
    first = np.zeros(len(lens), np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    diff = np.abs(np.add.reduceat(durations, first) / counts - mean)
    if (diff > 0.5 * mean_tolerance * np.maximum(1.0, np.abs(mean))).any():
        return None  # near or past the tolerance: the line-by-line check uses each line's own mean
    return submit, counts, mean, durations


def _parse_lines(path: str, data: bytes, mean_tolerance: float):
    submits, counts, means, flat = [], [], [], []
    for lineno, raw in enumerate(data.splitlines(), start=1):
        line = raw.decode("ascii", errors="replace").strip()
        if not line:
            continue
        fields = line.split()
        where = f"{path}:{lineno}"
        if len(fields) < 3:
            raise ValueError(f"{where}: expected 'submit_time n_tasks mean d_1 ... d_n', got {len(fields)} fields")
        try:
            submit = float(fields[0])
            n = int(fields[1])
            mean = float(fields[2])
            durations = [float(x) for x in fields[3:]]
        except ValueError as e:
            raise ValueError(f"{where}: not a number ({e})") from None
        if n < 1:
            raise ValueError(f"{where}: n_tasks must be at least 1, got {n}")
        if len(durations) != n:
            raise ValueError(f"{where}: n_tasks says {n} but the line has {len(durations)} durations")
        if not np.isfinite(submit) or submit < 0:
            raise ValueError(f"{where}: submit time must be a number >= 0, got {fields[0]}")
        d = np.asarray(durations)
        if not np.isfinite(d).all() or (d < 0).any():
            raise ValueError(f"{where}: task durations must be numbers >= 0")
        if abs(d.mean() - mean) > mean_tolerance * max(1.0, abs(mean)):
            raise ValueError(f"{where}: mean field {mean} differs from the mean of the durations {d.mean()}")
        submits.append(submit)
        counts.append(n)
        means.append(mean)
        flat.append(d)
    if not submits:
        raise ValueError(f"{path}: the trace has no jobs")
    return np.asarray(submits), np.asarray(counts), np.asarray(means), np.concatenate(flat)
