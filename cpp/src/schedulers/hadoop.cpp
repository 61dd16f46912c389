// Hadoop 1's own task schedulers on typed map/reduce slots, heartbeat-driven:
//   fifo     — JobQueueTaskScheduler with its load-factor cap, local-first map assignment, at
//              most one off-switch map and one reduce per heartbeat [Sagar & Moni 2015, Fig. 10, Lim et al. 2015, §4.2.2,
//              Wang 2017, §2.4]
//   edf      — the same code with the job queue sorted by deadline (MRCP paper's EDF-Scheduler,
//              Lim et al. 2015, §4.2: slowstart, load-factor cap, one reduce per heartbeat)
//   edf_ideal — job-level EDF list scheduling with reduce gating, the sensitivity variant of
//              Lim et al. 2015, §4.2.2 [I]: every free slot to the earliest-deadline job with a pending
//              task, no load-factor cap, no off-switch limit, reduces only once all their job's
//              maps are done, as many reduces per heartbeat as there are free slots
//   fair     — Fair Scheduler: pools with weights and min shares, FairShareComparator, separate
//              map and reduce domains, CapBasedLoadManager, assignmultiple, delay scheduling
//              [Sagar & Moni 2015, §II; Wang 2017, §2.4]
//   capacity — queues with a capacity and a maximum capacity, FIFO inside a queue
//              [Wang 2017, §2.4, FRESH experiments §3.4.2.2]
// Each takes the admission-control limit k of FRESH's experiments [Wang 2017, §2.4; §3.3.2.2–3.3.2.3].
// fifo and fair also take strict_locality: launch node-local maps only, never a non-local one —
// the FIFO-S and HFS-S baselines of the EAS paper (S-pull reading) [Zhao et al. 2013, §5].
#include <algorithm>
#include <cmath>
#include <numeric>

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
  FifoScheduler(const Params& p, bool by_deadline, bool ideal = false)
      : by_deadline_(by_deadline),
        ideal_(ideal),
        admission_(p.integer("k")),
        load_cap_(!ideal && p.boolean("load_factor_cap")),
        strict_(p.has("strict_locality") && p.boolean("strict_locality")),
        queue_(by_deadline) {}

  void init(Sim& sim) override {
    admission_.init(sim);
    queue_.init(sim);
    if (strict_) check_strict_locality(sim, by_deadline_ ? "edf" : "fifo");
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    queue_.add(sim, job);
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override { admission_.on_stage_finished(sim, job, stage); }
  void on_job_finished(Sim&, int32_t job) override { queue_.remove(job); }

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
  // local map if the job has one, else any); reduces wait for all their job's maps.
  void list_schedule(Sim& sim, int32_t node) {
    const auto& wl = sim.workload();
    while (sim.free_slots(node, kMap) > 0) {
      int32_t t = -1;
      for (int32_t j : queue_.jobs()) {
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
      for (int32_t j : queue_.jobs()) {
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
class FairScheduler : public Scheduler {
 public:
  explicit FairScheduler(const Params& p)
      : admission_(p.integer("k")),
        delay_param_(p.number("locality_delay")),
        assign_multiple_(p.boolean("assign_multiple")),
        max_diff_(p.number("load_max_diff")),
        fifo_in_pool_(p.choice("pool_mode") == "fifo"),
        pools_("fair", p.text("pool_weights"), p.text("min_shares"), fifo_in_pool_),
        strict_(p.boolean("strict_locality")) {}

  void init(Sim& sim) override {
    admission_.init(sim);
    const double d = delay_param_ >= 0 ? delay_param_ : std::min(15.0, 1.5 * sim.heartbeat_interval());
    delay_.init(sim, d);
    pools_.init(sim);
    const int32_t n_pools = pools_.n_pools();
    const size_t n_jobs = sim.workload().n_jobs();
    for (int s = 0; s < 2; ++s) {
      pool_order_[s] = KeyedOrder{};
      pool_key_[s].assign(n_pools, FairKey{});
      pool_listed_[s].assign(n_pools, 0);
      pool_demand_[s].assign(n_pools, 0);
      pool_runnable_[s].assign(n_pools, 0);
      job_order_[s].assign(n_pools, KeyedOrder{});
      job_key_[s].assign(n_jobs, FairKey{});
      job_demand_[s].assign(n_jobs, 0);
      job_listed_[s].assign(n_jobs, 0);
    }
    pool_dirty_.assign(n_pools, 0);
    changes_ = sim.track_job_changes();
    if (strict_) check_strict_locality(sim, "fair");
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    pools_.add(sim, job);
    mark_pool(sim.workload().user[job]);  // its oldest job (the pool's start time) may have changed
    if (admission_.enabled()) refresh_all_ = true;  // admission may have let another job in
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override {
    admission_.on_stage_finished(sim, job, stage);
    if (admission_.enabled()) refresh_all_ = true;
  }
  void on_job_finished(Sim& sim, int32_t job) override {
    pools_.remove(sim, job);
    mark_pool(sim.workload().user[job]);
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
                 (assign_multiple_ || assigned[s] == 0) && sim.running_on(node, s) < cap_of(s);
      if (!can[0] && !can[1]) break;
      int type = can[0] ? kMap : kReduce;
      if (can[0] && can[1]) type = sim.running_on(node, kMap) <= sim.running_on(node, kReduce) ? kMap : kReduce;
      if (type == kMap) ++map_scans_;
      if (type == kMap && skipped_every_job(sim, node)) {
        ++map_scans_without_visits_;
        rejected[kMap] = true;
        continue;
      }
      if (assign_one(sim, node, type)) assigned[type]++;
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
  // A map scan (assign_one for maps) that would visit every listed job and launch nothing, done
  // without its per-job lookups: when no job has a fresh map on this node, every pending map is
  // found through the place indexes, and no listed job may go beyond node-local yet (or
  // rack-local where it has a map on this rack), every listed job is marked skipped as the scan
  // would, at once, and true returned. The common heartbeat of a lightly loaded cluster.
  bool skipped_every_job(const Sim& sim, int32_t node) {
    if (sim.fresh_map_on(node) || !sim.maps_found_by_place()) return false;
    const int32_t rack = sim.cluster().rack[node];
    if (!strict_ && delay_.listed_may_go_beyond_node([&](int32_t j) { return sim.fresh_map_on_rack(j, rack); }))
      return false;
    delay_.skip_listed();
    return true;
  }
  bool runnable(const Sim& sim, int32_t j, int type) const {
    if (!admission_.may_run(j, type) || sim.job(j).pending[type] == 0) return false;
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
  // Puts an id in `order` with a fresh key (which ends with the id), or takes it out; `key` and
  // `listed` are its records.
  template <class Fresh>
  static void set_listed(KeyedOrder& order, FairKey& key, uint8_t& listed, bool list, Fresh fresh) {
    if (listed && list) {
      const FairKey k = fresh();
      if (k != key) {
        order.rekey(order.index_of(key), k);
        key = k;
      }
    } else if (listed) {
      order.erase(key);
    } else if (list) {
      key = fresh();
      order.insert(key);
    }
    listed = list;
  }
  void refresh_job(const Sim& sim, int32_t j) {
    const int32_t p = sim.workload().user[j];
    const bool active = sim.job(j).submitted && std::isnan(sim.job(j).finish);
    for (int s = 0; s < 2; ++s) {
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
    const double start = sim.workload().submit_time[pools_.jobs(p).front()];  // the pool's oldest job
    return FairKey::make(sim.user_running_attempts(p, type), double(pool_demand_[type][p]), pools_.min_share(p),
                         pools_.weight(p), start, p);
  }
  FairKey job_key(const Sim& sim, int32_t j, int type) const {
    const auto& wl = sim.workload();
    if (fifo_in_pool_) return FairKey{0, wl.submit_time[j], j, false};
    const JobState& js = sim.job(j);
    return FairKey::make(js.running_attempts[type], js.pending[type] + js.running[type], 0, wl.weight[j],
                         wl.submit_time[j], j);
  }

  // Offer one slot of `type` on `node` to pools in fair order; within a pool, jobs in fair (or
  // FIFO) order. Returns whether a task was launched.
  bool assign_one(Sim& sim, int32_t node, int type) {
    // (true for the whole scan once true: it turns false only as jobs arrive or tasks fail)
    const bool by_place = type == kMap && sim.maps_found_by_place();
    auto& pools = pool_order_[type];
    for (size_t pi = 0; pi < pools.items().size(); ++pi) {
      const int32_t p = pools.items()[pi].id;
      auto& jobs = job_order_[type][p];
      for (size_t ji = 0; ji < jobs.items().size(); ++ji) {
        const int32_t j = jobs.items()[ji].id;
        int32_t t = -1;
        if (type == kReduce) {
          t = sim.find_reduce(j);
          if (t < 0) continue;
        } else {
          ++map_job_visits_;
          // the common visit: no map of the job here and the job may not go beyond node-local
          // yet (find_map's answer, without working out how far it may go)
          if (by_place && !sim.fresh_map_on_node(j, node) && (strict_ || delay_.node_local_only(j))) {
            delay_.skipped(j);
            continue;
          }
          t = sim.find_map(j, node, strict_ ? kNodeLocal : delay_.allowed(j));
          if (t < 0) {
            delay_.skipped(j);
            continue;
          }
        }
        const bool logged = sim.job_logged(changes_, j);
        const int64_t a = sim.launch(t, node);
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
  uint64_t map_scans_ = 0, map_scans_without_visits_ = 0, map_job_visits_ = 0;
};

// ------------------------------------------------------------------------------------------
// Capacity Scheduler: queues with guaranteed capacity fractions and a maximum capacity; the
// most under-served queue (used / guaranteed) is offered each slot first; FIFO inside a queue;
// node-local, then rack-local, then any map; one reduce per heartbeat (Hadoop 1 default).
class CapacityScheduler : public Scheduler {
 public:
  explicit CapacityScheduler(const Params& p)
      : admission_(p.integer("k")),
        round_robin_queues_(p.integer("queues")),
        capacities_(parse_key_values("capacity: capacities", p.text("capacities"))),
        max_capacity_(p.number("max_capacity")) {}

  void init(Sim& sim) override {
    admission_.init(sim);
    const auto& wl = sim.workload();
    queue_of_.resize(wl.n_jobs());
    int32_t nq = 1;
    for (size_t j = 0; j < wl.n_jobs(); ++j) {
      queue_of_[j] = round_robin_queues_ > 0 ? int32_t(j % round_robin_queues_) : wl.queue[j];
      nq = std::max(nq, queue_of_[j] + 1);
    }
    if (round_robin_queues_ > 0) nq = int32_t(round_robin_queues_);
    share_.assign(nq, 1.0 / nq);
    if (!capacities_.empty()) {
      share_.assign(nq, 0.0);
      double sum = 0;
      for (auto& [k, v] : capacities_) {
        const int q = std::stoi(k);
        if (q < 0 || q >= nq) throw std::invalid_argument("capacity: capacities names queue " + k + ", but there are " + std::to_string(nq) + " queues");
        if (!(v > 0)) throw std::invalid_argument("capacity: capacity of queue " + k + " must be positive");
        share_[q] = v;
        sum += v;
      }
      if (sum > 1.0 + 1e-9) throw std::invalid_argument("capacity: queue capacities add up to more than 1");
      for (int q = 0; q < nq; ++q)
        if (share_[q] <= 0) throw std::invalid_argument("capacity: queue " + std::to_string(q) + " has jobs but no capacity");
    }
    queue_jobs_.assign(nq, {});
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    queue_jobs_[queue_of_[job]].push_back(job);
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override { admission_.on_stage_finished(sim, job, stage); }
  void on_job_finished(Sim&, int32_t job) override {
    auto& v = queue_jobs_[queue_of_[job]];
    v.erase(std::find(v.begin(), v.end(), job));
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    while (sim.free_slots(node, kMap) > 0 && assign_one(sim, node, kMap)) {}
    if (sim.free_slots(node, kReduce) > 0) assign_one(sim, node, kReduce);
  }

 private:
  bool assign_one(Sim& sim, int32_t node, int type) {
    const int32_t total = type == kMap ? sim.total_map_slots() : sim.total_reduce_slots();
    order_.clear();
    for (int32_t q = 0; q < int32_t(queue_jobs_.size()); ++q) {
      double used = 0;
      for (int32_t j : queue_jobs_[q]) used += sim.job(j).running_attempts[type];
      if (used + 1 > max_capacity_ * total + 1e-9) continue;  // at its maximum capacity
      order_.push_back({used / (share_[q] * total), q});
    }
    std::sort(order_.begin(), order_.end());
    for (auto& [ratio, q] : order_) {
      for (int32_t j : queue_jobs_[q]) {
        if (!admission_.may_run(j, type) || sim.job(j).pending[type] == 0) continue;
        if (type == kReduce && !sim.reduces_allowed(j)) continue;
        const int32_t t = type == kMap ? sim.find_map(j, node, kRemote) : sim.find_reduce(j);
        if (t >= 0) { sim.launch(t, node); return true; }
      }
    }
    return false;
  }

  AdmissionControl admission_;
  int64_t round_robin_queues_;
  std::map<std::string, double> capacities_;
  double max_capacity_;
  std::vector<int32_t> queue_of_;
  std::vector<double> share_;
  std::vector<std::vector<int32_t>> queue_jobs_;
  std::vector<std::pair<double, int32_t>> order_;
};

}  // namespace

void register_hadoop_schedulers() {
  register_scheduler(
      {"fifo", "", "Hadoop 1.2.1 JobQueueTaskScheduler [Sagar & Moni 2015, Fig. 10, Lim et al. 2015, §4.2.2, Wang 2017, §2.4]; strict_locality: FIFO-S [Zhao et al. 2013, §5]",
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
        strict_param()}},
      [](const Params& p) { return std::make_unique<FairScheduler>(p); });
  register_scheduler(
      {"capacity", "", "Hadoop 1.x Capacity Scheduler [Wang 2017, §2.4; FRESH experiments §3.4.2.2]",
       "queues with guaranteed and maximum capacity, most under-served queue first, FIFO inside a queue",
       {admission_param(),
        ParamSpec::integer("queues", 0, 0, 100000,
                           "> 0: assign jobs to this many queues round-robin in submission order; 0 = the workload's queue column"),
        ParamSpec::text("capacities", "", "guaranteed fraction per queue as 'queue:fraction,...'; default equal shares"),
        ParamSpec::number("max_capacity", 1.0, 0, 1, "fraction of the cluster's slots any one queue may use (FRESH: 0.9)")}},
      [](const Params& p) { return std::make_unique<CapacityScheduler>(p); });
}

}  // namespace mr
}  // namespace schedlab
