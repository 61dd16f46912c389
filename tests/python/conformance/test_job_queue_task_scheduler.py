"""Hadoop 1.2.1's TestJobQueueTaskScheduler (src/test/org/apache/hadoop/mapred), ported: the
default FIFO scheduler (JobQueueTaskScheduler) against schedlab's ``fifo``.

Hadoop's fixture: two TaskTrackers tt1 and tt2 with 2 map and 2 reduce slots each; every job has
10 maps and 10 reduces without locality information; the fake job numbers the tasks it hands out
with one counter from 1 across maps and reduces (``task_ids="counter"``) and starts reduces at
once (no slowstart: ``slowstart=0``).
"""
from schedlab.testing import Harness


def fifo_cluster():
    h = Harness("fifo", options={"slowstart": 0}, task_ids="counter")
    h.add_tracker("tt1", rack="rack", map_slots=2, reduce_slots=2, host="tt1.host")
    h.add_tracker("tt2", rack="rack", map_slots=2, reduce_slots=2, host="tt2.host")
    return h


def test_testTaskNotAssignedWhenNoJobsArePresent():
    """TestJobQueueTaskScheduler.testTaskNotAssignedWhenNoJobsArePresent"""
    h = fifo_cluster()
    assert h.heartbeat("tt1") == []


def test_testNonRunningJobsAreIgnored():
    """TestJobQueueTaskScheduler.testNonRunningJobsAreIgnored: jobs in PREP, SUCCEEDED, FAILED and
    KILLED states get no task."""
    h = fifo_cluster()
    for state in ("PREP", "SUCCEEDED", "FAILED", "KILLED"):
        h.submit(10, 10, state=state)
    assert h.heartbeat("tt1") == []


def test_testDefaultTaskAssignment():
    """TestJobQueueTaskScheduler.testDefaultTaskAssignment: the first job fills every slot; two
    maps and one reduce per heartbeat, then the second reduce at the next."""
    h = fifo_cluster()
    h.submit(10, 10)
    h.submit(10, 10)
    assert h.heartbeat("tt1") == ["attempt_test_0001_m_000001_0 on tt1", "attempt_test_0001_m_000002_0 on tt1",
                                  "attempt_test_0001_r_000003_0 on tt1"]
    assert h.heartbeat("tt1") == ["attempt_test_0001_r_000004_0 on tt1"]
    assert h.heartbeat("tt1") == []
    assert h.heartbeat("tt2") == ["attempt_test_0001_m_000005_0 on tt2", "attempt_test_0001_m_000006_0 on tt2",
                                  "attempt_test_0001_r_000007_0 on tt2"]
    assert h.heartbeat("tt2") == ["attempt_test_0001_r_000008_0 on tt2"]
    assert h.heartbeat("tt2") == []
    assert h.heartbeat("tt1") == []
    assert h.heartbeat("tt2") == []
