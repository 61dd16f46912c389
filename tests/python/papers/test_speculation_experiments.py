"""The eSplash and SEPB reproductions: the notebook runs with small parameters, and the paper's
directions are checked on three seeds of the full-size experiments (a few seconds):
eSplash wastes less attempt time and loses less makespan than the YARN speculator under a
straggler and under a crash; SEPB at its recommended setting does not lose to plain speculation.
Directions that do not reproduce are strict xfails with the measured numbers (see the notebook)."""
import pytest

from notebook_runner import execute_notebook, notebook_text
from schedlab.papers import tang2014, wang2017

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def esplash_runs():
    runs = wang2017.run_esplash(speculators=("none", "yarn", "esplash"), seeds=SEEDS)
    return runs.groupby(["scenario", "speculation"])[["increased_makespan", "wasted_copy_time"]].mean()


@pytest.fixture(scope="module")
def sepb_runs():
    runs = tang2014.run_sepb(seeds=SEEDS, percentages=(0.0, 1.0))
    runs = runs[runs["speculation"] != "sepb without kill"]
    runs["variant"] = runs["speculation"] + runs["percentage"].map(lambda p: "" if p != p else f"@{p:g}")
    return runs.groupby("variant")["makespan"].mean()


@pytest.mark.parametrize("scenario", ["no fault", "straggler at level 1", "straggler at level 4", "crash + 600 s restart"])
def test_esplash_wastes_less_than_yarn(esplash_runs, scenario):
    m = esplash_runs.loc[scenario]
    assert m.loc["esplash", "wasted_copy_time"] < 0.25 * m.loc["yarn", "wasted_copy_time"]


@pytest.mark.parametrize("scenario", [
    "straggler at level 1",
    pytest.param("straggler at level 4", marks=pytest.mark.xfail(
        strict=True, reason="not reproduced: mean increase 125 s for eSplash vs 108 s for YARN (notebooks/esplash.ipynb)")),
    "crash + 600 s restart",
])
def test_esplash_loses_less_makespan_than_yarn(esplash_runs, scenario):
    m = esplash_runs.loc[scenario]
    assert m.loc["esplash", "increased_makespan"] < m.loc["yarn", "increased_makespan"]


def test_esplash_makes_few_copies_without_faults():
    r = wang2017.run_esplash(speculators=("yarn", "esplash"), seeds=(0,))
    nf = r[r["scenario"] == "no fault"].set_index("speculation")
    assert nf.loc["esplash", "copies"] < 0.5 * nf.loc["yarn", "copies"]


def test_sepb_recommended_setting_beats_its_percentage_zero(sepb_runs):
    # the paper's Fig. 6 baseline: SEPB with percentage 0 (Hadoop's order of pending and speculative work)
    assert sepb_runs["sepb@1"] <= sepb_runs["sepb@0"]


@pytest.mark.xfail(strict=True, reason="not reproduced: SEPB at 100% averages 728 s against 726 s for Hadoop's "
                                       "speculation without SEPB; its 2x kill rule costs more than it gains "
                                       "(703 s without it) - see notebooks/esplash.ipynb")
def test_sepb_recommended_setting_does_not_lose_to_plain_speculation(sepb_runs):
    assert sepb_runs["sepb@1"] <= sepb_runs["hadoop"]


def test_notebook_runs_with_small_parameters():
    """The notebook's printed directions, read as values (the label alone prints either way):
    eSplash wastes less copy time than YARN in every fault scenario of its small run."""
    text = notebook_text(execute_notebook("esplash.ipynb", timeout=600))
    lines = [l for l in text.splitlines() if "esplash wastes less than yarn:" in l]
    assert len(lines) == 3, lines
    for l in lines:
        assert l.split("esplash wastes less than yarn:")[1].split(";")[0].strip() == "True", l
    # the paper's sign in the comparison table: (esplash - yarn) / yarn, negative when eSplash is lower
    import json

    from conftest import REPO
    cells = json.loads((REPO / "notebooks" / "esplash.ipynb").read_text())["cells"]
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert 'return f"{(a - b) / b:+.1%}"' in code and "change(x['esplash'], x['yarn'])" in code


def test_dynamicmr_in_full_beats_stock_hadoop():
    # DHSA + Slot PreScheduling (the dynamicmr scheduler) + SEPB (the speculation engine)
    runs = tang2014.run_dynamicmr(seeds=SEEDS).groupby("variant")["makespan"].mean()
    assert runs["DynamicMR: DHSA + PreScheduling + SEPB"] < runs["stock Hadoop (fair + hadoop speculation)"]
