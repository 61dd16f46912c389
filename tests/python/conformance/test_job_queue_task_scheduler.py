"""Hadoop 1.2.1's TestJobQueueTaskScheduler (src/test/org/apache/hadoop/mapred), ported: the
default FIFO scheduler (JobQueueTaskScheduler) against schedlab's ``fifo``.

Hadoop's fixture: two TaskTrackers tt1 and tt2 with 2 map and 2 reduce slots each; every job has
10 maps and 10 reduces without locality information; the fake job numbers the tasks it hands out
with one counter from 1 across maps and reduces (``task_ids="counter"``) and starts reduces at
once (no slowstart: ``slowstart=0``).

Each scenario runs twice: against the built-in ``fifo`` and against ``FifoInPython``, the same
scheduler written in Python on the Python scheduler interface (``schedlab.Scheduler``), which the
harness drives as it drives the built-in ones.
"""
import pytest

from schedlab.schedulers import FifoInPython
from schedlab.testing import Harness

SCHEDULERS = {"fifo": lambda: "fifo", "FifoInPython": FifoInPython}


@pytest.fixture(params=sorted(SCHEDULERS))
def scheduler(request):
    return SCHEDULERS[request.param]()


def fifo_cluster(scheduler="fifo"):
    h = Harness(scheduler, options={"slowstart": 0}, task_ids="counter")
    h.add_tracker("tt1", rack="rack", map_slots=2, reduce_slots=2, host="tt1.host")
    h.add_tracker("tt2", rack="rack", map_slots=2, reduce_slots=2, host="tt2.host")
    return h


def test_testTaskNotAssignedWhenNoJobsArePresent(scheduler):
    """TestJobQueueTaskScheduler.testTaskNotAssignedWhenNoJobsArePresent"""
    h = fifo_cluster(scheduler)
    assert h.heartbeat("tt1") == []


def test_testNonRunningJobsAreIgnored(scheduler):
    """TestJobQueueTaskScheduler.testNonRunningJobsAreIgnored: jobs in PREP, SUCCEEDED, FAILED and
    KILLED states get no task."""
    h = fifo_cluster(scheduler)
    for state in ("PREP", "SUCCEEDED", "FAILED", "KILLED"):
        h.submit(10, 10, state=state)
    assert h.heartbeat("tt1") == []


def test_testDefaultTaskAssignment(scheduler):
    """TestJobQueueTaskScheduler.testDefaultTaskAssignment: the first job fills every slot; two
    maps and one reduce per heartbeat, then the second reduce at the next."""
    h = fifo_cluster(scheduler)
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


def test_python_scheduler_replays_after_a_late_submission():
    """A job submitted after heartbeats restarts the engine: the Python scheduler's init runs again
    and the replay hands out the same tasks; the next heartbeats go on as with the built-in fifo."""
    runs = {}
    for name, make in SCHEDULERS.items():
        h = fifo_cluster(make())
        h.submit(3, 1)
        h.heartbeat("tt1")
        h.advance(1)
        h.finish("attempt_test_0001_m_000001_0")
        h.submit(2, 0)
        runs[name] = (h.assignments(), h.heartbeat("tt1"), h.heartbeat("tt2"))
    assert runs["FifoInPython"] == runs["fifo"]
    assert runs["fifo"][0] == ["attempt_test_0001_m_000001_0 on tt1", "attempt_test_0001_m_000002_0 on tt1",
                               "attempt_test_0001_r_000003_0 on tt1"]


def test_python_scheduler_takes_no_params():
    with pytest.raises(ValueError, match="constructor"):
        Harness(FifoInPython(), params={"k": 1})
    with pytest.raises(ValueError, match="registered scheduler's name"):
        Harness(42)
