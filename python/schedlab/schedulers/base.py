"""Schedulers written in Python for the MapReduce engine.

Subclass :class:`Scheduler`, override :meth:`~Scheduler.on_heartbeat` (and any other callback
you need) and pass an instance to :func:`schedlab.simulate` like a built-in scheduler name::

    class MyFifo(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            for job in sim.active_jobs():
                while sim.free_slots(node, sl.MAP) > 0:
                    task = sim.find_map(job, node)
                    if task < 0:
                        break
                    sim.launch(task, node)

    result = sl.simulate(cluster, workload, MyFifo(), seed=0)

The engine calls the same callbacks as for its C++ schedulers (``mr::Scheduler``) and the
``sim`` argument offers the same narrow operations (``schedlab._core.MRSim``): the clock, job,
task and attempt state, slot counts, Hadoop's per-job task caches (``find_map``,
``find_reduce``), ``launch``, ``kill``, ``set_slots``, ``set_timer``, counters and series. The
simulation itself runs in C++ without the GIL; only your callbacks run Python. Callbacks you do
not override are never called. See ``docs/python_schedulers.md``.
"""
from __future__ import annotations

import math
import time

from .. import _core

#: stage / slot type codes
MAP, REDUCE = 0, 1
#: task states returned by ``sim.task_state``
PENDING, RUNNING, DONE = 0, 1, 2
#: locality levels for ``sim.find_map(job, node, max_level)``
NODE_LOCAL, RACK_LOCAL, ANY = 0, 1, 2

_CALLBACKS = ("init", "on_job_submitted", "on_heartbeat", "on_attempt_finished", "on_stage_finished",
              "on_job_finished", "on_timer", "finish")


class Scheduler:
    """Base class of schedulers written in Python (MapReduce engine).

    Class attributes a subclass may set:

    * ``name`` — the name it is listed under (default: the class name in lower case);
    * ``slot_model`` — ``"typed"`` (Hadoop 1 map and reduce slots, default), ``"pooled"`` or
      ``"containers"``;
    * ``citation``, ``summary`` — shown by :func:`schedlab.schedulers.available`;
    * ``param_specs`` — its parameters, a list of dicts with keys ``name, type`` (``number``,
      ``integer``, ``boolean``, ``choice``, ``text``), ``default``, ``min``, ``max``,
      ``choices``, ``doc``. Keyword arguments of the constructor are checked against them and
      merged with the defaults into ``self.params``.

    Before ``init`` runs, ``self.cluster`` and ``self.workload`` are the run's
    :class:`~schedlab.Cluster` and :class:`~schedlab.Workload`, and ``self.job_columns`` /
    ``self.task_columns`` hold the workload's columns as read-only NumPy arrays indexed by the
    dense job and task ids the callbacks receive (``submit_time``, ``deadline``, ``n_maps``,
    ``task_begin``; ``job``, ``stage``, ``work``, ``estimate``, ``input_bytes``, ...). Keep
    per-run state in attributes set by ``init``, so that one instance can run several times.
    """

    name: str | None = None
    slot_model: str = "typed"
    citation: str = ""
    summary: str = ""
    param_specs: list = []
    engine = "mapreduce"

    def __init__(self, **params):
        from ..core.catalogue import _check
        _check(self.scheduler_name(), self.param_specs, params)
        self.name = self.scheduler_name()
        self.params = {p["name"]: p["default"] for p in self.param_specs} | dict(params)
        self._given = dict(params)

    @classmethod
    def scheduler_name(cls) -> str:
        return cls.name or cls.__name__.lower()

    @property
    def label(self) -> str:
        if not self._given:
            return self.name
        return self.name + "(" + ", ".join(f"{k}={v}" for k, v in sorted(self._given.items())) + ")"

    def resolved(self) -> dict:
        """All parameters, defaults included."""
        return dict(self.params)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._given.items())
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ callbacks
    def init(self, sim):
        """Called once before the first event."""

    def on_job_submitted(self, sim, job: int):
        """A job arrived (its tasks are pending)."""

    def on_heartbeat(self, sim, node: int):
        """A TaskTracker reports: assign work to ``node`` with ``sim.launch``. Required."""
        raise NotImplementedError(f"{type(self).__name__} must define on_heartbeat(self, sim, node)")

    def on_attempt_finished(self, sim, attempt: int):
        """An attempt succeeded (``sim.attempt(attempt)`` tells which task, where, when)."""

    def on_stage_finished(self, sim, job: int, stage: int):
        """All maps (stage 0) or all reduces (stage 1) of a job are done."""

    def on_job_finished(self, sim, job: int):
        """The job's last task finished."""

    def on_timer(self, sim, tag: int):
        """A timer set with ``sim.set_timer(at, tag)`` fired."""

    def finish(self, sim):
        """Called after the last event; may return a dict of extra result counters."""
        return None

    # ------------------------------------------------------------------ plumbing
    def _simulate(self, cluster, workload, seed: int, options: dict):
        """Runs one simulation with this scheduler (called by :func:`schedlab.simulate`)."""
        from ..core.simulate import Result
        from ..core.catalogue import check_options
        check_options(self.engine, options)
        if type(self).on_heartbeat is Scheduler.on_heartbeat:
            raise ValueError(f"{type(self).__name__} must define on_heartbeat(self, sim, node)")
        self.cluster = cluster
        self.workload = workload
        jobs, tasks = workload.native().columns()
        self.job_columns, self.task_columns = dict(jobs), dict(tasks)
        base = Scheduler
        callbacks = {}
        for name in _CALLBACKS:
            mine = getattr(type(self), name, None)
            overridden = mine is not getattr(base, name) or name in vars(self)
            callbacks[name] = getattr(self, name) if overridden else None
        t0 = time.perf_counter()
        raw = _core.run_python(cluster.native(), workload.native(), callbacks, self.slot_model, dict(options), int(seed))
        wall = time.perf_counter() - t0
        return Result(raw, cluster, workload, self, int(seed), dict(options), wall)


class FifoInPython(Scheduler):
    """Hadoop 1.2.1's JobQueueTaskScheduler written in Python: the same decisions as the
    built-in ``fifo`` (Lim et al. 2015, §4.2.2) — load-factor cap, node/rack-local maps first with at most
    one off-switch map per heartbeat, at most one reduce per heartbeat after slowstart. It is
    the reference example of this interface and reproduces ``fifo``'s schedule exactly."""

    name = "fifo_in_python"
    summary = "the built-in fifo, written in Python (example and benchmark of the Python interface)"

    def init(self, sim):
        self.queue = []
        tb = self.job_columns["task_begin"]
        self.n_maps = self.job_columns["n_maps"].tolist()
        self.n_reduces = [int(tb[j + 1] - tb[j]) - m for j, m in enumerate(self.n_maps)]

    def on_job_submitted(self, sim, job):
        self.queue.append(job)

    def on_job_finished(self, sim, job):
        self.queue.remove(job)

    def on_heartbeat(self, sim, node):
        rem_maps = rem_reduces = 0.0
        for j in self.queue:
            rem_maps += self.n_maps[j] - sim.done(j, MAP)
            if sim.reduces_allowed(j):
                rem_reduces += self.n_reduces[j] - sim.done(j, REDUCE)
        map_slots, reduce_slots = sim.map_capacity(node), sim.reduce_capacity(node)
        total_maps, total_reduces = sim.total_map_slots, sim.total_reduce_slots
        map_cap = min(math.ceil(rem_maps / total_maps * map_slots - 1e-9), map_slots) if total_maps > 0 else 0
        reduce_cap = (min(math.ceil(rem_reduces / total_reduces * reduce_slots - 1e-9), reduce_slots)
                      if total_reduces > 0 else 0)
        for _ in range(map_cap - sim.running_on(node, MAP)):
            launched = off_switch = False
            for j in self.queue:
                if sim.pending(j, MAP) == 0:
                    continue
                t = sim.find_map(j, node, RACK_LOCAL)
                if t < 0:
                    t = sim.find_map(j, node, ANY)
                    off_switch = t >= 0
                if t >= 0:
                    sim.launch(t, node)
                    launched = True
                    break
            if not launched or off_switch:
                break
        if reduce_cap - sim.running_on(node, REDUCE) > 0:
            for j in self.queue:
                if sim.reduces_allowed(j):
                    t = sim.find_reduce(j)
                    if t >= 0:
                        sim.launch(t, node)
                        break
