"""The README's Python snippets run, in order and in one namespace, so the front page cannot rot.
A snippet that is not meant to run alone is preceded by the line ``<!-- not run: REASON -->``.
Snippets read traces from the shared samples when they are present (``SCHEDLAB_TRACES``)."""
from __future__ import annotations

import os
import re

import pytest

from conftest import MISSING_TRACE, REPO, traces_dir

BLOCK = re.compile(r"(<!-- not run: [^>]*-->\s*\n)?```python\n(.*?)```", re.S)


def snippets():
    text = (REPO / "README.md").read_text()
    return [(m.group(2), m.group(1)) for m in BLOCK.finditer(text)]


def test_the_readme_has_snippets_that_run():
    assert any(skip is None for _, skip in snippets())


def test_readme_snippets_run(tmp_path, monkeypatch):
    traces = traces_dir()
    if traces is None:
        pytest.skip(f"{MISSING_TRACE}: the README's snippets read the shared trace samples")
    monkeypatch.setenv("SCHEDLAB_TRACES", str(traces))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    for k, (code, skip) in enumerate(snippets()):
        if skip is not None:
            continue
        try:
            exec(compile(code, f"README.md python snippet {k + 1}", "exec"), namespace)
        except Exception as e:  # noqa: BLE001  (name the snippet that failed)
            raise AssertionError(f"README.md python snippet {k + 1} failed: {type(e).__name__}: {e}") from e
