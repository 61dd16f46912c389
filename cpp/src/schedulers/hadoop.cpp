// Hadoop 1's own task schedulers on typed map/reduce slots, heartbeat-driven:
//   fifo     — JobQueueTaskScheduler with its load-factor cap, local-first map assignment, at
//              most one off-switch map and one reduce per heartbeat [Sagar & Moni 2015, Fig. 10;
//              Lim et al. 2015, §4.2.2; Wang 2017, §2.4]
//   edf      — the same code with the job queue sorted by deadline (MRCP paper's EDF-Scheduler,
//              Lim et al. 2015, §4.2: slowstart, load-factor cap, one reduce per heartbeat)
//   edf_ideal — job-level EDF list scheduling with reduce gating, the sensitivity variant of
//              Lim et al. 2015, §4.2.2 [I]: every free slot to the earliest-deadline job with a pending
//              task, no load-factor cap, no off-switch limit, reduces only once all their job's
//              maps are done, as many reduces per heartbeat as there are free slots
//   fair     — Fair Scheduler: pools with weights and min shares, FairShareComparator, separate
//              map and reduce domains, CapBasedLoadManager, assignmultiple, delay scheduling
//              [Sagar & Moni 2015, §II; Wang 2017, §2.4]; and, as Hadoop 1.2.1's contrib/fairscheduler
//              (FairScheduler, PoolManager, PoolSchedulable, JobSchedulable, SchedulingAlgorithms)
//              does: fair shares (computeFairShares), per-type min shares, maxMaps/maxReduces,
//              maxRunningJobs per pool and per user (updateRunnability), pools by user or by a
//              job property, priorities as weight factors, sizebasedweight, per-pool FIFO/fair
//              modes, node and rack locality delays, assignmultiple caps, and min-share and
//              fair-share preemption with their timeouts (update, tasksToPreempt, preemptTasks)
//   capacity — queues with a capacity and a maximum capacity, FIFO inside a queue
//              [Wang 2017, §2.4, FRESH experiments §3.4.2.2]; and, as Hadoop 1.2.1's
//              contrib/capacity-scheduler (CapacityTaskScheduler, CapacitySchedulerQueue,
//              MemoryMatcher) does: capacities in whole slots, the stable queue order, maximum
//              capacities, user limits (minimum-user-limit-percent, user-limit-factor),
//              supports-priority, high-memory jobs taking several slots and reserving trackers
// Each takes the admission-control limit k of FRESH's experiments [Wang 2017, §2.4; §3.3.2.2–3.3.2.3].
// fifo and fair also take strict_locality: launch node-local maps only, never a non-local one —
// the FIFO-S and HFS-S baselines of the EAS paper (S-pull reading) [Zhao et al. 2013, §5].
#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "mr_common.h"

namespace schedlab {
namespace mr {
namespace {

ParamSpec strict_param() {
  return ParamSpec::boolean("strict_locality", false,
                            "launch node-local maps only, never a non-local one (the EAS paper's FIFO-S / HFS-S "
                            "baselines, S-pull reading: scan jobs in order, take the first node-local map); "
                            "false = Hadoop's best-effort locality (FIFO-BE / HFS-BE)");
}

ParamSpec admission_param() {
  return ParamSpec::integer("k", 0, 0, 1000000,
                            "admission control: at most k jobs in map phase and k in reduce phase (0 = no limit)");
}

// ------------------------------------------------------------------------------------------
// FIFO / EDF: Hadoop 1.2.1 JobQueueTaskScheduler.assignTasks; `ideal` turns it into EDF list
// scheduling (edf_ideal).
class FifoScheduler : public Scheduler {
 public:
  // with nothing pending it finds nothing to launch; it keeps no per-heartbeat state
  bool quiet_without_pending() const override { return true; }
  FifoScheduler(const Params& p, bool by_deadline, bool ideal = false)
      : by_deadline_(by_deadline),
        ideal_(ideal),
        admission_(p.integer("k")),
        load_cap_(!ideal && p.boolean("load_factor_cap")),
        strict_(p.has("strict_locality") && p.boolean("strict_locality")),
        queue_(by_deadline) {}

  void init(Sim& sim) override {
    admission_.init(sim);
    queue_.init(sim, ideal_);
    if (strict_) check_strict_locality(sim, by_deadline_ ? "edf" : "fifo");
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    queue_.add(sim, job);
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override { admission_.on_stage_finished(sim, job, stage); }
  void on_job_finished(Sim&, int32_t job) override { queue_.remove(job); }
  void on_priority_changed(Sim& sim, int32_t job) override { queue_.reorder(sim, job); }

  // Per job its place in the job queue (`order`, -1 when not queued); per tracker the slots of
  // each type it may fill now (`map_cap`, `reduce_cap`: the load-factor cap, or its slots).
  void report(Sim& sim, SchedulerReport& r) override {
    auto& order = r.job["order"];
    order.assign(sim.workload().n_jobs(), -1.0);
    for (size_t i = 0; i < queue_.jobs().size(); ++i) order[size_t(queue_.jobs()[i])] = double(i);
    auto& mc = r.node["map_cap"];
    auto& rc = r.node["reduce_cap"];
    mc.assign(size_t(sim.n_nodes()), 0.0);
    rc.assign(size_t(sim.n_nodes()), 0.0);
    for (int32_t n = 0; n < sim.n_nodes(); ++n) {
      mc[size_t(n)] = load_cap_ && !ideal_ ? HadoopJobQueue::load_cap(sim, n, kMap) : sim.map_capacity(n);
      rc[size_t(n)] = load_cap_ && !ideal_ ? HadoopJobQueue::load_cap(sim, n, kReduce) : sim.reduce_capacity(n);
    }
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    if (ideal_) return list_schedule(sim, node);
    const int32_t map_cap = load_cap_ ? HadoopJobQueue::load_cap(sim, node, kMap) : sim.map_capacity(node);
    const int32_t reduce_cap = load_cap_ ? HadoopJobQueue::load_cap(sim, node, kReduce) : sim.reduce_capacity(node);
    // maps: local first, restart the job scan after each; one off-switch map ends the round
    bool off_switch = false;
    queue_.assign_maps(sim, node, map_cap - sim.running_on(node, kMap), strict_, off_switch,
                       [&](int32_t j) { return admission_.may_run(j, kMap); }, [&](int32_t t) { sim.launch(t, node); });
    // reduces: at most one per heartbeat
    if (reduce_cap - sim.running_on(node, kReduce) > 0) {
      const int32_t t = queue_.next_reduce(sim, [&](int32_t j) { return admission_.may_run(j, kReduce); });
      if (t >= 0) sim.launch(t, node);
    }
  }

 private:
  // edf_ideal: every free slot goes to the first job in queue order with a runnable task (a
  // local map if the job has one, else any); reduces wait for all their job's maps. The scans
  // pass over the queue's jobs with pending maps, or with all maps done: the jobs a scan of the
  // whole queue would stop at, in the same order (it skips the others without a lookup).
  void list_schedule(Sim& sim, int32_t node) {
    const auto& wl = sim.workload();
    while (sim.free_slots(node, kMap) > 0) {
      int32_t t = -1;
      for (int32_t j : queue_.eligible_jobs(sim, kMap)) {
        if (!admission_.may_run(j, kMap) || sim.job(j).pending[kMap] == 0) continue;
        t = sim.find_map(j, node, kRackLocal);
        if (t < 0) t = sim.find_map(j, node, kRemote);
        if (t >= 0) break;
      }
      if (t < 0) break;
      sim.launch(t, node);
    }
    while (sim.free_slots(node, kReduce) > 0) {
      int32_t t = -1;
      for (int32_t j : queue_.maps_done_jobs(sim)) {
        if (!admission_.may_run(j, kReduce) || sim.job(j).done[kMap] < wl.n_maps[j]) continue;
        t = sim.find_reduce(j);
        if (t >= 0) break;
      }
      if (t < 0) break;
      sim.launch(t, node);
    }
  }

  bool by_deadline_;
  bool ideal_;
  AdmissionControl admission_;
  bool load_cap_;
  bool strict_;
  HadoopJobQueue queue_;
};

// ------------------------------------------------------------------------------------------
// Fair Scheduler (Hadoop 1.x contrib/fairscheduler).
// A schedulable's demand, min share and weight, and the fair share computed from them.
struct Share {
  double demand, min_share, weight, share;
};

class FairScheduler : public Scheduler {
 public:
  // with nothing pending: no map scan, so delay scheduling marks no skip (the first such heartbeat
  // credits the waits of the jobs skipped before it); the orders are re-keyed from the state at the next
  // heartbeat alike; preemption and updates run on timers
  bool quiet_without_pending() const override { return true; }
  explicit FairScheduler(const Params& p)
      : admission_(p.integer("k")),
        delay_param_(p.number("locality_delay")),
        assign_multiple_(p.boolean("assign_multiple")),
        max_diff_(p.number("load_max_diff")),
        fifo_in_pool_(p.choice("pool_mode") == "fifo"),
        pools_("fair", p.text("pool_weights"), p.text("min_shares"), fifo_in_pool_, p.choice("pool_by") == "queue",
               p.text("min_map_shares"), p.text("min_reduce_shares")),
        strict_(p.boolean("strict_locality")),
        rack_delay_param_(p.number("locality_delay_rack")),
        size_based_(p.boolean("size_based_weight")),
        pool_tie_by_name_(p.choice("pool_tie_break") == "name"),
        pool_max_jobs_text_(parse_key_values("fair: pool_max_jobs", p.text("pool_max_jobs"))),
        user_max_jobs_text_(parse_key_values("fair: user_max_jobs", p.text("user_max_jobs"))),
        pool_max_jobs_default_(p.integer("pool_max_jobs_default")),
        user_max_jobs_default_(p.integer("user_max_jobs_default")),
        pool_modes_text_(p.text("pool_modes")),
        pool_weights_text_(parse_key_values("fair: pool_weights", p.text("pool_weights"))),
        min_text_{parse_key_values("fair: min_shares", p.text("min_shares")),
                  parse_key_values("fair: min_map_shares", p.text("min_map_shares")),
                  parse_key_values("fair: min_reduce_shares", p.text("min_reduce_shares"))},
        pool_max_text_{parse_key_values("fair: pool_max_maps", p.text("pool_max_maps")),
                       parse_key_values("fair: pool_max_reduces", p.text("pool_max_reduces"))},
        assign_cap_{p.integer("assign_multiple_maps"), p.integer("assign_multiple_reduces")},
        preemption_(p.boolean("preemption")),
        only_log_(p.boolean("preemption_only_log")),
        min_timeouts_text_(parse_key_values("fair: min_share_timeouts", p.text("min_share_timeouts"))),
        default_min_timeout_(p.number("default_min_share_timeout")),
        fair_timeout_(p.number("fair_share_timeout")),
        update_interval_(p.number("update_interval")),
        preemption_interval_(p.number("preemption_interval")) {}

  void init(Sim& sim) override {
    admission_.init(sim);
    const double d = delay_param_ >= 0 ? delay_param_ : std::min(15.0, 1.5 * sim.heartbeat_interval());
    delay_.init(sim, d, rack_delay_param_ >= 0 ? rack_delay_param_ : d);
    // (pools named in a setting but without jobs exist too: the harness reports them)
    int32_t configured = 0;
    for (const std::string* text : {&pool_modes_text_}) {
      for (size_t pos = 0; pos < text->size();) {
        size_t end = text->find(',', pos);
        if (end == std::string::npos) end = text->size();
        const std::string item = text->substr(pos, end - pos);
        pos = end + 1;
        try { configured = std::max(configured, std::stoi(item.substr(0, item.find(':'))) + 1); } catch (const std::exception&) {}
      }
    }
    for (const auto* m : {&pool_max_jobs_text_, &pool_max_text_[0], &pool_max_text_[1], &min_timeouts_text_, &pool_weights_text_,
                          &min_text_[0], &min_text_[1], &min_text_[2]})
      for (const auto& [k, v] : *m) {
        try { configured = std::max(configured, std::stoi(k) + 1); } catch (const std::exception&) {}
      }
    pools_.init(sim, configured);
    init_job_limits(sim);
    init_pool_settings(sim);
    const int32_t n_pools = pools_.n_pools();
    const size_t n_jobs = sim.workload().n_jobs();
    for (int s = 0; s < 2; ++s) {
      pool_order_[s] = KeyedOrder{};
      pool_key_[s].assign(n_pools, FairKey{});
      pool_listed_[s].assign(n_pools, 0);
      pool_demand_[s].assign(n_pools, 0);
      pool_runnable_[s].assign(n_pools, 0);
      pool_running_[s].assign(n_pools, 0);
      job_running_[s].assign(n_jobs, 0);
      job_order_[s].assign(n_pools, KeyedOrder{});
      job_key_[s].assign(n_jobs, FairKey{});
      job_demand_[s].assign(n_jobs, 0);
      job_listed_[s].assign(n_jobs, 0);
    }
    pool_dirty_.assign(n_pools, 0);
    changes_ = sim.track_job_changes();
    scan_first_ = std::all_of(pool_max_[kMap].begin(), pool_max_[kMap].end(), [](double m) { return std::isinf(m); });
    scan_failed_.assign(size_t(sim.n_nodes()), 1);
    if (strict_) check_strict_locality(sim, "fair");
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    pools_.add(sim, job);
    mark_pool(pools_.pool_of(job));  // its oldest job (the pool's start time) may have changed
    if (admission_.enabled()) refresh_all_ = true;  // admission may have let another job in
    if (limits_) update_runnability(sim);
    if (periodic_) update(sim);  // (Hadoop: jobAdded calls update)
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override {
    admission_.on_stage_finished(sim, job, stage);
    if (admission_.enabled()) refresh_all_ = true;
  }
  void on_job_finished(Sim& sim, int32_t job) override {
    pools_.remove(sim, job);
    mark_pool(pools_.pool_of(job));
    if (limits_) update_runnability(sim);
    if (periodic_) update(sim);
  }
  // (a priority is a weight factor in fair pools and the first key in FIFO pools: every job's
  // place is worked out again at the next heartbeat)
  void on_priority_changed(Sim& sim, int32_t job) override {
    refresh_all_ = true;
    mark_pool(pools_.pool_of(job));
    if (periodic_) update(sim);
  }

  // Fair shares as Hadoop 1.2.1's FairScheduler.update computes them (SchedulingAlgorithms.
  // computeFairShares over the pools with the cluster's slots, then each pool's share over its
  // jobs, or 0 for every job of a FIFO pool), from the state now, with the demands, running
  // counts, min shares and weights they use; each job's runnability (maxRunningJobs) and
  // delay-scheduling state; with preemption timeouts, the pools' starvation times and the tasks
  // they may preempt.
  void report(Sim& sim, SchedulerReport& r) override {
    const int32_t n_pools = pools_.n_pools();
    const size_t n_jobs = sim.workload().n_jobs();
    auto& runnable = r.job["runnable"];
    auto& waited = r.job["time_waited_for_local_map"];
    auto& level = r.job["last_map_locality_level"];
    auto& skipped = r.job["skipped_at_last_heartbeat"];
    runnable.assign(n_jobs, 0.0); waited.assign(n_jobs, 0.0); level.assign(n_jobs, 0.0); skipped.assign(n_jobs, 0.0);
    for (size_t j = 0; j < n_jobs; ++j) {
      runnable[j] = job_allowed(int32_t(j)) ? 1.0 : 0.0;
      waited[j] = double(delay_.waited(int32_t(j))) * 1e-9;
      level[j] = double(std::min<int>(delay_.level(int32_t(j)), kRemote));
      skipped[j] = delay_.was_skipped(int32_t(j)) ? 1.0 : 0.0;
    }
    r.pool["weight"].assign(size_t(n_pools), 1.0);
    r.pool["fifo"].assign(size_t(n_pools), 0.0);
    for (int s = 0; s < 2; ++s) {
      const std::string t = s == kMap ? "map_" : "reduce_";
      const std::vector<Share> pools = pool_shares(sim, s);
      for (const char* name : {"fair_share", "min_share", "demand", "running", "max_slots"}) r.pool[t + name].assign(size_t(n_pools), 0.0);
      for (const char* name : {"fair_share", "demand", "running", "weight"}) r.job[t + name].assign(n_jobs, 0.0);
      for (int32_t p = 0; p < n_pools; ++p) {
        const size_t pp = size_t(p);
        r.pool[t + "fair_share"][pp] = pools[pp].share;
        r.pool[t + "min_share"][pp] = pools[pp].min_share;
        r.pool[t + "demand"][pp] = pools[pp].demand;
        r.pool[t + "max_slots"][pp] = pool_max_[s][pp];
        r.pool[t + "running"][pp] = pool_running(sim, s, p);
        r.pool["weight"][pp] = pools_.weight(p);
        r.pool["fifo"][pp] = pool_fifo_[pp];
        std::vector<Share> jobs;
        for (int32_t j : pools_.jobs(p)) jobs.push_back({job_demand(sim, j, s), 0, job_weight(sim, j, s), 0});
        if (!pool_fifo_[pp]) fair_shares(jobs, pools[pp].share);
        size_t k = 0;
        for (int32_t j : pools_.jobs(p)) {
          r.job[t + "fair_share"][size_t(j)] = pool_fifo_[pp] ? 0.0 : jobs[k].share;
          r.job[t + "demand"][size_t(j)] = jobs[k].demand;
          r.job[t + "weight"][size_t(j)] = jobs[k].weight;
          r.job[t + "running"][size_t(j)] = sim.job(j).running_attempts[s];
          ++k;
        }
      }
      if (periodic_) {
        auto& ttp = r.pool[t + "tasks_to_preempt"];
        auto& lm = r.pool[t + "last_time_at_min_share"];
        auto& lf = r.pool[t + "last_time_at_half_fair_share"];
        ttp.assign(size_t(n_pools), 0.0); lm.assign(size_t(n_pools), 0.0); lf.assign(size_t(n_pools), 0.0);
        for (int32_t p = 0; p < n_pools; ++p) {
          ttp[size_t(p)] = tasks_to_preempt(sim, s, p);
          lm[size_t(p)] = last_at_min_[s][size_t(p)];
          lf[size_t(p)] = last_at_half_fair_[s][size_t(p)];
        }
      }
    }
    r.scalar["preemptions"] = double(preempted_);
    r.scalar["fair_share_timeout"] = fair_timeout_;
    r.pool["max_running_jobs"].assign(pool_max_jobs_.begin(), pool_max_jobs_.end());
    r.pool["min_share_timeout"] = min_timeout_;
    r.user["max_running_jobs"].assign(user_max_jobs_.begin(), user_max_jobs_.end());
  }

  // The update thread's actions, run now: "update" (shares and starvation times) and "preempt"
  // (the preemption check, whatever the time since the last).
  bool act(Sim& sim, const std::string& action) override {
    if (action == "update") { update(sim); return true; }
    if (action == "preempt") { preempt(sim); return true; }
    if (action.rfind("set_pool:", 0) == 0) { set_pool(sim, action); return true; }
    return false;
  }

  // "set_pool:JOB:POOL": the job moves to another pool (Hadoop's PoolManager.setPool), taking its
  // demand and running tasks along.
  void set_pool(Sim& sim, const std::string& action) {
    const size_t a = action.find(':'), b = action.find(':', a + 1);
    int32_t j = -1, p = -1;
    try {
      j = std::stoi(action.substr(a + 1, b - a - 1));
      p = std::stoi(action.substr(b + 1));
    } catch (const std::exception&) {
      throw std::invalid_argument("fair: set_pool expects 'set_pool:JOB:POOL', not '" + action + "'");
    }
    if (j < 0 || size_t(j) >= sim.workload().n_jobs() || !sim.job(j).submitted || !std::isnan(sim.job(j).finish))
      throw std::invalid_argument("fair: set_pool: job " + std::to_string(j) + " is not a running job");
    if (p < 0 || p >= pools_.n_pools()) throw std::invalid_argument("fair: set_pool: no pool " + std::to_string(p));
    const int32_t old = pools_.pool_of(j);
    if (old == p) return;
    for (int s = 0; s < 2; ++s) {  // out of the old pool's order and counts (the next refresh adds it to the new)
      if (job_listed_[s][j]) {
        job_order_[s][old].erase(job_key_[s][j]);
        job_listed_[s][j] = 0;
      }
      pool_demand_[s][old] -= job_demand_[s][j];
      pool_runnable_[s][old] -= int32_t(job_demand_[s][j] > 0);
      pool_running_[s][old] -= job_running_[s][j];
      job_demand_[s][j] = 0;
      job_running_[s][j] = 0;
    }
    pools_.move(j, p);
    mark_pool(old);
    mark_pool(p);
    refresh_all_ = true;
    if (limits_) update_runnability(sim);
    if (periodic_) update(sim);
  }

  // Hadoop's update thread: an update every update_interval, a preemption check every
  // preemption_interval (only with preemption or a preemption timeout).
  void on_timer(Sim& sim, uint64_t) override {
    update(sim);
    if (preemption_ && sim.now() - last_preempt_check_ >= preemption_interval_ - 1e-9) {
      last_preempt_check_ = sim.now();
      preempt(sim);
    }
    schedule_update(sim);
  }

  // Delay scheduling's cost: slots offered to the map scan, scans answered without visiting the
  // jobs (map_scan_finds_nothing), and jobs visited in the others.
  void finish(Sim&, SimResult& r) override {
    r.counters["fair_map_scans"] = double(map_scans_);
    r.counters["fair_map_scans_without_visits"] = double(map_scans_without_visits_);
    r.counters["fair_map_job_visits"] = double(map_job_visits_);
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    delay_.on_heartbeat(sim);
    refresh_orders(sim);
    // CapBasedLoadManager's cap of each type, from the demand at the heartbeat's start (computed
    // when first needed: a node without a free slot of a type never needs it)
    int32_t cap[2] = {-1, -1};
    auto cap_of = [&](int s) {
      if (cap[s] < 0)
        cap[s] = load_cap(s, s == kMap ? sim.map_capacity(node) : sim.reduce_capacity(node),
                          double(sim.total_pending(s) + sim.total_running(s)),
                          s == kMap ? sim.total_map_slots() : sim.total_reduce_slots());
      return cap[s];
    };
    int32_t assigned[2] = {0, 0};
    bool rejected[2] = {false, false};
    for (;;) {
      bool can[2];
      // (with no pending task of a type anywhere, assign_one would visit no job: skip it)
      for (int s = 0; s < 2; ++s)
        can[s] = !rejected[s] && sim.total_pending(s) > 0 && sim.free_slots(node, s) > 0 &&
                 (assign_multiple_ || assigned[s] == 0) && (assign_cap_[s] < 0 || assigned[s] < assign_cap_[s]) &&
                 sim.running_on(node, s) < cap_of(s);
      if (!can[0] && !can[1]) break;
      int type = can[0] ? kMap : kReduce;
      if (can[0] && can[1]) type = sim.running_on(node, kMap) <= sim.running_on(node, kReduce) ? kMap : kReduce;
      // (assignmultiple off: one task per heartbeat in all, Hadoop 1.2.1 FairScheduler.assignTasks)
      if (!assign_multiple_ && assigned[0] + assigned[1] > 0) break;
      if (type == kMap) ++map_scans_;
      // (the shortcut's confirmation is itself a lookup: tried only where the node's last map
      // scan launched nothing, the scans likely to launch nothing again)
      if (type == kMap && (!scan_first_ || scan_failed_[size_t(node)]) && skipped_every_job(sim, node)) {
        ++map_scans_without_visits_;
        rejected[kMap] = true;
        continue;
      }
      const bool launched = assign_one(sim, node, type);
      if (type == kMap) scan_failed_[size_t(node)] = !launched;
      if (launched) assigned[type]++;
      else rejected[type] = true;
    }
  }

 private:
  int32_t load_cap(int type, int32_t slots, double demand, int32_t total) {
    if (total <= 0) return 0;
    // the last answer again while the demand stays (it changes only as tasks end or jobs come)
    LoadCap& last = last_cap_[type];
    if (demand == last.demand && total == last.total && slots == last.slots) return last.cap;
    const double cap = slots * std::min(1.0, max_diff_ + demand / total) - 1e-9;
    const int32_t below = int32_t(cap);  // std::ceil(cap), without a library call
    last = LoadCap{demand, total, slots, below + int32_t(double(below) < cap)};
    return last.cap;
  }
  struct LoadCap {
    double demand = -1;
    int32_t total = -1, slots = -1, cap = 0;
  };
  LoadCap last_cap_[2];
  // skipped_every_job() is tried before a map scan only where the node's last map scan launched
  // nothing (scan_failed_), so that the common scan, which launches, does not pay for its
  // confirmation first; its answer is the scan's either way. Only while no pool has a maxMaps:
  // a scan passes the jobs of a pool at its cap without marking them skipped.
  bool scan_first_ = false;
  std::vector<uint8_t> scan_failed_;
  // A map scan (assign_one for maps) that would visit every listed job and launch nothing, done
  // without its per-job lookups: when no job has a fresh map on this node, every pending map is
  // found through the place indexes, and no listed job may go beyond node-local yet (or
  // rack-local where it has a map on this rack), every listed job is marked skipped as the scan
  // would, at once, and true returned. The common heartbeat of a lightly loaded cluster.
  // (The engine's bits are hints where set: confirmed here, so that a stale one, left by a launch
  // on another replica's node, does not cost a visit of every listed job.)
  bool skipped_every_job(Sim& sim, int32_t node) {
    if (!sim.maps_found_by_place() || periodic_ || sim.confirm_fresh_map_on(node)) return false;
    const int32_t rack = sim.cluster().rack[node];
    if (!strict_ && delay_.listed_may_go_beyond_node([&](int32_t j) { return sim.confirm_fresh_map_on_rack(j, rack); }))
      return false;
    delay_.skip_listed();
    return true;
  }
  bool runnable(const Sim& sim, int32_t j, int type) const {
    if (!admission_.may_run(j, type) || sim.job(j).pending[type] == 0 || !job_allowed(j)) return false;
    return type == kMap || sim.reduces_allowed(j);
  }

  // Pools in fair order and, per pool, its runnable jobs in fair (or FIFO) order, one pair of
  // orders per slot type. Hadoop re-sorts both at every assignment from the state at the
  // heartbeat; here they persist across heartbeats and, at each heartbeat, only the jobs the
  // engine logged as changed (and their pools) are re-keyed -- the same orders at O(changes)
  // instead of O(active jobs). As in Hadoop, a pool's demand and runnability are those of the
  // heartbeat's start; its running count and its jobs' keys follow this heartbeat's launches.
  void mark_pool(int32_t p) {
    if (!pool_dirty_[p]) { pool_dirty_[p] = 1; dirty_pools_.push_back(p); }
  }
  void refresh_job(const Sim& sim, int32_t j) {
    const int32_t p = pools_.pool_of(j);
    const bool active = sim.job(j).submitted && std::isnan(sim.job(j).finish);
    for (int s = 0; s < 2; ++s) {
      const int32_t running = sim.job(j).running_attempts[s];
      pool_running_[s][p] += running - job_running_[s][j];
      job_running_[s][j] = running;
      const bool run = active && runnable(sim, j, s);
      const int64_t demand = run ? sim.job(j).pending[s] + sim.job(j).running[s] : 0;
      int64_t& before = job_demand_[s][j];
      if (demand != before) {
        pool_demand_[s][p] += demand - before;
        pool_runnable_[s][p] += int32_t(demand > 0) - int32_t(before > 0);  // runnable <=> demand > 0
        before = demand;
      }
      set_listed(job_order_[s][p], job_key_[s][j], job_listed_[s][j], run, [&] { return job_key(sim, j, s); });
      if (s == kMap) delay_.list(j, run);  // delay scheduling follows who the map scans visit
    }
    mark_pool(p);
  }
  void refresh_orders(Sim& sim) {
    if (refresh_all_) {
      refresh_all_ = false;
      for (int32_t p = 0; p < pools_.n_pools(); ++p)
        for (int32_t j : pools_.jobs(p)) refresh_job(sim, j);
    }
    sim.drain_changed_jobs(changes_, [&](int32_t j) { refresh_job(sim, j); });
    for (int32_t p : dirty_pools_) {
      pool_dirty_[p] = 0;
      for (int s = 0; s < 2; ++s)
        set_listed(pool_order_[s], pool_key_[s][p], pool_listed_[s][p], pool_runnable_[s][p] > 0,
                   [&] { return pool_key(sim, p, s); });
    }
    dirty_pools_.clear();
  }
  FairKey pool_key(const Sim& sim, int32_t p, int type) const {
    // ties: the pool's oldest job first, or (Hadoop 1.2.1: PoolSchedulable's start time is 0)
    // the pool's name (the lower id)
    const double start = pool_tie_by_name_ ? 0.0 : sim.workload().submit_time[pools_.jobs(p).front()];
    return FairKey::make(pool_running_[type][p], double(pool_demand_[type][p]), pools_.min_share(p, type),
                         pools_.weight(p), start, p);
  }
  // Hadoop 1.2.1 FairScheduler.getJobWeight: 1, or log2(1 + demand) with sizebasedweight, times
  // the job's weight column (the harness puts the priority factor there).
  double job_weight(const Sim& sim, int32_t j, int type) const {
    if (!job_allowed(j)) return 1.0;
    static constexpr double kPriorityFactor[5] = {4.0, 2.0, 1.0, 0.5, 0.25};  // FairScheduler.getPriorityFactor
    const double w = sim.workload().weight[j] * kPriorityFactor[sim.workload().priority[j]];
    if (!size_based_) return w;
    const JobState& js = sim.job(j);
    return std::log1p(double(js.pending[type] + js.running[type])) / std::log(2.0) * w;
  }
  FairKey job_key(const Sim& sim, int32_t j, int type) const {
    const auto& wl = sim.workload();
    // FIFO pools: Hadoop's FifoComparator (priority, then start time, then job)
    if (pool_fifo_[size_t(pools_.pool_of(j))]) return FairKey{double(wl.priority[j]), wl.submit_time[j], j, false};
    const JobState& js = sim.job(j);
    return FairKey::make(js.running_attempts[type], js.pending[type] + js.running[type], 0, job_weight(sim, j, type),
                         wl.submit_time[j], j);
  }

  // ---- per-pool settings: scheduling mode, maxMaps / maxReduces, preemption timeouts ----
  void init_pool_settings(Sim& sim) {
    const int32_t n = pools_.n_pools();
    pool_fifo_.assign(size_t(n), fifo_in_pool_ ? 1 : 0);
    auto trim = [](std::string x) {
      x.erase(0, x.find_first_not_of(" \t"));
      x.erase(x.find_last_not_of(" \t") + 1);
      return x;
    };
    const std::string& text = pool_modes_text_;
    for (size_t pos = 0; pos < text.size();) {  // "pool:fifo,pool:fair"
      size_t end = text.find(',', pos);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(pos, end - pos);
      pos = end + 1;
      if (trim(item).empty()) continue;
      const size_t colon = item.find(':');
      if (colon == std::string::npos) throw std::invalid_argument("fair: pool_modes item '" + item + "' is not pool:fifo or pool:fair");
      const std::string key = trim(item.substr(0, colon)), mode = trim(item.substr(colon + 1));
      if (mode != "fifo" && mode != "fair")
        throw std::invalid_argument("fair: pool_modes: the mode of pool " + key + " must be fifo or fair, not '" + mode + "'");
      int idx = -1;
      try {
        idx = std::stoi(key);
      } catch (const std::exception&) {
        throw std::invalid_argument("fair: pool_modes: '" + key + "' is not a pool id");
      }
      if (idx >= 0 && idx < n) pool_fifo_[size_t(idx)] = mode == "fifo";
    }
    for (int s = 0; s < 2; ++s) {
      pool_max_[s].assign(size_t(n), std::numeric_limits<double>::infinity());
      for (auto& [k, v] : pool_max_text_[s]) {
        const int idx = std::stoi(k);
        const std::string what = std::string("fair: ") + (s ? "pool_max_reduces" : "pool_max_maps") + " of pool " + k;
        // (Hadoop's maxMaps / maxReduces are whole numbers of slots)
        if (!(v >= 0) || v != std::floor(v)) throw std::invalid_argument(what + " must be a whole number >= 0, not " + std::to_string(v));
        if (idx >= 0 && idx < n) pool_max_[s][size_t(idx)] = v;
      }
    }
    // a pool held to 0 slots of a type whose jobs have tasks of that type would never finish
    // them: refused here rather than found as a stall a simulated day later
    const auto& wl = sim.workload();
    for (size_t j = 0; j < wl.n_jobs(); ++j) {
      const int32_t p = pools_.pool_of(int32_t(j));
      const int64_t tasks[2] = {wl.n_maps[j], wl.n_reduces(int32_t(j))};
      for (int s = 0; s < 2; ++s)
        if (tasks[s] > 0 && pool_max_[s][size_t(p)] == 0)
          throw std::invalid_argument(std::string("fair: ") + (s ? "pool_max_reduces" : "pool_max_maps") + " of pool " +
                                      std::to_string(p) + " is 0, but job " + std::to_string(j) + " of that pool has " +
                                      (s ? "reduces" : "maps") + ": they could never run");
    }
    min_timeout_.assign(size_t(n), default_min_timeout_);
    for (auto& [k, v] : min_timeouts_text_) {
      const int idx = std::stoi(k);
      if (!(v >= 0)) throw std::invalid_argument("fair: min_share_timeouts of pool " + k + " must be >= 0");
      if (idx >= 0 && idx < n) min_timeout_[size_t(idx)] = v;
    }
    bool timeouts = std::isfinite(fair_timeout_);
    for (double x : min_timeout_) timeouts |= std::isfinite(x);
    periodic_ = preemption_ || timeouts;
    for (int s = 0; s < 2; ++s) {
      last_at_min_[s].assign(size_t(n), sim.now());
      last_at_half_fair_[s].assign(size_t(n), sim.now());
      stats_[s].clear();
    }
    last_preempt_check_ = sim.now();
    if (periodic_) schedule_update(sim);
  }
  // The next update tick, k x update_interval, from integer microseconds (ticks then fall on
  // exactly the instants that times given in milliseconds name).
  void schedule_update(Sim& sim) {
    const int64_t us = std::max<int64_t>(1, std::llround(update_interval_ * 1e6));
    const int64_t now_us = std::llround(sim.now() * 1e6);
    sim.set_timer(double((now_us / us + 1) * us) / 1e6, 1);
  }
  // A job's demand as Hadoop's JobSchedulable.updateDemand counts it: 0 unless it is runnable
  // (and, for reduces, past slowstart); else its pending tasks and running attempts.
  double job_demand(const Sim& sim, int32_t j, int type) const {
    const JobState& js = sim.job(j);
    if (!js.submitted || !std::isnan(js.finish) || !job_allowed(j) || !admission_.may_run(j, type)) return 0;
    if (type == kReduce && !sim.reduces_allowed(j)) return 0;
    return double(js.pending[type] + js.running_attempts[type]);
  }
  // The pools' demands (capped by maxMaps / maxReduces), min shares, weights and fair shares of
  // one task type, from the state now.
  std::vector<Share> pool_shares(const Sim& sim, int type) const {
    std::vector<Share> v(static_cast<size_t>(pools_.n_pools()), Share{});
    for (int32_t p = 0; p < pools_.n_pools(); ++p) {
      double demand = 0;
      for (int32_t j : pools_.jobs(p)) demand += job_demand(sim, j, type);
      v[size_t(p)] = {std::min(demand, pool_max_[type][size_t(p)]), pools_.min_share(p, type), pools_.weight(p), 0};
    }
    fair_shares(v, type == kMap ? sim.total_map_slots() : sim.total_reduce_slots());
    return v;
  }
  double pool_running(const Sim& sim, int type, int32_t p) const {
    double n = 0;
    for (int32_t j : pools_.jobs(p)) n += sim.job(j).running_attempts[type];
    return n;
  }
  // Hadoop 1.2.1 FairScheduler.update's preemption bookkeeping (updatePreemptionVariables): a
  // pool not starved for its min share (running < min(min share, demand)) or for half its fair
  // share (running < floor(min(fair share / 2, demand))) is marked as at it now.
  void update(Sim& sim) {
    for (int s = 0; s < 2; ++s) {
      stats_[s] = pool_shares(sim, s);
      for (int32_t p = 0; p < pools_.n_pools(); ++p) {
        const Share& x = stats_[s][size_t(p)];
        const double running = pool_running(sim, s, p);
        if (!(running < std::min(x.min_share, x.demand))) last_at_min_[s][size_t(p)] = sim.now();
        if (!(running < std::floor(std::min(x.share / 2, x.demand)))) last_at_half_fair_[s][size_t(p)] = sim.now();
      }
    }
  }
  // FairScheduler.tasksToPreempt: past its min-share timeout a pool is owed up to
  // min(min share, demand) running tasks, past the fair-share timeout up to floor(min(fair
  // share, demand)); the larger, less what it runs (shares and demands as of the last update).
  double tasks_to_preempt(const Sim& sim, int type, int32_t p) const {
    if (stats_[type].size() != size_t(pools_.n_pools())) return 0;
    const Share& x = stats_[type][size_t(p)];
    const double running = pool_running(sim, type, p), now = sim.now();
    double due_min = 0, due_fair = 0;
    if (now - last_at_min_[type][size_t(p)] > min_timeout_[size_t(p)] + 1e-9)
      due_min = std::max(0.0, std::min(x.min_share, x.demand) - running);
    if (now - last_at_half_fair_[type][size_t(p)] > fair_timeout_ + 1e-9)
      due_fair = std::max(0.0, std::floor(std::min(x.share, x.demand)) - running);
    return std::max(due_min, due_fair);
  }
  // Hadoop's delay scheduling waives the wait of a pool starved past a preemption timeout
  // (FairScheduler.getAllowedLocalityLevel).
  bool starving_for_locality(const Sim& sim, int32_t p) const {
    return sim.now() - last_at_min_[kMap][size_t(p)] > min_timeout_[size_t(p)] + 1e-9 ||
           sim.now() - last_at_half_fair_[kMap][size_t(p)] > fair_timeout_ + 1e-9;
  }
  // FairScheduler.preemptTasksIfNecessary / preemptTasks: per task type, the tasks the pools are
  // owed; the running attempts of pools above their fair share, newest first, are killed while
  // their pool stays above its fair share.
  void preempt(Sim& sim) {
    if (!preemption_ || stats_[0].size() != size_t(pools_.n_pools())) return;
    const auto& wl = sim.workload();
    for (int s = 0; s < 2; ++s) {
      double owed = 0;
      for (int32_t p = 0; p < pools_.n_pools(); ++p) owed += tasks_to_preempt(sim, s, p);
      if (owed <= 0) continue;
      std::vector<std::pair<double, int64_t>> victims;  // (start, attempt)
      std::vector<double> left(static_cast<size_t>(pools_.n_pools()), 0.0);
      for (int32_t p = 0; p < pools_.n_pools(); ++p) {
        left[size_t(p)] = pool_running(sim, s, p);
        if (!(left[size_t(p)] > stats_[s][size_t(p)].share)) continue;
        for (int32_t j : pools_.jobs(p)) {
          const int64_t b = wl.task_begin[size_t(j)] + (s == kMap ? 0 : wl.n_maps[size_t(j)]);
          const int64_t e = s == kMap ? wl.task_begin[size_t(j)] + wl.n_maps[size_t(j)] : wl.task_begin[size_t(j) + 1];
          for (int64_t t = b; t < e; ++t) {
            std::vector<int64_t> of_task;  // its running attempts, oldest first
            for (int64_t a = sim.last_attempt(int32_t(t)); a >= 0; a = sim.attempt(a).prev_same_task)
              if (sim.attempt(a).status == kRunning) of_task.push_back(a);
            for (auto it = of_task.rbegin(); it != of_task.rend(); ++it) victims.push_back({sim.attempt(*it).start, *it});
          }
        }
      }
      std::stable_sort(victims.begin(), victims.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (const auto& [start, a] : victims) {
        if (owed <= 0) break;
        const int32_t p = pools_.pool_of(sim.attempt(a).job);
        if (!(left[size_t(p)] > stats_[s][size_t(p)].share)) continue;
        if (!only_log_) sim.kill(a);
        ++preempted_;
        owed -= 1;
        left[size_t(p)] -= 1;
      }
    }
  }

  // ---- maxRunningJobs (Hadoop 1.2.1 FairScheduler.updateRunnability) ----
  // Jobs in submission order are runnable while their user has fewer than its limit and their
  // pool fewer than its limit of runnable jobs before them. Off (every job runnable) unless a
  // limit is set.
  bool job_allowed(int32_t j) const { return !limits_ || job_allowed_[size_t(j)]; }
  void init_job_limits(const Sim& sim) {
    const auto& wl = sim.workload();
    int32_t n_users = 1;
    for (int32_t u : wl.user) n_users = std::max(n_users, u + 1);
    pool_max_jobs_.assign(size_t(pools_.n_pools()), pool_max_jobs_default_);
    user_max_jobs_.assign(size_t(n_users), user_max_jobs_default_);
    auto set = [&](std::vector<int64_t>& v, const std::map<std::string, double>& text, const char* what) {
      for (auto& [k, x] : text) {
        const int idx = std::stoi(k);
        if (!(x >= 0) || x != std::floor(x)) throw std::invalid_argument(std::string("fair: ") + what + " of " + k + " must be a whole number >= 0");
        if (idx >= 0 && idx < int(v.size())) v[size_t(idx)] = int64_t(x);
      }
    };
    set(pool_max_jobs_, pool_max_jobs_text_, "pool_max_jobs");
    set(user_max_jobs_, user_max_jobs_text_, "user_max_jobs");
    // a limit of 0 on a pool or user with jobs would never let them run: the run would stall
    for (size_t j = 0; j < wl.n_jobs(); ++j) {
      const int32_t p = pools_.pool_of(int32_t(j)), u = wl.user[j];
      if (pool_max_jobs_[size_t(p)] == 0 || user_max_jobs_[size_t(u)] == 0)
        throw std::invalid_argument(std::string("fair: ") + (pool_max_jobs_[size_t(p)] == 0 ? "pool_max_jobs of pool " +
                                    std::to_string(p) : "user_max_jobs of user " + std::to_string(u)) + " is 0, but job " +
                                    std::to_string(j) + " is there: it could never run; expected at least 1");
    }
    limits_ = false;
    for (int64_t m : pool_max_jobs_) limits_ |= m < kNoLimit;
    for (int64_t m : user_max_jobs_) limits_ |= m < kNoLimit;
    job_allowed_.assign(wl.n_jobs(), 0);
  }
  void update_runnability(const Sim& sim) {
    const auto& wl = sim.workload();
    std::vector<int32_t> jobs(sim.active_jobs().begin(), sim.active_jobs().end());
    std::stable_sort(jobs.begin(), jobs.end(), [&](int32_t a, int32_t b) {  // FifoJobComparator
      if (wl.priority[a] != wl.priority[b]) return wl.priority[a] < wl.priority[b];
      return wl.submit_time[a] != wl.submit_time[b] ? wl.submit_time[a] < wl.submit_time[b] : a < b;
    });
    std::vector<int64_t> per_pool(pool_max_jobs_.size(), 0), per_user(user_max_jobs_.size(), 0);
    bool changed = false;
    for (int32_t j : jobs) {
      const int32_t p = pools_.pool_of(j), u = wl.user[j];
      const bool ok = per_pool[size_t(p)] < pool_max_jobs_[size_t(p)] && per_user[size_t(u)] < user_max_jobs_[size_t(u)];
      if (ok) { per_pool[size_t(p)]++; per_user[size_t(u)]++; }
      changed |= job_allowed_[size_t(j)] != uint8_t(ok);
      job_allowed_[size_t(j)] = ok;
    }
    if (changed) refresh_all_ = true;
  }

  // Hadoop 1.2.1 SchedulingAlgorithms.computeFairShares: the weight-to-slots ratio R at which
  // sum(min(demand, max(min share, R x weight))) reaches min(total demand, slots), by doubling
  // then 25 bisection steps; each share is min(demand, max(min share, R x weight)).
  static void fair_shares(std::vector<Share>& v, double slots) {
    auto used = [&](double r) {
      double sum = 0;
      for (const Share& x : v) sum += std::min(x.demand, std::max(x.min_share, r * x.weight));
      return sum;
    };
    double total = 0;
    for (const Share& x : v) total += x.demand;
    const double cap = std::min(total, slots);
    double hi = 1.0;
    while (used(hi) < cap) hi *= 2.0;
    double lo = 0;
    for (int i = 0; i < 25; ++i) {
      const double mid = (lo + hi) / 2.0;
      if (used(mid) < cap) lo = mid;
      else hi = mid;
    }
    for (Share& x : v) x.share = std::min(x.demand, std::max(x.min_share, hi * x.weight));
  }

  // Offer one slot of `type` on `node` to pools in fair order; within a pool, jobs in fair (or
  // FIFO) order. Returns whether a task was launched.
  bool assign_one(Sim& sim, int32_t node, int type) {
    // (true for the whole scan once true: it turns false only as jobs arrive or tasks fail)
    const bool by_place = type == kMap && sim.maps_found_by_place();
    auto& pools = pool_order_[type];
    for (auto pi = pools.begin(); !pools.done(pi); pools.next(pi)) {
      const int32_t p = pools.at(pi).id;
      if (pool_running_[type][p] >= pool_max_[type][size_t(p)]) continue;  // maxMaps / maxReduces
      const bool starving = type == kMap && periodic_ && starving_for_locality(sim, p);
      auto& jobs = job_order_[type][p];
      for (auto ji = jobs.begin(); !jobs.done(ji); jobs.next(ji)) {
        const int32_t j = jobs.at(ji).id;
        int32_t t = -1;
        if (type == kReduce) {
          t = sim.find_reduce(j);
          if (t < 0) continue;
        } else {
          ++map_job_visits_;
          // the common visit: no map of the job here and the job may not go beyond node-local
          // yet (find_map's answer, without working out how far it may go)
          if (by_place && !starving && !sim.fresh_map_on_node(j, node) && (strict_ || delay_.node_local_only(j))) {
            delay_.skipped(j);
            continue;
          }
          t = sim.find_map(j, node, strict_ ? kNodeLocal : starving ? kRemote : delay_.allowed(j));
          if (t < 0) {
            delay_.skipped(j);
            continue;
          }
        }
        const bool logged = sim.job_logged(changes_, j);
        const int64_t a = sim.launch(t, node);
        pool_running_[type][p]++;  // (its count and the job's, as the next refresh would make them)
        job_running_[type][j]++;
        if (type == kMap) delay_.launched(j, Locality(sim.attempt(a).locality));
        // (the pool's demand and runnable count stay as at the heartbeat's start; the engine
        // logged this job, so they are brought up to date at the next heartbeat)
        if (runnable(sim, j, type)) {
          job_key_[type][j] = job_key(sim, j, type);
          jobs.rekey(ji, job_key_[type][j]);
          // still runnable, its demand the same: with its key and its pool's key (below) set
          // here, the next heartbeat's refresh of it would change nothing
          if (!logged) sim.unlog_last(changes_, j);
        } else {
          jobs.erase(job_key_[type][j]);
          job_listed_[type][j] = 0;
          if (type == kMap) delay_.list(j, false);
        }
        pool_key_[type][p] = pool_key(sim, p, type);
        pools.rekey(pi, pool_key_[type][p]);
        return true;
      }
    }
    return false;
  }
  AdmissionControl admission_;
  DelayScheduling delay_;
  double delay_param_;
  bool assign_multiple_;
  double max_diff_;
  bool fifo_in_pool_;
  FairPools pools_;  // weights, min shares and each pool's unfinished jobs in submission order
  // per slot type: pools in fair order, each pool's runnable jobs in order, and what each job
  // last contributed to its pool's demand and runnable count
  KeyedOrder pool_order_[2];
  std::vector<FairKey> pool_key_[2];
  std::vector<uint8_t> pool_listed_[2];
  std::vector<int64_t> pool_demand_[2];
  std::vector<int32_t> pool_runnable_[2];
  std::vector<KeyedOrder> job_order_[2];
  std::vector<FairKey> job_key_[2];
  std::vector<int64_t> job_demand_[2];
  std::vector<uint8_t> job_listed_[2];  // in its pool's order (runnable now, as far as launches tell)
  std::vector<uint8_t> pool_dirty_;
  std::vector<int32_t> dirty_pools_;
  bool refresh_all_ = false;
  int changes_ = -1;  // the engine's change log of this scheduler
  bool strict_;
  double rack_delay_param_;
  bool size_based_;
  bool pool_tie_by_name_;
  std::map<std::string, double> pool_max_jobs_text_, user_max_jobs_text_;
  static constexpr int64_t kNoLimit = 1000000000;
  int64_t pool_max_jobs_default_, user_max_jobs_default_;
  std::vector<int64_t> pool_max_jobs_, user_max_jobs_;
  bool limits_ = false;
  std::vector<uint8_t> job_allowed_;
  std::vector<int32_t> pool_running_[2];  // running attempts per pool, as of the last refresh and launches since
  std::vector<int32_t> job_running_[2];   // what each job last added to them
  std::string pool_modes_text_;
  std::map<std::string, double> pool_weights_text_, min_text_[3];  // (only to know which pools are configured)
  std::map<std::string, double> pool_max_text_[2];
  int64_t assign_cap_[2];
  bool preemption_, only_log_;
  std::map<std::string, double> min_timeouts_text_;
  double default_min_timeout_, fair_timeout_, update_interval_, preemption_interval_;
  std::vector<uint8_t> pool_fifo_;
  std::vector<double> pool_max_[2];
  std::vector<double> min_timeout_;
  bool periodic_ = false;  // preemption or a preemption timeout: the update thread runs
  std::vector<Share> stats_[2];  // the pools' demands and shares at the last update
  std::vector<double> last_at_min_[2], last_at_half_fair_[2];
  double last_preempt_check_ = 0;
  uint64_t preempted_ = 0;
  uint64_t map_scans_ = 0, map_scans_without_visits_ = 0, map_job_visits_ = 0;
};

// ------------------------------------------------------------------------------------------
// Capacity Scheduler, as Hadoop 1.2.1's contrib/capacity-scheduler (CapacityTaskScheduler,
// CapacitySchedulerQueue, MemoryMatcher) decides:
// - each queue's capacity and maximum capacity in slots, recomputed at every heartbeat from the
//   cluster's slots: (int)(percent x slots / 100) (CapacitySchedulerQueue.updateCapacities); a
//   maximum of 0 slots means no maximum;
// - the queues in order of occupied slots / capacity (a queue of capacity 0 counts as full), the
//   list sorted stably, so ties keep their previous order (TaskSchedulingMgr.sortQueues), before
//   every map assignment and before the heartbeat's one reduce;
// - inside a queue, jobs by start time (and by priority first where the queue supports
//   priorities); a job gets a task unless its queue would pass its maximum capacity or its user
//   the user limit (assignSlotsToJob): min(max(ceil(C / active users), ceil(minimum-user-limit-
//   percent x C / 100)), capacity x user-limit-factor), C the queue's capacity while it is under
//   it, else its occupied slots plus the task's; active users are those whose running jobs have
//   tasks of the type to schedule;
// - high-memory jobs (memory-based scheduling, on when the four cluster memory settings are): a
//   task of a job whose mapred.job.map.memory.mb exceeds the slot size takes ceil(memory / slot
//   size) slots; a tracker without enough free slots is reserved for such a job (while its
//   reserved trackers are fewer than its pending tasks, and the tracker could ever run it), and
//   serves it only, when it has the slots; reserved slots count as occupied by the job's queue and
//   user;
// - maps until the tracker is full or nothing fits (at most maximum-tasks-per-heartbeat tasks),
//   then at most one reduce.
// - job initialization at submission (default), or by Hadoop's JobInitializationPoller within its
//   limits (job_initialization="poller"), initialized jobs initializing for job_setup_seconds (their
//   setup task; 0: none) before they run; a job ended while waiting leaves the waiting list;
//   with the initializer, jobs past its submission limits are refused (init-accept-jobs-factor);
// - with memory-based scheduling, the JobTracker's refusal of a job asking more memory per task
//   than the cluster's maxima (JobTracker.checkMemoryRequirements);
// - the deprecated mapred.task.limit.maxvmem (task_limit_maxvmem, bytes) as both memory limits.
// Not modelled: the off-switch rules (a map is taken at its best locality, node, rack or any).
class CapacityScheduler : public Scheduler {
 public:
  // with nothing pending it launches nothing; queue usage is recomputed from the state when used
  bool quiet_without_pending() const override { return true; }
  explicit CapacityScheduler(const Params& p)
      : admission_(p.integer("k")),
        round_robin_queues_(p.integer("queues")),
        capacities_(parse_key_values("capacity: capacities", p.text("capacities"))),
        max_capacity_(p.number("max_capacity")),
        max_capacities_(parse_key_values("capacity: max_capacities", p.text("max_capacities"))),
        ul_min_(p.number("min_user_limit_percent")),
        ul_mins_(parse_key_values("capacity: min_user_limit_percents", p.text("min_user_limit_percents"))),
        ul_factor_(p.number("user_limit_factor")),
        ul_factors_(parse_key_values("capacity: user_limit_factors", p.text("user_limit_factors"))),
        accept_factor_(p.integer("init_accept_jobs_factor")),
        accept_factors_(parse_key_values("capacity: init_accept_jobs_factors", p.text("init_accept_jobs_factors"))),
        priorities_(p.boolean("supports_priority")),
        priorities_text_(parse_key_values("capacity: supports_priorities", p.text("supports_priorities"))),
        slot_mem_{p.number("map_memory_mb"), p.number("reduce_memory_mb")},
        max_mem_{p.number("max_map_memory_mb"), p.number("max_reduce_memory_mb")},
        task_limit_maxvmem_(p.number("task_limit_maxvmem")),
        max_per_heartbeat_(p.integer("max_tasks_per_heartbeat")),
        order_text_(parse_key_values("capacity: queue_order", p.text("queue_order"))),
        poller_(p.choice("job_initialization") == "poller"),
        poll_interval_(p.number("init_poll_interval")),
        setup_seconds_(p.number("job_setup_seconds")),
        max_system_jobs_(p.integer("max_system_jobs")),
        max_active_tasks_(p.integer("max_initialized_active_tasks")),
        max_active_tasks_per_user_(p.integer("max_initialized_active_tasks_per_user")) {
    // the deprecated mapred.task.limit.maxvmem (bytes), when given, sets both limits in MB
    // (CapacityTaskScheduler.initializeMemoryRelatedConf, Hadoop 1.2.1)
    if (task_limit_maxvmem_ >= 0) max_mem_[0] = max_mem_[1] = std::floor(task_limit_maxvmem_ / (1024.0 * 1024.0));
  }

  void init(Sim& sim) override {
    admission_.init(sim);
    const auto& wl = sim.workload();
    const size_t n_jobs = wl.n_jobs();
    queue_of_.resize(n_jobs);
    int32_t nq = 1;
    for (size_t j = 0; j < n_jobs; ++j) {
      queue_of_[j] = round_robin_queues_ > 0 ? int32_t(j % round_robin_queues_) : wl.queue[j];
      nq = std::max(nq, queue_of_[j] + 1);
    }
    if (round_robin_queues_ > 0) nq = int32_t(round_robin_queues_);
    for (const auto* m : {&capacities_, &max_capacities_, &ul_mins_, &ul_factors_, &priorities_text_, &order_text_, &accept_factors_})
      for (const auto& [k, v] : *m) {
        const std::string what = m == &capacities_ ? "capacities" : m == &max_capacities_ ? "max_capacities" : m == &ul_mins_ ? "min_user_limit_percents"
                                 : m == &ul_factors_ ? "user_limit_factors" : m == &priorities_text_ ? "supports_priorities"
                                 : m == &accept_factors_ ? "init_accept_jobs_factors" : "queue_order";
        const int q = parse_id_key("capacity: " + what, k);
        if (m == &capacities_ && round_robin_queues_ > 0 && q >= nq)
          throw std::invalid_argument("capacity: capacities names queue " + k + ", but there are " + std::to_string(nq) + " queues");
        nq = std::max(nq, q + 1);
      }
    Queue blank;
    blank.percent = float(100.0 / nq);
    blank.max_percent = max_capacity_ >= 1.0 ? -1.0f : float(max_capacity_ * 100.0);
    blank.ul_min = ul_min_;
    blank.ul_factor = ul_factor_;
    blank.priorities = priorities_;
    blank.accept_factor = accept_factor_;
    queues_.assign(size_t(nq), blank);
    if (!capacities_.empty()) {
      double sum = 0;
      for (Queue& q : queues_) q.percent = 0;
      for (auto& [k, v] : capacities_) {
        if (!(v > 0)) throw std::invalid_argument("capacity: capacity of queue " + k + " must be positive");
        queues_[size_t(std::stoi(k))].percent = float(v * 100.0);
        sum += v;
      }
      if (sum > 1.0 + 1e-9) throw std::invalid_argument("capacity: queue capacities add up to more than 1");
    }
    for (auto& [k, v] : max_capacities_) {
      if (!(v > 0 && v <= 1)) throw std::invalid_argument("capacity: maximum capacity of queue " + k + " must be in (0, 1]");
      queues_[size_t(std::stoi(k))].max_percent = v >= 1.0 ? -1.0f : float(v * 100.0);
    }
    for (auto& [k, v] : ul_mins_) {
      if (!(v > 0 && v <= 100)) throw std::invalid_argument("capacity: minimum user limit of queue " + k + " must be in (0, 100] percent");
      queues_[size_t(std::stoi(k))].ul_min = v;
    }
    for (auto& [k, v] : ul_factors_) {
      if (!(v > 0)) throw std::invalid_argument("capacity: user limit factor of queue " + k + " must be positive");
      queues_[size_t(std::stoi(k))].ul_factor = v;
    }
    for (auto& [k, v] : priorities_text_) queues_[size_t(std::stoi(k))].priorities = v != 0;
    for (auto& [k, v] : accept_factors_) {
      if (!(v >= 1 && v == std::floor(v))) throw std::invalid_argument("capacity: init-accept-jobs-factor of queue " + k + " must be a whole number >= 1");
      queues_[size_t(std::stoi(k))].accept_factor = int64_t(v);
    }
    for (size_t q = 0; q < queues_.size(); ++q) {
      // (CapacitySchedulerConf.getMaxCapacity: a maximum below the capacity is an error)
      if (queues_[q].max_percent >= 0 && queues_[q].max_percent < queues_[q].percent)
        throw std::invalid_argument("capacity: maximum capacity of queue " + std::to_string(q) + " is below its capacity");
    }
    for (size_t j = 0; j < n_jobs; ++j)
      if (!(queues_[size_t(queue_of_[j])].percent > 0))
        throw std::invalid_argument("capacity: queue " + std::to_string(queue_of_[j]) + " has jobs but no capacity");
    // the queues' initial order (Hadoop: its map of queues' order), ties kept from then on
    std::vector<std::pair<double, int32_t>> initial;
    for (int32_t q = 0; q < nq; ++q) {
      auto it = order_text_.find(std::to_string(q));
      initial.push_back({it == order_text_.end() ? 1e18 + q : it->second, q});
    }
    std::sort(initial.begin(), initial.end());
    for (int s = 0; s < 2; ++s) {
      order_[s].clear();
      for (auto& [key, q] : initial) order_[s].push_back(q);
      reserved_job_[s].assign(size_t(sim.n_nodes()), -1);
      job_reserved_[s].assign(n_jobs, 0);
    }
    // memory-based scheduling (MemoryMatcher.isSchedulingBasedOnMemEnabled) and slots per task
    // (JobConf.computeNumSlotsPerMap/Reduce)
    mem_enabled_ = slot_mem_[0] > 0 && slot_mem_[1] > 0 && max_mem_[0] > 0 && max_mem_[1] > 0;
    for (int s = 0; s < 2; ++s) {
      job_mem_[s].assign(n_jobs, 0.0);
      slots_per_[s].assign(n_jobs, 1);
    }
    in_init_set_.assign(n_jobs, 0);
    in_jobs_.assign(n_jobs, 0);
    for (int s = 0; s < 2; ++s) {
      contrib_[s].assign(n_jobs, Contribution{});
      ready_listed_[s].assign(n_jobs, 0);
      dirty_flag_[s].assign(n_jobs, 0);
      dirty_[s].clear();
      overlay_[s].clear();
    }
    changes_ = sim.track_job_changes();
    poll_armed_ = false;
    for (size_t j = 0; j < n_jobs; ++j) {
      const int64_t b = wl.task_begin[j], e = wl.task_begin[j + 1], m = b + wl.n_maps[j];
      if (b < m) job_mem_[kMap][j] = wl.memory[size_t(b)];
      if (m < e) job_mem_[kReduce][j] = wl.memory[size_t(m)];
      if (!mem_enabled_) continue;
      for (int s = 0; s < 2; ++s) {
        const double mem = job_mem_[s][j];
        if (mem > 0) slots_per_[s][j] = std::max<int32_t>(1, int32_t(std::ceil(float(mem) / float(slot_mem_[s]))));
      }
    }
    over_memory_limit_.clear();
    if (mem_enabled_ && !sim.options().driven) check_memory_requirements(sim);
    // a user limit (capacity x user-limit-factor, as job_may computes it) below the slots one task
    // needs would never let the job run: the run would stall, so it is refused here
    const int32_t total[2] = {sim.total_map_slots(), sim.total_reduce_slots()};
    for (size_t j = 0; j < n_jobs; ++j) {
      const Queue& q = queues_[size_t(queue_of_[j])];
      if (!std::isfinite(q.ul_factor)) continue;
      const int64_t b = wl.task_begin[j], e = wl.task_begin[j + 1], m = b + wl.n_maps[j];
      for (int s = 0; s < 2; ++s) {
        if (s == kMap ? b == m : m == e) continue;
        const int32_t req = slots_per_[s][j];
        const int32_t cap = std::max(int32_t(q.percent * float(total[s]) / 100.0f), req);
        if (int64_t(float(cap) * float(q.ul_factor)) >= req) continue;
        std::ostringstream o;
        o << "capacity: parameter 'user_limit_factor' (or 'user_limit_factors') = " << q.ul_factor << " lets a user of queue "
          << queue_of_[j] << " hold at most " << int64_t(float(cap) * float(q.ul_factor)) << " of its " << cap << " "
          << (s == kMap ? "map" : "reduce") << " slots, fewer than the " << req << " a task of job " << j
          << " needs: it could never run; raise it to at least " << double(req) / double(cap);
        throw std::invalid_argument(o.str());
      }
    }
  }
  // With memory-based scheduling, outside the conformance harness (whose fake JobTracker does not
  // check): Hadoop 1.2.1's JobTracker.submitJob refuses a job whose map or reduce asks more memory
  // than mapred.cluster.max.map/reduce.memory.mb ("Exceeds the cluster's max-memory-limit."), so
  // it ends at submission, failed. A task of an accepted job asking more slots than any node has
  // would hold its reservations forever and the run would stall a simulated day later: refused here.
  void check_memory_requirements(Sim& sim) {
    const auto& wl = sim.workload();
    const size_t n_jobs = wl.n_jobs();
    int32_t largest[2] = {0, 0};  // the most slots of a type on one node
    for (int32_t n = 0; n < sim.n_nodes(); ++n) {
      largest[kMap] = std::max(largest[kMap], sim.map_capacity(n));
      largest[kReduce] = std::max(largest[kReduce], sim.reduce_capacity(n));
    }
    over_memory_limit_.assign(n_jobs, 0);
    for (size_t j = 0; j < n_jobs; ++j) {
      const int64_t b = wl.task_begin[j], e = wl.task_begin[j + 1], m = b + wl.n_maps[j];
      const bool has[2] = {b < m, m < e};
      for (int s = 0; s < 2; ++s)
        if (has[s] && job_mem_[s][j] > max_mem_[s]) over_memory_limit_[j] = 1;
      if (over_memory_limit_[j]) continue;
      for (int s = 0; s < 2; ++s) {
        if (!has[s] || slots_per_[s][j] <= largest[s]) continue;
        const char* type = s == kMap ? "map" : "reduce";
        std::ostringstream o;
        o << "capacity: a " << type << " of job " << j << " asks " << job_mem_[s][j] << " MB, " << slots_per_[s][j] << " "
          << type << " slots of " << slot_mem_[s] << " MB (" << type << "_memory_mb), but no node has more than "
          << largest[s] << ": it could never run; give the nodes more " << type << " slots, raise " << type
          << "_memory_mb, or lower the job's memory";
        throw std::invalid_argument(o.str());
      }
    }
  }
  // With the job initializer, CapacitySchedulerQueue.checkJobSubmissionLimits: a job with more
  // tasks than a user may have initialized, or one that would pass the queue's or its user's jobs
  // to accept (waiting, initialized and running: the jobs to initialize times
  // init-accept-jobs-factor), is refused at submission.
  bool accepts(Sim& sim, int32_t job) override {
    if (!over_memory_limit_.empty() && over_memory_limit_[size_t(job)]) return false;
    if (!poller_) return true;
    const auto& wl = sim.workload();
    const Queue& q = queues_[size_t(queue_of_[job])];
    if (int64_t(wl.task_begin[size_t(job) + 1] - wl.task_begin[size_t(job)]) > max_active_tasks_per_user_) return false;
    const int64_t to_init = int64_t(std::ceil(double(max_system_jobs_) * q.percent / 100.0));
    const int64_t user_to_init = int64_t(std::ceil(double(max_system_jobs_) * q.percent / 100.0 * q.ul_min / 100.0));
    if (int64_t(q.jobs.size() + q.waiting.size() + q.initializing.size()) >= to_init * q.accept_factor) return false;
    const int32_t user = wl.user[size_t(job)];
    int64_t user_jobs = 0;
    for (const auto* list : {&q.jobs, &q.waiting, &q.initializing})
      for (int32_t k : *list) user_jobs += wl.user[size_t(k)] == user;
    return user_jobs < user_to_init * q.accept_factor;
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    Queue& q = queues_[size_t(queue_of_[job])];
    auto& list = poller_ ? q.waiting : q.jobs;  // (with the poller, running once it initializes it)
    list.insert(std::upper_bound(list.begin(), list.end(), job, [&](int32_t a, int32_t b) { return before(sim, q, a, b); }), job);
    if (!poller_) join_running_list(job);
    if (poller_ && !poll_armed_ && std::isfinite(poll_interval_)) {
      sim.set_timer(sim.now() + poll_interval_, kPollTag);
      poll_armed_ = true;
    }
  }
  void on_timer(Sim& sim, uint64_t tag) override {
    if (tag >= kSetupTag && tag - kSetupTag < sim.workload().n_jobs()) {  // a job's setup task is done
      setup_done(sim, int32_t(tag - kSetupTag));
      return;
    }
    if (tag != kPollTag) return;
    poll_armed_ = false;
    poll(sim);
    bool waiting = false;
    for (const Queue& q : queues_) waiting |= !q.waiting.empty();
    if (waiting) {  // (the poller sleeps while no job waits)
      sim.set_timer(sim.now() + poll_interval_, kPollTag);
      poll_armed_ = true;
    }
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override { admission_.on_stage_finished(sim, job, stage); }
  void on_priority_changed(Sim& sim, int32_t job) override {
    Queue& q = queues_[size_t(queue_of_[job])];
    for (auto* list : {&q.jobs, &q.waiting, &q.initializing, &q.ready[kMap], &q.ready[kReduce]}) {
      auto it = std::find(list->begin(), list->end(), job);
      if (it == list->end()) continue;
      list->erase(it);
      list->insert(std::upper_bound(list->begin(), list->end(), job, [&](int32_t a, int32_t b) { return before(sim, q, a, b); }), job);
    }
  }
  void on_job_finished(Sim& sim, int32_t job) override {
    Queue& q = queues_[size_t(queue_of_[job])];
    for (auto* v : {&q.jobs, &q.waiting, &q.initializing}) {
      auto it = std::find(v->begin(), v->end(), job);  // (waiting: a job killed before it was initialized)
      if (it != v->end()) v->erase(it);
    }
    in_jobs_[size_t(job)] = 0;
    mark_dirty(job);
    for (int s = 0; s < 2; ++s)  // its reservations go with it (JobInProgress.cancelReservedSlots)
      if (job_reserved_[s][size_t(job)] > 0)
        for (int32_t n = 0; n < sim.n_nodes(); ++n)
          if (reserved_job_[s][size_t(n)] == job) unreserve(n, s);
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    // (the usage of a type is brought up to date only when the tracker has room for it: a full
    // tracker gets nothing and sorts nothing, so the update can wait)
    const bool room[2] = {sim.free_slots(node, kMap) > 0, sim.free_slots(node, kReduce) > 0};
    if (!room[kMap] && !room[kReduce]) return;
    for (int s = 0; s < 2; ++s)
      if (room[s]) update_all(sim, s);
    // maps while the tracker has room (addMapTasks)
    int64_t assigned = 0;
    int32_t avail = sim.free_slots(node, kMap);
    while (avail > 0) {
      sort_queues(kMap);
      int32_t job = -1;
      if (assign(sim, node, kMap, avail, job) != kFound) break;
      if (++assigned >= max_per_heartbeat_) break;
      avail -= slots_per_[kMap][size_t(job)];
      add_launch(sim, job, kMap);  // (CapacitySchedulerQueue.update)
    }
    // one reduce (addReduceTask)
    if (sim.free_slots(node, kReduce) > 0) {
      sort_queues(kReduce);
      int32_t job = -1;
      assign(sim, node, kReduce, sim.free_slots(node, kReduce), job);
    }
  }

  // Per queue: capacity_percent, user_limit_percent, supports_priority, jobs, users (with jobs),
  // and per type map_/reduce_: capacity, max_capacity (-1: none), slots_occupied, running_tasks,
  // active_users, users_with_slots, order (position in the scheduler's ordered list), waiting_jobs;
// per job waiting (not yet initialized), initialized (in the job initializer's list); per job: map_/reduce_
  // running, slots, reserved_slots, slots_per_task; per user: map_/reduce_slots_occupied (over
  // the queues); per node: map_/reduce_reserved_for (job id, -1) and map_/reduce_slots_occupied.
  // Usage is computed from the state now, as updateQueueUsageForTests does (the order is not
  // re-sorted: act("update") does that).
  void report(Sim& sim, SchedulerReport& r) override {
    update_all(sim);
    const size_t nq = queues_.size(), n_jobs = sim.workload().n_jobs();
    int32_t n_users = 0;
    for (size_t j = 0; j < n_jobs; ++j) n_users = std::max(n_users, sim.workload().user[j] + 1);
    r.pool["capacity_percent"].assign(nq, 0.0);
    r.pool["user_limit_percent"].assign(nq, 0.0);
    r.pool["supports_priority"].assign(nq, 0.0);
    r.pool["jobs"].assign(nq, 0.0);
    r.pool["users"].assign(nq, 0.0);
    for (size_t q = 0; q < nq; ++q) {
      const Queue& Q = queues_[q];
      r.pool["capacity_percent"][q] = Q.percent;
      r.pool["user_limit_percent"][q] = Q.ul_min;
      r.pool["supports_priority"][q] = Q.priorities;
      r.pool["jobs"][q] = double(Q.jobs.size());
      std::vector<int32_t> users;  // (users with jobs waiting, initializing or running)
      for (const auto* list : {&Q.jobs, &Q.waiting, &Q.initializing})
        for (int32_t j : *list) users.push_back(sim.workload().user[size_t(j)]);
      std::sort(users.begin(), users.end());
      r.pool["users"][q] = double(std::unique(users.begin(), users.end()) - users.begin());
    }
    for (int s = 0; s < 2; ++s) {
      const std::string t = s == kMap ? "map_" : "reduce_";
      for (const char* name : {"capacity", "max_capacity", "slots_occupied", "running_tasks", "active_users", "users_with_slots", "order"})
        r.pool[t + name].assign(nq, 0.0);
      for (size_t q = 0; q < nq; ++q) {
        const Usage& u = queues_[q].use[s];
        r.pool[t + "capacity"][q] = u.capacity;
        r.pool[t + "max_capacity"][q] = u.max_capacity;
        r.pool[t + "slots_occupied"][q] = u.occupied;
        r.pool[t + "running_tasks"][q] = u.running;
        r.pool[t + "active_users"][q] = double(u.active.size());
        for (auto& [user, slots] : u.by_user) r.pool[t + "users_with_slots"][q] += slots > 0 ? 1.0 : 0.0;
      }
      for (size_t i = 0; i < order_[s].size(); ++i) r.pool[t + "order"][size_t(order_[s][i])] = double(i);
      for (const char* name : {"running", "slots", "reserved_slots", "slots_per_task"}) r.job[t + name].assign(n_jobs, 0.0);
      for (size_t j = 0; j < n_jobs; ++j) {
        const int32_t run = sim.job(int32_t(j)).running_attempts[s];
        r.job[t + "running"][j] = run;
        r.job[t + "slots"][j] = double(run) * slots_per_[s][j];
        r.job[t + "reserved_slots"][j] = double(job_reserved_[s][j]) * slots_per_[s][j];
        r.job[t + "slots_per_task"][j] = slots_per_[s][j];
      }
      r.user[t + "slots_occupied"].assign(size_t(n_users), 0.0);
      for (const Queue& Q : queues_)
        for (auto& [user, slots] : Q.use[s].by_user) r.user[t + "slots_occupied"][size_t(user)] += slots;
      r.node[t + "reserved_for"].assign(size_t(sim.n_nodes()), -1.0);
      r.node[t + "slots_occupied"].assign(size_t(sim.n_nodes()), 0.0);
      for (int32_t n = 0; n < sim.n_nodes(); ++n) {
        r.node[t + "reserved_for"][size_t(n)] = reserved_job_[s][size_t(n)];
        r.node[t + "slots_occupied"][size_t(n)] = sim.running_on(n, s);
      }
    }
    r.scalar["memory_based_scheduling"] = mem_enabled_ ? 1.0 : 0.0;
    r.scalar["limit_max_map_memory_mb"] = max_mem_[0];
    r.scalar["limit_max_reduce_memory_mb"] = max_mem_[1];
    r.pool["waiting_jobs"].assign(nq, 0.0);
    r.pool["initializing_jobs"].assign(nq, 0.0);
    for (size_t q = 0; q < nq; ++q) r.pool["initializing_jobs"][q] = double(queues_[q].initializing.size());
    r.job["waiting"].assign(n_jobs, 0.0);
    r.job["initialized"].assign(n_jobs, 0.0);
    for (size_t q = 0; q < nq; ++q) {
      r.pool["waiting_jobs"][q] = double(queues_[q].waiting.size());
      for (int32_t j : queues_[q].waiting) r.job["waiting"][size_t(j)] = 1.0;
    }
    for (size_t j = 0; j < n_jobs; ++j) r.job["initialized"][j] = in_init_set_[j];
  }

  // "update": CapacityTaskScheduler.updateQueueUsageForTests (usage from the state now, then both
  // queue lists re-sorted).
  bool act(Sim& sim, const std::string& action) override {
    if (action == "initialize") {  // (the job initializer's poll, as Hadoop's tests call it)
      if (!poller_) throw std::invalid_argument("capacity: act('initialize') needs job_initialization='poller'");
      poll(sim);
      return true;
    }
    if (action == "raise") {  // every initializing job's setup task is done (the tests' raiseStatusChangeEvents)
      if (!poller_) throw std::invalid_argument("capacity: act('raise') needs job_initialization='poller'");
      for (Queue& q : queues_)
        while (!q.initializing.empty()) setup_done(sim, q.initializing.front());
      return true;
    }
    if (action != "update") return false;
    update_all(sim);
    sort_queues(kMap);
    sort_queues(kReduce);
    return true;
  }

 private:
  enum Lookup { kNone, kFound, kMemoryFailed };
  struct Usage {
    int32_t capacity = 0, max_capacity = -1, occupied = 0, running = 0;
    std::vector<std::pair<int32_t, int32_t>> by_user;  // slots occupied per user (sorted by user; none with 0)
    std::vector<int32_t> active;         // users with tasks of this type to schedule (sorted)
    std::vector<std::pair<int32_t, int32_t>> pending_jobs;  // per user: counted jobs with tasks to schedule
    std::vector<int32_t> extra_active;   // users made active by a launch since the last updateAll
  };
  struct Contribution {  // a job's part of its queue's usage of one type, as last counted
    int32_t running = 0, occupied = 0;
    uint8_t pending = 0, counted = 0;  // (counted: it is in the running list)
  };
  struct Overlay {  // a launch's addition to its queue's usage, until the next updateAll
    int32_t queue, user, slots;
  };
  struct Queue {
    float percent = 0, max_percent = -1;
    double ul_min = 100, ul_factor = INFINITY;
    bool priorities = false;
    int64_t accept_factor = 10;
    std::vector<int32_t> jobs;  // unfinished, in order (initialized: the running list)
    std::vector<int32_t> waiting;  // with the job initializer: submitted, not yet initialized, in order
    std::vector<int32_t> initializing;  // initialized, their setup task not done yet (job_setup_seconds), in order
    Usage use[2];
    std::vector<int32_t> ready[2];  // see ready_jobs
    uint64_t ready_calls[2] = {0, 0};
  };

  // JobQueueJobInProgressListener.FIFO_JOB_QUEUE_COMPARATOR (priority, start time, id) where the
  // queue supports priorities, else CapacitySchedulerQueue's start-time comparator.
  bool before(const Sim& sim, const Queue& q, int32_t a, int32_t b) const {
    const auto& wl = sim.workload();
    if (q.priorities && wl.priority[size_t(a)] != wl.priority[size_t(b)]) return wl.priority[size_t(a)] < wl.priority[size_t(b)];
    if (wl.submit_time[size_t(a)] != wl.submit_time[size_t(b)]) return wl.submit_time[size_t(a)] < wl.submit_time[size_t(b)];
    return a < b;
  }

  bool has_pending(Sim& sim, int32_t j, int type) const {
    const JobState& js = sim.job(j);
    return type == kMap ? js.pending[kMap] > 0 : sim.reduces_allowed(j) && js.pending[kReduce] > 0;
  }
  // Usage is kept per job: each job's last contribution (running tasks, slots occupied, whether it
  // has tasks of the type to schedule) is in the queue's sums, and only the jobs that changed
  // since (the engine's change log, reservations, the running list) are counted again: the
  // usage of updateAll at O(changes) instead of O(jobs) per heartbeat, which an overloaded
  // cluster with thousands of waiting jobs needs.
  // CapacitySchedulerQueue.update after a task is assigned: its running task and slots added,
  // and its user made active if the job has more to schedule, until the next updateAll.
  void add_launch(Sim& sim, int32_t job, int type) {
    Usage& u = queues_[size_t(queue_of_[job])].use[type];
    const int32_t user = sim.workload().user[size_t(job)], slots = slots_per_[type][size_t(job)];
    u.running += 1;
    u.occupied += slots;
    add_user_slots(u, user, slots);
    overlay_[type].push_back({queue_of_[job], user, slots});
    if (has_pending(sim, job, type)) {
      auto it = std::lower_bound(u.active.begin(), u.active.end(), user);
      if (it == u.active.end() || *it != user) {
        u.active.insert(it, user);
        u.extra_active.push_back(user);
      }
    }
  }
  static void add_user_slots(Usage& u, int32_t user, int32_t slots) {
    auto at = std::lower_bound(u.by_user.begin(), u.by_user.end(), std::make_pair(user, INT32_MIN));
    if (at == u.by_user.end() || at->first != user) at = u.by_user.insert(at, {user, 0});
    if ((at->second += slots) == 0) u.by_user.erase(at);
  }
  static int32_t pending_jobs_of(const Usage& u, int32_t user) {
    auto at = std::lower_bound(u.pending_jobs.begin(), u.pending_jobs.end(), std::make_pair(user, INT32_MIN));
    return at == u.pending_jobs.end() || at->first != user ? 0 : at->second;
  }
  // Adds (sign 1) or takes out (-1) a job's contribution to its queue's usage.
  static void apply(Usage& u, int32_t user, const Contribution& c, int32_t sign) {
    if (!c.counted) return;
    u.running += sign * c.running;
    u.occupied += sign * c.occupied;
    if (c.occupied != 0) add_user_slots(u, user, sign * c.occupied);
    if (!c.pending) return;
    auto at = std::lower_bound(u.pending_jobs.begin(), u.pending_jobs.end(), std::make_pair(user, INT32_MIN));
    if (at == u.pending_jobs.end() || at->first != user) at = u.pending_jobs.insert(at, {user, 0});
    at->second += sign;
    auto it = std::lower_bound(u.active.begin(), u.active.end(), user);
    const bool listed = it != u.active.end() && *it == user;
    if (at->second == 0) {
      u.pending_jobs.erase(at);
      if (listed) u.active.erase(it);
    } else if (!listed) {
      u.active.insert(it, user);
    }
  }
  void mark_dirty(int32_t job, int type) {
    if (!dirty_flag_[type][size_t(job)]) {
      dirty_flag_[type][size_t(job)] = 1;
      dirty_[type].push_back(job);
    }
  }
  void mark_dirty(int32_t job) {
    mark_dirty(job, kMap);
    mark_dirty(job, kReduce);
  }
  // The job's contribution counted again from its state.
  void recount(Sim& sim, int32_t job, int type) {
    Contribution n;
    if (in_jobs_[size_t(job)]) {
      const int32_t run = sim.job(job).running_attempts[type], held = job_reserved_[type][size_t(job)];
      n = Contribution{run, (held + run) * slots_per_[type][size_t(job)], uint8_t(has_pending(sim, job, type)), 1};
    }
    Contribution& c = contrib_[type][size_t(job)];
    if (n.running == c.running && n.occupied == c.occupied && n.pending == c.pending && n.counted == c.counted) return;
    Usage& u = queues_[size_t(queue_of_[job])].use[type];
    const int32_t user = sim.workload().user[size_t(job)];
    apply(u, user, c, -1);
    apply(u, user, n, 1);
    c = n;
  }
  // CapacitySchedulerQueue.updateAll: capacities from the cluster's slots, usage from the jobs
  // (of one type, or -1: both).
  void update_all(Sim& sim, int type = -1) {
    sim.drain_changed_jobs(changes_, [&](int32_t j) { mark_dirty(j); });
    const int32_t total[2] = {sim.total_map_slots(), sim.total_reduce_slots()};
    for (int s = 0; s < 2; ++s) {
      if (type >= 0 && s != type) continue;
      for (Queue& q : queues_) {
        Usage& u = q.use[s];
        u.capacity = int32_t(q.percent * float(total[s]) / 100.0f);
        u.max_capacity = q.max_percent > 0 ? int32_t(q.max_percent * float(total[s]) / 100.0f) : -1;
      }
      for (const Overlay& o : overlay_[s]) {  // the launches' additions give way to the jobs' counts
        Usage& u = queues_[size_t(o.queue)].use[s];
        u.running -= 1;
        u.occupied -= o.slots;
        add_user_slots(u, o.user, -o.slots);
      }
      overlay_[s].clear();
      for (int32_t j : dirty_[s]) {
        dirty_flag_[s][size_t(j)] = 0;
        recount(sim, j, s);
        list_if_eligible(sim, j, s);
      }
      dirty_[s].clear();
      for (Queue& q : queues_) {
        Usage& u = q.use[s];
        for (int32_t user : u.extra_active)
          if (pending_jobs_of(u, user) == 0) {
            auto it = std::lower_bound(u.active.begin(), u.active.end(), user);
            if (it != u.active.end() && *it == user) u.active.erase(it);
          }
        u.extra_active.clear();
      }
    }
  }
  // Whether a scan for `type` could take a task of the job or reserve a tracker for it: it is in
  // the running list with pending tasks of the type (reduces: past slowstart, unless memory-based
  // scheduling could reserve for it).
  bool eligible(Sim& sim, int32_t job, int type) const {
    return in_jobs_[size_t(job)] && sim.job(job).pending[type] > 0 && (type == kMap || mem_enabled_ || sim.reduces_allowed(job));
  }
  void list_if_eligible(Sim& sim, int32_t job, int type) {
    if (ready_listed_[type][size_t(job)] || !eligible(sim, job, type)) return;
    ready_listed_[type][size_t(job)] = 1;
    Queue& q = queues_[size_t(queue_of_[job])];
    auto& v = q.ready[type];
    v.insert(std::upper_bound(v.begin(), v.end(), job, [&](int32_t a, int32_t b) { return before(sim, q, a, b); }), job);
  }
  // The queue's running jobs that are eligible for `type`, in order (and perhaps some that no
  // longer are, which the scan skips as it skips them in the running list): a scan of the running
  // list passes every job whose tasks of the type are all launched, thousands on an overloaded
  // cluster. Jobs are listed at updateAll when they change; those no longer eligible leave from
  // the front at every call and from everywhere once in a while.
  const std::vector<int32_t>& ready_jobs(Sim& sim, Queue& q, int type) {
    drop_departed(q.ready[type], q.ready_calls[type], [&](int32_t j) {
      const bool gone = !eligible(sim, j, type);
      if (gone) ready_listed_[type][size_t(j)] = 0;
      return gone;
    });
    return q.ready[type];
  }
  void sort_queues(int type) {
    std::stable_sort(order_[type].begin(), order_[type].end(), [&](int32_t a, int32_t b) { return ratio(a, type) < ratio(b, type); });
  }
  double ratio(int32_t q, int type) const {
    const Usage& u = queues_[size_t(q)].use[type];
    return u.capacity == 0 ? 1.0 : double(u.occupied) / double(u.capacity);
  }
  // CapacitySchedulerQueue.assignSlotsToQueue
  bool queue_may(const Usage& u, int32_t slots) const { return !(u.max_capacity > 0 && u.occupied + slots > u.max_capacity); }
  // CapacitySchedulerQueue.assignSlotsToJob
  bool job_may(Sim& sim, const Queue& q, int type, int32_t job) const {
    const Usage& u = q.use[type];
    const int32_t req = slots_per_[type][size_t(job)];
    if (!queue_may(u, req)) return false;
    const int32_t cap = std::max(u.capacity, req);
    const int64_t current = u.occupied < cap ? cap : int64_t(u.occupied) + req;
    const int64_t active = std::max<int64_t>(1, int64_t(u.active.size()));
    auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    int64_t limit = std::max(ceil_div(current, active), ceil_div(int64_t(q.ul_min * double(current) + 0.5), 100));
    if (std::isfinite(q.ul_factor)) limit = std::min<int64_t>(limit, int64_t(float(cap) * float(q.ul_factor)));
    const int32_t user = sim.workload().user[size_t(job)];
    auto it = std::lower_bound(u.by_user.begin(), u.by_user.end(), std::make_pair(user, INT32_MIN));
    return (it == u.by_user.end() || it->first != user ? 0 : it->second) + req <= limit;
  }
  // A task of `job` launched on `node`, or -1.
  int32_t obtain(Sim& sim, int32_t node, int type, int32_t job) {
    int32_t t = -1;
    if (type == kMap) t = sim.find_map(job, node, kRemote);
    else if (sim.reduces_allowed(job)) t = sim.find_reduce(job);
    if (t >= 0) sim.launch(t, node, type, false, slots_per_[type][size_t(job)]);
    return t;
  }
  void reserve(int32_t node, int type, int32_t job) {
    if (reserved_job_[type][size_t(node)] != job) job_reserved_[type][size_t(job)]++;
    reserved_job_[type][size_t(node)] = job;
    mark_dirty(job, type);
  }
  void unreserve(int32_t node, int type) {
    const int32_t job = reserved_job_[type][size_t(node)];
    if (job < 0) return;
    job_reserved_[type][size_t(job)]--;
    reserved_job_[type][size_t(node)] = -1;
    mark_dirty(job, type);
  }
  // TaskSchedulingMgr.assignTasks: the job this tracker is reserved for, else the queues in order.
  Lookup assign(Sim& sim, int32_t node, int type, int32_t avail, int32_t& job) {
    const int32_t held = reserved_job_[type][size_t(node)];
    if (held >= 0) {
      if (avail < slots_per_[type][size_t(held)]) return kMemoryFailed;  // (re-reserved)
      unreserve(node, type);
      job = held;
      return obtain(sim, node, type, held) >= 0 ? kFound : kNone;
    }
    const int32_t node_slots = type == kMap ? sim.map_capacity(node) : sim.reduce_capacity(node);
    for (int32_t qi : order_[type]) {
      Queue& q = queues_[size_t(qi)];
      if (!queue_may(q.use[type], 1)) continue;
      for (int32_t j : ready_jobs(sim, q, type)) {
        // (a job without pending tasks of the type gives none and reserves nothing)
        if (sim.job(j).pending[type] == 0 || !admission_.may_run(j, type) || !job_may(sim, q, type, j)) continue;
        const int32_t need = slots_per_[type][size_t(j)];
        if (!mem_enabled_ || job_mem_[type][size_t(j)] <= double(slot_mem_[type]) * avail) {  // MemoryMatcher
          if (obtain(sim, node, type, j) >= 0) { job = j; return kFound; }
          continue;
        }
        const int32_t pending = sim.job(j).pending[type];
        if (pending > 0 && job_reserved_[type][size_t(j)] < pending && node_slots >= need) {
          reserve(node, type, j);
          return kMemoryFailed;
        }
      }
    }
    return kNone;
  }

  // JobInitializationPoller: cleanUpInitializedJobsList, then selectJobsToInitialize over the
  // queues (getJobsToInitialize with CapacitySchedulerQueue.initializeJobForQueue/ForUser); an
  // initialized job runs at once, or after job_setup_seconds (its setup task: the initializing list).
  void poll(Sim& sim) {
    const auto& wl = sim.workload();
    auto tasks_of = [&](int32_t j) { return int64_t(wl.task_begin[size_t(j) + 1] - wl.task_begin[size_t(j)]); };
    for (size_t j = 0; j < in_init_set_.size(); ++j) {  // scheduled (a task left pending) or complete
      if (!in_init_set_[j]) continue;
      const JobState& js = sim.job(int32_t(j));
      const bool scheduled = js.pending[kMap] < wl.n_maps[j] || js.pending[kReduce] < wl.n_reduces(int32_t(j));
      if (scheduled || !std::isnan(js.finish)) in_init_set_[j] = 0;
    }
    for (Queue& q : queues_) {
      const int64_t max_jobs = int64_t(std::ceil(double(max_system_jobs_) * q.percent / 100.0));
      const int64_t max_user_jobs = int64_t(std::ceil(double(max_system_jobs_) * q.percent / 100.0 * q.ul_min / 100.0));
      int64_t active = 0;
      for (const auto* list : {&q.jobs, &q.initializing})
        for (int32_t j : *list) active += tasks_of(j);
      std::vector<int32_t> over, chosen;  // users over their limit; jobs initialized now
      for (int32_t j : q.waiting) {
        if (int64_t(q.jobs.size() + q.initializing.size()) >= max_jobs || active + tasks_of(j) > max_active_tasks_) break;
        const int32_t user = wl.user[size_t(j)];
        if (std::find(over.begin(), over.end(), user) != over.end()) continue;
        int64_t user_jobs = 0, user_active = 0;
        for (const auto* list : {&q.jobs, &q.initializing})
          for (int32_t k : *list)
            if (wl.user[size_t(k)] == user) { ++user_jobs; user_active += tasks_of(k); }
        if (user_jobs >= max_user_jobs || user_active + tasks_of(j) > max_active_tasks_per_user_) {
          over.push_back(user);
          continue;
        }
        in_init_set_[size_t(j)] = 1;
        chosen.push_back(j);
        auto& to = setup_seconds_ > 0 ? q.initializing : q.jobs;  // (0: its setup is not modelled, it runs at once)
        to.insert(std::upper_bound(to.begin(), to.end(), j, [&](int32_t a, int32_t b) { return before(sim, q, a, b); }), j);
        if (&to == &q.jobs) join_running_list(j);
        if (setup_seconds_ > 0 && std::isfinite(setup_seconds_)) sim.set_timer(sim.now() + setup_seconds_, kSetupTag + uint64_t(j));
        active += tasks_of(j);
      }
      for (int32_t j : chosen) q.waiting.erase(std::find(q.waiting.begin(), q.waiting.end(), j));
    }
  }

  // An initializing job's setup task is done: it joins the running list (JobQueuesManager.jobUpdated).
  void setup_done(Sim& sim, int32_t job) {
    Queue& q = queues_[size_t(queue_of_[job])];
    auto it = std::find(q.initializing.begin(), q.initializing.end(), job);
    if (it == q.initializing.end()) return;  // (ended meanwhile)
    q.initializing.erase(it);
    q.jobs.insert(std::upper_bound(q.jobs.begin(), q.jobs.end(), job, [&](int32_t a, int32_t b) { return before(sim, q, a, b); }), job);
    join_running_list(job);
  }
  void join_running_list(int32_t job) {  // (counted in its queue's usage from the next updateAll)
    in_jobs_[size_t(job)] = 1;
    mark_dirty(job);
  }

  static constexpr uint64_t kPollTag = 0x43415049;  // the job initializer's timer
  static constexpr uint64_t kSetupTag = uint64_t(0x53455455) << 32;  // + job: its setup task's end
  AdmissionControl admission_;
  int64_t round_robin_queues_;
  std::map<std::string, double> capacities_;
  double max_capacity_;
  std::map<std::string, double> max_capacities_;
  double ul_min_;
  std::map<std::string, double> ul_mins_;
  double ul_factor_;
  std::map<std::string, double> ul_factors_;
  int64_t accept_factor_;
  std::map<std::string, double> accept_factors_;
  bool priorities_;
  std::map<std::string, double> priorities_text_;
  double slot_mem_[2], max_mem_[2], task_limit_maxvmem_;
  int64_t max_per_heartbeat_;
  std::map<std::string, double> order_text_;
  bool mem_enabled_ = false;
  std::vector<int32_t> queue_of_;
  std::vector<Queue> queues_;
  std::vector<int32_t> order_[2];         // queue ids in the scheduler's order, per type
  std::vector<int32_t> reserved_job_[2];  // per node: the job its slots are reserved for, or -1
  std::vector<int32_t> job_reserved_[2];  // per job: trackers reserved for it
  std::vector<double> job_mem_[2];        // per job: MB per task
  std::vector<int32_t> slots_per_[2];     // per job: slots per task
  std::vector<uint8_t> over_memory_limit_;  // per job: asks more than max_map/reduce_memory_mb (refused)
  bool poller_;
  double poll_interval_;
  double setup_seconds_;  // job_setup_seconds
  int64_t max_system_jobs_, max_active_tasks_, max_active_tasks_per_user_;
  std::vector<uint8_t> in_init_set_;      // per job: in the job initializer's list of initialized jobs
  bool poll_armed_ = false;
  std::vector<uint8_t> in_jobs_;          // per job: in its queue's running list (q.jobs)
  std::vector<Contribution> contrib_[2];  // per job: its part of its queue's usage
  std::vector<int32_t> dirty_[2];         // jobs to count again at the next updateAll of the type
  std::vector<uint8_t> dirty_flag_[2];
  std::vector<Overlay> overlay_[2];
  std::vector<uint8_t> ready_listed_[2];  // per job: in its queue's ready list of the type
  int changes_ = -1;
};

}  // namespace

void register_hadoop_schedulers() {
  register_scheduler(
      {"fifo", "", "Hadoop 1.2.1 JobQueueTaskScheduler [Sagar & Moni 2015, Fig. 10; Lim et al. 2015, §4.2.2; Wang 2017, §2.4]; strict_locality: FIFO-S [Zhao et al. 2013, §5]",
       "FIFO job queue; local maps first, one off-switch map and one reduce per heartbeat, load-factor cap",
       {admission_param(),
        ParamSpec::boolean("load_factor_cap", true, "cap a node's usable slots by the cluster's remaining load factor"),
        strict_param()}},
      [](const Params& p) { return std::make_unique<FifoScheduler>(p, false); });
  register_scheduler(
      {"edf", "", "EDF-Scheduler of the MRCP paper: Hadoop FIFO with the queue sorted by deadline [Lim et al. 2015, §4.2]",
       "JobQueueTaskScheduler with jobs ordered by earliest deadline (slowstart, one reduce per heartbeat)",
       {admission_param(),
        ParamSpec::boolean("load_factor_cap", true, "cap a node's usable slots by the cluster's remaining load factor")}},
      [](const Params& p) { return std::make_unique<FifoScheduler>(p, true); });
  register_scheduler(
      {"edf_ideal", "", "EDF list scheduling with reduce gating, the sensitivity variant of the EDF-Scheduler [Lim et al. 2015, §4.2.2]",
       "every free slot to the earliest-deadline job; reduces only after all their job's maps; no load cap or per-heartbeat limits",
       {admission_param()}},
      [](const Params& p) { return std::make_unique<FifoScheduler>(p, true, true); });
  register_scheduler(
      {"fair", "", "Hadoop 1.x Fair Scheduler with delay scheduling [Sagar & Moni 2015, §II; Wang 2017, §2.4]; strict_locality: HFS-S [Zhao et al. 2013, §5]",
       "pools (users) with weights and min shares; separate map and reduce fairness; delay scheduling",
       {admission_param(),
        ParamSpec::number("locality_delay", -1, -1, 1e6,
                          "delay-scheduling wait in seconds (node->rack after 1x, ->any after 2x); -1 = min(15 s, 1.5 x heartbeat); 0 = off"),
        ParamSpec::boolean("assign_multiple", true, "assign several tasks per heartbeat (mapred.fairscheduler.assignmultiple)"),
        ParamSpec::number("load_max_diff", 0, 0, 1, "CapBasedLoadManager max diff (mapred.fairscheduler.load.max.diff)"),
        ParamSpec::choice("pool_mode", "fair", {"fair", "fifo"}, "how jobs inside a pool share its slots"),
        ParamSpec::text("pool_weights", "", "pool weights as 'pool:weight,...' (pool = user id); default 1"),
        ParamSpec::text("min_shares", "", "pool minimum shares in slots as 'pool:slots,...'; default 0"),
        strict_param(),
        ParamSpec::choice("pool_by", "user", {"user", "queue"},
                          "a job's pool: its user (Hadoop's default poolnameproperty user.name) or its queue column "
                          "(mapred.fairscheduler.poolnameproperty set to a job property)"),
        ParamSpec::text("min_map_shares", "", "pool minimum map shares as 'pool:slots,...' (minMaps); default min_shares"),
        ParamSpec::text("min_reduce_shares", "", "pool minimum reduce shares as 'pool:slots,...' (minReduces); default min_shares"),
        ParamSpec::number("locality_delay_rack", -1, -1, 1e6,
                          "further wait in seconds before a job that waited locality_delay may go off-rack "
                          "(mapred.fairscheduler.locality.delay.rack); -1 = locality_delay"),
        ParamSpec::boolean("size_based_weight", false,
                           "a job's weight is log2(1 + its demand) (mapred.fairscheduler.sizebasedweight)"),
        ParamSpec::choice("pool_tie_break", "name", {"name", "oldest_job"},
                          "pools tied in fairness: by pool id as Hadoop 1.2.1 (PoolSchedulable start time 0: by pool "
                          "name), or the one with the oldest job first"),
        ParamSpec::text("pool_max_jobs", "", "maxRunningJobs per pool as 'pool:jobs,...'; default pool_max_jobs_default"),
        ParamSpec::text("user_max_jobs", "", "maxRunningJobs per user as 'user:jobs,...'; default user_max_jobs_default"),
        ParamSpec::integer("pool_max_jobs_default", 1000000000, 1, 1000000000, "poolMaxJobsDefault (default: no limit); at least 1 (0 would run no job of a pool and stall)"),
        ParamSpec::integer("user_max_jobs_default", 1000000000, 1, 1000000000, "userMaxJobsDefault (default: no limit); at least 1 (0 would run no job of a user and stall)"),
        ParamSpec::text("pool_modes", "", "per-pool scheduling mode as 'pool:fifo,pool:fair' (schedulingMode); default pool_mode"),
        ParamSpec::text("pool_max_maps", "", "maxMaps per pool as 'pool:slots,...'; default no limit"),
        ParamSpec::text("pool_max_reduces", "", "maxReduces per pool as 'pool:slots,...'; default no limit"),
        ParamSpec::integer("assign_multiple_maps", -1, -1, 1000000,
                           "with assign_multiple, at most this many maps per heartbeat (mapred.fairscheduler.assignmultiple.maps; -1 = no cap)"),
        ParamSpec::integer("assign_multiple_reduces", -1, -1, 1000000,
                           "with assign_multiple, at most this many reduces per heartbeat (mapred.fairscheduler.assignmultiple.reduces; -1 = no cap)"),
        ParamSpec::boolean("preemption", false, "kill tasks of pools above their fair share for pools starved past a timeout (mapred.fairscheduler.preemption)"),
        ParamSpec::boolean("preemption_only_log", false, "count the preemptions but kill nothing (mapred.fairscheduler.preemption.only.log)"),
        ParamSpec::text("min_share_timeouts", "", "minSharePreemptionTimeout per pool in seconds as 'pool:seconds,...'; default default_min_share_timeout"),
        ParamSpec::number("default_min_share_timeout", INFINITY, 0, INFINITY, "defaultMinSharePreemptionTimeout in seconds (default: never)"),
        ParamSpec::number("fair_share_timeout", INFINITY, 0, INFINITY, "fairSharePreemptionTimeout in seconds (default: never)"),
        ParamSpec::number("update_interval", 0.5, 1e-3, 1e6, "seconds between the scheduler's updates of shares and starvation times (mapred.fairscheduler.update.interval)"),
        ParamSpec::number("preemption_interval", 15, 0, 1e9, "seconds between preemption checks (mapred.fairscheduler.preemption.interval)")}},
      [](const Params& p) { return std::make_unique<FairScheduler>(p); });
  register_scheduler(
      {"capacity", "", "Hadoop 1.x Capacity Scheduler [Wang 2017, §2.4; FRESH experiments §3.4.2.2]",
       "queues with guaranteed and maximum capacity, most under-served queue first, FIFO (or priority) inside a queue, user limits, high-memory jobs",
       {admission_param(),
        ParamSpec::integer("queues", 0, 0, 1000,
                           "> 0: assign jobs to this many queues round-robin in submission order; 0 = the workload's queue column; "
                           "at most 1000 (every heartbeat sorts the queues: 100,000 of them cost 1.2 ms an event)"),
        ParamSpec::text("capacities", "", "guaranteed fraction per queue as 'queue:fraction,...'; default equal shares"),
        ParamSpec::number("max_capacity", 1.0, 0, 1, "fraction of the cluster's slots any one queue may use (FRESH: 0.9); 1 = no maximum"),
        ParamSpec::text("max_capacities", "", "maximum capacity per queue as 'queue:fraction,...' (mapred.capacity-scheduler.queue.<q>.maximum-capacity); default max_capacity"),
        ParamSpec::number("min_user_limit_percent", 100, 1, 100,
                          "each active user of a queue gets at least this percent of it when users compete (minimum-user-limit-percent)"),
        ParamSpec::text("min_user_limit_percents", "", "minimum-user-limit-percent per queue as 'queue:percent,...'"),
        ParamSpec::number("user_limit_factor", INFINITY, 1e-9, INFINITY,
                          "a user may hold at most this multiple of the queue's capacity (user-limit-factor; Hadoop 1.2.1's "
                          "default is 1; default here: no cap, a single user may use the queue up to its maximum capacity)"),
        ParamSpec::text("user_limit_factors", "", "user-limit-factor per queue as 'queue:factor,...'"),
        ParamSpec::boolean("supports_priority", false, "jobs of a queue in priority order, then start time (supports-priority)"),
        ParamSpec::text("supports_priorities", "", "supports-priority per queue as 'queue:1,queue:0'"),
        ParamSpec::number("map_memory_mb", -1, -1, 1e12, "memory of a map slot in MB (mapred.cluster.map.memory.mb); memory-based scheduling is on when this and the three below are set"),
        ParamSpec::number("reduce_memory_mb", -1, -1, 1e12, "memory of a reduce slot in MB (mapred.cluster.reduce.memory.mb)"),
        ParamSpec::number("max_map_memory_mb", -1, -1, 1e12, "largest memory a map may ask, in MB (mapred.cluster.max.map.memory.mb); a job asking more is refused at submission, as the JobTracker does"),
        ParamSpec::number("max_reduce_memory_mb", -1, -1, 1e12, "largest memory a reduce may ask, in MB (mapred.cluster.max.reduce.memory.mb)"),
        ParamSpec::number("task_limit_maxvmem", -1, -1, 1e18, "deprecated: the largest memory of a task in bytes "
                          "(mapred.task.limit.maxvmem); when set (>= 0), max_map_memory_mb and max_reduce_memory_mb are both "
                          "this value in whole MB instead; -1: not set"),
        ParamSpec::integer("max_tasks_per_heartbeat", 32767, 1, 1000000000,
                           "maps handed out per heartbeat at most (mapred.capacity-scheduler.maximum-tasks-per-heartbeat)"),
        ParamSpec::text("queue_order", "", "the queues' order before any use as 'queue:position,...' (ties in used/capacity keep the "
                                           "previous order; Hadoop starts from its map of queues); default by queue id"),
        ParamSpec::choice("job_initialization", "at_submission", {"at_submission", "poller"},
                          "jobs run from their submission (default), or wait until Hadoop's JobInitializationPoller "
                          "initializes them within the limits below (its setup task not modelled)"),
        ParamSpec::number("init_poll_interval", 5, 1e-3, INFINITY, "seconds between the job initializer's polls "
                          "(mapred.capacity-scheduler.init-poll-interval; inf: only when asked, the harness's act('initialize'))"),
        ParamSpec::number("job_setup_seconds", 0, 0, INFINITY, "with the job initializer: seconds an initialized job "
                          "spends initializing (its setup task) before it runs; 0: it runs at once; inf: until "
                          "act('raise'), as Hadoop's tests raise the jobs' status change"),
        ParamSpec::integer("max_system_jobs", 3000, 1, 1000000000, "initialized jobs in the system at most, shared by queue "
                           "capacity and, per user, by minimum-user-limit-percent (mapred.capacity-scheduler.maximum-system-jobs)"),
        ParamSpec::integer("max_initialized_active_tasks", 200000, 1, 1000000000,
                           "tasks of a queue's initialized jobs at most (default-maximum-active-tasks-per-queue)"),
        ParamSpec::integer("max_initialized_active_tasks_per_user", 100000, 1, 1000000000,
                           "tasks of a user's initialized jobs in a queue at most (default-maximum-active-tasks-per-user)"),
        ParamSpec::integer("init_accept_jobs_factor", 10, 1, 1000000000,
                           "with the job initializer: a queue accepts at most this many times the jobs it may initialize, "
                           "a user too; a job past these limits is refused at submission (default-init-accept-jobs-factor)"),
        ParamSpec::text("init_accept_jobs_factors", "", "init-accept-jobs-factor per queue as 'queue:factor,...'")}},
      [](const Params& p) { return std::make_unique<CapacityScheduler>(p); });
}

}  // namespace mr
}  // namespace schedlab
