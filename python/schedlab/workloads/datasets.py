"""Workloads the package ships: ``schedlab.datasets.load(name)``.

``available()`` lists them. Each is built from a small data file under the package's
``datasets/`` folder (the papers' job tables, arrival patterns and task profiles) by a builder
function, so the same name and seed always give the same workload.
"""
from __future__ import annotations

import importlib.resources
import json
import os
import pathlib

import numpy as np
import pandas as pd

from ..core.workload import Workload
from . import download as _dl
from .download import download  # noqa: F401  (sl.datasets.download)
from .traces import read_trace

_BUILDERS: dict = {}


def data_dir() -> str:
    """The folder holding the shipped dataset files: the installed package's ``_datasets``
    (read through importlib.resources), else the source tree's ``datasets/``."""
    shipped = importlib.resources.files("schedlab") / "_datasets"
    if shipped.is_dir():
        return str(shipped)
    source = pathlib.Path(__file__).resolve().parents[3] / "datasets"
    if source.is_dir():
        return str(source)
    raise FileNotFoundError("schedlab's dataset folder is missing from this installation")


def data_path(*parts) -> str:
    p = os.path.join(data_dir(), *parts)
    if not os.path.exists(p):
        raise FileNotFoundError(f"dataset file {os.path.join(*parts)!r} is not in {data_dir()}")
    return p


def register(name: str, builder, description: str = ""):
    """Adds a named dataset: ``builder(**options) -> Workload``."""
    _BUILDERS[name] = (builder, description)


def available() -> pd.DataFrame:
    """Every shipped dataset with a one-line description."""
    return pd.DataFrame([{"name": k, "description": d} for k, (_, d) in sorted(_BUILDERS.items())])


def load(name: str, **options) -> Workload:
    """Builds the shipped workload ``name``; ``options`` go to its builder (e.g. ``seed``)."""
    if name not in _BUILDERS:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(sorted(_BUILDERS))}")
    return _BUILDERS[name][0](**options)


def from_job_types(spec: dict, sequence, *, submit_times=None, seed: int = 0, users=None, name="jobs",
                   work_jitter: float | None = None, map_replicas=None) -> Workload:
    """Expands a table of job types (maps, reduces, map_work, reduce_work, shuffle_ratio per
    type) and a sequence of type names into a workload. Task work is jittered uniformly by
    +-``work_jitter`` (a fraction) with a seeded generator; reduce input = the job's map output
    split evenly. ``map_replicas(job_index, n_maps)``, if given, returns one list of replica node
    ids per map of that job (the workload then carries its own block placement)."""
    rng = np.random.default_rng(seed)
    types = spec["job_types"]
    block = float(spec.get("block_bytes", 64 * 2**20))
    jitter = float(spec.get("work_jitter", 0.0) if work_jitter is None else work_jitter)
    n = len(sequence)
    if submit_times is None:
        submit_times = np.arange(n) * float(spec.get("interarrival", 0.0))
    users = users if users is not None else spec.get("users", ["user0"])
    job_rows, task_frames = [], []
    for j, t in enumerate(sequence):
        if t not in types:
            raise ValueError(f"dataset {name}: job type {t!r} is not in its table ({sorted(types)})")
        jt = types[t]
        m, r = int(jt["maps"]), int(jt["reduces"])
        mw = float(jt["map_work"]) * (1 + rng.uniform(-jitter, jitter, m))
        rw = float(jt["reduce_work"]) * (1 + rng.uniform(-jitter, jitter, r))
        out = block * float(jt.get("shuffle_ratio", 1.0))
        frame = pd.DataFrame({
            "job_id": j, "stage": [0] * m + [1] * r, "work": np.concatenate([mw, rw]),
            "input_bytes": [block] * m + [out * m / max(r, 1)] * r, "output_bytes": [out] * m + [0.0] * r})
        if map_replicas is not None:
            reps = list(map_replicas(j, m))
            if len(reps) != m:
                raise ValueError(f"dataset {name}: map_replicas gave {len(reps)} lists for job {j} with {m} maps")
            frame["replicas"] = [list(x) for x in reps] + [[] for _ in range(r)]
        task_frames.append(frame)
        user = users[j % len(users)]
        job_rows.append({"job_id": j, "submit_time": float(submit_times[j]), "user": user, "job_type": t,
                         **({"queue": user} if spec.get("queue_per_user") else {})})
    return Workload.from_frames(pd.DataFrame(job_rows), pd.concat(task_frames, ignore_index=True), name=name)


def _demo_mix(seed: int = 0) -> Workload:
    with open(data_path("demo_mix.json")) as f:
        spec = json.load(f)
    return from_job_types(spec, spec["sequence"], seed=seed, name="demo_mix")


register("demo_mix", _demo_mix, "20 mixed Hadoop jobs (WordCount, Grep, TeraSort-like, short) from 3 users, each its own queue, 5 s apart")


def register_remote(remote: _dl.Remote, dataset: bool = True):
    """Adds a downloadable trace (:class:`schedlab.workloads.download.Remote`); with ``dataset`` it
    is also loadable by name through :func:`load` (keyword options go to its trace reader)."""
    if len(remote.sha256) != 64 or any(c not in "0123456789abcdef" for c in remote.sha256.lower()):
        raise ValueError(f"register_remote({remote.name!r}): sha256 must be 64 hex digits")
    _dl.REMOTES[remote.name] = remote
    if dataset:
        def build(_name=remote.name, **options):
            r = _dl.REMOTES[_name]
            mirror = options.pop("mirror", None)
            cache = options.pop("cache_dir", None)
            path = _dl.download(_name, mirror=mirror, cache_dir=cache)
            return read_trace(path, format=r.format, **(r.options | options))
        register(remote.name, build, f"(downloaded) {remote.description}")


# public traces downloaded on demand into a cache, checked by SHA-256; the papers' workloads
# register themselves when schedlab.papers is imported
for _remote in _dl.BUILTIN:
    register_remote(_remote)
