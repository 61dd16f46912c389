"""Parameter studies: grids of runs over schedulers, clusters, workloads, options and seeds
(:func:`schedlab.sweep`, :func:`schedlab.grid`, in :mod:`schedlab.study.sweep`), run in threads, processes or
Dask, kept in a resumable results store (:mod:`schedlab.study.store`)."""
from . import store, sweep

__all__ = ["store", "sweep"]
