"""``mrcp``: the CP-Scheduler of Lim, Majumdar and Ashwood-Smith (ICPE'15), which re-solves the
MRCP constraint-programming model of matchmaking and scheduling whenever a job arrives and
dispatches each node's free slots from its own planned task lists (Lim et al. 2015, §4.4; §3, Table 1; §4.4, Tables 2–4).

The model (Lim et al. 2015, §3, Table 1, Table 1) is solved with OR-Tools CP-SAT (Lim et al. 2015: the optional
extra ``schedlab[cp]``), written as a scheduler in Python on the MapReduce engine's Python
interface:

* one optional interval per (unstarted task, node with slots of its type): x_{t,r} is its
  presence literal, exactly one per task (1); starts a_t >= t_now for every unstarted task,
  maps and reduces (2, with the gap of §2.4 closed as recommended [I]);
* running tasks are fixed on their node from their actual start to max(start + e_t, t_now + 1)
  (11, §6.4 [I]); completed tasks and finished jobs leave the model;
* every unstarted reduce starts after every unfinished map of its job (3, posted pairwise);
* C_j = the latest end of j's reduces (of all its tasks if it has none) (4); N_j <=> C_j > d_j,
  full reification (5, §2.4 [I]); jobs already past their deadline are late, not dropped;
* per node and slot type, capacity c_r^M / c_r^R: no-overlap when 1, cumulative otherwise (6, 7);
* objective (§2.3): ``product`` (default, the paper's) minimizes (sum N_j + 1) x (C_max - t_now),
  since every job's release is reset to t_now at re-solve (§2.4 [D]); ``lexicographic``
  minimizes the number of late jobs, then C_max [I]; ``late_count`` only the number of late
  jobs (the earlier MRCP-RM objective).

Times are integer model units of ``time_unit`` seconds (1 s, as the paper's OPL model), task
durations e_{t,r} = ceil(estimate / speed_r + shuffle) in those units. The horizon is
H = max(t_now, latest fixed end) + sum over unstarted tasks of their longest duration, which is
always feasible (§2.4 [I]).

Control loop (§1.4): a solve happens at the first heartbeat after one or more jobs arrived, and
after the master noticed a node crash or a crashed node rejoined (faults, ``sl.faults``): the
crash's failed attempts and lost map outputs are pending again and are planned anew, on the nodes
not known to be down [I]. The plan is kept as per-node lists of maps and of reduces sorted by planned start (ties by job
deadline, then task id, §6.10 [I]). Each free slot of a heartbeating node takes the first task of
its own list that is still pending (skipping dispatched ones, §2.6 a-b); dispatch does not wait
for a_t (work-conserving, §2.6 d) and nodes never take other nodes' tasks. A reduce is dispatched
only when all maps of its job are complete; with ``dispatch="literal"`` (default, §2.6 c) a
reduce slot whose first planned reduce is not ready stays idle, with ``"skip_ahead"`` it takes
the first ready reduce further down its list.

Solves are deterministic: one CP-SAT worker, a deterministic time limit per solve
(``max_deterministic_time``) and a fixed solver seed; a wall-clock limit (``max_time``) exists for
benchmarking only. Ctrl-C stops a solve at once and reaches the caller of ``simulate`` as a
KeyboardInterrupt, whatever the limits. A greedy EDF list schedule is given as a hint, and used as the plan if the
solver finds no solution within its limit (logged as status ``GREEDY``). ``solver_time`` charges
each solve to the simulated clock (§6.7): ``none`` (decisions take no simulated time, default),
``measured`` (the wall time of building and solving the model) or ``deterministic`` (CP-SAT's
deterministic time x ``solver_time_scale`` seconds, reproducible). While a charged solve runs no
node is given work, as in Hadoop's synchronized heartbeat handler; when it ends every node is
served. Each solve is logged in the result series ``mrcp_solves`` (time, jobs, unstarted and
running tasks, status 0 optimal / 1 feasible / 2 greedy fallback / 3 nothing to plan, objective
and the solver's bound on it, late jobs, planned C_max, wall and deterministic solve time).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field

from .base import DONE, MAP, PENDING, REDUCE, RUNNING, Scheduler
from ..core.catalogue import register

OBJECTIVES = ("product", "lexicographic", "late_count")
#: the largest plan horizon (in model time units, times the jobs + 2) CP-SAT's 64-bit integer
#: model can hold with room for the objective's products
MAX_MODEL_RANGE = 2**61
_STATUS_CODES = {"OPTIMAL": 0, "FEASIBLE": 1, "GREEDY": 2, "EMPTY": 3}


def _import_cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        raise ImportError("the mrcp scheduler needs OR-Tools CP-SAT, which is not installed: "
                          "pip install 'schedlab[cp]' (or pip install ortools)") from None
    return cp_model


# ----------------------------------------------------------------------------------------------
# The MRCP model on plain data, independent of the simulator (so tiny instances can be checked
# by hand and against brute force).

@dataclass
class PlanTask:
    """A task in the model. ``durations[r]`` is e_{t,r} on node r (None where the node has no
    slot of the task's type). A running task has ``fixed_node`` / ``fixed_start`` /
    ``fixed_end``."""
    id: int
    job: int
    stage: int
    durations: tuple
    fixed_node: int | None = None
    fixed_start: int | None = None
    fixed_end: int | None = None

    @property
    def fixed(self) -> bool:
        return self.fixed_node is not None


@dataclass
class Instance:
    """One MRCP solve: the current time, jobs (id -> deadline in model units, or None), tasks
    still in the model, and per-node map and reduce slot capacities."""
    now: int
    deadlines: dict
    tasks: list
    map_capacity: list
    reduce_capacity: list
    priority: dict = field(default_factory=dict)  # job -> tie-break key (e.g. deadline, arrival)


@dataclass
class Plan:
    status: str
    objective: float
    late: int
    cmax: int
    node: dict            # task id -> node (unstarted and running tasks)
    start: dict           # task id -> planned start
    end: dict             # task id -> planned end
    late_jobs: list
    deterministic_time: float = 0.0
    wall_time: float = 0.0
    bound: float = float("nan")   # the solver's best lower bound on the objective (gap = objective - bound)


def horizon(inst: Instance) -> int:
    base = max([inst.now] + [t.fixed_end for t in inst.tasks if t.fixed])
    return base + sum(max(d for d in t.durations if d is not None) for t in inst.tasks if not t.fixed)


def check_range(H: int, now: int, n_jobs: int):
    """Refuses a model whose horizon does not fit CP-SAT's integers (ValueError)."""
    if H > MAX_MODEL_RANGE or (H - now + 1) * (n_jobs + 2) > MAX_MODEL_RANGE:
        raise ValueError(f"mrcp: the plan horizon of {float(H):.3g} model time units (time_unit seconds each) for "
                         f"{n_jobs} jobs is beyond the constraint solver's integer range ({float(MAX_MODEL_RANGE):.3g}); "
                         "task durations come from the estimates, node speeds and, for reduces, input bytes / "
                         "network_bandwidth: raise time_unit or network_bandwidth")


def _job_completion(inst: Instance, end: dict) -> dict:
    by_job: dict = {}
    has_reduce = {t.job for t in inst.tasks if t.stage == REDUCE}
    for t in inst.tasks:
        if t.stage == REDUCE or t.job not in has_reduce:
            by_job[t.job] = max(by_job.get(t.job, inst.now), end[t.id])
    return by_job


def evaluate(inst: Instance, end: dict, objective: str = "product"):
    """(objective value, number of late jobs, C_max) of a plan's task ends."""
    c = _job_completion(inst, end)
    late = sorted(j for j, cj in c.items() if inst.deadlines.get(j) is not None and cj > inst.deadlines[j])
    cmax = max(c.values()) if c else inst.now
    m = cmax - inst.now
    L = len(late)
    if objective == "product":
        val = (L + 1) * m
    elif objective == "lexicographic":
        val = L * (horizon(inst) - inst.now + 1) + m
    else:
        val = L
    return val, late, cmax


def greedy_plan(inst: Instance) -> Plan:
    """EDF list scheduling: jobs by (priority, id); each map to the node slot where it finishes
    first, each reduce likewise after all of its job's maps. Always feasible."""
    free = {}
    for r, cap in enumerate(inst.map_capacity):
        free[(r, MAP)] = [inst.now] * cap
    for r, cap in enumerate(inst.reduce_capacity):
        free[(r, REDUCE)] = [inst.now] * cap
    node, start, end = {}, {}, {}
    for t in sorted((t for t in inst.tasks if t.fixed), key=lambda t: (t.fixed_start, t.id)):
        slots = free[(t.fixed_node, t.stage)]
        if slots:
            k = min(range(len(slots)), key=lambda i: slots[i])
            slots[k] = max(slots[k], t.fixed_end)
        node[t.id], start[t.id], end[t.id] = t.fixed_node, t.fixed_start, t.fixed_end
    jobs = sorted({t.job for t in inst.tasks}, key=lambda j: (inst.priority.get(j, (math.inf,)), j))
    for j in jobs:
        mine = [t for t in inst.tasks if t.job == j]
        maps_end = inst.now
        for stage in (MAP, REDUCE):
            for t in mine:
                if t.stage != stage:
                    continue
                if t.fixed:
                    if stage == MAP:
                        maps_end = max(maps_end, t.fixed_end)
                    continue
                lb = inst.now if stage == MAP else maps_end
                best = None
                for r, d in enumerate(t.durations):
                    if d is None:
                        continue
                    slots = free[(r, stage)]
                    for k, f in enumerate(slots):
                        s = max(f, lb)
                        if best is None or s + d < best[0]:
                            best = (s + d, s, r, k)
                fin, s, r, k = best
                free[(r, stage)][k] = fin
                node[t.id], start[t.id], end[t.id] = r, s, fin
                if stage == MAP:
                    maps_end = max(maps_end, fin)
    val, late, cmax = evaluate(inst, end)
    return Plan("GREEDY", float(val), len(late), cmax, node, start, end, late)


def _solve_interruptibly(solver, model):
    """``solver.solve(model)`` on a thread of its own, so that Ctrl-C (a KeyboardInterrupt in the
    calling thread) stops the search and is raised at once instead of after the solve, which may
    run for as long as its limits allow. CP-SAT releases the GIL while it searches; one worker and
    a deterministic limit make the result the same on any thread. (The solver's own SIGINT handler
    is off: Python's sees the signal. The wait is on an event: a Thread.join that a
    KeyboardInterrupt breaks can leave the thread taken for ended.)"""
    solver.parameters.catch_sigint_signal = False
    outcome = {}
    done = threading.Event()

    def run():
        try:
            outcome["status"] = solver.solve(model)
        except BaseException as e:  # (handed to the caller)
            outcome["error"] = e
        finally:
            done.set()

    threading.Thread(target=run, name="schedlab-mrcp-solve", daemon=True).start()
    try:
        while not done.wait(0.05):
            pass
    except KeyboardInterrupt:
        solver.stop_search()
        done.wait()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["status"]


def solve(inst: Instance, objective: str = "product", max_deterministic_time: float = 0.1,
          max_time: float = 0.0, seed: int = 0, hint: bool = True) -> Plan:
    """Builds and solves the MRCP model of ``inst`` with CP-SAT (one worker). Returns the best
    plan found (the greedy one when the solver found none within its limits)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"mrcp: objective must be one of {OBJECTIVES}, got {objective!r}")
    cp_model = _import_cp_model()
    t0 = time.perf_counter()
    greedy = greedy_plan(inst)
    pending = [t for t in inst.tasks if not t.fixed]
    if not pending:
        greedy.status = "EMPTY"
        greedy.wall_time = time.perf_counter() - t0
        return greedy
    now = inst.now
    H = horizon(inst)
    check_range(H, now, len(inst.deadlines))
    m = cp_model.CpModel()
    n_nodes = len(inst.map_capacity)
    caps = {MAP: inst.map_capacity, REDUCE: inst.reduce_capacity}
    intervals = {(r, s): [] for r in range(n_nodes) for s in (MAP, REDUCE)}
    start_var, end_expr, presence = {}, {}, {}
    for t in inst.tasks:
        if t.fixed:
            iv = m.new_fixed_size_interval_var(t.fixed_start, t.fixed_end - t.fixed_start, f"run{t.id}")
            intervals[(t.fixed_node, t.stage)].append(iv)
            end_expr[t.id] = t.fixed_end
            continue
        s = m.new_int_var(now, H, f"a{t.id}")
        lits, sizes = [], []
        for r, d in enumerate(t.durations):
            if d is None or caps[t.stage][r] <= 0:
                continue
            x = m.new_bool_var(f"x{t.id}_{r}")
            intervals[(r, t.stage)].append(m.new_optional_fixed_size_interval_var(s, d, x, f"i{t.id}_{r}"))
            lits.append(x)
            sizes.append(d)
            presence[(t.id, r)] = x
        if not lits:
            raise ValueError(f"mrcp: task {t.id} has no node with a slot of its type")
        m.add_exactly_one(lits)
        e = m.new_int_var(now, H, f"e{t.id}")
        if len(set(sizes)) == 1:
            m.add(e == s + sizes[0])
        else:
            m.add(e == s + sum(d * x for d, x in zip(sizes, lits)))
        start_var[t.id], end_expr[t.id] = s, e
    for (r, stage), ivs in intervals.items():
        if not ivs:
            continue
        if caps[stage][r] == 1:
            m.add_no_overlap(ivs)
        else:
            m.add_cumulative(ivs, [1] * len(ivs), caps[stage][r])
    # redundant: all tasks of a type together never use more than the cluster's slots of that
    # type (each with its shortest duration, a relaxation), which bounds C_max much better
    for stage in (MAP, REDUCE):
        total = sum(caps[stage])
        glob = []
        for t in inst.tasks:
            if t.stage != stage:
                continue
            if t.fixed:
                glob.append(m.new_fixed_size_interval_var(t.fixed_start, t.fixed_end - t.fixed_start, ""))
            else:
                d = min(d for r, d in enumerate(t.durations) if d is not None and caps[stage][r] > 0)
                glob.append(m.new_fixed_size_interval_var(start_var[t.id], d, ""))
        if len(glob) > 1 and total > 0:
            m.add_cumulative(glob, [1] * len(glob), total)
    # precedence: each unstarted reduce after each unfinished map of its job
    maps_of: dict = {}
    for t in inst.tasks:
        if t.stage == MAP:
            maps_of.setdefault(t.job, []).append(t)
    for t in pending:
        if t.stage == REDUCE:
            for mt in maps_of.get(t.job, []):
                m.add(start_var[t.id] >= end_expr[mt.id])
    # job completion, lateness, objective
    has_reduce = {t.job for t in inst.tasks if t.stage == REDUCE}
    ends_of: dict = {}
    for t in inst.tasks:
        if t.stage == REDUCE or t.job not in has_reduce:
            ends_of.setdefault(t.job, []).append(end_expr[t.id])
    completion, late_lits = {}, {}
    for j, ends in ends_of.items():
        c = m.new_int_var(now, H, f"C{j}")
        m.add_max_equality(c, ends)
        completion[j] = c
        d = inst.deadlines.get(j)
        if d is not None:
            n = m.new_bool_var(f"N{j}")
            m.add(c > d).only_enforce_if(n)
            m.add(c <= d).only_enforce_if(~n)
            late_lits[j] = n
    cmax = m.new_int_var(now, H, "Cmax")
    m.add_max_equality(cmax, list(completion.values()))
    n_late = m.new_int_var(0, len(late_lits), "L")
    m.add(n_late == sum(late_lits.values()))
    span = H - now
    if objective == "product":
        obj = m.new_int_var(0, (len(late_lits) + 1) * span, "obj")
        m.add_multiplication_equality(obj, [n_late + 1, cmax - now])
        m.minimize(obj)
    elif objective == "lexicographic":
        m.minimize(n_late * (span + 1) + (cmax - now))
    else:
        m.minimize(n_late)
    if hint:
        for t in pending:
            m.add_hint(start_var[t.id], greedy.start[t.id])
            for r in range(n_nodes):
                if (t.id, r) in presence:
                    m.add_hint(presence[(t.id, r)], greedy.node[t.id] == r)
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = 1
    p.random_seed = int(seed)
    p.max_deterministic_time = float(max_deterministic_time)
    if max_time > 0:
        p.max_time_in_seconds = float(max_time)
    status = _solve_interruptibly(solver, m)
    wall = time.perf_counter() - t0
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        greedy.deterministic_time = solver.deterministic_time
        greedy.wall_time = wall
        return greedy
    node, start, end = {}, {}, {}
    for t in inst.tasks:
        if t.fixed:
            node[t.id], start[t.id], end[t.id] = t.fixed_node, t.fixed_start, t.fixed_end
            continue
        start[t.id] = solver.value(start_var[t.id])
        end[t.id] = solver.value(end_expr[t.id])
        node[t.id] = next(r for r in range(n_nodes) if (t.id, r) in presence and solver.boolean_value(presence[(t.id, r)]))
    val, late, cm = evaluate(inst, end, objective)
    return Plan("OPTIMAL" if status == cp_model.OPTIMAL else "FEASIBLE", float(val), len(late), cm, node, start,
                end, late, solver.deterministic_time, wall, float(solver.best_objective_bound))


# ----------------------------------------------------------------------------------------------
# The scheduler.

def _spec(name, type_, default, doc, **kw):
    return {"name": name, "type": type_, "default": default, "doc": doc, "min": kw.get("min", -1e300),
            "max": kw.get("max", 1e300), "choices": kw.get("choices", [])}


@register
class MRCP(Scheduler):
    """The CP-Scheduler: MRCP re-solved on CP-SAT at each job arrival, per-node plan dispatch.
    See the module documentation for the model and the control loop."""

    name = "mrcp"
    citation = "Lim, Majumdar, Ashwood-Smith, ICPE'15: MRCP model and CP-Scheduler [Lim et al. 2015, §4.4; §3, Table 1; §4.4, Tables 2–4]"
    summary = ("constraint-programming matchmaking and scheduling for deadlines (CP-SAT), re-solved at each job "
               "arrival; per-node planned lists; reduces after all their job's maps")
    param_specs = [
        _spec("objective", "choice", "product",
              "product = the paper's (late jobs + 1) x remaining makespan (default); lexicographic = fewest late "
              "jobs, then makespan [I]; late_count = fewest late jobs only (earlier MRCP-RM)", choices=list(OBJECTIVES)),
        _spec("dispatch", "choice", "literal",
              "literal = a reduce slot whose first planned reduce is not ready stays idle (the paper's pseudo-code, "
              "default); skip_ahead = take the first ready reduce of the node's list", choices=["literal", "skip_ahead"]),
        _spec("time_unit", "number", 1.0, "seconds per model time unit (the paper's model uses integer seconds)",
              min=1e-6, max=1e6),
        _spec("max_deterministic_time", "number", 0.1,
              "CP-SAT deterministic time limit per solve (reproducible); the paper reports no solver limit",
              min=0.0, max=1e6),
        _spec("max_time", "number", 0.0, "wall-clock limit per solve in seconds, 0 = none (benchmarking only: "
              "makes runs depend on machine speed)", min=0.0, max=1e6),
        _spec("solver_time", "choice", "none",
              "charge each solve to the simulated clock: none (default), measured (wall time of build + solve), "
              "deterministic (CP-SAT deterministic time x solver_time_scale)", choices=["none", "measured", "deterministic"]),
        _spec("solver_time_scale", "number", 1.0, "simulated seconds per unit of CP-SAT deterministic time "
              "(solver_time='deterministic')", min=0.0, max=1e6),
        _spec("warm_start", "boolean", True, "hint the solver with a greedy EDF list schedule"),
        _spec("solver_seed", "integer", 0, "CP-SAT random seed", min=0, max=2**31 - 1),
        _spec("keep_plans", "boolean", False, "keep every solve's Instance and Plan in self.plans (for checking)"),
    ]

    def __init__(self, **params):
        super().__init__(**params)
        _import_cp_model()  # a clear error now rather than in the middle of a run

    # ------------------------------------------------------------------ callbacks
    def init(self, sim):
        p = self.params
        self.unit = float(p["time_unit"])
        self.n = sim.n_nodes
        self.map_cap = [sim.map_capacity(r) for r in range(self.n)]
        self.red_cap = [sim.reduce_capacity(r) for r in range(self.n)]
        self.speed = self.cluster.nodes["speed"].to_numpy(float).tolist()
        self.bandwidth = float(sim.options()["network_bandwidth"])
        jc, tc = self.job_columns, self.task_columns
        self.deadline = jc["deadline"].tolist()
        self.submit = jc["submit_time"].tolist()
        self.n_maps = jc["n_maps"].tolist()
        self.task_begin = jc["task_begin"].tolist()
        self.stage = tc["stage"].tolist()
        self.task_job = tc["job"].tolist()
        self.estimate = tc["estimate"].tolist()
        self.input_bytes = tc["input_bytes"].tolist()
        self.lists = [[[], []] for _ in range(self.n)]  # per node: planned maps, planned reduces
        self.lost = set()  # nodes the master knows to be down (crashed, not yet rejoined)
        self.replan = False  # a job arrived, or tasks were put back by a crash: re-solve
        # the longest run this plan could need (every task once, in turn, after the last arrival)
        # must fit the solver's integers: refused now rather than at the first solve
        slowest = min(range(self.n), key=self.speed.__getitem__, default=0)
        longest = sum(self._duration(t, slowest) for t in range(len(self.stage)))
        last = math.floor(max(self.submit, default=0.0) / self.unit + 1e-9)
        check_range(last + longest, last, len(self.submit))
        self.blocked_until = -math.inf
        self.plans = []
        self.solves = 0

    def on_job_submitted(self, sim, job):
        self.replan = True

    def on_node_lost(self, sim, node):
        # its failed attempts and lost map outputs are pending again: planned anew, elsewhere
        self.lost.add(node)
        self.lists[node] = [[], []]
        self.replan = True

    def on_node_restarted(self, sim, node):
        self.lost.discard(node)
        self.replan = True

    def on_heartbeat(self, sim, node):
        if sim.now() < self.blocked_until:
            return  # the solver is still running: the heartbeat waits (no assignment)
        if self.replan and self._solve(sim):
            return
        self._dispatch(sim, node)

    def on_timer(self, sim, tag):
        # a charged solve ended: the heartbeats that waited for it are served
        if sim.now() < self.blocked_until:
            return
        if self.replan and self._solve(sim):
            return
        for r in range(self.n):
            self._dispatch(sim, r)

    def finish(self, sim):
        return {"mrcp_solves": float(self.solves)}

    # ------------------------------------------------------------------ model
    def _duration(self, task, node):
        d = self.estimate[task] / self.speed[node]
        if self.stage[task] == REDUCE:
            d += self.input_bytes[task] / self.bandwidth
        d /= self.unit
        if not d < 2.0**62:  # (inf included) beyond any model: check_range refuses it
            return 2**62
        return max(1, math.ceil(d - 1e-9))

    def instance(self, sim) -> Instance:
        """The MRCP instance of the current state (active jobs, unfinished tasks)."""
        cur = math.floor(sim.now() / self.unit + 1e-9)
        tasks, deadlines, priority = [], {}, {}
        for j in sim.active_jobs():
            d = self.deadline[j]
            deadlines[j] = None if d != d else math.floor(d / self.unit + 1e-9)
            priority[j] = (d if d == d else math.inf, self.submit[j])
            for t in range(self.task_begin[j], self.task_begin[j + 1]):
                state = sim.task_state(t)
                if state == DONE:
                    continue
                stage = self.stage[t]
                caps = self.map_cap if stage == MAP else self.red_cap
                durs = tuple(self._duration(t, r) if caps[r] > 0 and r not in self.lost else None
                             for r in range(self.n))
                if state == RUNNING:
                    a = sim.attempt(sim.last_attempt(t))
                    s0 = math.floor(a.start / self.unit + 1e-9)
                    d = self._duration(t, a.node)
                    tasks.append(PlanTask(t, j, stage, durs, a.node, s0, max(s0 + d, cur + 1)))
                elif any(d is not None for d in durs):
                    tasks.append(PlanTask(t, j, stage, durs))
                # else every node with a slot of its type is down: planned when one rejoins
        map_cap = [0 if r in self.lost else c for r, c in enumerate(self.map_cap)]
        red_cap = [0 if r in self.lost else c for r, c in enumerate(self.red_cap)]
        return Instance(cur, deadlines, tasks, map_cap, red_cap, priority)

    def _solve(self, sim) -> bool:
        """Re-solves and rebuilds the per-node lists. Returns True if dispatch must wait for the
        solver (its time is charged to the simulated clock)."""
        self.replan = False
        p = self.params
        t0 = time.perf_counter()
        inst = self.instance(sim)
        plan = solve(inst, p["objective"], p["max_deterministic_time"], p["max_time"], p["solver_seed"],
                     p["warm_start"])
        wall = time.perf_counter() - t0
        self.solves += 1
        key = {}
        for t in inst.tasks:
            if not t.fixed:
                d = self.deadline[t.job]
                key[t.id] = (plan.start[t.id], d if d == d else math.inf, t.id)
        self.lists = [[[], []] for _ in range(self.n)]
        for tid in sorted(key, key=key.get):
            self.lists[plan.node[tid]][self.stage[tid]].append(tid)
        if p["keep_plans"]:
            self.plans.append((inst, plan))
        n_pending = sum(1 for t in inst.tasks if not t.fixed)
        sim.record("mrcp_solves", ["time", "jobs", "tasks", "running", "status", "objective", "bound", "late", "cmax",
                                   "wall_seconds", "deterministic_time"],
                   [sim.now(), float(len(inst.deadlines)), float(n_pending), float(len(inst.tasks) - n_pending),
                    float(_STATUS_CODES[plan.status]), plan.objective, plan.bound, float(plan.late),
                    float(plan.cmax) * self.unit, wall, plan.deterministic_time])
        mode = p["solver_time"]
        cost = wall if mode == "measured" else plan.deterministic_time * p["solver_time_scale"] if mode == "deterministic" else 0.0
        if cost > 0:
            self.blocked_until = sim.now() + cost
            sim.set_timer(self.blocked_until, 0)
            return True
        return False

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, sim, node):
        maps, reduces = self.lists[node]
        while maps and sim.free_slots(node, MAP) > 0:
            t = maps.pop(0)
            if sim.task_state(t) == PENDING:
                sim.launch(t, node)
        skip = self.params["dispatch"] == "skip_ahead"
        i = 0
        while i < len(reduces) and sim.free_slots(node, REDUCE) > 0:
            t = reduces[i]
            if sim.task_state(t) != PENDING:
                del reduces[i]
                continue
            j = self.task_job[t]
            if sim.done(j, MAP) == self.n_maps[j]:
                sim.launch(t, node)
                del reduces[i]
                continue
            if not skip:
                break
            i += 1


#: solve-log status codes of the ``mrcp_solves`` series
STATUS_NAMES = {v: k for k, v in _STATUS_CODES.items()}
