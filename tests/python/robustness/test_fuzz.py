"""Fuzzing with Hypothesis: every trace reader, Workload.from_frames, the scheduler parameters and
engine options, and the command line. The only outcomes allowed for any input are a result or
a ValueError (a ResourceError included; FileNotFoundError for a missing file, SystemExit from
the command line's argument parser); any other exception, a crash or a hang is a bug.

Seed corpus: small valid traces of each format written here, the shipped datasets, and the first
lines of the real samples in ../shared/traces when present (read, never copied).

In CI (marker ``fuzz``) each harness tries a fixed number of derandomized inputs (200 per reader,
150 Spark event logs, 300 frames, 80 configurations, 40 of the schedulers written in Python, 50
command lines: about a minute in all); ``SCHEDLAB_FUZZ_EXAMPLES``
sets the number for every harness and ``SCHEDLAB_FUZZ_RANDOM=1`` draws new inputs on each run;
see docs/robustness.md, e.g.

    SCHEDLAB_FUZZ_EXAMPLES=20000 SCHEDLAB_FUZZ_RANDOM=1 python -m pytest -m fuzz tests/python/robustness/test_fuzz.py

Each harness prints the inputs it tried and their outcomes at the end of the session.
"""
from __future__ import annotations

import collections
import gzip
import os
import pathlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab as sl
from conftest import traces_dir

pytestmark = pytest.mark.fuzz

#: the resource guard's memory limit while fuzzing: inputs the guard would let use most of the
#: machine (a mutated task count of 1e8 is 16 GB of workload) are refused at 1 GiB instead
FUZZ_MAX_MEMORY = 2**30


@pytest.fixture(autouse=True)
def _fuzz_memory_limit(monkeypatch):
    monkeypatch.setenv("SCHEDLAB_MAX_MEMORY", str(FUZZ_MAX_MEMORY))

def fuzz(ci_examples):
    """Hypothesis settings of a harness: ``ci_examples`` inputs, derandomized (the same inputs on
    every run, so CI is reproducible), unless SCHEDLAB_FUZZ_EXAMPLES / SCHEDLAB_FUZZ_RANDOM say otherwise."""
    return settings(max_examples=int(os.environ.get("SCHEDLAB_FUZZ_EXAMPLES", ci_examples)), deadline=None,
                    derandomize=not os.environ.get("SCHEDLAB_FUZZ_RANDOM"), suppress_health_check=list(HealthCheck),
                    database=None)
OUTCOMES: dict = collections.defaultdict(collections.Counter)


@pytest.fixture(scope="module", autouse=True)
def report(request):
    yield
    tr = request.config.pluginmanager.get_plugin("terminalreporter")
    for harness, counts in sorted(OUTCOMES.items()):
        line = f"fuzz {harness}: {sum(counts.values())} inputs: " + ", ".join(f"{k} {v}" for k, v in counts.most_common())
        if tr is not None:
            tr.write_line(line)
        else:
            print(line)


def outcome(harness, call):
    """Runs call(); records and returns its outcome; fails on any exception but a ValueError."""
    try:
        value = call()
    except sl.core.guard.ResourceError:
        OUTCOMES[harness]["ResourceError"] += 1
        return None
    except ValueError:
        OUTCOMES[harness]["ValueError"] += 1
        return None
    OUTCOMES[harness]["ok"] += 1
    return value


# ------------------------------------------------------------------------------------ readers
SEEDS = {
    "tr": ["0 2 1.5 1 2\n1 1 3 3\n2.5 3 2 1 2 3\n"],
    "swim": ["j0\t0\t0\t100000000\t2000\t10\nj1\t5\t5\t233422\t0\t0\nj2\t9\t4\t0\t0\t0\n"],
    "swf": ["; header\n1 0 5 10 2 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n2 3 0 20 -1 -1 -1 4 30 -1 1 2 1 1 1 1 -1 -1\n"],
    "google2011": ["600000000,,100,0,,0,alice,2,9,0.06,0.03,0.0001,0\n601000000,,100,0,42,1,alice,2,9,0.06,0.03,0.0001,0\n"
                   "611000000,,100,0,42,4,alice,2,9,0.06,0.03,0.0001,0\n650000000,,200,0,,0,bob,0,2,0.1,0.1,,\n"
                   "651000000,,200,0,45,1,bob,0,2,0.1,0.1,,\n700000000,,200,0,45,4,bob,0,2,0.1,0.1,,\n"],
    "alibaba2017": ["task_create_time, task_end_time, job_id, task_id,number_of_instances, status, x, y\n"
                    "6459,6524,3,4,157,Terminated,50,0.007\n6457,6533,3,5,1,Terminated,50,0.004\n"
                    "6400,6390,4,1,2,Failed,50,0.004\n"],
    "alibaba2018": ["M1,3,j_1,1,Terminated,100,160,100,0.3\nR2_1,1,j_1,1,Terminated,160,200,100,0.3\n"
                    "task_x,2,j_2,1,Terminated,120,121,50,0.1\nJ3_1_2,1,j_1,1,Terminated,200,230,100,0.3\n"],
}
SUFFIX = {"tr": ".tr", "swim": ".tsv", "swf": ".swf", "google2011": ".csv", "alibaba2017": ".csv", "alibaba2018": ".csv"}
SHARED = {"tr": ["hawk_eagle/YH_small.tr", "hawk_eagle/GOOG_subtrace.tr"],
          "swim": ["swim/FB-2009_samples_24_times_1hr_0.tsv", "swim/FB-2010_samples_24_times_1hr_withInputPaths_0.tsv"],
          "alibaba2017": ["alibaba2017/batch_task.csv"]}


def seed_corpus(fmt):
    seeds = list(SEEDS[fmt])
    d = traces_dir()
    for rel in SHARED.get(fmt, []):
        if d is not None and (d / rel).exists():
            with open(d / rel, "rb") as f:
                seeds.append(b"".join(f.readline() for _ in range(20)).decode("utf-8", "replace"))
    return seeds


TOKENS = ["", "0", "-0", "1", "-1", "-2", "0.5", "1e308", "-1e308", "1e-320", "5e-324", "nan", "NaN", "inf", "-inf",
          "2147483647", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
          "99999999999999999999999", "1e17", "2000000000", "abc", "M1", "R2_1", "J3_3", "M0_1", "Terminated", " ",
          "\t", ",", "\x00", "\xff", "é", "0x10", "1_000", "+5", ".", "e5"]


@st.composite
def mutated(draw, fmt):
    text = draw(st.sampled_from(seed_corpus(fmt)))
    lines = text.splitlines(keepends=True)
    sep = {"swim": "\t", "tr": " ", "swf": " "}.get(fmt, ",")
    for _ in range(draw(st.integers(0, 4))):
        if not lines:
            lines = [""]
        k = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["field", "field", "field", "drop_line", "dup_line", "drop_field", "add_field",
                                   "bytes", "truncate"]))
        fields = lines[k].rstrip("\r\n").split(sep)
        if op == "field":
            i = draw(st.integers(0, len(fields) - 1))
            fields[i] = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6),
                                       st.integers(-2**70, 2**70).map(str), st.floats().map(repr)))
            lines[k] = sep.join(fields) + "\n"
        elif op == "drop_line":
            del lines[k]
        elif op == "dup_line":
            lines.insert(k, lines[k])
        elif op == "drop_field" and len(fields) > 1:
            del fields[draw(st.integers(0, len(fields) - 1))]
            lines[k] = sep.join(fields) + "\n"
        elif op == "add_field":
            fields.insert(draw(st.integers(0, len(fields))), draw(st.sampled_from(TOKENS)))
            lines[k] = sep.join(fields) + "\n"
        elif op == "bytes":
            lines.insert(k, draw(st.binary(max_size=12)).decode("latin-1"))
        elif op == "truncate":
            lines[k] = lines[k][: draw(st.integers(0, len(lines[k])))]
    data = "".join(lines).encode("utf-8", "surrogateescape")
    packing = draw(st.sampled_from(["plain"] * 4 + ["gzip", "gzip_cut"])) if fmt not in ("tr", "swim") else "plain"
    if packing != "plain":
        data = gzip.compress(data)
        if packing == "gzip_cut":
            data = data[: draw(st.integers(0, len(data)))]
    return data, packing != "plain"


def run_reader(fmt, tmp_path_factory, data, gz):
    path = tmp_path_factory.mktemp("fuzz") / ("t" + SUFFIX[fmt] + (".gz" if gz else ""))
    path.write_bytes(data)
    w = outcome(f"reader {fmt}", lambda: sl.read_trace(path, format=fmt))
    if w is not None:
        t = w.tasks
        assert w.n_jobs >= 1 and w.n_tasks >= 1
        assert np.isfinite(t["work"]).all() and (t["work"] >= 0).all()
        assert np.isfinite(w.jobs["submit_time"]).all()


@pytest.mark.parametrize("fmt", sorted(SEEDS))
def test_fuzz_reader(fmt, tmp_path_factory):
    @fuzz(200)
    @given(mutated(fmt))
    def run(case):
        run_reader(fmt, tmp_path_factory, *case)

    run()



def read_both(fmt, path):
    """The reader's outcome with its whole-block parser and with the line-by-line reading alone:
    a workload's fingerprint and tables, or the error's type and message."""
    from schedlab.workloads.traces import _text

    def attempt():
        try:
            w = sl.read_trace(path, format=fmt)
        except ValueError as e:
            return type(e).__name__, str(e)
        return w.fingerprint(), w.jobs, w.tasks

    fast = attempt()
    _text.FAST = False
    try:
        slow = attempt()
    finally:
        _text.FAST = True
    return fast, slow


@pytest.mark.parametrize("fmt", ["tr", "swf", "google2011", "alibaba2017", "alibaba2018"])
def test_fuzz_whole_block_parsers_agree_with_line_by_line(fmt, tmp_path_factory):
    """Readers parse a file in blocks (NumPy, pyarrow) and read it line by line only when a line
    needs a closer look: on any input both give the same workload or the same error."""
    @fuzz(100)
    @given(mutated(fmt))
    def run(case):
        data, gz = case
        path = tmp_path_factory.mktemp("fuzz") / ("t" + SUFFIX[fmt] + (".gz" if gz else ""))
        path.write_bytes(data)
        fast, slow = read_both(fmt, path)
        assert fast[0] == slow[0], (fast, slow)  # the fingerprint, or the error's type
        assert fast[1:] == slow[1:] if isinstance(fast[1], str) else True
        if not isinstance(fast[1], str):
            pd.testing.assert_frame_equal(fast[1], slow[1])
            pd.testing.assert_frame_equal(fast[2], slow[2])
        OUTCOMES[f"fast reader {fmt}"]["same workload" if not isinstance(fast[1], str) else "same error"] += 1

    run()


# ----------------------------------------------------------------------- Spark event logs
SPARK_DIR = pathlib.Path(__file__).resolve().parents[1] / "workloads" / "data" / "spark_eventlogs"
ODD_JSON = [None, "", "x", -1, 0, 2**31, 2**63, 2**64, -2**63 - 1, 1e308, -1e308, 5e-324, float("nan"),
            float("inf"), True, [], {}, [1, 2], {"a": 1}]


def spark_seeds():
    """The shipped Spark event logs (decompressed), without the environment event (large, and
    the reader ignores it): each a list of (event name, event) pairs."""
    import json

    from schedlab.workloads.traces.spark_eventlog import _file_bytes
    seeds = []
    for path in sorted(SPARK_DIR.rglob("*")):
        if path.is_file() and path.stat().st_size > 0:
            events = [json.loads(line) for line in _file_bytes(str(path)).splitlines() if line.strip()]
            seeds.append([e for e in events if e.get("Event") != "SparkListenerEnvironmentUpdate"])
    return seeds


def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    if path:
        yield path


@st.composite
def spark_log(draw):
    import copy
    import json
    seeds = spark_seeds()
    events = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 4))):
        if not events:
            break
        k = draw(st.integers(0, len(events) - 1))
        op = draw(st.sampled_from(["value", "value", "value", "delete", "drop_event", "dup_event", "swap"]))
        if op in ("value", "delete"):
            paths = list(_leaves(events[k]))
            if not paths:
                continue
            path = draw(st.sampled_from(paths))
            parent = events[k]
            for key in path[:-1]:
                parent = parent[key]
            if op == "delete" and isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent[path[-1]] = draw(st.one_of(st.sampled_from(ODD_JSON), st.integers(-2**70, 2**70),
                                                  st.floats(), st.text(max_size=4)))
        elif op == "drop_event":
            del events[k]
        elif op == "dup_event":
            events.insert(k, copy.deepcopy(events[k]))
        else:
            j = draw(st.integers(0, len(events) - 1))
            events[k], events[j] = events[j], events[k]
    lines = [json.dumps(e) for e in events]
    text = ("\n".join(lines) + "\n").encode()
    if draw(st.integers(0, 9)) == 0:  # a log cut short, or raw bytes in a line
        text = text[: draw(st.integers(0, len(text)))] + draw(st.binary(max_size=8))
    return text


@pytest.mark.skipif(not SPARK_DIR.is_dir(), reason="no shipped Spark event logs")
def test_fuzz_spark_eventlog(tmp_path_factory):
    @fuzz(150)
    @given(spark_log())
    def run(data):
        path = tmp_path_factory.mktemp("fuzz") / "app-1"
        path.write_bytes(data)
        w = outcome("reader spark_eventlog", lambda: sl.read_trace(path, format="spark_eventlog"))
        if w is not None:
            assert w.n_jobs >= 1 and w.n_tasks >= 1
            assert np.isfinite(w.tasks["work"]).all() and (w.tasks["work"] >= 0).all()
            assert np.isfinite(w.jobs["submit_time"]).all()

    run()


@pytest.mark.skipif(not SPARK_DIR.is_dir(), reason="no shipped Spark event logs")
@pytest.mark.parametrize("event,key,value,message", [
    # found by the harness: each raised AttributeError or TypeError from the reader
    ("SparkListenerJobEnd", "Job Result", "x", r":\d+: SparkListenerJobEnd field 'Job Result' must be an object"),
    ("SparkListenerTaskEnd", "Task Info", [1], r":\d+: SparkListenerTaskEnd field 'Task Info' must be an object"),
    ("SparkListenerTaskEnd", "Task Metrics", [], r"field 'Task Metrics' must be an object"),
    ("SparkListenerTaskEnd", "Stage Attempt ID", [], r"field 'Stage Attempt ID' must be a number"),
    ("SparkListenerJobStart", "Properties", "x", r"field 'Properties' must be an object"),
])
def test_spark_eventlog_odd_fields_name_the_line(tmp_path, event, key, value, message):
    import json
    events = spark_seeds()[0]
    k = next(n for n, e in enumerate(events) if e["Event"] == event)
    events[k] = dict(events[k], **{key: value})
    path = tmp_path / "app-1"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    with pytest.raises(ValueError, match=message):
        sl.read_trace(path, format="spark_eventlog")


# ------------------------------------------------------------------------------- from_frames
ODD = st.one_of(st.integers(-2**64, 2**64), st.floats(), st.none(), st.text(max_size=3), st.booleans(),
                st.lists(st.integers(-3, 5), max_size=3), st.sampled_from([float("nan"), np.inf, -1, 0, 1, 2**31]))
JOB_COLS = ["user", "queue", "weight", "deadline", "eligible_nodes", "parents", "dag", "extra"]
TASK_COLS = ["stage", "estimate", "input_bytes", "output_bytes", "vcores", "memory", "replicas"]


GOOD_JOB = {"user": st.sampled_from(["a", "b", 0, 1]), "queue": st.sampled_from(["q0", "q1"]),
            "weight": st.floats(0.1, 5), "deadline": st.one_of(st.floats(0, 200), st.just(float("nan"))),
            "eligible_nodes": st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=1, max_size=2)),
            "parents": st.just(None), "dag": st.sampled_from(["d0", "d1"]), "extra": st.integers()}
GOOD_TASK = {"stage": st.sampled_from(["map", "reduce", 0, 1]), "estimate": st.floats(0, 50),
             "input_bytes": st.floats(0, 1e9), "output_bytes": st.floats(0, 1e9), "vcores": st.floats(0.5, 4),
             "memory": st.floats(1, 4096), "replicas": st.lists(st.integers(0, 3), max_size=3)}


def column(draw, good, n):
    """A column of n values: clean most of the time, else with odd values mixed in."""
    strategy = good if draw(st.integers(0, 3)) else st.one_of(good, ODD)
    return draw(st.lists(strategy, min_size=n, max_size=n))


@st.composite
def frames(draw):
    n_jobs = draw(st.integers(1, 5))
    clean_ids = draw(st.integers(0, 3))
    ids = draw(st.lists(st.integers(0, 9) if clean_ids else st.one_of(st.integers(-3, 8), st.text(max_size=2), ODD),
                        min_size=n_jobs, max_size=n_jobs, unique_by=str if clean_ids else None))
    jobs = {"job_id": ids, "submit_time": column(draw, st.floats(0, 100), n_jobs)}
    for col in draw(st.lists(st.sampled_from(JOB_COLS), max_size=3, unique=True)):
        jobs[col] = column(draw, GOOD_JOB[col], n_jobs)
    n_tasks = draw(st.integers(0, 8))
    tasks = {"job_id": column(draw, st.sampled_from(ids), n_tasks), "work": column(draw, st.floats(0, 100), n_tasks)}
    for col in draw(st.lists(st.sampled_from(TASK_COLS), max_size=3, unique=True)):
        tasks[col] = column(draw, GOOD_TASK[col], n_tasks)
    deps = None
    if draw(st.booleans()):
        k = draw(st.integers(0, 3))
        deps = pd.DataFrame({"job_id": column(draw, st.sampled_from(ids), k),
                             "parent_id": column(draw, st.sampled_from(ids), k)})
    return pd.DataFrame(jobs), pd.DataFrame(tasks), deps


@fuzz(300)
@given(frames())
def test_fuzz_from_frames(case):
    jobs, tasks, deps = case
    w = outcome("from_frames", lambda: sl.Workload.from_frames(jobs, tasks, dependencies=deps))
    if w is not None:
        assert w.n_tasks == len(tasks) and w.n_jobs == len(jobs)
        assert np.isfinite(w.tasks["work"]).all()


# ----------------------------------------------------------------------- parameters and options
ENGINE = {name: engine for name, engine in zip(sl.schedulers.available()["name"], sl.schedulers.available()["engine"])}
# the C++ schedulers; those written in Python (engine 'python': mrcp's constraint solver takes
# seconds per run) are left to their own tests
SPECS = [(name, sl.schedulers.params(name).to_dict("records")) for name, engine in ENGINE.items()
         if engine in ("mapreduce", "share", "worker")]


def value_for(spec):
    lo, hi = spec.get("min", 0.0), spec.get("max", 1.0)
    special = st.sampled_from([float("nan"), float("inf"), -float("inf"), 5e-324, 1e308, -1, 0, 2**31, 2**64, "x", None,
                               [1], {2**40: 1.0}, True])
    if spec["type"] == "choice":
        good = st.sampled_from(list(spec["choices"]))
    elif spec["type"] == "text":
        good = st.one_of(st.sampled_from(["", "0:1", "0:0.5,1:0.5", "1,2", "2147483648:1", "a:b", "0:nan", "-1:1"]),
                         st.dictionaries(st.integers(-2, 3), st.floats(-1, 3), max_size=2))
    elif spec["type"] == "boolean":
        good = st.booleans()
    elif spec["type"] == "integer":
        good = st.integers(int(max(lo, -1e6)), int(min(hi, 1e6)))
    else:
        good = st.one_of(st.floats(lo, hi), st.sampled_from([lo, hi]))
    return st.one_of(good, good, good, special)


@st.composite
def configuration(draw):
    name, specs = draw(st.sampled_from(SPECS))
    params = {}
    for spec in draw(st.lists(st.sampled_from(specs), max_size=3, unique_by=lambda s: s["name"])) if specs else []:
        params[spec["name"]] = draw(value_for(spec))
    engine = ENGINE[name]
    opt_specs = sl.schedulers.options(engine).to_dict("records")
    options = {}
    for spec in draw(st.lists(st.sampled_from(opt_specs), max_size=3, unique_by=lambda s: s["name"])):
        if spec["name"] in ("faults", "speculation_params", "measure_overhead"):
            continue
        options[spec["name"]] = draw(value_for(spec))
    return name, params, options, draw(st.sampled_from([0, 1, 2**63]))


CLUSTERS = {"mapreduce": sl.Cluster(4, racks=2, map_slots=2, reduce_slots=1),
            "share": sl.Cluster(4, map_slots=2, reduce_slots=2, node_types=[0, 0, 1, 1]),
            "worker": sl.engines.worker.cluster(6)}


def small_workload():
    jobs = pd.DataFrame({"job_id": range(5), "submit_time": [0.0, 1.0, 1.0, 5.0, 9.0], "user": [0, 1, 0, 1, 2],
                         "deadline": [50.0, 80.0, np.nan, 100.0, 60.0]})
    tasks = pd.DataFrame({"job_id": np.repeat(range(5), 4), "work": np.tile([1.0, 3.0, 20.0, 2.0], 5),
                          "stage": np.tile(["map", "map", "map", "reduce"], 5)})
    return sl.Workload.from_frames(jobs, tasks)


WORKLOAD = small_workload()
# the worker engine runs single-stage jobs: the same jobs, every task a map
WORKLOADS = {"mapreduce": WORKLOAD, "share": WORKLOAD,
             "worker": sl.Workload.from_frames(WORKLOAD.jobs[["job_id", "submit_time", "user", "deadline"]],
                                               WORKLOAD.tasks[["job_id", "work"]])}


@fuzz(80)
@given(configuration())
def test_fuzz_parameters_and_options(case):
    name, params, options, seed = case
    cluster = CLUSTERS[ENGINE[name]]

    def run():
        return sl.simulate(cluster, WORKLOADS[ENGINE[name]], sl.schedulers.get(name, **params), seed=seed,
                           max_events=2e6, **options)

    r = outcome("parameters and options", run)
    if r is not None:
        assert len(r.jobs) == WORKLOAD.n_jobs


# the schedulers written in Python, on the engine each runs on, with faults on the MapReduce
# engine (a crash puts tasks back: mrcp must plan them again)
PY_SPECS = [(name, sl.schedulers.params(name).to_dict("records")) for name, engine in ENGINE.items()
            if engine == "python"]
FAULTS = [[], [sl.faults.Crash(node=1, at=3.0, restart_after=float("inf"))],
          [sl.faults.Crash(node=0, at=1.0, restart_after=15.0), sl.faults.Slowdown(node=2, start=0.0, end=40.0, factor=3.0)]]


#: the event limit of a run of a scheduler written in Python: every event may call Python (and
#: mrcp a solve), so the guard refuses runs that would take more than a second or two; the small
#: workload takes at most a few thousand events (6,045 in 600 random inputs)
PY_MAX_EVENTS = 1e5


@st.composite
def python_configuration(draw):
    name, specs = draw(st.sampled_from(PY_SPECS))
    params = {}
    for spec in draw(st.lists(st.sampled_from(specs), max_size=3, unique_by=lambda s: s["name"])) if specs else []:
        if spec["name"] in ("max_time", "solver_time"):  # wall-clock dependent: not reproducible
            continue
        params[spec["name"]] = draw(value_for(spec))
    if name == "mrcp":  # a short solver budget keeps a run well under a second (each solve <= 0.02 units)
        det = params.get("max_deterministic_time")
        if not isinstance(det, (int, float)) or isinstance(det, bool) or not 0 <= det <= 0.02:
            params["max_deterministic_time"] = draw(st.sampled_from([0.0, 0.01, 0.02]))
    engine = sl.schedulers.get(name).engine
    options = {}
    for spec in draw(st.lists(st.sampled_from(sl.schedulers.options(engine).to_dict("records")), max_size=2,
                              unique_by=lambda s: s["name"])):
        if spec["name"] in ("faults", "speculation_params", "measure_overhead", "time_limit", "stall_limit"):
            continue
        options[spec["name"]] = draw(value_for(spec))
    if engine == "mapreduce":
        options["faults"] = draw(st.sampled_from(FAULTS))
    return name, engine, params, options, draw(st.sampled_from([0, 1, 2**63]))


@pytest.mark.skipif(not any(n == "mrcp" for n, _ in PY_SPECS), reason="no Python schedulers")
@fuzz(40)
@given(python_configuration())
def test_fuzz_python_schedulers(case):
    name, engine, params, options, seed = case
    if name == "mrcp":
        pytest.importorskip("ortools")

    def run():
        return sl.simulate(CLUSTERS[engine], WORKLOADS[engine], sl.schedulers.get(name, **params), seed=seed,
                           max_events=PY_MAX_EVENTS, **options)

    r = outcome("python schedulers", run)
    if r is not None:
        assert len(r.jobs) == WORKLOAD.n_jobs
        assert r.jobs["finish_time"].notna().all()


# ---------------------------------------------------------------------------------- command line
ARGS = {"--scheduler": ["fifo", "fair", "eagle", "drf", "nope", ""],
        "--nodes": ["0", "-1", "1", "3", "2000000000", "2147483648", "99999999999999999999", "x"],
        "--racks": ["0", "1", "2", "5"], "--map-slots": ["0", "-1", "2", "1000000000"], "--reduce-slots": ["0", "-3", "1"],
        "--slots": ["0", "-1", "2", "2147483648"], "--seed": ["0", "-1", "18446744073709551616"],
        "--param": ["x=1", "k=inf", "locality_delay=nan", "probe_ratio=1e6", "=", "pool_weights=2147483648:1"],
        "--option": ["slowstart=0.5", "heartbeat_interval=5e-324", "sample_interval=1e-300", "replication=nan",
                     "time_limit=-1", "max_events=10", "window=0"],
        "--max-jobs": ["0", "-1", "1", "5"], "--format": ["tr", "swim", "swf", "nope"]}
ARG_PAIRS = [(k, v) for k, vs in ARGS.items() for v in vs]


@fuzz(50)
@given(st.lists(st.sampled_from(ARG_PAIRS), max_size=4), st.sampled_from(["ok", "missing", "bad"]))
def test_fuzz_command_line(tmp_path_factory, pairs, trace):
    from schedlab.cli.main import main
    d = tmp_path_factory.mktemp("cli")
    path = d / "t.tr"
    if trace != "missing":
        path.write_text("0 2 1 1 1\n3 1 2 2\n" if trace == "ok" else "0 2 x 1\n")
    argv = ["run", "--trace", str(path)] + [a for pair in pairs for a in pair]
    if "--scheduler" not in argv:
        argv += ["--scheduler", "fifo"]
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own usage errors
        OUTCOMES["command line"][f"usage error {e.code}"] += 1
        return
    OUTCOMES["command line"][f"exit {code}"] += 1
    assert code in (0, 2)
