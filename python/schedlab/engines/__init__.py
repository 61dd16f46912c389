"""Helpers per simulation engine, named as the C++ engines: ``mapreduce`` (Hadoop MRv1 slots and
YARN containers), ``worker`` (Sparrow-style worker queues), ``share`` (fair sharing of vcores
and memory under placement constraints) and ``spark`` (Spark's task scheduler; imported here so
that its scheduler parameters are encoded from the workload in every simulation)."""
from . import mapreduce, share, spark, worker

__all__ = ["mapreduce", "share", "spark", "worker"]
