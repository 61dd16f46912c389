"""DynamicMR (Sagar & Moni 2015, §III): PI-DHSA, PD-DHSA, Slot PreScheduling and `dynamicmr`; the
best-static-split baseline; hand-checked schedules, invariants, determinism, bad input and the
paper's directions on its kind of workload."""
from __future__ import annotations

import pandas as pd
import pytest

import schedlab as sl
from schedlab.engines import mapreduce
from schedlab.papers import tang2014
from conftest import assert_slot_invariants
from notebook_runner import assert_claims_as_recorded, execute_notebook

NAMES = ["pi_dhsa", "pd_dhsa", "dynamicmr"]


def _wl(jobs, tasks):
    return sl.Workload.from_frames(pd.DataFrame(jobs), pd.DataFrame(tasks))


def _rows(res, cols=("task_id", "start", "finish", "slot_type")):
    t = res.tasks.sort_values("task_id")
    return [tuple(r) for r in t[list(cols)].astype(object).itertuples(index=False)]


def _testbed(m: int = 6, r: int = 6) -> sl.Cluster:
    return tang2014.dynamicmr_cluster(m, r)


def test_registered_with_parameters():
    names = sl.schedulers.names()
    for n in NAMES:
        assert n in names
        p = sl.schedulers.params(n).set_index("name")
        assert p.loc["borrow_map_fraction", "default"] == 1.0
        assert p.loc["borrow_reduce_fraction", "default"] == 1.0
        assert p.loc["extra_slots", "default"] == "intended"
    assert sl.schedulers.params("dynamicmr").set_index("name").loc["prescheduling", "default"] in (True, 1)
    assert sl.schedulers.params("dynamicmr").set_index("name").loc["dhsa", "default"] == "pi"
    assert sl.schedulers.params("pi_dhsa").set_index("name").loc["prescheduling", "default"] in (False, 0)


@pytest.mark.parametrize("name", NAMES)
def test_maps_borrow_idle_reduce_slot(name):
    """One node with one map and one reduce slot, a job of two 10 s maps and a 5 s reduce.
    HFS: the maps run one after the other and the reduce, started at 10, waits for the second:
    done at 25. DHSA (case 2: D_M = 2 > N_M = 1, D_R = 0 < N_R = 1): the second map borrows the
    idle reduce slot at t=0; the reduce runs in [10, 15]."""
    c = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    w = _wl({"job_id": ["J"], "submit_time": [0.0]}, {"job_id": ["J"] * 3, "stage": [0, 0, 1], "work": [10, 10, 5]})
    fair = sl.simulate(c, w, "fair", heartbeat_interval=1.0)
    assert _rows(fair) == [(0, 0.0, 10.0, "map"), (1, 10.0, 20.0, "map"), (2, 10.0, 25.0, "reduce")]
    res = sl.simulate(c, w, name, heartbeat_interval=1.0)
    assert _rows(res) == [(0, 0.0, 10.0, "map"), (1, 0.0, 10.0, "reduce"), (2, 10.0, 15.0, "reduce")]
    assert res.counters["dhsa_maps_in_reduce_slots"] == 1
    # pBR = 0: nothing may be lent, and the schedule is HFS's
    none = sl.simulate(c, w, sl.schedulers.get(name, borrow_reduce_fraction=0.0), heartbeat_interval=1.0)
    assert _rows(none) == _rows(fair)


@pytest.mark.parametrize("name", ["pi_dhsa", "pd_dhsa"])
def test_reduces_borrow_idle_map_slot(name):
    """A 2 s map and two 10 s reduces: once the map ends (t=2) the map phase needs no slot
    (D_M = 0 < N_M), reduces exceed their slots (D_R = 2 > N_R = 1): the second reduce runs in
    the idle map slot, [2, 12], instead of [12, 22]."""
    c = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    w = _wl({"job_id": ["J"], "submit_time": [0.0]}, {"job_id": ["J"] * 3, "stage": [0, 1, 1], "work": [2, 10, 10]})
    assert _rows(sl.simulate(c, w, "fair", heartbeat_interval=1.0)) == [
        (0, 0.0, 2.0, "map"), (1, 2.0, 12.0, "reduce"), (2, 12.0, 22.0, "reduce")]
    res = sl.simulate(c, w, name, heartbeat_interval=1.0)
    assert _rows(res) == [(0, 0.0, 2.0, "map"), (1, 2.0, 12.0, "reduce"), (2, 2.0, 12.0, "map")]
    assert res.counters["dhsa_reduces_in_map_slots"] == 1
    none = sl.simulate(c, w, sl.schedulers.get(name, borrow_map_fraction=0.0), heartbeat_interval=1.0)
    assert none.counters["dhsa_reduces_in_map_slots"] == 0


def test_prescheduling_hand_checked():
    """Two nodes with 2 map slots each; a job of two 10 s maps whose blocks are both on node 0.
    HFS's load cap allows ceil(2 x 2/4) = 1 map per node: node 0 takes one at t=0; the other is
    skipped by delay scheduling until it may go rack-local (wait >= 1.5 s) on node 1 at 3.5,
    taking 10 x 1.2 s. PreScheduling (Case 1: A = 0, E = 2 - max(1, 1) = 1) starts it node-locally
    in node 0's extra slot at t=0."""
    c = sl.Cluster(nodes=2, map_slots=2, reduce_slots=1)
    w = _wl({"job_id": ["J"], "submit_time": [0.0]},
            {"job_id": ["J"] * 2, "stage": [0, 0], "work": [10, 10], "replicas": [[0], [0]]})
    cols = ("task_id", "node", "start", "finish", "locality")
    fair = sl.simulate(c, w, "fair", heartbeat_interval=1.0)
    assert _rows(fair, cols) == [(0, 0, 0.0, 10.0, "node"), (1, 1, 3.5, 15.5, "rack")]
    for sched in (sl.schedulers.get("dynamicmr", dhsa="none"), sl.schedulers.get("pi_dhsa", prescheduling=True),
                  sl.schedulers.get("dynamicmr", extra_slots="literal")):
        res = sl.simulate(c, w, sched, heartbeat_interval=1.0)
        assert _rows(res, cols) == [(0, 0, 0.0, 10.0, "node"), (1, 0, 0.0, 10.0, "node")], sched
        assert res.counters["prescheduled_maps"] == 1


def test_no_dhsa_no_prescheduling_is_fair():
    """dynamicmr with dhsa='none' and PreScheduling off is the Fair Scheduler, decision for
    decision (the DHSA variants share HFS's intra-phase code)."""
    w = sl.datasets.load("demo_mix", seed=3)
    for racks in (1, 2):
        c = sl.Cluster(nodes=12, racks=racks, map_slots=2, reduce_slots=2)
        for params in ({}, {"assign_multiple": False}, {"pool_mode": "fifo", "locality_delay": 0}):
            a = sl.simulate(c, w, sl.schedulers.get("fair", **params), seed=1)
            b = sl.simulate(c, w, sl.schedulers.get("dynamicmr", dhsa="none", prescheduling=False, **params), seed=1)
            pd.testing.assert_frame_equal(a.tasks, b.tasks)


@pytest.mark.parametrize("sched", ["pi_dhsa", "pd_dhsa", "dynamicmr",
                                   sl.schedulers.get("dynamicmr", dhsa="pd", locality_fallback=True),
                                   sl.schedulers.get("pd_dhsa", borrow_map_fraction=0.5, borrow_reduce_fraction=0.25)])
@pytest.mark.parametrize("jobs", [5, 30])
def test_invariants_on_batches(sched, jobs):
    w = sl.datasets.load("dynamicmr_batch", jobs=jobs, seed=1)
    res = sl.simulate(_testbed(), w, sched, seed=1)
    assert res.jobs["finish_time"].notna().all()  # no deadlock: every job finishes
    assert_slot_invariants(res, typed=True)   # per slot type (a borrowed task occupies the lender's type)
    assert_slot_invariants(res, typed=False)  # and in total
    borrowed = (res.tasks["slot_type"].astype(str) != res.tasks["stage"].astype(str)).sum()
    # every launch into the other type's slot is counted (PreScheduling's Case 2 included)
    assert borrowed == res.counters["dhsa_maps_in_reduce_slots"] + res.counters["dhsa_reduces_in_map_slots"]
    assert borrowed > 0


@pytest.mark.parametrize("sched", ["pi_dhsa", "pd_dhsa"])
def test_reduces_never_borrow_the_map_slots_pending_maps_need(sched):
    # 10-job batch on 8 nodes with 2 + 2 slots: without capping the borrowed map slots at
    # N_M - D_M, PD-DHSA let job 8's 32 reduces take all 32 slots while its last map was pending
    c = sl.Cluster(nodes=8, racks=2, map_slots=2, reduce_slots=2)
    res = sl.simulate(c, sl.datasets.load("dynamicmr_batch", jobs=10, seed=1), sched, seed=1, stall_limit=3600)
    assert res.jobs["finish_time"].notna().all()
    t = res.tasks
    in_map_slots = t[(t["stage"].astype(str) == "reduce") & (t["slot_type"].astype(str) == "map")]
    assert len(in_map_slots) > 0
    # whenever a reduce takes a map slot, the reduces in map slots leave one for each map still to
    # run (D_M = maps of submitted jobs not yet done): live <= N_M - D_M
    maps = t[(t["stage"].astype(str) == "map") & (t["status"].astype(str) == "succeeded")]
    submit = res.jobs.set_index("job_id")["submit_time"]
    map_submit = submit.loc[maps["job_id"]].to_numpy()
    for s in in_map_slots["start"].to_numpy():
        live = ((in_map_slots["start"] <= s) & (in_map_slots["finish"] > s)).sum()
        d_m = ((map_submit <= s) & (maps["finish"].to_numpy() > s + 1e-9)).sum()
        assert live <= 16 - d_m, (s, live, d_m)


@pytest.mark.parametrize("sched", ["pi_dhsa", "pd_dhsa", "dynamicmr"])
def test_deterministic(sched):
    w = sl.datasets.load("dynamicmr_batch", jobs=10, seed=2)
    a = sl.simulate(_testbed(), w, sched, seed=2)
    b = sl.simulate(_testbed(), w, sched, seed=2)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.tasks, b.tasks)
    assert a.counters == b.counters


def test_best_static_split():
    w = sl.datasets.load("dynamicmr_single", benchmark="wordcount", maps=32, seed=0)
    best = mapreduce.best_static_split(lambda m, r: sl.Cluster(nodes=3, map_slots=m, reduce_slots=r), w, "fair",
                                slots_per_node=4)
    t = best["table"]
    assert t["map_slots"].tolist() == [1, 2, 3] and t["reduce_slots"].tolist() == [3, 2, 1]
    assert best["value"] == t["makespan"].min()
    row = t.loc[t["makespan"].idxmin()]
    assert (best["map_slots"], best["reduce_slots"]) == (row["map_slots"], row["reduce_slots"])
    assert best["result"].summary()["makespan"] == best["value"]
    assert best["map_slots"] == 3  # 32 maps of 30 s vs 8 short reduces: the map-heavy split wins
    assert tang2014.speedup(200.0, 100.0) == 100.0


def test_datasets():
    for jobs in (5, 10, 20, 30):
        w = sl.datasets.load("dynamicmr_batch", jobs=jobs, seed=0)
        j = w.jobs
        assert len(j) == jobs and (j["submit_time"] == 0).all() and j["user"].nunique() == jobs
        assert set(j["n_maps"]) <= {16, 32, 160}
        assert (j["n_reduces"] == (j["n_maps"] // 4)).all()
    w = sl.datasets.load("dynamicmr_batch", jobs=9, seed=0)
    assert w.jobs["job_type"].str.rsplit("_", n=1).str[0].nunique() == 9
    s = sl.datasets.load("dynamicmr_single", benchmark="sort", maps=16)
    assert s.jobs["n_maps"].tolist() == [16]
    t = s.tasks
    # sort moves its whole input to the reduces
    assert t["input_bytes"][t["stage"] == "reduce"].sum() == pytest.approx(t["input_bytes"][t["stage"] == "map"].sum())


def test_bad_input():
    with pytest.raises(ValueError, match="borrow_map_fraction"):
        sl.schedulers.get("pi_dhsa", borrow_map_fraction=1.5)
    with pytest.raises(ValueError, match="dhsa"):
        sl.schedulers.get("dynamicmr", dhsa="both")
    with pytest.raises(ValueError, match="dhsa"):
        sl.schedulers.get("pi_dhsa", dhsa="pd")  # only dynamicmr chooses its DHSA
    with pytest.raises(ValueError, match="jobs"):
        sl.datasets.load("dynamicmr_batch", jobs=0)
    with pytest.raises(ValueError, match="benchmark"):
        sl.datasets.load("dynamicmr_single", benchmark="terasort")
    w = sl.datasets.load("dynamicmr_single", maps=16)
    with pytest.raises(ValueError, match="slots_per_node"):
        mapreduce.best_static_split(lambda m, r: _testbed(m, r), w, slots_per_node=1)
    with pytest.raises(ValueError, match="metric"):
        mapreduce.best_static_split(lambda m, r: _testbed(m, r), w, slots_per_node=2, metric="speed")
    with pytest.raises(ValueError, match="pool_weights"):
        sl.simulate(_testbed(), w, sl.schedulers.get("pi_dhsa", pool_weights="0:x"))


# ---- the paper's directions (Sagar & Moni 2015, §IV), from notebooks/dynamicmr.ipynb run small ----

@pytest.fixture(scope="module")
def notebook_rows(tmp_path_factory):
    """Single jobs of sort, wordcount, self_join; batches of 5 and 20 jobs with seeds 0, 1 (the claims'
    runs, tang2014.fig9_table, prescheduling_table, fig10_table)."""
    out = tmp_path_factory.mktemp("dynamicmr") / "dynamicmr.csv"
    nb = execute_notebook("dynamicmr.ipynb", {"SCHEDLAB_OUT": str(out)})
    rows = pd.read_csv(out).set_index(["experiment", "key", "metric"])["value"]
    rows.attrs["notebook"] = nb
    return rows


def test_notebook_shows_the_claims_as_recorded(notebook_rows):
    """Every claim of claims/tang2014.toml, judged by its interval rule and printed by the notebook
    with the verdict recorded for the small size: Fig. 9 (DynamicMR against Fair with its best
    static split, single jobs and batches), SEPB against percentage 0 and against Hadoop's
    speculation, DynamicMR in full against stock Hadoop, Slot PreScheduling's locality (Fig. 7) and
    performance (Fig. 8), PI- against PD-DHSA, and DynamicMR on FIFO (Fig. 10). The notebook
    computes none of these itself."""
    from schedlab.papers import claims

    ids = [c.id for c in claims.load("tang2014")]
    seen = assert_claims_as_recorded(notebook_rows.attrs["notebook"], "tang2014", ids)
    assert set(seen) == {f"tang2014/{c}" for c in ids}


def test_notebook_beats_fair_on_the_same_split(notebook_rows):
    """DynamicMR beats Fair with the same 6 + 6 split on every batch and seed (not a claim of the paper:
    Fig. 9 compares with the best static split, which the claims judge)."""
    b = notebook_rows.loc["batch"]
    assert (b.xs("speedup_same_split", level="metric") > 0).all()


def test_with_sepb_speculation_and_a_slow_node():
    """DynamicMR = DHSA + PreScheduling + SEPB (the engine's speculation="sepb"): speculative and
    killed attempts keep the slot invariants and every job finishes."""
    from schedlab.faults import Slowdown
    w = sl.datasets.load("dynamicmr_batch", jobs=10, seed=0)
    res = sl.simulate(_testbed(), w, "dynamicmr", seed=0, speculation="sepb",
                      faults=[Slowdown(node=2, start=0, end=300, factor=4)])
    assert res.jobs["finish_time"].notna().all()
    assert res.summary()["speculative_attempts"] > 0
    assert_slot_invariants(res, typed=True)
