"""Workloads: the datasets shipped or downloadable by name (``datasets``), the download cache
(``download``), seeded synthetic workloads (``synthetic``) and the trace readers (``traces``)."""
from . import datasets, download, synthetic, traces
from .traces import read_trace

__all__ = ["datasets", "download", "synthetic", "traces", "read_trace"]
