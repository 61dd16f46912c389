"""The command line: results never lost, outputs where asked, one-line errors with one exit code,
checks before the first run, datasets by name, the demo's story."""
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import schedlab as sl
from schedlab.cli import build_parser, main
from schedlab.cli.main import USAGE_ERROR

TRACE = b"0 2 3.0 2.0 4.0\n1 1 7.5 7.5\n2 3 1.0 1.0 1.0 1.0\n"


@pytest.fixture
def trace(tmp_path):
    p = tmp_path / "t.tr"
    p.write_bytes(TRACE)
    return p


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("schedlab: error: "), err
    return lines[0]


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"schedlab {sl.__version__}"


def test_two_schedulers_one_jobs_file_with_a_scheduler_column(capsys, trace, tmp_path):
    out_csv = tmp_path / "jobs.csv"
    summary = tmp_path / "summary.json"
    code, out, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--scheduler", "fair",
                         "--nodes", 3, "--jobs-out", out_csv, "--summary-out", summary)
    assert code == 0, err
    assert "fifo" in out and "fair" in out and "makespan" in out
    jobs = pd.read_csv(out_csv)
    assert list(jobs.columns[:2]) == ["scheduler", "job_id"]
    assert sorted(jobs["scheduler"].unique()) == ["fair", "fifo"] and len(jobs) == 6
    assert sorted(os.listdir(tmp_path)) == ["jobs.csv", "summary.json", "t.tr"]  # nothing else written
    s = pd.read_json(summary)
    assert list(s["scheduler"]) == ["fifo", "fair"] and "mean_completion_time" in s


@pytest.mark.parametrize("suffix", [".tsv", ".json", ".parquet"])
def test_jobs_out_suffix_is_honoured(capsys, trace, tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    path = tmp_path / "sub.dir" / f"jobs{suffix}"  # a dot in a folder name is not the suffix
    path.parent.mkdir()
    code, _, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--nodes", 2, "--jobs-out", path)
    assert code == 0, err
    read = {".tsv": lambda p: pd.read_csv(p, sep="\t"), ".json": pd.read_json, ".parquet": pd.read_parquet}[suffix]
    assert len(read(path)) == 3


@pytest.mark.parametrize("path, message", [
    ("jobs.xlsx", "unknown file type '.xlsx'"),
    ("jobs", "unknown file type '(none)'"),
    ("missing/jobs.csv", "does not exist"),
])
def test_bad_outputs_are_refused_before_any_run(capsys, trace, tmp_path, path, message):
    code, out, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--jobs-out", tmp_path / path)
    assert code == USAGE_ERROR
    assert message in one_line_error(err)
    assert out == "" and not (tmp_path / "missing").exists()


def test_engine_mismatch_fails_before_the_first_run(capsys, tmp_path):
    swim = tmp_path / "mr.tsv"  # one map-reduce job: sparrow (worker engine) cannot run it
    swim.write_text("job0\t0\t0\t200000000\t100000000\t1000\n")
    code, out, err = cli(capsys, "run", "--trace", swim, "--scheduler", "fifo", "--scheduler", "sparrow")
    assert code == USAGE_ERROR and out == ""
    line = one_line_error(err)
    assert "sparrow" in line and "single-stage" in line
    assert "# fifo" not in err  # fifo never ran


def test_unknown_names_suggest_the_closest(capsys, trace):
    code, _, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fiar")
    assert code == USAGE_ERROR and "did you mean 'fair'" in one_line_error(err)
    code, _, err = cli(capsys, "rnu", "--trace", trace)
    assert code == USAGE_ERROR and "did you mean 'run'" in one_line_error(err)
    # a misspelled option is reported as unknown, not as a missing one
    code, _, err = cli(capsys, "run", "--trce", trace, "--scheduler", "fifo")
    line = one_line_error(err)
    assert code == USAGE_ERROR and "unknown option --trce" in line and "did you mean '--trace'" in line
    code, _, err = cli(capsys, "run", "--trace", "demo_mx", "--scheduler", "fifo")
    assert code == USAGE_ERROR and "did you mean 'demo_mix'" in one_line_error(err)
    code, _, err = cli(capsys, "run", "--trace", trace, "--format", "swm", "--scheduler", "fifo")
    line = one_line_error(err)
    assert code == USAGE_ERROR and "--format" in line and "did you mean 'swim'" in line and "format=" not in line


@pytest.mark.parametrize("args, message", [
    (["--max-jobs", "-3"], "--max-jobs: must be at least 1"),
    (["--max-jobs", "0"], "--max-jobs: must be at least 1"),
    (["--nodes", "x"], "'x' is not a whole number"),
    (["--map-slots", "-1"], "must be at least 0"),
    (["--param", "nonsense"], "must look like name=value"),
    (["--option", "no_such_option=1"], "unknown parameter 'no_such_option'"),
])
def test_bad_values_are_one_line(capsys, trace, args, message):
    code, out, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", *args)
    assert code == USAGE_ERROR and out == ""
    assert message in one_line_error(err)


def test_map_slots_zero_is_refused_before_running(capsys, trace):
    code, out, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--map-slots", 0)
    assert code == USAGE_ERROR and out == ""
    assert "no progress" in one_line_error(err)


def test_huge_cluster_is_refused_before_allocating(capsys, trace):
    code, out, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--nodes", 2_000_000_000)
    assert code == USAGE_ERROR and out == ""
    assert "memory" in one_line_error(err) and "--nodes" in one_line_error(err)


def test_max_jobs_keeps_the_first_jobs(capsys, trace, tmp_path):
    out_csv = tmp_path / "j.csv"
    code, _, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--max-jobs", 2, "--jobs-out", out_csv)
    assert code == 0, err
    assert list(pd.read_csv(out_csv)["job_id"]) == [0, 1]
    code, _, err = cli(capsys, "run", "--trace", trace, "--scheduler", "fifo", "--max-jobs", 99, "--jobs-out", out_csv)
    assert code == 0 and len(pd.read_csv(out_csv)) == 3


def test_a_shipped_dataset_is_a_trace(capsys):
    code, out, err = cli(capsys, "run", "--trace", "demo_mix", "--scheduler", "fair", "--nodes", 10, "-q")
    assert code == 0, err
    assert "fair" in out and err == ""


def test_small_values_are_not_printed_as_zero():
    from schedlab.cli.main import _fmt
    assert _fmt(2.4e-4) == "2.400e-04"
    assert _fmt(0.5) == "0.5" and _fmt(1234.5) == "1,234" and _fmt(0) == "0"


def test_mrcp_without_ortools_is_one_line(capsys, trace, monkeypatch):
    import schedlab.schedulers.mrcp as mrcp

    def missing():
        raise ImportError("the mrcp scheduler needs OR-Tools CP-SAT, which is not installed: pip install ortools")
    monkeypatch.setattr(mrcp, "_import_cp_model", missing)
    code, out, err = cli(capsys, "run", "--trace", trace, "--scheduler", "mrcp")
    assert code == USAGE_ERROR and out == ""
    assert "OR-Tools" in one_line_error(err)


def test_schedulers_and_datasets_listings(capsys):
    code, out, _ = cli(capsys, "schedulers", "--engine", "worker")
    assert code == 0 and "sparrow" in out and "fifo" not in out
    code, out, _ = cli(capsys, "datasets", "list")
    assert code == 0 and "demo_mix" in out and "swim_fb2009_0" in out and "google2011_sub" in out
    code, _, err = cli(capsys, "datasets", "get", "swim_fb2009")
    assert code == USAGE_ERROR and "did you mean 'swim_fb2009_" in one_line_error(err)


def test_datasets_get_from_a_mirror_and_a_failed_download(capsys, tmp_path, monkeypatch):
    from conftest import trace_path
    src = trace_path("hawk_eagle", "YH_small.tr")
    mirror = tmp_path / "mirror" / "hawk_eagle"
    mirror.mkdir(parents=True)
    (mirror / "YH_small.tr").write_bytes(src.read_bytes())
    cache = tmp_path / "cache"
    monkeypatch.setenv("SCHEDLAB_CACHE", str(cache))
    monkeypatch.delenv("SCHEDLAB_TRACES", raising=False)
    # a failed download: one line saying where to put the file, and no folder left behind
    code, out, err = cli(capsys, "datasets", "get", "yahoo_small", "--mirror", (tmp_path / "nowhere").as_uri())
    line = one_line_error(err)
    assert code == USAGE_ERROR and "place the file by hand at" in line and "SCHEDLAB_TRACES" in line
    assert not cache.exists()
    code, out, err = cli(capsys, "datasets", "get", "yahoo_small", "--mirror", (tmp_path / "mirror").as_uri())
    assert code == 0, err
    path = out.split("\t")[1].strip()
    assert path == str(cache / "yahoo_small" / "YH_small.tr") and os.path.exists(path)
    # then it is a trace by name
    code, out, err = cli(capsys, "run", "--trace", "yahoo_small", "--scheduler", "sparrow", "-q")
    assert code == 0, err


def test_demo_tells_a_story(capsys, tmp_path):
    plot = tmp_path / "demo.png"
    code, out, err = cli(capsys, "demo", "--plot", plot)
    assert code == 0, err
    assert "map_slots=2, reduce_slots=2" in out  # per node, as Cluster() takes them
    assert "lower is better" in out and "Takeaway" in out and "Next:" in out
    assert plot.stat().st_size > 1000


def test_command_modules_share_one_table():
    p = build_parser()
    sub = next(a for a in p._actions if a.dest == "command")
    for name in ("run", "demo", "schedulers", "datasets", "sweep"):
        assert name in sub.choices


def test_ctrl_c_is_one_line(tmp_path):
    """SIGINT during a long run: one line on stderr, exit code 130, no traceback."""
    code = ("import sys\n"
            "from schedlab.cli import main\n"
            "print('ready', flush=True)\n"
            "sys.exit(main(['run', '--trace', 'demo_mix', '--scheduler', 'fair', '--nodes', '2', '--no-progress',"
            " '--option', 'heartbeat_interval=0.00001']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"  # imports done
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run ended before the signal")
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "schedlab: interrupted" and "Traceback" not in err
