"""The trace readers' whole-block parsers (NumPy, pyarrow) and Workload.from_job_blocks give the
workloads of the line-by-line reading and of Workload.from_frames, on the shared samples (skipped
when absent) and on files written here; read_trace's progress bar is fed while a file is parsed."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from conftest import trace_path
from schedlab.workloads import traces
from schedlab.workloads.traces import _text


def same_workload(a, b):
    """The same jobs table and native columns (the task table is made of these)."""
    assert a.fingerprint() == b.fingerprint()
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    for ca, cb in zip(a.native().columns(), b.native().columns()):
        assert ca.keys() == cb.keys()
        for k in ca:
            np.testing.assert_array_equal(np.asarray(ca[k]), np.asarray(cb[k]), err_msg=k)


def line_by_line(monkeypatch, path, **opts):
    with monkeypatch.context() as m:
        m.setattr(_text, "FAST", False)
        return sl.read_trace(path, **opts)


@pytest.mark.parametrize("rel,opts", [
    ("hawk_eagle/GOOG_subtrace.tr", {}),
    ("hawk_eagle/YH_small.tr", {"truncate": True, "tie_offset": 0.01}),
    ("alibaba2017/batch_task.csv", {"format": "alibaba2017"}),
    ("alibaba2017/batch_task.csv", {"format": "alibaba2017", "statuses": None, "instances": True,
                                    "max_instances_per_task": 10, "negative_spans": "drop"}),
])
def test_shared_samples_read_as_line_by_line(monkeypatch, rel, opts):
    path = trace_path(*rel.split("/"))
    same_workload(sl.read_trace(path, **opts), line_by_line(monkeypatch, path, **opts))



def numpy_tr_columns(text: bytes):
    """(submit, counts, mean, durations) of a .tr text by NumPy's conversion of every token."""
    rows = [r for r in map(bytes.split, text.splitlines()) if r]
    vals = [np.array(r, dtype=np.float64) for r in rows]
    return (np.array([v[0] for v in vals]), np.array([int(r[1]) for r in rows]), np.array([v[2] for v in vals]),
            np.concatenate([v[3:] for v in vals]))


@pytest.mark.parametrize("text,expect", [
    (b"0 2 1.5 1 2\n1 1 3 3\n", "columns"),
    (b"0 2 1.5 1 2\r\n\r\n1.25\t1 3e0 +3.\r", "columns"),  # CRLF, a lone CR, tabs, '+', exponents, '3.'
    (b"  0 1 .5 .5 \x0b\x0c\n\n\n2 1 1E-3 0.001", "columns"),  # \v and \f are blanks; no final newline
    (b"0 2 1 1 1\n1 1 inf inf\n", "not plain"),  # NumPy's conversion decides (and the reader falls back)
    (b"0 2 1 1 1\n1 1_0 1 1\n", "not plain"),
    (b"0 2 1 1 1\n1 x 1 1\n", "not plain"),
    (b"0 0x1 1 1\n", "not plain"),
    (b"0 1 - 1\n", "not plain"),
    (b"0 1.0 1 1\n", "not plain"),  # a count that is not all digits
    (b"0 2 1 1\n", "lines"),  # a count that does not match the durations
    (b"0 0\n", "lines"),
    (b"0 1 1 -1\n", "lines"),  # a negative duration
    (b"-1 1 1 1\n", "lines"),
    (b"0 1 1.0000007 1\n", "lines"),  # a mean near the tolerance (1e-6): the line-by-line check decides
    (b"0 1 1.000002 1\n", "lines"),  # past it: an error naming the line
    (b"\n\n", "lines"),
])
def test_tr_columns_in_one_pass(tmp_path, monkeypatch, text, expect):
    """The C++ parser of .tr files gives NumPy's values bit for bit, None where a token is not a
    plain decimal number or a count is not all digits, and False where a line needs the
    line-by-line reading; the reader's result is the line-by-line reading's either way (or the
    same error)."""
    got = sl._core.tr_columns(text, 1e-6)
    if expect == "columns":
        for a, b in zip(got, numpy_tr_columns(text)):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))
    else:
        assert got is (None if expect == "not plain" else False)
    path = tmp_path / "t.tr"
    path.write_bytes(text)
    try:
        read = sl.read_trace(path)
    except ValueError as e:
        with pytest.raises(ValueError) as slow:
            line_by_line(monkeypatch, path)
        assert str(e) == str(slow.value)
    else:
        same_workload(read, line_by_line(monkeypatch, path))


def test_tr_numbers_convert_as_numpy_bit_for_bit():
    """Every plain decimal token converts to the double NumPy gives, on both sides of the fast
    path's limits (53-bit digit strings, powers of ten up to 22, 19 digits, signs, zeros,
    denormals; overflow to infinity is not plain)."""
    rng = np.random.default_rng(7)
    tokens = ["0", "-0", "+0", "-0.0", ".5", "5.", "9007199254740992", "9007199254740993", "-9007199254740993",
              "1e22", "1e23", "1e-22", "1e-23", "123456789012345678", "1234567890123456789", "12345678901234567890",
              "0.1", "0.30000000000000004", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
              "0.000000000000000000000000001", "00000000000000000000000001.5", "1e+0", "1E-0", "7e00022", "3e-0023"]
    for _ in range(20000):
        digits = "".join(rng.choice(list("0123456789"), size=int(rng.integers(1, 21))))
        point = int(rng.integers(0, len(digits) + 1))
        tok = digits[:point] + ("." if rng.random() < 0.8 else "") + digits[point:]
        if rng.random() < 0.3:
            tok += f"e{int(rng.integers(-40, 41))}"
        tokens.append(("-" if rng.random() < 0.2 else "") + tok)
    # each token as a line's mean field, which only has to be finite (an infinite tolerance lets
    # any mean pass the check against the durations)
    text = "".join(f"0 1 {tok} 0\n" for tok in tokens).encode()
    got = sl._core.tr_columns(text, float("inf"))
    assert got is not None and got is not False
    want = np.array(tokens, dtype=np.float64)
    np.testing.assert_array_equal(got[2].view(np.int64), want.view(np.int64))
    assert sl._core.tr_columns(b"0 1 1e400 1\n", float("inf")) is None  # out of range: NumPy's conversion decides


def swim_by_frames(path, block_bytes=64 * 2**20, bytes_per_reduce=2**30, scale=1.0, map_rate=32 * 2**20,
                   reduce_rate=32 * 2**20, task_overhead=2.0, max_tasks_per_job=None):
    """SWIM's task derivation as a task table given to Workload.from_frames (the reader's
    earlier way), to compare with the reader's task blocks."""
    raw = pd.read_csv(path, sep="\t", header=None, usecols=range(6), dtype={0: object})
    ids = raw[0].tolist()
    inp, shuf, out = (raw[k].to_numpy(np.float64) * scale for k in (3, 4, 5))
    n_maps = np.maximum(np.ceil(np.maximum(inp, block_bytes) / block_bytes), 1)
    red = shuf + out
    n_red = np.where(red > 0, np.maximum(np.rint(red / bytes_per_reduce), 1), 0)
    if max_tasks_per_job is not None:
        n_maps, n_red = np.minimum(n_maps, max_tasks_per_job), np.minimum(n_red, max_tasks_per_job)
    n_maps, n_red = n_maps.astype(np.int64), n_red.astype(np.int64)
    mj, rj = np.repeat(np.arange(len(ids)), n_maps), np.repeat(np.arange(len(ids)), n_red)
    map_in = np.maximum(inp, block_bytes)[mj] / n_maps[mj]
    tasks = pd.DataFrame({
        "job_id": np.asarray(ids, dtype=object)[np.concatenate([mj, rj])],
        "stage": np.r_[np.zeros(len(mj), np.int8), np.ones(len(rj), np.int8)],
        "work": np.r_[task_overhead + map_in / map_rate,
                      task_overhead + red[rj] / np.maximum(n_red[rj], 1) / reduce_rate],
        "input_bytes": np.r_[map_in, shuf[rj] / np.maximum(n_red[rj], 1)],
        "output_bytes": np.r_[shuf[mj] / n_maps[mj], np.zeros(len(rj))],
    })
    jobs = pd.DataFrame({"job_id": ids, "submit_time": raw[1].to_numpy(np.float64), "map_input_bytes": inp,
                         "shuffle_bytes": shuf, "reduce_output_bytes": out})
    return sl.Workload.from_frames(jobs, tasks, name=path.name, source=str(path))


@pytest.mark.parametrize("name,opts", [("FB-2009_samples_24_times_1hr_0.tsv", {}),
                                       ("FB-2009_samples_24_times_1hr_1.tsv", {"scale": 0.2, "max_tasks_per_job": 5}),
                                       ("FB-2010_samples_24_times_1hr_withInputPaths_0.tsv",
                                        {"block_bytes": 2**30, "bytes_per_reduce": 2**33, "max_tasks_per_job": 9})])
def test_swim_task_blocks_are_the_task_table(name, opts):
    path = trace_path("swim", name)
    same_workload(sl.read_trace(path, **opts), swim_by_frames(path, **opts))


def test_swim_by_hand_unsorted_submit_times(tmp_path):
    p = tmp_path / "s.tsv"
    p.write_text("a\t50\t0\t200000000\t0\t0\nb\t10\t0\t100\t3000000000\t0\nc\t10\t0\t0\t0\t0\n")
    w = sl.read_trace(p)
    same_workload(w, swim_by_frames(p))
    assert w.jobs["job_id"].tolist() == ["b", "c", "a"]
    assert w.jobs["n_maps"].tolist() == [1, 1, 3] and w.jobs["n_reduces"].tolist() == [3, 0, 0]


def test_from_job_blocks_is_from_frames():
    jobs = pd.DataFrame({"job_id": ["x", "y", "z"], "submit_time": [5.0, 1.0, 5.0], "user": ["u", "v", "u"],
                         "deadline": [np.nan, 30.0, np.nan], "extra": [7, 8, 9]})
    n, m = np.array([3, 1, 2]), np.array([2, 1, 0])
    work = np.arange(6, dtype=float) + 1
    est = work * 2
    w = sl.Workload.from_job_blocks(jobs, n, {"work": work, "estimate": est}, n_maps=m)
    tasks = pd.DataFrame({"job_id": np.repeat(jobs["job_id"], n).to_numpy(), "work": work, "estimate": est,
                          "stage": ["map", "map", "reduce", "map", "reduce", "reduce"]})
    same_workload(w, sl.Workload.from_frames(jobs, tasks))
    assert w.tasks["work"].tolist() == [4.0, 1.0, 2.0, 3.0, 5.0, 6.0]  # y first, then x and z in table order
    with pytest.raises(ValueError, match=r"src: job_id 'y' has 0 tasks"):
        sl.Workload.from_job_blocks(jobs, [3, 0, 2], {"work": work[:5]}, source="src")
    with pytest.raises(ValueError, match=r"task column 'work' has 5 entries; the jobs' counts add up to 6"):
        sl.Workload.from_job_blocks(jobs, n, {"work": work[:5]})
    with pytest.raises(ValueError, match=r"task column 'work' entry 3 \(job_id 'y'\): must be a number >= 0, got -1.0"):
        sl.Workload.from_job_blocks(jobs, n, {"work": np.r_[1.0, 1, 1, -1, 1, 1]})



def test_from_job_blocks_per_job_and_stage():
    """A task column of shape (jobs, 2), one value per job and stage, is the per-task column with
    each task taking its job's and stage's value: the same workload, the same errors."""
    jobs = pd.DataFrame({"job_id": ["x", "y", "z"], "submit_time": [5.0, 1.0, 5.0]})
    n, m = np.array([3, 1, 2]), np.array([2, 1, 0])
    per_stage = np.array([[1.5, 2.5], [3.0, np.nan], [-7.0, 4.0]])  # y has no reduce, z no map: never read
    per_task = np.array([1.5, 1.5, 2.5, 3.0, 4.0, 4.0])
    a = sl.Workload.from_job_blocks(jobs, n, {"work": per_stage, "input_bytes": np.full((3, 2), 9.0)}, n_maps=m)
    b = sl.Workload.from_job_blocks(jobs, n, {"work": per_task, "input_bytes": np.full(6, 9.0)}, n_maps=m)
    same_workload(a, b)
    assert a.tasks["work"].tolist() == [3.0, 1.5, 1.5, 2.5, 4.0, 4.0]  # y first, then x and z
    assert a.native().nbytes == b.native().nbytes  # kept per job and stage by the core, as b's
    bad = per_stage.copy()
    bad[0, 1] = -1.0  # x's reduce: task entry 2
    with pytest.raises(ValueError, match=r"task column 'work' entry 2 \(job_id 'x'\): must be a number >= 0, got -1.0"):
        sl.Workload.from_job_blocks(jobs, n, {"work": bad}, n_maps=m)
    with pytest.raises(ValueError, match=r"task column 'work' entry 2 \(job_id 'x'\): must be a number >= 0, got -1.0"):
        sl.Workload.from_job_blocks(jobs, n, {"work": np.repeat(bad.ravel(), np.stack([m, n - m], 1).ravel())},
                                    n_maps=m)
    with pytest.raises(ValueError, match=r"task column 'work' given per job and stage has shape \(2, 2\); expected \(3, 2\)"):
        sl.Workload.from_job_blocks(jobs, n, {"work": per_stage[:2]}, n_maps=m)

class Bar:
    """Stands for the tqdm bar: records its total and every update."""

    def __init__(self, total=None, **kwargs):
        self.total, self.updates, self.closed = total, [], False

    def update(self, k):
        assert k > 0
        self.updates.append(k)

    def refresh(self):
        pass

    def close(self):
        self.closed = True


@pytest.fixture
def bars(monkeypatch):
    made = []
    monkeypatch.setattr(traces._progress, "bar", lambda **kw: made.append(Bar(**kw)) or made[-1])
    monkeypatch.setattr(traces, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setattr(_text, "BLOCK_BYTES", 4096)  # many blocks, many reports
    monkeypatch.setattr(_text, "REPORT_BYTES", 4096)
    return made


def swf_text(n, bad_line=None):
    lines = ["; header", ""] + [f"{i + 1} {i} 5 10 2 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1" for i in range(n)]
    if bad_line is not None:
        lines[bad_line - 1] = lines[bad_line - 1].replace(" 10 2 ", " x 2 ")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("bad", [None, 5000])
def test_progress_is_fed_while_parsing(tmp_path, bars, bad):
    """In blocks (a good file) and line by line (a bad line sends the reader there)."""
    p = tmp_path / "t.swf"
    p.write_text(swf_text(3000) + "".join(f"; {i}\n" for i in range(2)) if bad else swf_text(3000))
    size = p.stat().st_size
    sl.read_trace(p, progress=True)
    (bar,) = bars
    assert bar.total == size and sum(bar.updates) == size and bar.closed
    assert len(bar.updates) >= size // 4096 - 1  # reported along the way, not at the end only


@pytest.mark.parametrize("gz", [False, True])
def test_progress_of_an_alibaba2018_table_read_twice(tmp_path, bars, gz):
    """A 2018 table whose blocks give way to the line-by-line reading (a blank after a name) is
    read from the file a second time: the bar is still that of one file, fed to its size."""
    import gzip
    text = alibaba2018_text(jobs=2000).replace(",j_7,", ",j_7 ,")
    p = tmp_path / ("batch_task.csv.gz" if gz else "batch_task.csv")
    p.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    w = sl.read_trace(p, format="alibaba2018", progress=True)
    (bar,) = bars
    assert bar.total == len(text.encode()) and sum(bar.updates) == bar.total and bar.closed
    assert "j_7" in set(w.jobs["job_id"])  # (the line-by-line reading strips the names)


def test_progress_of_gzip_parts_in_a_folder(tmp_path, bars):
    import gzip
    line = "600000000,,{j},0,,{e},alice,2,9,0.06,0.03,0.0001,0\n"
    text = "".join(line.format(j=j, e=e) for j in range(300) for e in (0, 1, 4))
    for k in range(3):
        (tmp_path / f"part-{k}.csv.gz").write_bytes(gzip.compress(text.encode()))
    w = sl.read_trace(tmp_path, format="google2011", progress=True)
    assert w.n_jobs == 300
    (bar,) = bars
    assert bar.total == 3 * len(text) and sum(bar.updates) == bar.total and len(bar.updates) >= 3


def test_progress_rule(tmp_path, bars, monkeypatch):
    p = tmp_path / "t.swf"
    p.write_text(swf_text(10))
    sl.read_trace(p, progress=False)
    monkeypatch.setenv("SCHEDLAB_PROGRESS", "0")
    sl.read_trace(p)
    assert bars == []
    monkeypatch.setenv("SCHEDLAB_PROGRESS", "1")
    sl.read_trace(p)
    assert len(bars) == 1 and sum(bars[0].updates) == p.stat().st_size
    monkeypatch.setattr(traces, "PROGRESS_MIN_BYTES", 10**9)  # small files show no bar
    sl.read_trace(p, progress=True)
    assert len(bars) == 1


def test_error_lines_past_the_first_block(tmp_path):
    """A whole-block parser that gives up sends the reading line by line: the error names the
    line even far into the file."""
    p = tmp_path / "t.swf"
    p.write_text(swf_text(30000, bad_line=25002))
    with pytest.raises(ValueError, match=r"t\.swf:25002: field 4 'run_time' is not a number: 'x'"):
        sl.read_trace(p)
    g = tmp_path / "g.csv"
    rows = [f"{600000000 + i},,{i},0,,0,alice,2,9,0.06,0.03,0.0001,0" for i in range(20000)]
    rows[15000] = rows[15000].replace(",0,alice", ",9,alice")
    g.write_text("\n".join(rows) + "\n")
    with pytest.raises(ValueError, match=r"g\.csv:15001: field 'event_type' must be 0..8, got 9"):
        sl.read_trace(g, format="google2011")


def alibaba2018_text(seed=5, jobs=300):
    """A batch_task table with DAG task names (M1, R2_1, J3_1_2, ...), independent tasks, failed
    tasks and negative spans, in shuffled order."""
    rng = np.random.default_rng(seed)
    lines = []
    for j in range(jobs):
        t0 = int(rng.integers(0, 10**5))
        if j % 5 == 0:
            lines += [f"task_{j}x{k}==,{rng.integers(0, 9)},j_{j},1,Terminated,{t0},{t0 + int(rng.integers(-2, 50))},1,1"
                      for k in range(int(rng.integers(1, 4)))]
            continue
        for k in range(1, int(rng.integers(2, 7))):
            deps = sorted({int(d) for d in rng.integers(1, k, size=int(rng.integers(0, 3)))}) if k > 1 else []
            name = ("M" if not deps else "RJ"[k % 2]) + str(k) + "".join(f"_{d}" for d in deps)
            status = "Terminated" if rng.random() < 0.9 else "Failed"
            lines.append(f"{name},{rng.integers(0, 9)},j_{j},1,{status},{t0 + k},{t0 + k + int(rng.integers(-1, 60))},1,1")
    return "\n".join(lines[i] for i in rng.permutation(len(lines))) + "\n"


@pytest.mark.parametrize("opts", [{}, {"dag": "flatten", "instances": True, "max_instances_per_task": 3},
                                  {"dag": "jobs", "statuses": None, "negative_spans": "drop"}])
def test_alibaba2018_blocks_read_as_line_by_line(tmp_path, monkeypatch, opts):
    pytest.importorskip("pyarrow")
    p = tmp_path / "batch_task.csv"
    p.write_text(alibaba2018_text())
    from schedlab.workloads.traces import alibaba
    assert alibaba._parse_2018_blocks([p.read_bytes()], {"Terminated"}, "clamp") is not None  # the blocks are taken
    w = sl.read_trace(p, format="alibaba2018", **opts)
    same_workload(w, line_by_line(monkeypatch, p, format="alibaba2018", **opts))
    assert w.jobs["dag_depth"].max() >= 2


def test_alibaba2018_task_numbers_too_large_to_pack(tmp_path, monkeypatch):
    # task numbers near 2**62: (job, number) pairs no longer fit one 63-bit integer, and the
    # dependencies are found by joining tables instead; the same workload as line by line
    pytest.importorskip("pyarrow")
    big = 2 ** 62

    def renumber(line):
        name, rest = line.split(",", 1)
        m = re.fullmatch(r"([A-Za-z]+)(\d+)((?:_\d+)*)", name)
        if m:
            name = m.group(1) + "_".join(str(big + int(x)) for x in [m.group(2)] + m.group(3).split("_")[1:])
        return name + "," + rest

    p = tmp_path / "batch_task.csv"
    p.write_text("\n".join(renumber(x) for x in alibaba2018_text().splitlines()) + "\n")
    from schedlab.workloads.traces import alibaba
    assert alibaba._parse_2018_blocks([p.read_bytes()], {"Terminated"}, "clamp") is not None  # the blocks are taken
    w = sl.read_trace(p, format="alibaba2018")
    same_workload(w, line_by_line(monkeypatch, p, format="alibaba2018"))
    assert w.jobs["dag_depth"].max() >= 2
    small = tmp_path / "small.csv"
    small.write_text(alibaba2018_text())
    assert w.jobs["dag_depth"].tolist() == sl.read_trace(small, format="alibaba2018").jobs["dag_depth"].tolist()


# three tasks of job 100, each submitted, scheduled and finished
GOOGLE_ROWS = [f"{600000000 + 1000 * i},,100,{i // 3},,{(0, 1, 4)[i % 3]},alice,2,9,0.06,0.03,0.0001,0" for i in range(9)]


@pytest.mark.parametrize("text", [
    "\n".join(GOOGLE_ROWS) + "\n",
    "\n".join(GOOGLE_ROWS),  # no final newline
    "\r\n".join(GOOGLE_ROWS) + "\r\n",
])
def test_csv_columns_rows_are_the_lines(text):
    pytest.importorskip("pyarrow")
    table = _text.csv_columns(text.encode(), traces.google.FIELDS, traces.google._TYPES)
    assert table is not None and table.num_rows == len(GOOGLE_ROWS)
    assert table.column("timestamp").to_pylist() == [int(r.split(",")[0]) for r in GOOGLE_ROWS]


@pytest.mark.parametrize("text", [
    "\n" + "\n".join(GOOGLE_ROWS) + "\n",                                       # a blank first line
    "\n".join(GOOGLE_ROWS[:4]) + "\n\n" + "\n".join(GOOGLE_ROWS[4:]) + "\n",    # one in the middle
    "\n".join(GOOGLE_ROWS) + "\n\n",                                            # one at the end
    "\r\n".join(GOOGLE_ROWS[:4]) + "\r\n\r\n" + "\r\n".join(GOOGLE_ROWS[4:]),  # a CRLF one
    "\n".join(GOOGLE_ROWS[:4]) + "\n\r\n" + "\n".join(GOOGLE_ROWS[4:]),        # a lone CRLF among LFs
    "\n".join(GOOGLE_ROWS[:4]) + "\n \t\n" + "\n".join(GOOGLE_ROWS[4:]),       # one of blanks
    "\n".join(GOOGLE_ROWS[:4]) + "\r" + "\n".join(GOOGLE_ROWS[4:]),            # a lone CR line end
])
def test_csv_columns_give_way_to_line_by_line_on_blank_lines(tmp_path, monkeypatch, text):
    """pyarrow skips empty lines, which would shift the rows against the lines: the whole-block
    parse gives up, and the reading line by line decides (the same workload either way)."""
    pytest.importorskip("pyarrow")
    assert _text.csv_columns(text.encode(), traces.google.FIELDS, traces.google._TYPES) is None
    p = tmp_path / "task_events.csv"
    p.write_bytes(text.encode())
    try:
        w = sl.read_trace(p, format="google2011")
    except ValueError as e:  # (a lone CR splits a line: both readings reject it alike)
        with pytest.raises(ValueError, match=re.escape(str(e))):
            line_by_line(monkeypatch, p, format="google2011")
        return
    same_workload(w, line_by_line(monkeypatch, p, format="google2011"))
