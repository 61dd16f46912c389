"""Schedulers: the catalogue of every scheduler by name (built-in C++ ones and those written in
Python), the base class for writing a scheduler in Python, and the schedulers written in Python.

>>> import schedlab as sl
>>> sl.schedulers.available()            # DataFrame: name, engine, citation, summary, params
>>> sl.schedulers.params("fair")         # DataFrame: one row per parameter
>>> fair = sl.schedulers.get("fair", locality_delay=3.0)
>>> sl.simulate(cluster, workload, fair)
"""
from ..core.catalogue import (SchedulerConfig, as_config, available, check_options, get, names, options, params,
                              register)
from .base import (ANY, DONE, MAP, NODE_LOCAL, PENDING, RACK_LOCAL, REDUCE, RUNNING, FifoInPython, Policy, Scheduler,
                   SharePolicy, WorkerScheduler)
from . import mrcp  # registers the mrcp scheduler
from .drf import DrfInPython
from .sparrow import SparrowInPython

__all__ = ["SchedulerConfig", "as_config", "available", "check_options", "get", "names", "options", "params",
           "register", "Policy", "Scheduler", "WorkerScheduler", "SharePolicy", "FifoInPython", "SparrowInPython",
           "DrfInPython", "MAP", "REDUCE", "PENDING", "RUNNING", "DONE", "NODE_LOCAL",
           "RACK_LOCAL", "ANY", "mrcp"]
