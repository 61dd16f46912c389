"""Executes notebooks/eunomia.ipynb with small parameters (SCHEDLAB_SMALL=1)."""
from __future__ import annotations

from notebook_runner import execute_notebook, notebook_text


def test_eunomia_notebook_runs_small():
    text = notebook_text(execute_notebook("eunomia.ipynb", timeout=600))
    assert "small run: True" in text
