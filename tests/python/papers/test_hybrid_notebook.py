"""Executes notebooks/hybrid.ipynb with small parameters (SCHEDLAB_SMALL=1) and reads its verdict
lines ("REPRODUCED ..." / "NOT REPRODUCED ..."): every check reproduces except the ones listed in
KNOWN_MISSES, which must still miss (so a change either way is noticed). The claims (Eagle
beats Hawk; Dice's and Eirene's short-job gains at 3000 workers; python/schedlab/papers/claims/
zhou2019.toml) print CLAIM lines, whose verdicts must be
the ones recorded for the small size."""
from __future__ import annotations

from conftest import trace_path
from notebook_runner import assert_claims_as_recorded, execute_notebook, notebook_text

# measured at SCHEDLAB_SMALL=1: Google-scale synthetic trace on 150 workers, short P90:
# eagle 237471 s, hawk 83853 s, sparrow 95322 s (Eagle's Succinct State Sharing does not help
# at that load; the Eagle-vs-Hawk claims on the real samples are in claims/zhou2019.toml)
KNOWN_MISSES = {"Google-scale short P90"}


def test_hybrid_notebook_verdicts():
    trace_path("hawk_eagle", "YH1_sub.tr")
    trace_path("hawk_eagle", "GOOG_subtrace.tr")
    nb = execute_notebook("hybrid.ipynb")
    text = notebook_text(nb)
    assert "small run: True" in text and "trace samples present: True" in text
    lines = [l for l in text.splitlines() if l.startswith(("REPRODUCED ", "NOT REPRODUCED "))]
    assert len(lines) >= 15, lines                    # every check printed its verdict
    missed = {l[len("NOT REPRODUCED "):].split(":")[0].strip() for l in lines if l.startswith("NOT REPRODUCED ")}
    assert missed == KNOWN_MISSES, lines
    ids = ["eagle_vs_hawk_yahoo", "eagle_vs_hawk_google", "dice_over_hawk", "dice_over_eagle", "eirene_over_eagle"]
    seen = assert_claims_as_recorded(nb, "zhou2019", ids)
    assert set(seen) == {f"zhou2019/{c}" for c in ids}
