"""Hawk/Eagle/Sparrow simulator job files (``.tr``).

One job per line: ``submit_time n_tasks mean_duration d_1 ... d_n``, separated by runs of
blanks; CRLF endings, trailing blanks and a missing final newline are accepted. Each job
becomes a single-stage job of n tasks with the given durations.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ...core.workload import Workload


def read_tr(path, *, truncate: bool = False, tie_offset: float = 0.0, mean_tolerance: float = 1e-6,
            name: str | None = None) -> Workload:
    """Reads a ``.tr`` file.

    ``truncate=True`` applies the Eagle simulator's ``int(float(x))`` to every duration (its
    default semantics); ``tie_offset`` > 0 separates jobs with the same submit time by that many
    seconds each, as the Eagle simulator does with 0.01. The mean field is checked against the
    durations (relative ``mean_tolerance``) and kept as column ``mean_task_duration``.
    """
    path = os.fspath(path)
    submits, counts, means, flat = [], [], [], []
    with open(path, "rb") as f:
        data = f.read()
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
    submit = np.asarray(submits)
    if (np.diff(submit) < 0).any():
        i = int(np.argmax(np.diff(submit) < 0)) + 1
        raise ValueError(f"{path}: job {i + 1} is submitted before the job above it; .tr files are in time order")
    if tie_offset > 0:
        # k-th repeat of the same submit time moves by k * tie_offset
        s = pd.Series(submit)
        submit = submit + s.groupby(s).cumcount().to_numpy() * tie_offset
    durations = np.concatenate(flat)
    mean = np.asarray(means)
    if truncate:
        durations = np.trunc(durations)
        mean = np.trunc(mean)
    counts = np.asarray(counts)
    jobs = pd.DataFrame({"job_id": np.arange(len(submit)), "submit_time": submit, "mean_task_duration": mean})
    tasks = pd.DataFrame({"job_id": np.repeat(np.arange(len(submit)), counts), "work": durations})
    return Workload.from_frames(jobs, tasks, name=name or os.path.basename(path), source=path)
