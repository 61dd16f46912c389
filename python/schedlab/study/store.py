"""A results store: one Parquet file per simulation run, keyed by a hash of the run's configuration.

>>> store = sl.store.Store("results/")
>>> table = sl.sweep(["fifo", "fair"], cluster, workload, seeds=range(5), store=store)
>>> store.table()            # every stored run: its configuration and summary metrics
>>> store.jobs(table.run_key[0])

Layout: ``PATH/runs/KEY.parquet`` holds the run's per-job table, with the run's configuration
and summary metrics in the file's key-value metadata (``schedlab.run``); ``KEY.tasks.parquet``
beside it holds the per-attempt table when it was asked for. Every file is written to a
temporary name in the same folder, flushed to disk and renamed over its final name
(``os.replace``), so a file under its final name is always complete: a run killed midway leaves
at most a temporary file, which is ignored (and removed by :meth:`Store.clean`). The jobs file is
the commit mark of a run; the tasks file is written before it.

The key (:func:`run_key`) hashes the scheduler name with all its parameters (defaults filled in),
the cluster's full configuration, the workload's content fingerprint and job labels, the seed,
the engine options (defaults filled in) and the package version, so a changed input or a new
version of schedlab never reuses an old result.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import threading

import numpy as np
import pandas as pd

#: Bumped when the layout of stored runs changes.
STORE_FORMAT = 1
_META_KEY = b"schedlab.run"


def _pq():
    try:
        import pyarrow
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("the results store needs pyarrow: pip install 'schedlab[parquet]'") from None
    return pyarrow, pq


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (set, frozenset)):
        return sorted(v, key=repr)
    return repr(v)


def canonical_json(obj) -> str:
    """Deterministic JSON (sorted keys, no blanks) used for hashing configurations."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_jsonable, allow_nan=True)


def _canonical_values(specs, values: dict) -> dict:
    """Parameter values with the spec's defaults filled in and numbers in one canonical type, so
    that ``locality_delay=5`` and ``locality_delay=5.0`` (or an explicit default) hash alike."""
    out = {}
    by_name = {p["name"]: p for p in specs}
    merged = {p["name"]: p["default"] for p in specs} | dict(values)
    for k, v in merged.items():
        t = by_name.get(k, {}).get("type")
        if t == "number" and not isinstance(v, str):
            v = float(v)
            v = "inf" if math.isinf(v) and v > 0 else ("-inf" if math.isinf(v) else v)
        elif t == "integer" and not isinstance(v, str):
            v = int(v)
        elif t == "boolean":
            v = bool(v)
        elif isinstance(v, tuple):
            v = list(v)
        out[k] = v
    return out


def scheduler_identity(scheduler) -> dict:
    """What identifies a scheduler in a run key: its name and every parameter."""
    from ..core import catalogue as _s
    from ..core.catalogue import SchedulerConfig
    if isinstance(scheduler, SchedulerConfig):
        return {"name": scheduler.name, "params": _canonical_values(_s._info(scheduler.name)["params"],
                                                                    scheduler.params)}
    # a scheduler written in Python: its name and params if it has them, else its repr
    cls = type(scheduler)
    return {"name": getattr(scheduler, "name", cls.__name__), "class": f"{cls.__module__}.{cls.__qualname__}",
            "params": getattr(scheduler, "params", None), "repr": repr(scheduler)}


def options_identity(engine: str | None, options: dict) -> dict:
    from ..core import catalogue as _s
    if engine is None:
        return dict(options)
    return _canonical_values(_s._engines()[engine]["options"], options)


def cluster_identity(cluster) -> str:
    """A hash of the cluster's full configuration (``Cluster.config()``)."""
    return hashlib.sha256(canonical_json(cluster.config()).encode()).hexdigest()[:32]


def workload_identity(workload) -> str:
    """The workload's content fingerprint plus a hash of its job labels and extra job columns
    (they are carried into the stored per-job tables)."""
    h = hashlib.sha256(workload.fingerprint().encode())
    h.update(pd.util.hash_pandas_object(pd.Series(workload.job_ids, dtype=object).astype(str),
                                        index=False).to_numpy().tobytes())
    meta = workload._job_meta
    for c in sorted(map(str, meta.columns)):
        h.update(c.encode())
        h.update(pd.util.hash_pandas_object(meta[c].astype(str), index=False).to_numpy().tobytes())
    return h.hexdigest()[:32]


def run_config(scheduler, cluster, workload, seed: int, options: dict, *, cluster_id=None, workload_id=None,
               version=None) -> dict:
    """The full configuration of one run, as hashed by :func:`run_key`."""
    from .._version import __version__
    engine = getattr(scheduler, "engine", None)
    return {
        "format": STORE_FORMAT,
        "version": __version__ if version is None else version,
        "scheduler": scheduler_identity(scheduler),
        "cluster": cluster_identity(cluster) if cluster_id is None else cluster_id,
        "workload": workload_identity(workload) if workload_id is None else workload_id,
        "seed": int(seed),
        "options": options_identity(engine, options),
    }


def run_key(config: dict) -> str:
    """The store key of a run configuration (see :func:`run_config`)."""
    return hashlib.sha256(canonical_json(config).encode()).hexdigest()[:32]


def _table_from_frame(df: pd.DataFrame):
    pa, _ = _pq()
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object:
            try:
                pa.array(df[c], from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
                # mixed labels (ints and strings, tuples, ...) are stored as text
                df[c] = df[c].map(lambda x: x if isinstance(x, str) or x is None else str(x))
    return pa.Table.from_pandas(df, preserve_index=False)


class Store:
    """A folder of finished runs (see the module documentation). Safe to use from several
    threads of one process; several processes may share a folder (each run is one rename)."""

    def __init__(self, path):
        self.path = os.path.abspath(os.fspath(path))
        self.runs_dir = os.path.join(self.path, "runs")
        os.makedirs(self.runs_dir, exist_ok=True)
        self._lock = threading.Lock()
        self._counter = 0

    def __repr__(self):
        return f"Store({self.path!r}, runs={len(self.keys())})"

    # ------------------------------------------------------------------ paths
    def _file(self, key, kind="jobs"):
        if not isinstance(key, str) or not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"Store: {key!r} is not a run key")
        return os.path.join(self.runs_dir, f"{key}.parquet" if kind == "jobs" else f"{key}.{kind}.parquet")

    def has(self, key: str, tasks: bool = False) -> bool:
        """Whether run ``key`` is finished (and, with ``tasks``, stored its per-attempt table)."""
        if not os.path.exists(self._file(key)):
            return False
        return not tasks or os.path.exists(self._file(key, "tasks"))

    def keys(self) -> list:
        """Keys of every finished run."""
        return sorted(f[:-8] for f in os.listdir(self.runs_dir)
                      if f.endswith(".parquet") and "." not in f[:-8] and not f.startswith("."))

    # ------------------------------------------------------------------ writing
    def _atomic_write(self, table, final):
        _, pq = _pq()
        with self._lock:
            self._counter += 1
            n = self._counter
        tmp = os.path.join(self.runs_dir, f".{os.path.basename(final)}.{os.getpid()}.{threading.get_ident()}.{n}.tmp")
        try:
            with open(tmp, "wb") as f:
                pq.write_table(table, f, compression="zstd")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def write(self, key: str, record: dict, jobs: pd.DataFrame, tasks: pd.DataFrame | None = None):
        """Stores a finished run: ``record`` (JSON-able: configuration, summary metrics, ...) and
        its per-job table, plus its per-attempt table if given. Atomic: the run is either stored
        completely or not at all."""
        if tasks is not None:
            self._atomic_write(_table_from_frame(tasks), self._file(key, "tasks"))
        table = _table_from_frame(jobs)
        meta = dict(table.schema.metadata or {})
        meta[_META_KEY] = json.dumps(record, default=_jsonable, allow_nan=True).encode()
        self._atomic_write(table.replace_schema_metadata(meta), self._file(key))

    # ------------------------------------------------------------------ reading
    def record(self, key: str) -> dict:
        """The stored record of run ``key`` (configuration and summary metrics)."""
        _, pq = _pq()
        path = self._file(key)
        if not os.path.exists(path):
            raise KeyError(f"run {key} is not in the store {self.path}")
        meta = pq.read_schema(path).metadata or {}
        if _META_KEY not in meta:
            raise ValueError(f"{path}: not a schedlab run file (no {_META_KEY.decode()} metadata)")
        return json.loads(meta[_META_KEY])

    def jobs(self, key: str | None = None) -> pd.DataFrame:
        """The per-job table of run ``key``; without a key, every run's jobs with a ``run_key`` column."""
        _, pq = _pq()
        if key is None:
            frames = [self.jobs(k).assign(run_key=k) for k in self.keys()]
            return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        path = self._file(key)
        if not os.path.exists(path):
            raise KeyError(f"run {key} is not in the store {self.path}")
        return pq.read_table(path).to_pandas()

    def tasks(self, key: str) -> pd.DataFrame:
        """The per-attempt table of run ``key`` (stored only when a sweep asked for tasks)."""
        _, pq = _pq()
        path = self._file(key, "tasks")
        if not os.path.exists(path):
            raise KeyError(f"run {key} has no stored tasks table in {self.path}")
        return pq.read_table(path).to_pandas()

    def table(self) -> pd.DataFrame:
        """One row per stored run: key, scheduler, params, seed, options, summary metrics."""
        rows = []
        for k in self.keys():
            rec = self.record(k)
            cfg = rec.get("config", {})
            row = {"run_key": k, "scheduler_name": cfg.get("scheduler", {}).get("name"), "seed": cfg.get("seed"),
                   "version": cfg.get("version")}
            row.update(rec.get("labels", {}))
            row.update(rec.get("summary", {}))
            rows.append(row)
        return pd.DataFrame(rows)

    def clean(self) -> int:
        """Removes temporary files left by interrupted writes; returns how many."""
        n = 0
        for f in os.listdir(self.runs_dir):
            if f.startswith(".") and f.endswith(".tmp"):
                try:
                    os.unlink(os.path.join(self.runs_dir, f))
                    n += 1
                except OSError:
                    pass
        return n

    def remove(self, key: str):
        """Forgets run ``key``."""
        for kind in ("jobs", "tasks"):
            try:
                os.unlink(self._file(key, kind))
            except FileNotFoundError:
                pass


def as_store(store) -> Store | None:
    if store is None or isinstance(store, Store):
        return store
    if isinstance(store, (str, os.PathLike)):
        return Store(store)
    raise ValueError(f"store must be a path or a schedlab.store.Store, got {type(store).__name__}")
