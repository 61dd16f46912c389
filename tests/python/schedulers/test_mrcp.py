"""mrcp (MRCP on CP-SAT, Lim et al. 2015, §3, Table 1), edf / edf_ideal (Lim et al. 2015, §4.2) and the WordCount datasets."""
import itertools
import random
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import schedlab as sl
from schedlab.papers import lim2015
from schedlab.schedulers import mrcp
from schedlab.schedulers.mrcp import Instance, PlanTask, evaluate, solve

from conftest import assert_slot_invariants

pytest.importorskip("ortools")

FAST = dict(max_deterministic_time=0.05)


def _frames(jobs, tasks):
    """jobs: [(submit, deadline)], tasks: [(job, stage, work[, estimate])]"""
    j = pd.DataFrame({"job_id": range(len(jobs)), "submit_time": [a for a, _ in jobs],
                      "deadline": [d for _, d in jobs]})
    t = pd.DataFrame({"job_id": [x[0] for x in tasks], "stage": [x[1] for x in tasks],
                      "work": [float(x[2]) for x in tasks],
                      "estimate": [float(x[3] if len(x) > 3 else x[2]) for x in tasks]})
    return sl.Workload.from_frames(j, t)


# ---------------------------------------------------------------------------------- the model

def _trade_off_instance():
    """One node runs X and Y (node 1 cannot); three jobs are already late (deadline -1) with a
    running map on node 1. X = map 10, reduce 1, deadline 11; Y = map 1, reduce 10, no deadline.
    X first keeps X on time: C_max = 21, 3 late, (3+1) x 21 = 84. Y first (Johnson's order):
    C_max = 12 but X ends at 12 > 11: 4 late, (4+1) x 12 = 60. The paper's product objective
    prefers one more late job; the lexicographic one does not (Lim et al. 2015, §3, Table 1 [D])."""
    tasks = [PlanTask(0, 0, 0, (10, None)), PlanTask(1, 0, 1, (1, None)),   # X
             PlanTask(2, 1, 0, (1, None)), PlanTask(3, 1, 1, (10, None))]   # Y
    for k in range(3):
        tasks.append(PlanTask(4 + k, 2 + k, 0, (None, 1), fixed_node=1, fixed_start=0, fixed_end=1))
    return Instance(0, {0: 11, 1: None, 2: -1, 3: -1, 4: -1}, tasks, [1, 3], [1, 0])


def test_product_objective_trades_a_late_job_for_makespan():
    inst = _trade_off_instance()
    p = solve(inst, "product", 5.0)
    assert p.status == "OPTIMAL"
    assert (p.late, p.cmax, p.objective) == (4, 12, 60.0)
    assert [p.start[t] for t in range(4)] == [1, 11, 0, 1]
    assert p.bound == p.objective   # proved optimal: no gap
    lex = solve(inst, "lexicographic", 5.0)
    assert (lex.late, lex.cmax) == (3, 21)
    assert [lex.start[t] for t in range(4)] == [0, 10, 10, 11]
    assert solve(inst, "late_count", 5.0).late == 3
    for plan in (p, lex):
        assert all(plan.node[t] == 0 for t in range(4))
        assert all((plan.node[t], plan.start[t], plan.end[t]) == (1, 0, 1) for t in range(4, 7))


def test_load_balancing_and_deadline_order_hand_checked():
    # two identical nodes, one job of two 5 s maps and a 2 s reduce: maps in parallel, reduce at 5
    inst = Instance(0, {0: None}, [PlanTask(0, 0, 0, (5, 5)), PlanTask(1, 0, 0, (5, 5)), PlanTask(2, 0, 1, (2, 2))],
                    [1, 1], [1, 1])
    p = solve(inst, "product", 5.0)
    assert p.status == "OPTIMAL" and p.node[0] != p.node[1]
    assert (p.start[0], p.start[1], p.start[2], p.cmax) == (0, 0, 5, 7)
    # one node: B (deadline 3) must go before A, at time 4 (now)
    inst = Instance(4, {0: 100, 1: 7}, [PlanTask(0, 0, 0, (4,)), PlanTask(1, 0, 1, (1,)),
                                        PlanTask(2, 1, 0, (2,)), PlanTask(3, 1, 1, (1,))], [1], [1])
    p = solve(inst, "product", 5.0)
    assert p.late == 0 and (p.start[2], p.start[3], p.start[0], p.start[1]) == (4, 6, 6, 10)


def _brute_force(inst, objective):
    """Optimum over all node assignments and per-node task orders (semi-active schedules, which
    contain an optimum for these regular objectives); nodes have one slot per type."""
    pending = [t for t in inst.tasks if not t.fixed]
    fixed_end = {}
    for t in inst.tasks:
        if t.fixed:
            fixed_end[(t.fixed_node, t.stage)] = max(fixed_end.get((t.fixed_node, t.stage), inst.now), t.fixed_end)
    choices = [[r for r, d in enumerate(t.durations) if d is not None] for t in pending]
    maps_of = {}
    for t in inst.tasks:
        if t.stage == 0:
            maps_of.setdefault(t.job, []).append(t)
    best = None
    for assign in itertools.product(*choices):
        groups = {}
        for t, r in zip(pending, assign):
            groups.setdefault((r, t.stage), []).append(t)
        keys = list(groups)
        for orders in itertools.product(*[itertools.permutations(groups[k]) for k in keys]):
            end = {t.id: t.fixed_end for t in inst.tasks if t.fixed}
            start = {}
            for _ in range(len(pending) + 1):  # longest-path relaxation; no fixed point = cycle
                changed = False
                for k, order in zip(keys, orders):
                    prev = fixed_end.get(k, inst.now)
                    for t in order:
                        s = prev
                        if t.stage == 1:
                            s = max([s] + [end.get(m.id, 10**9) for m in maps_of.get(t.job, [])])
                        if start.get(t.id) != s:
                            start[t.id], end[t.id], changed = s, s + t.durations[k[0]], True
                        prev = end[t.id]
                if not changed:
                    break
            else:
                continue
            if max(end.values()) >= 10**9:
                continue
            val = evaluate(inst, end, objective)[0]
            best = val if best is None or val < best else best
    return best


@pytest.mark.parametrize("objective", ["product", "lexicographic"])
def test_solver_matches_brute_force_on_tiny_instances(objective):
    rng = random.Random(7)
    checked = 0
    while checked < 25:
        n_nodes = rng.choice([1, 2])
        tasks, deadlines, tid = [], {}, 0
        for j in range(rng.randint(1, 3)):
            for stage, count in ((0, rng.randint(1, 2)), (1, 1)):
                for _ in range(count):
                    tasks.append(PlanTask(tid, j, stage, tuple(rng.randint(1, 6) for _ in range(n_nodes))))
                    tid += 1
            deadlines[j] = rng.choice([None, rng.randint(2, 14)])
        if len(tasks) > 5:
            continue
        if rng.random() < 0.3:  # a running map fixed on node 0
            tasks.append(PlanTask(tid, 9, 0, (3,) * n_nodes, fixed_node=0, fixed_start=0, fixed_end=2))
            deadlines[9] = 1
        inst = Instance(1, deadlines, tasks, [1] * n_nodes, [1] * n_nodes)
        plan = solve(inst, objective, 10.0)
        assert plan.status == "OPTIMAL"
        assert plan.objective == _brute_force(inst, objective), inst
        _check_plan(inst, plan)
        checked += 1


def _check_plan(inst, plan):
    """Every task placed once; per node and slot type never more tasks at once than slots;
    unstarted tasks start at or after now; reduces after all maps of their job; running tasks
    kept; the late count and C_max agree with the ends."""
    ids = [t.id for t in inst.tasks]
    assert sorted(plan.node) == sorted(ids) == sorted(plan.start) == sorted(plan.end)
    by = {}
    for t in inst.tasks:
        r = plan.node[t.id]
        assert t.durations[r] is not None
        if t.fixed:
            assert (r, plan.start[t.id], plan.end[t.id]) == (t.fixed_node, t.fixed_start, t.fixed_end)
        else:
            assert plan.start[t.id] >= inst.now
            assert plan.end[t.id] == plan.start[t.id] + t.durations[r]
        by.setdefault((r, t.stage), []).append((plan.start[t.id], plan.end[t.id]))
    for (r, stage), ivs in by.items():
        cap = (inst.map_capacity if stage == 0 else inst.reduce_capacity)[r]
        events = sorted([(s, 1) for s, _ in ivs] + [(e, -1) for _, e in ivs], key=lambda x: (x[0], x[1]))
        assert max(np.cumsum([d for _, d in events])) <= cap
    for t in inst.tasks:
        if t.stage == 1 and not t.fixed:
            for m in inst.tasks:
                if m.job == t.job and m.stage == 0:
                    assert plan.start[t.id] >= plan.end[m.id]
    val, late, cmax = evaluate(inst, plan.end)
    assert (len(late), cmax) == (plan.late, plan.cmax)


# ---------------------------------------------------------------------------------- the scheduler

def test_hand_checked_run_with_literal_reduce_gating():
    # one node, 1 map + 1 reduce slot, heartbeats at 0, 1, 2, ...
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    wl = _frames([(0.0, 100.0), (0.5, 9.0)], [(0, 0, 4), (0, 1, 1), (1, 0, 2), (1, 1, 1)])
    r = sl.simulate(cluster, wl, sl.schedulers.get("mrcp", **FAST))
    t = r.tasks.set_index("task_id").sort_index()
    # solve at 0: A's map at once; solve at 1 (B arrived): B's map and A's reduce at 4, B's
    # reduce at 6 (its map ends at 6)
    assert t["start"].tolist() == [0.0, 4.0, 4.0, 6.0]
    assert t["finish"].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert r.counters["mrcp_solves"] == 2
    assert not r.jobs["late"].any()
    assert_slot_invariants(r)


def test_literal_and_skip_ahead_dispatch_differ_when_estimates_are_wrong():
    # X's map is estimated at 2 s but takes 10: X's reduce heads the node's reduce list while
    # Y's reduce is ready at 3
    cluster = sl.Cluster(nodes=1, map_slots=2, reduce_slots=1)
    wl = _frames([(0.0, 500.0), (0.0, 500.0)], [(0, 0, 10, 2), (0, 1, 1), (1, 0, 3), (1, 1, 1)])
    lit = sl.simulate(cluster, wl, sl.schedulers.get("mrcp", **FAST)).tasks.set_index("task_id")
    assert lit.loc[[1, 3], "start"].tolist() == [10.0, 11.0]   # the slot idles from 3 to 10
    skip = sl.simulate(cluster, wl, sl.schedulers.get("mrcp", dispatch="skip_ahead", **FAST)).tasks.set_index("task_id")
    assert skip.loc[[1, 3], "start"].tolist() == [10.0, 3.0]


def test_charged_solver_time_delays_dispatch():
    cluster = sl.Cluster(nodes=1, map_slots=1, reduce_slots=1)
    wl = _frames([(0.0, 100.0)], [(0, 0, 4), (0, 1, 1)])
    s = sl.schedulers.get("mrcp", solver_time="deterministic", solver_time_scale=1e6, **FAST)
    r = sl.simulate(cluster, wl, s)
    solve_cost = r.series["mrcp_solves"]["deterministic_time"].iloc[0] * 1e6
    assert solve_cost > 0
    assert r.tasks["start"].iloc[0] == pytest.approx(solve_cost)   # served when the solve ends
    again = sl.simulate(cluster, wl, s)
    pd.testing.assert_frame_equal(r.tasks, again.tasks)


@pytest.mark.parametrize("restart_after", [float("inf"), 100.0])
def test_tasks_put_back_by_a_crash_are_planned_again(restart_after):
    # two nodes, one map slot each; four maps of 50 s and a reduce. The first solve puts two maps
    # on each node; node 0 crashes at 10 s, during its first map, and the master notices at 15 s.
    # The failed map and the one still listed for node 0 must be planned again, on node 1 while
    # node 0 is down (before, they were never planned: the run stalled until stall_limit).
    cluster = sl.Cluster(nodes=2, map_slots=1, reduce_slots=1)
    wl = _frames([(0.0, 1000.0)], [(0, 0, 50), (0, 0, 50), (0, 0, 50), (0, 0, 50), (0, 1, 5)])
    s = sl.schedulers.get("mrcp", keep_plans=True, **FAST)
    r = sl.simulate(cluster, wl, s, faults=[sl.faults.Crash(node=0, at=10.0, restart_after=restart_after)],
                    detection_delay=5.0, stall_limit=3600.0)
    assert r.jobs["finish_time"].notna().all()
    assert_slot_invariants(r)
    t = r.tasks
    failed = t[t["status"] == "failed"]
    assert len(failed) == 1 and failed["node"].tolist() == [0]
    ok = t[t["status"] == "succeeded"]
    # nothing ran on node 0 while it was down; the re-solve at the crash's notice planned no
    # task there
    assert not ((ok["node"] == 0) & (ok["start"] < 10.0 + restart_after)).any()
    solves = r.series["mrcp_solves"]["time"].tolist()
    assert solves[0] == 0.0 and 15.0 <= solves[1] < 16.0  # node 1's first heartbeat after the notice
    inst, plan = s.plans[1]
    assert inst.map_capacity[0] == 0 and set(plan.node.values()) == {1}
    first_end = ok[ok["node"] == 1]["finish"].min()  # node 1's first map (heartbeat phase 0.5 s)
    if restart_after == float("inf"):
        assert (ok["node"] == 1).all()
        assert r.jobs["finish_time"].iloc[0] == first_end + 3 * 50.0 + 5.0
    else:  # node 0 rejoins at 110 s: a re-solve plans the last map and the reduce there
        assert solves[2:] == [110.0]
        assert ok[ok["node"] == 0]["start"].tolist() == [110.0, 160.0]
        assert r.jobs["finish_time"].iloc[0] == 165.0


def test_a_plan_beyond_the_solvers_integers_is_refused():
    # at network_bandwidth 1e-9 B/s a reduce of 64 MB copies for ~6.4e16 s. Before, the golden
    # workload with a crash gave a TypeError from OR-Tools (a horizon of 9.9e18 model units)
    cluster = sl.Cluster(nodes=6, racks=2, map_slots=2, reduce_slots=1)
    wl = sl.synthetic.generate(jobs=10, rate=0.05, seed=1, maps=("randint", 1, 12), reduces=("randint", 0, 3))
    s = sl.schedulers.get("mrcp", **FAST)
    faults = "slowdown:1:20.0:400.0:3.0;crash:4:60.0:200.0"
    # the resource guard counts the copies in the simulated span: refused before the run
    with pytest.raises(sl.core.guard.ResourceError, match="events"):
        sl.simulate(cluster, wl, s, network_bandwidth=1e-9, faults=faults, detection_delay=30.0)
    # without the guard, mrcp refuses a plan CP-SAT's integers cannot hold, naming the option
    with pytest.raises(ValueError, match="network_bandwidth"):
        sl.simulate(cluster, wl, s, network_bandwidth=1e-9, faults=faults, detection_delay=30.0,
                    max_events=float("inf"))
    with pytest.raises(ValueError, match="integer range"):
        mrcp.check_range(2**62, 0, 1)
    mrcp.check_range(2**40, 0, 1000)


@pytest.fixture(scope="module")
def small_run():
    wl = lim2015.generate("small", rate=1 / 15, jobs=14, seed=3)
    s = sl.schedulers.get("mrcp", keep_plans=True, **FAST)
    r = sl.simulate(lim2015.cluster(), wl, s, rack_local_factor=1.0, seed=2)
    return s, r


def test_plans_respect_capacity_and_precedence_and_dispatch_follows_them(small_run):
    s, r = small_run
    assert len(s.plans) == r.counters["mrcp_solves"] >= 10
    for inst, plan in s.plans:
        _check_plan(inst, plan)
    # every task is dispatched once, on the node of the latest plan made before its launch
    tasks = r.tasks
    assert tasks["task_id"].is_unique and len(tasks) == r.workload.n_tasks
    solve_times = r.series["mrcp_solves"]["time"].to_numpy()
    for row in tasks.itertuples():
        k = np.searchsorted(solve_times, row.start, side="right") - 1
        assert s.plans[k][1].node[row.task_id] == row.node
    # reduces only after all maps of their job
    jobs = r.jobs.set_index("job_id")
    red = tasks[tasks["stage"] == "reduce"]
    assert (red["start"].to_numpy() >= jobs.loc[red["job_id"], "map_finish_time"].to_numpy()).all()
    assert_slot_invariants(r)


def test_mrcp_is_deterministic(small_run):
    s, r = small_run
    again = sl.simulate(r.cluster, r.workload, sl.schedulers.get("mrcp", **FAST), rack_local_factor=1.0, seed=2)
    pd.testing.assert_frame_equal(r.tasks, again.tasks)
    pd.testing.assert_frame_equal(r.jobs, again.jobs)
    cols = ["time", "jobs", "tasks", "status", "objective", "late", "cmax"]
    pd.testing.assert_frame_equal(r.series["mrcp_solves"][cols], again.series["mrcp_solves"][cols])


def test_mrcp_is_listed_and_checks_its_parameters():
    av = sl.schedulers.available().set_index("name")
    assert av.loc["mrcp", "engine"] == "python"
    assert av.loc["mrcp", "params"]["objective"] == "product"
    assert "dispatch" in set(sl.schedulers.params("mrcp")["name"])
    with pytest.raises(ValueError, match="objective"):
        sl.schedulers.get("mrcp", objective="fastest")
    with pytest.raises(ValueError, match="outside"):
        sl.schedulers.get("mrcp", time_unit=-1)


def test_missing_ortools_gives_a_clear_error(monkeypatch):
    for name in ("ortools", "ortools.sat", "ortools.sat.python", "ortools.sat.python.cp_model"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install 'schedlab\[cp\]'"):
        mrcp.MRCP()


# ---------------------------------------------------------------------------------- EDF

def test_edf_reduce_stall_and_edf_ideal_gating_hand_checked():
    # one node, 2 map slots, 1 reduce slot. A (deadline 1000): 4 maps of 2.5 s, reduce 1.2 s;
    # B (arrives 0.2, deadline 50): 1 map of 1.5 s, reduce 1.2 s.
    cluster = sl.Cluster(nodes=1, map_slots=2, reduce_slots=1)
    wl = _frames([(0.0, 1000.0), (0.2, 50.0)], [(0, 0, 2.5)] * 4 + [(0, 1, 1.2), (1, 0, 1.5), (1, 1, 1.2)])
    edf = sl.simulate(cluster, wl, "edf").tasks.set_index("task_id")
    # Hadoop slowstart: A's reduce takes the only reduce slot at 3 and holds it until A's last
    # map ends at 7.5; B's reduce waits until 9
    assert edf.loc[4, "start"] == 3.0 and edf.loc[4, "finish"] == pytest.approx(8.7)
    assert edf.loc[6, "start"] == 9.0 and edf.loc[6, "finish"] == pytest.approx(10.2)
    assert edf.loc[5, "start"] == 3.0  # B's map before A's remaining maps (earlier deadline)
    ideal = sl.simulate(cluster, wl, "edf_ideal").tasks.set_index("task_id")
    assert ideal.loc[6, "start"] == 5.0 and ideal.loc[6, "finish"] == pytest.approx(6.2)
    assert ideal.loc[4, "start"] == 8.0 and ideal.loc[4, "finish"] == pytest.approx(9.2)


def test_edf_ideal_gating_through_lost_map_outputs_hand_checked():
    # two nodes of 1 map + 1 reduce slot. A (deadline 200): a map of 5 s, two reduces of 300 s,
    # which take both reduce slots at 5 and 5.5; B (arrives 15, deadline 100): two maps of 10 s,
    # done at 25 and 25.5, and a reduce of 10 s, waiting for a reduce slot. Node 1 crashes at 50
    # (back at 60, seen lost at 55): A's reduce there fails, B's map output there is lost and its
    # map runs again on node 0, 55-65.
    from schedlab.faults import Crash
    cluster = sl.Cluster(nodes=2, map_slots=1, reduce_slots=1)
    wl = _frames([(0.0, 200.0), (15.0, 100.0)], [(0, 0, 5), (0, 1, 300), (0, 1, 300), (1, 0, 10), (1, 0, 10), (1, 1, 10)])
    r = sl.simulate(cluster, wl, "edf_ideal", faults=[Crash(node=1, at=50, restart_after=10)], detection_delay=5)
    t = r.tasks
    rerun = t[(t["task_id"] == 4) & (t["status"] == "succeeded")]
    assert rerun[["node", "start", "finish"]].values.tolist() == [[0, 55.0, 65.0]]
    # node 1's reduce slot, free again at 60, goes to A's failed reduce: B comes first by deadline
    # but has a map to run again
    a_reduce = t[(t["task_id"] == 2) & (t["status"] == "succeeded")]
    assert a_reduce[["node", "start", "finish"]].values.tolist() == [[1, 60.0, 360.0]]
    # B's reduce, once its maps are done again, takes the first reduce slot to free (node 0's at 305)
    b_reduce = t[t["task_id"] == 5]
    assert b_reduce[["node", "start", "finish", "status"]].values.tolist() == [[0, 305.0, 315.0, "succeeded"]]
    assert np.isfinite(r.jobs["finish_time"]).all()


# ---------------------------------------------------------------------------------- datasets

def test_wordcount_generator():
    wl = sl.datasets.load("wordcount_medium", rate=1 / 40, jobs=30, seed=5)
    jobs = wl.jobs
    assert (jobs["n_maps"] == 10).all() and (jobs["n_reduces"] == 1).all()
    assert jobs["submit_time"].iloc[0] == 0 and jobs["submit_time"].is_monotonic_increasing
    em = (jobs["deadline"] - jobs["submit_time"]) / jobs["base_time"]
    assert em.between(1, 5).all()
    assert jobs["base_time"].iloc[0] == pytest.approx(lim2015.base_time("medium"))
    assert lim2015.base_time("medium", "waves") == 80.0
    assert [lim2015.base_time(s, "waves") for s in ("small", "large")] == [50.0, 100.0]
    assert lim2015.base_time("small", "serial") == 100.0
    mix = lim2015.generate("mix", rate=1 / 30, jobs=300, seed=1)
    counts = mix.jobs["job_type"].value_counts()
    assert set(counts.index) == {"small", "medium", "large"} and counts.min() > 70
    pd.testing.assert_frame_equal(mix.jobs, lim2015.generate("mix", rate=1 / 30, jobs=300, seed=1).jobs)
    long = lim2015.generate("small", rate=1 / 20, duration=20000, seed=2)
    assert 800 < long.n_jobs < 1200 and long.jobs["submit_time"].max() < 20000
    assert lim2015.rates("large", "stated") == [1 / 77.5, 1 / 70]
    c = lim2015.cluster().nodes
    assert len(c) == 4 and (c["map_slots"] == 1).all() and (c["reduce_slots"] == 1).all()
    with pytest.raises(ValueError, match="size"):
        lim2015.generate("huge")
    with pytest.raises(ValueError, match="rate"):
        lim2015.generate("small", rate=0)


@pytest.mark.parametrize("interarrival", [22.5, 15.0])
def test_mrcp_has_fewer_late_jobs_than_edf_at_the_papers_scale(interarrival):
    """Lim et al. 2015, §5.2's direction on the small WordCount workload at the lowest and highest rates of
    its grid, 100 jobs per run (the notebook's full size; measured: 7 vs 8 late jobs at 1/22.5 and
    45 vs 59 at 1/15). At the notebook's 16-job test size the direction does not hold everywhere
    (see test_deadlines_notebook.py)."""
    assert interarrival in [round(1 / r, 1) for r in lim2015.rates("small", "grid")]
    wl = lim2015.generate("small", rate=1 / interarrival, jobs=100, seed=1)
    late = {}
    for name, s in (("edf", "edf"), ("mrcp", sl.schedulers.get("mrcp", max_deterministic_time=0.02))):
        r = sl.simulate(lim2015.cluster(), wl, s, seed=1, rack_local_factor=1.0)
        assert r.jobs["finish_time"].notna().all()
        late[name] = int((r.jobs["finish_time"] > r.jobs["deadline"]).sum())
    assert late["edf"] > 0
    assert late["mrcp"] < late["edf"], late


INTERRUPTED_SOLVE = """
import os, signal, threading
import pandas as pd
import schedlab as sl
n = 30  # thirty jobs at once on four nodes: CP-SAT is far from proving a plan optimal for hours
jobs = pd.DataFrame({"job_id": range(n), "submit_time": [0.0] * n, "deadline": [60.0 + 7 * j for j in range(n)]})
tasks = pd.DataFrame({"job_id": [j for j in range(n) for _ in range(5)], "stage": (["map"] * 4 + ["reduce"]) * n,
                      "work": [10.0 + (7 * j + 3 * k) % 13 for j in range(n) for k in range(5)]})
wl = sl.Workload.from_frames(jobs, tasks)
threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    sl.simulate(sl.Cluster(nodes=4, map_slots=1, reduce_slots=1), wl,
                sl.schedulers.get("mrcp", max_deterministic_time=1e6))
except KeyboardInterrupt:
    print("interrupted")
    r = sl.simulate(sl.Cluster(nodes=4, map_slots=1, reduce_slots=1), wl, sl.schedulers.get("mrcp", max_deterministic_time=0.05))
    print("then ran", len(r.jobs), "jobs")
else:
    print("ran to the end")
"""


def test_ctrl_c_stops_a_solve():
    """A solve with a budget of 10^6 deterministic seconds, interrupted 2 s in: the
    KeyboardInterrupt reaches the caller of simulate at once (the parent's timeout only guards
    against a solve that would not stop), and the next run works."""
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_SOLVE], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["interrupted", "then ran 30 jobs"], done.stdout + done.stderr
