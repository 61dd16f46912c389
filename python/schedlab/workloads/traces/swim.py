"""SWIM Facebook workload files (``.tsv``): one job per line, tab-separated:
``job_id submit_time inter_job_gap map_input_bytes shuffle_bytes reduce_output_bytes``
(``withInputPaths`` files add an input path and two empty fields).

SWIM records bytes, not tasks; tasks are derived as SWIM's replayer does: maps =
ceil(input / block) with at least one block of input, reduces = round((shuffle + output) /
bytes_per_reduce) with at least one (none for jobs with no shuffle and no output), bytes scaled
by ``scale`` (target / original cluster size). Task work comes from a throughput model:
map work = overhead + block bytes / map_rate; reduce work = overhead + its bytes / reduce_rate.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ...core.workload import Workload
from ._text import check_task_total, read_bytes


def read_swim(path, *, block_bytes: float = 64 * 2**20, bytes_per_reduce: float = 1 * 2**30, scale: float = 1.0,
              map_rate: float = 32 * 2**20, reduce_rate: float = 32 * 2**20, task_overhead: float = 2.0,
              max_tasks_per_job: int | None = None, name: str | None = None) -> Workload:
    path = os.fspath(path)
    for key, v in (("block_bytes", block_bytes), ("bytes_per_reduce", bytes_per_reduce), ("scale", scale),
                   ("map_rate", map_rate), ("reduce_rate", reduce_rate)):
        if not v > 0:
            raise ValueError(f"read_swim: '{key}' must be positive, got {v!r}")
    if max_tasks_per_job is not None and (isinstance(max_tasks_per_job, bool) or not float(max_tasks_per_job).is_integer()
                                          or max_tasks_per_job < 1):
        raise ValueError(f"read_swim: 'max_tasks_per_job' must be a whole number >= 1 (or None), got {max_tasks_per_job!r}")
    ids, lines, submit, inp, shuf, out = [], [], [], [], [], []
    data = read_bytes(path)
    for lineno, raw in enumerate(data.splitlines(), start=1):
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line.strip():
            continue
        fields = line.split("\t")
        where = f"{path}:{lineno}"
        if len(fields) not in (6, 7, 9):
            raise ValueError(f"{where}: expected 6 tab-separated fields (9 with input paths), got {len(fields)}")
        try:
            vals = [float(x) for x in fields[1:6]]
        except ValueError as e:
            raise ValueError(f"{where}: not a number ({e})") from None
        if any((not np.isfinite(v)) or v < 0 for v in vals):
            raise ValueError(f"{where}: times and byte counts must be numbers >= 0")
        ids.append(fields[0])
        lines.append(lineno)
        submit.append(vals[0])
        inp.append(vals[2])
        shuf.append(vals[3])
        out.append(vals[4])
    if not ids:
        raise ValueError(f"{path}: the trace has no jobs")
    first_line = {}
    for job_id, lineno in zip(ids, lines):
        if first_line.setdefault(job_id, lineno) != lineno:
            raise ValueError(f"{path}:{lineno}: job id {job_id!r} already appeared on line {first_line[job_id]}; "
                             f"expected unique job ids")
    inp = np.asarray(inp) * scale
    shuf = np.asarray(shuf) * scale
    out = np.asarray(out) * scale
    # task counts in floating point first: a byte count far out of range must not wrap around
    n_maps = np.maximum(np.ceil(np.maximum(inp, block_bytes) / block_bytes), 1)
    red_bytes = shuf + out
    n_red = np.where(red_bytes > 0, np.maximum(np.rint(red_bytes / bytes_per_reduce), 1), 0)
    if max_tasks_per_job is not None:
        n_maps = np.minimum(n_maps, max_tasks_per_job)
        n_red = np.minimum(n_red, max_tasks_per_job)
    check_task_total(path, lines, n_maps + n_red,
                     lambda i: (f"job {ids[i]!r} makes {n_maps[i]:.4g} map and {n_red[i]:.4g} reduce tasks ({inp[i]:.4g} "
                                f"input bytes, {red_bytes[i]:.4g} shuffle and output bytes after scale {scale})"),
                     "raise block_bytes or bytes_per_reduce, lower scale, or pass max_tasks_per_job")
    n_maps = n_maps.astype(np.int64)
    n_red = n_red.astype(np.int64)
    # each job's block of tasks: its maps, then its reduces; every task of a stage has the same
    # figures, so each column is one value per (job, stage), with no array (or Python object) per task

    def blocks(map_value, reduce_value):
        return np.stack([np.broadcast_to(map_value, n_maps.shape), np.broadcast_to(reduce_value, n_red.shape)], 1)

    map_in = np.maximum(inp, block_bytes) / n_maps
    red_den = np.maximum(n_red, 1)
    tasks = {
        "work": blocks(task_overhead + map_in / map_rate, task_overhead + (red_bytes / red_den) / reduce_rate),
        "input_bytes": blocks(map_in, shuf / red_den),
        "output_bytes": blocks(shuf / n_maps, 0.0),
    }
    jobs = pd.DataFrame({"job_id": ids, "submit_time": submit, "map_input_bytes": inp, "shuffle_bytes": shuf,
                         "reduce_output_bytes": out})
    return Workload.from_job_blocks(jobs, n_maps + n_red, tasks, n_maps=n_maps, name=name or os.path.basename(path),
                                    source=path)
