"""Standard figures (matplotlib): latency CDFs, percentile bars with confidence intervals,
improvement over a baseline, slot-usage Gantt charts and utilization over time.

Every function draws on ``ax`` when given (or creates a figure) and returns the
``matplotlib.figure.Figure``; save it with ``fig.savefig("x.png")``.

>>> res = sl.sweep(["fifo", "fair"], cluster, "demo_mix", seeds=range(5), jobs=True)
>>> sl.plot.latency_cdf(res.jobs, job_class="job_type")
>>> sl.plot.percentile_bars(res.runs)
>>> sl.plot.improvement(res.runs, baseline="fifo", x="nodes")
>>> r = sl.simulate(cluster, workload, "fair")
>>> sl.plot.gantt(r); sl.plot.utilization(r)
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from . import stats as _stats


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("schedlab.plot needs matplotlib: pip install 'schedlab[plot]'") from None
    return plt


def _axes(ax, ncols=1, figsize=None, sharey=False):
    plt = _plt()
    if ax is not None:
        axes = np.atleast_1d(ax)
        if len(axes) < ncols:
            raise ValueError(f"plot: {ncols} axes are needed, got {len(axes)}")
        return axes[0].figure, list(axes)
    fig, axes = plt.subplots(1, ncols, figsize=figsize or (5.5 * ncols, 4), squeeze=False, sharey=sharey,
                             constrained_layout=True)
    return fig, list(axes[0])


def _label_of(obj):
    sch = getattr(obj, "scheduler", None)
    return getattr(sch, "label", str(sch))


def _jobs_frame(jobs, by) -> pd.DataFrame:
    """A sweep's jobs table as is; a Result, or a list or dict of Results, as one jobs table
    with a ``scheduler`` column."""
    if isinstance(jobs, pd.DataFrame):
        return jobs
    if hasattr(jobs, "jobs") and hasattr(jobs, "scheduler"):
        jobs = [jobs]
    if isinstance(jobs, dict):
        items = list(jobs.items())
    elif isinstance(jobs, (list, tuple)):
        items = [(_label_of(r), r) for r in jobs]
    else:
        raise ValueError(f"plot: expected a jobs DataFrame, a Result or Results, got {type(jobs).__name__}")
    return pd.concat([r.jobs.assign(**{by: label}) for label, r in items], ignore_index=True)


def latency_cdf(jobs, by: str = "scheduler", job_class: str | None = None, metric: str = "completion_time",
                log: bool = True, ax=None):
    """Empirical CDF of job latency (``metric``, default completion time) with one line per value
    of ``by`` (default scheduler), and one panel per job class when ``job_class`` names a job
    column (e.g. ``"job_type"``). ``jobs``: a sweep's jobs table (``sweep(..., jobs=True).jobs``),
    a Result, or a list or dict of Results. Lines pool all runs of a group (e.g. all seeds)."""
    df = _jobs_frame(jobs, by)
    for c in (by, metric) + ((job_class,) if job_class else ()):
        if c not in df:
            raise ValueError(f"latency_cdf: no column {c!r} in the jobs table (have {list(df.columns)})")
    classes = list(pd.unique(df[job_class])) if job_class else [None]
    fig, axes = _axes(ax, len(classes), sharey=True)
    for a, cls in zip(axes, classes):
        sub = df if cls is None else df[df[job_class] == cls]
        for label, g in sub.groupby(by, sort=False):
            x = np.sort(g[metric].to_numpy(float))
            x = x[np.isfinite(x)]
            if not len(x):
                continue
            y = np.arange(1, len(x) + 1) / len(x)
            a.step(x, y, where="post", label=str(label))
        if log and (sub[metric] > 0).all():
            a.set_xscale("log")
        a.set_xlabel(metric.replace("_", " ") + " (s)")
        a.set_ylabel("fraction of jobs")
        a.set_ylim(0, 1.02)
        a.grid(True, alpha=0.3)
        a.set_title(f"{job_class} = {cls}" if cls is not None else "job latency CDF")
        a.legend(fontsize="small", title=by)
    return fig


def percentile_bars(table: pd.DataFrame, percentiles=(50, 90, 99), by: str = "scheduler", metric: str = "completion_time",
                    confidence: float = 0.95, ax=None):
    """Grouped bars of the P50/P90/P99 (``percentiles``) of ``metric`` per value of ``by``, each the
    mean over the group's runs (seeds) with a ``confidence`` interval as error bars. Filter the
    sweep table first when it mixes clusters or workloads you do not want pooled."""
    cols = [f"p{p}_{metric}" for p in percentiles]
    missing = [c for c in cols if c not in table]
    if missing:
        raise ValueError(f"percentile_bars: no column(s) {missing} in the table; the sweep's summary has "
                         f"{[c for c in table.columns if c.startswith('p')]}")
    s = _stats.summarize(table, cols, by=[by], confidence=confidence)
    groups = list(pd.unique(table[by]))
    fig, (a,) = _axes(ax, 1, figsize=(max(5.5, 1.2 * len(groups) * len(cols) / 2), 4))
    width = 0.8 / len(cols)
    x = np.arange(len(groups))
    for i, (p, c) in enumerate(zip(percentiles, cols)):
        part = s[s["metric"] == c].set_index(by).loc[groups]
        mean = part["mean"].to_numpy(float)
        lo, hi = part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float)
        err = np.vstack([np.where(np.isfinite(lo), mean - lo, 0), np.where(np.isfinite(hi), hi - mean, 0)])
        a.bar(x + (i - (len(cols) - 1) / 2) * width, mean, width, yerr=err, capsize=3, label=f"P{p}")
    a.set_xticks(x)
    a.set_xticklabels([str(g) for g in groups], rotation=20 if len(groups) > 3 else 0, ha="right" if len(groups) > 3 else "center")
    a.set_xlabel(by)
    a.set_ylabel(metric.replace("_", " ") + " (s)")
    a.set_title(f"percentiles over runs, {int(round(confidence * 100))}% CI")
    a.legend()
    a.grid(True, axis="y", alpha=0.3)
    return fig


def improvement(table: pd.DataFrame, baseline, x: str, metric: str = "mean_completion_time", line: str | None = None,
                confidence: float = 0.95, on=None, ax=None):
    """Normalized improvement over ``baseline`` (see :func:`schedlab.stats.improvement`; positive =
    better) against the swept column ``x`` (a cluster column such as ``nodes``, a scheduler
    parameter, an option), one line per ``line`` (default: the scheduler name when ``x`` is a
    scheduler parameter, else the scheduler label), with a ``confidence`` band over seeds."""
    if x not in table:
        raise ValueError(f"improvement: no column {x!r} in the table")
    imp = _stats.improvement(table, baseline, metric, on=on)
    if line is None:
        params = (table.attrs.get("schedlab") or {}).get("params", [])
        line = "scheduler_name" if x in params and "scheduler_name" in imp else "scheduler"
    fig, (a,) = _axes(ax, 1)
    for label, g in imp.groupby(line, sort=False):
        s = _stats.summarize(g, "improvement", by=[x], confidence=confidence).sort_values(x)
        xs = s[x].to_numpy()
        if not np.issubdtype(np.asarray(xs).dtype, np.number):
            xs = np.arange(len(xs))
            a.set_xticks(xs)
            a.set_xticklabels(s[x].astype(str))
        m = s["mean"].to_numpy(float)
        (ln,) = a.plot(xs, m, marker="o", label=str(label))
        lo, hi = s["ci_low"].to_numpy(float), s["ci_high"].to_numpy(float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        if ok.any():
            a.fill_between(np.asarray(xs, float)[ok], lo[ok], hi[ok], alpha=0.2, color=ln.get_color())
    a.axhline(0, color="black", lw=0.8)
    a.set_xlabel(x)
    a.set_ylabel(f"improvement in {metric.replace('_', ' ')} over {baseline}")
    a.yaxis.set_major_formatter(_plt().FuncFormatter(lambda v, _: f"{v:.0%}"))
    a.set_title(f"normalized improvement vs {baseline} ({int(round(confidence * 100))}% CI)")
    a.legend(fontsize="small", title=line)
    a.grid(True, alpha=0.3)
    return fig


def _tasks_of(obj):
    if isinstance(obj, pd.DataFrame):
        return obj, None
    if hasattr(obj, "tasks") and hasattr(obj, "cluster"):
        return obj.tasks, obj.cluster
    raise ValueError(f"plot: expected a Result or a tasks DataFrame, got {type(obj).__name__}")


def gantt(result, color_by: str = "stage", nodes=None, ax=None, max_rows: int = 400):
    """Slot-usage Gantt chart: one row per (node, slot) and one bar per attempt from its start
    to its finish, coloured by ``color_by`` (``"stage"`` or ``"job_id"``); killed attempts are
    hatched. ``result``: a Result or its ``tasks`` table (columns node, slot, start, finish,
    stage, job_id). ``nodes`` restricts the chart to some nodes; at most ``max_rows`` rows."""
    tasks, _ = _tasks_of(result)
    need = ["node", "slot", "start", "finish", "stage", "job_id"]
    missing = [c for c in need if c not in tasks]
    if missing:
        raise ValueError(f"gantt: the tasks table lacks {missing}")
    if color_by not in ("stage", "job_id"):
        raise ValueError(f"gantt: color_by must be 'stage' or 'job_id', got {color_by!r}")
    t = tasks if nodes is None else tasks[tasks["node"].isin(list(np.atleast_1d(nodes)))]
    if not len(t):
        raise ValueError("gantt: no attempts to draw")
    end = float(np.nanmax(np.where(np.isfinite(t["finish"]), t["finish"], t["start"])))
    # slot positions are per node (the engine numbers all of a node's slots together)
    rows = pd.DataFrame({"node": t["node"].to_numpy(), "slot": t["slot"].to_numpy()})
    keys = rows.drop_duplicates().sort_values(["node", "slot"]).reset_index(drop=True)
    if len(keys) > max_rows:
        keys = keys.iloc[:max_rows]
    row_of = {tuple(k): i for i, k in enumerate(keys.itertuples(index=False, name=None))}
    y = np.array([row_of.get(k, -1) for k in rows.itertuples(index=False, name=None)])
    keep = y >= 0
    t, y = t[keep], y[keep]
    start = t["start"].to_numpy(float)
    finish = np.where(np.isfinite(t["finish"]), t["finish"], end).astype(float)
    plt = _plt()
    if color_by == "stage":
        palette = {"map": "tab:blue", "reduce": "tab:orange"}
        colors = [palette.get(str(s), "tab:gray") for s in t["stage"]]
    else:
        codes = pd.factorize(t["job_id"])[0]
        cmap = plt.get_cmap("tab20")
        colors = [cmap(c % 20) for c in codes]
    fig, (a,) = _axes(ax, 1, figsize=(9, max(3, min(12, 0.18 * len(keys) + 1))))
    bars = a.barh(y, finish - start, left=start, height=0.8, color=colors, edgecolor="none")
    if "status" in t:
        for b, st in zip(bars, t["status"].astype(str)):
            if st == "killed":
                b.set_hatch("//")
                b.set_alpha(0.5)
    a.set_yticks(np.arange(len(keys)))
    a.set_yticklabels([f"n{n} s{s}" if s >= 0 else f"n{n} s?" for n, s in keys.itertuples(index=False, name=None)],
                      fontsize=6 if len(keys) > 30 else 8)
    a.invert_yaxis()
    a.set_xlabel("time (s)")
    a.set_ylabel("node / slot")
    a.set_title("slot usage")
    if color_by == "stage":
        from matplotlib.patches import Patch
        a.legend(handles=[Patch(color=c, label=s) for s, c in palette.items()], fontsize="small", loc="upper right")
    return fig


def utilization(result, cluster=None, by_stage: bool = True, ax=None):
    """Busy slots over time as a fraction of capacity (one line per slot type with
    ``by_stage``), computed from the attempts. ``result``: a Result, or a tasks table with the
    ``cluster`` it ran on (without a cluster the y axis counts busy slots)."""
    tasks, cl = _tasks_of(result)
    cl = cluster if cluster is not None else cl
    if not len(tasks):
        raise ValueError("utilization: no attempts to draw")
    end = float(np.nanmax(np.where(np.isfinite(tasks["finish"]), tasks["finish"], tasks["start"])))
    kind_col = "slot_type" if "slot_type" in tasks else "stage"
    groups = [(str(k), g) for k, g in tasks.groupby(kind_col, observed=True)] if by_stage else [("all", tasks)]
    fig, (a,) = _axes(ax, 1, figsize=(8, 3.5))
    for kind, g in groups:
        st = g["start"].to_numpy(float)
        fin = np.where(np.isfinite(g["finish"]), g["finish"], end).astype(float)
        times = np.concatenate([st, fin])
        delta = np.concatenate([np.ones(len(st)), -np.ones(len(fin))])
        order = np.lexsort((delta, times))
        busy = np.cumsum(delta[order])
        tt = times[order]
        cap = None
        if cl is not None:
            nodes = cl.nodes
            cap = {"map": nodes["map_slots"].sum(), "reduce": nodes["reduce_slots"].sum()}.get(
                kind, nodes["map_slots"].sum() + nodes["reduce_slots"].sum())
        yv = busy / cap if cap else busy
        a.step(np.concatenate([[0.0], tt]), np.concatenate([[0.0], yv]), where="post", label=kind)
    a.set_xlabel("time (s)")
    a.set_ylabel("busy fraction of slots" if cl is not None else "busy slots")
    if cl is not None:
        a.set_ylim(0, 1.05)
    a.set_title("utilization over time")
    a.legend(fontsize="small")
    a.grid(True, alpha=0.3)
    return fig


def standard_plots(runs: pd.DataFrame, jobs: pd.DataFrame | None, folder, *, baseline=None, x=None,
                   job_class=None, metric: str = "mean_completion_time") -> list:
    """Writes the standard figures of a sweep to ``folder`` as PNG files and returns their paths:
    percentile bars, latency CDFs (when ``jobs`` is given) and, with a ``baseline``, the
    improvement over it against ``x`` (default: the first swept column)."""
    import os
    plt = _plt()
    os.makedirs(folder, exist_ok=True)
    out = []

    def save(fig, name):
        path = os.path.join(folder, name)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        out.append(path)

    save(percentile_bars(runs), "percentiles.png")
    if jobs is not None and len(jobs):
        cls = job_class if job_class in jobs else None
        save(latency_cdf(jobs, job_class=cls), "latency_cdf.png")
    if baseline is not None and runs["scheduler"].nunique() > 1:
        if x is None:
            meta = runs.attrs.get("schedlab") or {}
            cands = [c for c in meta.get("params", []) + ["nodes", "racks", "map_slots", "reduce_slots"]
                     + meta.get("options", []) + ["workload", "cluster"] if c in runs and runs[c].nunique() > 1]
            x = cands[0] if cands else "cluster"
        save(improvement(runs, baseline, x, metric=metric), "improvement.png")
    return out
