"""Google cluster-usage traces 2011 (clusterdata-2011-2), ``task_events`` tables.

Each line is one event of one task, 13 comma-separated fields without a header:
``timestamp`` (microseconds), ``missing_info``, ``job_id``, ``task_index``, ``machine_id``,
``event_type``, ``user``, ``scheduling_class``, ``priority``, ``cpu_request``,
``memory_request``, ``disk_request``, ``different_machines``. Event types: 0 SUBMIT,
1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 UPDATE_PENDING, 8 UPDATE_RUNNING.
Timestamp 0 means "before the trace began" and 2^63 - 1 "after it ended".

How a workload is built:

* a task's work is the length of its successful run: from its last SCHEDULE to its FINISH
  (earlier runs that were evicted, failed or killed are the cluster's history, not the task's
  demand); tasks that never FINISH inside the trace are left out;
* a job's submit time is the earliest SUBMIT of any of its kept tasks (its first SCHEDULE when
  the submission is not in the trace); with ``relative=True`` (default) times are shifted so
  that the first job arrives at 0;
* every job is single-stage (all its tasks are maps): the trace records no task dependencies;
* job columns ``user``, ``scheduling_class`` and ``priority`` come from the job's first event.

``path`` is a file (plain or ``.gz``), a folder of part files (every ``*.csv`` / ``*.csv.gz``
in it, in name order) or a list of files. Malformed lines raise ``ValueError`` naming the file
and line.
"""
from __future__ import annotations

import glob
import os

import numpy as np
import pandas as pd

from ...core.workload import Workload
from ._text import csv_columns, fail, number, read_bytes, read_lines

FIELDS = ["timestamp", "missing_info", "job_id", "task_index", "machine_id", "event_type", "user",
          "scheduling_class", "priority", "cpu_request", "memory_request", "disk_request", "different_machines"]
SUBMIT, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPDATE_PENDING, UPDATE_RUNNING = range(9)
_AFTER_END = 2 ** 63 - 1


def _files(path):
    if isinstance(path, (list, tuple)):
        return [os.fspath(p) for p in path]
    path = os.fspath(path)
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.csv")) + glob.glob(os.path.join(path, "*.csv.gz")))
        if not files:
            raise ValueError(f"{path}: the folder holds no *.csv or *.csv.gz task_events files")
        return files
    return [path]


def read_google_task_events(path, *, relative: bool = True, name: str | None = None) -> Workload:
    """Reads Google 2011 ``task_events`` table(s) into a workload (see the module documentation)."""
    files = _files(path)
    # per file, each task's last SCHEDULE and FINISH and first SUBMIT (their maximum and minimum
    # times), so that only a file's events are held at a time; then the same over the files
    times, metas, n_events = [], [], 0
    for f in files:
        if not os.path.exists(f):
            raise FileNotFoundError(f"{f}: no such trace file")
        data = read_bytes(f)
        parsed = _parse_blocks(data)
        if parsed is None:  # some line needs a closer look: the line-by-line reading names the error
            seen = set(np.concatenate([m[0] for m in metas]).tolist()) if metas else set()
            parsed = _parse_lines(f, data, seen)
        del data
        n_events += len(parsed[0])
        times.append(_task_times(*parsed[:4]))
        metas.append(parsed[4])
    if not n_events:
        raise ValueError(f"{files[0]}: the trace has no events")
    times = pd.concat(times)
    if len(files) > 1:
        times = times.groupby(level=["job", "task"], sort=True).agg({"schedule": "max", "finish": "max", "submit": "min"})
    # each job's columns come from its first event in the files' order
    mj, mu, ms, mp = (np.concatenate([m[k] for m in metas]) for k in range(4))
    _, first = np.unique(mj, return_index=True)
    first_meta = pd.DataFrame({"user": mu[first], "scheduling_class": ms[first], "priority": mp[first]},
                              index=mj[first])
    both = times[["schedule", "finish"]].dropna()
    both = both[both["finish"] >= both["schedule"]]
    if both.empty:
        raise ValueError(f"{files[0]}: no task both starts (SCHEDULE) and finishes (FINISH) in the trace")
    both["submit"] = times["submit"].reindex(both.index).fillna(both["schedule"])
    both = both.reset_index()
    work = (both["finish"] - both["schedule"]).to_numpy(np.float64) / 1e6
    job_submit = both.groupby("job", sort=True)["submit"].min() / 1e6
    if relative:
        job_submit = job_submit - job_submit.min()
    jobs = pd.DataFrame({"job_id": job_submit.index.to_numpy(), "submit_time": job_submit.to_numpy(np.float64)})
    meta = first_meta.loc[jobs["job_id"].to_numpy()]
    jobs["user"] = meta["user"].to_numpy(object)
    jobs["scheduling_class"] = meta["scheduling_class"].to_numpy(np.int64)
    jobs["priority"] = meta["priority"].to_numpy(np.int64)
    tasks = pd.DataFrame({"job_id": both["job"].to_numpy(), "work": work})
    label = name or os.path.basename(os.path.normpath(files[0] if len(files) == 1 else os.path.dirname(files[0])))
    return Workload.from_frames(jobs, tasks, name=label, source=", ".join(files[:3]) + (" ..." if len(files) > 3 else ""))


def _task_times(ts, job, task, etype) -> pd.DataFrame:
    """Per (job, task) of one file's events: the last SCHEDULE's and FINISH's times and the first
    SUBMIT's (NaN where the file has none), sorted by job and task."""
    ts, etype = np.asarray(ts, dtype=np.int64), np.asarray(etype)
    keep = ts != _AFTER_END
    t, e = ts[keep], etype[keep]
    # one grouping for the three, the other events' times out of the way (times are >= 0 and below 2^63 - 1)
    ev = pd.DataFrame({"job": np.asarray(job, dtype=np.int64)[keep], "task": np.asarray(task, dtype=np.int64)[keep],
                       "schedule": np.where(e == SCHEDULE, t, -1), "finish": np.where(e == FINISH, t, -1),
                       "submit": np.where(e == SUBMIT, t, _AFTER_END)})
    times = ev.groupby(["job", "task"], sort=True).agg({"schedule": "max", "finish": "max", "submit": "min"})
    return times.astype(np.float64).mask(times.eq([-1, -1, _AFTER_END]))


def _parse_lines(f, data, seen):
    """Line by line, each check naming the line. ``seen``: jobs whose first event was in an
    earlier file. Returns the event columns and the first event of each job new in this file."""
    ts, job, task, etype = [], [], [], []
    first_meta = {}
    for lineno, line in read_lines(f, data):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != len(FIELDS):
            fail(f, lineno, f"expected {len(FIELDS)} comma-separated fields (Google 2011 task_events), "
                            f"got {len(fields)}")
        t = number(f, lineno, "timestamp", fields[0], integer=True)
        j = number(f, lineno, "job_id", fields[2], integer=True)
        i = number(f, lineno, "task_index", fields[3], integer=True)
        e = number(f, lineno, "event_type", fields[5], integer=True)
        if t < 0:
            fail(f, lineno, f"field 'timestamp' must be >= 0, got {t}")
        if not 0 <= e <= 8:
            fail(f, lineno, f"field 'event_type' must be 0..8, got {e}")
        if j not in first_meta and j not in seen:
            sc = number(f, lineno, "scheduling_class", fields[7], integer=True, allow_empty=True)
            pr = number(f, lineno, "priority", fields[8], integer=True, allow_empty=True)
            first_meta[j] = (fields[6], -1 if sc is None else sc, -1 if pr is None else pr)
        ts.append(t)
        job.append(j)
        task.append(i)
        etype.append(e)
    meta = (np.fromiter(first_meta, np.int64, len(first_meta)),
            np.array([m[0] for m in first_meta.values()], dtype=object),
            np.array([m[1] for m in first_meta.values()], dtype=np.int64),
            np.array([m[2] for m in first_meta.values()], dtype=np.int64))
    return (np.asarray(ts, dtype=np.int64), np.asarray(job, dtype=np.int64), np.asarray(task, dtype=np.int64),
            np.asarray(etype, dtype=np.int8), meta)


_TYPES = {"timestamp": "int64", "job_id": "int64", "task_index": "int64", "event_type": "int64", "user": "string",
          "scheduling_class": "int64", "priority": "int64"}


def _parse_blocks(data):
    """The whole file in blocks parsed by pyarrow's CSV reader (no Python object per line), the
    line-by-line checks done by column. None when pyarrow is not installed or some line needs a
    closer look (a bad or missing field, a blank line): the line-by-line reading decides."""
    table = csv_columns(data, FIELDS, _TYPES)
    if table is None:
        return None
    cols = {}
    for name in ("timestamp", "job_id", "task_index", "event_type"):
        c = table.column(name)
        if c.null_count:
            return None
        cols[name] = c.to_numpy()
    t, e = cols["timestamp"], cols["event_type"]
    if len(t) == 0 or (t < 0).any() or (e < 0).any() or (e > 8).any():
        return None
    job = cols["job_id"]
    first = np.flatnonzero(~pd.Series(job).duplicated().to_numpy())  # (in the order of first appearance)
    meta = (job[first], table.column("user").take(first).to_numpy(zero_copy_only=False).astype(object),
            table.column("scheduling_class").take(first).fill_null(-1).to_numpy(),
            table.column("priority").take(first).fill_null(-1).to_numpy())
    return t, job, cols["task_index"], e.astype(np.int8), meta
