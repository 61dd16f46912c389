"""schedlab.gym.WorkerEnv: the worker engine as a Gymnasium environment (paused at each placement or
queue decision)."""
import numpy as np
import pandas as pd
import pytest

gymnasium = pytest.importorskip("gymnasium")

import schedlab as sl  # noqa: E402
import schedlab.gym  # noqa: E402
from schedlab.gym import worker as gw  # noqa: E402
from schedlab.gym.worker import WorkerEnv  # noqa: E402


def workload(seed, jobs=25, rate=0.8, deadlines=False):
    return sl.synthetic.generate(jobs=jobs, rate=rate, seed=seed, maps=("randint", 1, 8), reduces=0,
                                 map_work=("exponential", 8.0),
                                 deadline_factor=("uniform", 0.3, 1.0) if deadlines else None)


def small_env(decision="send_probes", nodes=4, **kw):
    return WorkerEnv(sl.Cluster(nodes=nodes, slots=2), lambda seed: workload(seed, deadlines=True),
                     decision=decision, max_rows=kw.pop("max_rows", 8), **kw)


def run_episode(env, policy, seed):
    obs, info = env.reset(seed=seed)
    rewards, observations = [], [obs]
    while True:
        obs, r, terminated, truncated, info = env.step(policy(obs))
        rewards.append(r)
        observations.append(obs)
        if terminated or truncated:
            return rewards, observations, terminated


def check_schedule(result):
    """Every task succeeds once; a worker (node, slot) runs one attempt at a time."""
    tasks = result.tasks
    ok = tasks[tasks["status"] == "succeeded"]["task_id"].value_counts()
    assert len(ok) == result.workload.n_tasks and (ok == 1).all()
    for _, g in tasks.groupby(["node", "slot"]):
        g = g.sort_values("start")
        assert (g["start"].to_numpy()[1:] >= g["finish"].to_numpy()[:-1] - 1e-9).all()


@pytest.mark.parametrize("decision", gw.DECISIONS)
def test_env_checker_passes(decision):
    from gymnasium.utils.env_checker import check_env
    env = small_env(decision)
    check_env(env, skip_render_check=True)
    assert env.action_space.n == 8
    ctx, rows = (("job", "workers") if decision == "send_probes" else ("worker", "probes"))
    assert set(env.observation_space.spaces) == {ctx, rows, "action_mask"}
    assert env.observation_space[rows].shape[0] == 8


def test_pick_probe_always_choosing_the_head_gives_sparrows_schedule():
    cluster = sl.Cluster(nodes=3, slots=2)
    wl = workload(4, jobs=40, rate=1.5)
    env = WorkerEnv(cluster, wl, decision="pick_probe", max_rows=4)
    rewards, observations, terminated = run_episode(env, gw.head_action, seed=2)
    assert terminated and len(rewards) > 50  # queues of two or more probes were served
    for obs in observations[:-1]:
        assert obs["action_mask"][:2].all() and obs["worker"][0] >= 2
    ours = env.result()
    ref = sl.simulate(cluster, wl, "sparrow", seed=env._seed)
    pd.testing.assert_frame_equal(ours.tasks, ref.tasks)
    pd.testing.assert_frame_equal(ours.jobs, ref.jobs)
    # another choice gives another schedule
    run_episode(env, gw.shortest_job_action, seed=2)
    assert not env.result().tasks["start"].equals(ref.tasks["start"])
    check_schedule(env.result())


@pytest.mark.parametrize("decision", gw.DECISIONS)
def test_flowtime_rewards_add_up_to_the_total_job_time(decision):
    env = small_env(decision)
    rng = np.random.default_rng(0)
    rewards, observations, terminated = run_episode(env, lambda o: gw.random_row(o, rng), seed=3)
    assert terminated
    r = env.result()
    jobs = r.jobs
    assert jobs["finish_time"].notna().all()
    assert sum(rewards) == pytest.approx(-float((jobs["finish_time"] - jobs["submit_time"]).sum()), rel=1e-9)
    check_schedule(r)
    rows = "workers" if decision == "send_probes" else "probes"
    for obs in observations[:-1]:
        shown = obs["action_mask"].astype(bool)
        assert shown.any() and (obs[rows][shown, 0] == 1).all() and (obs[rows][~shown] == 0).all()


def test_send_probes_places_one_probe_per_task_where_the_agent_says():
    env = small_env("send_probes", nodes=3, max_rows=6)  # 6 workers: all shown
    obs, _ = env.reset(seed=5)
    job = env.subject
    assert env.shown == list(range(6))
    n = int(obs["job"][gw.JOB_FEATURES.index("tasks")])
    assert obs["job"][gw.JOB_FEATURES.index("probes")] == n
    for k in range(n):  # all on worker 4
        assert obs["job"][gw.JOB_FEATURES.index("probes_left")] == n - k
        assert obs["workers"][4, gw.WORKER_FEATURES.index("placed")] == k
        obs, *_ = env.step(4)
    assert env.subject != job
    while True:
        _, _, terminated, truncated, _ = env.step(0)
        if terminated or truncated:
            break
    tasks = env.result().tasks
    first = tasks[tasks["job_id"] == env.workload.job_ids[job]]
    assert len(first) == n and set(first["node"]) == {2} and set(first["slot"]) == {0}


def test_send_probes_on_a_cluster_larger_than_the_rows_shows_distinct_sampled_workers():
    env = WorkerEnv(sl.Cluster(nodes=50, slots=2), lambda s: workload(s), max_rows=8)
    env.reset(seed=1)
    seen = set()
    for _ in range(30):
        shown = env.shown
        assert len(set(shown)) == 8 and shown == sorted(shown) and all(0 <= w < 100 for w in shown)
        seen.update(shown)
        env.step(gw.least_loaded_action(env._engine.observation()))
    assert len(seen) > 40


def test_reset_with_a_seed_is_deterministic():
    for decision in gw.DECISIONS:
        a, b = small_env(decision), small_env(decision)
        ra, oa, _ = run_episode(a, gw.head_action, seed=11)
        rb, ob, _ = run_episode(b, gw.head_action, seed=11)
        assert ra == rb
        for x, y in zip(oa, ob):
            for k in x:
                np.testing.assert_array_equal(x[k], y[k])
        pd.testing.assert_frame_equal(a.result().tasks, b.result().tasks)
        run_episode(a, gw.head_action, seed=12)
        assert a.result().jobs["submit_time"].tolist() != b.result().jobs["submit_time"].tolist()


def test_slowdown_and_late_rewards():
    env = small_env(reward="slowdown")
    rewards, _, _ = run_episode(env, gw.least_loaded_action, seed=5)
    r = env.result()
    ideal = np.trunc(r.workload.tasks["work"]).groupby(r.workload.tasks["job_id"]).max()
    jobs = r.jobs.set_index("job_id")
    slowdown = ((jobs["finish_time"] - jobs["submit_time"]) / ideal.reindex(jobs.index).where(lambda x: x > 0, 1.0))
    assert sum(rewards) == pytest.approx(-slowdown.sum(), rel=1e-9)
    env = small_env(reward="late")
    rewards, _, _ = run_episode(env, gw.head_action, seed=5)
    jobs = env.result().jobs
    late = int((jobs["finish_time"] > jobs["deadline"] + 1e-9).sum())
    assert late > 0 and sum(rewards) == -late


def test_heuristics_beat_random_choices():
    cluster = sl.Cluster(nodes=4, slots=2)
    make = gw.default_workload(jobs=30, rate=0.25)
    totals = {}
    for decision, heuristic in (("send_probes", gw.least_loaded_action), ("pick_probe", gw.shortest_job_action)):
        env = WorkerEnv(cluster, make, decision=decision, max_rows=8)
        for name, agent in (("heuristic", heuristic), ("random", lambda o, rng=np.random.default_rng(0):
                                                               gw.random_row(o, rng))):
            t = []
            for seed in range(3):
                run_episode(env, agent, seed)
                jobs = env.result().jobs
                t.append(float((jobs["finish_time"] - jobs["submit_time"]).sum()))
            totals[decision, name] = np.mean(t)
    assert totals["send_probes", "heuristic"] < 0.9 * totals["send_probes", "random"]
    assert totals["pick_probe", "heuristic"] < totals["pick_probe", "random"]


def test_vectorized_environments():
    venv = gymnasium.make_vec("schedlab/Worker-v0", num_envs=3, vectorization_mode="sync", jobs=6, max_rows=4)
    obs, _ = venv.reset(seed=0)
    assert obs["workers"].shape == (3, 4, len(gw.WORKER_FEATURES))
    done = 0
    for _ in range(400):
        obs, r, terminated, truncated, _ = venv.step(np.zeros(3, dtype=np.int64))
        assert r.shape == (3,)
        done += int(np.sum(terminated | truncated))
    assert done >= 3
    venv.close()


def test_bad_arguments():
    with pytest.raises(ValueError, match="decision"):
        WorkerEnv(decision="steal")
    with pytest.raises(ValueError, match="reward"):
        WorkerEnv(reward="speed")
    with pytest.raises(ValueError, match="max_rows"):
        WorkerEnv(max_rows=0)
    with pytest.raises(ValueError, match="probe_ratio"):
        WorkerEnv(probe_ratio=0).reset(seed=0)
    with pytest.raises(ValueError, match="reduce"):
        WorkerEnv(workload=sl.synthetic.generate(jobs=3, reduces=1)).reset(seed=0)
    env = small_env()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(99)


@pytest.mark.parametrize("decision", gw.DECISIONS)
def test_result_is_refused_while_the_episode_runs(decision):
    env = small_env(decision)
    obs, _ = env.reset(seed=2)
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="still running"):
        env.result()
    run_episode(env, lambda o: int(np.flatnonzero(o["action_mask"])[0]), 2)
    check_schedule(env.result())
    assert env.result().jobs["finish_time"].notna().all()
