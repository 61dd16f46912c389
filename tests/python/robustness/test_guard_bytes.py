"""The resource guard's memory estimate against the peak resident memory a mid-size run adds,
engine by engine, measured as bench/guard_bytes.py measures the guard's constants (a fresh
process, the peak reset before the run; Linux only). Within a factor 2 either way: the estimate is
meant to catch runs out of reach by orders of magnitude, but its constants must stay measured."""
import importlib.util
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[3] / "bench" / "guard_bytes.py"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not BENCH.exists(),
                                reason="needs /proc/self/clear_refs and bench/guard_bytes.py")


def _bench():
    spec = importlib.util.spec_from_file_location("guard_bytes", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("engine", ["mapreduce", "worker", "share", "spark"])
def test_estimate_within_a_factor_2_of_the_measured_peak(engine):
    m = _bench().measure(engine, 100_000, 200)  # 100,000 tasks on 200 nodes, the engine's defaults
    assert m["peak"] > 4 * 2**20  # enough above the noise of a few pages
    assert 0.5 <= m["estimate"] / m["peak"] <= 2.0, m
