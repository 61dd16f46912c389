"""schedlab: a laboratory for big-data cluster schedulers.

A fast, deterministic C++ discrete-event simulator of clusters (Hadoop MRv1 slots, YARN
containers, Sparrow-style worker queues) with the schedulers of the literature built in,
driven from Python with results as pandas DataFrames.

>>> import schedlab as sl
>>> cluster = sl.Cluster(nodes=20, racks=2, map_slots=2, reduce_slots=2)
>>> workload = sl.synthetic.generate(jobs=50, seed=1)
>>> result = sl.simulate(cluster, workload, "fair", seed=0)
>>> result.summary()
"""
from . import _core  # noqa: F401  (fails early and clearly if the extension is missing)
from ._cluster import Cluster
from ._simulate import Result, simulate
from ._workload import JOB_COLUMNS, TASK_COLUMNS, Workload
from .pyscheduler import ANY, DONE, MAP, NODE_LOCAL, PENDING, RACK_LOCAL, REDUCE, RUNNING, Scheduler
from . import schedulers, synthetic, datasets
from . import mrcp, wordcount  # noqa: F401  (registers the mrcp scheduler and the WordCount datasets)
from . import faults, speculation
from . import hybrid
from .traces import read_trace
from .sweep import grid, sweep
from . import stats, store

__version__ = "0.1.0"

__all__ = ["Cluster", "Workload", "Result", "simulate", "Scheduler", "MAP", "REDUCE", "PENDING", "RUNNING", "DONE",
           "NODE_LOCAL", "RACK_LOCAL", "ANY", "read_trace", "schedulers", "synthetic", "datasets", "hybrid",
           "faults", "speculation", "JOB_COLUMNS", "TASK_COLUMNS", "__version__"]
__all__ += ["sweep", "grid", "stats", "store"]


def __getattr__(name):
    # heavier optional parts load on first use
    import importlib
    if name in ("plot", "cli", "mapreduce", "download"):
        return importlib.import_module(f".{name}", __name__)
    if name == "sweep_module":  # the module behind the sweep() function
        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
