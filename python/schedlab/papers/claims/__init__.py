"""The papers' headline claims as data, and how a claim is measured and judged.

One TOML file per paper (``<paper>.toml`` beside this module) lists its claims::

    [[claim]]
    id = "omo_vs_pooled_fair"
    statement = "OMO's makespan is 26 % below the best Fair setting on average (Fig. 4.17)"
    source = "Wang 2017, §4.4.3.3, Fig. 4.17"
    experiment = "wang2017.claim_omo_vs_pooled_fair"   # a function of schedlab.papers
    quantity = "mean makespan reduction against pooled Fair:best (%)"
    paper_value = 26.0                                   # the paper's number (optional)
    comparison = ">"                                     # the paper's own test: >, >=, <, <=
    threshold = 0.0
    verdict = "not reproduced"                           # recorded at --size full
    verdict_small = "not reproduced"                     # at --size small, if it differs
    reason = "..."                                       # why it misses (required unless reproduced)

An experiment function takes ``size`` ("small" for CI, "full" for the report) and returns a
:class:`Measured`: one value of the quantity per seed (the confidence interval is over these),
and a long table ``frame`` (columns ``label``, ``seed``, ``value``) of what the value was
computed from, which the report draws. The notebooks, the claim tests
(``tests/python/papers/test_claims.py``) and ``schedlab reproduce`` call the same functions.

Verdicts, with ``mean`` the mean over seeds:

* "reproduced": ``<comparison> threshold`` holds for the whole 95 % confidence interval over
  seeds (for the value itself with one seed), and the paper's number (if it gives one) is matched
  by the mean within ``tolerance`` (relative, default 25 %);
* "direction only": the comparison holds but the number is further than ``tolerance`` away;
* "not reproduced": the comparison does not hold;
* "calibration": an input chosen so that schedlab matches the paper (kind = "calibration");
  never counted as a reproduced number.
"""
from __future__ import annotations

import dataclasses
import importlib
import math
import operator
import tomllib
from importlib import resources

import pandas as pd

PAPERS = ("wang2017", "zhao2013", "zhou2019", "tang2014", "lim2015")
SIZES = ("small", "full")
VERDICTS = ("reproduced", "direction only", "not reproduced", "calibration")
_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


@dataclasses.dataclass
class Measured:
    """What an experiment function measured: ``values`` (one per seed), ``frame`` (label, seed,
    value: the numbers behind it, drawn in the report) and ``note`` (anything a reader needs,
    e.g. the per-workload numbers)."""
    values: list
    frame: pd.DataFrame | None = None
    note: str = ""
    ylabel: str = ""


@dataclasses.dataclass
class Claim:
    paper: str
    id: str
    statement: str
    source: str
    experiment: str
    quantity: str
    comparison: str
    threshold: float
    verdict: str
    verdict_small: str
    paper_value: float | None = None
    paper_text: str = ""
    tolerance: float = 0.25
    reason: str = ""
    kind: str = "claim"

    def experiment_function(self):
        module, _, name = self.experiment.rpartition(".")
        mod = importlib.import_module(f"schedlab.papers.{module}")
        fn = getattr(mod, name, None)
        if fn is None:
            raise ValueError(f"claims/{self.paper}.toml, claim {self.id!r}: no function {self.experiment!r} in schedlab.papers")
        return fn

    def recorded(self, size: str) -> str:
        return self.verdict_small if size == "small" else self.verdict


@dataclasses.dataclass
class Outcome:
    claim: Claim
    size: str
    measured: Measured
    n: int
    mean: float
    ci_low: float
    ci_high: float
    holds: bool
    close: bool | None
    verdict: str
    seconds: float = 0.0

    @property
    def as_recorded(self) -> bool:
        return self.verdict == self.claim.recorded(self.size)

    def numbers(self) -> str:
        ci = "" if math.isnan(self.ci_low) else f" (95 % CI {self.ci_low:.4g} .. {self.ci_high:.4g})"
        paper = f"paper {self.claim.paper_value:g}" if self.claim.paper_value is not None else f"paper: {self.claim.paper_text}"
        return (f"{self.claim.paper}/{self.claim.id}: schedlab {self.mean:.4g}{ci} over {self.n} seed(s), {paper}; "
                f"test {self.claim.comparison} {self.claim.threshold:g} {'holds' if self.holds else 'fails'}")


def _claim(paper: str, row: dict, k: int) -> Claim:
    where = f"claims/{paper}.toml, claim #{k + 1}"
    missing = [f for f in ("id", "statement", "source", "experiment", "quantity", "comparison", "threshold", "verdict")
               if f not in row]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    fields = {f.name for f in dataclasses.fields(Claim)}
    unknown = set(row) - fields
    if unknown:
        raise ValueError(f"{where} ({row['id']}): unknown field(s) {', '.join(sorted(unknown))}")
    if row["comparison"] not in _OPS:
        raise ValueError(f"{where} ({row['id']}): comparison must be one of {list(_OPS)}, got {row['comparison']!r}")
    row = dict(row)
    row.setdefault("verdict_small", row["verdict"])
    for f in ("verdict", "verdict_small"):
        if row[f] not in VERDICTS:
            raise ValueError(f"{where} ({row['id']}): {f} must be one of {list(VERDICTS)}, got {row[f]!r}")
    if (row.get("kind") == "calibration") != (row["verdict"] == "calibration"):
        raise ValueError(f"{where} ({row['id']}): kind = 'calibration' goes with verdict = 'calibration'")
    if row["verdict"] not in ("reproduced", "calibration") and not row.get("reason"):
        raise ValueError(f"{where} ({row['id']}): a claim recorded as {row['verdict']!r} needs a reason")
    return Claim(paper=paper, **row)


def load(paper: str) -> list:
    """The claims of one paper (one of :data:`PAPERS`), in file order."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose from {', '.join(PAPERS)}")
    text = resources.files(__name__).joinpath(f"{paper}.toml").read_text()
    data = tomllib.loads(text)
    claims = [_claim(paper, row, k) for k, row in enumerate(data.get("claim", []))]
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claims/{paper}.toml: duplicate claim ids")
    return claims


def load_all(papers=None) -> list:
    return [c for p in (papers or PAPERS) for c in load(p)]


def judge(claim: Claim, measured: Measured, size: str, seconds: float = 0.0) -> Outcome:
    """Mean and 95 % confidence interval over seeds, and the verdict the numbers give."""
    from ...analysis.stats import mean_ci   # analysis sits beside papers

    n, mean, _sd, lo, hi = mean_ci(measured.values)
    # the direction must hold with 95 % confidence: the whole interval on the claimed side of the
    # threshold (with one seed, the value itself)
    edge = mean if n < 2 or math.isnan(lo) else (lo if claim.comparison in (">", ">=") else hi)
    holds = bool(_OPS[claim.comparison](edge, claim.threshold)) if n else False
    close = None
    if claim.paper_value is not None and n:
        close = abs(mean - claim.paper_value) <= claim.tolerance * abs(claim.paper_value)
    if claim.kind == "calibration":
        verdict = "calibration"
    elif not holds:
        verdict = "not reproduced"
    elif close is False:
        verdict = "direction only"
    else:
        verdict = "reproduced"
    return Outcome(claim, size, measured, n, mean, lo, hi, holds, close, verdict, seconds)


def run(claim: Claim, size: str = "small") -> Outcome:
    """Runs the claim's experiment at ``size`` and judges it."""
    import time

    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    t0 = time.perf_counter()
    measured = claim.experiment_function()(size=size)
    return judge(claim, measured, size, time.perf_counter() - t0)
