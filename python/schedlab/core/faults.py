"""Injected faults for the mapreduce engine: stragglers (time-windowed slowdowns of a node), node
crashes with a restart, and a seeded model of crashes (mean time between failures).

>>> import schedlab as sl
>>> faults = [sl.faults.Slowdown(node=3, start=100, end=1100, factor=3),
...           sl.faults.Crash(node=7, at=1100, restart_after=600)]
>>> sl.simulate(cluster, workload, "fair", faults=faults, detection_delay=600, speculation="esplash")

A slowed node does 1/factor of its normal work per second; attempts in flight are re-timed. A
crashed node stops at once; the master notices after ``detection_delay`` seconds (an engine
option, default 600 s, Hadoop's and YARN's tracker expiry) or at the restart if sooner. Its
attempts then fail, and the completed map outputs stored there that some reduce still needs are
lost: those maps re-run first, and reduces still copying wait for them. The node rejoins, empty,
``restart_after`` seconds after the crash (``math.inf``: never).

:class:`MTBF` draws crashes for every node with exponential uptimes, from a random stream of the
simulation's own seed, so the same seed gives the same faults.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Slowdown", "Crash", "MTBF", "encode"]


def _num(name, value, *, positive=False, finite=True):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if finite and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return float(value)


def _node(cls, node):
    if isinstance(node, bool) or not isinstance(node, int) or node < 0:
        raise ValueError(f"{cls}: node must be a non-negative node id, got {node!r}")
    return int(node)


@dataclass(frozen=True)
class Slowdown:
    """Between ``start`` and ``end`` node ``node`` runs ``factor`` times slower (a straggler)."""
    node: int
    start: float
    end: float
    factor: float

    def __post_init__(self):
        _node("Slowdown", self.node)
        s = _num("Slowdown.start", self.start)
        e = _num("Slowdown.end", self.end, finite=False)
        _num("Slowdown.factor", self.factor, positive=True)
        if s < 0 or not e > s:
            raise ValueError(f"Slowdown: need 0 <= start < end, got start={self.start}, end={self.end}")

    def encode(self) -> str:
        return f"slowdown:{self.node}:{self.start!r}:{float(self.end)!r}:{float(self.factor)!r}"


@dataclass(frozen=True)
class Crash:
    """Node ``node`` crashes at ``at`` and restarts ``restart_after`` seconds later."""
    node: int
    at: float
    restart_after: float = math.inf

    def __post_init__(self):
        _node("Crash", self.node)
        if _num("Crash.at", self.at) < 0:
            raise ValueError(f"Crash: at must be >= 0, got {self.at}")
        _num("Crash.restart_after", self.restart_after, positive=True, finite=False)

    def encode(self) -> str:
        return f"crash:{self.node}:{float(self.at)!r}:{float(self.restart_after)!r}"


@dataclass(frozen=True)
class MTBF:
    """Every node crashes after exponential uptimes of mean ``mean_uptime`` seconds and restarts
    ``restart_after`` seconds later, until ``horizon``; drawn from the simulation's seed."""
    mean_uptime: float
    restart_after: float
    horizon: float

    def __post_init__(self):
        _num("MTBF.mean_uptime", self.mean_uptime, positive=True)
        _num("MTBF.restart_after", self.restart_after, positive=True)
        if _num("MTBF.horizon", self.horizon) < 0:
            raise ValueError("MTBF: horizon must be >= 0")

    def encode(self) -> str:
        return f"mtbf:{float(self.mean_uptime)!r}:{float(self.restart_after)!r}:{float(self.horizon)!r}"


def encode(faults) -> str:
    """The engine's ``faults`` option string for a fault, a list of faults, or a string (kept)."""
    if faults is None:
        return ""
    if isinstance(faults, str):
        return faults
    if isinstance(faults, (Slowdown, Crash, MTBF)):
        faults = [faults]
    try:
        items = list(faults)
    except TypeError:
        raise ValueError(f"faults must be a list of Slowdown/Crash/MTBF, got {type(faults).__name__}") from None
    for i, f in enumerate(items):
        if not isinstance(f, (Slowdown, Crash, MTBF)):
            raise ValueError(f"faults[{i}] is {f!r}, not a schedlab.faults.Slowdown, Crash or MTBF")
    return ";".join(f.encode() for f in items)
