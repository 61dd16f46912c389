"""The Spark engine's Python side: executors as a cluster, fair scheduler pools from a
``fairscheduler.xml`` file or a dict, and the FIFO / FAIR scheduler configurations.

The engine (``engine="spark"``, schedulers ``spark_fifo`` and ``spark_fair``) models Apache
Spark 3.x's task scheduling in one application; see ``docs/spark.md``. A workload job is a Spark
*stage*, its ``parents`` the stages it reads shuffle output from, its ``dag`` the Spark *job*
(so ``Result.dags`` holds the Spark jobs), its ``user`` the fair scheduler pool; a cluster node
is an *executor* whose ``map_slots`` are its cores.

>>> import schedlab as sl
>>> from schedlab.engines import spark
>>> cluster = spark.cluster(executors=4, cores=2)
>>> fair = spark.fair(workload, pools="fairscheduler.xml")   # or sl.schedulers.get("spark_fair", pools=...)
>>> sl.simulate(cluster, workload, fair, locality_wait=3.0).dags
"""
from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd

from ..core.catalogue import SchedulerConfig
from ..core.cluster import Cluster
from ..core.simulate import register_param_default, register_param_encoder

#: Defaults of a pool not defined (FairSchedulableBuilder: FIFO inside, weight 1, minShare 0).
DEFAULT_POOL = {"schedulingMode": "FIFO", "weight": 1.0, "minShare": 0}
_MODES = ("FIFO", "FAIR")


def cluster(executors: int, cores: int = 1, *, racks: int = 1, speeds=1.0) -> Cluster:
    """A cluster of ``executors`` executors with ``cores`` cores each (spark.executor.cores) for
    the spark engine: one node per executor (its ``map_slots`` and ``slots`` are the cores).
    Executors sharing a host: the engine option ``executors_per_host``."""
    return Cluster(nodes=executors, racks=racks, map_slots=cores, reduce_slots=0, speeds=speeds)


def _number(value, what, where, whole=False):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {what} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (whole and v != int(v)):
        raise ValueError(f"{where}: {what} must be a {'whole ' if whole else ''}number >= 0, got {value!r}")
    return v


def read_pools(source) -> dict:
    """Pools as ``{name: {"schedulingMode": "FIFO"|"FAIR", "weight": w, "minShare": m}}`` from a
    ``fairscheduler.xml`` file (a path), the XML text itself, or a dict of such dicts (missing
    keys take Spark's defaults: FIFO, 1, 0). Bad input raises ValueError naming the file and pool."""
    if isinstance(source, dict):
        out = {}
        for name, spec in source.items():
            spec = {} if spec is None else spec
            if not isinstance(spec, dict):
                raise ValueError(f"pools: pool {name!r} must map to a dict of schedulingMode/weight/minShare, got {spec!r}")
            unknown = set(spec) - set(DEFAULT_POOL)
            if unknown:
                raise ValueError(f"pools: pool {name!r} has unknown keys {sorted(unknown)}; known: {list(DEFAULT_POOL)}")
            out[str(name)] = _pool(spec, f"pools: pool {name!r}")
        return out
    if not isinstance(source, (str, os.PathLike)):
        raise ValueError(f"pools: expected a fairscheduler.xml path, XML text or a dict, got {type(source).__name__}")
    text = os.fspath(source)
    if text.lstrip().startswith("<"):
        where, xml = "pools (XML text)", text
    else:
        where = text
        if not os.path.exists(text):
            raise FileNotFoundError(f"{text}: no such fair scheduler file")
        with open(text, encoding="utf-8") as f:
            xml = f.read()
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as e:
        raise ValueError(f"{where}: not well-formed XML ({e})") from None
    if root.tag != "allocations":
        raise ValueError(f"{where}: the root element must be <allocations>, got <{root.tag}>")
    out = {}
    for i, pool in enumerate(root.findall("pool")):
        name = pool.get("name")
        if not name:
            raise ValueError(f"{where}: pool number {i + 1} has no name attribute")
        spec = {}
        for key in DEFAULT_POOL:
            el = pool.find(key)
            if el is not None and el.text is not None:
                spec[key] = el.text.strip()
        out[name] = _pool(spec, f"{where}: pool {name!r}")
    return out


def _pool(spec, where):
    mode = str(spec.get("schedulingMode", "FIFO")).strip().upper()
    if mode not in _MODES:
        raise ValueError(f"{where}: schedulingMode must be FIFO or FAIR, got {spec.get('schedulingMode')!r}")
    return {"schedulingMode": mode,
            "weight": _number(spec.get("weight", 1), "weight", where),
            "minShare": int(_number(spec.get("minShare", 0), "minShare", where, whole=True))}


def encode_pools(pools, workload) -> str:
    """The engine's encoding of ``pools`` (see :func:`read_pools`) for ``workload``: one entry
    per pool its jobs use (by the job column ``user``), the pools it does not define with
    Spark's defaults."""
    defined = read_pools(pools) if pools is not None else {}
    labels = workload.user_labels
    n = len(labels) if labels is not None else int(workload.jobs["user"].max()) + 1
    parts = []
    for code in range(n):
        name = str(labels[code]) if labels is not None else ("default" if code == 0 else f"pool{code}")
        if any(c in name for c in "/;="):
            raise ValueError(f"pool name {name!r} must not contain '/', ';' or '='")
        p = defined.get(name, DEFAULT_POOL)
        parts.append(f"{code}={name}/{p['schedulingMode']}/{p['weight']!r}/{int(p['minShare'])}")
    return ";".join(parts)


def fair(workload, pools=None) -> SchedulerConfig:
    """Spark's FAIR scheduling mode for ``workload`` with ``pools`` (a fairscheduler.xml path,
    its text, or a dict; see :func:`read_pools`)."""
    return SchedulerConfig("spark_fair", pools=encode_pools(pools, workload))


def _pools_param(value, workload) -> str:
    """The ``pools`` parameter of ``spark_fair`` as given to ``schedulers.get``: a
    fairscheduler.xml path, its XML text or a dict is encoded for the workload; a string already
    encoded (by :func:`fair`) passes."""
    if isinstance(value, dict) or (isinstance(value, (str, os.PathLike)) and (
            os.fspath(value).lstrip().startswith("<") or os.fspath(value).lower().endswith(".xml")
            or os.path.exists(os.fspath(value)))):
        return encode_pools(value, workload)
    return value


register_param_encoder("spark_fair", "pools", _pools_param)


def stage_ids(workload) -> str | None:
    """The ``stage_ids`` parameter of the spark schedulers for ``workload``: its job_id labels
    (an event log's stage ids) when they are all whole numbers >= 0, else None (the dense job
    ids). Spark names a task set TaskSet_<stage id>.0; FAIR ties compare those names as
    strings ("TaskSet_13.0" before "TaskSet_7.0") and FIFO orders a Spark job's stages by id."""
    own = getattr(workload, "spark_stage_ids", None)  # several event logs read together
    if own is not None and len(own) == workload.n_jobs:
        return ",".join(map(str, np.asarray(own, dtype=np.int64).tolist()))
    ids = np.asarray(workload.job_ids)
    if ids.dtype.kind not in "iu":
        if ids.dtype.kind != "O" or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in ids):
            return None
    ids = ids.astype(np.int64)
    if len(ids) == 0 or ids.min() < 0 or np.array_equal(ids, np.arange(len(ids))):
        return None
    return ",".join(map(str, ids.tolist()))


register_param_default("spark_fair", "stage_ids", stage_ids)
register_param_default("spark_fifo", "stage_ids", stage_ids)


def fifo() -> SchedulerConfig:
    """Spark's FIFO scheduling mode (the default spark.scheduler.mode)."""
    return SchedulerConfig("spark_fifo")


# ------------------------------------------------------------------ several applications

#: Per-application settings (``application_settings``): registration time in seconds (None: the
#: application's first job's submission), spark.cores.max and spark.executor.cores (None: the
#: engine options ``cores_max`` / ``executor_cores``).
APPLICATION_KEYS = ("arrival", "cores_max", "executor_cores")


def application_labels(workload):
    """The workload's applications in code order (first appearance in job order), or None when
    its jobs have no ``application`` column (one application)."""
    meta = getattr(workload, "_job_meta", None)
    if meta is None or "application" not in meta.columns:
        return None
    col = meta["application"]
    if col.isna().any():
        k = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise ValueError(f"workload column 'application': job {workload.job_ids[k]!r} has no application")
    return list(pd.unique(col))


def applications(workload) -> str | None:
    """The ``applications`` parameter of the spark schedulers for ``workload``: each job's
    application code, from its ``application`` job column (None without one: a single
    application whose executors are the cluster's nodes). With it the cluster's nodes are the
    workers of a Spark standalone Master shared by the applications (docs/spark.md)."""
    labels = application_labels(workload)
    if labels is None:
        return None
    codes = pd.Categorical(workload._job_meta["application"], categories=labels).codes
    return ",".join(map(str, codes.tolist()))


def encode_application_settings(settings, workload) -> str:
    """``settings`` -- a dict ``{application: {"arrival": s, "cores_max": n, "executor_cores": n}}``
    (missing keys and applications: defaults) or a DataFrame indexed by application with those
    columns -- as the engine's ``application_settings`` string for ``workload``."""
    if isinstance(settings, str):
        return settings
    labels = application_labels(workload)
    if labels is None:
        raise ValueError("application_settings: the workload has no 'application' job column")
    if isinstance(settings, pd.DataFrame):
        settings = {k: {c: v for c, v in row.items() if c in APPLICATION_KEYS} for k, row in settings.iterrows()}
    if not isinstance(settings, dict):
        raise ValueError(f"application_settings: expected a dict or DataFrame by application, got {type(settings).__name__}")
    unknown = [k for k in settings if k not in labels]
    if unknown:
        raise ValueError(f"application_settings: unknown applications {unknown[:5]}; the workload's: {labels[:10]}")
    parts = []
    for label in labels:
        spec = settings.get(label) or {}
        bad = set(spec) - set(APPLICATION_KEYS)
        if bad:
            raise ValueError(f"application_settings: application {label!r} has unknown keys {sorted(bad)}; known: "
                             f"{list(APPLICATION_KEYS)}")
        fields = []
        for key in APPLICATION_KEYS:
            v = spec.get(key)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                fields.append("")
            else:
                fields.append(repr(_number(v, key, f"application_settings: application {label!r}"))
                              if key == "arrival" else
                              str(int(_number(v, key, f"application_settings: application {label!r}", whole=True))))
        parts.append("/".join(fields))
    return ";".join(parts)


def _application_settings_default(workload) -> str | None:
    """From the workload's ``spark_applications`` table (several event logs read together: each
    application's start, spark.cores.max and spark.executor.cores), when it has one."""
    table = getattr(workload, "spark_applications", None)
    if table is None or application_labels(workload) is None:
        return None
    return encode_application_settings(table, workload)


for _name in ("spark_fifo", "spark_fair"):
    register_param_default(_name, "applications", applications)
    register_param_default(_name, "application_settings", _application_settings_default)
    register_param_encoder(_name, "application_settings", encode_application_settings)
