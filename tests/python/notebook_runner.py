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
