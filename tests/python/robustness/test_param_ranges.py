"""Parameter and option ranges are what the engines honour: a value just outside a narrowed range
is one ValueError naming the parameter and its range, the end of the range itself is accepted and
runs. Each narrowing below was a value the old range allowed that ran for minutes, exhausted
memory or stalled after a simulated day (measured on a 48- or 12-job workload, see each case)."""
import re

import numpy as np
import pandas as pd
import pytest

import schedlab as sl

# scheduler, parameter, the end of its range, a value just outside
PARAMS = [
    # probes: 1e6 probes per task of 48 tasks ran > 8 s; min_probes 1e6 on 12 jobs 1.2e7 events
    *[(s, "probe_ratio", 1000, 1000.5) for s in ("sparrow", "hawk", "eagle", "dice", "eirene", "sparrow_in_python")],
    *[(s, "min_probes", 100000, 100001) for s in ("sparrow", "hawk", "eagle", "dice", "eirene", "sparrow_in_python")],
    ("sparrow", "min_probes_long", 100000, 100001),
    ("sparrow_in_python", "min_probes_long", 100000, 100001),
    # every idle worker tries all of them when no victim yields: 1e6 took 0.5 s for 315 events
    ("hawk", "steal_attempts", 10000, 10001),
    ("dice", "steal_attempts", 10000, 10001),
    # each probe arrival draws them: 1e6 ran > 8 s for 450 events
    ("eirene", "migrations_per_probe", 100, 101),
    # a window is an event and a row over the whole span: 1e-6 s ran > 8 s on a 200 s workload
    ("omo", "window", 1e-3, 9e-4),
    ("omo_lazy_start", "window", 1e-3, 9e-4),
    ("omo_batch_finish", "window", 1e-3, 9e-4),
    # 0 runs no job and stalled with "simulation made no progress" after a simulated day
    ("fair", "pool_max_jobs_default", 1, 0),
    ("fair", "user_max_jobs_default", 1, 0),
    # every heartbeat sorts the queues: 100,000 queues took 1.2 ms an event
    ("capacity", "queues", 1000, 1001),
    # DynamicMR slot weights: 0 and ratios above 255 were refused only when the run began (a
    # borrowed attempt records the lender slots it holds in 8 bits); only the ratio matters, so
    # weights of 1 to 255 give every ratio the engine honours
    *[(s, f"{kind}_slot_weight", end, outside) for s in ("dynamicmr", "pi_dhsa", "pd_dhsa")
      for kind in ("map", "reduce") for end, outside in ((1, 0.999), (255, 255.5))],
]

# engine, option, the end of its range, a value just outside
OPTIONS = [
    # a tick is an event: revive_interval 1e-6 s ran > 8 s on a 200 s workload
    ("spark", "revive_interval", 1e-3, 9e-4),
    ("spark", "speculation_interval", 1e-3, 9e-4),
    ("spark", "allocation_interval", 1e-3, 9e-4),
    # tasks pending that long tick the revive timer all the while: 1e9 s ran > 8 s
    ("spark", "executor_start_time", 86400, 86401),
    ("spark", "task_launch_overhead", 86400, 86401),
    ("spark", "first_task_overhead", 86400, 86401),
    ("spark", "stage_fetch_overhead", 86400, 86401),
]

ENGINE = {"mapreduce": sl.Cluster(4, map_slots=2, reduce_slots=1), "worker": sl.engines.worker.cluster(10),
          "spark": sl.Cluster(4, slots=2)}


def _workload(engine):
    jobs = pd.DataFrame({"job_id": range(4), "submit_time": np.arange(4) * 4.0})
    tasks = pd.DataFrame({"job_id": np.repeat(range(4), 3), "work": np.tile([1.0, 2.0, 5.0], 4)})
    if engine == "mapreduce":
        tasks["stage"] = np.tile(["map", "map", "reduce"], 4)
    return sl.Workload.from_frames(jobs, tasks)


def _number(x):
    """A pattern for a range's end as the error prints it (1 or 1.0, 1e-09)."""
    x = float(x)
    return re.escape(repr(x)) if x != int(x) else rf"{int(x)}(\.0)?"


def _engine(name):
    engine = sl.schedulers.get(name).engine
    return "worker" if engine == "python" else engine


@pytest.mark.parametrize("name,param,end,outside", PARAMS)
def test_scheduler_parameter_just_outside_its_range(name, param, end, outside):
    spec = sl.schedulers.params(name).set_index("name").loc[param]
    assert end in (spec["min"], spec["max"])
    lo, hi = _number(spec["min"]), _number(spec["max"])
    with pytest.raises(ValueError, match=rf"^{name}: parameter '{param}' = {outside!r} is outside \[{lo}, {hi}\]$"):
        sl.schedulers.get(name, **{param: outside})
    # the end of the range runs (a small workload)
    engine = _engine(name)
    options = {"short_partition": 0.25} if engine == "worker" else {}
    r = sl.simulate(ENGINE[engine], _workload(engine), sl.schedulers.get(name, **{param: end}), **options)
    assert r.jobs["finish_time"].notna().all()


@pytest.mark.parametrize("engine,option,end,outside", OPTIONS)
def test_engine_option_just_outside_its_range(engine, option, end, outside):
    spec = sl.schedulers.options(engine).set_index("name").loc[option]
    assert end in (spec["min"], spec["max"])
    lo, hi = _number(spec["min"]), _number(spec["max"])
    with pytest.raises(ValueError, match=rf"^simulate options \({engine} engine\): parameter '{option}' = "
                                         rf"{outside!r} is outside \[{lo}, {hi}\]$"):
        sl.simulate(ENGINE[engine], _workload(engine), "spark_fifo", **{option: outside})
    r = sl.simulate(ENGINE[engine], _workload(engine), "spark_fifo", **{option: end})
    assert r.jobs["finish_time"].notna().all()


def test_narrowed_ranges_are_documented_in_the_help_text():
    for name, param, end, _ in PARAMS:
        doc = sl.schedulers.params(name).set_index("name").loc[param, "doc"]
        assert f"at least {end}" in doc or f"at most {end}" in doc or "at least 1 ms" in doc, (name, param, doc)
    for engine, option, end, _ in OPTIONS:
        doc = sl.schedulers.options(engine).set_index("name").loc[option, "doc"]
        assert "at least 1 ms" in doc or "at most a day" in doc, (option, doc)


@pytest.mark.parametrize("name,param,value", [("hawk", "min_probes", 640000), ("eagle", "probe_ratio", 1e6)])
def test_values_that_ran_away_are_refused_by_the_range(name, param, value):
    # hawk with min_probes 640,000 on 20 jobs and 10 workers: 1.2e7 events; eagle with
    # probe_ratio 1e6 on 10 workers: bad_alloc after 3 s
    with pytest.raises(ValueError, match=rf"^{name}: parameter '{param}' = .* is outside \["):
        sl.schedulers.get(name, **{param: value})


@pytest.mark.parametrize("value", [-0.5, -1e-9, -0.999])
def test_heartbeat_interval_between_the_default_and_zero_is_refused(value):
    # -1 is Hadoop 1's default; other negative values were silently taken as it
    cluster, wl = ENGINE["mapreduce"], _workload("mapreduce")
    with pytest.raises(ValueError, match=r"simulate option 'heartbeat_interval' = -0\.\d+ must be -1 \(Hadoop 1's "
                                         r"default\) or a positive number of seconds"):
        sl.simulate(cluster, wl, "fifo", heartbeat_interval=value)
    assert sl.simulate(cluster, wl, "fifo", heartbeat_interval=-1).counters["heartbeat_interval"] == 1.0


def test_fair_pool_maxima_are_whole_slots_and_a_pool_held_to_none_is_refused():
    # pool_max_maps '0:0.5' held pool 0 to 0 maps (the value was floored): its jobs never ran and
    # the run stalled after a simulated day (found by the fuzz harness)
    wl = _workload("mapreduce")
    cluster = ENGINE["mapreduce"]
    with pytest.raises(ValueError, match=r"^fair: pool_max_maps of pool 0 must be a whole number >= 0, not 0\.5"):
        sl.simulate(cluster, wl, sl.schedulers.get("fair", pool_max_maps="0:0.5"))
    with pytest.raises(ValueError, match=r"^fair: pool_max_reduces of pool 0 is 0, but job 0 of that pool has reduces"):
        sl.simulate(cluster, wl, sl.schedulers.get("fair", pool_max_reduces="0:0"))
    # a pool without jobs may be held to 0; a whole number runs
    r = sl.simulate(cluster, wl, sl.schedulers.get("fair", pool_max_maps="0:1,5:0"))
    assert r.jobs["finish_time"].notna().all()
