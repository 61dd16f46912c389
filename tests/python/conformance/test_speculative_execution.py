"""Hadoop 1.x's TestSpeculativeExecution (src/test/org/apache/hadoop/mapred), ported: the
speculative-execution rules of JobInProgress (findSpeculativeTask, isSlowTracker,
atSpeculativeCap) against schedlab's ``hadoop`` speculator, on the scheduler harness.

Hadoop's fixture: five trackers; a fake job hands out a pending task when a tracker asks
(findMapTask / findReduceTask), else a speculative copy; the fake clock adds the speculative lag
(60 s, TaskInProgress.SPECULATIVE_LAG) to every advance. Here a scheduler hands out the pending
tasks, one per heartbeat as the fake job does per call (``fair`` with ``assign_multiple=False`` and
no load cap, ``load_max_diff=1``),
the ``hadoop`` speculator the copies, and each tracker has as many slots as the test gives it
tasks at once.
"""
from __future__ import annotations

import pytest

from schedlab.testing import Harness

LAG_MS = 60_000


class SpecCluster:
    def __init__(self, map_slots, reduce_slots, scheduler="fair", scheduler_params=None, **spec):
        params = ",".join(f"{k}:{v}" for k, v in spec.items())
        if scheduler == "fair" and scheduler_params is None:
            # one task per call, as findMapTask; no load cap (the fake job has none)
            scheduler_params = {"assign_multiple": False, "load_max_diff": 1.0}
        self.h = Harness(scheduler, params=scheduler_params or {},
                         options={"slowstart": 0, "speculation": "hadoop", "speculation_params": params})
        for k, (m, r) in enumerate(zip(map_slots, reduce_slots)):
            self.h.add_tracker(f"tracker{k + 1}", map_slots=m, reduce_slots=r)
        self.ms = 0

    def advance(self, ms: int) -> None:
        """SpecFakeClock.advance: the time given plus the speculative lag."""
        self.ms += ms + LAG_MS
        self.h.set_time(self.ms / 1000)

    def find(self, tracker: str) -> list[str]:
        return [a.attempt for a in self.h.heartbeat(tracker)]


def m(i: int, attempt: int = 0) -> str:
    return f"attempt_test_0001_m_{i:06d}_{attempt}"


def r(i: int, attempt: int = 0) -> str:
    return f"attempt_test_0001_r_{i:06d}_{attempt}"


def test_testIsSlowTracker():
    """TestSpeculativeExecution.testIsSlowTracker: tasks of a job take 61 s on tracker1, 122 s on
    tracker2 and 282 s on tracker3: tracker1 is not slow, tracker3 is (its mean duration is more
    than one standard deviation above the trackers' mean)."""
    c = SpecCluster(map_slots=[3, 3, 3, 1, 1], reduce_slots=[0] * 5)
    c.h.submit(10, 0)
    for k in range(9):
        assert c.find(f"tracker{k // 3 + 1}") == [m(k)]
    c.advance(1000)
    for i in (0, 1, 2):
        c.h.finish(m(i))
    c.advance(1000)
    for i in (3, 4, 5):
        c.h.finish(m(i))
    assert c.h.tracker_state("tracker1")["map_slow_tracker"] == 0
    c.advance(100000)
    for i in (6, 7, 8):
        c.h.finish(m(i))
    assert c.h.tracker_state("tracker3")["map_slow_tracker"] == 1


def test_testTaskToSpeculate():
    """TestSpeculativeExecution.testTaskToSpeculate: with slowTaskThreshold 0.5, after two of
    five reduces finished, a free tracker gets a copy of reduce 2, and once that ends, of reduce 3.
    The running reduces report progress 0: reduce 2 is slow only against statistics that keep the
    finished reduces' rates (1/65 s, 1/126 s), as JobInProgress's runningReduceTaskStats do."""
    c = SpecCluster(map_slots=[0] * 5, reduce_slots=[1, 1, 1, 2, 1], slow_task_threshold=0.5)
    c.h.submit(5, 5)
    assert c.find("tracker1") == [r(0)]
    assert c.find("tracker2") == [r(1)]
    assert c.find("tracker3") == [r(2)]
    assert c.find("tracker4") == [r(3)]
    assert c.find("tracker4") == [r(4)]
    c.advance(5000)
    c.h.finish(r(0))
    c.advance(1000)
    c.h.finish(r(1))
    c.advance(20000)
    assert c.find("tracker5") == [r(2, 1)]
    c.advance(5000)
    c.h.finish(r(2, 1))
    assert c.find("tracker5") == [r(3, 1)]


def test_testTaskLATEScheduling():
    """TestSpeculativeExecution.testTaskLATEScheduling: of two slow maps, the copy goes to the
    one expected to finish later (map 4: progress 0.20 after 65 s), not to the one with the lower
    progress rate (map 3: 0.85 after 215 s)."""
    c = SpecCluster(map_slots=[1, 1, 1, 2, 1], reduce_slots=[0] * 5, slow_task_threshold=0.5)
    c.h.submit(5, 0)
    for k in range(4):
        assert c.find(f"tracker{k + 1}") == [m(k)]
    c.advance(2000)
    for i in (0, 1, 2):
        c.h.finish(m(i))
    c.advance(28000)
    assert c.find("tracker4") == [m(4)]
    c.advance(5000)
    c.h.set_progress(m(3), 0.85)
    c.h.set_progress(m(4), 0.20)
    assert c.find("tracker5") == [m(4, 1)]


def _speculative_cap(total: int, early: int, slots: int) -> int:
    # tracker1 holds the job's `total` maps at once, tracker2 room for a copy of every running map
    # and for the rest of the cluster's `slots` map slots
    c = SpecCluster(map_slots=[total, max(total - early, slots - total), 0, 0, 0], reduce_slots=[0] * 5,
                    scheduler="fifo", scheduler_params={"load_factor_cap": False})
    c.h.submit(total, 0)
    assert len(c.find("tracker1")) == total
    c.advance(5000)
    for i in range(early):
        c.h.finish(m(i))
    for i in range(early, total):
        c.h.set_progress(m(i), 0.85)
    c.advance(50000)
    launched = 0
    for _ in range(total - early):
        got = c.find("tracker2")
        c.advance(2000)
        if not got:
            break
        for a in got:
            c.h.set_progress(a, 0.99)
        launched += len(got)
    return launched


@pytest.mark.xfail(strict=True, reason=(
    "harness modelling: Hadoop's fake JobTracker reports 10 map slots while one tracker runs 1200 "
    "attempts; on the harness's cluster those attempts need real slots (>= 1250), so the cap's "
    "1 %-of-slots floor is 12.5 and 13 copies start where Hadoop stops at 10. The cases of 40 copies "
    "(0.1 x 400 running) and 20 copies (1 % of 2000 slots) agree"))
def test_testAtSpeculativeCap():
    """TestSpeculativeExecution.testAtSpeculativeCap: copies stop at max(10, 0.01 x slots,
    0.1 x running tasks): 40 of 400 running, 10 of 50 on a small cluster, 20 of 50 with 2000 slots."""
    assert _speculative_cap(1200, 800, 20) == 40
    assert _speculative_cap(1200, 1150, 20) == 10
    assert _speculative_cap(1200, 1150, 2000) == 20


def test_testTaskToSpeculate_running_statistics_see_no_slow_task():
    """The same scenario with rate_statistics=running (the running attempts' rates alone): every
    running reduce's rate is 0, none is below the mean, and no copy is launched."""
    c = SpecCluster(map_slots=[0] * 5, reduce_slots=[1, 1, 1, 2, 1], slow_task_threshold=0.5,
                    rate_statistics="running")
    c.h.submit(5, 5)
    for tracker, reduce in (("tracker1", 0), ("tracker2", 1), ("tracker3", 2), ("tracker4", 3), ("tracker4", 4)):
        assert c.find(tracker) == [r(reduce)]
    c.advance(5000)
    c.h.finish(r(0))
    c.advance(1000)
    c.h.finish(r(1))
    c.advance(20000)
    assert c.find("tracker5") == []
