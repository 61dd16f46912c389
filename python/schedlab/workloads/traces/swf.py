"""The Standard Workload Format (``.swf``) of the Parallel Workloads Archive.

One job per line, 18 whitespace-separated fields, -1 where a value is unknown; lines starting
with ``;`` are header comments:

 1 job number, 2 submit time (s), 3 wait time, 4 run time, 5 allocated processors,
 6 average CPU time used, 7 used memory, 8 requested processors, 9 requested time,
 10 requested memory, 11 status (1 completed, 0 failed, 5 cancelled, ...), 12 user id,
 13 group id, 14 executable, 15 queue, 16 partition, 17 preceding job, 18 think time.

A job becomes a single-stage job of one task per processor (allocated processors, else the
requested ones), each task doing the job's run time of work: the rigid parallel job is modelled
as a bag of independent tasks (schedlab does not gang-schedule them). ``max_tasks_per_job``
caps the task count; ``tasks_per_job="one"`` gives every job a single task instead. Jobs with
an unknown run time or processor count (-1) cannot be simulated and are left out; ``statuses``
(a set of status codes, default all) selects jobs further. Job columns kept: ``user``,
``group``, ``queue``, ``partition``, ``status``, ``processors``, ``wait_time`` (the wait the
original system gave the job) and ``requested_time``. Malformed lines raise ``ValueError``
naming the file and line.
"""
from __future__ import annotations

import io
import os
import warnings

import numpy as np
import pandas as pd

from ...core.workload import Workload
from . import _text
from ._text import check_task_total, fail, has_lone_cr, line_blocks, read_bytes, read_lines

FIELDS = ["job", "submit_time", "wait_time", "run_time", "allocated_processors", "average_cpu_time",
          "used_memory", "requested_processors", "requested_time", "requested_memory", "status", "user",
          "group", "executable", "queue", "partition", "preceding_job", "think_time"]

_WHOLE = [FIELDS.index(f) for f in ("job", "status", "user", "group", "queue", "partition")]


def read_swf(path, *, tasks_per_job: str = "processors", max_tasks_per_job: int | None = None, statuses=None,
             name: str | None = None) -> Workload:
    """Reads a Parallel Workloads Archive ``.swf`` file (see the module documentation)."""
    path = os.fspath(path)
    if tasks_per_job not in ("processors", "one"):
        raise ValueError(f"read_swf: tasks_per_job must be 'processors' or 'one', got {tasks_per_job!r}")
    if max_tasks_per_job is not None and (not isinstance(max_tasks_per_job, (int, np.integer)) or max_tasks_per_job < 1):
        raise ValueError(f"read_swf: max_tasks_per_job must be a positive whole number, got {max_tasks_per_job!r}")
    keep_status = None if statuses is None else {int(s) for s in np.atleast_1d(statuses)}
    data = read_bytes(path)
    parsed = _parse_blocks(data)
    if parsed is None:  # some line needs a closer look: the line-by-line reading names the error
        parsed = _parse_lines(path, data)
    rows, linenos = parsed
    d = pd.DataFrame(np.asarray(rows), columns=FIELDS)
    if d["job"].duplicated().any():
        dup = d["job"][d["job"].duplicated()].iloc[0]
        raise ValueError(f"{path}: job number {int(dup)} appears more than once")
    procs = np.where(d["allocated_processors"] >= 1, d["allocated_processors"], d["requested_processors"])
    ok = (d["run_time"] >= 0).to_numpy() & (procs >= 1)
    if keep_status is not None:
        ok &= d["status"].astype(np.int64).isin(keep_status).to_numpy()
    d, procs, linenos = d[ok].reset_index(drop=True), procs[ok], np.asarray(linenos)[ok]
    if d.empty:
        raise ValueError(f"{path}: no job has a known run time and processor count (or passes 'statuses')")
    n = procs if tasks_per_job == "processors" else np.ones(len(d))
    if max_tasks_per_job is not None:
        n = np.minimum(n, max_tasks_per_job)
    check_task_total(path, linenos, n, lambda i: f"job {int(d['job'].iloc[i])} has {procs[i]:.4g} processors ({n[i]:.4g} tasks)",
                     "pass max_tasks_per_job, or tasks_per_job='one'")
    procs, n = procs.astype(np.int64), n.astype(np.int64)
    ids = d["job"].astype(np.int64).to_numpy()
    jobs = pd.DataFrame({
        "job_id": ids,
        "submit_time": d["submit_time"].to_numpy(),
        "user": d["user"].astype(np.int64).to_numpy(),
        "queue": d["queue"].astype(np.int64).to_numpy(),
        "group": d["group"].astype(np.int64).to_numpy(),
        "partition": d["partition"].astype(np.int64).to_numpy(),
        "status": d["status"].astype(np.int64).to_numpy(),
        "processors": procs,
        "wait_time": d["wait_time"].to_numpy(),
        "requested_time": d["requested_time"].to_numpy(),
    })
    # every task of a job does the job's run time of work: one block of tasks per job, no task table
    return Workload.from_job_blocks(jobs, n, {"work": np.repeat(d["run_time"].to_numpy(), n)},
                                    name=name or os.path.basename(path), source=path)


def _parse_lines(path, data):
    """Line by line, each check naming the line: (rows, line numbers)."""
    rows, linenos = [], []
    for lineno, line in read_lines(path, data):
        text = line.strip()
        if not text or text.startswith(";"):
            continue
        fields = text.split()
        if len(fields) != len(FIELDS):
            fail(path, lineno, f"expected {len(FIELDS)} whitespace-separated SWF fields, got {len(fields)}")
        try:
            vals = [float(x) for x in fields]
        except ValueError:
            bad = next(k for k, x in enumerate(fields) if not _is_number(x))
            fail(path, lineno, f"field {bad + 1} '{FIELDS[bad]}' is not a number: {fields[bad]!r}")
        if not all(np.isfinite(vals)):
            fail(path, lineno, "fields must be finite numbers")
        for k in (1, 3, 4, 7):
            if vals[k] < -1:
                fail(path, lineno, f"field {k + 1} '{FIELDS[k]}' must be >= 0 or -1 (unknown), got {fields[k]}")
        if vals[1] < 0:
            fail(path, lineno, f"field 2 'submit_time' must be known and >= 0, got {fields[1]}")
        for k in _WHOLE:  # kept as 64-bit integers: whole numbers that a float holds exactly
            if not (vals[k].is_integer() and abs(vals[k]) <= 2**53):
                fail(path, lineno, f"field {k + 1} '{FIELDS[k]}' must be a whole number of at most 2^53 in size, "
                                   f"got {fields[k]}")
        rows.append(vals)
        linenos.append(lineno)
    if not rows:
        raise ValueError(f"{path}: the trace has no jobs")
    return np.asarray(rows, dtype=np.float64), np.asarray(linenos, dtype=np.int64)


def _parse_blocks(data: bytes):
    """Blocks of lines parsed at once by NumPy's text reader (no Python object per line), with
    the line-by-line checks done by column. Returns (rows, line numbers), or None when a line
    needs a closer look (a comment or blank line after the header, a bad field, a lone CR line
    end): then the line-by-line reading decides, and its error names the line."""
    if not _text.FAST or has_lone_cr(data):
        return None
    # the header: leading comment (';') and blank lines
    start, lineno = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        text = data[start:end].strip()
        if text and not text.startswith(b";"):
            break
        start, lineno = end, lineno + 1
    body = data[start:].rstrip() + b"\n"  # (blank lines at the end change no line number)
    if b";" in body or _text._BLANK_LINE.search(body) or not body.strip():
        return None
    parts = []
    for block in line_blocks(body):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (an empty block warns)
                parts.append(np.loadtxt(io.BytesIO(block), dtype=np.float64, comments=None, ndmin=2,
                                        encoding="utf-8"))
        except (ValueError, UserWarning):
            return None
    rows = np.concatenate(parts) if len(parts) > 1 else parts[0]
    if rows.shape[1] != len(FIELDS):
        return None
    if not np.isfinite(rows).all():
        return None
    if (rows[:, [1, 3, 4, 7]] < -1).any() or (rows[:, 1] < 0).any():
        return None
    whole = rows[:, _WHOLE]
    if not ((whole == np.floor(whole)).all() and (np.abs(whole) <= 2**53).all()):
        return None
    return rows, lineno + np.arange(len(rows), dtype=np.int64)



def _is_number(x):
    try:
        float(x)
        return True
    except ValueError:
        return False
