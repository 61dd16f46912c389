"""Executes notebooks/hybrid.ipynb with small parameters (SCHEDLAB_SMALL=1)."""
from __future__ import annotations

import os

import pytest

from conftest import REPO, trace_path

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def test_hybrid_notebook_runs_small(monkeypatch):
    trace_path("hawk_eagle", "YH1_sub.tr")
    trace_path("hawk_eagle", "GOOG_subtrace.tr")
    path = REPO / "notebooks" / "hybrid.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "notebook stored with outputs"
    monkeypatch.setenv("SCHEDLAB_SMALL", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "python"), os.environ.get("PYTHONPATH", "")]))
    client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    text = "\n".join(o.get("text", "") or str(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "small run: True" in text and "trace samples present: True" in text
    assert "REPRODUCED" in text
