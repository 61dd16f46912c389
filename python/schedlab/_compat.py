"""Module names of earlier releases, kept for one release: each forwards to the new place and
warns (DeprecationWarning) when used.

=============================  ==================================================================
earlier name                   now
=============================  ==================================================================
schedlab.hybrid                schedlab.engines.worker; Dice presets in schedlab.papers.zhou2019
schedlab.sharing               schedlab.engines.share; Eunomia's benchmarks in papers.zhou2019
schedlab.mapreduce             schedlab.engines.mapreduce; FRESH/OMO in papers.wang2017, EAS in
                               papers.zhao2013, DynamicMR in papers.tang2014
schedlab.wordcount             schedlab.papers.lim2015
schedlab.speculation_experiments  schedlab.papers.wang2017 (eSplash: run_esplash, esplash_cluster,
                               ...) and schedlab.papers.tang2014 (SEPB)
schedlab.pyscheduler           schedlab.schedulers.base
schedlab.mrcp                  schedlab.schedulers.mrcp
schedlab.sweep_cli             schedlab.cli.sweep
schedlab.sweep_module          schedlab.study.sweep
=============================  ==================================================================
"""
from __future__ import annotations

import importlib
import sys
import types
import warnings

# earlier module -> (new modules searched in order, renamed attributes)
MOVED = {
    "hybrid": (["engines.worker", "papers.zhou2019"], {}),
    "sharing": (["engines.share", "papers.zhou2019"], {}),
    "mapreduce": (["engines.mapreduce", "papers.wang2017", "papers.zhao2013", "papers.tang2014"], {}),
    "wordcount": (["papers.lim2015"], {}),
    "speculation_experiments": (["papers.tang2014"], {
        "cluster": "papers.wang2017:esplash_cluster", "workload": "papers.wang2017:esplash_workload",
        "scenarios": "papers.wang2017:esplash_scenarios", "run": "papers.wang2017:run_esplash",
        "BENCHMARKS": "papers.wang2017:ESPLASH_BENCHMARKS", "PAPER": "papers.wang2017:ESPLASH_PAPER"}),
    "pyscheduler": (["schedulers.base"], {}),
    "mrcp": (["schedulers.mrcp"], {}),
    "sweep_cli": (["cli.sweep"], {}),
    "sweep_module": (["study.sweep"], {}),
}


class _Moved(types.ModuleType):
    def __init__(self, package: str, old: str):
        super().__init__(f"{package}.{old}", f"Moved: see {', '.join(MOVED[old][0])} ({package}._compat).")
        self._package, self._old = package, old

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        targets, renamed = MOVED[self._old]
        if name in renamed:
            where, _, attr = renamed[name].partition(":")
            candidates = [(where, attr)]
        else:
            candidates = [(t, name) for t in targets]
        for where, attr in candidates:
            module = importlib.import_module(f"{self._package}.{where}")
            if hasattr(module, attr):
                warnings.warn(f"{self._package}.{self._old}.{name} is now {self._package}.{where}.{attr}; "
                              f"the old name goes away in the next release", DeprecationWarning, stacklevel=2)
                return getattr(module, attr)
        raise AttributeError(f"module '{self._package}.{self._old}' has no attribute {name!r}")


def install(package: str) -> dict:
    """Puts the earlier module names into sys.modules; returns them by short name."""
    out = {}
    for old in MOVED:
        module = _Moved(package, old)
        sys.modules.setdefault(f"{package}.{old}", module)
        out[old] = sys.modules[f"{package}.{old}"]
    return out
