"""Every notebook in notebooks/ runs from top to bottom with small parameters (SCHEDLAB_SMALL=1)
and is stored without outputs. A notebook that another test module names (which runs it and may
check its numbers) is executed there rather than twice."""
import pathlib

import pytest

from conftest import REPO
from notebook_runner import execute_notebook

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: cell {k} is stored with outputs"
            assert cell.get("execution_count") is None, f"{path.name}: cell {k} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_with_small_parameters(path, tmp_path):
    own = [t.name for t in sorted((REPO / "tests" / "python").rglob("test_*.py"))
           if t.name != pathlib.Path(__file__).name and path.name in t.read_text(errors="replace")]
    if own:
        pytest.skip(f"{path.name} is executed by {', '.join(own)}")
    nb = execute_notebook(path.name, {"SCHEDLAB_CACHE": str(tmp_path / "cache")}, timeout=600)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
