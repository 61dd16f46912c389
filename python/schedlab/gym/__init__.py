"""Gymnasium environments over schedlab's engines (the optional extra ``schedlab[gym]``).

>>> import gymnasium as gym
>>> import schedlab.gym
>>> env = gym.make("schedlab/MapReduce-v0", jobs=20)
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.n - 1)   # leave the slot idle

:class:`MapReduceEnv`: a free map slot on a heartbeat -> choose one of the shown jobs, or leave
the slot idle. :class:`WorkerEnv` (``schedlab/Worker-v0``): on the worker engine, a job arrives ->
choose the worker of each of its probes (``decision="send_probes"``), or a free worker -> choose
which queued probe it serves (``decision="pick_probe"``). The engines pause at each decision and
resume on ``step`` (their stepping mode: the C++ event loop returns at a decision point; no thread
waits). See ``docs/gym.md``.
"""
from __future__ import annotations

try:
    import gymnasium
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError("schedlab.gym needs Gymnasium: pip install 'schedlab[gym]'") from e

from .mapreduce import JOB_FEATURES, NODE_FEATURES, MapReduceEnv, fifo_action, random_action
from .worker import WorkerEnv

__all__ = ["MapReduceEnv", "WorkerEnv", "JOB_FEATURES", "NODE_FEATURES", "fifo_action", "random_action"]

if "schedlab/MapReduce-v0" not in gymnasium.registry:
    gymnasium.register(id="schedlab/MapReduce-v0", entry_point="schedlab.gym.mapreduce:MapReduceEnv")
if "schedlab/Worker-v0" not in gymnasium.registry:
    gymnasium.register(id="schedlab/Worker-v0", entry_point="schedlab.gym.worker:WorkerEnv")
