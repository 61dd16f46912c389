"""The worker engine (Sparrow, Hawk, Eagle, Dice, Eirene) as a Gymnasium environment, with one of
the two decisions of the worker-engine scheduler interface (:class:`schedlab.schedulers.WorkerScheduler`):

* ``decision="send_probes"``: a job arrives -> the agent chooses, probe by probe, the worker each
  of the job's probes goes to (one probe per task by default: central placement). Queues are FIFO
  and tasks late-bound (the engine's defaults).
* ``decision="pick_probe"``: a free worker holds two or more queued probes -> the agent chooses
  which one it serves (queue discipline). Probes are placed by Sparrow's batch sampling, drawn as
  the built-in ``sparrow`` draws them: always choosing the queue's head gives sparrow's schedule.

The engine runs in C++ (``schedlab._core.WorkerGym``) and pauses at each decision; ``step`` resumes
it. See ``docs/gym.md``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from gymnasium import spaces

from .. import _core
from ..core.cluster import Cluster
from ..core.workload import Workload
from ._episode import REWARDS, EngineEnv

DECISIONS = ("send_probes", "pick_probe")
#: send_probes: ``obs["job"]``, the arriving job whose probes are being placed
JOB_FEATURES = ("tasks", "est_task_duration", "is_long", "probes_left", "probes", "deadline_slack", "has_deadline",
                "time", "active_jobs", "busy_workers")
#: send_probes: ``obs["workers"]``, one row per shown worker
WORKER_FEATURES = ("present", "queue_length", "queued_work", "busy", "running_left", "long_work", "placed")
#: pick_probe: ``obs["worker"]``, the free worker whose queue is being served
FREE_WORKER_FEATURES = ("queue_length", "queued_work", "hidden_probes", "time", "active_jobs", "busy_workers")
#: pick_probe: ``obs["probes"]``, one row per shown probe (queue order)
PROBE_FEATURES = ("present", "waiting_time", "unlaunched", "tasks", "running", "est_task_duration", "is_long",
                  "remaining_work", "deadline_slack", "has_deadline")


def default_workload(jobs: int = 40, rate: float = 0.5):
    """``seed -> Workload``: ``jobs`` single-stage jobs arriving at ``rate`` per second, 1 to 20
    tasks of exponential work (mean 10 s), one job in ten of 20 to 60 tasks of lognormal work
    (median ~110 s, long for the engine's default cutoff)."""
    from ..workloads import synthetic

    def make(seed, jobs=jobs, rate=rate):
        rng = np.random.default_rng(seed)
        big = rng.random(jobs) < 0.1
        tasks = np.where(big, rng.integers(20, 61, jobs), rng.integers(1, 21, jobs))
        n = int(tasks.sum())
        work = np.where(np.repeat(big, tasks), rng.lognormal(4.7, 0.3, n), rng.exponential(10.0, n))
        return synthetic.generate(jobs=jobs, rate=rate, seed=seed, maps=lambda r, k: tasks.astype(float),
                                  reduces=0, map_work=lambda r, k: work, name="worker-gym")
    return make


class WorkerEnv(EngineEnv):
    """The worker engine paused at a placement (``decision="send_probes"``) or queue
    (``decision="pick_probe"``) decision.

    Parameters
    ----------
    cluster : the :class:`~schedlab.Cluster` (default: 10 nodes of 2 slots, 20 workers).
    workload : a fixed :class:`~schedlab.Workload` of single-stage jobs, or a function ``seed ->
        Workload`` drawing one for each episode (default: :func:`default_workload`).
        ``reset(seed=s)`` gives the same episode for the same ``s``.
    decision : ``"send_probes"`` or ``"pick_probe"`` (see the module docstring).
    max_rows : rows of ``obs["workers"]`` / ``obs["probes"]``; the action space is
        ``Discrete(max_rows)``: the row chosen. send_probes shows every worker when the cluster has
        at most ``max_rows``, else ``max_rows`` distinct workers drawn uniformly for each probe.
    probe_ratio, min_probes : a job of n tasks has max(ceil(probe_ratio x n), min_probes) probes
        (defaults: 1 and 1 for send_probes, one probe per task; Sparrow's 2 and 2 for pick_probe).
    reward, reward_scale, max_time : as in :class:`~schedlab.gym.MapReduceEnv` (``"flowtime"``,
        ``"slowdown"`` — each job weighted by 1 / its longest task —, ``"late"``).
    options : other worker-engine options (``network_delay``, ``cutoff``, ``truncate``, ...).

    A masked action (an empty row) sends the probe to a uniformly drawn worker (send_probes) or
    serves the queue's head (pick_probe). :attr:`shown` gives each row's worker or probe id,
    :attr:`subject` the job being placed or the free worker.
    """

    engine = "worker"

    metadata = {"render_modes": []}

    def __init__(self, cluster: Cluster | None = None, workload: Workload | Callable | None = None, *,
                 decision: str = "send_probes", max_rows: int = 16, probe_ratio: float | None = None,
                 min_probes: int | None = None, jobs: int = 40, rate: float = 0.5, reward: str = "flowtime",
                 reward_scale: float = 1.0, max_time: float | None = None, options: dict | None = None):
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, got {decision!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
            raise ValueError(f"max_rows must be a whole number >= 1, got {max_rows!r}")
        self.cluster = cluster if cluster is not None else Cluster(nodes=10, racks=1, slots=2)
        if workload is None:
            workload = default_workload(jobs, rate)
        self._workload_fn = workload if callable(workload) and not isinstance(workload, Workload) else None
        self._fixed = workload if isinstance(workload, Workload) else None
        self.decision = decision
        self.max_rows = int(max_rows)
        sparrow = decision == "pick_probe"
        self.probe_ratio = float(probe_ratio if probe_ratio is not None else (2.0 if sparrow else 1.0))
        self.min_probes = int(min_probes if min_probes is not None else (2 if sparrow else 1))
        self.reward_kind = reward
        self.reward_scale = float(reward_scale)
        self.max_time = max_time
        self.options = dict(options or {})
        K = self.max_rows
        self.action_space = spaces.Discrete(K)
        if decision == "send_probes":
            self._keys = ("job", "workers")
            ctx, rows = JOB_FEATURES, WORKER_FEATURES
        else:
            self._keys = ("worker", "probes")
            ctx, rows = FREE_WORKER_FEATURES, PROBE_FEATURES
        self.observation_space = spaces.Dict({
            self._keys[0]: spaces.Box(-np.inf, np.inf, (len(ctx),), np.float32),
            self._keys[1]: spaces.Box(-np.inf, np.inf, (K, len(rows)), np.float32),
            "action_mask": spaces.MultiBinary(K),
        })
        self._start()

    def _make_engine(self, workload):
        return _core.WorkerGym(self.cluster.native(), workload.native(), self._engine_options(), self.decision,
                               self.max_rows, self.reward_kind, self.probe_ratio, self.min_probes)

    @property
    def shown(self) -> list:
        """The worker id (send_probes) or probe id (pick_probe) of each row, -1 if empty."""
        return self._engine.shown()

    @property
    def subject(self) -> int:
        """The job whose probes are being placed (send_probes) or the free worker (pick_probe)."""
        return self._engine.subject



def head_action(obs) -> int:
    """Row 0: the first shown worker (send_probes) or the queue's head, FIFO (pick_probe)."""
    return 0


def random_row(obs, rng: np.random.Generator) -> int:
    """A uniformly random shown row."""
    valid = np.flatnonzero(obs["action_mask"])
    return int(rng.choice(valid)) if len(valid) else 0


def least_loaded_action(obs) -> int:
    """send_probes: the shown worker with the least estimated work ahead of a new probe (its
    running task's estimated time left plus its queued work plus the probes of this job already
    placed there times the job's task estimate; fewest queued probes on a tie) — the least-
    waiting-time placement Hawk uses for long jobs."""
    w = obs["workers"]
    est = float(obs["job"][1])
    load = w[:, 4] + w[:, 2] + w[:, 6] * max(est, 1e-3)
    load = np.where(obs["action_mask"] == 1, load, np.inf)
    return int(np.lexsort((w[:, 1], load))[0])


def shortest_job_action(obs) -> int:
    """pick_probe: the shown probe whose job has the least remaining estimated work, skipping
    probes whose job has no task left to launch (they would get a no-op reply) — the SRPT order
    of Eagle's queues, without its starvation cap."""
    p = obs["probes"]
    live = (obs["action_mask"] == 1) & (p[:, 2] > 0)
    if not live.any():
        return 0
    key = np.where(live, p[:, 7], np.inf)
    return int(np.argmin(key))


__all__ = ["WorkerEnv", "DECISIONS", "JOB_FEATURES", "WORKER_FEATURES", "FREE_WORKER_FEATURES", "PROBE_FEATURES",
           "default_workload", "head_action", "random_row", "least_loaded_action", "shortest_job_action"]
