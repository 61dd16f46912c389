"""MRCP's CP-SAT budget study (docs/reproduction/mrcp_budget.md): per budget of deterministic time
and seed, the proportion of late jobs P_CP, how many solves ended OPTIMAL / FEASIBLE, and the CPU
time of the run; EDF's P beside it. Rows are appended to --out as they finish (CSV), so budgets
and seeds can run as separate processes; --table prints the markdown table of a CSV.

    python bench/mrcp_budget.py --budgets 0.01 0.02 0.05 0.1 0.2 --seeds 1 2 3 --out mrcp_budget.csv
    python bench/mrcp_budget.py --table mrcp_budget.csv
"""
import argparse
import os

import pandas as pd

from schedlab.papers import lim2015


def table(df: pd.DataFrame) -> str:
    rows = ["| budget (deterministic s) | P_CP per seed | mean P_CP | mean P_EDF | solves OPTIMAL / all "
            "| CPU s per run (mean) |", "|---|---|---|---|---|---|"]
    for b, g in df.sort_values(["budget", "seed"]).groupby("budget"):
        per = " / ".join(f"{p:.3f}" for p in g["P_CP"])
        seeds = ",".join(str(int(s)) for s in g["seed"])
        rows.append(f"| {b:g} | {per} (seeds {seeds}) | {g['P_CP'].mean():.3f} | {g['P_EDF'].mean():.3f} "
                    f"| {int(g['optimal'].sum())} / {int(g['solves'].sum())} | {g['cpu_s'].mean():.0f} |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", type=float, nargs="+", default=[0.01, 0.02, 0.05, 0.1, 0.2])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--size", default="medium")
    ap.add_argument("--jobs", type=int, default=30)
    ap.add_argument("--out", default="mrcp_budget.csv")
    ap.add_argument("--table", metavar="CSV", help="print the markdown table of a CSV and exit")
    args = ap.parse_args()
    if args.table:
        print(table(pd.read_csv(args.table)))
        return
    for b in args.budgets:
        for s in args.seeds:
            row = lim2015.mrcp_budget_study(budgets=(b,), size=args.size, jobs=args.jobs, seeds=(s,))
            row.to_csv(args.out, mode="a", header=not os.path.exists(args.out), index=False)
            print(row.to_string(index=False, header=False), flush=True)


if __name__ == "__main__":
    main()
