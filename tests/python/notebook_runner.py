"""Executes a notebook of notebooks/ with small parameters (SCHEDLAB_SMALL=1) and returns the
CSV of reproduced numbers it writes to SCHEDLAB_OUT."""
from __future__ import annotations

import os
import pathlib

import pandas as pd
import pytest

import schedlab as sl
from conftest import REPO

# the schedlab the tests import (an installed wheel in CI, the source tree in development)
PYTHON_DIR = pathlib.Path(sl.__file__).resolve().parents[1]


def run_notebook(name: str, tmp_dir) -> pd.DataFrame:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = REPO / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{name} stored with outputs"
    out = tmp_dir / (path.stem + ".csv")
    env = {"SCHEDLAB_SMALL": "1", "SCHEDLAB_OUT": str(out),
           "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")]), "MPLBACKEND": "Agg"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return pd.read_csv(out)
