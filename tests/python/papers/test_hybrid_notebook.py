"""Executes notebooks/hybrid.ipynb with small parameters (SCHEDLAB_SMALL=1): every statement of the
dissertation it checks is a claim of python/schedlab/papers/claims/zhou2019.toml (Hawk against
Sparrow, Eagle against Hawk, Table 3.1, Dice at 3000 and 4000 workers, Eirene and its two
mechanisms, the Google-scale trace), printed as a CLAIM line whose verdict must be the one recorded
for the small size; the notebook judges nothing itself."""
from __future__ import annotations

from conftest import trace_path
from notebook_runner import assert_claims_as_recorded, execute_notebook, notebook_text

IDS = ["hawk_vs_sparrow", "eagle_vs_hawk_yahoo", "eagle_vs_hawk_google", "partition_tradeoff", "dice_over_hawk",
       "dice_over_eagle", "eirene_over_eagle", "dice_4000", "eirene_ccdm_overloaded", "eirene_satc_light",
       "eirene_beneficiaries", "google_scale_order"]


def test_hybrid_notebook_verdicts():
    trace_path("hawk_eagle", "YH1_sub.tr")
    trace_path("hawk_eagle", "GOOG_subtrace.tr")
    nb = execute_notebook("hybrid.ipynb")
    text = notebook_text(nb)
    assert "small run: True" in text and "trace samples present: True" in text
    assert not [l for l in text.splitlines() if l.startswith(("REPRODUCED ", "NOT REPRODUCED "))]   # no verdicts of its own
    seen = assert_claims_as_recorded(nb, "zhou2019", IDS)
    assert set(seen) == {f"zhou2019/{c}" for c in IDS}
