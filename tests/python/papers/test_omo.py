"""OMO (Wang 2017, ch. 4): the release-rate monitor, Lazy Start, Batch Finish, omo, fair_total."""
import pandas as pd
import pytest

import schedlab as sl
from conftest import assert_slot_invariants

OMO_NAMES = ["omo", "omo_lazy_start", "omo_batch_finish", "fair_total"]


def _shuffle_job():
    # 8 maps x 10 s, each writing 25 MB; one 5 s reduce fetching all 200 MB.
    jobs = pd.DataFrame([{"job_id": 0, "submit_time": 0.0}])
    tasks = pd.DataFrame([{"job_id": 0, "stage": 0, "work": 10.0, "input_bytes": 0.0, "output_bytes": 25e6}] * 8 +
                         [{"job_id": 0, "stage": 1, "work": 5.0, "input_bytes": 2e8, "output_bytes": 0.0}])
    return sl.Workload.from_frames(jobs, tasks)


ONE_NODE = dict(heartbeat_interval=1.0, network_bandwidth=1e6)  # shuffle T_s = 200 s


def test_lazy_start_hand_checked():
    # Pool of 2 slots. Maps run 2 at a time at 0 and 10. Monitor windows at 10 (f = 0, a = 2)
    # and 20 (f = 2/10, a = 2): F_o = 0.4 * 0.2 = 0.08, A_o = 2. At t = 20, with m' = 4 pending
    # maps, F_e = F_o (A_o - r) / (A_o K) = 0.04 and x* = F_e (T_s - T_m) = 0.04 (200 - 10) = 7.6
    # >= 4: the reduce starts at 20; the other slot runs the maps one by one until 60. The copy
    # ends at max(20 + 200, 60 + 200/8) = 220, the reduce at 225.
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    r = sl.simulate(cluster, _shuffle_job(), "omo_lazy_start", **ONE_NODE)
    t = r.tasks.sort_values(["start", "task_id"])
    red = t[t["stage"] == "reduce"].iloc[0]
    assert (red["start"], red["copy_end"], red["finish"]) == (20.0, 220.0, 225.0)
    assert list(t[t["stage"] == "map"]["start"]) == [0, 0, 10, 10, 20, 30, 40, 50]
    assert r.jobs["finish_time"].iloc[0] == 225.0
    assert r.counters["omo_lazy_starts"] == 1
    rr = r.series["release_rate"]
    assert list(rr["time"][:2]) == [10.0, 20.0]
    assert list(rr["f"][:2]) == [0.0, 0.2]
    assert rr["F_o"].iloc[1] == pytest.approx(0.08)
    assert rr["F_o"].iloc[2] == pytest.approx(0.4 * rr["f"].iloc[2] + 0.6 * 0.08)
    assert_slot_invariants(r, typed=False)


def test_without_lazy_start_hand_checked():
    # Batch Finish alone keeps reduces until the maps are done (4 waves, 0..40): copy 40..240.
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    for sched in ("omo_batch_finish", sl.schedulers.get("fair_total")):
        opts = dict(ONE_NODE, slowstart=1.0) if sched != "omo_batch_finish" else ONE_NODE
        r = sl.simulate(cluster, _shuffle_job(), sched, **opts)
        red = r.tasks[r.tasks["stage"] == "reduce"].iloc[0]
        assert (red["start"], red["finish"]) == (40.0, 245.0)
    # fair_total at slowstart 0.05: the reduce takes a slot at 10 (after the first maps), the
    # maps then run one at a time (10..70); copy ends at max(10 + 200, 70 + 25) = 210.
    r = sl.simulate(cluster, _shuffle_job(), "fair_total", **ONE_NODE)
    red = r.tasks[r.tasks["stage"] == "reduce"].iloc[0]
    assert (red["start"], red["finish"]) == (10.0, 215.0)
    assert r.jobs["map_finish_time"].iloc[0] == 70.0


def test_lazy_start_readings_differ():
    # literal reading starts reduces as soon as it lacks statistics: at t = 0
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    r = sl.simulate(cluster, _shuffle_job(), sl.schedulers.get("omo_lazy_start", lazy_mode="literal"), **ONE_NODE)
    assert r.tasks[r.tasks["stage"] == "reduce"]["start"].iloc[0] == 0.0
    # a huge bandwidth makes T_s < T_m: intended Lazy Start waits until every map is launched
    r = sl.simulate(cluster, _shuffle_job(), "omo_lazy_start", heartbeat_interval=1.0, network_bandwidth=1e12)
    red = r.tasks[r.tasks["stage"] == "reduce"].iloc[0]
    assert red["start"] == 40.0  # maps 6 and 7 take both slots at 30; the next release is at 40


@pytest.mark.parametrize("name", OMO_NAMES)
def test_invariants(name):
    cluster = sl.Cluster(nodes=10, racks=2, map_slots=2, reduce_slots=2)
    w = sl.datasets.load("omo_set_a", seed=1)
    r = sl.simulate(cluster, w, name, seed=2, network_bandwidth=3.66e7)
    assert_slot_invariants(r, typed=False)
    assert r.jobs["finish_time"].notna().all()


@pytest.mark.parametrize("name", OMO_NAMES)
def test_determinism(name):
    cluster = sl.Cluster(nodes=6, map_slots=2, reduce_slots=2)
    w = sl.datasets.load("omo_set_b", seed=3)
    a = sl.simulate(cluster, w, name, seed=5)
    b = sl.simulate(cluster, w, name, seed=5)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    assert a.counters == b.counters


def test_bad_parameters():
    with pytest.raises(ValueError, match="lazy_mode"):
        sl.schedulers.get("omo", lazy_mode="eager")
    with pytest.raises(ValueError, match="window"):
        sl.schedulers.get("omo", window=0)
    with pytest.raises(ValueError, match="beta"):
        sl.schedulers.get("omo", beta=1.5)


def test_phase_breakdown_and_last_batch():
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    r = sl.simulate(cluster, _shuffle_job(), "omo_lazy_start", **ONE_NODE)
    ph = sl.papers.wang2017.phase_breakdown(r)
    assert (ph["map_only"], ph["overlap"], ph["shuffle_only"], ph["reduce_only"]) == (20.0, 40.0, 160.0, 5.0)
    assert sl.papers.wang2017.last_batch_sizes(r).iloc[0] == 2  # maps ending at 50 and 60


def test_omo_direction_terasort():
    """Secondary rows: OMO below every typed Fair-x and below FRESH on 8 x Terasort (bandwidth
    calibrated to the paper's 293 s Fair-1 tail). The primary comparison, against Fair on the
    same pooled slots, is test_omo_below_pooled_fair_terasort."""
    cluster = sl.Cluster(nodes=20, map_slots=2, reduce_slots=2)
    w = sl.datasets.load("omo_simple_terasort", seed=0)
    opts = dict(network_bandwidth=3.66e7)
    omo = sl.simulate(cluster, w, "omo", seed=0, **opts).summary()["makespan"]
    fair = min(sl.simulate(cluster, w, "fair", seed=0, slowstart=s, **opts).summary()["makespan"]
               for s in (0.05, 0.2, 0.4, 0.6, 0.8, 1.0))
    fresh = sl.simulate(cluster, w, sl.schedulers.get("fresh_dynamic", k=0), seed=0, **opts).summary()["makespan"]
    assert omo < fair and omo < fresh


@pytest.mark.xfail(strict=True, reason="not reproduced: OMO 1239 s against pooled Fair (fair_total) at its best "
                                       "slowstart 1129 s on 8 x Terasort, seed 0 (OMO 9.8 % slower)")
def test_omo_below_pooled_fair_terasort():
    cluster = sl.Cluster(nodes=20, map_slots=2, reduce_slots=2)
    w = sl.datasets.load("omo_simple_terasort", seed=0)
    opts = dict(network_bandwidth=3.66e7)
    omo = sl.simulate(cluster, w, "omo", seed=0, **opts).summary()["makespan"]
    pooled = min(sl.simulate(cluster, w, "fair_total", seed=0, slowstart=s, **opts).summary()["makespan"]
                 for s in (0.05, 0.2, 0.4, 0.6, 0.8, 1.0))
    assert omo < pooled, (omo, pooled)


def test_batch_finish_alone_fires_and_finishes_the_tail_in_one_batch():
    """omo_batch_finish (Lazy Start off, slowstart 1, Fig. 4.16), hand-checked. One node, a pool
    of 4 slots; job A has 5 maps, job B 12, all 10 s, both at t = 0. Maps start 2 + 2 at 0. At 10
    the first monitor window with releases closes: f = 4 / 5 s = 0.8, F_o = 0.4 x 0.8 = 0.32, so
    F_o T_m = 3.2 slots are released during one map duration. A's 3 pending maps fit (last_wave),
    B's 10 do not: Batch Finish gives A three of the four free slots and A's map phase ends at 20
    (under pooled Fair-1 the slots alternate 2 + 2 and it ends at 30). B is not delayed (50 s).
    The printed scope (jobs whose reduces started) never fires without Lazy Start."""
    jobs = pd.DataFrame([{"job_id": 0, "submit_time": 0.0}, {"job_id": 1, "submit_time": 0.0}])
    rows = []
    for j, m in ((0, 5), (1, 12)):
        rows += [{"job_id": j, "stage": 0, "work": 10.0, "input_bytes": 0.0, "output_bytes": 1e6}] * m
        rows += [{"job_id": j, "stage": 1, "work": 1.0, "input_bytes": 1e6, "output_bytes": 0.0}]
    w = sl.Workload.from_frames(jobs, pd.DataFrame(rows))
    cluster = sl.Cluster(nodes=1, map_slots=2, reduce_slots=2)
    opts = dict(heartbeat_interval=1.0, network_bandwidth=1e9)
    bf = sl.simulate(cluster, w, sl.schedulers.get("omo_batch_finish", window=5.0), **opts)
    fair1 = sl.simulate(cluster, w, "fair_total", slowstart=1.0, **opts)
    printed = sl.simulate(cluster, w, sl.schedulers.get("omo_batch_finish", window=5.0, batch_scope="reduce_started"), **opts)
    assert bf.series["release_rate"]["F_o"].iloc[1] == pytest.approx(0.32)
    assert bf.counters["omo_batch_finish_maps"] > 0 and printed.counters["omo_batch_finish_maps"] == 0
    t = bf.tasks
    a_at_10 = t[(t["stage"] == "map") & (t["start"] == 10.0)]["job_id"].tolist()
    assert sorted(a_at_10) == [0, 0, 0, 1]
    assert list(bf.jobs["map_finish_time"]) == [20.0, 50.0]
    assert list(fair1.jobs["map_finish_time"]) == [30.0, 50.0]
    pd.testing.assert_frame_equal(printed.jobs, fair1.jobs)   # the printed scope is pooled Fair-1
    assert_slot_invariants(bf, typed=False)
