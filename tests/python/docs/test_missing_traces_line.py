"""Without the trace samples, the test run ends with one line counting the skipped tests and
saying how to get the traces (the hook in tests/python/conftest.py)."""
import os
import subprocess
import sys

from conftest import REPO


def test_run_ends_with_the_missing_traces_line(tmp_path):
    env = dict(os.environ, SCHEDLAB_TRACES=str(tmp_path / "no-traces"), SCHEDLAB_CACHE=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(REPO / "tests" / "python" / "docs" / "test_readme.py")],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    lines = proc.stdout.strip().splitlines()
    line = next(x for x in lines if "skipped for missing trace samples" in x)
    assert line.startswith("1 test skipped") and "schedlab datasets get --all" in line and "SCHEDLAB_TRACES" in line
