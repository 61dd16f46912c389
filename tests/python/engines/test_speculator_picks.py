"""Which running task a speculator copies, on hand-checked cases of the scheduler harness: the
longest estimated time left among the slow tasks, and among equal times left the earliest
attempt (the order of the speculators' snapshot: job, stage, attempt).

The cluster: ten trackers run one map each (maps 0-9), an eleventh ran map 10 to its end and asks
for work. Maps 0 and 1 are given less progress than the others; both are slow for either rule
(LATE: progress rate below the 25th percentile of the job's running maps; Hadoop: below mean - 1
std), and the asking tracker is not slow (LATE: its finished map puts its total progress above
the 25th percentile of the trackers'; Hadoop: it is the only tracker with a finished map).
"""
from __future__ import annotations

import pytest

from schedlab.testing import Harness


def m(i: int, attempt: int = 0) -> str:
    return f"attempt_test_0001_m_{i:06d}_{attempt}"


def copy_after(speculation: str, progress: dict[int, float]) -> list[str]:
    """The attempts the eleventh tracker gets once maps 0-9 have run 100 s with `progress`
    (0.9 for the maps not given)."""
    # fair: one task per heartbeat and no load cap, so that each tracker takes the next map
    h = Harness("fair", params={"assign_multiple": False, "load_max_diff": 1.0},
                options={"slowstart": 0, "speculation": speculation})
    for k in range(11):
        h.add_tracker(f"tracker{k + 1}", map_slots=1, reduce_slots=0)
    h.submit(11, 0)
    for k in range(11):
        assert [a.attempt for a in h.heartbeat(f"tracker{k + 1}")] == [m(k)]
    h.advance(100.0)
    h.finish(m(10))
    for i in range(10):
        h.set_progress(m(i), progress.get(i, 0.9))
    return [a.attempt for a in h.heartbeat("tracker11")]


@pytest.mark.parametrize("speculation", ["late", "hadoop"])
def test_copy_goes_to_the_longest_time_left(speculation):
    # map 1 (0.2 after 100 s: 400 s left) before map 0 (0.3: 233 s left), though map 0 is earlier
    assert copy_after(speculation, {0: 0.3, 1: 0.2}) == [m(1, 1)]
    assert copy_after(speculation, {0: 0.2, 1: 0.3}) == [m(0, 1)]


@pytest.mark.parametrize("speculation", ["late", "hadoop"])
def test_equal_times_left_go_to_the_earliest_attempt(speculation):
    assert copy_after(speculation, {0: 0.2, 1: 0.2}) == [m(0, 1)]
    assert copy_after(speculation, {1: 0.2, 2: 0.2}) == [m(1, 1)]


def test_late_copies_no_task_when_rates_are_equal():
    # every rate equals the 25th percentile: none is below it
    assert copy_after("late", {}) == []
