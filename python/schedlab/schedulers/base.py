"""Schedulers written in Python, for every engine.

One family of base classes, one per engine, sharing their plumbing (:class:`Policy`: name,
parameters, the catalogue, ``measure_overhead``):

* :class:`Scheduler` — the MapReduce engine (``mr::Scheduler``): override
  :meth:`~Scheduler.on_heartbeat` and launch tasks on the reporting node;
* :class:`WorkerScheduler` — the worker engine (``worker::Scheduler``: Sparrow, Hawk, Eagle, ...):
  override :meth:`~WorkerScheduler.on_job_arrival` (where a job's probes go) and, as needed, the
  queue discipline, late binding, stealing and timers;
* :class:`SharePolicy` — the share engine (``share::Policy``: DRF, TSF, Choosy, Eunomia):
  override :meth:`~SharePolicy.share` (the eligible user with the lowest share is served next) and
  choose the engine's placement rule.

Pass an instance to :func:`schedlab.simulate` like a built-in scheduler name::

    class MyFifo(sl.Scheduler):
        def on_heartbeat(self, sim, node):
            for job in sim.active_jobs():
                while sim.free_slots(node, sl.MAP) > 0:
                    task = sim.find_map(job, node)
                    if task < 0:
                        break
                    sim.launch(task, node)

    result = sl.simulate(cluster, workload, MyFifo(), seed=0)

The engine calls the same callbacks as for its C++ schedulers and the ``sim`` argument offers the
engine's own narrow operations (``schedlab._core.MRSim``, ``WorkerSim``, ``ShareSim``). The
simulation itself runs in C++ without the GIL; only your callbacks run Python. Callbacks you do
not override are never called (the engine's default behaviour runs instead). See
``docs/python_schedulers.md``.
"""
from __future__ import annotations

import math
import time

import numpy as np

from .. import _core

#: stage / slot type codes
MAP, REDUCE = 0, 1
#: task states returned by ``sim.task_state``
PENDING, RUNNING, DONE = 0, 1, 2
#: locality levels for ``sim.find_map(job, node, max_level)``
NODE_LOCAL, RACK_LOCAL, ANY = 0, 1, 2


#: A scheduler written in Python reports its progress (``simulate(..., progress=...)``) every this
#: many calls of its callbacks, with the simulated time: its runs are counted in callbacks, each
#: of which may cost far more than an engine's event.
PROGRESS_EVERY = 1024


def _reporting(callbacks: dict, report, every: int = PROGRESS_EVERY) -> dict:
    """The callbacks, each followed by ``report(calls, sim.now())`` at every ``every``-th call of any
    of them (calls counted over all callbacks). An error in ``report`` stops the run."""
    calls = 0

    def wrap(fn):
        def call(sim, *args):
            nonlocal calls
            out = fn(sim, *args)
            calls += 1
            if calls % every == 0:
                report(calls, sim.now())
            return out
        return call

    return {name: (wrap(fn) if fn is not None else None) for name, fn in callbacks.items()}


class Policy:
    """What every scheduler written in Python shares, whatever its engine.

    Class attributes a subclass may set:

    * ``name`` — the name it is listed under (default: the class name in lower case);
    * ``citation``, ``summary`` — shown by :func:`schedlab.schedulers.available`;
    * ``param_specs`` — its parameters, a list of dicts with keys ``name, type`` (``number``,
      ``integer``, ``boolean``, ``choice``, ``text``), ``default``, ``min``, ``max``,
      ``choices``, ``doc``. Keyword arguments of the constructor are checked against them and
      merged with the defaults into ``self.params``.

    Before ``init`` runs, ``self.cluster`` and ``self.workload`` are the run's
    :class:`~schedlab.Cluster` and :class:`~schedlab.Workload`, and ``self.job_columns`` /
    ``self.task_columns`` hold the workload's columns as read-only NumPy arrays indexed by the
    dense job and task ids the callbacks receive (``submit_time``, ``task_begin``, ``user``, ...;
    ``job``, ``work``, ``estimate``, ...). Keep per-run state in attributes set by ``init``, so
    that one instance can run several times. ``simulate(..., measure_overhead=True)`` times every
    Python callback (counters ``scheduler_seconds`` and ``scheduler_calls``; ``overhead_per_job``
    in ``Result.summary()``) on every engine.
    """

    name: str | None = None
    citation: str = ""
    summary: str = ""
    param_specs: list = []
    engine = ""
    #: callbacks the engine may call; those a subclass does not override are never called
    _callbacks: tuple = ()
    #: callbacks a subclass must define
    _required: tuple = ()

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

    # ------------------------------------------------------------------ plumbing
    def _base(self):
        """The engine's base class (whose methods are the no-op defaults)."""
        for cls in type(self).__mro__:
            if cls in (Scheduler, WorkerScheduler, SharePolicy):
                return cls
        raise TypeError(f"{type(self).__name__} derives from no engine's base class")

    def _prepare(self, cluster, workload) -> dict:
        """Sets the run's inputs on self and returns the callbacks to hand to the engine."""
        self.cluster = cluster
        self.workload = workload
        return self._callbacks_for(workload.native())

    def _harness_callbacks(self, native_workload) -> dict:
        """The callbacks for an engine of the scheduler harness (:class:`schedlab.testing.Harness`),
        which builds the workload itself: ``cluster`` and ``workload`` are None, ``job_columns`` and
        ``task_columns`` hold its columns."""
        self.cluster = None
        self.workload = None
        return self._callbacks_for(native_workload)

    def _callbacks_for(self, native_workload) -> dict:
        base = self._base()
        for name in self._required:
            if getattr(type(self), name) is getattr(base, name) and name not in vars(self):
                raise ValueError(f"{type(self).__name__} must define {name}(self, sim, ...)")
        jobs, tasks = native_workload.columns()
        self.job_columns, self.task_columns = dict(jobs), dict(tasks)
        callbacks = {}
        for name in self._callbacks:
            mine = getattr(type(self), name, None)
            overridden = mine is not getattr(base, name) or name in vars(self)
            callbacks[name] = getattr(self, name) if overridden else None
        return callbacks

    def _run(self, cluster, workload, seed: int, options: dict, run, progress=None):
        """Checks the options, runs ``run(callbacks, options, measure_overhead)`` and wraps its result;
        calls ``progress(callbacks, simulated_time)``, if given, every :data:`PROGRESS_EVERY` callbacks."""
        from ..core.simulate import Result
        from ..core.catalogue import check_options
        options = dict(options)
        measure = bool(options.pop("measure_overhead", False)) if self.engine != "mapreduce" else False
        check_options(self.engine, options)
        callbacks = self._prepare(cluster, workload)
        if progress is not None:
            callbacks = _reporting(callbacks, progress)
        t0 = time.perf_counter()
        raw = run(callbacks, options, measure)
        wall = time.perf_counter() - t0
        if measure:
            options["measure_overhead"] = True
        return Result(raw, cluster, workload, self, int(seed), options, wall)


class Scheduler(Policy):
    """Base class of schedulers written in Python for the MapReduce engine (``mr::Scheduler``).

    Besides :class:`Policy`'s attributes, ``slot_model`` — ``"typed"`` (Hadoop 1 map and reduce
    slots, default), ``"pooled"`` or ``"containers"``. ``on_heartbeat`` is required.
    """

    slot_model: str = "typed"
    engine = "mapreduce"
    _callbacks = ("init", "on_job_submitted", "on_heartbeat", "on_attempt_finished", "on_stage_finished",
                  "on_job_finished", "on_timer", "on_node_lost", "on_node_restarted", "finish")
    _required = ("on_heartbeat",)

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

    def on_node_lost(self, sim, node: int):
        """The master noticed that ``node`` crashed (a fault, ``detection_delay`` after it): its
        running attempts have failed and its map outputs still needed are lost, so those tasks are
        pending again (on_attempt_finished is not called for them)."""

    def on_node_restarted(self, sim, node: int):
        """``node`` rejoined the cluster after a crash, empty; its heartbeats resume."""

    def finish(self, sim):
        """Called after the last event; may return a dict of extra result counters."""
        return None

    # ------------------------------------------------------------------ plumbing
    def _simulate(self, cluster, workload, seed: int, options: dict, progress=None):
        """Runs one simulation with this scheduler (called by :func:`schedlab.simulate`)."""
        return self._run(cluster, workload, seed, options, lambda callbacks, opts, _measure: _core.run_python(
            cluster.native(), workload.native(), callbacks, self.slot_model, opts, int(seed)), progress)


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


class WorkerScheduler(Policy):
    """Base class of schedulers written in Python for the worker engine (``worker::Scheduler``,
    where Sparrow, Hawk, Eagle, Dice and Eirene live).

    Each slot of a node is a 1-slot worker with its own probe queue. A job's arrival calls
    :meth:`on_job_arrival`, which sends probes (reservations) to workers with
    ``sim.send_probes(job, targets, delay=None)``: the probe count, the targets and the delay are
    the scheduler's, so batch sampling (Sparrow) and central placement (one probe per task to
    chosen workers, as Hawk's LWL) are both written with it. A free worker takes a probe from its
    queue (:meth:`pick_probe`, FIFO unless overridden) and asks the probe's job for a task
    (:meth:`choose_task`, late binding: the next unlaunched task unless overridden). A worker left
    with nothing to do calls :meth:`on_idle` (e.g. steal probes with ``sim.move_probe`` and
    ``sim.kick``). ``on_job_arrival`` is required.

    Class attribute ``tracks_remaining``: keep each job's remaining estimated work
    (``sim.remaining(job)``, Eagle's SRPT bookkeeping); off by default as it costs events.
    """

    engine = "worker"
    tracks_remaining: bool = False
    _callbacks = ("init", "on_job_arrival", "on_probe_arrival", "pick_probe", "choose_task", "keep_probe",
                  "on_launch", "on_task_end", "on_idle", "on_timer", "finish")
    _required = ("on_job_arrival",)

    def init(self, sim):
        """Called once before the first event."""

    def on_job_arrival(self, sim, job: int):
        """A job arrived: send its probes with ``sim.send_probes(job, targets)``. Required."""
        raise NotImplementedError(f"{type(self).__name__} must define on_job_arrival(self, sim, job)")

    def on_probe_arrival(self, sim, worker: int, probe: int):
        """A probe has just been appended to the worker's queue (before the worker may serve it)."""

    def pick_probe(self, sim, worker: int, short_only: bool) -> int:
        """The probe (an id from ``sim.queue(worker)``) the free worker serves next, or -1 to stay
        idle. With ``short_only`` a long task is suspended on the worker and long probes must be
        skipped. Default: the head of the queue (FIFO)."""
        for p in sim.queue(worker):
            if not (short_only and sim.probe_is_long(p)):
                return p
        return -1

    def choose_task(self, sim, worker: int, job: int) -> int:
        """The task a request of the job from the worker gets, or -1 for a no-op reply (late
        binding). A task already running is launched as a second copy (a clone). Default: the
        job's next unlaunched task in trace order."""
        return sim.next_task(job)

    def keep_probe(self, sim, worker: int, probe: int) -> bool:
        """Whether the probe stays queued after its request got a task (sticky probing)."""
        return False

    def on_launch(self, sim, worker: int, attempt: int):
        """A task copy was handed to the worker (it executes after the request's round trip)."""

    def on_task_end(self, sim, worker: int, attempt: int, first_copy: bool):
        """A task copy ended on the worker (``first_copy``: the first copy of its task to end)."""

    def on_idle(self, sim, worker: int):
        """The worker's slot has just freed and its queue is empty."""

    def on_timer(self, sim, tag: int):
        """A timer set with ``sim.set_timer(at, tag)`` fired."""

    def finish(self, sim):
        """Called after the last event; may return a dict of extra result counters."""
        return None

    def _simulate(self, cluster, workload, seed: int, options: dict, progress=None):
        """Runs one simulation with this scheduler (called by :func:`schedlab.simulate`)."""
        return self._run(cluster, workload, seed, options, lambda callbacks, opts, measure: _core.run_python_worker(
            cluster.native(), workload.native(), callbacks, bool(self.tracks_remaining), opts, int(seed), measure),
            progress)


class SharePolicy(Policy):
    """Base class of policies written in Python for the share engine (``share::Policy``, where
    DRF, DRFH, TSF, Choosy and Eunomia live).

    There are no heartbeats: when a job arrives (every node with free resources is tried) and when
    a task ends (its node is refilled), the engine repeatedly serves the user with the lowest
    :meth:`share` among those with a pending task that fits an eligible candidate node, launching
    that user's oldest fitting job's next task, until nothing fits. :meth:`share` is required.

    Class attributes (or constructor parameters of the same names when listed in
    ``param_specs``): ``placement`` — which candidate node the chosen task goes to:
    ``"first_fit"`` (lowest node id), ``"best_fit"`` (the least normalized free <vcores, memory>
    left) or ``"fastest"`` (highest performance for the user); ``tie_break`` — equal shares serve
    the lowest ``"user_id"`` or a seeded ``"random"`` user; ``weights`` — per-user weights
    ``{user: weight}`` (users not listed take their first job's weight).
    """

    engine = "share"
    placement: str = "first_fit"
    tie_break: str = "user_id"
    weights: dict | None = None
    _callbacks = ("init", "share")
    _required = ("share",)

    def init(self, sim):
        """Called once before the first event."""

    def share(self, sim, user: int) -> float:
        """The user's share now: the eligible user with the lowest share is served next. Required."""
        raise NotImplementedError(f"{type(self).__name__} must define share(self, sim, user)")

    def _setting(self, key):
        return self.params[key] if key in self.params else getattr(self, key)

    def _simulate(self, cluster, workload, seed: int, options: dict, progress=None):
        """Runs one simulation with this policy (called by :func:`schedlab.simulate`)."""
        placement, tie_break, weights = self._setting("placement"), self._setting("tie_break"), self._setting("weights")
        if tie_break not in ("user_id", "random"):
            raise ValueError(f"{self.name}: tie_break must be 'user_id' or 'random', got {tie_break!r}")
        user_weights = []
        if weights:
            users = np.asarray(workload.native().columns()[0]["user"])
            user_weights = [math.nan] * (int(users.max()) + 1 if len(users) else 0)
            for u, w in dict(weights).items():
                if isinstance(u, bool) or not isinstance(u, (int, np.integer)) or not 0 <= u < len(user_weights):
                    raise ValueError(f"{self.name}: weights: no user {u!r} in the workload")
                user_weights[int(u)] = float(w)
        return self._run(cluster, workload, seed, options, lambda callbacks, opts, measure: _core.run_python_share(
            cluster.native(), workload.native(), callbacks, placement, tie_break == "random", user_weights, opts,
            int(seed), measure), progress)
