"""Alibaba cluster traces: the ``batch_task`` tables of cluster-trace-v2017 and -v2018.

Both tables have one line per *task* (a stage of a job) with its number of *instances* (the
units a machine runs) but no per-instance times (those are in ``batch_instance``, not read
here). A task becomes schedlab tasks as follows:

* by default one schedlab task per trace task, whose work is the task's span
  (end - start in 2018, end - create in 2017);
* with ``instances=True``, one schedlab task per instance (at most ``max_instances_per_task``),
  each given the task's span as its work: an upper bound, since instances may have run in
  several waves inside that span.

Only tasks whose status is in ``statuses`` (default: ``Terminated``) are kept; jobs with no kept
task are left out. A span that is negative (the 2017 sample has one task ending one second
before its creation) is handled by ``negative_spans``: ``"clamp"`` to 0 (default), ``"drop"``
the task, or ``"raise"``. With ``relative=True`` (default) submit times are shifted so that
the first job arrives at 0 (2017 creation times may be negative: before the trace began).

2017 (``alibaba2017``): ``task_create_time, task_end_time, job_id, task_id,
number_of_instances, status, cpus_requested, normalized_memory`` — comma-separated, with or
without a header line (whose names may have leading blanks), CRLF or LF endings. The table has
no task dependencies: every task of a job is a map task, and the job arrives at its first
task's creation.

2018 (``alibaba2018``): ``task_name, instance_num, job_name, task_type, status, start_time,
end_time, plan_cpu, plan_mem``, no header. Task names carry the job's DAG: ``M1`` is task 1
with no dependencies, ``R2_1`` task 2 depending on task 1, ``J5_3_4`` task 5 depending on tasks
3 and 4 (the letters are the task kind). Names without this pattern (``task_...``,
``MergeTask``) are independent tasks. The DAG is mapped onto schedlab's two-stage
map -> reduce model by depth (``dag="depth"``, default): tasks with no dependency inside the job
(depth 0) form the map stage and every other task (depth >= 1) the reduce stage, so a reduce
starts only after all of the job's roots finish, while chains deeper than two levels run their
later levels side by side (the critical path of a deeper DAG is shortened to two levels).
``dag="flatten"`` makes every task a map task. Job columns ``dag_depth`` (longest dependency
chain, 0 for independent tasks) and ``n_trace_tasks`` let studies keep only jobs that fit the
model exactly (``dag_depth <= 1``). Dependencies on tasks that are not kept (e.g. failed) are
ignored; a cycle raises ``ValueError``. The job arrives at the earliest start of its tasks.

``dag="jobs"`` keeps the DAG itself, as Hadoop 1 runs a workflow (Pig, Hive, Oozie): every
trace task becomes one single-stage (map-only) schedlab job whose tasks are its instances
(``instances`` defaults to True in this mode; each instance's work is the task's span, an upper
bound as above), and whose parents are the trace tasks its name depends on, so it is submitted
when they have all finished. All the jobs made from one trace job share a ``dag`` (the trace
``job_name``) and its arrival (the earliest start of its tasks); ``job_id`` is
``"job_name/task_name"``, and job columns ``trace_task``, ``dag_depth`` (the task's depth in
its DAG) and ``instances`` are kept. :attr:`schedlab.Result.dags` then gives per-workflow
completion times. (``dag="depth"`` stays the default for the studies built on it.)

A task name that starts like a DAG name (letters then digits) but does not follow the pattern,
a task depending on itself, and two tasks of one job with the same number raise ``ValueError``
naming the file and line.

Malformed lines raise ``ValueError`` naming the file and line.
"""
from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ...core._arrays import unique_values
from ...core.workload import Workload, dag_levels
from ._text import check_finite, check_task_total, csv_columns, fail, number, read_bytes, read_lines

FIELDS_2017 = ["task_create_time", "task_end_time", "job_id", "task_id", "number_of_instances", "status",
               "number_of_cpus_requested_per_instance_in_the_task",
               "normalized_memory_requested_per_instance_in_the_task"]
FIELDS_2018 = ["task_name", "instance_num", "job_name", "task_type", "status", "start_time", "end_time",
               "plan_cpu", "plan_mem"]
_DAG_NAME = re.compile(r"^([A-Za-z]+)(\d+)((?:_\d+)*)$")
_DAG_LIKE = re.compile(r"^[A-Za-z]+\d")  # names starting so must follow the DAG pattern


def _check_options(statuses, negative_spans, max_instances_per_task):
    if negative_spans not in ("clamp", "drop", "raise"):
        raise ValueError(f"negative_spans must be 'clamp', 'drop' or 'raise', got {negative_spans!r}")
    if max_instances_per_task is not None and (not isinstance(max_instances_per_task, (int, np.integer))
                                               or max_instances_per_task < 1):
        raise ValueError(f"max_instances_per_task must be a positive whole number, got {max_instances_per_task!r}")
    if isinstance(statuses, str):
        statuses = (statuses,)
    return None if statuses is None else set(statuses)


def _span(path, lineno, start, end, negative_spans):
    span = end - start
    if span < 0:
        if negative_spans == "raise":
            fail(path, lineno, f"the task ends ({end}) before it starts ({start})")
        if negative_spans == "drop":
            return None
        span = 0.0
    return span


def _block_spans(start, end, kept, negative_spans):
    """The block readers' :func:`_span`: (span, kept rows) of a block, negative spans of kept rows
    clamped or dropped as ``negative_spans`` says; None for "raise" (the line-by-line reading
    names the line)."""
    with np.errstate(over="ignore"):  # (an overflow to inf is named by _build's check of spans)
        span = end - start
    negative = kept & (span < 0)
    if negative.any():
        if negative_spans == "raise":
            return None
        if negative_spans == "drop":
            kept = kept & ~negative
        else:
            span = np.where(negative, 0.0, span)
    return span, kept


def _tasks_per_row(path, rows, job_labels, instances, max_instances_per_task):
    """schedlab tasks per trace task (row): 1, or its instances (at least 1, at most the cap);
    checked against the engines' limit first, in floating point (a count may be absurd)."""
    if not instances:
        return np.ones(len(rows), np.int64)
    n = rows["n_inst"].to_numpy(np.float64)
    if max_instances_per_task is not None:
        n = np.minimum(n, max_instances_per_task)
    n = np.maximum(n, 1)
    check_task_total(path, rows["line"].to_numpy(), n,
                     lambda i: f"task with {rows['n_inst'].iloc[i]} instances "
                               f"(job {_job_label(job_labels, rows['job'].iloc[i])})",
                     "pass max_instances_per_task, or instances=False")
    return n.astype(np.int64)


def _job_label(job_labels, job):
    return job if job_labels is None else job_labels[job]


def _build(path, rows, job_labels, *, instances, max_instances_per_task, relative, name, stage=None,
           job_max=None, job_sum=None):
    """rows: DataFrame with job (codes into ``job_labels``, or the job ids if that is None), start,
    span, n_inst, line, in line order; ``stage``: per row 0 (map) or 1 (reduce), or None (all
    maps). Jobs come in the order of their first kept row (then by submit time, as every workload
    orders them), each its maps then its reduces in line order. ``job_max`` / ``job_sum``: extra
    job columns, the largest / the sum of a per-row array over the job's rows. Returns a
    Workload, built from the jobs' blocks of tasks (no table with a row per task)."""
    if rows.empty:
        raise ValueError(f"{path}: no task is left after filtering (check 'statuses')")
    n = _tasks_per_row(path, rows, job_labels, instances, max_instances_per_task)
    line = rows["line"].to_numpy()
    check_finite(path, line, rows["span"].to_numpy(np.float64), "the task's span (end - start)")
    code, first_seen = pd.factorize(rows["job"].to_numpy(), sort=False)  # jobs in order of their first kept row
    key = code.astype(np.int64) * 2
    if stage is not None:
        key += stage
    by_job = np.argsort(key, kind="stable")  # each job's rows together, maps first, in line order
    sorted_code = code[by_job]
    begin = np.flatnonzero(np.r_[True, sorted_code[1:] != sorted_code[:-1]])  # each job's first row there

    def per_job(ufunc, values):
        return ufunc.reduceat(np.asarray(values)[by_job], begin)

    submit = per_job(np.minimum, rows["start"].to_numpy(np.float64))
    if relative:
        with np.errstate(over="ignore"):  # (an overflow to inf is named by the check below)
            submit = submit - submit.min()
        check_finite(path, per_job(np.minimum, line), submit, "the job's submit time relative to the first job")
    ids = first_seen if job_labels is None else np.asarray(job_labels)[first_seen]
    jobs = pd.DataFrame({"job_id": ids, "submit_time": submit})
    jobs["n_trace_tasks"] = np.diff(np.r_[begin, len(by_job)])
    for col, values in (job_max or {}).items():
        jobs[col] = per_job(np.maximum, values)
    for col, values in (job_sum or {}).items():
        jobs[col] = per_job(np.add, values)
    n = n[by_job]
    n_tasks = np.add.reduceat(n, begin)
    n_maps = None if stage is None else np.add.reduceat(np.where(stage[by_job] == 0, n, 0), begin)
    work = np.repeat(rows["span"].to_numpy(np.float64)[by_job], n)
    del code, key, by_job, sorted_code, line, n  # (per-row arrays, not held while the workload is built)
    return Workload.from_job_blocks(jobs, n_tasks, {"work": work}, n_maps=n_maps,
                                    name=name or os.path.basename(path), source=path)


def read_alibaba2017(path, *, statuses=("Terminated",), instances: bool = False,
                     max_instances_per_task: int | None = None, negative_spans: str = "clamp",
                     relative: bool = True, name: str | None = None) -> Workload:
    """Reads an Alibaba cluster-trace-v2017 ``batch_task`` table (see the module documentation)."""
    path = os.fspath(path)
    keep = _check_options(statuses, negative_spans, max_instances_per_task)
    data = read_bytes(path)
    rows = _parse_2017_blocks(data, keep, negative_spans)
    if rows is None:  # some line needs a closer look: the line-by-line reading names the error
        rows = _parse_2017_lines(path, data, keep, negative_spans)
    del data  # (a whole trace's text is gigabytes: not held while the workload is built)
    return _build(path, rows, None, instances=instances, max_instances_per_task=max_instances_per_task,
                  relative=relative, name=name, job_sum={"instances": rows["n_inst"].to_numpy()})


def _parse_2017_lines(path, data, keep, negative_spans):
    """Line by line, each check naming the line: the kept rows (job, start, span, n_inst, line)."""
    job, start, span, n_inst, lines = [], [], [], [], []
    for lineno, line in read_lines(path, data):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != len(FIELDS_2017):
            fail(path, lineno, f"expected {len(FIELDS_2017)} comma-separated fields (Alibaba 2017 batch_task), "
                               f"got {len(fields)}")
        if not job and not start and lineno == 1 and not fields[0].strip().lstrip("-").isdigit():
            names = [f.strip() for f in fields]
            if names[:3] != FIELDS_2017[:3]:
                fail(path, lineno, f"unexpected header {names}; expected {FIELDS_2017}")
            continue
        create = number(path, lineno, "task_create_time", fields[0])
        end = number(path, lineno, "task_end_time", fields[1])
        j = number(path, lineno, "job_id", fields[2], integer=True)
        number(path, lineno, "task_id", fields[3], integer=True)
        ni = number(path, lineno, "number_of_instances", fields[4], integer=True)
        status = fields[5].strip()
        if not status:
            fail(path, lineno, "field 'status' is empty")
        if ni < 0:
            fail(path, lineno, f"field 'number_of_instances' must be >= 0, got {ni}")
        if ni > np.iinfo(np.int64).max:
            fail(path, lineno, f"field 'number_of_instances' is out of range: {ni}")
        if keep is not None and status not in keep:
            continue
        s = _span(path, lineno, create, end, negative_spans)
        if s is None:
            continue
        job.append(j)
        start.append(create)
        span.append(s)
        n_inst.append(ni)
        lines.append(lineno)
    rows = pd.DataFrame({"job": job, "start": start, "span": span, "n_inst": n_inst, "line": lines})
    return rows


_TYPES_2017 = {"task_create_time": "float64", "task_end_time": "float64", "job_id": "int64", "task_id": "int64",
               "number_of_instances": "int64", "status": "string"}


def _parse_2017_blocks(data, keep, negative_spans):
    """The whole table parsed in blocks by pyarrow's CSV reader (no Python object per line; a
    status string per distinct status), the line-by-line checks done by column. None when
    pyarrow is missing or some line needs a closer look: the line-by-line reading decides."""
    first_line = 1
    end = data.find(b"\n")
    head = (data if end < 0 else data[:end]).decode("utf-8", errors="replace").rstrip("\r\n").split(",")
    if not head[0].strip().lstrip("-").isdigit():  # a header line
        if len(head) != len(FIELDS_2017) or [f.strip() for f in head][:3] != FIELDS_2017[:3] or end < 0:
            return None
        data, first_line = data[end + 1:], 2
    table = csv_columns(data, FIELDS_2017, _TYPES_2017)
    if table is None:
        return None
    cols = {}
    for name in ("task_create_time", "task_end_time", "job_id", "task_id", "number_of_instances"):
        c = table.column(name)
        if c.null_count:
            return None
        cols[name] = c.to_numpy()
    create, finish, ni = cols["task_create_time"], cols["task_end_time"], cols["number_of_instances"]
    if not (np.isfinite(create).all() and np.isfinite(finish).all()) or (ni < 0).any():
        return None
    status = table.column("status").combine_chunks().dictionary_encode()
    labels = [v.strip() for v in status.dictionary.to_pylist()]  # one Python string per distinct status
    if any(not v for v in labels):
        return None
    codes = status.indices.to_numpy()
    line = first_line + np.arange(len(codes), dtype=np.int64)
    kept = np.ones(len(codes), bool) if keep is None else np.isin(codes, [k for k, v in enumerate(labels) if v in keep])
    spans = _block_spans(create, finish, kept, negative_spans)
    if spans is None:
        return None
    span, kept = spans
    return pd.DataFrame({"job": cols["job_id"][kept], "start": create[kept], "span": span[kept],
                         "n_inst": ni[kept], "line": line[kept]})


def parse_task_name(task_name: str):
    """``"R2_1"`` -> ``("R", 2, [1])``; names without a DAG (``task_...``) -> ``None``."""
    m = _DAG_NAME.match(task_name.strip())
    if not m:
        return None
    deps = [int(x) for x in m.group(3).split("_") if x]
    return m.group(1), int(m.group(2)), deps


def _depths(path, job, ids, deps):
    """Depth of each task in its job's DAG (0 = no dependency among the given tasks)."""
    index = {t: k for k, t in enumerate(ids)}
    depth = [-1] * len(ids)
    for k0 in range(len(ids)):
        if depth[k0] >= 0:
            continue
        stack, on_path = [(k0, 0)], {k0}
        while stack:
            k, i = stack[-1]
            ds = [index[d] for d in deps[k] if d in index]
            if i < len(ds):
                stack[-1] = (k, i + 1)
                c = ds[i]
                if depth[c] >= 0:
                    continue
                if c in on_path:
                    raise ValueError(f"{path}: job {job!r} has a dependency cycle through task {ids[c]}")
                on_path.add(c)
                stack.append((c, 0))
            else:
                depth[k] = 1 + max((depth[c] for c in ds), default=-1)
                on_path.discard(k)
                stack.pop()
    return depth


def read_alibaba2018(path, *, statuses=("Terminated",), instances: bool | None = None,
                     max_instances_per_task: int | None = None, negative_spans: str = "clamp",
                     dag: str = "depth", relative: bool = True, name: str | None = None) -> Workload:
    """Reads an Alibaba cluster-trace-v2018 ``batch_task`` table (see the module documentation).
    ``dag``: ``"depth"`` (default: the DAG folded onto map -> reduce), ``"flatten"`` (all maps)
    or ``"jobs"`` (the real DAG: one map-only job per trace task, linked by dependencies).
    ``instances``: one schedlab task per instance (default: True with ``dag="jobs"``, else False)."""
    path = os.fspath(path)
    keep = _check_options(statuses, negative_spans, max_instances_per_task)
    if dag not in ("depth", "flatten", "jobs"):
        raise ValueError(f"dag must be 'depth', 'flatten' or 'jobs', got {dag!r}")
    if instances is None:
        instances = dag == "jobs"
    # (a whole trace's text is gigabytes: the blocks' parse drops it once parsed, and the
    # line-by-line reading, which seldom follows, reads the file again)
    parsed = _parse_2018_blocks([read_bytes(path)], keep, negative_spans)
    if parsed is None:  # some line needs a closer look: the line-by-line reading names the error
        parsed = _parse_2018_lines(path, read_bytes(path, part=False), keep, negative_spans)
    df, job_labels, task_labels, edges = parsed
    depth = df["depth"].to_numpy()
    if dag == "jobs":
        return _build_dag_jobs(path, df, job_labels, task_labels, edges, instances=instances,
                               max_instances_per_task=max_instances_per_task, relative=relative, name=name)
    stage = np.where(depth >= 1, 1, 0).astype(np.int8) if dag == "depth" else np.zeros(len(df), np.int8)
    return _build(path, df, job_labels, instances=instances, max_instances_per_task=max_instances_per_task,
                  relative=relative, name=name, stage=stage, job_max={"dag_depth": depth},
                  job_sum={"instances": df["n_inst"].to_numpy()})


def _parse_2018_lines(path, data, keep, negative_spans):
    """Line by line, each check naming the line: the kept rows (job, task, start, span, n_inst,
    line, depth) and the dependency edges between them as (child row, parent row) arrays."""
    rows = []
    seen = {}
    numbers = {}  # (job, task number) -> line
    for lineno, line in read_lines(path, data):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != len(FIELDS_2018):
            fail(path, lineno, f"expected {len(FIELDS_2018)} comma-separated fields (Alibaba 2018 batch_task), "
                               f"got {len(fields)}")
        tname, jname, status = fields[0].strip(), fields[2].strip(), fields[4].strip()
        if not tname:
            fail(path, lineno, "field 'task_name' is empty")
        if not jname:
            fail(path, lineno, "field 'job_name' is empty")
        ni = number(path, lineno, "instance_num", fields[1], integer=True)
        st = number(path, lineno, "start_time", fields[5])
        en = number(path, lineno, "end_time", fields[6])
        if ni < 0:
            fail(path, lineno, f"field 'instance_num' must be >= 0, got {ni}")
        if ni > np.iinfo(np.int64).max:
            fail(path, lineno, f"field 'instance_num' is out of range: {ni}")
        if (jname, tname) in seen:
            fail(path, lineno, f"task {tname!r} of job {jname!r} already appeared on line {seen[(jname, tname)]}")
        seen[(jname, tname)] = lineno
        parsed = parse_task_name(tname)
        if parsed is None and _DAG_LIKE.match(tname):
            fail(path, lineno, f"task name {tname!r} is malformed: a DAG task name is letters, the task number and "
                               f"'_'-separated numbers of the tasks it depends on (e.g. 'M1', 'R2_1', 'J3_1_2')")
        if parsed is not None:
            if parsed[1] in parsed[2]:
                fail(path, lineno, f"task {tname!r} of job {jname!r} depends on itself")
            if (jname, parsed[1]) in numbers:
                fail(path, lineno, f"task {tname!r} of job {jname!r} has the number {parsed[1]} of the task on line "
                                   f"{numbers[(jname, parsed[1])]}")
            numbers[(jname, parsed[1])] = lineno
        if keep is not None and status not in keep:
            continue
        s = _span(path, lineno, st, en, negative_spans)
        if s is None:
            continue
        rows.append((jname, tname, st, s, ni, parsed, lineno))
    df = pd.DataFrame(rows, columns=["job", "task", "start", "span", "n_inst", "parsed", "line"])
    depth = np.zeros(len(df), np.int64)
    if len(df):
        for job, g in df.groupby("job", sort=False):
            dagged = [k for k, p in zip(g.index, g["parsed"]) if p is not None]
            if not dagged:
                continue
            ids = [df.at[k, "parsed"][1] for k in dagged]
            deps = [df.at[k, "parsed"][2] for k in dagged]
            for k, d in zip(dagged, _depths(path, job, ids, deps)):
                depth[k] = d
    df["depth"] = depth
    dagged = [k for k, p in enumerate(df["parsed"]) if p is not None]
    # (task numbers as Python integers: they may pass 64 bits)
    nums = pd.DataFrame({"job": df["job"].to_numpy(object)[dagged],
                         "num": pd.Series([df["parsed"][k][1] for k in dagged], dtype=object),
                         "parent": np.asarray(dagged, dtype=np.int64)})
    wants = pd.DataFrame({"job": df["job"].to_numpy(object)[dagged],
                          "num": pd.Series([df["parsed"][k][2] for k in dagged], dtype=object),
                          "child": np.asarray(dagged, dtype=np.int64)}).explode("num").dropna(subset=["num"])
    pairs = wants.merge(nums, on=["job", "num"], how="inner")
    df = df.drop(columns="parsed")
    job_code, job_labels = pd.factorize(df["job"].to_numpy(object))
    task_code, task_labels = pd.factorize(df["task"].to_numpy(object))
    df["job"], df["task"] = job_code.astype(np.int64), task_code.astype(np.int64)
    return df, job_labels, task_labels, (pairs["child"].to_numpy(np.int64), pairs["parent"].to_numpy(np.int64))


# (the names encoded by the CSV reader itself: no column of millions of strings is built)
_TYPES_2018 = {"task_name": "dictionary", "instance_num": "int64", "job_name": "dictionary", "status": "dictionary",
               "start_time": "float64", "end_time": "float64"}


def _parse_2018_blocks(text: list, keep, negative_spans):
    """The whole table parsed in blocks by pyarrow's CSV reader, task names parsed by regular
    expressions over the distinct names and the DAG depths found level by level (no Python
    object per line but one string per distinct name), the line-by-line checks done by column.
    None when pyarrow is missing or some line needs a closer look (a bad field, a name with
    blanks or other than printable ASCII, a repeated task or task number, a self-dependency, a
    cycle): the line-by-line reading decides and names the line. ``text``: a list holding the
    file's bytes, emptied as they are parsed (they are not held past the parse)."""
    table = csv_columns(text.pop(), FIELDS_2018, _TYPES_2018)
    if table is None:
        return None
    import pyarrow as pa
    import pyarrow.compute as pc
    cols = {}
    for name in ("instance_num", "start_time", "end_time"):
        c = table.column(name)
        if c.null_count:
            return None
        cols[name] = c.to_numpy()
    ni, st, en = cols["instance_num"], cols["start_time"], cols["end_time"]
    if (ni < 0).any() or not (np.isfinite(st).all() and np.isfinite(en).all()):
        return None
    enc = {}
    table = table.unify_dictionaries()  # (one dictionary per block until now)
    for name in ("task_name", "job_name", "status"):
        d = table.column(name).combine_chunks()
        values = d.dictionary
        # names as the line-by-line reading strips them: printable ASCII only, no blanks
        if pc.any(pc.match_substring_regex(values, r"[^\x21-\x7e]")).as_py():
            return None
        if name != "status" and pc.any(pc.equal(pc.utf8_length(values), 0)).as_py():
            return None
        enc[name] = (d.indices.to_numpy(), values)  # (32-bit codes)
    del table, d  # (its name columns, the bulk of it, are held encoded from here on)
    pa.default_memory_pool().release_unused()  # (Arrow's allocator would keep the table's pages)
    tcode, tnames = enc["task_name"]
    jcode, jnames = enc["job_name"]
    if len(unique_values(jcode.astype(np.int64) * len(tnames) + tcode)) != len(tcode):
        return None  # a task repeated in its job
    # task names: letters, the task's number, '_'-separated numbers of the tasks it depends on
    m = pc.extract_regex(tnames, r"^(?P<kind>[A-Za-z]+)(?P<num>[0-9]+)(?P<deps>(?:_[0-9]+)*)$")
    matched = m.is_valid().to_numpy(zero_copy_only=False)
    if pc.any(pc.and_(pc.invert(m.is_valid()), pc.match_substring_regex(tnames, r"^[A-Za-z]+[0-9]"))).as_py():
        return None  # starts like a DAG name but does not follow the pattern
    try:
        num_u = pc.cast(pc.fill_null(pc.struct_field(m, "num"), "0"), pa.int64()).to_numpy()
        parts = pc.split_pattern(pc.struct_field(m, "deps"), "_")
        flat = pc.list_flatten(parts)
        owner = pc.list_parent_indices(parts).to_numpy()
        given = pc.greater(pc.utf8_length(flat), 0).to_numpy(zero_copy_only=False)
        dep_u = pc.cast(pc.filter(flat, pa.array(given)), pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # a number past 64 bits
    owner = owner[given]
    if (dep_u == num_u[owner]).any():
        return None  # a task depending on itself
    dagged = matched[tcode]
    # a (job, task number) pair as one integer where it fits in 63 bits (task numbers are small
    # in the traces), so that the pairs are told apart and looked up by sorting
    span_num = int(max(num_u.max(initial=0), dep_u.max(initial=0))) + 1
    packed = len(jnames) <= np.iinfo(np.int64).max // span_num
    if packed:
        pair = jcode[dagged].astype(np.int64) * span_num + num_u[tcode[dagged]]
        if len(unique_values(pair)) != len(pair):
            return None  # two tasks of a job with the same number
    elif pd.DataFrame({"j": jcode[dagged], "n": num_u[tcode[dagged]]}).duplicated().any():
        return None  # (the same, the pairs compared as such)
    # the kept rows, as the line-by-line reading keeps them
    st_codes, st_values = enc["status"]
    kept = np.ones(len(tcode), bool) if keep is None else np.isin(
        st_codes, [k for k, v in enumerate(st_values.to_pylist()) if v in keep])
    spans = _block_spans(st, en, kept, negative_spans)
    if spans is None:
        return None
    span, kept = spans
    del cols, en, st_codes, spans  # (the end times and statuses are not read again)
    rows = np.flatnonzero(kept)
    # edges among the kept rows: (child, parent) of one job, the parent's number among the child's deps
    kdag = rows[dagged[rows]]
    # each kept DAG row's dependencies, those of its name (``owner`` is sorted: names in order)
    first_dep = np.zeros(len(tnames) + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=len(tnames)), out=first_dep[1:])
    at, count = first_dep[tcode[kdag]], np.diff(first_dep)[tcode[kdag]]
    child = np.repeat(kdag, count)
    wanted = dep_u[np.repeat(at - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))]
    if not len(child):
        parent = child
    elif packed:  # the parent: the kept row of the child's job with the wanted number
        keys = jcode[kdag].astype(np.int64) * span_num + num_u[tcode[kdag]]
        by_key = np.argsort(keys)
        keys = keys[by_key]
        want = jcode[child].astype(np.int64) * span_num + wanted
        in_order = np.argsort(want)  # (sorted queries read the keys in order: fewer cache misses)
        i = np.empty(len(want), np.int64)
        i[in_order] = np.minimum(np.searchsorted(keys, want[in_order]), len(keys) - 1)
        found = keys[i] == want
        child, parent = child[found], kdag[by_key[i[found]]]
    else:
        parents = pd.DataFrame({"job": jcode[kdag], "num": num_u[tcode[kdag]], "parent": kdag})
        pairs = pd.DataFrame({"job": jcode[child], "num": wanted, "child": child}).merge(parents, on=["job", "num"])
        child, parent = pairs["child"].to_numpy(), pairs["parent"].to_numpy()
    position = np.full(len(tcode), -1, np.int64)
    position[rows] = np.arange(len(rows))
    child, parent = position[child], position[parent]
    depth = dag_levels(len(rows), child, parent)
    if (depth < 0).any():
        return None  # a cycle: the line-by-line reading names its job and task
    df = pd.DataFrame({"job": jcode[rows], "task": tcode[rows], "start": st[rows], "span": span[rows],
                       "n_inst": ni[rows], "line": rows + 1, "depth": depth}, copy=False)  # (not copied into blocks)
    job_labels = np.asarray(jnames.to_pylist(), dtype=object)  # (one Python string per distinct name)
    return df, job_labels, np.asarray(tnames.to_pylist(), dtype=object), (child, parent)


def _build_dag_jobs(path, df, job_labels, task_labels, edges, *, instances, max_instances_per_task, relative, name):
    """``dag="jobs"``: one map-only job per kept trace task, with the trace's dependencies
    (``edges``: (child row, parent row) arrays of ``df``, whose job and task columns are codes
    into ``job_labels`` and ``task_labels``)."""
    if df.empty:
        raise ValueError(f"{path}: no task is left after filtering (check 'statuses')")
    n = _tasks_per_row(path, df, job_labels, instances, max_instances_per_task)
    check_finite(path, df["line"].to_numpy(), df["span"].to_numpy(np.float64), "the task's span (end - start)")
    dag, trace_task = job_labels[df["job"].to_numpy()], task_labels[df["task"].to_numpy()]
    job_id = np.array([f"{j}/{t}" for j, t in zip(dag, trace_task)], dtype=object)
    code, _ = pd.factorize(df["job"].to_numpy())
    first_start = np.full(code.max() + 1, np.inf)
    np.minimum.at(first_start, code, df["start"].to_numpy(np.float64))
    submit = first_start[code]  # (each trace job's earliest start)
    if relative:
        with np.errstate(over="ignore"):  # (an overflow to inf is named by the check below)
            submit = submit - submit.min()
        check_finite(path, df["line"].to_numpy(), submit, "the job's submit time relative to the first job")
    # (the names as object columns: pandas would convert them to Arrow strings, and the workload
    # back to Python strings, a new one per job)
    jobs = pd.DataFrame({"job_id": pd.Series(job_id, dtype=object), "submit_time": submit,
                         "dag": pd.Series(dag, dtype=object), "trace_task": pd.Series(trace_task, dtype=object),
                         "dag_depth": df["depth"].to_numpy(np.int64), "instances": df["n_inst"].to_numpy(np.int64)})
    return Workload.from_job_blocks(jobs, n, {"work": np.repeat(df["span"].to_numpy(np.float64), n)},
                                    _edge_rows=edges, name=name or os.path.basename(path), source=path)
