"""The scheduler harness's own behaviour: names, clear errors, replay after late submissions."""
import pytest

from schedlab.testing import Harness, fair_allocations


def cluster(scheduler="fifo", **params):
    h = Harness(scheduler, params=params, options={"slowstart": 0})
    h.add_tracker("tt1", rack="r1", map_slots=2, reduce_slots=1)
    h.add_tracker("tt2", rack="r1", map_slots=2, reduce_slots=1)
    return h


def test_names_and_attributes():
    h = cluster()
    assert h.submit(4, 1) == "job_test_0001"
    got = h.heartbeat("tt1")
    assert got == ["attempt_test_0001_m_000000_0 on tt1", "attempt_test_0001_m_000001_0 on tt1",
                   "attempt_test_0001_r_000000_0 on tt1"]
    assert [a.is_map for a in got] == [True, True, False]
    assert {a.tracker for a in got} == {"tt1"} and not any(a.speculative for a in got)
    assert h.running_attempts("tt1") == [a.attempt for a in got]
    assert h.assignments() == got


def test_clear_errors():
    h = cluster()
    h.submit(2, 0)
    with pytest.raises(ValueError, match="unknown tracker 'tt9'"):
        h.heartbeat("tt9")
    with pytest.raises(ValueError, match="unknown attempt"):
        h.finish("attempt_test_0001_m_000000_0")  # not handed out yet
    h.heartbeat("tt1")
    h.advance(1.0)
    with pytest.raises(ValueError, match="backwards"):
        h.set_time(0.5)
    with pytest.raises(ValueError, match="backwards"):
        h.advance(-1)
    h.finish("attempt_test_0001_m_000000_0")
    with pytest.raises(ValueError, match="finished already"):
        h.finish("attempt_test_0001_m_000000_0")
    with pytest.raises(ValueError, match="not running"):
        h.kill("attempt_test_0001_m_000000_0")
    with pytest.raises(ValueError, match="unknown job"):
        h.job_state("job_test_0007")
    with pytest.raises(ValueError, match="no action"):
        h.act("preempt")  # fifo has none
    with pytest.raises(ValueError):
        h.set_progress("attempt_test_0001_m_000001_0", 1.5)
    with pytest.raises(ValueError, match="priority"):
        h.submit(1, 0, priority="URGENT")
    with pytest.raises(ValueError):
        Harness("no_such_scheduler")


def test_late_submission_replays_the_same_state():
    """A job submitted after heartbeats restarts the engine and replays the actions: the state
    and the names handed out so far are unchanged."""
    h = cluster("fair", assign_multiple=True)
    h.submit(4, 0, pool="a")
    first = h.heartbeat("tt1")
    h.advance(2.0)
    h.finish(first[0].attempt)
    h.submit(4, 0, pool="b")
    assert h.assignments() == first
    assert h.attempt_status(first[0].attempt) == "succeeded"
    assert h.now == 2.0
    assert h.job_state("job_test_0001")["done"] == (1, 0)


PRIORITY_SCHEDULERS = {
    "fifo": {"load_factor_cap": False},
    "fair": {"pool_by": "queue", "pool_mode": "fifo", "assign_multiple": False},
    "capacity": {"supports_priority": True},
}


@pytest.mark.parametrize("scheduler", sorted(PRIORITY_SCHEDULERS))
def test_set_priority_after_heartbeats_resorts_the_jobs(scheduler):
    """Hadoop changes a JobInProgress's priority at any time and its schedulers re-sort: after
    heartbeats, the second job raised to HIGH gets the next slot; the change survives a replay."""
    h = Harness(scheduler, params=PRIORITY_SCHEDULERS[scheduler], options={"slowstart": 0})
    h.add_tracker("tt1", map_slots=1, reduce_slots=1)
    h.submit(3, 0)
    h.submit(3, 0)
    assert h.heartbeat("tt1") == ["attempt_test_0001_m_000000_0 on tt1"]
    h.advance(1)
    h.finish("attempt_test_0001_m_000000_0")
    h.set_priority("job_test_0002", "HIGH")
    assert h.heartbeat("tt1") == ["attempt_test_0002_m_000000_0 on tt1"]
    h.advance(1)
    h.submit(1, 0)  # (the harness restarts the engine and replays, priority change included)
    assert h.assignments() == ["attempt_test_0001_m_000000_0 on tt1", "attempt_test_0002_m_000000_0 on tt1"]
    h.finish("attempt_test_0002_m_000000_0")
    h.set_priority("job_test_0002", "LOW")
    assert h.heartbeat("tt1") == ["attempt_test_0001_m_000001_0 on tt1"]


def test_set_priority_after_heartbeats_weighs_fair_jobs():
    """In a fair pool a priority is a weight factor (HIGH: 2), taken up at once."""
    h = Harness("fair", params={"assign_multiple": False}, options={"slowstart": 0})
    h.add_tracker("tt1", map_slots=2, reduce_slots=1)
    h.submit(4, 0)
    h.submit(4, 0)
    h.heartbeat("tt1")
    assert h.job_state("job_test_0002")["map_weight"] == 1.0
    h.set_priority("job_test_0002", "HIGH")
    assert h.job_state("job_test_0002")["map_weight"] == 2.0


def test_fail_requeues_with_a_new_attempt_number():
    h = cluster(load_factor_cap=False)
    h.submit(3, 0)
    h.heartbeat("tt1")
    h.fail("attempt_test_0001_m_000000_0")
    assert h.attempt_status("attempt_test_0001_m_000000_0") == "failed"
    assert h.heartbeat("tt1") == ["attempt_test_0001_m_000000_1 on tt1"]


def test_fair_allocations_rejects_unknown_elements():
    with pytest.raises(ValueError, match="unknown element <minSlots>"):
        fair_allocations('<allocations><pool name="a"><minSlots>1</minSlots></pool></allocations>')
    with pytest.raises(ValueError, match="must be a whole number"):
        fair_allocations('<allocations><pool name="a"><minMaps>x</minMaps></pool></allocations>')
    assert fair_allocations('<allocations><pool name="a"><weight>2</weight><schedulingMode>FIFO</schedulingMode>'
                            '</pool></allocations>') == {"pool_weights": "a:2.0", "pool_modes": "a:fifo"}
