"""Every notebook in notebooks/ runs from top to bottom with small parameters (SCHEDLAB_SMALL=1)
and is stored without outputs. A notebook that another test module names (which runs it and may
check its numbers) is executed there rather than twice."""
import os
import pathlib

import pytest

import schedlab as sl
from conftest import REPO, traces_dir

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
PYTHON_DIR = pathlib.Path(sl.__file__).resolve().parents[1]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: cell {k} is stored with outputs"
            assert cell.get("execution_count") is None, f"{path.name}: cell {k} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_with_small_parameters(path, monkeypatch, tmp_path):
    own = [t.name for t in sorted((REPO / "tests" / "python").glob("test_*.py"))
           if t.name != pathlib.Path(__file__).name and path.name in t.read_text(errors="replace")]
    if own:
        pytest.skip(f"{path.name} is executed by {', '.join(own)}")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("SCHEDLAB_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", str(PYTHON_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if traces_dir() is not None:
        monkeypatch.setenv("SCHEDLAB_TRACES", str(traces_dir()))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
