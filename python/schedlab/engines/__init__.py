"""Helpers per simulation engine, named as the C++ engines: ``mapreduce`` (Hadoop MRv1 slots and
YARN containers), ``worker`` (Sparrow-style worker queues) and ``share`` (fair sharing of vcores
and memory under placement constraints)."""
from . import mapreduce, share, worker

__all__ = ["mapreduce", "share", "worker"]
