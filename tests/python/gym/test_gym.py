"""schedlab.gym: the MapReduce engine as a Gymnasium environment (paused at each map-slot decision)."""
import numpy as np
import pandas as pd
import pytest

gymnasium = pytest.importorskip("gymnasium")

import schedlab as sl  # noqa: E402
import schedlab.gym  # noqa: E402
from schedlab.gym import JOB_FEATURES, NODE_FEATURES, MapReduceEnv, fifo_action, random_action  # noqa: E402

from conftest import assert_slot_invariants  # noqa: E402


def small_env(**kw):
    cluster = sl.Cluster(nodes=4, racks=2, map_slots=2, reduce_slots=1)
    return MapReduceEnv(cluster, lambda seed: sl.synthetic.generate(
        jobs=8, rate=0.1, seed=seed, maps=("randint", 1, 8), reduces=("randint", 0, 2),
        deadline_factor=("uniform", 0.1, 0.6)), max_jobs=4, **kw)


def run_episode(env, policy, seed):
    obs, info = env.reset(seed=seed)
    rewards, observations = [], [obs]
    while True:
        obs, r, terminated, truncated, info = env.step(policy(obs))
        rewards.append(r)
        observations.append(obs)
        if terminated or truncated:
            return rewards, observations, {"result": env.result(), **info}, terminated


def test_env_checker_passes():
    from gymnasium.utils.env_checker import check_env
    env = small_env()
    check_env(env, skip_render_check=True)
    assert env.observation_space["jobs"].shape == (4, len(JOB_FEATURES))
    assert env.observation_space["node"].shape == (len(NODE_FEATURES),)
    assert env.action_space.n == 5


def test_flowtime_rewards_add_up_to_the_total_job_time_and_the_schedule_is_valid():
    env = small_env()
    rewards, observations, info, terminated = run_episode(env, fifo_action, seed=3)
    assert terminated
    r = info["result"]
    jobs = r.jobs
    assert jobs["finish_time"].notna().all()
    total = float((jobs["finish_time"] - jobs["submit_time"]).sum())
    assert sum(rewards) == pytest.approx(-total, rel=1e-9)
    assert_slot_invariants(r)
    ok = r.tasks[r.tasks["status"] == "succeeded"]["task_id"].value_counts()
    assert len(ok) == r.workload.n_tasks and (ok == 1).all()
    for obs in observations[:-1]:  # a decision shows a free slot and at least one job
        assert obs["action_mask"][-1] == 1 and obs["action_mask"][:-1].sum() >= 1
        assert obs["node"][0] >= 1
        shown = obs["action_mask"][:-1].astype(bool)
        assert (obs["jobs"][shown, 0] == 1).all() and (obs["jobs"][~shown] == 0).all()
        assert (obs["jobs"][shown, 2] >= 1).all()  # pending maps


def test_reset_with_a_seed_is_deterministic_and_seeds_differ():
    a, b = small_env(), small_env()
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    ra, oa, _, _ = run_episode(a, lambda o: random_action(o, rng_a), seed=11)
    rb, ob, _, _ = run_episode(b, lambda o: random_action(o, rng_b), seed=11)
    assert ra == rb
    for x, y in zip(oa, ob):
        for k in x:
            np.testing.assert_array_equal(x[k], y[k])
    pd.testing.assert_frame_equal(a.result().tasks, b.result().tasks)
    rc, _, _, _ = run_episode(a, fifo_action, seed=12)
    assert a.result().jobs["submit_time"].tolist() != b.result().jobs["submit_time"].tolist()


def test_slowdown_and_late_rewards():
    env = small_env(reward="slowdown")
    rewards, _, info, _ = run_episode(env, fifo_action, seed=5)
    r = info["result"]
    tasks = r.workload.tasks
    ideal = (tasks[tasks["stage"] == "map"].groupby("job_id")["work"].max()
             .add(tasks[tasks["stage"] == "reduce"].groupby("job_id")["work"].max(), fill_value=0))
    jobs = r.jobs.set_index("job_id")
    slowdown = ((jobs["finish_time"] - jobs["submit_time"]) / ideal.reindex(jobs.index)).sum()
    assert sum(rewards) == pytest.approx(-slowdown, rel=1e-9)
    env = small_env(reward="late")
    rewards, _, info, _ = run_episode(env, fifo_action, seed=5)
    jobs = info["result"].jobs
    late = int((jobs["finish_time"] > jobs["deadline"] + 1e-9).sum())
    assert late > 0 and sum(rewards) == -late


def test_idle_and_masked_actions_leave_the_slot_idle_and_a_patient_agent_is_truncated():
    env = small_env(max_time=300.0)
    obs, _ = env.reset(seed=1)
    t0, steps = env.unwrapped._engine.now, 0
    while True:  # always idle: nothing ever runs
        obs, r, terminated, truncated, info = env.step(env.action_space.n - 1)
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and steps > 10
    assert len(env.result().tasks) == 0 and info["time"] == pytest.approx(300.0)
    # a masked job row acts as idle: choosing one at every step runs nothing either
    obs, _ = env.reset(seed=1)
    masked_steps = 0
    while True:
        masked = np.flatnonzero(obs["action_mask"][:-1] == 0)
        masked_steps += len(masked) > 0
        obs, r, terminated, truncated, info = env.step(int(masked[0]) if len(masked) else env.action_space.n - 1)
        if terminated or truncated:
            break
    assert masked_steps > 0 and truncated and len(env.result().tasks) == 0


def test_vectorized_environments():
    gymnasium.register_envs(schedlab.gym) if hasattr(gymnasium, "register_envs") else None
    venv = gymnasium.make_vec("schedlab/MapReduce-v0", num_envs=3, vectorization_mode="sync", jobs=5, max_jobs=3)
    obs, _ = venv.reset(seed=0)
    assert obs["jobs"].shape == (3, 3, len(JOB_FEATURES))
    done = 0
    for _ in range(400):
        obs, r, terminated, truncated, _ = venv.step(np.zeros(3, dtype=np.int64))
        assert r.shape == (3,)
        done += int(np.sum(terminated | truncated))
    assert done >= 3
    venv.close()


def test_bad_arguments():
    with pytest.raises(ValueError, match="reward"):
        MapReduceEnv(reward="speed")
    with pytest.raises(ValueError, match="max_jobs"):
        MapReduceEnv(max_jobs=0)
    env = small_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(99)


def test_policy_gradient_beats_the_random_agent():
    from schedlab.gym import agents
    cluster = sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=1)
    env = MapReduceEnv(cluster, lambda seed: sl.synthetic.generate(
        jobs=30, rate=0.08, seed=seed, maps=("lognormal", 1.5, 1.2), reduces=("randint", 0, 2),
        map_work=("exponential", 20.0)), max_jobs=8, reward_scale=1e-3)
    policy, curve = agents.train(env, iterations=3, episodes=4, lr=0.05, seed=0)
    assert list(curve["iteration"]) == [0, 1, 2]
    seeds = range(6)
    trained = agents.evaluate(env, policy, seeds).mean()
    random = agents.evaluate(env, agents.random_agent(0), seeds).mean()
    heuristic = agents.evaluate(env, agents.heuristic_agent, seeds).mean()
    assert trained < 0.95 * random
    assert heuristic < random


def test_result_is_refused_while_the_episode_runs():
    # the engine hands its columns over to the result, so a result taken mid-episode would leave
    # the rest of the episode without them
    env = small_env()
    obs, _ = env.reset(seed=3)
    obs, *_ = env.step(fifo_action(obs))
    with pytest.raises(ValueError, match="still running"):
        env.result()
    rewards, _, info, _ = run_episode(env, fifo_action, 3)
    assert info["result"].jobs["finish_time"].notna().all()
