"""schedlab.plot: every figure renders to a PNG with axes, labels and drawn data."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import schedlab as sl  # noqa: E402
from schedlab import plot  # noqa: E402


@pytest.fixture(scope="module")
def sweep_result():
    return sl.sweep(["fifo", sl.grid("fair", locality_delay=[0, 5])], {"nodes": [4, 6], "racks": 2}, "demo_mix",
                    seeds=range(3), jobs=True, progress=False)


@pytest.fixture(scope="module")
def result():
    return sl.simulate(sl.Cluster(nodes=3, racks=1), sl.datasets.load("demo_mix"), "fair", seed=1)


def check_png(fig, tmp_path, name):
    path = tmp_path / f"{name}.png"
    fig.savefig(path, dpi=60)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 3000
    img = plt.imread(path)
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
    assert img[..., :3].std() > 0.05  # not a blank canvas
    plt.close(fig)


def test_latency_cdf_per_scheduler_and_class(sweep_result, tmp_path):
    fig = plot.latency_cdf(sweep_result.jobs, job_class="job_type")
    axes = fig.get_axes()
    classes = sweep_result.jobs["job_type"].unique()
    assert len(axes) == len(classes)
    for ax in axes:
        assert ax.get_xlabel() == "completion time (s)" and ax.get_ylabel() == "fraction of jobs"
        assert ax.get_title().startswith("job_type = ")
        lines = ax.get_lines()
        assert len(lines) == 3
        y = lines[0].get_ydata()
        assert y[-1] == pytest.approx(1.0) and np.all(np.diff(y) >= 0)
        assert [t.get_text() for t in ax.get_legend().get_texts()] == list(sweep_result.runs.scheduler.unique())
    # the curve of one class holds every job of that class over all runs of the scheduler
    jobs = sweep_result.jobs
    n = ((jobs.job_type == classes[0]) & (jobs.scheduler == "fifo")).sum()
    assert len(axes[0].get_lines()[0].get_xdata()) == n
    check_png(fig, tmp_path, "cdf")
    fig = plot.latency_cdf([sl.simulate(sl.Cluster(nodes=3), sl.datasets.load("demo_mix"), s) for s in ("fifo", "fair")])
    assert len(fig.get_axes()[0].get_lines()) == 2
    check_png(fig, tmp_path, "cdf2")


def test_percentile_bars_with_confidence_intervals(sweep_result, tmp_path):
    runs = sweep_result.runs[sweep_result.runs.nodes == 4]
    fig = plot.percentile_bars(runs)
    ax = fig.get_axes()[0]
    assert ax.get_ylabel() == "completion time (s)" and ax.get_xlabel() == "scheduler"
    bars = [p for p in ax.patches]
    assert len(bars) == 3 * 3
    s = sl.stats.summarize(runs, ["p90_completion_time"], by=["scheduler"])
    heights = sorted(round(b.get_height(), 6) for b in bars)
    for m in s["mean"]:
        assert round(m, 6) in heights
    assert len(ax.collections) >= 3  # error bars
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["P50", "P90", "P99"]
    check_png(fig, tmp_path, "bars")
    with pytest.raises(ValueError, match="p95_completion_time"):
        plot.percentile_bars(runs, percentiles=(95,))


def test_improvement_over_a_swept_parameter(sweep_result, tmp_path):
    fig = plot.improvement(sweep_result.runs, "fifo", x="locality_delay")
    ax = fig.get_axes()[0]
    assert ax.get_xlabel() == "locality_delay" and "fifo" in ax.get_ylabel()
    (line,) = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert list(line.get_xdata()) == [0, 5]
    imp = sl.stats.improvement(sweep_result.runs, "fifo")
    expect = imp.groupby("locality_delay")["improvement"].mean().to_numpy()
    np.testing.assert_allclose(line.get_ydata(), expect)
    check_png(fig, tmp_path, "improvement")
    fig = plot.improvement(sweep_result.runs, "fifo", x="nodes")
    lines = [ln for ln in fig.get_axes()[0].get_lines() if ln.get_marker() == "o"]
    assert len(lines) == 2 and list(lines[0].get_xdata()) == [4, 6]
    check_png(fig, tmp_path, "improvement_nodes")


def test_gantt_from_result_tasks(result, tmp_path):
    fig = plot.gantt(result)
    ax = fig.get_axes()[0]
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "node / slot"
    tasks = result.tasks
    assert len(ax.patches) == len(tasks)
    rows = tasks[["node", "slot"]].drop_duplicates()
    assert len(ax.get_yticks()) == len(rows)
    widths = sorted(p.get_width() for p in ax.patches)
    np.testing.assert_allclose(widths, sorted((tasks["finish"] - tasks["start"]).to_numpy()))
    check_png(fig, tmp_path, "gantt")
    fig = plot.gantt(result.tasks, color_by="job_id", nodes=[0])
    assert len(fig.get_axes()[0].patches) == (tasks.node == 0).sum()
    check_png(fig, tmp_path, "gantt_jobs")
    with pytest.raises(ValueError, match="lacks"):
        plot.gantt(tasks.drop(columns=["slot"]))


def test_utilization_over_time(result, tmp_path):
    fig = plot.utilization(result)
    ax = fig.get_axes()[0]
    assert ax.get_ylabel() == "busy fraction of slots" and ax.get_xlabel() == "time (s)"
    lines = ax.get_lines()
    assert len(lines) == 2
    for ln in lines:
        y = np.asarray(ln.get_ydata())
        assert y.max() <= 1.0 + 1e-12 and y.max() > 0.5 and y[-1] == 0
    check_png(fig, tmp_path, "util")
    fig = plot.utilization(result.tasks, by_stage=False)
    assert fig.get_axes()[0].get_ylabel() == "busy slots"
    assert np.asarray(fig.get_axes()[0].get_lines()[0].get_ydata()).max() <= 12
    check_png(fig, tmp_path, "util_all")


def test_standard_plots_write_files(sweep_result, tmp_path):
    paths = plot.standard_plots(sweep_result.runs, sweep_result.jobs, tmp_path / "plots", baseline="fifo",
                                job_class="job_type")
    names = sorted(p.split("/")[-1] for p in paths)
    assert names == ["improvement.png", "latency_cdf.png", "percentiles.png"]
    for p in paths:
        assert open(p, "rb").read(4) == b"\x89PNG"
