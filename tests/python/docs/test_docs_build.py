"""The documentation site builds with warnings as errors (python -m sphinx -W): every page, the
API reference from the docstrings, the command-line reference from the parser, the notebooks
(rendered as stored here; the documented build command executes them)."""
import os
import pathlib
import subprocess
import sys

import pytest

import schedlab as sl
from conftest import REPO

PYTHON_DIR = pathlib.Path(sl.__file__).resolve().parents[1]


def test_docs_build_without_warnings(tmp_path):
    for module in ("sphinx", "myst_nb", "pydata_sphinx_theme", "sphinxarg"):
        pytest.importorskip(module)
    out = tmp_path / "html"
    env = dict(os.environ, SCHEDLAB_DOCS_EXECUTE="off",
               PYTHONPATH=os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-E",
                           "-d", str(tmp_path / "doctrees"), str(REPO / "docs"), str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-5000:]
    cli = (out / "cli.html").read_text()
    for text in ("--jobs-out", "--max-jobs", "datasets", "sweep"):
        assert text in cli, text
    assert (out / "api" / "schedlab.core.simulate.html").exists()
    assert "demo.png" in (out / "index.html").read_text()
    for page in ("getting_started", "datasets", "mapreduce", "worker", "share", "sweeps", "notebooks/quickstart"):
        assert (out / f"{page}.html").exists(), page
