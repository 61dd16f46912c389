"""What the Gymnasium environments over the engines share: the episode loop around a C++ engine
that pauses at each decision (reset draws the episode's workload and seed, step resumes the
engine), the episode's result, and the engine options."""
from __future__ import annotations

import gymnasium

from ..core.workload import Workload

REWARDS = ("flowtime", "slowdown", "late")


class _EpisodeScheduler:
    """Stands for the agent in a :class:`schedlab.Result` of an episode."""

    def __init__(self, label, engine="mapreduce"):
        self.label = self.name = label
        self.engine = engine

    def resolved(self):
        return {}


class EngineEnv(gymnasium.Env):
    """Base of the environments: a subclass sets ``engine`` (the engine's name in results),
    ``default_options`` and builds its C++ environment in ``_make_engine(workload)``; its
    constructor sets ``cluster``, ``options``, ``max_time``, ``reward_scale``, ``_fixed`` (a
    workload used by every episode, or None) and ``_workload_fn`` (seed -> workload)."""

    engine = "mapreduce"
    default_options: dict = {}

    def _start(self):
        self._engine = None
        self._workload = None
        self._result = None
        self._seed = 0

    def _make_engine(self, workload: Workload):
        raise NotImplementedError

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(2**31))
        workload = self._fixed if self._fixed is not None else self._workload_fn(episode_seed)
        if workload is not self._workload:  # (the same workload keeps its engine: cheaper resets)
            self._workload = workload
            self._engine = self._make_engine(workload)
        self._seed = episode_seed
        self._result = None
        self._engine.reset(episode_seed)
        return self._engine.observation(), {"time": self._engine.now}

    def step(self, action):
        if self._engine is None:
            raise ValueError("call reset() before step()")
        return self._engine.step_observe(int(action), self.reward_scale)

    @property
    def workload(self) -> Workload | None:
        """The current episode's workload."""
        return self._workload

    def result(self):
        """The finished episode's :class:`~schedlab.Result` (jobs and tasks tables, summary); a
        ValueError while the episode is still running."""
        if self._result is None:
            from ..core.simulate import Result
            self._result = Result(self._engine.result(), self.cluster, self._workload,
                                  _EpisodeScheduler("agent", self.engine), self._seed,
                                  self._engine_options() | {"time_limit": self._engine.time_limit}, 0.0)
        return self._result

    def _engine_options(self):
        """The engine options; without ``max_time`` or a ``time_limit`` option the engine sets the
        time limit (the last arrival + 100 x the total work / the slots + 1000 s)."""
        opts = dict(self.default_options) | self.options
        if "time_limit" not in opts and self.max_time is not None:
            opts["time_limit"] = float(self.max_time)
        return opts
