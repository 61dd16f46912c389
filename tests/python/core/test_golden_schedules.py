"""Golden schedules: the jobs and tasks tables of a few hundred small configurations (every
scheduler, every speculator, faults, engine options) must hash as recorded in
``tests/golden/schedules.json``. A change that moves a schedule on purpose regenerates them with
``python tests/golden/regenerate.py``, the reason going into the commit message."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest

GOLDEN_DIR = pathlib.Path(__file__).resolve().parents[3] / "tests" / "golden"
sys.path.insert(0, str(GOLDEN_DIR))
from configurations import GOLDEN_FILE, configurations, fingerprint  # noqa: E402

GOLDEN = json.loads(GOLDEN_FILE.read_text())
CONFIGS = list(configurations())


def test_every_golden_configuration_is_generated():
    assert sorted(GOLDEN) == sorted(name for name, _, _ in CONFIGS)


@pytest.mark.parametrize("name,engine,thunk", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_schedule_unchanged(name, engine, thunk):
    if name.startswith("mrcp/"):
        pytest.importorskip("ortools")
    assert fingerprint(engine, thunk) == GOLDEN[name], (
        f"the schedule of {name} moved; if that is meant, run 'python tests/golden/regenerate.py' "
        "and give the reason in the commit message")
