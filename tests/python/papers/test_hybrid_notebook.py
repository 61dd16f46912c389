"""Executes notebooks/hybrid.ipynb with small parameters (SCHEDLAB_SMALL=1)."""
from __future__ import annotations

from conftest import trace_path
from notebook_runner import execute_notebook, notebook_text


def test_hybrid_notebook_runs_small():
    trace_path("hawk_eagle", "YH1_sub.tr")
    trace_path("hawk_eagle", "GOOG_subtrace.tr")
    text = notebook_text(execute_notebook("hybrid.ipynb"))
    assert "small run: True" in text and "trace samples present: True" in text
    assert "REPRODUCED" in text
