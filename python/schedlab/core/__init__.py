"""The core: clusters, workloads, the scheduler catalogue, ``simulate`` and its results, faults
and speculation. It imports nothing of schedlab above it."""
from .cluster import Cluster
from .simulate import Result, simulate
from .workload import JOB_COLUMNS, TASK_COLUMNS, Workload
from . import catalogue, faults, speculation

__all__ = ["Cluster", "Workload", "Result", "simulate", "JOB_COLUMNS", "TASK_COLUMNS", "catalogue", "faults",
           "speculation"]
