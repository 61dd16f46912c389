"""Trace readers: Google 2011 task_events, Alibaba 2017/2018 batch_task, Parallel Workloads
Archive SWF — small handwritten files with known answers, bad lines, and the real Alibaba sample."""
import gzip

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from conftest import assert_slot_invariants, trace_path


def write(path, text, crlf=False):
    data = text.lstrip("\n")
    if crlf:
        data = data.replace("\n", "\r\n")
    path.write_bytes(data.encode())
    return path


def by_job(w):
    t = w.tasks
    return {j: sorted(g["work"].tolist()) for j, g in t.groupby("job_id", sort=False)}


# ----------------------------------------------------------------------------------- Google 2011
GOOGLE = """
600000000,,100,0,,0,alice,2,9,0.06,0.03,0.0001,0
600000000,,100,1,,0,alice,2,9,0.06,0.03,0.0001,0
601000000,,100,0,42,1,alice,2,9,0.06,0.03,0.0001,0
602000000,,100,1,43,1,alice,2,9,0.06,0.03,0.0001,0
605000000,,100,1,43,2,alice,2,9,0.06,0.03,0.0001,0
606000000,,100,1,44,1,alice,2,9,0.06,0.03,0.0001,0
611000000,,100,0,42,4,alice,2,9,0.06,0.03,0.0001,0
626000000,,100,1,44,4,alice,2,9,0.06,0.03,0.0001,0
650000000,,200,0,,0,bob,0,2,0.1,0.1,,
650000000,,200,1,,0,bob,0,2,0.1,0.1,,
651000000,,200,0,45,1,bob,0,2,0.1,0.1,,
655000000,,200,1,46,1,bob,0,2,0.1,0.1,,
660000000,,200,0,45,5,bob,0,2,0.1,0.1,,
700000000,,200,1,46,4,bob,0,2,0.1,0.1,,
700000000,,300,0,,0,carol,1,0,0.1,0.1,,
9223372036854775807,,300,0,,4,carol,1,0,0.1,0.1,,
"""


def test_google_task_events_by_hand(tmp_path):
    w = sl.read_trace(write(tmp_path / "part-00000-of-00500.csv", GOOGLE), format="google2011")
    jobs = w.jobs
    assert list(jobs["job_id"]) == [100, 200]
    assert list(jobs["submit_time"]) == [0.0, 50.0]
    assert list(jobs["user"]) == ["alice", "bob"]
    assert list(jobs["scheduling_class"]) == [2, 0] and list(jobs["priority"]) == [9, 2]
    # task 1 of job 100: last SCHEDULE 606 -> FINISH 626; task 0 of job 200 was killed
    assert by_job(w) == {100: [10.0, 20.0], 200: [45.0]}
    assert (w.tasks["stage"] == "map").all()
    absolute = sl.read_trace(tmp_path / "part-00000-of-00500.csv", format="google2011", relative=False)
    assert list(absolute.jobs["submit_time"]) == [600.0, 650.0]


def test_google_reads_gzip_parts_in_a_folder(tmp_path):
    lines = GOOGLE.strip().splitlines()
    folder = tmp_path / "task_events"
    folder.mkdir()
    for k, part in enumerate((lines[:9], lines[9:])):
        with gzip.open(folder / f"part-0000{k}-of-00500.csv.gz", "wt") as f:
            f.write("\n".join(part) + "\n")
    w = sl.read_trace(folder, format="google2011")
    assert by_job(w) == {100: [10.0, 20.0], 200: [45.0]}


def test_google_parts_of_one_event_each_read_as_the_whole_file(tmp_path):
    # every event in a part of its own: a task's SUBMIT, SCHEDULE, EVICT, second SCHEDULE and
    # FINISH in five files, and a part holding only an event after the trace's end
    lines = GOOGLE.strip().splitlines()
    folder = tmp_path / "task_events"
    folder.mkdir()
    for k, line in enumerate(lines):
        (folder / f"part-{k:05d}-of-00500.csv").write_text(line + "\n")
    parts = sl.read_trace(folder, format="google2011")
    whole = sl.read_trace(write(tmp_path / "whole.csv", GOOGLE), format="google2011")
    assert by_job(parts) == {100: [10.0, 20.0], 200: [45.0]}
    pd.testing.assert_frame_equal(parts.jobs, whole.jobs)
    pd.testing.assert_frame_equal(parts.tasks, whole.tasks)


@pytest.mark.parametrize("line, message", [
    ("600000000,,100,0,,0,alice,2,9,0.06,0.03,0.0001", "expected 13 comma-separated fields"),
    ("600000000,,abc,0,,0,alice,2,9,0.06,0.03,0.0001,0", "field 'job_id' is not a whole number"),
    ("600000000,,100,0,,11,alice,2,9,0.06,0.03,0.0001,0", "'event_type' must be 0..8"),
    ("-5,,100,0,,0,alice,2,9,0.06,0.03,0.0001,0", "'timestamp' must be >= 0"),
])
def test_google_bad_lines_name_file_and_line(tmp_path, line, message):
    lines = GOOGLE.strip().splitlines()
    lines.insert(2, line)
    p = write(tmp_path / "bad.csv", "\n".join(lines))
    with pytest.raises(ValueError, match=rf"bad\.csv:3: .*{message}"):
        sl.read_trace(p, format="google2011")


# ----------------------------------------------------------------------------------- Alibaba 2017
ALI2017 = """
task_create_time, task_end_time, job_id, task_id,number_of_instances, status, number_of_cpus_requested_per_instance_in_the_task,normalized_memory_requested_per_instance_in_the_task
100,130,1,1,3,Terminated,50,0.01
110,150,1,2,2,Terminated,100,0.02
90,95,2,3,1,Failed,,
200,199,2,4,1,Terminated,50,0.01
300,360,3,5,4,Running,50,0.01
"""


def test_alibaba2017_by_hand(tmp_path):
    p = write(tmp_path / "batch_task.csv", ALI2017, crlf=True)
    w = sl.read_trace(p, format="alibaba2017")
    jobs = w.jobs
    assert list(jobs["job_id"]) == [1, 2]
    assert list(jobs["submit_time"]) == [0.0, 100.0]
    assert list(jobs["n_trace_tasks"]) == [2, 1] and list(jobs["instances"]) == [5, 1]
    assert by_job(w) == {1: [30.0, 40.0], 2: [0.0]}  # the negative span is clamped to 0
    w = sl.read_trace(p, format="alibaba2017", instances=True)
    assert by_job(w) == {1: [30.0] * 3 + [40.0] * 2, 2: [0.0]}
    w = sl.read_trace(p, format="alibaba2017", instances=True, max_instances_per_task=2)
    assert by_job(w) == {1: [30.0] * 2 + [40.0] * 2, 2: [0.0]}
    w = sl.read_trace(p, format="alibaba2017", statuses=None, negative_spans="drop")
    assert by_job(w) == {2: [5.0], 1: [30.0, 40.0], 3: [60.0]}
    with pytest.raises(ValueError, match=r"batch_task\.csv:5: the task ends \(199.0\) before it starts"):
        sl.read_trace(p, format="alibaba2017", negative_spans="raise")
    # no header, LF endings
    p2 = write(tmp_path / "nohead.csv", "\n".join(ALI2017.strip().splitlines()[1:]))
    assert by_job(sl.read_trace(p2, format="alibaba2017")) == by_job(sl.read_trace(p, format="alibaba2017"))


@pytest.mark.parametrize("line, message", [
    ("100,130,1,1,3,Terminated,50", "expected 8 comma-separated fields"),
    ("100,soon,1,1,3,Terminated,50,0.01", "field 'task_end_time' is not a number"),
    ("100,130,1,1,-3,Terminated,50,0.01", "field 'number_of_instances' must be >= 0"),
    ("100,130,1,1,3,,50,0.01", "field 'status' is empty"),
])
def test_alibaba2017_bad_lines(tmp_path, line, message):
    lines = ALI2017.strip().splitlines()
    lines.insert(3, line)
    p = write(tmp_path / "bt.csv", "\n".join(lines), crlf=True)
    with pytest.raises(ValueError, match=rf"bt\.csv:4: {message}"):
        sl.read_trace(p, format="alibaba2017")


def test_alibaba2017_real_sample():
    path = trace_path("alibaba2017", "batch_task.csv")
    w = sl.read_trace(path, format="alibaba2017")
    raw = pd.read_csv(path, skipinitialspace=True)
    raw.columns = [c.strip() for c in raw.columns]
    term = raw[raw["status"] == "Terminated"]
    assert w.n_tasks == len(term) == 67013
    assert w.n_jobs == term["job_id"].nunique()
    span = np.maximum(term["task_end_time"] - term["task_create_time"], 0)
    assert w.tasks["work"].sum() == pytest.approx(span.sum())
    assert w.jobs["submit_time"].min() == 0
    # a slice of it simulates and keeps the slot invariants
    jobs = w.jobs.head(150)
    tasks = w.tasks[w.tasks["job_id"].isin(jobs["job_id"])]
    small = sl.Workload.from_frames(jobs[["job_id", "submit_time"]], tasks[["job_id", "stage", "work"]])
    r = sl.simulate(sl.Cluster(nodes=20, racks=2), small, "fair", seed=0)
    assert_slot_invariants(r)
    assert r.jobs["finish_time"].notna().all()


# ----------------------------------------------------------------------------------- Alibaba 2018
ALI2018 = """
M1,2,j_1,1,Terminated,100,110,100,0.5
R2_1,1,j_1,1,Terminated,110,130,100,0.5
J3_2,1,j_1,1,Terminated,130,135,100,0.5
task_LTg0MTUwNTA5Mjg4MDkwNjIzMA==,5,j_2,2,Terminated,50,80,50,0.2
M1,1,j_3,1,Failed,60,70,100,0.3
R2_1,1,j_3,1,Terminated,70,90,100,0.3
M1,1,j_4,1,Running,70,90,100,0.3
"""


def test_alibaba2018_dag_from_task_names(tmp_path):
    p = write(tmp_path / "batch_task.csv", ALI2018)
    w = sl.read_trace(p, format="alibaba2018")
    jobs = w.jobs.set_index("job_id")
    assert list(w.jobs["job_id"]) == ["j_2", "j_3", "j_1"]
    assert list(w.jobs["submit_time"]) == [0.0, 20.0, 50.0]
    assert jobs.loc["j_1", "dag_depth"] == 2 and jobs.loc["j_2", "dag_depth"] == 0
    assert jobs.loc["j_3", "dag_depth"] == 0  # its dependency failed and is not kept
    assert (jobs.loc["j_1", "n_maps"], jobs.loc["j_1", "n_reduces"]) == (1, 2)
    t = w.tasks
    j1 = t[t.job_id == "j_1"]
    assert list(zip(j1["stage"], j1["work"])) == [("map", 10.0), ("reduce", 20.0), ("reduce", 5.0)]
    assert by_job(w)["j_2"] == [30.0]
    # the two-stage mapping holds in simulation: j_1's reduces finish after its map
    r = sl.simulate(sl.Cluster(nodes=1, map_slots=1, reduce_slots=2), w, "fifo", seed=0)
    assert_slot_invariants(r)
    flat = sl.read_trace(p, format="alibaba2018", dag="flatten", instances=True)
    assert (flat.tasks["stage"] == "map").all()
    assert len(flat.tasks[flat.tasks.job_id == "j_2"]) == 5
    assert sl.traces.alibaba.parse_task_name("J5_3_4") == ("J", 5, [3, 4])
    assert sl.traces.alibaba.parse_task_name("MergeTask") is None


def test_alibaba2018_jobs_made_of_interleaved_lines(tmp_path):
    # lines of two jobs interleaved, a reduce before its map, instances expanded: each job's tasks
    # are its maps then its reduces, each stage in line order; jobs of equal submit time come in
    # the order of their first kept line (j_b's first line failed and is not kept)
    p = write(tmp_path / "batch_task.csv", """
M9,1,j_b,1,Failed,10,20,100,0.5
R3_1_2,2,j_a,1,Terminated,40,47,100,0.5
M1,3,j_a,1,Terminated,10,12,100,0.5
M1,1,j_b,1,Terminated,10,15,100,0.5
M2,1,j_a,1,Terminated,11,14,100,0.5
R2_1,2,j_b,1,Terminated,20,29,100,0.5
""")
    w = sl.read_trace(p, format="alibaba2018", instances=True)
    jobs = w.jobs
    assert list(jobs["job_id"]) == ["j_a", "j_b"]
    assert list(jobs["submit_time"]) == [0.0, 0.0]
    assert list(jobs["n_trace_tasks"]) == [3, 2] and list(jobs["instances"]) == [6, 3]
    assert list(jobs["dag_depth"]) == [1, 1]
    t = w.tasks
    assert list(zip(t["job_id"], t["stage"], t["work"])) == (
        [("j_a", "map", 2.0)] * 3 + [("j_a", "map", 3.0), ("j_a", "reduce", 7.0), ("j_a", "reduce", 7.0)]
        + [("j_b", "map", 5.0), ("j_b", "reduce", 9.0), ("j_b", "reduce", 9.0)])
    flat = sl.read_trace(p, format="alibaba2018", dag="flatten", max_instances_per_task=1, instances=True)
    assert list(zip(flat.tasks["job_id"], flat.tasks["work"])) == [
        ("j_a", 7.0), ("j_a", 2.0), ("j_a", 3.0), ("j_b", 5.0), ("j_b", 9.0)]


def test_alibaba2018_bad_input(tmp_path):
    lines = ALI2018.strip().splitlines()
    for bad, message in [("M1,2,j_9,1,Terminated,100", "expected 9 comma-separated fields"),
                         ("M1,x,j_9,1,Terminated,100,110,100,0.5", "field 'instance_num' is not a whole number"),
                         ("M1,2,j_1,1,Terminated,100,110,100,0.5", "task 'M1' of job 'j_1' already appeared on line 1"),
                         (",2,j_9,1,Terminated,100,110,100,0.5", "field 'task_name' is empty")]:
        p = write(tmp_path / "b.csv", "\n".join(lines[:2] + [bad] + lines[2:]))
        with pytest.raises(ValueError, match=rf"b\.csv:3: {message}"):
            sl.read_trace(p, format="alibaba2018")
    p = write(tmp_path / "cycle.csv", "M1_2,1,j,1,Terminated,0,1,1,1\nM2_1,1,j,1,Terminated,0,1,1,1\n")
    with pytest.raises(ValueError, match="cycle.csv: job 'j' has a dependency cycle"):
        sl.read_trace(p, format="alibaba2018")
    with pytest.raises(ValueError, match="dag must be"):
        sl.read_trace(p, format="alibaba2018", dag="levels")


# ----------------------------------------------------------------------------------- SWF
SWF = """
; Version: 2.2
; Computer: handwritten test machine
; MaxProcs: 8
1 0 5 100 4 -1 -1 4 200 -1 1 7 1 -1 1 -1 -1 -1
2 10 0 50 -1 -1 -1 2 60 -1 1 8 1 -1 2 -1 -1 -1
3 20 0 -1 2 -1 -1 2 60 -1 5 8 1 -1 2 -1 -1 -1
4 30.5 0 0 1 -1 -1 1 60 -1 0 9 1 -1 1 -1 -1 -1
"""


def test_swf_by_hand(tmp_path):
    p = write(tmp_path / "log.swf", SWF)
    w = sl.read_trace(p)  # format from the suffix
    jobs = w.jobs
    assert list(jobs["job_id"]) == [1, 2, 4]
    assert list(jobs["submit_time"]) == [0.0, 10.0, 30.5]
    assert list(jobs["processors"]) == [4, 2, 1]
    assert list(jobs["wait_time"]) == [5.0, 0.0, 0.0] and list(jobs["requested_time"]) == [200.0, 60.0, 60.0]
    assert list(jobs["user"]) == [7, 8, 9] and list(jobs["queue"]) == [1, 2, 1]
    assert by_job(w) == {1: [100.0] * 4, 2: [50.0] * 2, 4: [0.0]}
    assert list(sl.read_trace(p, statuses=[1]).jobs["job_id"]) == [1, 2]
    assert by_job(sl.read_trace(p, max_tasks_per_job=2)) == {1: [100.0] * 2, 2: [50.0] * 2, 4: [0.0]}
    assert by_job(sl.read_trace(p, tasks_per_job="one")) == {1: [100.0], 2: [50.0], 4: [0.0]}
    r = sl.simulate(sl.Cluster(nodes=2, map_slots=2, reduce_slots=0), w, "fifo")
    assert_slot_invariants(r)


@pytest.mark.parametrize("line, message", [
    ("5 40 0 10 1 -1 -1 1 60 -1 1 9 1 -1 1 -1 -1", "expected 18 whitespace-separated SWF fields, got 17"),
    ("5 40 0 ten 1 -1 -1 1 60 -1 1 9 1 -1 1 -1 -1 -1", "field 4 'run_time' is not a number"),
    ("5 -1 0 10 1 -1 -1 1 60 -1 1 9 1 -1 1 -1 -1 -1", "field 2 'submit_time' must be known"),
    ("5 40 0 10 -7 -1 -1 1 60 -1 1 9 1 -1 1 -1 -1 -1", "field 5 'allocated_processors' must be >= 0 or -1"),
])
def test_swf_bad_lines(tmp_path, line, message):
    lines = SWF.strip().splitlines()
    lines.insert(4, line)
    p = write(tmp_path / "bad.swf", "\n".join(lines))
    with pytest.raises(ValueError, match=rf"bad\.swf:5: {message}"):
        sl.read_trace(p)


def test_readers_are_registered():
    for fmt in ("google2011", "alibaba2017", "alibaba2018", "swf"):
        assert fmt in sl.traces.READERS
    assert sl.traces.SUFFIXES[".swf"] == "swf"


# ------------------------------------------------------------- task counts past the engines' limit
# A count that would make more than 2^31 - 1 tasks is an error naming its line, raised before any
# task is made (not an attempt to allocate terabytes, nor a count wrapped around).
def test_swf_too_many_processors(tmp_path):
    lines = SWF.strip().splitlines()
    lines.insert(4, "5 40 0 10 2147483648 -1 -1 1 60 -1 1 9 1 -1 1 -1 -1 -1")
    p = write(tmp_path / "big.swf", "\n".join(lines))
    with pytest.raises(ValueError, match=r"big\.swf:5: job 5 has 2\.147e\+09 processors.*max_tasks_per_job"):
        sl.read_trace(p)
    assert sl.read_trace(p, tasks_per_job="one").n_tasks == 4
    assert sl.read_trace(p, max_tasks_per_job=3).jobs["processors"].tolist() == [4, 2, 1, 2147483648]


def test_alibaba2017_too_many_instances(tmp_path):
    lines = ALI2017.strip().splitlines()
    lines.insert(2, "120,140,1,9,3000000000,Terminated,50,0.01")
    p = write(tmp_path / "batch_task.csv", "\n".join(lines))
    with pytest.raises(ValueError, match=r"batch_task\.csv:3: task with 3000000000 instances \(job 1\)"):
        sl.read_trace(p, format="alibaba2017", instances=True)
    assert sl.read_trace(p, format="alibaba2017", instances=True, max_instances_per_task=5).n_tasks == 3 + 5 + 2 + 1
    assert sl.read_trace(p, format="alibaba2017").jobs["instances"].tolist() == [3000000005, 1]
    lines[2] = "120,140,1,9,99999999999999999999,Terminated,50,0.01"
    write(tmp_path / "batch_task.csv", "\n".join(lines))
    with pytest.raises(ValueError, match=r"batch_task\.csv:3: field 'number_of_instances' is out of range"):
        sl.read_trace(p, format="alibaba2017")


@pytest.mark.parametrize("dag", ["jobs", "depth"])
def test_alibaba2018_too_many_instances(tmp_path, dag):
    lines = ALI2018.strip().splitlines()
    lines[3] = lines[3].replace(",5,j_2,", ",2147483648,j_2,")
    p = write(tmp_path / "batch_task.csv", "\n".join(lines))
    with pytest.raises(ValueError, match=r"batch_task\.csv:4: task with 2147483648 instances \(job j_2\)"):
        sl.read_trace(p, format="alibaba2018", dag=dag, instances=True)
    assert sl.read_trace(p, format="alibaba2018", dag=dag, instances=True, max_instances_per_task=2).n_tasks > 0
