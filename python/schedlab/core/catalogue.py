"""The scheduler catalogue: every built-in scheduler by name, with its parameters and defaults.

>>> import schedlab as sl
>>> sl.schedulers.available()            # DataFrame: name, engine, citation, summary, params
>>> sl.schedulers.params("fair")         # DataFrame: one row per parameter
>>> fair = sl.schedulers.get("fair", locality_delay=3.0)
>>> sl.simulate(cluster, workload, fair)

Schedulers written in Python (subclasses of :class:`schedlab.Scheduler`, such as ``mrcp``) are
listed too, with engine ``"python"``; ``get`` returns an instance of their class.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from .. import _core


@functools.lru_cache(maxsize=None)
def _catalogue():
    return {s["name"]: s for s in _core.schedulers()}


@functools.lru_cache(maxsize=None)
def _engines():
    return {e["name"]: e for e in _core.engines()}


_PYTHON: dict = {}


def register(cls):
    """Lists a :class:`schedlab.Scheduler` subclass by its ``name`` so that ``available()``,
    ``params()``, ``get()`` and ``simulate(..., name)`` know it. Usable as a class decorator."""
    # a Python scheduler is known by its protocol (schedlab.schedulers.base.Scheduler implements it):
    # the catalogue sits below the scheduler package and does not import it
    if not (isinstance(cls, type) and callable(getattr(cls, "scheduler_name", None))
            and callable(getattr(cls, "_simulate", None))):
        raise ValueError(f"register: expected a subclass of schedlab.Scheduler, got {cls!r}")
    name = cls.scheduler_name()
    if name in _catalogue():
        raise ValueError(f"register: {name!r} is already a built-in scheduler")
    _PYTHON[name] = cls
    return cls


def names() -> list:
    """Names of every built-in scheduler (C++ and Python)."""
    return list(_catalogue()) + list(_PYTHON)


def available() -> pd.DataFrame:
    """Every built-in scheduler with its engine, paper reference and parameters (with defaults)."""
    rows = []
    for s in _catalogue().values():
        rows.append({
            "name": s["name"],
            "engine": s["engine"],
            "citation": s["citation"],
            "summary": s["summary"],
            "params": {p["name"]: p["default"] for p in s["params"]},
        })
    for name, cls in _PYTHON.items():
        rows.append({
            "name": name,
            "engine": "python",
            "citation": cls.citation,
            "summary": cls.summary,
            "params": {p["name"]: p["default"] for p in cls.param_specs},
        })
    return pd.DataFrame(rows)


def params(name: str) -> pd.DataFrame:
    """The parameters of scheduler ``name``: type, default, range or choices, meaning."""
    if name in _PYTHON:
        specs = [{"min": -1e300, "max": 1e300, "choices": []} | p for p in _PYTHON[name].param_specs]
        return pd.DataFrame(specs, columns=["name", "type", "default", "min", "max", "choices", "doc"])
    return pd.DataFrame(_info(name)["params"], columns=["name", "type", "default", "min", "max", "choices", "doc"])


def options(engine: str = "mapreduce") -> pd.DataFrame:
    """The ``simulate`` options of an engine."""
    if engine not in _engines():
        raise ValueError(f"unknown engine {engine!r}; engines: {list(_engines())}")
    return pd.DataFrame(_engines()[engine]["options"], columns=["name", "type", "default", "min", "max", "choices", "doc"])


def _info(name):
    cat = _catalogue()
    if name not in cat:
        raise ValueError(f"unknown scheduler {name!r}; available: {', '.join(names())}")
    return cat[name]


def _check(owner, specs, values):
    by_name = {p["name"]: p for p in specs}
    for key, v in values.items():
        if key not in by_name:
            raise ValueError(f"{owner}: unknown parameter {key!r}; valid parameters: "
                             f"{', '.join(by_name) or '(none)'}")
        p = by_name[key]
        t = p["type"]
        if t == "choice":
            if v not in p["choices"]:
                raise ValueError(f"{owner}: parameter {key!r} = {v!r} is not one of {p['choices']}")
        elif t == "text":
            if not isinstance(v, (str, dict, list, tuple, np.ndarray)):
                raise ValueError(f"{owner}: parameter {key!r} takes a string, a dict or a list, got {v!r}")
        else:
            if isinstance(v, str) or not isinstance(v, (int, float, bool, np.integer, np.floating)):
                raise ValueError(f"{owner}: parameter {key!r} must be a number, got {v!r}")
            if t == "boolean" and v not in (0, 1, True, False):
                raise ValueError(f"{owner}: parameter {key!r} must be True or False, got {v!r}")
            lo, hi = p.get("min", -math.inf), p.get("max", math.inf)
            try:
                fv = float(v)
            except OverflowError:  # an int past a double's range
                fv = math.inf if v > 0 else -math.inf
            if math.isnan(fv):
                raise ValueError(f"{owner}: parameter {key!r} is NaN; expected a number in [{lo}, {hi}]")
            if t == "integer" and (math.isinf(fv) or fv != math.floor(fv)):
                raise ValueError(f"{owner}: parameter {key!r} must be a whole number in [{lo}, {hi}], got {v!r}")
            if fv < lo or fv > hi:
                raise ValueError(f"{owner}: parameter {key!r} = {v!r} is outside [{lo}, {hi}]")


class SchedulerConfig:
    """A built-in scheduler with validated parameters; pass it to :func:`schedlab.simulate`."""

    def __init__(self, name: str, **params):
        info = _info(name)
        _check(name, info["params"], params)
        self.name = name
        self.engine = info["engine"]
        self.params = dict(params)

    def with_params(self, **params) -> "SchedulerConfig":
        return SchedulerConfig(self.name, **(self.params | params))

    def resolved(self) -> dict:
        """All parameters, defaults included."""
        return {p["name"]: p["default"] for p in _info(self.name)["params"]} | self.params

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return self.name + "(" + ", ".join(f"{k}={v}" for k, v in sorted(self.params.items())) + ")"

    def __eq__(self, other):
        return isinstance(other, SchedulerConfig) and (self.name, self.params) == (other.name, other.params)

    def __hash__(self):
        return hash((self.name, tuple(sorted((k, str(v)) for k, v in self.params.items()))))

    def __repr__(self):
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"SchedulerConfig({self.name!r}{args})"


def get(name: str, **params):
    """A configured scheduler: ``get("fair", locality_delay=3)`` (a :class:`SchedulerConfig`), or
    for a scheduler written in Python an instance of its class. Unknown names, unknown
    parameters and out-of-range values raise ``ValueError``."""
    if name in _PYTHON:
        return _PYTHON[name](**params)
    return SchedulerConfig(name, **params)


def as_config(scheduler) -> SchedulerConfig:
    if isinstance(scheduler, SchedulerConfig):
        return scheduler
    if isinstance(scheduler, str):
        if scheduler in _PYTHON:
            return _PYTHON[scheduler]()
        return SchedulerConfig(scheduler)
    raise ValueError(f"scheduler must be a name or a SchedulerConfig, got {type(scheduler).__name__}")


def check_options(engine: str, options: dict):
    _check(f"simulate options ({engine} engine)", _engines()[engine]["options"], options)
