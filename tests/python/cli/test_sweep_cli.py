"""`schedlab sweep CONFIG.toml`: runs the sweep, writes the store and plots, prints a summary;
bad files fail before any run."""
import os
import subprocess
import sys

import pytest

import schedlab as sl
from schedlab import cli
from schedlab.store import Store

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

TRACE = """\
0.0 3 10.0 8.0 10.0 12.0
2.0 1 5.0 5.0
4.0 4 20.0 20.0 20.0 20.0 20.0
5.0 2 3.0 2.0 4.0
9.0 6 7.0 7.0 7.0 7.0 7.0 7.0 7.0
12.0 2 40.0 40.0 40.0
"""

CONFIG = """\
seeds = 2
store = "out"
baseline = "fifo"
workers = 2

[[scheduler]]
name = "fifo"

[[scheduler]]
name = "fair"
locality_delay = [0, 5]

[[cluster]]
nodes = [2, 3]
map_slots = 2
reduce_slots = 1

[[workload]]
label = "tiny"
trace = "jobs.tr"
options = { truncate = true }

[[workload]]
synthetic = { jobs = 15, rate = 0.2, seed = 3 }
label = "syn"
max_jobs = 10
time_scale = 0.5
"""


def make(tmp_path, config=CONFIG):
    (tmp_path / "jobs.tr").write_text(TRACE)
    cfg = tmp_path / "sweep.toml"
    cfg.write_text(config)
    return cfg


def test_sweep_command_writes_store_plots_and_summary(tmp_path, capsys):
    cfg = make(tmp_path)
    assert cli.main(["sweep", str(cfg), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    store = Store(tmp_path / "out")
    assert len(store.keys()) == 3 * 2 * 2 * 2
    for name in ("percentiles.png", "latency_cdf.png", "improvement.png"):
        assert (tmp_path / "out" / "plots" / name).read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "out" / "runs.csv").exists()
    assert "24 simulated, 0 from the store" in err
    header = out.splitlines()[0].split()
    assert header[:3] == ["scheduler", "cluster", "workload"] and "improvement_vs_fifo" in header
    assert "mean_completion_time_ci" in header
    assert sum(line.strip().startswith("fair(locality_delay=5)") for line in out.splitlines()) == 4
    # the numbers are those of the Python API
    runs = sl.sweep(["fifo"], {"nodes": 2, "map_slots": 2, "reduce_slots": 1},
                    {"tiny": sl.read_trace(tmp_path / "jobs.tr", truncate=True)}, seeds=[0, 1], progress=False)
    mean = runs["mean_completion_time"].mean()
    fifo_line = next(line for line in out.splitlines() if line.strip().startswith("fifo") and "nodes=2" in line
                     and "tiny" in line)
    assert f"{mean:.3f}" in fifo_line
    # a second run reads everything from the store
    assert cli.main(["sweep", str(cfg), "--no-progress", "--no-plots"]) == 0
    assert "0 simulated, 24 from the store" in capsys.readouterr().err
    assert cli.main(["sweep", str(cfg), "--dry-run"]) == 0
    assert "24 runs (24 already in" in capsys.readouterr().out


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.replace('name = "fair"', 'name = "fiar"'), "unknown scheduler 'fiar'"),
    (lambda c: c.replace("locality_delay", "locality_dealy"), "unknown parameter 'locality_dealy'"),
    (lambda c: c.replace("locality_delay = [0, 5]", "locality_delay = []"), "empty list"),
    (lambda c: c.replace("nodes = [2, 3]", "nodes = []"), "empty list"),
    (lambda c: c.replace("seeds = 2", "seeds = []"), "grid is empty.*seeds"),
    (lambda c: c.replace("seeds = 2", "seed = 2"), "unknown key.*'seed'"),
    (lambda c: c.split("[[scheduler]]")[0] + "[[cluster]]" + c.split("[[cluster]]")[1], "no \\[\\[scheduler\\]\\]"),
    (lambda c: c.replace('trace = "jobs.tr"', 'trace = "missing.tr"'), "no such trace file"),
    (lambda c: c.replace('trace = "jobs.tr"', 'trace = "jobs.tr"\ndataset = "demo_mix"'), "exactly one of"),
    (lambda c: c + "\n[options]\nslowstrat = 0.5\n", "unknown parameter 'slowstrat'"),
    (lambda c: c.replace("synthetic = { jobs = 15", "synthetic = { jbos = 15"), "unexpected keyword"),
    (lambda c: c.replace("seeds = 2", "seeds = [2"), "not valid TOML"),
])
def test_bad_sweep_files_fail_before_any_run(tmp_path, capsys, edit, message):
    cfg = make(tmp_path, edit(CONFIG))
    assert cli.main(["sweep", str(cfg), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedlab: error:")
    import re
    assert re.search(message, err), err
    runs = tmp_path / "out" / "runs"
    assert not runs.exists() or not list(runs.iterdir())


def test_sweep_help_documents_the_file_format():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(sl.__file__)))
    out = subprocess.run([sys.executable, "-m", "schedlab", "sweep", "--help"], capture_output=True, text=True,
                         env=env, check=True).stdout
    for text in ("CONFIG.toml", "[[scheduler]]", "[[cluster]]", "[[workload]]", "seeds", "--store", "--dry-run",
                 "baseline", "resumes"):
        assert text in out, text
    top = subprocess.run([sys.executable, "-m", "schedlab", "--help"], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert "sweep" in top
