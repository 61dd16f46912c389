"""Hadoop 1.2.1's TestFairScheduler (src/contrib/fairscheduler/src/test/org/apache/hadoop/mapred),
ported: the Fair Scheduler (FairScheduler) against schedlab's ``fair``, one test per Hadoop test method.

The fixture of Hadoop 1.2.1's TestFairScheduler on the scheduler harness.

Hadoop's setUp: racks of TaskTrackers ``tt1, tt2, ...`` on hosts ``rackR.nodeN``, 2 map and 2
reduce slots each (one rack of two trackers unless a test asks otherwise); jobs go to the pool
named by their ``pool`` property, ``default`` without one (poolnameproperty = pool:
``pool_by="queue"``); node and rack locality delays of 5 s and 10 s; reduces may start at once
(waitForMapsBeforeLaunchingReduces off: ``slowstart=0``); assignmultiple as the test says; the
clock starts at 100 ms. Pools tied in fairness are taken by name (PoolSchedulable's start time
is 0 in 1.2.1: ``pool_tie_break="name"``). The scheduler's update thread runs every 100 ms
(``update_interval``; Hadoop's tests run ``update()`` at each clock step, all multiples of 100 ms),
and preemption runs only when a test calls it (``act("preempt")``), as in Hadoop's tests.
"""
from __future__ import annotations

import pytest

from schedlab.testing import Harness, fair_allocations


class FairCluster:
    def __init__(self, racks: int = 1, per_rack: int = 2, assign_multiple: bool = False, **params):
        p = {"assign_multiple": assign_multiple, "pool_by": "queue", "locality_delay": 5.0,
             "locality_delay_rack": 10.0, "pool_tie_break": "name", "update_interval": 0.1,
             "preemption_interval": 1e9}
        p.update(params)
        self.h = Harness("fair", params=p, options={"slowstart": 0})
        self.h.add_racks(racks, per_rack)
        self.ms = 0
        self.advance(100)  # setUp: "TaskStatus complains if a task's start time is 0"

    def advance(self, ms: int) -> None:
        """Hadoop's advanceTime (milliseconds; the update thread runs meanwhile)."""
        self.ms += ms
        self.h.set_time(self.ms / 1000)

    def submit(self, maps: int, reduces: int, pool: str | None = None, **kw) -> str:
        return self.h.submit(maps, reduces, pool=pool, **kw)

    def check(self, tracker: str, *expected: str) -> None:
        """Hadoop's checkAssignment: the heartbeat hands out exactly these, in order."""
        assert self.h.heartbeat(tracker) == list(expected)

    def nothing(self, tracker: str) -> None:
        """assertNull(scheduler.assignTasks(tracker))"""
        assert self.h.heartbeat(tracker) == []

    def finish(self, attempt: str) -> None:
        self.h.finish(attempt)

    def job(self, job: str) -> dict:
        return self.h.job_state(job)

    def pool(self, pool: str) -> dict:
        return self.h.pool_state(pool)

    def to_preempt(self, pool: str, kind: str) -> float:
        """FairScheduler.tasksToPreempt(pool's schedulable of kind 'map' or 'reduce', now)."""
        return self.pool(pool)[f"{kind}_tasks_to_preempt"]

    def preempt_and_update(self) -> None:
        """scheduler.preemptTasksIfNecessary(); scheduler.update()"""
        self.h.act("preempt")
        self.h.act("update")


def exact(x: float):
    return pytest.approx(x, abs=1e-9)


def near(x: float, tol: float):
    return pytest.approx(x, abs=tol)


def a(job: int, kind: str, index: int, tracker: str, attempt: int = 0) -> str:
    """Hadoop's expected assignment string: a(1, "m", 0, "tt1") = 'attempt_test_0001_m_000000_0 on tt1'."""
    return f"attempt_test_{job:04d}_{kind}_{index:06d}_{attempt} on {tracker}"


def att(job: int, kind: str, index: int, attempt: int = 0) -> str:
    return f"attempt_test_{job:04d}_{kind}_{index:06d}_{attempt}"


def shares(c, job, m, r, tol=None):
    s = c.job(job)
    if tol is None:
        assert s["map_fair_share"] == exact(m) and s["reduce_fair_share"] == exact(r)
    else:
        assert s["map_fair_share"] == near(m, tol) and s["reduce_fair_share"] == near(r, tol)


def counts(c, job, running_m, running_r, demand_m, demand_r):
    s = c.job(job)
    assert (s["map_running"], s["reduce_running"], s["map_demand"], s["reduce_demand"]) == (
        running_m, running_r, demand_m, demand_r)


# ---------------------------------------------------------------------------------------------

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <pool name="poolA"><minMaps>1</minMaps><minReduces>2</minReduces></pool>
  <pool name="poolB"><minMaps>2</minMaps><minReduces>1</minReduces></pool>
  <pool name="poolC"><minMaps>2</minMaps></pool>
  <pool name="poolD"><maxRunningJobs>3</maxRunningJobs></pool>
  <pool name="poolE"><minSharePreemptionTimeout>60</minSharePreemptionTimeout></pool>
  <poolMaxJobsDefault>15</poolMaxJobsDefault>
  <userMaxJobsDefault>5</userMaxJobsDefault>
  <user name="user1"><maxRunningJobs>10</maxRunningJobs></user>
  <defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
  <fairSharePreemptionTimeout>300</fairSharePreemptionTimeout>
</allocations>"""


def test_testAllocationFileParsing():
    """TestFairScheduler.testAllocationFileParsing: an allocation file's pools, min shares, job
    limits and preemption timeouts, as the scheduler holds them (read by fair_allocations)."""
    c = FairCluster(**fair_allocations(ALLOCATIONS))
    for user in ("user1", "user2"):  # (users become known to the harness with a job)
        c.submit(1, 1, user=user, state="PREP")
    assert c.h.pools() == ["default", "poolA", "poolB", "poolC", "poolD", "poolE"]
    mins = {"default": (0, 0), "poolA": (1, 2), "poolB": (2, 1), "poolC": (2, 0), "poolD": (0, 0), "poolE": (0, 0)}
    for pool, (m, r) in mins.items():
        assert (c.pool(pool)["map_min_share"], c.pool(pool)["reduce_min_share"]) == (m, r), pool
        assert c.pool(pool)["max_running_jobs"] == (3 if pool == "poolD" else 15), pool
        assert c.pool(pool)["min_share_timeout"] == (60 if pool == "poolE" else 120), pool
    assert c.h.user_state("user1")["max_running_jobs"] == 10
    assert c.h.user_state("user2")["max_running_jobs"] == 5
    assert c.h.scheduler_state()["scalar"]["fair_share_timeout"] == 300


def test_testTaskNotAssignedWhenNoJobsArePresent():
    """TestFairScheduler.testTaskNotAssignedWhenNoJobsArePresent"""
    FairCluster().nothing("tt1")


def test_testNonRunningJobsAreIgnored():
    """TestFairScheduler.testNonRunningJobsAreIgnored"""
    c = FairCluster()
    for state in ("SUCCEEDED", "FAILED", "KILLED"):
        c.submit(10, 10, state=state)
    c.nothing("tt1")
    c.advance(100)  # still nothing after an update
    c.nothing("tt1")


def _small_jobs(assign_multiple):
    c = FairCluster(assign_multiple=assign_multiple)
    j1 = c.submit(2, 1)
    counts(c, j1, 0, 0, 2, 1)
    shares(c, j1, 2.0, 1.0)
    c.advance(100)
    j2 = c.submit(1, 2)
    counts(c, j1, 0, 0, 2, 1)
    shares(c, j1, 2.0, 1.0)
    counts(c, j2, 0, 0, 1, 2)
    shares(c, j2, 1.0, 2.0)
    return c, j1, j2


def test_testSmallJobs():
    """TestFairScheduler.testSmallJobs: two jobs smaller than the cluster; the older one is served
    first, then they alternate."""
    c, j1, j2 = _small_jobs(False)
    c.check("tt1", a(1, "m", 0, "tt1"))
    c.check("tt1", a(1, "r", 0, "tt1"))
    c.check("tt1", a(2, "m", 0, "tt1"))
    c.check("tt1", a(2, "r", 0, "tt1"))
    c.check("tt2", a(1, "m", 1, "tt2"))
    c.check("tt2", a(2, "r", 1, "tt2"))
    c.nothing("tt2")
    counts(c, j1, 2, 1, 2, 1)
    counts(c, j2, 1, 2, 1, 2)


def test_testSmallJobsWithAssignMultiple():
    """TestFairScheduler.testSmallJobsWithAssignMultiple"""
    c, j1, j2 = _small_jobs(True)
    c.check("tt1", a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1"))
    c.check("tt2", a(1, "m", 1, "tt2"), a(2, "r", 1, "tt2"))
    c.nothing("tt2")
    counts(c, j1, 2, 1, 2, 1)
    counts(c, j2, 1, 2, 1, 2)


def _large_jobs(assign_multiple):
    c = FairCluster(assign_multiple=assign_multiple)
    j1 = c.submit(10, 10)
    counts(c, j1, 0, 0, 10, 10)
    shares(c, j1, 4.0, 4.0)
    c.advance(100)
    j2 = c.submit(10, 10)
    for j in (j1, j2):
        counts(c, j, 0, 0, 10, 10)
        shares(c, j, 2.0, 2.0)
    return c, j1, j2


def _large_jobs_second_wave(c, j1, j2, assign_multiple):
    for tracker, idx in (("tt1", 0), ("tt2", 1)):
        for job in (1, 2):
            c.finish(att(job, "m", idx))
            c.finish(att(job, "r", idx))
    c.advance(200)
    for j in (j1, j2):
        assert (c.job(j)["map_running"], c.job(j)["reduce_running"]) == (0, 0)
    expected = {"tt1": [a(1, "m", 2, "tt1"), a(1, "r", 2, "tt1"), a(2, "m", 2, "tt1"), a(2, "r", 2, "tt1")],
                "tt2": [a(1, "m", 3, "tt2"), a(1, "r", 3, "tt2"), a(2, "m", 3, "tt2"), a(2, "r", 3, "tt2")]}
    for tracker in ("tt1", "tt2"):
        if assign_multiple:
            c.check(tracker, *expected[tracker])
        else:
            for e in expected[tracker]:
                c.check(tracker, e)
    for j in (j1, j2):
        counts(c, j, 2, 2, 8, 8)
        shares(c, j, 2.0, 2.0)


def test_testLargeJobs():
    """TestFairScheduler.testLargeJobs: two large jobs alternate in filling the slots, wave after wave."""
    c, j1, j2 = _large_jobs(False)
    for tracker, idx in (("tt1", 0), ("tt2", 1)):
        c.check(tracker, a(1, "m", idx, tracker))
        c.check(tracker, a(1, "r", idx, tracker))
        c.check(tracker, a(2, "m", idx, tracker))
        c.check(tracker, a(2, "r", idx, tracker))
    c.nothing("tt1")
    c.nothing("tt2")
    for j in (j1, j2):
        counts(c, j, 2, 2, 10, 10)
    _large_jobs_second_wave(c, j1, j2, False)


def test_testLargeJobsWithAssignMultiple():
    """TestFairScheduler.testLargeJobsWithAssignMultiple"""
    c, j1, j2 = _large_jobs(True)
    for tracker, idx in (("tt1", 0), ("tt2", 1)):
        c.check(tracker, a(1, "m", idx, tracker), a(1, "r", idx, tracker), a(2, "m", idx, tracker),
                a(2, "r", idx, tracker))
    c.nothing("tt1")
    c.nothing("tt2")
    for j in (j1, j2):
        counts(c, j, 2, 2, 10, 10)
    _large_jobs_second_wave(c, j1, j2, True)


def test_testJobsWithPriorities():
    """TestFairScheduler.testJobsWithPriorities: a HIGH priority job has twice the weight."""
    c = FairCluster(1, 3)
    j1 = c.submit(10, 10)
    j2 = c.submit(10, 10)
    c.h.set_priority(j2, "HIGH")
    c.h.act("update")
    counts(c, j1, 0, 0, 10, 10)
    shares(c, j1, 2.0, 2.0, tol=0.1)
    counts(c, j2, 0, 0, 10, 10)
    shares(c, j2, 4.0, 4.0, tol=0.1)
    c.advance(100)
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(2, "m", 1, "tt2"), a(2, "r", 1, "tt2"), a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2")):
        c.check("tt2", e)
    for e in (a(2, "m", 2, "tt3"), a(2, "r", 2, "tt3"), a(2, "m", 3, "tt3"), a(2, "r", 3, "tt3")):
        c.check("tt3", e)


def test_testLargeJobsWithPools():
    """TestFairScheduler.testLargeJobsWithPools: pools with min shares are served first."""
    c = FairCluster(min_map_shares="poolA:1,poolB:2", min_reduce_shares="poolA:2,poolB:1")
    j1 = c.submit(10, 10)
    counts(c, j1, 0, 0, 10, 10)
    shares(c, j1, 4.0, 4.0)
    c.advance(200)
    j2 = c.submit(10, 10, pool="poolA")
    c.advance(100)
    j3 = c.submit(10, 10, pool="poolB")
    assert (c.pool("default")["map_min_share"], c.pool("default")["reduce_min_share"]) == (0, 0)
    assert (c.pool("poolA")["map_min_share"], c.pool("poolA")["reduce_min_share"]) == (1, 2)
    assert (c.pool("poolB")["map_min_share"], c.pool("poolB")["reduce_min_share"]) == (2, 1)
    shares(c, j1, 1.0, 1.0)
    shares(c, j2, 1.0, 2.0)
    shares(c, j3, 2.0, 1.0)
    c.advance(100)
    for e in (a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1"), a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(3, "m", 1, "tt2"), a(2, "r", 1, "tt2"), a(1, "m", 0, "tt2"), a(1, "r", 0, "tt2")):
        c.check("tt2", e)


def _excess_capacity(assign_multiple):
    c = FairCluster(assign_multiple=assign_multiple, min_map_shares="poolA:2", min_reduce_shares="poolA:2")
    j1 = c.submit(10, 10)
    counts(c, j1, 0, 0, 10, 10)
    shares(c, j1, 4.0, 4.0)
    c.advance(200)
    j2 = c.submit(10, 10, pool="poolA")
    assert (c.pool("poolA")["map_min_share"], c.pool("poolA")["reduce_min_share"]) == (2, 2)
    shares(c, j1, 2.0, 2.0)
    shares(c, j2, 2.0, 2.0)
    c.advance(100)
    j3 = c.submit(10, 10, pool="poolA")
    assert (c.pool("poolA")["map_min_share"], c.pool("poolA")["reduce_min_share"]) == (2, 2)
    shares(c, j1, 2.0, 2.0)
    shares(c, j2, 1.0, 1.0)
    shares(c, j3, 1.0, 1.0)
    c.advance(100)
    return c


def test_testLargeJobsWithExcessCapacity():
    """TestFairScheduler.testLargeJobsWithExcessCapacity: a needy pool first, then the larger share."""
    c = _excess_capacity(False)
    for e in (a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1"), a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(1, "m", 0, "tt2"), a(1, "r", 0, "tt2"), a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2")):
        c.check("tt2", e)


def test_testLargeJobsWithExcessCapacityAndAssignMultiple():
    """TestFairScheduler.testLargeJobsWithExcessCapacityAndAssignMultiple"""
    c = _excess_capacity(True)
    c.check("tt1", a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1"), a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1"))
    c.check("tt2", a(1, "m", 0, "tt2"), a(1, "r", 0, "tt2"), a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2"))


def test_testSmallJobInLargePool():
    """TestFairScheduler.testSmallJobInLargePool: a pool's min share is capped by its demand."""
    c = FairCluster(min_map_shares="poolA:4", min_reduce_shares="poolA:4")
    j1 = c.submit(10, 10)
    j2 = c.submit(1, 1, pool="poolA")
    counts(c, j1, 0, 0, 10, 10)
    shares(c, j1, 3.0, 3.0)
    counts(c, j2, 0, 0, 1, 1)
    shares(c, j2, 1.0, 1.0)
    for e in (a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1"), a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2"), a(1, "m", 2, "tt2"), a(1, "r", 2, "tt2")):
        c.check("tt2", e)


def test_testPoolMaxJobs():
    """TestFairScheduler.testPoolMaxJobs: maxRunningJobs 2 in the default pool; only the first
    two jobs run (Hadoop: only they are initialized; here: only they are runnable)."""
    c = FairCluster(pool_max_jobs="default:2")
    jobs = []
    for k in range(4):
        jobs.append(c.submit(10, 10))
        if k < 3:
            c.advance(10)
    assert [c.job(j)["runnable"] for j in jobs] == [1, 1, 0, 0]
    for j, s in zip(jobs, (2.0, 2.0, 0.0, 0.0)):
        shares(c, j, s, s)
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1")):
        c.check("tt1", e)
    c.advance(100)
    for e in (a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2"), a(2, "m", 1, "tt2"), a(2, "r", 1, "tt2")):
        c.check("tt2", e)


def test_testUserMaxJobs():
    """TestFairScheduler.testUserMaxJobs: user1 may run one job."""
    c = FairCluster(user_max_jobs="user1:1")
    users = ("user1", "user1", "user2", "user2")
    jobs = []
    for k, u in enumerate(users):
        jobs.append(c.submit(10, 10, user=u))
        c.advance(10)
    for j, s in zip(jobs, (1.33, None, 1.33, 1.33)):
        if s is None:
            shares(c, j, 0.0, 0.0)
        else:
            shares(c, j, s, s, tol=0.1)
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1")):
        c.check("tt1", e)
    c.advance(100)
    for e in (a(4, "m", 0, "tt2"), a(4, "r", 0, "tt2"), a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2")):
        c.check("tt2", e)


def test_testComplexJobLimits():
    """TestFairScheduler.testComplexJobLimits: pool and user job limits together."""
    c = FairCluster(pool_max_jobs="poolA:1", user_max_jobs="user1:1,user2:10", user_max_jobs_default=2)
    spec = [("user1", None)] * 2 + [("user2", None)] * 3 + [("user3", None)] * 3 + [("user4", "poolA")] * 2
    jobs = []
    for user, pool in spec:
        jobs.append(c.submit(10, 10, user=user, pool=pool))
        c.advance(10)
    expected = [0.33, 0.0, 0.33, 0.33, 0.33, 0.33, 0.33, 0.0, 2.0, 0.0]
    for j, s in zip(jobs, expected):
        if s == 0.0:
            shares(c, j, 0.0, 0.0)
        else:
            shares(c, j, s, s, tol=0.1)


def test_testSizeBasedWeight():
    """TestFairScheduler.testSizeBasedWeight: with sizebasedweight, the job with more tasks of a
    type gets the larger share of that type."""
    c = FairCluster(size_based_weight=True)
    j1 = c.submit(2, 10)
    j2 = c.submit(20, 1)
    assert c.job(j2)["map_fair_share"] > c.job(j1)["map_fair_share"]
    assert c.job(j1)["reduce_fair_share"] > c.job(j2)["reduce_fair_share"]


def test_testPoolWeights():
    """TestFairScheduler.testPoolWeights: pools weighted 2.0 and 0.5 and the default 1.0."""
    c = FairCluster(pool_weights="poolA:2.0,poolB:0.5")
    j1 = c.submit(10, 10)
    j2 = c.submit(10, 10, pool="poolA")
    j3 = c.submit(10, 10, pool="poolB")
    c.advance(10)
    shares(c, j1, 1.14, 1.14, tol=0.01)
    shares(c, j2, 2.28, 2.28, tol=0.01)
    shares(c, j3, 0.57, 0.57, tol=0.01)
    j4 = c.submit(10, 10, pool="poolB")
    c.advance(10)
    shares(c, j1, 1.14, 1.14, tol=0.01)
    shares(c, j2, 2.28, 2.28, tol=0.01)
    shares(c, j3, 0.28, 0.28, tol=0.01)
    shares(c, j4, 0.28, 0.28, tol=0.01)


def test_testPoolWeightsWhenNoMaps():
    """TestFairScheduler.testPoolWeightsWhenNoMaps: jobs without maps do not take map share."""
    c = FairCluster(pool_weights="poolA:2.0,poolB:1.0")
    j1 = c.submit(0, 10, pool="poolA")
    j2 = c.submit(0, 10, pool="poolA")
    j3 = c.submit(10, 10, pool="poolB")
    c.advance(10)
    shares(c, j1, 0.0, 1.33, tol=0.01)
    shares(c, j2, 0.0, 1.33, tol=0.01)
    shares(c, j3, 4.0, 1.33, tol=0.01)


def test_testPoolMaxMapsReduces():
    """TestFairScheduler.testPoolMaxMapsReduces: a pool limited to 2 maps and 1 reduce."""
    c = FairCluster(pool_max_maps="poolLimited:2", pool_max_reduces="poolLimited:1")
    j1 = c.submit(10, 5, pool="poolLimited")
    c.advance(10)
    j2 = c.submit(10, 5)
    for e in (a(2, "m", 0, "tt1"), a(2, "r", 0, "tt1"), a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(2, "m", 1, "tt2"), a(2, "r", 1, "tt2"), a(1, "m", 1, "tt2"), a(2, "r", 2, "tt2")):
        c.check("tt2", e)
    assert (c.pool("poolLimited")["map_running"], c.pool("poolLimited")["reduce_running"]) == (2, 1)
    assert (c.pool("default")["map_running"], c.pool("default")["reduce_running"]) == (2, 3)
    assert (c.job(j1)["running_attempts"], c.job(j2)["running_attempts"]) == ((2, 1), (2, 3))


@pytest.mark.parametrize("runnable, node_cap, total_slots, cap", [
    (1, 1, 100, 1), (1, 2, 100, 1), (1, 10, 100, 1), (200, 1, 100, 1),
    (1, 5, 100, 1), (50, 5, 100, 3), (100, 5, 100, 5), (200, 5, 100, 5)])
def test_testCapBasedLoadManager(runnable, node_cap, total_slots, cap):
    """TestFairScheduler.testCapBasedLoadManager: CapBasedLoadManager.getCap(runnable tasks, node
    slots, cluster slots) = ceil(node slots x min(1, runnable / cluster slots)), checked through
    the scheduler: a tracker of `node_cap` map slots in a cluster of `total_slots`, one job of
    `runnable` maps, gets `cap` maps at its heartbeat (assignmultiple on)."""
    h = Harness("fair", params={"assign_multiple": True}, options={"slowstart": 0})
    for k in range(total_slots // node_cap):
        h.add_tracker(f"tt{k + 1}", map_slots=node_cap, reduce_slots=0)
    h.submit(runnable, 0)
    assert len(h.heartbeat("tt1")) == cap


def _preemption_start(c):
    """Job 1 takes all four slots of each type; the tasks on tt2 start 100 ms later."""
    j1 = c.submit(10, 10)
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(1, "m", 1, "tt1"), a(1, "r", 1, "tt1")):
        c.check("tt1", e)
    c.advance(100)
    for e in (a(1, "m", 2, "tt2"), a(1, "r", 2, "tt2"), a(1, "m", 3, "tt2"), a(1, "r", 3, "tt2")):
        c.check("tt2", e)
    return j1


def test_testMinSharePreemption():
    """TestFairScheduler.testMinSharePreemption: after its 60 s min-share timeout, poolA takes 2
    maps and 1 reduce back from the default pool's newest tasks."""
    c = FairCluster(preemption=True, min_map_shares="poolA:2", min_reduce_shares="poolA:1",
                    min_share_timeouts="poolA:60")
    j1 = _preemption_start(c)
    c.advance(10000)
    c.submit(10, 10, pool="poolA")
    c.advance(10000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (0, 0)
    c.advance(49000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (0, 0)
    c.advance(2000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (2, 1)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (2, 3)
    c.check("tt2", a(2, "m", 0, "tt2"))
    c.check("tt2", a(2, "m", 1, "tt2"))
    c.check("tt2", a(2, "r", 0, "tt2"))
    c.nothing("tt1")
    c.nothing("tt2")


def test_testMinSharePreemptionWithSmallJob():
    """TestFairScheduler.testMinSharePreemptionWithSmallJob: a pool preempts no more than its
    job needs (1 map, 2 reduces) although its min share is 3 of each."""
    c = FairCluster(preemption=True, min_map_shares="poolA:3", min_reduce_shares="poolA:3",
                    min_share_timeouts="poolA:60")
    j1 = _preemption_start(c)
    c.advance(10000)
    c.submit(1, 2, pool="poolA")
    c.advance(59000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (0, 0)
    c.advance(2000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (1, 2)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (3, 2)
    c.check("tt2", a(2, "r", 0, "tt2"))
    c.check("tt2", a(2, "m", 0, "tt2"))
    c.check("tt2", a(2, "r", 1, "tt2"))
    c.nothing("tt1")
    c.nothing("tt2")


def test_testFairSharePreemption():
    """TestFairScheduler.testFairSharePreemption: on 4 trackers, pool3 below half its fair share
    for 60 s preempts 2 tasks of each type; pool2, at half its share, does not."""
    c = FairCluster(1, 4, preemption=True, fair_share_timeout=60)
    j1 = c.submit(6, 6, pool="pool1")
    c.advance(100)
    for tracker, first in (("tt1", 0), ("tt2", 2), ("tt3", 4)):
        for e in (a(1, "m", first, tracker), a(1, "r", first, tracker), a(1, "m", first + 1, tracker),
                  a(1, "r", first + 1, tracker)):
            c.check(tracker, e)
        c.advance(100)
    c.submit(10, 10, pool="pool2")
    c.advance(100)
    for e in (a(2, "m", 0, "tt4"), a(2, "r", 0, "tt4"), a(2, "m", 1, "tt4"), a(2, "r", 1, "tt4")):
        c.check("tt4", e)
    c.submit(10, 10, pool="pool3")
    c.advance(59000)
    for pool in ("pool2", "pool3"):
        assert (c.to_preempt(pool, "map"), c.to_preempt(pool, "reduce")) == (0, 0)
    c.advance(2000)
    assert (c.to_preempt("pool2", "map"), c.to_preempt("pool2", "reduce")) == (0, 0)
    assert (c.to_preempt("pool3", "map"), c.to_preempt("pool3", "reduce")) == (2, 2)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (4, 4)
    for e in (a(3, "m", 0, "tt3"), a(3, "r", 0, "tt3"), a(3, "m", 1, "tt3"), a(3, "r", 1, "tt3")):
        c.check("tt3", e)
    for tracker in ("tt1", "tt2", "tt3", "tt4"):
        c.nothing(tracker)


def test_testFairSharePreemptionFromMultiplePools():
    """TestFairScheduler.testFairSharePreemptionFromMultiplePools: pool3 takes one map each from
    pool1 and pool2, both above their fair share."""
    c = FairCluster(1, 3, preemption=True, fair_share_timeout=60)
    j1 = c.submit(12, 0, pool="pool1")
    c.advance(100)
    c.check("tt1", a(1, "m", 0, "tt1"))
    c.check("tt1", a(1, "m", 1, "tt1"))
    c.advance(100)
    c.check("tt2", a(1, "m", 2, "tt2"))
    c.advance(100)
    j2 = c.submit(10, 0, pool="pool2")
    c.advance(100)
    c.check("tt2", a(2, "m", 0, "tt2"))
    c.check("tt3", a(2, "m", 1, "tt3"))
    c.advance(100)
    c.check("tt3", a(2, "m", 2, "tt3"))
    c.advance(100)
    c.submit(10, 0, pool="pool3")
    c.advance(59000)
    for pool in ("pool2", "pool3"):
        assert (c.to_preempt(pool, "map"), c.to_preempt(pool, "reduce")) == (0, 0)
    c.advance(2000)
    assert (c.to_preempt("pool2", "map"), c.to_preempt("pool2", "reduce")) == (0, 0)
    assert (c.to_preempt("pool3", "map"), c.to_preempt("pool3", "reduce")) == (2, 0)
    c.preempt_and_update()
    assert c.job(j2)["running_attempts"][0] == 2
    assert c.job(j1)["running_attempts"][0] == 2
    c.check("tt2", a(3, "m", 0, "tt2"))
    c.check("tt3", a(3, "m", 1, "tt3"))
    for tracker in ("tt1", "tt2", "tt3"):
        c.nothing(tracker)


def _min_and_fair(**params):
    c = FairCluster(min_map_shares="poolA:2", min_reduce_shares="poolA:2", min_share_timeouts="poolA:60",
                    fair_share_timeout=60, **params)
    j1 = _preemption_start(c)
    c.advance(10000)
    c.submit(10, 10, pool="poolA")
    return c, j1


def test_testMinAndFairSharePreemption():
    """TestFairScheduler.testMinAndFairSharePreemption: starved of both min and fair share, poolA
    preempts no more than 2 tasks of each type in all."""
    c, j1 = _min_and_fair(preemption=True)
    c.advance(10000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (0, 0)
    c.advance(49000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (0, 0)
    c.advance(2000)
    assert (c.to_preempt("poolA", "map"), c.to_preempt("poolA", "reduce")) == (2, 2)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (2, 2)
    for e in (a(2, "m", 0, "tt2"), a(2, "r", 0, "tt2"), a(2, "m", 1, "tt2"), a(2, "r", 1, "tt2")):
        c.check("tt2", e)
    c.nothing("tt1")
    c.nothing("tt2")


def test_testNoPreemptionIfDisabled():
    """TestFairScheduler.testNoPreemptionIfDisabled"""
    c, j1 = _min_and_fair(preemption=False)
    c.advance(61000)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (4, 4)
    c.nothing("tt1")
    c.nothing("tt2")


def test_testNoPreemptionIfOnlyLogging():
    """TestFairScheduler.testNoPreemptionIfOnlyLogging (mapred.fairscheduler.preemption.only.log)"""
    c, j1 = _min_and_fair(preemption=True, preemption_only_log=True)
    c.advance(61000)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (4, 4)
    c.nothing("tt1")
    c.nothing("tt2")


NODE, RACK, ANY = 0, 1, 2


def delay_state(c, job):
    s = c.job(job)
    return s["last_map_locality_level"], s["time_waited_for_local_map"], bool(s["skipped_at_last_heartbeat"])


def test_testDelaySchedulingAtNodeLevel():
    """TestFairScheduler.testDelaySchedulingAtNodeLevel: a job with data on rack2.node2 waits for
    that node; a job without locality information takes the other slots."""
    c = FairCluster(2, 2, assign_multiple=True)
    j1 = c.submit(1, 0, pool="pool1", map_hosts=[["rack2.node2"]])
    c.advance(100)
    c.submit(10, 0)
    c.check("tt1", a(2, "m", 0, "tt1"), a(2, "m", 1, "tt1"))
    c.check("tt2", a(2, "m", 2, "tt2"), a(2, "m", 3, "tt2"))
    c.check("tt3", a(2, "m", 4, "tt3"), a(2, "m", 5, "tt3"))
    c.check("tt4", a(1, "m", 0, "tt4"), a(2, "m", 6, "tt4"))
    assert delay_state(c, j1) == (NODE, 0, False)


def test_testDelaySchedulingAtRackLevel():
    """TestFairScheduler.testDelaySchedulingAtRackLevel: past the 5 s node delay the job launches
    rack-local, then node-local again once it can."""
    c = FairCluster(2, 2, assign_multiple=True)
    j1 = c.submit(4, 0, pool="pool1", map_hosts=[["rack2.node2"]] * 4)
    c.advance(100)
    c.submit(20, 0)
    c.check("tt1", a(2, "m", 0, "tt1"), a(2, "m", 1, "tt1"))
    c.check("tt2", a(2, "m", 2, "tt2"), a(2, "m", 3, "tt2"))
    c.check("tt3", a(2, "m", 4, "tt3"), a(2, "m", 5, "tt3"))
    c.advance(6000)
    for e in (att(2, "m", 0), att(2, "m", 2), att(2, "m", 4)):
        c.finish(e)
    c.advance(100)
    c.check("tt1", a(2, "m", 6, "tt1"))
    c.check("tt2", a(2, "m", 7, "tt2"))
    c.check("tt3", a(1, "m", 0, "tt3"))
    assert delay_state(c, j1) == (RACK, 0, False)
    c.check("tt4", a(1, "m", 1, "tt4"), a(1, "m", 2, "tt4"))
    assert delay_state(c, j1) == (NODE, 0, False)
    for e in (att(2, "m", 1), att(2, "m", 3), att(2, "m", 5)):
        c.finish(e)
    c.advance(100)
    c.check("tt1", a(2, "m", 8, "tt1"))
    c.check("tt2", a(2, "m", 9, "tt2"))
    c.check("tt3", a(2, "m", 10, "tt3"))
    c.advance(100)
    c.finish(att(1, "m", 1))
    c.advance(100)
    c.check("tt4", a(1, "m", 3, "tt4"))


def test_testDelaySchedulingOffRack():
    """TestFairScheduler.testDelaySchedulingOffRack: past the node delay and then the rack delay
    the job launches off-rack; a rack-local launch keeps it in the rack, a node-local one on the node."""
    c = FairCluster(2, 2, assign_multiple=True)
    j1 = c.submit(8, 0, pool="pool1", map_hosts=[["rack2.node2"]] * 8)
    c.advance(100)
    for tracker in ("tt1", "tt2", "tt3"):
        c.nothing(tracker)
    c.advance(6000)
    c.nothing("tt1")
    c.nothing("tt2")
    for _ in range(2):
        c.advance(100)
        c.nothing("tt1")
        c.nothing("tt2")
    level, waited, skipped = delay_state(c, j1)
    assert (level, skipped) == (NODE, True) and waited == exact(6.2)
    c.advance(11000)
    c.check("tt1", a(1, "m", 0, "tt1"), a(1, "m", 1, "tt1"))
    c.check("tt2", a(1, "m", 2, "tt2"), a(1, "m", 3, "tt2"))
    assert delay_state(c, j1) == (ANY, 0, False)
    c.check("tt3", a(1, "m", 4, "tt3"), a(1, "m", 5, "tt3"))
    assert delay_state(c, j1) == (RACK, 0, False)
    c.finish(att(1, "m", 1))
    c.finish(att(1, "m", 3))
    c.advance(100)
    c.nothing("tt1")
    c.nothing("tt2")
    c.finish(att(1, "m", 4))
    c.advance(100)
    c.check("tt3", a(1, "m", 6, "tt3"))
    c.check("tt4", a(1, "m", 7, "tt4"))
    assert delay_state(c, j1) == (NODE, 0, False)


def test_testAssignMultipleWithUnderloadedCluster():
    """TestFairScheduler.testAssignMultipleWithUnderloadedCluster: with few tasks, one map and one
    reduce per node although assignmultiple is on (CapBasedLoadManager)."""
    c = FairCluster(1, 4, assign_multiple=True)
    c.submit(2, 2)
    c.advance(100)
    c.submit(2, 1)
    c.check("tt1", a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"))
    c.nothing("tt1")
    c.check("tt2", a(2, "m", 0, "tt2"), a(2, "r", 0, "tt2"))
    c.nothing("tt2")
    c.check("tt3", a(1, "m", 1, "tt3"), a(1, "r", 1, "tt3"))
    c.nothing("tt3")
    c.check("tt4", a(2, "m", 1, "tt4"))
    c.nothing("tt4")


def test_testFifoPool():
    """TestFairScheduler.testFifoPool: a FIFO pool serves the HIGH priority job, then in order."""
    c = FairCluster(pool_modes="default:fifo")
    c.submit(1, 1)
    c.advance(10)
    c.submit(3, 3)
    c.advance(10)
    j3 = c.submit(1, 1)
    c.h.set_priority(j3, "HIGH")
    c.advance(10)
    c.submit(3, 3)
    for e in (a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1"), a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(2, "m", 0, "tt2"), a(2, "r", 0, "tt2"), a(2, "m", 1, "tt2"), a(2, "r", 1, "tt2")):
        c.check("tt2", e)


def test_testMultipleFifoPools():
    """TestFairScheduler.testMultipleFifoPools: two FIFO pools (defaultPoolSchedulingMode fifo)
    alternate, each serving its head job."""
    c = FairCluster(pool_mode="fifo")
    for pool in ("poolA", "poolA", "poolB", "poolB"):
        c.submit(10, 10, pool=pool)
        c.advance(10)
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2"), a(3, "m", 1, "tt2"), a(3, "r", 1, "tt2")):
        c.check("tt2", e)


def test_testFifoAndFairPools():
    """TestFairScheduler.testFifoAndFairPools: a FIFO pool serves its head job, a fair pool both."""
    c = FairCluster(pool_mode="fifo", pool_modes="poolB:fair")
    for pool in ("poolA", "poolA", "poolB", "poolB"):
        c.submit(10, 10, pool=pool)
        c.advance(10)
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(3, "m", 0, "tt1"), a(3, "r", 0, "tt1")):
        c.check("tt1", e)
    for e in (a(1, "m", 1, "tt2"), a(1, "r", 1, "tt2"), a(4, "m", 0, "tt2"), a(4, "r", 0, "tt2")):
        c.check("tt2", e)


def demands(c, pool):
    return c.pool(pool)["map_demand"], c.pool(pool)["reduce_demand"]


def test_testPoolAssignment():
    """TestFairScheduler.testPoolAssignment: pool demands follow the jobs submitted to pools and a
    job moved to another pool (PoolManager.setPool). Hadoop's test also submits a job whose
    mapred.fairscheduler.pool property (poolA) overrides its pool name property ("nonsense"):
    job configuration, which the harness does not model; it is submitted to poolA directly."""
    c = FairCluster(pool_modes="default:fair,poolA:fair")
    c.submit(1, 3)
    c.h.act("update")
    assert c.h.pools() == ["default", "poolA"]
    assert demands(c, "default") == (1, 3) and demands(c, "poolA") == (0, 0)
    j2 = c.submit(5, 7)
    assert demands(c, "default") == (6, 10) and demands(c, "poolA") == (0, 0)
    c.h.set_pool(j2, "poolA")
    assert demands(c, "default") == (1, 3) and demands(c, "poolA") == (5, 7)
    c.submit(11, 13, pool="poolA")
    assert demands(c, "default") == (1, 3) and demands(c, "poolA") == (16, 20)
    c.submit(17, 19, pool="poolA")
    assert demands(c, "default") == (1, 3) and demands(c, "poolA") == (33, 39)


def test_testSetPoolTwice():
    """TestFairScheduler.testSetPoolTwice: a job moved to poolA and back takes its demand along."""
    c = FairCluster(pool_modes="default:fair,poolA:fair")
    j1 = c.submit(1, 3)
    assert demands(c, "default") == (1, 3) and demands(c, "poolA") == (0, 0)
    c.h.set_pool(j1, "poolA")
    assert demands(c, "default") == (0, 0) and demands(c, "poolA") == (1, 3)
    c.h.set_pool(j1, "default")
    assert demands(c, "default") == (1, 3) and demands(c, "poolA") == (0, 0)


def test_set_pool_moves_running_tasks_and_later_assignments():
    """(not a Hadoop test) After a move, the job's running tasks count in its new pool and its
    pending ones are offered as the new pool's (poolA, min share 4, goes before the default pool)."""
    c = FairCluster(assign_multiple=True, min_map_shares="poolA:4")
    j1 = c.submit(4, 0)
    c.check("tt1", a(1, "m", 0, "tt1"), a(1, "m", 1, "tt1"))
    c.h.set_pool(j1, "poolA")
    assert (c.pool("poolA")["map_running"], c.pool("default")["map_running"]) == (2, 0)
    c.advance(100)
    c.submit(4, 0)
    c.check("tt2", a(1, "m", 2, "tt2"), a(1, "m", 3, "tt2"))  # poolA, below its min share, first


@pytest.mark.parametrize("assign_multiple, cap, expected", [(False, -1, 1), (True, -1, 5), (True, 10, 5), (True, 2, 2)])
def test_testMaxTasksToAssign(assign_multiple, cap, expected):
    """TestFairScheduler.testMaxTasksToAssign: a tracker with 5 free map slots gets 1 map without
    assignmultiple, else min(5, mapred.fairscheduler.assignmultiple.maps) (-1 = no cap)."""
    h = Harness("fair", params={"assign_multiple": assign_multiple, "assign_multiple_maps": cap},
                options={"slowstart": 0})
    h.add_tracker("tt1", map_slots=5, reduce_slots=0)
    h.submit(20, 0)
    assert len(h.heartbeat("tt1")) == expected


def test_testFairSharePreemptionWithShortTimeout():
    """TestFairScheduler.testFairSharePreemptionWithShortTimeout: 5 s timeouts; the default pool,
    starved of its fair share, takes back 2 tasks of each type from pool1."""
    c = FairCluster(preemption=True, fair_share_timeout=5, min_map_shares="pool1:2", min_reduce_shares="pool1:2",
                    min_share_timeouts="pool1:5")
    j1 = c.submit(10, 10, pool="pool1")
    for e in (a(1, "m", 0, "tt1"), a(1, "r", 0, "tt1"), a(1, "m", 1, "tt1"), a(1, "r", 1, "tt1")):
        c.check("tt1", e)
    c.advance(100)
    for e in (a(1, "m", 2, "tt2"), a(1, "r", 2, "tt2"), a(1, "m", 3, "tt2"), a(1, "r", 3, "tt2")):
        c.check("tt2", e)
    c.advance(10000)
    counts(c, j1, 4, 4, 10, 10)
    shares(c, j1, 4.0, 4.0)
    c.submit(10, 10, pool="default")
    c.advance(6000)
    assert (c.job(j1)["map_running"], c.job(j1)["reduce_running"]) == (4, 4)
    shares(c, j1, 2.0, 2.0)
    assert (c.to_preempt("pool1", "map"), c.to_preempt("pool1", "reduce")) == (0, 0)
    assert (c.to_preempt("default", "map"), c.to_preempt("default", "reduce")) == (2, 2)
    c.preempt_and_update()
    assert c.job(j1)["running_attempts"] == (2, 2)
    for e in (a(2, "m", 0, "tt2"), a(2, "r", 0, "tt2"), a(2, "m", 1, "tt2"), a(2, "r", 1, "tt2")):
        c.check("tt2", e)
    c.nothing("tt1")
    c.nothing("tt2")
