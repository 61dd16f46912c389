"""The MapReduce engine as a Gymnasium environment: at each heartbeat that leaves a free map slot
on its node while some job has a pending map, the agent chooses which job gets the slot (a map of
that job is launched there, node-local first, then rack-local, then any), or leaves it idle until
the node's next heartbeat. Reduces are assigned by the environment, in job submission order once a
job's slowstart is met (Hadoop's FIFO rule). The engine runs in C++ (``schedlab._core.MapReduceGym``)
and pauses at each decision; ``step`` resumes it.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from gymnasium import spaces

from .. import _core
from ..core.cluster import Cluster
from ..core.workload import Workload
from ._episode import REWARDS, EngineEnv

#: columns of ``obs["jobs"]`` (one row per shown job, zeros for an empty row)
JOB_FEATURES = ("present", "waiting_time", "pending_maps", "running_maps", "done_maps", "maps", "mean_map_work",
                "node_local_map", "deadline_slack", "has_deadline")
#: entries of ``obs["node"]`` (the node whose free slot is being decided)
NODE_FEATURES = ("free_map_slots", "map_slots", "free_reduce_slots", "speed", "time", "active_jobs", "hidden_jobs")
class MapReduceEnv(EngineEnv):
    """A free map slot on a heartbeat -> choose a job, or leave the slot idle.

    Parameters
    ----------
    cluster : the :class:`~schedlab.Cluster` (default: 10 nodes on 2 racks, 2 map and 1 reduce
        slot each).
    workload : a fixed :class:`~schedlab.Workload`, or a function ``seed -> Workload`` drawing a new
        workload for each episode (default: :func:`schedlab.synthetic.generate` with ``jobs``
        jobs at ``rate`` per second). ``reset(seed=s)`` gives the same episode for the same ``s``.
    max_jobs : jobs shown (the oldest with a pending map); the action space is
        ``Discrete(max_jobs + 1)``, the last action leaving the slot idle.
    reward : ``"flowtime"`` (minus active jobs x elapsed seconds between decisions: an episode's
        rewards add up to minus the total job time), ``"slowdown"`` (the same, each job weighted by
        1 / its ideal duration: the total slowdown), ``"late"`` (minus the jobs finishing after
        their deadline).
    reward_scale : rewards are multiplied by it.
    max_time : the episode is truncated at this simulated time (default: last arrival + 100 x the
        total work / the map slots, bounding an agent that keeps slots idle).
    options : other engine options (``heartbeat_interval``, ``slowstart``, ...).

    Observation: a dict of ``jobs`` (``max_jobs x len(JOB_FEATURES)``, float32), ``node``
    (``len(NODE_FEATURES)``, float32) and ``action_mask`` (int8, 1 = the action is valid; the
    idle action always is). A masked action leaves the slot idle. ``info`` holds ``time``;
    :meth:`result` gives the episode's :class:`~schedlab.Result` (until the next ``reset``).
    """

    engine = "mapreduce"
    default_options = {"stall_limit": 0.0}  # an agent may idle for long: no stall check

    metadata = {"render_modes": []}

    def __init__(self, cluster: Cluster | None = None, workload: Workload | Callable | None = None, *,
                 jobs: int = 30, rate: float = 0.1, max_jobs: int = 8, reward: str = "flowtime",
                 reward_scale: float = 1.0, max_time: float | None = None, options: dict | None = None):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if isinstance(max_jobs, bool) or not isinstance(max_jobs, (int, np.integer)) or max_jobs < 1:
            raise ValueError(f"max_jobs must be a whole number >= 1, got {max_jobs!r}")
        self.cluster = cluster if cluster is not None else Cluster(nodes=10, racks=2, map_slots=2, reduce_slots=1)
        if workload is None:
            from ..workloads import synthetic
            workload = (lambda seed, jobs=jobs, rate=rate: synthetic.generate(
                jobs=jobs, rate=rate, seed=seed, maps=("randint", 1, 20), reduces=("randint", 0, 3)))
        self._workload_fn = workload if callable(workload) and not isinstance(workload, Workload) else None
        self._fixed = workload if isinstance(workload, Workload) else None
        self.max_jobs = int(max_jobs)
        self.reward_kind = reward
        self.reward_scale = float(reward_scale)
        self.max_time = max_time
        self.options = dict(options or {})
        self.action_space = spaces.Discrete(self.max_jobs + 1)
        self.observation_space = spaces.Dict({
            "jobs": spaces.Box(-np.inf, np.inf, (self.max_jobs, len(JOB_FEATURES)), np.float32),
            "node": spaces.Box(-np.inf, np.inf, (len(NODE_FEATURES),), np.float32),
            "action_mask": spaces.MultiBinary(self.max_jobs + 1),
        })
        self._start()

    def _make_engine(self, workload):
        return _core.MapReduceGym(self.cluster.native(), workload.native(), self._engine_options(),
                                  self.max_jobs, self.reward_kind)

    # ------------------------------------------------------------------ helpers
    @property
    def visible_jobs(self) -> list:
        """The job id (dense, in the workload's order) of each row of ``obs["jobs"]``, -1 if empty."""
        return self._engine.visible()


def random_action(obs, rng: np.random.Generator) -> int:
    """A uniformly random valid action (the idle action only when no job is shown)."""
    valid = np.flatnonzero(obs["action_mask"][:-1])
    return int(rng.choice(valid)) if len(valid) else len(obs["action_mask"]) - 1


def fifo_action(obs) -> int:
    """The oldest shown job (the rows are in submission order): Hadoop's FIFO choice."""
    valid = np.flatnonzero(obs["action_mask"][:-1])
    return int(valid[0]) if len(valid) else len(obs["action_mask"]) - 1
