"""Golden schedules: the jobs and tasks tables of a few hundred small configurations (every
scheduler, every speculator, faults, engine options) must hash as recorded in
``tests/golden/schedules.json``, and those of runs on the shared real-trace samples (the Hawk/Eagle
simulator's own configurations, SWIM's FB-2009 day) as recorded in
``tests/golden/trace_schedules.json``. A change that moves a schedule on purpose regenerates them
with ``python tests/golden/regenerate.py``, the reason going into the commit message."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest

GOLDEN_DIR = pathlib.Path(__file__).resolve().parents[3] / "tests" / "golden"
sys.path.insert(0, str(GOLDEN_DIR))
from configurations import (GOLDEN_FILE, TRACE_GOLDEN_FILE, configurations, fingerprint,  # noqa: E402
                            trace_configurations)
from conftest import trace_path  # noqa: E402

GOLDEN = json.loads(GOLDEN_FILE.read_text())
CONFIGS = list(configurations())
TRACE_GOLDEN = json.loads(TRACE_GOLDEN_FILE.read_text())
TRACE_CONFIGS = list(trace_configurations())


def test_every_golden_configuration_is_generated():
    assert sorted(GOLDEN) == sorted(name for name, _, _ in CONFIGS)


@pytest.mark.parametrize("name,engine,thunk", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_schedule_unchanged(name, engine, thunk):
    if name.startswith("mrcp/"):
        pytest.importorskip("ortools")
    assert fingerprint(engine, thunk) == GOLDEN[name], (
        f"the schedule of {name} moved; if that is meant, run 'python tests/golden/regenerate.py' "
        "and give the reason in the commit message")


def test_every_trace_configuration_is_recorded():
    assert sorted(TRACE_GOLDEN) == sorted(name for name, _, _, _ in TRACE_CONFIGS)


@pytest.mark.parametrize("name,engine,trace,run", TRACE_CONFIGS, ids=[c[0] for c in TRACE_CONFIGS])
def test_trace_schedule_unchanged(name, engine, trace, run):
    path = trace_path(*trace.split("/"))
    assert fingerprint(engine, lambda: run(path)) == TRACE_GOLDEN[name], (
        f"the schedule of {name} moved; if that is meant, run 'python tests/golden/regenerate.py' "
        "with the trace samples present and give the reason in the commit message")
