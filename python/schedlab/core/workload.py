"""Workloads: jobs made of a map stage and an optional reduce stage, in columnar form; jobs may
depend on other jobs (DAGs of MapReduce jobs, as workflows run them on Hadoop 1)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import _core
from ._arrays import unique_pairs, unique_values

#: Job columns understood by :meth:`Workload.from_frames` (others are kept and carried into results).
JOB_COLUMNS = {
    "job_id": "unique job identifier (any hashable value) — required",
    "submit_time": "seconds from the start of the workload — required",
    "user": "user / pool the job belongs to (any value; default one user)",
    "queue": "capacity-scheduler queue (any value; default one queue)",
    "weight": "fair-share weight (> 0; default 1)",
    "deadline": "absolute deadline in seconds (NaN = none)",
    "eligible_nodes": "placement constraint: a list of node ids the job's tasks may run on (None = any node)",
    "parents": "job dependencies: a list of job_ids (or one job_id) that must finish before the job is "
               "submitted (None / [] = none); see also from_frames(dependencies=)",
    "dag": "the DAG (workflow) the job belongs to (any value; default: the job's own job_id)",
}
#: Task columns understood by :meth:`Workload.from_frames`.
TASK_COLUMNS = {
    "job_id": "the job the task belongs to — required",
    "work": "seconds the task takes on a speed-1 node — required",
    "stage": "'map' or 'reduce' (or 0 / 1; default 'map')",
    "estimate": "the scheduler's estimate of work (default: work)",
    "input_bytes": "map: input block bytes; reduce: shuffle input bytes (default 0)",
    "output_bytes": "map: intermediate output bytes (default 0)",
    "vcores": "container vcores (default 1)",
    "memory": "container memory in MB (default 1024)",
    "replicas": "input replica node ids: a list per task, or columns replica_0, replica_1, ... with -1 for none",
}

_STAGES = {"map": 0, "reduce": 1, "m": 0, "r": 1, 0: 0, 1: 1}
_TASK_NUMBERS = ("work", "estimate", "input_bytes", "output_bytes", "vcores", "memory")  # numeric task columns


def _stage_of(v):
    """0 (map), 1 (reduce) or -1 (not a stage) for one value of a task's 'stage' column."""
    return _STAGES.get(v.lower() if isinstance(v, str) else v, -1) if not _unhashable(v) else -1


def _stage_codes(column: pd.Series) -> np.ndarray:
    """_stage_of of every value of a non-numeric 'stage' column, worked out once per distinct value
    (millions of tasks hold a few distinct values); value by value if some value is unhashable."""
    try:
        codes, distinct = pd.factorize(column, use_na_sentinel=True)  # (missing values: -1)
    except TypeError:
        return column.map(_stage_of).to_numpy(np.int64)
    of_distinct = np.array([_stage_of(v) for v in distinct] + [-1], dtype=np.int64)
    return of_distinct[codes]  # (code -1, a missing value, takes the last entry: -1)


def _fail(source, msg):
    raise ValueError(f"{source}: {msg}")


def _codes(values: pd.Series):
    """Dense integer codes (order of first appearance) and the labels they stand for."""
    codes, labels = pd.factorize(values, sort=False)
    return codes.astype(np.int32), labels


_HASHABLE_KINDS = {"string", "bytes", "integer", "floating", "mixed-integer-float", "boolean", "empty"}


def _all_hashable(values) -> bool:
    """Whether an object column holds only values of kinds that are always hashable (strings,
    numbers, ...), found by pandas' type inference in one pass, without a Python call per value."""
    return pd.api.types.infer_dtype(values, skipna=False) in _HASHABLE_KINDS


def _job_label_codes(jobs: pd.DataFrame, col: str, order, source):
    """_codes of a job column of labels; a value that cannot be a label (a list, a dict: not
    hashable) is an error naming its row."""
    if jobs[col].dtype == object and not _all_hashable(jobs[col]):
        for i, v in enumerate(jobs[col]):
            try:
                hash(v)
            except TypeError:
                _fail(source, f"jobs row {int(order[i])} (job_id {_label(jobs['job_id'].iloc[i])!r}): '{col}' is "
                              f"{v!r}; expected a label (a string or a number)")
    return _codes(jobs[col])


class Workload:
    """A set of jobs, each a map stage followed by an optional reduce stage; jobs may depend on
    other jobs and form DAGs (workflows): see :meth:`from_frames`.

    Build one with :meth:`from_frames` (vectorised: no Python object per task), a trace reader
    (:func:`schedlab.read_trace`), :func:`schedlab.synthetic.generate` or
    :func:`schedlab.datasets.load`. ``jobs`` and ``tasks`` give it back as DataFrames.
    """

    def __init__(self, native, job_ids, job_meta: pd.DataFrame, user_labels, queue_labels, name="workload",
                 dag_labels=None):
        self._native = native
        self.dag_labels = dag_labels  # labels of the dense DAG ids (None: a DAG is named by a job_id)
        self._job_ids = job_ids
        self._job_meta = job_meta  # extra job columns, in dense job order
        self.user_labels = user_labels
        self.queue_labels = queue_labels
        self.name = name
        self._work_figures = None  # (per job and stage the longest task's work, per job its work): see _work_per_job

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frames(cls, jobs: pd.DataFrame, tasks: pd.DataFrame, *, dependencies: pd.DataFrame | None = None,
                    name="workload", source="from_frames"):
        """Builds a workload from a job table and a task table (columns: ``JOB_COLUMNS`` and
        ``TASK_COLUMNS``). Jobs are ordered by submit time, tasks by (job, stage). Raises
        ``ValueError`` naming the column and row of any bad value.

        **DAG jobs.** A job may depend on other jobs: it is submitted to the scheduler only when
        all its parents have finished (at the later of its ``submit_time`` and its last parent's
        finish), as Hadoop 1 workflows (Pig, Hive, Oozie) submit a DAG of MapReduce jobs. Give the
        edges either as a ``parents`` job column (a list of parent job_ids per job, or one job_id;
        None or [] for none) or, vectorised for large DAGs, as an edge table ``dependencies`` with
        columns ``job_id`` (the child) and ``parent_id`` — or both (their union is used). A
        ``dag`` job column groups jobs into DAGs (workflows) for :attr:`Result.dags`; by default
        every job is its own DAG. A parent must exist, must not be the job itself, must not be
        submitted after its child, and the edges must not form a cycle. Jobs of equal submit
        time are ordered parents first."""
        if not isinstance(jobs, pd.DataFrame) or not isinstance(tasks, pd.DataFrame):
            _fail(source, "jobs and tasks must be pandas DataFrames")
        jobs, order, submit, edges = _order_jobs(jobs, dependencies, source, tasks)
        job_index = pd.Index(jobs["job_id"])

        if pd.api.types.is_numeric_dtype(tasks["job_id"]):
            tj = job_index.get_indexer(tasks["job_id"])
        else:  # each distinct label (a string: hashed slowly) looked up once; tasks name far fewer jobs
            codes, distinct = pd.factorize(tasks["job_id"], use_na_sentinel=False)
            tj = job_index.get_indexer(distinct)[codes]
        if (tj < 0).any():
            i = int(np.argmax(tj < 0))
            _fail(source, f"tasks row {i}: job_id {_label(tasks['job_id'].iloc[i])!r} is not in the jobs table")
        if "stage" in tasks:
            st = tasks["stage"]
            if pd.api.types.is_numeric_dtype(st):  # 0 / 1, whole part of a number (vectorised: no call per row)
                v = st.to_numpy(np.float64, na_value=np.nan)
                with np.errstate(invalid="ignore"):
                    t = np.trunc(v)
                stage = np.where(np.isfinite(v) & ((t == 0) | (t == 1)), t, -1).astype(np.int64)
            else:
                stage = _stage_codes(st)
            if (stage < 0).any():
                i = int(np.argmax(stage < 0))
                _fail(source, f"tasks row {i}: 'stage' must be 'map' or 'reduce', got {_label(st.iloc[i])!r}")
        else:
            stage = np.zeros(len(tasks), dtype=np.int64)
        torder = np.lexsort((stage, tj))  # stable: by job, then stage, then original order
        # the columns read below, in task order (not the job ids: millions of strings to copy)
        read = [c for c in _TASK_NUMBERS if c in tasks] + [c for c in tasks.columns if isinstance(c, str) and (
            c == "replicas" or c.startswith("replica_"))]
        tasks_sorted = tasks[read].iloc[torder]

        def job_id_of(i):  # the job_id of the i-th task in task order
            return tasks["job_id"].iloc[int(torder[i])]

        tj = tj[torder].astype(np.int32)
        stage = stage[torder].astype(np.uint8)
        counts = np.bincount(tj, minlength=len(jobs))
        if (counts == 0).any():
            i = int(np.argmax(counts == 0))
            _fail(source, f"job_id {_label(jobs['job_id'].iloc[i])!r} has no tasks")

        def num(col, default=None, positive=False):
            if col not in tasks_sorted:
                return default
            v = pd.to_numeric(tasks_sorted[col], errors="coerce").to_numpy(np.float64)
            bad = ~np.isfinite(v) | (v <= 0 if positive else v < 0)
            if bad.any():
                i = int(np.argmax(bad))
                row = tasks_sorted.index[i]
                _fail(source, f"tasks row {row} (job_id {_label(job_id_of(i))!r}): '{col}' must be a "
                              f"{'positive ' if positive else ''}number{' >= 0' if not positive else ''}, "
                              f"got {_label(tasks_sorted[col].iloc[i])!r}")
            return v

        tcols = {"job": tj, "stage": stage, "work": num("work")}
        for col in _TASK_NUMBERS[1:]:
            v = num(col)
            if v is not None:
                tcols[col] = v
        rep = _replicas(tasks_sorted, source, job_id_of)
        if rep is not None:
            tcols["replica_begin"], tcols["replica_node"] = rep

        return cls._build(jobs, order, submit, edges, tcols, name, source)

    @classmethod
    def from_job_blocks(cls, jobs: pd.DataFrame, n_tasks, tasks: dict, *, n_maps=None,
                        dependencies: pd.DataFrame | None = None, name="workload", source="from_job_blocks",
                        _edge_rows=None):
        """Builds a workload from a job table and task columns already grouped by job, without a
        task table: job ``i`` (row ``i`` of ``jobs``) owns the next ``n_tasks[i]`` entries of every
        array in ``tasks`` (``work`` required; ``estimate``, ``input_bytes``, ``output_bytes``,
        ``vcores``, ``memory`` optional), its first ``n_maps[i]`` being map tasks and the rest
        reduce tasks (default: all maps). A task column may instead be an array of shape
        ``(len(jobs), 2)``: one value per job and stage (row ``i``: the value of job ``i``'s maps,
        then of its reduces), for tasks that share their job's figures (no array per task is
        built; the core keeps such columns per job and stage). The same workload as :meth:`from_frames` given the
        equivalent task table (jobs ordered by submit time, a job's tasks kept in their order),
        for trace readers that derive millions of tasks: no Python object and no sort per task.
        ``dependencies``: as in :meth:`from_frames`. (``_edge_rows``, for trace readers: the
        edges as (child, parent) arrays of row positions in ``jobs``, checked as
        ``dependencies`` are, without looking the job ids up.)"""
        ids = jobs["job_id"].to_numpy() if isinstance(jobs, pd.DataFrame) and "job_id" in jobs else None
        jobs, order, submit, edges = _order_jobs(jobs, dependencies, source, edge_rows=_edge_rows)
        counts = np.asarray(n_tasks, dtype=np.int64)
        maps = counts if n_maps is None else np.asarray(n_maps, dtype=np.int64)
        if counts.shape != (len(order),) or maps.shape != counts.shape:
            _fail(source, f"n_tasks and n_maps must hold one count per job ({len(order)})")
        if (counts <= 0).any() or (maps < 0).any() or (maps > counts).any():
            i = int(np.argmax((counts <= 0) | (maps < 0) | (maps > counts)))
            _fail(source, f"job_id {_label(jobs['job_id'].iloc[int(np.argmax(order == i))])!r} has {counts[i]} tasks "
                          f"({maps[i]} maps); a job needs at least one task")
        total = int(counts.sum())
        cols = {}
        for col in ("work", "estimate", "input_bytes", "output_bytes", "vcores", "memory"):
            if col in tasks:
                v = np.asarray(tasks[col], dtype=np.float64)
                if v.ndim == 2:
                    if v.shape != (len(order), 2):
                        _fail(source, f"task column '{col}' given per job and stage has shape {v.shape}; expected "
                                      f"({len(order)}, 2)")
                elif v.shape != (total,):
                    _fail(source, f"task column '{col}' has {len(v)} entries; the jobs' counts add up to {total}")
                cols[col] = v
        if "work" not in cols:
            _fail(source, "task column 'work' is required")
        ends = np.cumsum(counts)
        per_stage = np.stack([maps, counts - maps], 1)  # tasks per (job, stage)
        for col, v in cols.items():
            positive = col in ("vcores", "memory")
            bad = ~np.isfinite(v) | (v <= 0 if positive else v < 0)
            if v.ndim == 2:  # the first bad task: the first task of the first bad (job, stage) that has tasks
                bad = (bad & (per_stage > 0)).ravel()
                if not bad.any():
                    continue
                b = int(np.argmax(bad))
                k, value = int(ends[b // 2] - counts[b // 2] + (maps[b // 2] if b % 2 else 0)), v.ravel()[b]
            else:
                if not bad.any():
                    continue
                k = int(np.argmax(bad))
                value = v[k]
            i = int(np.searchsorted(ends, k, side="right"))  # the job row owning entry k
            _fail(source, f"task column '{col}' entry {k} (job_id {_label(ids[i])!r}): must be a "
                          f"{'positive ' if positive else ''}number{' >= 0' if not positive else ''}, "
                          f"got {float(value)!r}")
        starts = (ends - counts)[order]  # where each job's block begins in the given arrays
        counts, maps = counts[order], maps[order]
        if (order != np.arange(len(order))).any():  # gather each job's block in the new job order
            gather = None
            for k, v in cols.items():
                if v.ndim == 2:
                    cols[k] = v[order]
                    continue
                if gather is None:
                    gather = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total)
                cols[k] = v[gather]
        if any(v.ndim == 2 for v in cols.values()):
            # (per job and stage: a stage without tasks holds 0, as when the core packs a per-task column)
            empty = np.stack([maps, counts - maps], 1) == 0
            cols = {k: np.where(empty, 0.0, v) if v.ndim == 2 else v for k, v in cols.items()}
        n = len(order)
        tcols = {"job": np.repeat(np.arange(n, dtype=np.int32), counts), **cols}
        if n_maps is not None:  # (without it every task is a map: the core's default stage)
            # maps then reduces of each job: 0 repeated n_maps times, 1 repeated n_reduces times
            tcols["stage"] = np.repeat(np.tile(np.array([0, 1], np.uint8), n), np.stack([maps, counts - maps], 1).ravel())
        return cls._build(jobs, order, submit, edges, tcols, name, source)

    @classmethod
    def _build(cls, jobs, order, submit, edges, tcols, name, source):
        """The job columns (labels, weights, deadlines, constraints, dependencies, DAGs) of jobs
        already in their dense order, and the native workload with the task columns ``tcols``."""
        job_index = pd.Index(jobs["job_id"])
        jcols = {"submit_time": submit}
        user_labels = queue_labels = None
        for col in ("user", "queue"):
            if col in jobs:
                codes, labels = _job_label_codes(jobs, col, order, source)
                if (codes < 0).any():
                    i = int(np.argmax(codes < 0))
                    _fail(source, f"jobs row {int(order[i])} (job_id {_label(jobs['job_id'].iloc[i])!r}): '{col}' is "
                                  f"missing ({_label(jobs[col].iloc[i])!r}); expected a label (any value but None or NaN)")
                jcols[col] = codes
                if col == "user":
                    user_labels = labels
                else:
                    queue_labels = labels
        for col in ("weight", "deadline"):
            if col in jobs:
                v = pd.to_numeric(jobs[col], errors="coerce").to_numpy(np.float64)
                bad = ~((v > 0) & np.isfinite(v)) if col == "weight" else (np.isinf(v) | (v < 0))
                if bad.any():
                    i = int(np.argmax(bad))
                    want = "a finite number > 0" if col == "weight" else "a finite number >= 0, or NaN for none"
                    _fail(source, f"jobs row {int(order[i])} (job_id {_label(jobs['job_id'].iloc[i])!r}): '{col}' must be "
                                  f"{want}, got {_label(jobs[col].iloc[i])!r}")
                jcols[col] = v
        if "eligible_nodes" in jobs:
            jcols["eligible_begin"], jcols["eligible_node"] = _eligible(jobs, source)
        if edges is not None:
            inv = np.empty(len(order), np.int64)
            inv[order] = np.arange(len(order))
            child, parent = inv[edges[0]], inv[edges[1]]
            e = np.lexsort((parent, child))
            jcols["parent_job"] = parent[e].astype(np.int32)
            begin = np.zeros(len(jobs) + 1, np.int64)
            np.cumsum(np.bincount(child, minlength=len(jobs)), out=begin[1:])
            jcols["parent_begin"] = begin
        dag_labels = None
        if "dag" in jobs:
            codes, dag_labels = _job_label_codes(jobs, "dag", order, source)
            if (codes < 0).any():
                i = int(np.argmax(codes < 0))
                _fail(source, f"jobs row {int(order[i])} (job_id {_label(jobs['job_id'].iloc[i])!r}): 'dag' is missing")
            if (codes == np.arange(len(codes))).all() and pd.Index(dag_labels).equals(job_index):
                dag_labels = None  # the default: every job its own DAG, named by its job_id
            else:
                jcols["dag"] = codes
        native = _core.Workload(jcols, tcols)
        meta = jobs.drop(columns=[c for c in ("job_id", "submit_time", "weight", "deadline", "parents", "dag")
                                  if c in jobs])
        return cls(native, jobs["job_id"].to_numpy(), meta.reset_index(drop=True), user_labels, queue_labels, name,
                   dag_labels)

    # ------------------------------------------------------------------ views
    @property
    def n_jobs(self) -> int:
        return self._native.n_jobs

    @property
    def n_tasks(self) -> int:
        return self._native.n_tasks

    def native(self):
        return self._native

    @property
    def job_ids(self) -> np.ndarray:
        return self._job_ids

    @property
    def jobs(self) -> pd.DataFrame:
        """One row per job (dense order = submission order)."""
        return pd.DataFrame(self._job_columns())

    def _job_columns(self) -> dict:
        """The columns of :attr:`jobs`, in order, as arrays (one DataFrame is built from them)."""
        j, _ = self._native.columns()
        tb = np.asarray(j["task_begin"])
        n_tasks = np.diff(tb)
        cols = {
            "job_id": self._job_ids,
            "submit_time": np.asarray(j["submit_time"]),
            "user": self._labels(np.asarray(j["user"]), self.user_labels),
            "queue": self._labels(np.asarray(j["queue"]), self.queue_labels),
            "weight": np.asarray(j["weight"]),
            "deadline": np.asarray(j["deadline"]),
            "n_maps": np.asarray(j["n_maps"]),
            "n_reduces": n_tasks - np.asarray(j["n_maps"]),
            "ideal_time": self._ideal_times(),
            "dag": self._dag_column(j),
        }
        if self.has_dependencies:
            pb, pj = np.asarray(j["parent_begin"]), np.asarray(j["parent_job"])
            parents = np.empty(len(pb) - 1, dtype=object)
            parents[:] = [list(x) for x in np.split(self._job_ids[pj], pb[1:-1])]
            cols["parents"] = parents
        for c in self._job_meta.columns:
            if c not in cols:
                cols[c] = self._job_meta[c].to_numpy()
        return cols

    @property
    def has_dependencies(self) -> bool:
        """Whether some job depends on another (the workload holds DAGs of jobs)."""
        return len(self._native.columns()[0]["parent_job"]) > 0

    def _dag_column(self, j):
        codes = np.asarray(j["dag"])
        if self.dag_labels is not None:
            return np.asarray(self.dag_labels, dtype=object)[codes]
        return self._job_ids[codes]

    def _ideal_times(self):
        """Per job: its critical path on an empty cluster of speed-1 nodes (longest map plus
        longest reduce), the denominator of slowdowns."""
        j, t = self._native.columns()
        tb = np.asarray(j["task_begin"])
        blocks = t.blocks("work")
        if blocks is not None:  # work held one value per (job, stage): those values, where the stage has tasks
            n_maps = np.asarray(j["n_maps"], dtype=np.int64)
            present = np.stack([n_maps, np.diff(tb) - n_maps], 1) > 0
            return np.where(present, np.maximum(blocks.reshape(-1, 2), 0.0), 0.0).sum(axis=1)
        return self._work_per_job()[0].sum(axis=1)

    def _work_per_job(self):
        """(per job and stage the longest task's work and 0 where the stage has no task, as a
        (jobs, 2) array; per job the sum of its tasks' work), from the per-task work column.
        Worked out once: the columns never change, and every run's resource estimate and every
        result's job table read them."""
        if self._work_figures is None:
            j, t = self._native.columns()
            begin = np.asarray(j["task_begin"], dtype=np.int64)
            work = np.asarray(t["work"], dtype=np.float64)
            counts = np.diff(begin)
            job_work = np.zeros(len(counts))
            some = counts > 0
            if some.any():
                job_work[some] = np.add.reduceat(work, begin[:-1][some])
            self._work_figures = (stage_max(work, begin, np.asarray(t["stage"])), job_work)
        return self._work_figures

    @property
    def tasks(self) -> pd.DataFrame:
        """One row per task (dense order: by job, maps before reduces)."""
        _, t = self._native.columns()
        job = np.asarray(t["job"])
        df = pd.DataFrame({
            "task_id": np.arange(len(job)),
            "job_id": self._job_ids[job],
            "stage": pd.Categorical.from_codes(np.asarray(t["stage"]).astype(np.int8), ["map", "reduce"]),
            "work": np.asarray(t["work"]),
            "estimate": np.asarray(t["estimate"]),
            "input_bytes": np.asarray(t["input_bytes"]),
            "output_bytes": np.asarray(t["output_bytes"]),
            "vcores": np.asarray(t["vcores"]),
            "memory": np.asarray(t["memory"]),
        })
        return df

    @staticmethod
    def _labels(codes, labels):
        if labels is None:
            return codes
        return np.asarray(labels, dtype=object)[codes]

    def user_code(self, label):
        """The integer pool id of a user label (as used by scheduler parameters)."""
        if self.user_labels is None:
            return int(label)
        idx = pd.Index(self.user_labels).get_indexer([label])[0]
        if idx < 0:
            raise ValueError(f"unknown user {label!r}; users: {list(self.user_labels)}")
        return int(idx)

    def fingerprint(self) -> str:
        """A content hash of the workload (used to key results stores)."""
        import hashlib
        h = hashlib.sha256()
        j, t = self._native.columns()
        for d in (j, t):
            for k in sorted(d):
                if k in ("dag", "parent_begin", "parent_job") and _default_dag_column(j, k):
                    continue  # keeps the fingerprints of workloads without DAGs as they were
                h.update(k.encode())
                h.update(np.ascontiguousarray(d[k]).tobytes())
        if self.dag_labels is not None:
            h.update(pd.util.hash_array(np.asarray(self.dag_labels, dtype=object)).tobytes())
        # what the native columns do not hold: job ids, labels and extra job columns
        # (e.g. a job class), which results and their stores carry too
        h.update(pd.util.hash_array(np.asarray(self._job_ids, dtype=object)).tobytes())
        for labels in (self.user_labels, self.queue_labels):
            h.update(repr(None if labels is None else list(labels)).encode())
        # (columns held natively or derived from the tasks are hashed above already)
        extra = self._job_meta.drop(columns=[c for c in self._job_meta.columns if c in _NATIVE_OR_DERIVED_JOB_COLUMNS])
        if len(extra.columns):
            h.update(repr(list(extra.columns)).encode())
            try:
                h.update(pd.util.hash_pandas_object(extra, index=False).to_numpy().tobytes())
            except TypeError:  # unhashable cells (e.g. lists)
                h.update(extra.to_csv(index=False).encode())
        return h.hexdigest()[:16]

    def __len__(self):
        return self.n_jobs

    def __reduce__(self):
        # pickling (process pools, Dask workers): rebuild the native workload from its columns
        return (_rebuild_workload, (_native_columns(self._native), self._job_ids, self._job_meta,
                                    self.user_labels, self.queue_labels, self.name, self.dag_labels))

    def __repr__(self):
        return f"Workload(name={self.name!r}, jobs={self.n_jobs}, tasks={self.n_tasks})"


_DERIVED_JOB_COLUMNS = ("n_maps", "task_begin")
_NATIVE_OR_DERIVED_JOB_COLUMNS = ("user", "queue", "n_maps", "n_reduces", "ideal_time", "eligible_nodes", "dag",
                                  "parents")


def _default_dag_column(j, key):
    """Whether a DAG column holds its default (no dependencies; every job its own DAG)."""
    if key == "dag":
        d = np.asarray(j["dag"])
        return bool((d == np.arange(len(d))).all())
    return len(j["parent_job"]) == 0


def _native_columns(native):
    j, t = native.columns()
    work = t["work"]
    tasks = {k: np.array(v) for k, v in t.items()
             # (an estimate that is the work column itself is left out: the rebuilt one shares it too)
             if not (k == "estimate" and np.shares_memory(v, work))}
    return {k: np.array(v) for k, v in j.items() if k not in _DERIVED_JOB_COLUMNS}, tasks


def _rebuild_workload(columns, job_ids, job_meta, user_labels, queue_labels, name, dag_labels=None):
    return Workload(_core.Workload(*columns), job_ids, job_meta, user_labels, queue_labels, name, dag_labels)


def _label(x):
    """A job label as the user wrote it (NumPy scalars as plain Python values) for messages."""
    return x.item() if isinstance(x, np.generic) else x


def _is_missing(x):
    return x is None or (isinstance(x, float) and x != x)


def _unhashable(x):
    try:
        hash(x)
        return False
    except TypeError:
        return True


def _check_ids(values, what, source):
    """Job ids must be hashable values (numbers, strings, tuples ...): a list or a dict in a
    job_id cell is a ValueError naming the row, not a TypeError from pandas' hash tables."""
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    if values.dtype != object or len(values) == 0 or _all_hashable(values):
        return
    bad = values.map(_unhashable).to_numpy(bool)
    if bad.any():
        i = int(np.argmax(bad))
        _fail(source, f"{what} row {i}: {_label(values.iloc[i])!r} is not a valid job id; expected a number, a string "
                      f"or another hashable value")


def _order_jobs(jobs: pd.DataFrame, dependencies, source, tasks: pd.DataFrame | None = None, edge_rows=None):
    """Checks the job table (and the task table's required columns and ids, when given) and
    orders the jobs by submit time, parents before children. Returns (ordered jobs, the order as
    row positions of the given table, ordered submit times, dependency edges or None)."""
    if not isinstance(jobs, pd.DataFrame):
        _fail(source, "jobs must be a pandas DataFrame")
    for col in ("job_id", "submit_time"):
        if col not in jobs:
            _fail(source, f"jobs table has no '{col}' column (have {list(jobs.columns)})")
    if tasks is not None:
        for col in ("job_id", "work"):
            if col not in tasks:
                _fail(source, f"tasks table has no '{col}' column (have {list(tasks.columns)})")
    if len(jobs) == 0:
        _fail(source, "the workload has no jobs")
    _check_ids(jobs["job_id"], "jobs 'job_id'", source)
    if tasks is not None:
        _check_ids(tasks["job_id"], "tasks 'job_id'", source)
    if jobs["job_id"].duplicated().any():
        dup = jobs["job_id"][jobs["job_id"].duplicated()].iloc[0]
        _fail(source, f"job_id {dup!r} appears more than once in the jobs table")

    submit = pd.to_numeric(jobs["submit_time"], errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(submit) | (submit < 0)
    if bad.any():
        i = int(np.argmax(bad))
        _fail(source, f"jobs row {i} (job_id {_label(jobs['job_id'].iloc[i])!r}): 'submit_time' must be a number >= 0, "
                      f"got {_label(jobs['submit_time'].iloc[i])!r}")
    edges = _edges(jobs, dependencies, submit, source, edge_rows)
    if edges is None:
        order = np.argsort(submit, kind="stable")
    else:
        order = np.lexsort((_levels(jobs, *edges, source), submit))  # parents before children
    return jobs.iloc[order].reset_index(drop=True), order, submit[order], edges


def _edges(jobs: pd.DataFrame, dependencies, submit, source, edge_rows=None):
    """The dependency edges as (child, parent) row positions in ``jobs``, or None when there are
    none. Duplicate edges are merged; unknown parents, self-dependencies and parents submitted
    after their child raise ValueError naming the row."""
    index = pd.Index(jobs["job_id"])
    child_parts, parent_parts = [], []
    if "parents" in jobs:
        col = jobs["parents"].reset_index(drop=True)
        col = col.map(lambda x: [] if _is_missing(x) else x)  # one cheap call per job, not per edge
        ex = col.explode()
        ex = ex[ex.map(lambda x: not _is_missing(x)).to_numpy(bool)] if len(ex) else ex
        _check_ids(ex.reset_index(drop=True), "jobs 'parents' entry", source)
        child = ex.index.to_numpy()
        parent = index.get_indexer(ex.to_numpy())
        if (parent < 0).any():
            i = int(np.argmax(parent < 0))
            _fail(source, f"jobs row {child[i]} (job_id {_label(jobs['job_id'].iloc[child[i]])!r}): 'parents' names job_id "
                          f"{_label(ex.iloc[i])!r}, which is not in the jobs table")
        child_parts.append(child.astype(np.int64))
        parent_parts.append(parent.astype(np.int64))
    if dependencies is not None:
        if not isinstance(dependencies, pd.DataFrame) or not {"job_id", "parent_id"} <= set(dependencies.columns):
            _fail(source, "dependencies must be a DataFrame with columns 'job_id' and 'parent_id'")
        _check_ids(dependencies["job_id"], "dependencies 'job_id'", source)
        _check_ids(dependencies["parent_id"], "dependencies 'parent_id'", source)
        child = index.get_indexer(dependencies["job_id"])
        parent = index.get_indexer(dependencies["parent_id"])
        for arr, col in ((child, "job_id"), (parent, "parent_id")):
            if (arr < 0).any():
                i = int(np.argmax(arr < 0))
                _fail(source, f"dependencies row {i}: '{col}' {_label(dependencies[col].iloc[i])!r} is not in the jobs table")
        child_parts.append(child.astype(np.int64))
        parent_parts.append(parent.astype(np.int64))
    if edge_rows is not None:
        child_parts.append(np.asarray(edge_rows[0], dtype=np.int64))
        parent_parts.append(np.asarray(edge_rows[1], dtype=np.int64))
    if not child_parts:
        return None
    child, parent = np.concatenate(child_parts), np.concatenate(parent_parts)
    if len(child) == 0:
        return None
    child, parent = unique_pairs(child, parent)
    bad = child == parent
    if bad.any():
        i = int(child[np.argmax(bad)])
        _fail(source, f"jobs row {i} (job_id {_label(jobs['job_id'].iloc[i])!r}): 'parents' names the job itself")
    bad = submit[parent] > submit[child]
    if bad.any():
        k = int(np.argmax(bad))
        i, p = int(child[k]), int(parent[k])
        _fail(source, f"jobs row {i} (job_id {_label(jobs['job_id'].iloc[i])!r}): 'parents' names job_id "
                      f"{_label(jobs['job_id'].iloc[p])!r}, which is submitted later ({float(submit[p])!r} > {float(submit[i])!r}); "
                      f"a parent must not be submitted after its child")
    return child, parent


def stage_max(values, begin, stage):
    """Per job and stage (0 = map, 1 = reduce): the largest of ``values`` (one per task, in the
    dense order: grouped by job, maps before reduces; job j's tasks from ``begin[j]`` to
    ``begin[j + 1]``) and 0, as a (jobs, 2) array. One maximum per run of tasks of one job and
    stage, instead of NumPy's unbuffered ``maximum.at`` per task."""
    begin = np.asarray(begin, dtype=np.int64)
    out = np.zeros((len(begin) - 1, 2))
    n = len(values)
    if n:
        stage = np.asarray(stage)
        starts = begin[:-1][np.diff(begin) > 0]  # the jobs that have tasks, in order
        if stage.any():  # a job's reduces begin a run of their own
            starts = np.union1d(starts, np.flatnonzero(stage[1:] != stage[:-1]) + 1)
        job = np.searchsorted(begin, starts, side="right") - 1
        key = job * 2 + np.minimum(stage[starts], 1).astype(np.int64)
        np.maximum.at(out.reshape(-1), key, np.maximum.reduceat(np.asarray(values, dtype=np.float64), starts))
    return out


def dag_levels(n, child, parent):
    """Depth of each of ``n`` nodes of a DAG given as edges ``parent[i] -> child[i]`` (0: no
    parent; else 1 + the deepest parent's), by Kahn's algorithm one level at a time (O(n + edges)
    work in NumPy calls per level). Nodes on or below a cycle get -1."""
    order = np.argsort(parent, kind="stable")
    kids_by_parent = child[order]
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(parent, minlength=n), out=ptr[1:])
    indeg = np.bincount(child, minlength=n)
    level = np.full(n, -1, np.int64)
    frontier = np.flatnonzero(indeg == 0)
    lv = 0
    while len(frontier):
        level[frontier] = lv
        starts, lens = ptr[frontier], ptr[frontier + 1] - ptr[frontier]
        total = int(lens.sum())
        if total == 0:
            break
        kids = kids_by_parent[np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total)]
        indeg -= np.bincount(kids, minlength=n)
        cand = unique_values(kids)
        frontier = cand[indeg[cand] == 0]
        lv += 1
    return level


def _levels(jobs, child, parent, source):
    """Depth of each job in the dependency DAG (:func:`dag_levels`); a cycle raises ValueError
    naming a job on it."""
    level = dag_levels(len(jobs), child, parent)
    if (level < 0).any():
        # walk up through unresolved parents until a job repeats: that job is on a cycle
        left = level < 0
        parents_of = {}
        for c, p in zip(child[left[child] & left[parent]], parent[left[child] & left[parent]]):
            parents_of.setdefault(int(c), int(p))
        i, seen = int(np.argmax(left)), set()
        while i not in seen:
            seen.add(i)
            i = parents_of[i]
        _fail(source, f"jobs row {i} (job_id {_label(jobs['job_id'].iloc[i])!r}): 'parents' form a dependency cycle "
                      f"through this job")
    return level


def _node_ids(x, source, where, column):
    """One cell of a column of node-id lists: None for None / NaN, else its ids (int64). Anything
    but a list of whole numbers (a string is not one) is an error naming where() and column."""
    if x is None or (isinstance(x, float) and x != x):
        return None
    arr = None
    if not isinstance(x, (str, bytes, dict)):
        try:
            arr = np.asarray(list(x), dtype=np.float64)
        except (TypeError, ValueError):
            pass
    if arr is None or not (np.isfinite(arr).all() and (arr == np.floor(arr)).all() and (np.abs(arr) < 2.0**63).all()):
        _fail(source, f"{where()}: '{column}' must be a list of node ids or None, got {x!r}")
    return arr.astype(np.int64)


def _replicas(tasks: pd.DataFrame, source, job_id_of):
    """The per-task input replicas as CSR arrays (begin offsets, node ids), or None when the
    table gives none; errors name the row by the table's own index and the job by
    ``job_id_of(i)`` (the i-th row's job_id)."""
    rep_cols = sorted((c for c in tasks.columns if isinstance(c, str) and c.startswith("replica_")),
                      key=lambda c: int(c.split("_")[1]) if c.split("_")[1].isdigit() else 1 << 30)
    if "replicas" in tasks:
        lists = tasks["replicas"].to_numpy()
        lens = np.zeros(len(lists), dtype=np.int64)
        parts = []
        for i, x in enumerate(lists):
            arr = _node_ids(x, source, lambda: f"tasks row {tasks.index[i]} (job_id {_label(job_id_of(i))!r})",
                            "replicas")
            if arr is not None:
                lens[i] = len(arr)
                parts.append(arr)
        flat = np.concatenate(parts) if parts else np.empty(0, np.int64)
    elif rep_cols:
        mat = tasks[rep_cols].apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)
        given = tasks[rep_cols].notna().to_numpy()
        bad = given & ~(np.isfinite(mat) & (mat == np.floor(mat)))
        if bad.any():
            i, k = np.argwhere(bad)[0]
            _fail(source, f"tasks row {tasks.index[i]} (job_id {_label(job_id_of(i))!r}): '{rep_cols[k]}' must be a node id "
                          f"(or -1 / NaN for none), got {tasks[rep_cols[k]].iloc[i]!r}")
        valid = given & (mat != -1)  # (-1: none; other negative ids are rejected below)
        lens = valid.sum(axis=1)
        flat = mat[valid].astype(np.int64)
    else:
        return None
    out_of_range = (flat < 0) | (flat > np.iinfo(np.int32).max)
    if out_of_range.any():
        k = int(np.argmax(out_of_range))
        i = int(np.searchsorted(np.cumsum(lens), k, side="right"))  # the task row of replica k
        _fail(source, f"tasks row {tasks.index[i]} (job_id {_label(job_id_of(i))!r}): replica node ids must be >= 0 "
                      f"(and below 2^31), got {flat[k]}")
    begin = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=begin[1:])
    return begin, flat.astype(np.int32)


def _eligible(jobs: pd.DataFrame, source):
    """The per-job eligible node lists as CSR arrays (begin offsets, node ids). ``None``/NaN
    means any node; an empty list is rejected (the job could never run)."""
    lists = jobs["eligible_nodes"].to_numpy()
    lens = np.zeros(len(lists), dtype=np.int64)
    parts = []
    for i, x in enumerate(lists):
        where = lambda: f"jobs row {i} (job_id {_label(jobs['job_id'].iloc[i])!r})"  # noqa: E731
        arr = _node_ids(x, source, where, "eligible_nodes")
        if arr is None:
            continue
        if len(arr) == 0:
            _fail(source, f"{where()}: 'eligible_nodes' is empty; use None for 'any node'")
        if ((arr < 0) | (arr > np.iinfo(np.int32).max)).any():
            _fail(source, f"{where()}: 'eligible_nodes' must hold node ids >= 0 (and below 2^31), got {x!r}")
        arr = np.unique(arr)
        lens[i] = len(arr)
        parts.append(arr)
    begin = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lens, out=begin[1:])
    flat = np.concatenate(parts) if parts else np.empty(0, np.int64)
    return begin, flat.astype(np.int32)
