"""Trace readers: every bad input is one ValueError naming the file and line (or the file, for
an unreadable .gz) and what was expected; no OverflowError, gzip, EOF or zlib error escapes, and
a trace whose tasks would not fit in memory is refused before its tables are made."""
import gzip

import pytest

import schedlab as sl
from schedlab.core.guard import ResourceError


def write(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


GOOGLE_LINE = "600000000,,{job},0,,0,alice,{sc},9,0.06,0.03,0.0001,0\n"


@pytest.mark.parametrize("field,job,sc", [("job_id", "9223372036854775808", "2"),
                                          ("job_id", "-9223372036854775809", "2"),
                                          ("scheduling_class", "1", "99999999999999999999999")])
def test_google_integer_fields_past_64_bits(tmp_path, field, job, sc):
    p = write(tmp_path / "g.csv", GOOGLE_LINE.format(job=job, sc=sc))
    with pytest.raises(ValueError, match=rf"g\.csv:1: field '{field}' is out of range: .*-2\^63 and 2\^63 - 1"):
        sl.read_trace(p, format="google2011")


def test_google_timestamp_past_64_bits(tmp_path):
    p = write(tmp_path / "g.csv", "99999999999999999999999,,1,0,,0,alice,2,9,0.06,0.03,0.0001,0\n")
    with pytest.raises(ValueError, match=r"g\.csv:1: field 'timestamp' is out of range"):
        sl.read_trace(p, format="google2011")


GOOD = gzip.compress(b"1 2 3\n" * 100)


@pytest.mark.parametrize("fmt,suffix", [("swf", ".swf.gz"), ("google2011", ".csv.gz"), ("alibaba2017", ".csv.gz"),
                                        ("alibaba2018", ".csv.gz")])
@pytest.mark.parametrize("kind,data", [("truncated", GOOD[: len(GOOD) // 2]),
                                       ("not deflate", b"\x1f\x8b\x08\x00garbagegarbage"),
                                       ("bad crc", GOOD[:-8] + b"\0" * 8),
                                       ("not gzip", b"plain text, not gzip\n")])
def test_corrupt_gzip_is_a_value_error(tmp_path, fmt, suffix, kind, data):
    p = write(tmp_path / ("t" + suffix), data)
    with pytest.raises(ValueError, match=r"t\.(swf|csv)\.gz: not a readable gzip file .*expected a complete \.gz file"):
        sl.read_trace(p, format=fmt)


@pytest.mark.parametrize("text,field", [("0,10,1,1,1,Terminated,1,0.1\nnan,10,2,1,1,Terminated,1,0.1\n", "task_create_time"),
                                        ("0,10,1,1,1,Terminated,1,0.1\n0,inf,2,1,1,Terminated,1,0.1\n", "task_end_time"),
                                        ("0,10,1,1,1,Terminated,1,0.1\n0,-inf,2,1,1,Terminated,1,0.1\n", "task_end_time")])
def test_alibaba2017_non_finite_times_name_the_line(tmp_path, text, field):
    p = write(tmp_path / "a.csv", text)
    with pytest.raises(ValueError, match=rf"a\.csv:2: field '{field}' must be a finite number"):
        sl.read_trace(p, format="alibaba2017")


@pytest.mark.parametrize("start,end,field", [("nan", "10", "start_time"), ("0", "inf", "end_time"),
                                             ("0", "NaN", "end_time")])
def test_alibaba2018_non_finite_times_name_the_line(tmp_path, start, end, field):
    p = write(tmp_path / "b.csv", f"M1,1,j_1,1,Terminated,0,10,100,0.3\nM1,1,j_2,1,Terminated,{start},{end},100,0.3\n")
    with pytest.raises(ValueError, match=rf"b\.csv:2: field '{field}' must be a finite number"):
        sl.read_trace(p, format="alibaba2018")


def test_alibaba_span_overflow_names_the_line(tmp_path):
    p = write(tmp_path / "a.csv", "0,10,1,1,1,Terminated,1,0.1\n-1e308,1e308,2,1,1,Terminated,1,0.1\n")
    with pytest.raises(ValueError, match=r"a\.csv:2: the task's span .* is out of range"):
        sl.read_trace(p, format="alibaba2017")
    p = write(tmp_path / "b.csv", "M1,1,j_1,1,Terminated,1e308,1e308,100,0.3\nM1,1,j_2,1,Terminated,-1e308,0,100,0.3\n")
    with pytest.raises(ValueError, match=r"b\.csv:1: the job's submit time relative to the first job is out of range"):
        sl.read_trace(p, format="alibaba2018")


def test_swim_duplicate_job_ids_name_both_lines(tmp_path):
    p = write(tmp_path / "s.tsv", "j0\t0\t0\t100\t0\t0\nj1\t1\t1\t100\t0\t0\nj1\t2\t1\t100\t0\t0\n")
    with pytest.raises(ValueError, match=r"s\.tsv:3: job id 'j1' already appeared on line 2"):
        sl.read_trace(p)


def test_swf_fields_kept_as_integers_must_be_whole(tmp_path):
    p = write(tmp_path / "p.swf", "1 0 0 10 2 -1 -1 -1 -1 -1 1 1e300 1 1 1 1 -1 -1\n")
    with pytest.raises(ValueError, match=r"p\.swf:1: field 12 'user' must be a whole number"):
        sl.read_trace(p)
    p = write(tmp_path / "q.swf", "1.5 0 0 10 2 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n")
    with pytest.raises(ValueError, match=r"q\.swf:1: field 1 'job' must be a whole number"):
        sl.read_trace(p)


# tasks that fit 32-bit numbering but not memory: refused before any table is made
@pytest.mark.parametrize("name,text,fmt,opts,line", [
    ("s.tsv", "j0\t0\t0\t100\t0\t0\nj1\t0\t0\t1e17\t0\t0\n", "swim", {}, 2),
    ("p.swf", "1 0 0 10 2 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n2 0 0 10 2000000000 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n",
     "swf", {}, 2),
    ("a.csv", "0,10,1,1,1,Terminated,1,0.1\n0,10,2,1,2000000000,Terminated,1,0.1\n", "alibaba2017", {"instances": True}, 2),
    ("b.csv", "M1,1,j_1,1,Terminated,0,10,100,0.3\nM1,2000000000,j_2,1,Terminated,0,10,100,0.3\n", "alibaba2018",
     {"dag": "jobs"}, 2),
])
def test_tasks_beyond_memory_are_refused_naming_the_line(tmp_path, name, text, fmt, opts, line):
    p = write(tmp_path / name, text)
    with pytest.raises(ResourceError, match=rf"{name.replace('.', '[.]')}:{line}: .*needs about .* of memory, more than the .* limit"):
        sl.read_trace(p, format=fmt, **opts)
