"""Sparrow written in Python on the worker engine: the built-in ``sparrow`` (Ousterhout et al.,
"Sparrow: Distributed, Low Latency Scheduling", SOSP 2013, as run in the Hawk/Eagle simulator
[Zhou 2019, §2.2.1; the Hawk/Eagle simulator, epfl-labos/eagle@371b51f "Short jobs"]) as a
:class:`~schedlab.schedulers.WorkerScheduler`.

Batch sampling: a job of n tasks sends max(ceil(probe_ratio x n), min_probes) probes (long jobs:
``min_probes_long``) to workers drawn uniformly with replacement over all workers; late binding:
a worker serving a probe asks the job for its next unlaunched task (the engine's default
``choose_task``); FIFO worker queues (the default ``pick_probe``); no partitions, no stealing.
It draws from the run's scheduler stream exactly as the C++ scheduler does, so it gives the
built-in's schedules exactly; it is the reference example of the worker-engine interface.
"""
from __future__ import annotations

import math

from ..core.catalogue import register
from .base import WorkerScheduler


@register
class SparrowInPython(WorkerScheduler):
    """Sparrow's batch sampling and late binding, written in Python (same schedules as ``sparrow``)."""

    name = "sparrow_in_python"
    citation = "Ousterhout et al., SOSP'13, as run in the Hawk/Eagle simulator [Zhou 2019, §2.2.1]"
    summary = "the built-in sparrow, written in Python (example and benchmark of the worker-engine interface)"
    param_specs = [
        {"name": "probe_ratio", "type": "number", "default": 2.0, "min": 1e-9, "max": 1000,
         "doc": "probes per task of a job (batch sampling's d); at most 1000, as the built-in sparrow"},
        {"name": "min_probes", "type": "integer", "default": 2, "min": 1, "max": 100000,
         "doc": "minimum probes per short job; at most 100000, as the built-in sparrow"},
        {"name": "min_probes_long", "type": "integer", "default": 2, "min": 1, "max": 100000,
         "doc": "minimum probes per long job; at most 100000, as the built-in sparrow"},
    ]

    def init(self, sim):
        self.ratio = float(self.params["probe_ratio"])
        self.min_short = int(self.params["min_probes"])
        self.min_long = int(self.params["min_probes_long"])

    def on_job_arrival(self, sim, job):
        n = max(math.ceil(self.ratio * sim.n_tasks_of(job) - 1e-9),
                self.min_long if sim.is_long(job) else self.min_short)
        sim.send_probes(job, sim.sample_workers(n))
