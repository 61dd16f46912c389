// DynamicMR: dynamic slot allocation on top of the Hadoop 1.x Fair Scheduler (or Hadoop FIFO) [Sagar & Moni 2015, §III].
//
//   pi_dhsa   — PI-DHSA, pool-independent Dynamic Hadoop Slot Allocation [Sagar & Moni 2015, §III]:
//               each phase is shared fairly among pools exactly as in HFS (intra-phase); then
//               slots one phase leaves unused are lent to the other phase, cluster-wide
//               (inter-phase), by the four cases of the original paper:
//                 1. D_M <= N_M and D_R <= N_R: no borrowing;
//                 2. D_M > N_M and D_R < N_R: maps borrow idle reduce slots, at most
//                    min(D_M - N_M, floor(pBR (N_R - D_R))) cluster-wide and
//                    floor(pBR x idle reduce slots) on the tracker per heartbeat;
//                 3. D_M < N_M and D_R > N_R: the same for reduces in idle map slots (pBM);
//                 4. both phases over-subscribed: no borrowing.
//               D = pending + running tasks of runnable jobs (reduces count once slowstart is met);
//               N = the cluster's slots of that type. The case is decided cluster-wide and the
//               amount lent capped per tracker (the spec's recommended reading).
//   pd_dhsa   — PD-DHSA, pool-dependent DHSA [Sagar & Moni 2015, §III]: pools are visited in
//               FairShareComparator order over their running maps + reduces (pool-level
//               fairness over all slots); each tries (1) a map in an idle map slot, (2) a
//               reduce in an idle reduce slot, (3) a map in an idle reduce slot, (4) a reduce in
//               an idle map slot; one launch, then the pools are re-ordered. Borrowing per
//               tracker and heartbeat is capped by floor(pBR / pBM x idle slots of the lender);
//               reduces borrow map slots only while D_M < N_M, and cluster-wide at most
//               N_M - D_M of them (without this guard, reduces waiting in their copy phase can
//               occupy every slot and deadlock the cluster).
//               If every pool fails only for locality, the slots stay idle until the next
//               heartbeat (the spec's reading A, default); locality_fallback = true is reading
//               B: the most deserving locality-blocked job gets one map one level further.
//   dynamicmr — DHSA (dhsa = "pi" by default, as the paper evaluates it; "pd"; or "none" = plain
//               HFS) with Slot PreScheduling on [Sagar & Moni 2015, §III]. SEPB is the speculation
//               engine's part (simulate option speculation = "sepb"): speculative attempts are
//               not launched here (see the SEPB hook).
//
// FIFO-based DynamicMR (option base = "fifo" of pi_dhsa and dynamicmr; the paper's Fig. 10)
// [Sagar & Moni 2015, Fig. 10; §III CHOICE]: Hadoop FIFO has no pools, so DHSA reduces to PI-DHSA's
// inter-phase borrowing. Each heartbeat runs Hadoop 1.2.1's JobQueueTaskScheduler exactly as
// `fifo` does (the shared HadoopJobQueue): jobs in queue order (priority, then submission; the
// workload has no priorities), per-tracker load-factor caps for maps and reduces, node- or
// rack-local maps first with at most one off-switch map per heartbeat, at most one reduce per
// heartbeat. Then the four cases of PI-DHSA decide cluster-wide whether idle slots of one phase
// are lent to the other (pBM / pBR caps as on HFS); the borrowed tasks obey the same
// per-heartbeat rules (they come from the same FIFO map pass, so none after an off-switch map;
// a reduce borrows a map slot only if the heartbeat launched no reduce yet). Slot PreScheduling
// uses FIFO's load-factor cap for A and E and the FIFO head job (the first with a pending map).
// The HFS-only parameters (locality_delay, assign_multiple, load_max_diff, pool_*, min_shares)
// have no effect there; PD-DHSA needs pools and is rejected with base = "fifo". With dhsa =
// "none" and prescheduling off, dynamicmr on the FIFO base is `fifo` decision for decision.
//
// Slot PreScheduling [Sagar & Moni 2015, §III] (option `prescheduling`): after the heartbeat's normal
// assignment, Case 1 — if the tracker has extra idle map slots E > 0 (slots HFS's load cap keeps
// idle) but no allowable idle map slot (A = 0), the head job in fair-share order launches its
// node-local pending maps in them, while E > 0. Case 2 (with DHSA) — if no map slot is idle but
// reduce slots are, the head job's node-local maps borrow up to floor(pBR x idle reduce slots).
// A = max(0, ceil(min(LF, 1) S_M) - U), LF = (pending + running maps) / N_M, U = used map
// slots; E = S_M - max(U, ceil(min(LF, 1) S_M)) (extra_slots = "intended", default) or the
// literal Definition 2, E = S_M - max(U, A) (extra_slots = "literal"). A PreScheduled launch is
// node-local, so it resets the job's delay-scheduling wait.
//
// Slot weights (Sagar & Moni 2015, §III, C2; options map_slot_weight w_M and reduce_slot_weight w_R, default
// 1 = plain slot swapping). The spec's reading: a node has S_M w_M + S_R w_R resource units, a map
// costs w_M and a reduce w_R, a reduce in borrowed map slots needs ceil(w_R / w_M) idle map slots
// and a map in borrowed reduce slots uses w_M units of the reduce pool. The rule only bites when a
// task borrows: in its own slot type a task costs exactly its slot, so the units change nothing
// there. A TaskTracker slot runs one task, so several tasks are never packed into one slot: a map
// in borrowed reduce slots holds ceil(w_M / w_R) of them (one whenever w_M <= w_R, the units it
// leaves in that slot stay unused), and a reduce in borrowed map slots holds ceil(w_R / w_M). Only
// the ratio w_R / w_M matters. The borrowing caps count lender slots: a tracker lends
// floor(p x idle slots) / k tasks and PI-DHSA's cluster-wide amount is
// min(shortfall, floor(p x unused lender slots) / k) tasks, k being the slots a borrowed task
// holds. Results of weighted runs carry the per-attempt column `slots` (slots held). Counters:
// dhsa_maps_in_reduce_slots / dhsa_reduces_in_map_slots (every launch into the other type's slot,
// PreScheduling's Case 2 included), prescheduled_maps (Case 1), prescheduled_maps_in_reduce_slots
// (Case 2), locality_fallback_maps (PD-DHSA reading B).
#include <algorithm>
#include <cmath>

#include "mr_common.h"

namespace schedlab {
namespace mr {
namespace {

enum class Dhsa { kNone, kPI, kPD };
constexpr double kMaxSlotWeight = 255;  // slots a borrowed attempt may hold (8 bits per attempt)

class DynamicMRScheduler : public Scheduler {
 public:
  // with nothing pending no scan (delay scheduling as fair's), no borrowing, nothing to preschedule
  bool quiet_without_pending() const override { return true; }
  DynamicMRScheduler(const Params& p, const std::string& name, Dhsa dhsa)
      : name_(name),
        dhsa_(p.has("dhsa") ? parse_dhsa(p.choice("dhsa")) : dhsa),
        delay_param_(p.number("locality_delay")),
        assign_multiple_(p.boolean("assign_multiple")),
        max_diff_(p.number("load_max_diff")),
        pbm_(p.number("borrow_map_fraction")),
        pbr_(p.number("borrow_reduce_fraction")),
        prescheduling_(p.boolean("prescheduling")),
        extra_literal_(p.choice("extra_slots") == "literal"),
        locality_fallback_(p.boolean("locality_fallback")),
        fifo_base_(p.choice("base") == "fifo"),
        pools_(name, p.text("pool_weights"), p.text("min_shares"), p.choice("pool_mode") == "fifo", false, "", "",
               p.choice("pool_tie_break") == "name") {
    const double w[2] = {p.number("map_slot_weight"), p.number("reduce_slot_weight")};
    weighted_ = w[kMap] != 1.0 || w[kReduce] != 1.0;
    // a borrowed task holds ceil(own weight / lender's weight) of the lender's slots, at least one;
    // the ranges (1 to kMaxSlotWeight each) keep that within the 8 bits an attempt records
    for (int s = 0; s < 2; ++s)
      slots_needed_[s] = std::max(1, int32_t(std::ceil(w[s] / w[1 - s] - 1e-9)));
    if (fifo_base_ && dhsa_ == Dhsa::kPD)
      throw std::invalid_argument(name + ": base='fifo' does not combine with PD-DHSA, which shares slots among pools and "
                                  "Hadoop FIFO has none; use PI-DHSA (pi_dhsa, or dynamicmr with dhsa='pi') on the FIFO base");
  }

  void init(Sim& sim) override {
    delay_.init(sim, delay_param_ >= 0 ? delay_param_ : std::min(15.0, 1.5 * sim.heartbeat_interval()));
    pools_.init(sim);
    if (fifo_base_) queue_.init(sim);
    const size_t n_jobs = sim.workload().n_jobs();
    job_reduce_demand_.assign(n_jobs, 0);
    reduce_demand_ = 0;
    for (int s = 0; s < 2; ++s) {
      job_order_[s].assign(size_t(pools_.n_pools()), KeyedOrder{});
      job_key_[s].assign(n_jobs, FairKey{});
      job_listed_[s].assign(n_jobs, 0);
    }
    if (dhsa_ != Dhsa::kNone || !fifo_base_) changes_ = sim.track_job_changes();
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    if (fifo_base_) queue_.add(sim, job);
    else pools_.add(sim, job);
  }
  void on_job_finished(Sim& sim, int32_t job) override {
    if (fifo_base_) queue_.remove(job);
    else pools_.remove(sim, job);
    refresh_job(sim, job);  // (it has ended: it leaves the orders and D_R)
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    delay_.on_heartbeat(sim);
    // faults only: borrowed reduces waiting for re-run maps may hold every map slot (mr_common.h)
    if (dhsa_ != Dhsa::kNone && kill_reduce_blocking_lost_maps(sim, node, kMap, false)) ++reduces_killed_for_lost_maps_;
    if (fifo_base_) {
      fifo_heartbeat(sim, node);
    } else if (dhsa_ == Dhsa::kPD) {
      pd_heartbeat(sim, node);
    } else {
      own_slots(sim, node);
      if (dhsa_ == Dhsa::kPI) pi_borrow(sim, node);
    }
    if (prescheduling_) preschedule(sim, node);
  }

  void finish(Sim& sim, SimResult& r) override {
    r.counters["dhsa_maps_in_reduce_slots"] = double(launched_borrowed_[kMap]);
    r.counters["dhsa_reduces_in_map_slots"] = double(launched_borrowed_[kReduce]);
    r.counters["dhsa_reduces_killed_for_lost_maps"] = double(reduces_killed_for_lost_maps_);
    r.counters["prescheduled_maps"] = double(prescheduled_);
    r.counters["prescheduled_maps_in_reduce_slots"] = double(prescheduled_borrowed_);
    r.counters["locality_fallback_maps"] = double(fallback_launches_);
    if (weighted_) {  // slots held per attempt, for utilization and slot checks
      auto& col = r.att_extra["slots"];
      col.resize(size_t(sim.n_attempts()));
      for (int64_t a = 0; a < sim.n_attempts(); ++a) col[size_t(a)] = sim.attempt(a).slots;
    }
  }

 private:
  static Dhsa parse_dhsa(const std::string& s) { return s == "pi" ? Dhsa::kPI : s == "pd" ? Dhsa::kPD : Dhsa::kNone; }

  bool runnable(const Sim& sim, int32_t j, int type) const {
    if (sim.job(j).pending[type] == 0) return false;
    return type == kMap || sim.reduces_allowed(j);
  }
  // The usable slots of `type` on the tracker: the base scheduler's load cap.
  // Tasks of stage s in slots of type s on node: what HFS's / FIFO's load cap limits. A task
  // borrowing the slot type does not count (else reduces in map slots could keep the maps that
  // their jobs wait for out of the free map slots).
  static int32_t own_running(const Sim& sim, int32_t node, int s) {
    int32_t n = 0;
    for (int64_t a : sim.attempts_on(node)) {
      const Attempt& at = sim.attempt(a);
      n += at.slot_type == s && sim.workload().task_stage[at.task] == s;
    }
    return n;
  }
  int32_t own_cap(const Sim& sim, int32_t node, int type) const {
    if (fifo_base_) return HadoopJobQueue::load_cap(sim, node, type);
    const double demand = double(sim.total_pending(type) + sim.total_running(type));
    return type == kMap ? hfs_load_cap(sim.map_capacity(node), demand, sim.total_map_slots(), max_diff_)
                        : hfs_load_cap(sim.reduce_capacity(node), demand, sim.total_reduce_slots(), max_diff_);
  }

  // Launches task t (of stage `type`) of job j on node in a slot of `slot_type` (in a borrowed
  // slot type it holds slots_needed_[type] of them).
  void launch(Sim& sim, int32_t node, int32_t j, int32_t t, int type, int slot_type) {
    const int64_t a = sim.launch(t, node, slot_type, false, slot_type == type ? 1 : slots_needed_[type]);
    // (the attempt's locality, as `fair` reads it: the engine knows it from the lookup that found t)
    if (type == kMap && !fifo_base_) delay_.launched(j, Locality(sim.attempt(a).locality));
    if (slot_type != type) {
      borrowed_[type].push_back(a);
      ++launched_borrowed_[type];
    }
  }

  // One task of stage `type` from the jobs of `pool` in fair order, into a `slot_type` slot.
  // SEPB hook [Sagar & Moni 2015, §III]: this is where a slot goes to a pending task; a speculative copy
  // would be considered only after every job checked here has no pending task of the type.
  bool try_pool(Sim& sim, int32_t node, int32_t pool, int type, int slot_type, int32_t* blocked_job = nullptr) {
    refresh(sim);  // (the try ends at a launch: the order does not change under the loop)
    const KeyedOrder& jobs = job_order_[type][size_t(pool)];
    for (auto c = jobs.begin(); !jobs.done(c); jobs.next(c)) {
      const int32_t j = jobs.at(c).id;
      if (type == kReduce) {
        const int32_t t = sim.find_reduce(j);
        if (t >= 0) { launch(sim, node, j, t, type, slot_type); return true; }
        continue;
      }
      const int32_t t = sim.find_map(j, node, delay_.allowed(j));
      if (t >= 0) { launch(sim, node, j, t, type, slot_type); return true; }
      delay_.skipped(j);
      if (blocked_job && *blocked_job < 0) *blocked_job = j;
    }
    return false;
  }
  // HFS: one slot of `slot_type` offered to the pools in fair order for tasks of `type`.
  bool assign_one(Sim& sim, int32_t node, int type, int slot_type) {
    auto run = [&](int32_t j) { return runnable(sim, j, type); };
    // (try_pool reads the kept job orders only: order_pools' vector stays as returned)
    for (auto& [key, p] : pools_.order_pools(sim, 1 << type, run))
      if (try_pool(sim, node, p, type, slot_type)) return true;
    return false;
  }

  // The Fair Scheduler's own-type loop (the same as `fair`): caps from CapBasedLoadManager,
  // the type with fewer running tasks on the tracker first, assignmultiple.
  void own_slots(Sim& sim, int32_t node) {
    const int32_t cap[2] = {own_cap(sim, node, kMap), own_cap(sim, node, kReduce)};
    int32_t assigned[2] = {0, 0};
    bool rejected[2] = {false, false};
    for (;;) {
      bool can[2];
      for (int s = 0; s < 2; ++s)
        can[s] = !rejected[s] && own_running(sim, node, s) < cap[s] && sim.free_slots(node, s) > 0 &&
                 (assign_multiple_ || assigned[s] == 0);
      if (!can[0] && !can[1]) break;
      int type = can[0] ? kMap : kReduce;
      if (can[0] && can[1]) type = own_running(sim, node, kMap) <= own_running(sim, node, kReduce) ? kMap : kReduce;
      // (assignmultiple off: one task per heartbeat in all, as Hadoop 1.2.1's FairScheduler)
      if (!assign_multiple_ && assigned[0] + assigned[1] > 0) break;
      if (assign_one(sim, node, type, type)) assigned[type]++;
      else rejected[type] = true;
    }
  }

  // D_M and D_R: the tasks running and pending of each phase, a job's reduces counted pending only
  // past slowstart. D_R is kept per job from the engine's change log (every change of a job's
  // counts or of its slowstart is logged), not summed over the active jobs at every heartbeat.
  void demands(Sim& sim, double d[2]) {
    d[kMap] = double(sim.total_pending(kMap) + sim.total_running(kMap));
    refresh(sim);
    d[kReduce] = double(reduce_demand_);
  }
  static int64_t reduce_demand_of(const Sim& sim, int32_t j) {
    const JobState& js = sim.job(j);
    if (!js.submitted || !std::isnan(js.finish)) return 0;
    return int64_t(js.running[kReduce]) + (sim.reduces_allowed(j) ? int64_t(js.pending[kReduce]) : 0);
  }
  void set_reduce_demand(int32_t j, int64_t v) {
    reduce_demand_ += v - job_reduce_demand_[size_t(j)];
    job_reduce_demand_[size_t(j)] = v;
  }
  // The jobs logged as changed since the last call: their share of D_R (with DHSA) and, on the
  // Fair base, their places in their pool's job orders.
  void refresh(Sim& sim) {
    sim.drain_changed_jobs(changes_, [&](int32_t j) { refresh_job(sim, j); });
  }
  void refresh_job(const Sim& sim, int32_t j) {
    if (dhsa_ != Dhsa::kNone) set_reduce_demand(j, reduce_demand_of(sim, j));
    if (fifo_base_) return;
    const JobState& js = sim.job(j);
    const bool active = js.submitted && std::isnan(js.finish);
    const int32_t p = pools_.pool_of(j);
    for (int s = 0; s < 2; ++s)
      set_listed(job_order_[s][size_t(p)], job_key_[s][size_t(j)], job_listed_[s][size_t(j)], active && runnable(sim, j, s),
                 [&] { return pools_.job_key(sim, j, s); });
  }
  int64_t borrowed_now(const Sim& sim, int type) {
    auto& v = borrowed_[type];
    v.erase(std::remove_if(v.begin(), v.end(), [&](int64_t a) { return sim.attempt(a).status != kRunning; }), v.end());
    return int64_t(v.size());
  }

  // PI-DHSA's inter-phase step: the four cases, decided cluster-wide. Returns the phase that
  // borrows (-1 in cases 1 and 4) and sets *max_tasks to how many of its tasks may now go into
  // the other phase's idle slots on this tracker: min(shortfall, floor(p x cluster-wide unused
  // slots of the lender) / k) less the tasks already borrowed, and floor(p x idle lender slots
  // here) / k, where k = slots_needed_[borrowing phase] (1 with equal slot weights).
  int pi_case(Sim& sim, int32_t node, int64_t* max_tasks) {
    double d[2];
    demands(sim, d);
    const double n[2] = {double(sim.total_map_slots()), double(sim.total_reduce_slots())};
    int type;  // the phase that borrows
    if (d[kMap] > n[kMap] && d[kReduce] < n[kReduce]) type = kMap;            // case 2
    else if (d[kMap] < n[kMap] && d[kReduce] > n[kReduce]) type = kReduce;    // case 3
    else return -1;                                                           // cases 1 and 4
    const int lender = 1 - type;
    const double frac = lender == kReduce ? pbr_ : pbm_;
    const int64_t k = slots_needed_[type];
    const int64_t global = std::min<int64_t>(int64_t(d[type] - n[type]), int64_t(std::floor(frac * (n[lender] - d[lender]) + 1e-9)) / k);
    const int64_t room = global - borrowed_now(sim, type);
    const int64_t local = int64_t(std::floor(frac * sim.free_slots(node, lender) + 1e-9)) / k;
    *max_tasks = std::min(room, local);
    return type;
  }

  // PI-DHSA on HFS: the lent slots offered to the borrowing phase's pools in fair order.
  void pi_borrow(Sim& sim, int32_t node) {
    int64_t n_tasks = 0;
    const int type = pi_case(sim, node, &n_tasks);
    if (type < 0) return;
    const int lender = 1 - type;
    int32_t assigned = 0;
    while (n_tasks > 0 && sim.free_slots(node, lender) >= slots_needed_[type] && (assign_multiple_ || assigned == 0)) {
      if (!assign_one(sim, node, type, lender)) break;
      --n_tasks;
      ++assigned;
    }
  }

  // The FIFO base: Hadoop's JobQueueTaskScheduler on the tracker's own slots (load-factor caps,
  // local-first maps, at most one off-switch map and one reduce per heartbeat), then PI-DHSA's
  // borrowing under the same per-heartbeat rules: borrowed maps come from the same map pass
  // (none after an off-switch map), a borrowed reduce only if no reduce was launched yet.
  void fifo_heartbeat(Sim& sim, int32_t node) {
    const auto& wl = sim.workload();
    auto any_job = [](int32_t) { return true; };
    auto launch_in = [&](int slot_type) {
      return [&, slot_type](int32_t t) { launch(sim, node, wl.task_job[t], t, wl.task_stage[t], slot_type); };
    };
    bool off_switch = false;
    queue_.assign_maps(sim, node, std::min(own_cap(sim, node, kMap) - own_running(sim, node, kMap), sim.free_slots(node, kMap)), false, off_switch, any_job, launch_in(kMap));
    bool reduce_launched = false;
    if (own_cap(sim, node, kReduce) - own_running(sim, node, kReduce) > 0 && sim.free_slots(node, kReduce) > 0) {
      const int32_t t = queue_.next_reduce(sim, any_job);
      if (t >= 0) {
        launch_in(kReduce)(t);
        reduce_launched = true;
      }
    }
    if (dhsa_ != Dhsa::kPI) return;
    int64_t n_tasks = 0;
    const int type = pi_case(sim, node, &n_tasks);
    if (type == kMap && n_tasks > 0) {
      const int32_t n = int32_t(std::min<int64_t>(n_tasks, sim.free_slots(node, kReduce) / slots_needed_[kMap]));
      queue_.assign_maps(sim, node, n, false, off_switch, any_job, launch_in(kReduce));
    } else if (type == kReduce && n_tasks > 0 && !reduce_launched && sim.free_slots(node, kMap) >= slots_needed_[kReduce]) {
      const int32_t t = queue_.next_reduce(sim, any_job);
      if (t >= 0) launch_in(kMap)(t);
    }
  }

  // PD-DHSA: pools in fair order over all their slots, four attempts each.
  void pd_heartbeat(Sim& sim, int32_t node) {
    const int32_t cap[2] = {own_cap(sim, node, kMap), own_cap(sim, node, kReduce)};
    int64_t lend[2] = {int64_t(std::floor(pbm_ * sim.free_slots(node, kMap) + 1e-9)),
                       int64_t(std::floor(pbr_ * sim.free_slots(node, kReduce) + 1e-9))};
    // Reduces borrow map slots only while the maps' demand leaves map slots unused (D_M < N_M,
    // as in PI-DHSA's case 3), and at most the slots that neither that demand nor reduces already
    // borrowing claim: otherwise reduces waiting in their copy phase for their jobs' last maps
    // can take every slot of the cluster and no map can run again.
    double d[2];
    demands(sim, d);
    const int64_t spare = int64_t(sim.total_map_slots()) - int64_t(d[kMap]) - borrowed_now(sim, kReduce) * slots_needed_[kReduce];
    lend[kMap] = std::min(lend[kMap], std::max<int64_t>(0, spare));
    auto any_runnable = [&](int32_t j) { return runnable(sim, j, kMap) || runnable(sim, j, kReduce); };
    bool fell_back = false;
    for (int32_t round = 0;; ++round) {
      if (!assign_multiple_ && round > 0) break;
      const bool own[2] = {own_running(sim, node, kMap) < cap[kMap] && sim.free_slots(node, kMap) > 0,
                           own_running(sim, node, kReduce) < cap[kReduce] && sim.free_slots(node, kReduce) > 0};
      const int32_t k_map = slots_needed_[kMap], k_reduce = slots_needed_[kReduce];
      const bool borrow[2] = {lend[kReduce] >= k_map && sim.free_slots(node, kReduce) >= k_map,       // a map in reduce slots
                              lend[kMap] >= k_reduce && sim.free_slots(node, kMap) >= k_reduce};  // a reduce in map slots
      if (!own[0] && !own[1] && !borrow[0] && !borrow[1]) break;
      bool launched = false;
      int32_t blocked = -1;
      for (auto& [key, p] : pools_.order_pools(sim, 3, any_runnable)) {
        if (own[kMap] && try_pool(sim, node, p, kMap, kMap, &blocked)) { launched = true; break; }             // (1)
        if (own[kReduce] && try_pool(sim, node, p, kReduce, kReduce)) { launched = true; break; }              // (2)
        if (borrow[kMap] && try_pool(sim, node, p, kMap, kReduce, &blocked)) { lend[kReduce] -= k_map; launched = true; break; }  // (3)
        if (borrow[kReduce] && try_pool(sim, node, p, kReduce, kMap)) { lend[kMap] -= k_reduce; launched = true; break; }  // (4)
      }
      if (launched) continue;
      // every pool failed; reading B lets the most deserving locality-blocked job go one level on
      if (locality_fallback_ && !fell_back && blocked >= 0) {
        fell_back = true;
        const int slot = own[kMap] ? kMap : (borrow[kMap] ? kReduce : -1);
        const Locality lvl = delay_.allowed(blocked) == kNodeLocal ? kRackLocal : kRemote;
        const int32_t t = slot >= 0 ? sim.find_map(blocked, node, lvl) : -1;
        if (t >= 0) {
          launch(sim, node, blocked, t, kMap, slot);
          if (slot != kMap) lend[kReduce] -= k_map;
          ++fallback_launches_;
          continue;
        }
      }
      break;
    }
  }

  // The head job for maps in the base's order (fair-share, or the FIFO queue), or -1.
  int32_t head_map_job(Sim& sim) {
    if (fifo_base_) return queue_.head_map_job(sim);
    auto run = [&](int32_t j) { return runnable(sim, j, kMap); };
    const auto& pools = pools_.order_pools(sim, 1, run);
    if (pools.empty()) return -1;
    refresh(sim);
    const KeyedOrder& jobs = job_order_[kMap][size_t(pools.front().second)];
    return jobs.size() == 0 ? -1 : jobs.at(jobs.begin()).id;
  }

  void preschedule(Sim& sim, int32_t node) {
    const int32_t s_m = sim.map_capacity(node);
    const int32_t used = sim.running_on(node, kMap);
    const int32_t usable = own_cap(sim, node, kMap);
    const int32_t allowable = std::max(0, usable - used);
    int32_t extra = s_m - std::max(used, extra_literal_ ? allowable : usable);
    if (extra > 0 && allowable == 0) {  // Case 1: slots the load cap keeps idle
      const int32_t j = head_map_job(sim);
      while (j >= 0 && extra > 0 && sim.free_slots(node, kMap) > 0) {
        const int32_t t = sim.find_map(j, node, kNodeLocal);
        if (t < 0) break;
        launch(sim, node, j, t, kMap, kMap);
        ++prescheduled_;
        --extra;
      }
    }
    if (dhsa_ != Dhsa::kNone && sim.free_slots(node, kMap) == 0 && sim.free_slots(node, kReduce) > 0) {  // Case 2
      const int32_t j = head_map_job(sim);
      int64_t lend = int64_t(std::floor(pbr_ * sim.free_slots(node, kReduce) + 1e-9));
      const int32_t k = slots_needed_[kMap];
      while (j >= 0 && lend >= k && sim.free_slots(node, kReduce) >= k) {
        const int32_t t = sim.find_map(j, node, kNodeLocal);
        if (t < 0) break;
        launch(sim, node, j, t, kMap, kReduce);
        ++prescheduled_borrowed_;
        lend -= k;
      }
    }
  }

  std::string name_;
  Dhsa dhsa_;
  double delay_param_;
  bool assign_multiple_;
  double max_diff_, pbm_, pbr_;
  bool prescheduling_, extra_literal_, locality_fallback_;
  bool fifo_base_;
  DelayScheduling delay_;
  FairPools pools_;
  HadoopJobQueue queue_;  // the FIFO base's job queue
  int32_t slots_needed_[2] = {1, 1};  // lender slots a borrowed map / reduce holds (slot weights)
  bool weighted_ = false;
  std::vector<int64_t> borrowed_[2];  // running attempts in a slot of the other type, by task stage
  // The runnable jobs of each pool in fair (or FIFO) order, per stage, on the Fair base: Hadoop
  // sorts them at every assignment; here the jobs logged as changed are re-keyed before a pool
  // is tried (the keys are the same functions of the jobs' counts: the same orders).
  std::vector<KeyedOrder> job_order_[2];  // per pool
  std::vector<FairKey> job_key_[2];
  std::vector<uint8_t> job_listed_[2];
  int changes_ = -1;                      // the engine's change log for refresh()
  std::vector<int64_t> job_reduce_demand_;  // per job: its share of D_R when last logged
  int64_t reduce_demand_ = 0;               // D_R: their sum
  int64_t launched_borrowed_[2] = {0, 0};
  int64_t reduces_killed_for_lost_maps_ = 0;
  int64_t prescheduled_ = 0, prescheduled_borrowed_ = 0, fallback_launches_ = 0;
};

std::vector<ParamSpec> dynamicmr_params(bool prescheduling_default, bool with_dhsa_choice) {
  std::vector<ParamSpec> v = {
      ParamSpec::number("locality_delay", -1, -1, 1e6,
                        "HFS delay scheduling wait in seconds (node->rack after 1x, ->any after 2x); -1 = min(15 s, 1.5 x heartbeat); 0 = off"),
      ParamSpec::boolean("assign_multiple", true, "assign several tasks per heartbeat (mapred.fairscheduler.assignmultiple)"),
      ParamSpec::number("load_max_diff", 0, 0, 1, "CapBasedLoadManager max diff (mapred.fairscheduler.load.max.diff)"),
      ParamSpec::choice("pool_mode", "fair", {"fair", "fifo"}, "how jobs inside a pool share its slots"),
      ParamSpec::text("pool_weights", "", "pool weights as 'pool:weight,...' (pool = user id); default 1"),
      ParamSpec::text("min_shares", "", "pool minimum shares in slots as 'pool:slots,...'; default 0"),
      ParamSpec::choice("pool_tie_break", "name", {"name", "oldest_job"},
                        "pools tied in fairness: by pool id as Hadoop 1.2.1 (PoolSchedulable start time 0: by name), "
                        "or the one with the oldest job first"),
      ParamSpec::number("borrow_map_fraction", 1.0, 0, 1,
                        "pBM (percentageOfBorrowedMapSlots): fraction of a tracker's idle map slots that reduces may borrow per heartbeat (default not given in the paper; 1.0)"),
      ParamSpec::number("borrow_reduce_fraction", 1.0, 0, 1,
                        "pBR (percentageOfBorrowedReduceSlots): fraction of a tracker's idle reduce slots that maps may borrow per heartbeat (default not given in the paper; 1.0)"),
      ParamSpec::boolean("prescheduling", prescheduling_default,
                         "Slot PreScheduling: node-local maps of the head job in the slots HFS's load cap leaves idle (and, with DHSA, in idle reduce slots)"),
      ParamSpec::choice("extra_slots", "intended", {"intended", "literal"},
                        "PreScheduling's extra idle map slots: 'intended' E = S_M - max(U, ceil(min(LF,1) S_M)) (default); "
                        "'literal' Definition 2, E = S_M - max(U, A)"),
      ParamSpec::boolean("locality_fallback", false,
                         "PD-DHSA when every pool fails only for locality: false = leave the slots idle until the next heartbeat "
                         "(reading A, default); true = the most deserving blocked job gets one map one locality level further (reading B)"),
  };
  v.push_back(ParamSpec::choice("base", "fair", {"fair", "fifo"},
                                "the Hadoop scheduler DynamicMR runs on: 'fair' = the Fair Scheduler (default); 'fifo' = "
                                "JobQueueTaskScheduler (FIFO order, load-factor caps, one off-switch map and one reduce per "
                                "heartbeat) with PI-DHSA's borrowing on top (paper Fig. 10; not with PD-DHSA, which needs pools)"));
  // Only the ratio of the two weights matters, and a borrowed task holds at most 255 of the
  // lender's slots (an attempt records them in 8 bits): each weight lies between 1 (the lighter
  // slot's size) and 255, which gives every ratio the engine honours, 1/255 to 255.
  v.push_back(ParamSpec::number("map_slot_weight", 1.0, 1, kMaxSlotWeight,
                                "w_M, a map slot's resource size in units of the lighter slot type (C2; at least 1, at most 255): a map "
                                "borrowing reduce slots holds ceil(w_M / w_R) of them (at least one); only the ratio to "
                                "reduce_slot_weight matters"));
  v.push_back(ParamSpec::number("reduce_slot_weight", 1.0, 1, kMaxSlotWeight,
                                "w_R, a reduce slot's resource size in units of the lighter slot type (C2; at least 1, at most 255): a "
                                "reduce borrowing map slots holds ceil(w_R / w_M) of them, e.g. 2 with w_R = 2 w_M; default "
                                "1 = plain slot swapping"));
  if (with_dhsa_choice)
    v.push_back(ParamSpec::choice("dhsa", "pi", {"pi", "pd", "none"},
                                  "slot allocation: 'pi' = PI-DHSA (default; the paper evaluates DynamicMR with it), 'pd' = PD-DHSA, "
                                  "'none' = typed slots as in HFS (PreScheduling alone)"));
  return v;
}

}  // namespace

void register_dynamicmr_schedulers() {
  register_scheduler({"pi_dhsa", "", "DynamicMR PI-DHSA on the Hadoop Fair Scheduler [Sagar & Moni 2015, §III]",
                      "pool-independent dynamic slot allocation: HFS per phase, then idle slots of one phase lent to the other",
                      dynamicmr_params(false, false)},
                     [](const Params& p) { return std::make_unique<DynamicMRScheduler>(p, "pi_dhsa", Dhsa::kPI); });
  register_scheduler({"pd_dhsa", "", "DynamicMR PD-DHSA on the Hadoop Fair Scheduler [Sagar & Moni 2015, §III]",
                      "pool-dependent dynamic slot allocation: pools share all slots fairly; map/reduce slots lent within and across pools",
                      dynamicmr_params(false, false)},
                     [](const Params& p) { return std::make_unique<DynamicMRScheduler>(p, "pd_dhsa", Dhsa::kPD); });
  register_scheduler({"dynamicmr", "", "DynamicMR = DHSA + Slot PreScheduling (+ SEPB in the speculation engine) [Sagar & Moni 2015, §III]",
                      "PI-DHSA (or PD / none) with Slot PreScheduling on the Hadoop Fair Scheduler",
                      dynamicmr_params(true, true)},
                     [](const Params& p) { return std::make_unique<DynamicMRScheduler>(p, "dynamicmr", Dhsa::kPI); });
}

}  // namespace mr
}  // namespace schedlab
