"""Shared fixtures and invariant checks for the Python test suite."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


# every skip for a missing trace says this, so that the run's last line can count them
MISSING_TRACE = "trace sample missing"


def traces_dir() -> pathlib.Path | None:
    """The shared real-trace samples: the traces folder when one is set ($SCHEDLAB_TRACES, or
    'schedlab config set traces FOLDER'; and only it), else ../shared/traces beside the repo."""
    from schedlab.core import config
    chosen = config.get("traces").value
    for cand in [pathlib.Path(chosen)] if chosen else [REPO.parent / "shared" / "traces"]:
        if cand.is_dir():
            return cand
    return None


@pytest.fixture
def traces():
    d = traces_dir()
    if d is None:
        pytest.skip(f"{MISSING_TRACE}: the folder of trace samples ($SCHEDLAB_TRACES) is not present")
    return d


def trace_path(*parts) -> pathlib.Path:
    """A trace file under the shared samples, or one fetched into the download cache by
    ``schedlab datasets get``; else skip the test cleanly."""
    rel = "/".join(parts)
    d = traces_dir()
    if d is not None and d.joinpath(*parts).exists():
        return d.joinpath(*parts)
    try:
        from schedlab.workloads import download as dl
        for r in dl.REMOTES.values():
            if r.path == rel:
                local = dl.local_copy(r.name, verify=False)
                if local:
                    return pathlib.Path(local)
    except ImportError:
        pass
    pytest.skip(f"{MISSING_TRACE}: {rel} is not present")


def pytest_terminal_summary(terminalreporter):
    """One line at the end: how many tests skipped for want of a trace sample, and how to get them."""
    n = sum(1 for r in terminalreporter.stats.get("skipped", []) if MISSING_TRACE in str(r.longrepr))
    if n:
        terminalreporter.write_line(
            f"{n} test{'s' if n > 1 else ''} skipped for missing trace samples: run 'schedlab datasets get --all' "
            "(downloads and checks them) or set SCHEDLAB_TRACES to a folder holding them (docs/datasets.md)",
            yellow=True, bold=True)


def assert_slot_invariants(result, *, typed=True, tol=1e-9):
    """Checks a mapreduce-engine result: no node holds more slots of a type than it has
    (typed=True) or more than its total slots (typed=False), an attempt holding one slot unless
    the result has a ``slots`` column (DynamicMR slot weights), every task succeeds exactly once,
    no attempt ends before it starts, reduces never finish before their job's last map."""
    tasks = result.tasks
    wl_tasks = result.workload.tasks
    nodes = result.cluster.nodes
    # time never goes backwards within an attempt
    fin = tasks["finish"].to_numpy()
    st = tasks["start"].to_numpy()
    assert (st >= -tol).all()
    done = np.isfinite(fin)
    assert (fin[done] >= st[done] - tol).all(), "an attempt finished before it started"
    # each task succeeds exactly once (when the run completed)
    ok = tasks[tasks["status"] == "succeeded"]
    if result.jobs["finish_time"].notna().all():
        counts = ok["task_id"].value_counts()
        assert len(counts) == len(wl_tasks), "some task never succeeded"
        assert (counts == 1).all(), "a task succeeded more than once"
    # concurrency per node and slot type, by sweeping start/end events
    kinds = ["slot_type"] if typed and "slot_type" in tasks else []
    groups = tasks.groupby(["node"] + kinds, observed=True)
    for key, g in groups:
        node = key[0] if isinstance(key, tuple) else key
        if typed and kinds:
            cap = nodes.loc[node, "map_slots" if key[1] == "map" else "reduce_slots"]
        else:
            cap = nodes.loc[node, "map_slots"] + nodes.loc[node, "reduce_slots"]
        ends = np.where(np.isfinite(g["finish"]), g["finish"], np.inf)
        times = np.concatenate([g["start"].to_numpy(), ends])
        held = g["slots"].to_numpy(float) if "slots" in g else np.ones(len(g))  # slots per attempt (slot weights)
        delta = np.concatenate([held, -held])
        order = np.lexsort((delta, times))  # ends before starts at equal times
        peak = np.cumsum(delta[order]).max()
        assert peak <= cap + tol, f"node {node} {key} ran {peak} attempts at once with {cap} slots"
    # reduces never finish before the job's last map
    jobs = result.jobs.set_index("job_id")
    red = ok[ok["stage"] == "reduce"]
    if len(red):
        last_map = jobs.loc[red["job_id"], "map_finish_time"].to_numpy()
        has_maps = jobs.loc[red["job_id"], "n_maps"].to_numpy() > 0
        assert (red["finish"].to_numpy()[has_maps] >= last_map[has_maps] - tol).all(), "a reduce finished before its job's last map"
    # job times are consistent with their attempts
    js = result.jobs
    fin_ok = js["finish_time"].notna()
    assert (js["start_time"][fin_ok] >= js["submit_time"][fin_ok] - tol).all()
    assert (js["finish_time"][fin_ok] >= js["start_time"][fin_ok] - tol).all()
