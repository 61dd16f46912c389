"""Executes a notebook of notebooks/ with small parameters (SCHEDLAB_SMALL=1) against the
schedlab the tests import (an installed wheel in CI, the source tree in development)."""
from __future__ import annotations

import os
import pathlib

import pandas as pd
import pytest

import schedlab as sl
from conftest import REPO, traces_dir

# the directory holding the schedlab package the tests import; the kernel must see the same one
PYTHON_DIR = pathlib.Path(sl.__file__).resolve().parents[1]


def execute_notebook(name: str, extra_env: dict | None = None, timeout: int = 900):
    """Runs notebooks/<name> top to bottom in a fresh kernel and returns the executed notebook.
    Raises nbclient's CellExecutionError naming the failing cell."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    path = REPO / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{name} stored with outputs"
    env = {"SCHEDLAB_SMALL": "1", "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")])}
    if traces_dir() is not None:
        env["SCHEDLAB_TRACES"] = str(traces_dir())
    env.update(extra_env or {})
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def notebook_text(nb) -> str:
    """Everything the executed notebook's code cells printed or displayed as text."""
    return "\n".join(o.get("text", "") or str(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def run_notebook(name: str, tmp_dir, timeout: int = 900) -> pd.DataFrame:
    """Runs the notebook and returns the CSV of reproduced numbers it writes to SCHEDLAB_OUT."""
    out = tmp_dir / (pathlib.Path(name).stem + ".csv")
    execute_notebook(name, {"SCHEDLAB_OUT": str(out)}, timeout)
    return pd.read_csv(out)


def claim_verdicts(nb) -> dict:
    """The ``CLAIM <paper>/<id>: <verdict> | <numbers>`` lines an executed notebook printed
    (schedlab.papers.report.show), as {"paper/id": (verdict, line)}."""
    out = {}
    for line in notebook_text(nb).splitlines():
        if line.startswith("CLAIM "):
            key, _, rest = line[len("CLAIM "):].partition(": ")
            out[key] = (rest.split(" | ")[0].strip(), line)
    return out


def assert_claims_as_recorded(nb, paper: str, ids) -> dict:
    """Every claim ``paper/id`` of ``ids`` printed its verdict in the notebook, and the verdict is
    the one recorded for the small size in python/schedlab/papers/claims/<paper>.toml (so the
    notebook shows what the claim tests and the report show, and a change either way fails)."""
    from schedlab.papers import claims

    seen = claim_verdicts(nb)
    recorded = {f"{c.paper}/{c.id}": c.recorded("small") for c in claims.load(paper) if c.id in set(ids)}
    assert len(recorded) == len(set(ids)), f"unknown claim ids in {ids}"
    for key, want in recorded.items():
        assert key in seen, f"{key}: the notebook printed no verdict (printed: {sorted(seen)})"
        got, line = seen[key]
        assert got == want, f"{key}: the notebook's verdict {got!r} is not the recorded {want!r}: {line}"
    return seen
