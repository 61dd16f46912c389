"""``schedlab reproduce [PAPER ...] [--size small|full] --out DIR``: reruns the papers' claims
(schedlab.papers.claims, the same experiment functions the notebooks and the claim tests call)
and writes one report, Markdown and HTML with a figure per claim (schedlab.papers.report). A
report already in --out keeps the sections of the papers not rerun (unless --fresh)."""
from __future__ import annotations

import sys


def cmd_reproduce(args) -> int:
    from ..papers import claims, report
    papers = args.paper or list(claims.PAPERS)
    for p in papers:
        if p not in claims.PAPERS:
            raise ValueError(f"unknown paper {p!r}; choose from {', '.join(claims.PAPERS)}")
    command = ("schedlab reproduce " + " ".join(args.paper or []) + f" --size {args.size} --out {args.out}"
               + (" --fresh" if args.fresh else ""))
    outcomes = report.reproduce(papers, args.size, args.out, progress=not args.quiet, command=" ".join(command.split()),
                                merge=not args.fresh)
    # columns as wide as the longest paper name and claim id, so verdicts line up
    wp = max((len(o.claim.paper) for o in outcomes), default=0)
    wi = max((len(o.claim.id) for o in outcomes), default=0)
    for o in outcomes:
        mark = "" if getattr(o, "as_recorded", True) else "   (recorded: " + o.claim.recorded(args.size) + ")"
        print(f"{o.claim.paper:{wp}s}  {o.claim.id:{wi}s}  {o.verdict}{mark}")
    print(f"report: {args.out}/README.md and {args.out}/index.html", file=sys.stderr)
    return 0


def add_command(subparsers):
    p = subparsers.add_parser("reproduce", help="rerun the papers' headline claims and write the reproduction report")
    p.add_argument("paper", nargs="*", help="papers to rerun (default all): wang2017 zhao2013 zhou2019 tang2014 lim2015")
    p.add_argument("--size", choices=("small", "full"), default="small",
                   help="small: the CI size (a few minutes); full: the report's size")
    p.add_argument("--out", required=True, help="folder for README.md, index.html and figures/")
    p.add_argument("--fresh", action="store_true",
                   help="write the report anew; by default the papers rerun replace their sections of the report "
                        "already in --out and the other papers' sections are kept")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_reproduce)
    return p
