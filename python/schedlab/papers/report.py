"""The reproduction report: every claim of :mod:`schedlab.papers.claims` rerun through its
experiment function and written as one Markdown and one HTML page, with per claim the paper's
number, schedlab's mean and 95 % confidence interval over seeds, the verdict, a figure of the
numbers behind it beside the paper's statement, and the reason for every miss.

>>> from schedlab.papers import report
>>> outcomes = report.run(["wang2017"], size="small")
>>> report.write(outcomes, "out/")          # out/README.md, out/index.html, out/figures/*.png

``schedlab reproduce [PAPER ...] [--size small|full] --out DIR`` does both. A notebook shows the
claims it reproduces with :func:`show` (a table of verdicts with their intervals, one printed
``CLAIM <paper>/<id>: <verdict>`` line per claim, and the figures); :func:`notebook_size` reads
``SCHEDLAB_SMALL``.
"""
from __future__ import annotations

import datetime
import html
import math
import pathlib
import re
import time

from . import claims as _claims

PAPER_TITLES = {
    "wang2017": 'J. Wang, "Building Efficient Large-Scale Big Data Processing Platforms", PhD dissertation, UMass Boston, 2017 (FRESH, OMO, eSplash)',
    "zhao2013": "Zhao et al., EAS, IEICE Trans. Inf. & Syst. E96-D(12), 2013",
    "zhou2019": "W. Zhou, PhD dissertation, Univ. of Virginia, 2019 (Hawk/Eagle, Dice, Eunomia)",
    "tang2014": "Tang, Lee, He, DynamicMR, IEEE Trans. Cloud Computing 2014 (Sagar & Moni, IJCT 2015)",
    "lim2015": "Lim, Majumdar, Ashwood-Smith, MRCP, ICPE 2015",
}


class Skipped:
    """A claim that could not run here (e.g. a trace sample is missing)."""

    def __init__(self, claim, why, size="small"):
        self.claim, self.why, self.verdict, self.size = claim, why, "not run", size


def notebook_size() -> str:
    """The size a notebook runs its claims at: "small" when ``SCHEDLAB_SMALL=1`` (the tests and
    the documentation build), else "full" (the report's size)."""
    import os
    return "small" if os.environ.get("SCHEDLAB_SMALL") == "1" else "full"


def run(papers=None, size: str = "small", progress: bool = True, ids=None) -> list:
    """Runs every claim of ``papers`` (default all) at ``size``, or only the claims whose id is in
    ``ids``; one Outcome (or Skipped) per claim, in file order."""
    selected = _claims.load_all(papers)
    if ids is not None:
        ids = list(ids)
        unknown = sorted(set(ids) - {c.id for c in selected})
        if unknown:
            raise ValueError(f"no claim {', '.join(map(repr, unknown))} in the claims of {', '.join(papers or _claims.PAPERS)}")
        selected = [c for c in selected if c.id in ids]
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(selected), unit="claim")
    out = []
    for c in selected:
        if bar is not None:
            bar.set_description(f"{c.paper}/{c.id}")
        try:
            out.append(_claims.run(c, size))
        except FileNotFoundError as e:
            out.append(Skipped(c, str(e), size))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return out


def _fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def _paper_number(c):
    return _fmt(c.paper_value) if c.paper_value is not None else c.paper_text


def _ours(o):
    if isinstance(o, Skipped):
        return "not run"
    ci = "" if math.isnan(o.ci_low) else f" [{_fmt(o.ci_low)}, {_fmt(o.ci_high)}]"
    return f"{_fmt(o.mean)}{ci} (n={o.n})"


def draw(o, ax):
    """Draws the numbers behind a claim on a Matplotlib axis: the mean over seeds of each label as
    a bar, the seeds as dots, and the paper's number or threshold as a line where it is on the
    same scale."""
    import numpy as np

    f = o.measured.frame
    if f is not None and len(f):
        labels = list(dict.fromkeys(f["label"]))
        means = [f[f["label"] == lab]["value"].mean() for lab in labels]
        x = np.arange(len(labels))
        ax.bar(x, means, color="tab:blue", alpha=0.6)
        for i, lab in enumerate(labels):
            v = f[f["label"] == lab]["value"].to_numpy()
            ax.plot(np.full(len(v), i), v, "k.", ms=4)
        ax.set_xticks(x, labels, rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center",
                      fontsize=7 if len(labels) > 8 else 8)
        ax.axhline(0, color="grey", lw=0.5)
        if o.measured.ylabel.endswith("(%)") and o.claim.paper_value is not None and "%" in o.claim.quantity:
            ax.axhline(o.claim.paper_value, color="tab:red", ls="--", lw=1, label=f"paper: {o.claim.paper_value:g}")
            ax.legend(fontsize=8)
        elif "fairness" in o.measured.ylabel or "finish time" in o.measured.ylabel:
            ax.axhline(o.claim.threshold, color="tab:red", ls="--", lw=1, label=f"paper's threshold {o.claim.threshold:g}")
            ax.legend(fontsize=8)
    ax.set_ylabel(o.measured.ylabel or o.claim.quantity, fontsize=8)
    ax.set_title(f"{o.claim.paper}/{o.claim.id}: {o.verdict}", fontsize=9)


def figure(o, path: pathlib.Path):
    """:func:`draw` into a PNG file."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    draw(o, ax)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def table(outcomes):
    """One row per claim: the paper's number, schedlab's mean with its 95 % interval over seeds,
    the number of seeds, the verdict, and the verdict recorded in the claims file for that size."""
    import pandas as pd

    rows = []
    for o in outcomes:
        c = o.claim
        skipped = isinstance(o, Skipped)
        rows.append({"claim": f"{c.paper}/{c.id}", "paper": _paper_number(c),
                     "test": f"{c.comparison} {c.threshold:g}",
                     "schedlab mean": float("nan") if skipped else round(o.mean, 4),
                     "95 % CI low": float("nan") if skipped else round(o.ci_low, 4),
                     "95 % CI high": float("nan") if skipped else round(o.ci_high, 4),
                     "seeds": 0 if skipped else o.n, "verdict": o.verdict,
                     "recorded": c.recorded(o.size), "quantity": c.quantity})
    return pd.DataFrame(rows).set_index("claim")


def verdict_line(o) -> str:
    """``CLAIM <paper>/<id>: <verdict> | <numbers>``: the line :func:`show` prints per claim (the
    notebooks' tests read these lines)."""
    if isinstance(o, Skipped):
        return f"CLAIM {o.claim.paper}/{o.claim.id}: not run | {o.why}"
    return f"CLAIM {o.claim.paper}/{o.claim.id}: {o.verdict} | {o.numbers()}"


def show(outcomes, figures: bool = True, columns: int = 2):
    """For a notebook: prints one :func:`verdict_line` per claim (with the reason for a miss),
    draws the claims' figures in a grid and returns :func:`table` (displayed as the cell's value)."""
    for o in outcomes:
        print(verdict_line(o))
        c = o.claim
        if o.verdict not in ("reproduced", "calibration", "not run") and c.reason:
            # the reason is written for the verdict recorded at the report's size
            at = f" (at the report's size: {c.verdict})" if o.size != "full" and c.verdict != o.verdict else ""
            print(f"    why{at}: {c.reason}")
    drawn = [o for o in outcomes if not isinstance(o, Skipped)]
    if figures and drawn:
        import matplotlib.pyplot as plt
        rows = -(-len(drawn) // columns)
        fig, axes = plt.subplots(rows, columns, figsize=(6.4 * columns, 3.2 * rows), squeeze=False)
        for ax, o in zip(axes.flat, drawn):
            draw(o, ax)
        for ax in list(axes.flat)[len(drawn):]:
            ax.set_visible(False)
        fig.tight_layout()
        plt.show()
    return table(outcomes)


_RULE = ("A claim is *reproduced* when the paper's own test holds for the whole 95 % confidence interval of "
         "schedlab's mean over seeds (Student-t; the value itself with one seed) and the paper's number (where it "
         "gives one) lies within 25 % of the mean; *direction only* when the test holds but the number "
         "does not; *not reproduced* when the test fails; *calibration* marks an input chosen to match the paper, "
         "never a result.")
_CSS = {"reproduced": "r", "direction only": "do", "not reproduced": "nr"}
_HTML_HEAD = ("<!doctype html><html><head><meta charset='utf-8'><title>schedlab reproduction report</title>\n"
              "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
              "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px}.claim{display:flex;gap:16px;margin:12px 0;"
              "border-top:1px solid #ddd;padding-top:8px}.claim div{flex:1}.nr{color:#b00}.do{color:#a60}.r{color:#070}"
              "</style></head><body><h1>Reproduction report</h1>")
_HTML_TABLE = "<table><tr><th>paper</th><th>claim</th><th>paper's number</th><th>schedlab</th><th>verdict</th></tr>"


class _Page:
    """One report as per-paper pieces, the unit a rerun of some papers replaces: the summary table's
    rows, the Markdown section and the HTML block of each paper, and the size of the claims."""

    def __init__(self, size):
        self.size = size
        self.md_rows, self.md_sections, self.html_rows, self.html_blocks = {}, {}, {}, {}

    def papers(self):
        known = [p for p in _claims.PAPERS if p in self.md_sections]
        return known + [p for p in self.md_sections if p not in known]

    def verdicts(self):
        """The verdict column of every summary row, in order."""
        return [row.rstrip(" |").rsplit("|", 1)[1].strip() for p in self.papers() for row in self.md_rows[p]]


def _provenance(command, size, seconds):
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    took = f" in {seconds / 60:.1f} min" if seconds else ""
    return f"Generated by `{command or 'schedlab reproduce'}` (size {size or '?'}) on {when}{took}."


def _pieces(outcomes, size, provenance) -> _Page:
    """Renders ``outcomes`` as the per-paper pieces of a page."""
    page = _Page(size)
    for paper in dict.fromkeys(o.claim.paper for o in outcomes):
        mine = [o for o in outcomes if o.claim.paper == paper]
        rows, md, hrows = [], ["", f"## {paper}", "", PAPER_TITLES.get(paper, paper), "", provenance], []
        hb = [f"<h2 id='paper-{paper}'>{paper}</h2><p>{html.escape(PAPER_TITLES.get(paper, paper))}</p>"
              f"<p>{html.escape(provenance)}</p>"]
        for o in mine:
            c = o.claim
            rows.append(f"| {c.paper} | [{c.id}](#{c.paper}-{c.id.replace('_', '-')}) | {_paper_number(c)} | {_ours(o)} | {o.verdict} |")
            hrows.append(f"<tr><td>{c.paper}</td><td><a href='#{c.paper}-{c.id}'>{c.id}</a></td><td>{html.escape(_paper_number(c))}</td>"
                         f"<td>{html.escape(_ours(o))}</td><td class='{_CSS.get(o.verdict, '')}'>{o.verdict}</td></tr>")
            md += ["", f"### {c.paper}-{c.id.replace('_', '-')}", "", f"**{c.statement}** ({c.source})", "",
                   f"- measured: {c.quantity}", f"- paper: {_paper_number(c)}; test: {c.comparison} {c.threshold:g}",
                   f"- schedlab: {_ours(o)}", f"- verdict: **{o.verdict}**"]
            items = [f"<li>measured: {html.escape(c.quantity)}</li>",
                     f"<li>paper: {html.escape(_paper_number(c))}; test {html.escape(c.comparison)} {c.threshold:g}</li>",
                     f"<li>schedlab: {html.escape(_ours(o))}</li>",
                     f"<li>verdict: <b class='{_CSS.get(o.verdict, '')}'>{o.verdict}</b></li>"]
            if isinstance(o, Skipped):
                md.append(f"- not run here: {o.why}")
                items.append(f"<li>not run here: {html.escape(o.why)}</li>")
            else:
                if o.measured.note:
                    md.append(f"- numbers: {o.measured.note}")
                    items.append(f"<li>numbers: {html.escape(o.measured.note)}</li>")
                if o.verdict != "reproduced" and c.reason:
                    md.append(f"- why: {c.reason}")
                    items.append(f"<li>why: {html.escape(c.reason)}</li>")
                if o.verdict != c.recorded(o.size):
                    md.append(f"- **differs from the verdict recorded in claims/{c.paper}.toml ({c.recorded(o.size)})**")
                md += ["", f"![{c.id}](figures/{c.paper}_{c.id}.png)"]
            img = "" if isinstance(o, Skipped) else f"<img src='figures/{c.paper}_{c.id}.png' width='560'>"
            hb.append(f"<div class='claim' id='{c.paper}-{c.id}'><div><h3>{c.paper}: {c.id}</h3><p><b>{html.escape(c.statement)}</b> "
                      f"({html.escape(c.source)})</p><ul>{''.join(items)}</ul></div><div>{img}</div></div>")
        page.md_rows[paper], page.md_sections[paper] = rows, md
        page.html_rows[paper], page.html_blocks[paper] = hrows, hb
    return page


def _paper_of(anchor: str) -> str:
    return anchor.split("-", 1)[0]


def _read(out: pathlib.Path) -> _Page:
    """The per-paper pieces of the report written in ``out`` (README.md and index.html as
    :func:`write` writes them). A report written before sections carried their own "Generated by"
    line gets its single one copied into each section."""
    md_path, html_path = out / "README.md", out / "index.html"
    md = md_path.read_text().splitlines()
    if not md or md[0] != "# Reproduction report" or len(md) < 3:
        raise ValueError(f"{md_path}: not a reproduction report (no '# Reproduction report' title)")
    head = md[2]
    m = re.search(r"\(size (\w+)\)|^Size (\w+)[.:]", head)
    if m is None:
        raise ValueError(f"{md_path}, line 3: no '(size ...)' in the report's head: {head!r}")
    page = _Page(m.group(1) or m.group(2))
    legacy = head.split(" Verdicts:")[0].rstrip(".") + " (the whole report)." if head.startswith("Generated by") else None
    k = next((i for i, l in enumerate(md) if l.startswith("|---")), None)
    if k is None:
        raise ValueError(f"{md_path}: no summary table")
    k += 1
    while k < len(md) and md[k].startswith("| "):
        page.md_rows.setdefault(md[k].split("|")[1].strip(), []).append(md[k])
        k += 1
    paper = None
    for line in md[k:]:
        if line.startswith("## "):
            paper = line[3:].strip()
            page.md_sections[paper] = ["", line]
        elif paper is not None:
            page.md_sections[paper].append(line)
    for p, sec in page.md_sections.items():
        while sec and sec[-1] == "":
            sec.pop()
        if p not in page.md_rows:
            raise ValueError(f"{md_path}: section '## {p}' has no row in the summary table")
        if legacy and not any(l.startswith("Generated by") for l in sec):
            sec[4:4] = ["", legacy]
    lines = html_path.read_text().splitlines() if html_path.exists() else []
    paper = None
    for line in lines:
        if line.startswith("<tr><td>"):
            page.html_rows.setdefault(line[len("<tr><td>"):].split("<", 1)[0], []).append(line)
        elif line.startswith("<h2 id='paper-"):
            paper = line[len("<h2 id='paper-"):].split("'", 1)[0]
            page.html_blocks[paper] = [line]
        elif line.startswith("<div class='claim' id='"):
            p = _paper_of(line[len("<div class='claim' id='"):])
            if p not in page.html_blocks:
                title = html.escape(PAPER_TITLES.get(p, p))
                page.html_blocks[p] = [f"<h2 id='paper-{p}'>{p}</h2><p>{title}</p>"
                                       + (f"<p>{html.escape(legacy)}</p>" if legacy else "")]
            page.html_blocks[p].append(line)
    if set(page.html_rows) != set(page.md_rows) or set(page.html_blocks) != set(page.md_sections):
        raise ValueError(f"{out}: README.md and index.html do not hold the same papers "
                         f"({sorted(page.md_sections)} against {sorted(page.html_blocks)})")
    return page


def _render(page: _Page, out: pathlib.Path):
    verdicts = page.verdicts()
    counts = {}
    for v in verdicts:
        counts[v] = counts.get(v, 0) + 1
    papers = page.papers()
    head = (f"Size {page.size}: {len(verdicts)} claims of {len(papers)} papers. Verdicts: "
            + ", ".join(f"{v} {n}" for v, n in counts.items()) + ". Each paper's section names the command that "
            "generated it; `schedlab reproduce PAPER ... --out DIR` reruns those papers and replaces only their "
            "sections of the report in DIR.")
    md = ["# Reproduction report", "", head, "", _RULE, "", "| paper | claim | paper's number | schedlab | verdict |",
          "|---|---|---|---|---|"]
    md += [r for p in papers for r in page.md_rows[p]]
    for p in papers:
        md += page.md_sections[p]
    (out / "README.md").write_text("\n".join(md) + "\n")
    h = [_HTML_HEAD, f"<p>{html.escape(head)}</p><p>{html.escape(_RULE)}</p>", _HTML_TABLE]
    h += [r for p in papers for r in page.html_rows[p]]
    h.append("</table>")
    h += [b for p in papers for b in page.html_blocks[p]]
    h.append("</body></html>")
    (out / "index.html").write_text("\n".join(h) + "\n")


def _mergeable(out: pathlib.Path, size: str) -> _Page:
    page = _read(out)
    if size and page.size != size:
        raise ValueError(f"{out / 'README.md'}: the report there is size {page.size}; a size {size} run "
                         f"cannot be merged into it (write it elsewhere, or anew without merging)")
    return page


def write(outcomes, out_dir, size: str = "", seconds: float | None = None, command: str = "",
          merge: bool = True) -> dict:
    """Writes ``README.md``, ``index.html`` and ``figures/<paper>_<id>.png`` into ``out_dir``;
    returns the paths. With ``merge`` (default) and a report already in ``out_dir``, only the
    sections, summary rows and figures of the papers in ``outcomes`` are replaced: the other
    papers' are kept, and the verdict counts are those of the whole page. A report of another
    size is refused (ValueError)."""
    out = pathlib.Path(out_dir)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    papers = list(dict.fromkeys(o.claim.paper for o in outcomes))
    page = _Page(size or "?")
    if merge and (out / "README.md").exists():
        page = _mergeable(out, size)
    for p in papers:
        for f in (out / "figures").glob(f"{p}_*.png"):
            f.unlink()
    for o in outcomes:
        if not isinstance(o, Skipped):
            figure(o, out / "figures" / f"{o.claim.paper}_{o.claim.id}.png")
    new = _pieces(outcomes, page.size, _provenance(command, size, seconds))
    for d in ("md_rows", "md_sections", "html_rows", "html_blocks"):
        getattr(page, d).update(getattr(new, d))
    _render(page, out)
    return {"markdown": out / "README.md", "html": out / "index.html", "figures": out / "figures"}


def reproduce(papers=None, size: str = "small", out_dir="reproduction", progress: bool = True, command: str = "",
              merge: bool = True) -> list:
    """Runs and writes the report (merged into the one in ``out_dir``, see :func:`write`);
    returns the outcomes."""
    out = pathlib.Path(out_dir)
    if merge and (out / "README.md").exists():
        _mergeable(out, size)     # refuse a foreign or other-size report before the runs, not after
    t0 = time.perf_counter()
    outcomes = run(papers, size, progress)
    write(outcomes, out_dir, size, time.perf_counter() - t0, command, merge)
    return outcomes
