"""The scheduler harness: a MapReduce-engine scheduler driven step by step.

Hadoop's scheduler unit tests build a fake JobTracker with named TaskTrackers, submit jobs,
advance a fake clock, call the scheduler on a tracker's heartbeat by hand and check which tasks
it hands out; they finish tasks by hand too. :class:`Harness` does the same with schedlab's
schedulers: it runs the very engine and scheduler code that :func:`schedlab.simulate` runs, in
the engine's *driven* mode (no drawn durations, no periodic heartbeats: the test moves the clock,
makes trackers heartbeat and ends attempts)::

    from schedlab.testing import Harness

    h = Harness("fair", params={"assign_multiple": False}, options={"slowstart": 0})
    h.add_tracker("tt1", rack="rack1", map_slots=2, reduce_slots=2)
    job = h.submit(maps=2, reduces=1)                 # "job_test_0001"
    assert h.heartbeat("tt1") == ["attempt_test_0001_m_000000_0 on tt1"]
    h.advance(0.1)                                    # seconds
    h.finish("attempt_test_0001_m_000000_0")
    h.job_state(job)["map_fair_share"]                # the scheduler's own state

Names follow Hadoop 1's (``job_test_0001``, ``attempt_test_0001_m_000000_0``); an assignment
reads ``"<attempt> on <tracker>"``. See ``docs/conformance.md`` for the whole API.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from .. import _core

_PRIORITIES = ("VERY_HIGH", "HIGH", "NORMAL", "LOW", "VERY_LOW")


class Assignment(str):
    """One task handed out at a heartbeat: the string ``"<attempt> on <tracker>"`` (so it compares
    equal to Hadoop's expected strings) with the parts as attributes."""

    attempt: str
    tracker: str
    is_map: bool
    speculative: bool
    attempt_id: int

    def __new__(cls, attempt: str, tracker: str, attempt_id: int, is_map: bool, speculative: bool):
        s = super().__new__(cls, f"{attempt} on {tracker}")
        s.attempt, s.tracker, s.attempt_id = attempt, tracker, int(attempt_id)
        s.is_map, s.speculative = bool(is_map), bool(speculative)
        return s


class Harness:
    """A scheduler of the MapReduce engine, driven step by step.

    Parameters
    ----------
    scheduler:
        a registered MapReduce-engine scheduler name (``"fifo"``, ``"fair"``, ``"capacity"``, ...),
        or a scheduler written in Python (an instance of :class:`schedlab.Scheduler`, e.g.
        ``FifoInPython()``; its parameters go to its constructor). The harness calls its
        ``init(sim)`` again whenever it restarts the engine to replay (a job or tracker added
        later), so a scheduler should set its state up there.
    params:
        the scheduler's parameters, as for :func:`schedlab.simulate`. In the parameters keyed by
        pool or queue (``pool_weights``, ``min_shares``, ``min_map_shares``, ``min_reduce_shares``,
        ``pool_max_jobs``, ``pool_modes``, ``capacities``, ``min_share_timeouts``, ...) and by user
        (``user_max_jobs``) the keys may be names (``"poolA:2,poolB:1"``): the harness gives pools
        and users dense ids in name order and translates them.
    options:
        the engine's options, as for :func:`schedlab.simulate` (e.g. ``slowstart``,
        ``speculation``). Durations, heartbeat intervals and faults play no part: the test drives
        time.
    task_ids:
        ``"index"`` (default): an attempt's task number is the task's index within its job and
        type, as in Hadoop; ``"counter"``: a counter of the attempts handed out so far, from 1, as
        the fake job of Hadoop's ``TestJobQueueTaskScheduler`` numbers them; ``"per_job"``: a
        counter per job and type, from 1, in the order the tasks are first handed out, as the fake
        job of Hadoop's ``TestCapacityScheduler`` numbers them.
    hold_jobs:
        ``False`` (default): a job completes when its last task succeeds; ``True``: it stays running
        (and the scheduler counts it) until :meth:`finalize_job`, as the fake jobs of Hadoop's tests
        stay RUNNING until the test finalizes them.
    """

    def __init__(self, scheduler: str, params: dict | None = None, options: dict | None = None,
                 task_ids: str = "index", hold_jobs: bool = False):
        from ..schedulers.base import Scheduler as PythonScheduler
        if isinstance(scheduler, PythonScheduler):
            if params:
                raise ValueError("a scheduler written in Python takes its parameters in its constructor, not params=")
            self._h = _core.Harness.for_python(scheduler._harness_callbacks, scheduler.slot_model,
                                               type(scheduler).__name__, dict(options or {}), task_ids)
        elif isinstance(scheduler, str):
            self._h = _core.Harness(scheduler, dict(params or {}), dict(options or {}), task_ids)
        else:
            raise ValueError(f"Harness: scheduler must be a registered scheduler's name or a schedlab.Scheduler "
                             f"(MapReduce engine) instance, not {type(scheduler).__name__}")
        self._h.hold_jobs(bool(hold_jobs))
        self._trackers: list[str] = []
        self._init_fails: set[str] = set()  # jobs whose initialization fails, not yet failed

    # ---- the cluster ----
    def add_tracker(self, name: str, rack: str = "default-rack", map_slots: int = 2, reduce_slots: int = 2,
                    host: str | None = None) -> None:
        """Adds TaskTracker ``name`` (on host ``host``, default its name) on rack ``rack``."""
        self._h.add_tracker(name, rack, int(map_slots), int(reduce_slots), host or "")
        self._trackers.append(name)

    def add_racks(self, racks: int, trackers_per_rack: int, map_slots: int = 2, reduce_slots: int = 2) -> list[str]:
        """Hadoop's test topology: trackers ``tt1``, ``tt2``, ... on hosts ``rackR.nodeN`` of racks
        ``rack1``, ``rack2``, ... (tracker ids run across racks). Returns the tracker names."""
        names = []
        n = len(self._trackers)
        for r in range(1, racks + 1):
            for k in range(1, trackers_per_rack + 1):
                n += 1
                self.add_tracker(f"tt{n}", rack=f"rack{r}", map_slots=map_slots, reduce_slots=reduce_slots,
                                 host=f"rack{r}.node{k}")
                names.append(f"tt{n}")
        return names

    @property
    def trackers(self) -> list[str]:
        return list(self._trackers)

    # ---- jobs ----
    def submit(self, maps: int = 0, reduces: int = 0, *, pool: str | None = None, queue: str | None = None,
               user: str = "user", priority: str = "NORMAL", map_hosts: Sequence[Iterable[str]] | None = None,
               weight: float = 1.0, map_memory: float = 0.0, reduce_memory: float = 0.0,
               deadline: float = math.nan, work: float = 1.0, state: str = "RUNNING",
               slowstart_maps: int | None = None, init_fails: bool = False) -> str:
        """Submits a job now and returns its name (``job_test_0001``, ...).

        ``pool`` (Fair Scheduler) or ``queue`` (Capacity Scheduler; the same column) names where it
        goes, ``"default"`` if neither is given. ``map_hosts`` gives each map's input hosts
        (tracker hosts; one entry per map); without it the maps carry no locality information
        and may run anywhere. ``priority`` is one of VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW.
        ``work`` is a task's work in seconds at speed 1 (what duration estimators read).
        ``state`` is Hadoop's job run state: a job that is not ``RUNNING`` (``PREP``,
        ``SUCCEEDED``, ``FAILED``, ``KILLED``) gets its name but is never handed to the scheduler.
        ``slowstart_maps`` is the number of completed maps this job's reduces wait for (Hadoop's
        ``completedMapsForReduceSlowstart``), instead of the ``slowstart`` option's share.
        ``map_memory``/``reduce_memory`` are MB per task (``capacity``'s high-memory jobs).
        Raises ValueError if the scheduler refuses the job (``capacity``'s submission limits with
        the job initializer); its name is taken all the same, as Hadoop's job ids are.
        ``init_fails``: the job's initialization fails (Hadoop's ``JobTracker.initJob`` failing,
        as ``initTasks`` throwing): once the scheduler's job initializer has initialized it (its
        report's per-job ``initialized``), the harness fails the job (:meth:`fail_job`) before it
        can run anything.
        """
        if pool is not None and queue is not None and pool != queue:
            raise ValueError("submit: give pool or queue, not both")
        if priority not in _PRIORITIES:
            raise ValueError(f"submit: priority must be one of {', '.join(_PRIORITIES)}, not {priority!r}")
        hosts = [list(h) for h in map_hosts] if map_hosts is not None else []
        name = self._h.submit(int(maps), int(reduces), hosts, pool or queue or "", user, priority, float(weight),
                              float(map_memory), float(reduce_memory), float(deadline), float(work), state,
                              -1 if slowstart_maps is None else int(slowstart_maps))
        if init_fails:
            self._init_fails.add(name)
        return name

    def _fail_initializations(self) -> None:
        """Fails the jobs whose initialization fails, once the job initializer has initialized them."""
        if not self._init_fails:
            return
        initialized = self._h.report()["job"].get("initialized", [])
        for name in sorted(self._init_fails):
            j = self._h.job_id(name)
            if j < len(initialized) and initialized[j]:
                self._init_fails.discard(name)
                self._h.end_job(name, "FAILED", False)

    def set_priority(self, job: str, priority: str) -> None:
        """Changes a job's priority now (Hadoop's ``JobInProgress.setPriority``): before its first
        heartbeat since submission as if given at submission, later as a change the scheduler
        hears of (``fifo``, ``fair`` and ``capacity`` re-sort their jobs)."""
        self._h.set_priority(job, priority)

    # ---- time ----
    @property
    def now(self) -> float:
        """The clock, in seconds."""
        return self._h.now

    def advance(self, seconds: float) -> None:
        """Moves the clock forward; the scheduler's timers due meanwhile fire."""
        if not seconds >= 0:
            raise ValueError(f"the clock cannot move backwards (advance by {seconds} s)")
        self._h.set_time(self._h.now + float(seconds))
        self._fail_initializations()

    def set_time(self, t: float) -> None:
        self._h.set_time(float(t))
        self._fail_initializations()

    # ---- heartbeats and attempts ----
    def heartbeat(self, tracker: str) -> list[Assignment]:
        """Tracker ``tracker`` heartbeats now: the tasks assigned to it, in order."""
        return [Assignment(*row) for row in self._h.heartbeat(tracker)]

    def finish(self, attempt: str) -> None:
        """The attempt succeeds now."""
        self._h.finish(attempt)

    def fail(self, attempt: str) -> None:
        """The attempt fails now (its task is pending again, unless another attempt runs)."""
        self._h.fail(attempt)

    def kill(self, attempt: str) -> None:
        """The attempt is killed now."""
        self._h.kill(attempt)

    def set_progress(self, attempt: str, progress: float) -> None:
        """Sets a running attempt's progress score (in [0, 1]), as its tracker would report it."""
        self._h.set_progress(attempt, float(progress))

    def act(self, action: str) -> None:
        """Runs one of the scheduler's periodic actions now, as Hadoop's tests call them by hand
        (``fair``: ``"update"`` recomputes shares and starvation times, ``"preempt"`` runs the
        preemption check whatever the time since the last one)."""
        self._h.act(action)
        self._fail_initializations()

    def set_pool(self, job: str, pool: str) -> None:
        """Moves a running job to another pool now (Hadoop's ``PoolManager.setPool``; ``fair``)."""
        self._h.set_pool(job, pool)

    def kill_job(self, job: str, keep_attempts: bool = False) -> None:
        """Kills a running job now (Hadoop's ``JobTracker.killJob``, ``JobInProgress.kill``): its
        pending tasks are dropped and the scheduler hears it has ended. Its running attempts are
        killed; with ``keep_attempts`` they hold their slots on their trackers until
        :meth:`finish` or :meth:`kill` (the tracker has not reported them yet)."""
        self._h.end_job(job, "KILLED", bool(keep_attempts))

    def fail_job(self, job: str, keep_attempts: bool = False) -> None:
        """Fails a running job now (``finalizeJob(job, FAILED)`` of Hadoop's tests), as :meth:`kill_job`."""
        self._h.end_job(job, "FAILED", bool(keep_attempts))

    def finalize_job(self, job: str) -> None:
        """With ``hold_jobs``: the job, whose tasks have all succeeded, completes now (Hadoop's
        ``finalizeJob(job)``)."""
        self._h.finalize_job(job)

    # ---- state ----
    def attempt_status(self, attempt: str) -> str:
        """``running``, ``succeeded``, ``killed`` or ``failed``."""
        return self._h.attempt_status(attempt)

    def running_attempts(self, tracker: str) -> list[str]:
        return list(self._h.running_attempts(tracker))

    def assignments(self) -> list[str]:
        """Every assignment so far, in order."""
        return list(self._h.assignments())

    def job_state(self, job: str) -> dict:
        """The engine's counts of the job (``pending``, ``running``, ``done``, ``running_attempts``:
        (maps, reduces) pairs) and the scheduler's per-job values (e.g. ``map_fair_share``)."""
        d = dict(self._h.job_state(job))
        j = self._h.job_id(job)
        for name, values in self._h.report()["job"].items():
            if j < len(values):
                d[name] = values[j]
        return d

    def pool_state(self, pool: str) -> dict:
        """The scheduler's per-pool (per-queue) values, e.g. ``map_fair_share``, ``map_min_share``,
        ``map_running``, ``map_demand``."""
        p = self._h.pool_id(pool)
        return {name: values[p] for name, values in self._h.report()["pool"].items() if p < len(values)}

    def user_state(self, user: str) -> dict:
        """The scheduler's per-user values (``fair``: ``max_running_jobs``)."""
        u = self._h.user_id(user)
        return {name: values[u] for name, values in self._h.report()["user"].items() if u < len(values)}

    def tracker_state(self, tracker: str) -> dict:
        """The per-node values of the scheduler and speculator (``hadoop`` speculator:
        ``map_slow_tracker``, ``reduce_slow_tracker``, for some active job)."""
        n = self._h.tracker_id(tracker)
        return {name: values[n] for name, values in self._h.report()["node"].items() if n < len(values)}

    def scheduler_state(self) -> dict:
        """The scheduler's whole report: ``{"pool": {name: [per pool id]}, "job": {...}, "scalar": {...}}``."""
        return self._h.report()

    def pools(self) -> list[str]:
        """Pool (queue) names by id."""
        return list(self._h.pools())

    def result(self):
        """The run so far as a :class:`schedlab.Result`-style dict of columns."""
        return self._h.result()
