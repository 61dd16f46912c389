"""Executes notebooks/eunomia.ipynb with small parameters (SCHEDLAB_SMALL=1). The notebook runs the
claims of python/schedlab/papers/claims/zhou2019.toml (micro-1's equal shares, micro-2, the
macro-benchmark's delays against TSF and Choosy) through their experiment functions and prints
each verdict with its numbers; of micro-2: Eunomia's four jobs finish together (last / first finish
below 1.15) and under TSF and Choosy job 4, with its false constraint, finishes much earlier (jobs
1-3 finish later by a factor above 1). Each verdict must be the one recorded for the small size,
and the values are read back from the printed lines."""
from __future__ import annotations

import re

from conftest import trace_path
from notebook_runner import assert_claims_as_recorded, execute_notebook, notebook_text


def _value(line):
    return float(re.search(r"schedlab (-?[0-9.eE+-]+)", line).group(1))


IDS = ["eunomia_equal_progress", "tsf_false_constraint", "eunomia_micro1_equal_shares", "eunomia_macro_like_baselines"]


def test_eunomia_notebook_shows_the_claims_as_recorded():
    trace_path("alibaba2017", "batch_task.csv")          # the macro claim's runs need the sample
    nb = execute_notebook("eunomia.ipynb", timeout=600)
    assert "small run: True" in notebook_text(nb)
    seen = assert_claims_as_recorded(nb, "zhou2019", IDS)
    assert set(seen) == {f"zhou2019/{c}" for c in IDS}
    eunomia = _value(seen["zhou2019/eunomia_equal_progress"][1])
    tsf = _value(seen["zhou2019/tsf_false_constraint"][1])
    assert 1.0 <= eunomia < 1.15, seen
    assert tsf > 1.15 > eunomia, seen      # TSF spreads the finishes further than Eunomia does
