"""Heartbeats that change nothing cost nothing: while no task is pending (and the scheduler's
heartbeats then change no state, no speculator, no fault to come), the MapReduce engine lets nodes
sleep and wakes each, when something becomes pending, at the heartbeat of its own chain the run
would have reached, in the same order among simultaneous events. The schedule is the one of a run
that heartbeats all along (a scheduler written in Python keeps every heartbeat)."""
import pandas as pd
import pandas.testing as pdt
import pytest

import schedlab as sl
from schedlab.core import guard
from schedlab.core.guard import ResourceError
from schedlab.schedulers.base import FifoInPython

# 4 nodes of one map slot: the default interval is 1 s (Hadoop 1: 1 s per 100 nodes), node i's
# heartbeats fall on i / 4 + k s
CLUSTER = sl.Cluster(4, map_slots=1, reduce_slots=1)


def two_jobs(work, second_at):
    """A map of `work` s submitted at 0.3 s, and a map of 1 s submitted at `second_at`."""
    jobs = pd.DataFrame({"job_id": [0, 1], "submit_time": [0.3, second_at]})
    tasks = pd.DataFrame({"job_id": [0, 1], "work": [work, 1.0]})
    return sl.Workload.from_frames(jobs, tasks)


@pytest.mark.parametrize("work,second_at", [(100.0, 50.1), (1e9, 5e8 + 0.1)])
def test_long_task_with_an_idle_gap_by_hand(work, second_at):
    # The arrival at 0.3 s wakes the idle nodes on their grids: node 2 heartbeats first, at 0.5 s,
    # and runs the map until 0.5 + work. Nothing is pending from then on: the nodes sleep. The
    # second job wakes them at second_at = X + 0.1 (X whole): nodes 0, 1 and 3, which slept at
    # their heartbeats of 1, 1.25 and 0.75 s, come back at X + 1, X + 0.25 and X + 0.75 (sums of
    # 1 s, exact here); node 1 is first and runs the 1 s map from X + 0.25 (fifo: no delay).
    r = sl.simulate(CLUSTER, two_jobs(work, second_at), "fifo")
    x = second_at - 0.1
    t = r.tasks.sort_values("job_id")
    assert t["node"].tolist() == [2, 1]
    assert t["start"].tolist() == [0.5, x + 0.25]
    assert t["finish"].tolist() == [0.5 + work, x + 1.25]
    assert r.jobs.sort_values("job_id")["finish_time"].tolist() == [0.5 + work, x + 1.25]
    # a few heartbeats around each arrival, not one per node and second
    assert r.counters["heartbeats"] < 20 and r.events < 40
    if work < 1e3:  # the same schedule as a run that heartbeats all along
        kept = sl.simulate(CLUSTER, two_jobs(work, second_at), FifoInPython())
        assert kept.counters["heartbeats"] > 3 * work
        pdt.assert_frame_equal(r.tasks, kept.tasks)
        pdt.assert_frame_equal(r.jobs, kept.jobs)


def _mixed_workload(seed):
    return sl.synthetic.generate(jobs=12, rate=0.002, seed=seed, maps=("randint", 1, 6), reduces=("randint", 0, 2),
                                 map_work=("exponential", 40.0), reduce_work=("exponential", 60.0))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("options", [{}, {"heartbeat_interval": 3.0, "out_of_band_heartbeat": True},
                                     {"heartbeat_interval": 0.7, "slowstart": 1.0, "sample_interval": 5.0}])
def test_same_schedule_as_heartbeating_all_along(seed, options):
    cluster = sl.Cluster(5, racks=2, map_slots=2, reduce_slots=1)
    a = sl.simulate(cluster, _mixed_workload(seed), "fifo", seed=seed, **options)
    b = sl.simulate(cluster, _mixed_workload(seed), FifoInPython(), seed=seed, **options)
    pdt.assert_frame_equal(a.tasks, b.tasks)
    pdt.assert_frame_equal(a.jobs, b.jobs)
    assert a.series.keys() == b.series.keys()
    for name in a.series:
        pdt.assert_frame_equal(pd.DataFrame(a.series[name]), pd.DataFrame(b.series[name]))
    assert a.counters["heartbeats"] < b.counters["heartbeats"]


def _one_long_map(work=1e4):
    return sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                   pd.DataFrame({"job_id": [0], "work": [work]}))


MAPREDUCE_SCHEDULERS = [n for n, e in sl.schedulers.available()[["name", "engine"]].itertuples(index=False)
                        if e == "mapreduce" and n != "mrcp"]


@pytest.mark.parametrize("name", MAPREDUCE_SCHEDULERS)
def test_guard_knows_which_schedulers_sleep(name):
    # one map of 10^4 s: 4 x 10^4 heartbeats unless the nodes sleep while it runs
    r = sl.simulate(CLUSTER, _one_long_map(), name)
    assert (r.counters["heartbeats"] < 100) == (name in guard.QUIET_SCHEDULERS)
    assert guard.heartbeats_sleep(name, {}) == (name in guard.QUIET_SCHEDULERS)


def test_guard_counts_heartbeats_only_where_they_happen():
    wl = _one_long_map(1e9)
    quiet = guard.estimate(CLUSTER, wl, "mapreduce", {}, {}, scheduler="fifo")
    assert quiet["heartbeats"] < 100
    # a speculator reads progress at every heartbeat: the nodes heartbeat all the busy time
    spec = guard.estimate(CLUSTER, wl, "mapreduce", {"speculation": "hadoop"}, {}, scheduler="fifo")
    assert spec["heartbeats"] == pytest.approx(4e9, rel=0.01)
    with pytest.raises(ResourceError, match=r"4e\+09 heartbeats\) needs about .* events, more than the 1e\+09 limit"):
        sl.simulate(CLUSTER, wl, "fifo", speculation="hadoop", max_events=1e9)
    with pytest.raises(ResourceError, match=r"4e\+09 heartbeats"):
        sl.simulate(CLUSTER, wl, "fresh_dynamic", max_events=1e9)
    # tasks waiting for slots: 40 maps of 100 s on 4 slots wait about 900 s of the 1000
    many = sl.Workload.from_frames(pd.DataFrame({"job_id": [0], "submit_time": [0.0]}),
                                   pd.DataFrame({"job_id": [0] * 40, "work": [100.0] * 40}))
    e = guard.estimate(CLUSTER, many, "mapreduce", {}, {}, scheduler="fifo")
    assert e["heartbeats"] == pytest.approx(4 * (40 * 100 / 8 - 100 + 2))  # (8 slots: map and reduce)
    r = sl.simulate(CLUSTER, many, "fifo")
    assert r.counters["heartbeats"] <= e["heartbeats"] * 2.5
    # an interval of 5e-324 s stops advancing the clock long before 1 s: refused even with nothing
    # waiting (a sleeping node could not be woken past that point)
    with pytest.raises(ResourceError, match=r"inf heartbeats"):
        sl.simulate(CLUSTER, _one_long_map(1.0), "fifo", heartbeat_interval=5e-324)
