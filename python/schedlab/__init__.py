"""schedlab: a laboratory for big-data cluster schedulers.

A fast, deterministic C++ discrete-event simulator of clusters (Hadoop MRv1 slots, YARN
containers, Sparrow-style worker queues, fair sharing under placement constraints) with the
schedulers of the literature built in, driven from Python with results as pandas DataFrames.

>>> import schedlab as sl
>>> cluster = sl.Cluster(nodes=20, racks=2, map_slots=2, reduce_slots=2)
>>> workload = sl.synthetic.generate(jobs=50, seed=1)
>>> result = sl.simulate(cluster, workload, "fair", seed=0)
>>> result.summary()

The package by concept (``docs/developer_guide.md`` has the map):

* :mod:`schedlab.core` — Cluster, Workload, simulate and Result, the scheduler catalogue, faults,
  speculation;
* :mod:`schedlab.schedulers` — the catalogue by name, the base class of schedulers written in
  Python, and those schedulers (mrcp);
* :mod:`schedlab.engines` — helpers per engine (mapreduce, worker, share);
* :mod:`schedlab.workloads` — datasets by name, downloads, synthetic workloads, trace readers;
* :mod:`schedlab.papers` — one module per paper: its clusters, workloads and experiments;
* :mod:`schedlab.study` — sweeps and the results store; :mod:`schedlab.analysis` — stats, plots;
* :mod:`schedlab.cli` — the ``schedlab`` command.
"""
import sys as _sys

from . import _core  # noqa: F401  (fails early and clearly if the extension is missing)
from ._version import __version__
from .core import JOB_COLUMNS, TASK_COLUMNS, Cluster, Result, Workload, simulate
from .core import faults, speculation
from . import schedulers
from .schedulers import ANY, DONE, MAP, NODE_LOCAL, PENDING, RACK_LOCAL, REDUCE, RUNNING, Scheduler
from . import engines, workloads
from .workloads import datasets, download, synthetic, traces
from .workloads.traces import read_trace
from . import papers  # registers the papers' datasets
from . import study, analysis
from .study import store
from .study.sweep import grid, sweep
from .analysis import plot, stats  # plot imports matplotlib only when it draws
from . import _compat

# the public module paths of earlier releases that still name the same module
for _name, _module in {"faults": faults, "speculation": speculation, "datasets": datasets, "download": download,
                       "synthetic": synthetic, "traces": traces, "store": store, "stats": stats, "plot": plot,
                       "sweep": study.sweep}.items():  # sl.sweep stays the function
    _sys.modules.setdefault(f"{__name__}.{_name}", _module)
_MOVED = _compat.install(__name__)

__all__ = ["Cluster", "Workload", "Result", "simulate", "Scheduler", "MAP", "REDUCE", "PENDING", "RUNNING", "DONE",
           "NODE_LOCAL", "RACK_LOCAL", "ANY", "read_trace", "schedulers", "synthetic", "datasets", "download",
           "faults", "speculation", "JOB_COLUMNS", "TASK_COLUMNS", "__version__", "sweep", "grid", "stats", "store",
           "core", "engines", "workloads", "papers", "study", "analysis", "traces", "plot"]


def __getattr__(name):
    # heavier optional parts load on first use; earlier module names forward with a warning
    import importlib
    if name == "cli":
        return importlib.import_module(".cli", __name__)
    if name in _MOVED:
        return _MOVED[name]
    raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
