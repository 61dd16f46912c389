// EAS — Efficiency-Aware Scheduling for MapReduce clusters with dedicated map and reduce
// machines [Zhao et al. 2013, §4 (Algorithms 1–3), §3.4 (adaptive job-scheduling opportunity)].
//
//   eas — push-based: the scheduler keeps a FIFO queue of assigned tasks per machine and
//         starts them as slots free (at once, not at the next heartbeat, unless
//         dispatch = "heartbeat").
//     * Algorithm 1 (job selection): for every waiting job, dry-run Algorithm 2 on a copy of the
//       map machines' loads and pick the job whose placement leaves the smallest standard
//       deviation of load (strict <, so ties go to the earliest arrival).
//     * Algorithm 2 (map placement): each map of the selected job, in task order, goes to the
//       least-loaded machine holding a replica of its block (strict <, ties to the first
//       replica in the workload's replica order); its load is added at once. Strict locality.
//     * Algorithm 3 (reduce placement): when a job's last map ends, each reduce goes to the
//       least-loaded reduce machine (ties to the lowest node id).
//   Map machines are the nodes with map slots, reduce machines the nodes with reduce slots
//   (the paper's 15 + 5 testbed is Cluster(map_slots=[2]*15+[0]*5, reduce_slots=[0]*15+[2]*5)).
//
// Readings of the spec's [CHOICE] items (default first, alternative selectable):
//   - load of a machine [Zhao et al. 2013]: unprocessed bytes of its assigned, unfinished tasks —
//     queued tasks' input plus the not-yet-processed fraction of running ones
//     (running_load = "remaining"; "full" counts a running task's whole input until it ends);
//     a reduce's load is its shuffle input bytes. load_unit = "seconds" uses estimated
//     durations on the machine instead of bytes.
//   - job-selection trigger [Zhao et al. 2013, §4.2]: select while some map machine has an idle
//     slot and nothing queued (trigger = "idle_slot"), or, the other reading of "busy", while
//     some map machine has nothing queued (trigger = "empty_queue"); and always while the
//     waiting set holds n_max or more jobs (n_max = 0: no cap).
//   - job_selection = "fifo" replaces Algorithm 1 by arrival order: the S-push ablation
//     ("EAS without Algorithm 1", Zhao et al. 2013, §5).
// Faults (the paper's testbed has none; schedlab's fault model composes with every scheduler):
// when a crashed node is declared lost, the tasks queued on it, its failed attempts and the maps
// whose outputs were lost with it are placed again by Algorithms 2 and 3 on the machines not
// lost (a map whose every replica holder is lost waits for a holder to restart); until it
// restarts, a lost machine gets no new tasks.
// The scheduler adds series "eas_selection" (time, job, load_std, waiting) logging every
// Algorithm-1 decision, and the per-attempt column "assigned" (when the task was pushed).
#include <algorithm>
#include <cmath>
#include <limits>

#include "mr_common.h"

namespace schedlab {
namespace mr {
namespace {

class EasScheduler : public Scheduler {
 public:
  // with nothing pending no job waits for selection and the node queues hold no pending task
  bool quiet_without_pending() const override { return true; }
  explicit EasScheduler(const Params& p)
      : n_max_(p.integer("n_max")),
        trigger_idle_slot_(p.choice("trigger") == "idle_slot"),
        select_fifo_(p.choice("job_selection") == "fifo"),
        unit_seconds_(p.choice("load_unit") == "seconds"),
        running_full_(p.choice("running_load") == "full"),
        dispatch_heartbeat_(p.choice("dispatch") == "heartbeat") {}

  void init(Sim& sim) override {
    const auto& wl = sim.workload();
    const int32_t n = sim.n_nodes();
    map_index_.assign(n, -1);
    for (int32_t i = 0; i < n; ++i) {
      if (sim.map_capacity(i) > 0) {
        map_index_[i] = int32_t(map_machines_.size());
        map_machines_.push_back(i);
      }
      if (sim.reduce_capacity(i) > 0) reduce_machines_.push_back(i);
    }
    bool any_reduce = false;
    for (size_t j = 0; j < wl.n_jobs(); ++j) any_reduce |= wl.n_reduces(j) > 0;
    if (map_machines_.empty()) throw std::invalid_argument("eas: the cluster has no node with map slots (map machines)");
    if (any_reduce && reduce_machines_.empty())
      throw std::invalid_argument("eas: the workload has reduce tasks but the cluster has no node with reduce slots");
    check_strict_locality(sim, "eas");
    idle_queues_ = map_machines_;
    idle_pos_.assign(n, -1);
    for (size_t k = 0; k < map_machines_.size(); ++k) idle_pos_[map_machines_[k]] = int32_t(k);
    for (int s = 0; s < 2; ++s) {
      queue_[s].assign(n, {});
      queue_head_[s].assign(n, 0);
      queued_load_[s].assign(n, 0.0);
      running_[s].assign(n, {});
    }
    assigned_at_.assign(wl.n_tasks(), std::numeric_limits<double>::quiet_NaN());
    in_queue_.assign(wl.n_tasks(), 0);
    placed_.assign(wl.n_jobs(), 0);
    lost_.assign(n, 0);
    cur_.resize(map_machines_.size());
    dry_.resize(map_machines_.size());
  }

  void on_job_submitted(Sim& sim, int32_t job) override {
    waiting_.push_back(job);
    select_jobs(sim);
  }

  void on_attempt_finished(Sim& sim, int64_t a) override {
    // copies: launching below may move the engine's attempt table
    const int32_t node = sim.attempt(a).node;
    const int type = sim.attempt(a).slot_type;
    auto& run = running_[type][node];
    auto it = std::find(run.begin(), run.end(), a);
    if (it != run.end()) { *it = run.back(); run.pop_back(); }
    if (!dispatch_heartbeat_) drain(sim, node, type);
    if (type == kMap) select_jobs(sim);
  }

  void on_stage_finished(Sim& sim, int32_t job, int stage) override {
    if (stage == kMap && !(placed_[job] & 2)) place_reduces(sim, job);
  }

  void on_node_lost(Sim& sim, int32_t node) override {
    lost_[node] = 1;
    for (int s = 0; s < 2; ++s) {  // take back what was queued there
      auto& q = queue_[s][node];
      for (size_t h = queue_head_[s][node]; h < q.size(); ++h) in_queue_[q[h]] = 0;
      q.clear();
      queue_head_[s][node] = 0;
      queued_load_[s][node] = 0;
      running_[s][node].clear();  // its attempts have failed
    }
    note_map_queue(node);
    // every pending task of a placed stage that no queue holds: the above, failed attempts
    // and lost map outputs
    const auto& wl = sim.workload();
    for (int32_t j : sim.active_jobs()) {
      for (int s = 0; s < 2; ++s) {
        if (!(placed_[j] & (1 << s))) continue;
        const int32_t b = int32_t(wl.task_begin[j] + (s == kMap ? 0 : wl.n_maps[j]));
        const int32_t e = s == kMap ? int32_t(wl.task_begin[j] + wl.n_maps[j]) : int32_t(wl.task_begin[j + 1]);
        for (int32_t t = b; t < e; ++t) {
          if (sim.task_state(t) != kPending || in_queue_[t]) continue;
          if (s == kMap) push(sim, kMap, map_machine_for(sim, t, nullptr), t);
          else push(sim, kReduce, least_loaded_reduce_machine(sim), t);
        }
      }
    }
    if (!dispatch_heartbeat_)
      for (int32_t i = 0; i < sim.n_nodes(); ++i)
        for (int s = 0; s < 2; ++s) drain(sim, i, s);
  }
  void on_node_restarted(Sim& sim, int32_t node) override {
    lost_[node] = 0;
    if (!dispatch_heartbeat_) { drain(sim, node, kMap); drain(sim, node, kReduce); }
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    recover_lost(sim, node);
    drain(sim, node, kMap);
    drain(sim, node, kReduce);
    select_jobs(sim);
  }

  void finish(Sim& sim, SimResult& r) override {
    auto& col = r.att_extra["assigned"];
    col.resize(r.att_task.size());
    for (size_t i = 0; i < r.att_task.size(); ++i) col[i] = assigned_at_[r.att_task[i]];
    r.counters["eas_selections"] = double(selections_);
    r.counters["eas_n_max"] = double(n_max_);
    (void)sim;
  }

 private:
  // ---- loads ----
  double task_load(const Sim& sim, int32_t task, int32_t node) const {
    return unit_seconds_ ? sim.expected_duration(task, node) : sim.workload().input_bytes[task];
  }
  // Unprocessed load of the running attempts of slot type s on node.
  double running_load(const Sim& sim, int s, int32_t node) const {
    double l = 0;
    for (int64_t a : running_[s][node]) {
      const Attempt& at = sim.attempt(a);
      if (at.status != kRunning) continue;
      double frac = 1.0;
      if (!running_full_ && std::isfinite(at.finish) && at.finish > at.start)
        frac = std::clamp((at.finish - sim.now()) / (at.finish - at.start), 0.0, 1.0);
      l += frac * task_load(sim, at.task, node);
    }
    return l;
  }
  double load(const Sim& sim, int s, int32_t node) const { return queued_load_[s][node] + running_load(sim, s, node); }

  // ---- machine queues ----
  bool queue_empty(int s, int32_t node) const { return queue_head_[s][node] >= queue_[s][node].size(); }
  void push(Sim& sim, int s, int32_t node, int32_t task) {
    queue_[s][node].push_back(task);
    if (s == kMap) note_map_queue(node);
    in_queue_[task] = 1;
    queued_load_[s][node] += task_load(sim, task, node);
    assigned_at_[task] = sim.now();
  }
  // Starts queued tasks of type s on node while it has free slots of that type (FIFO).
  void drain(Sim& sim, int32_t node, int s) {
    auto& q = queue_[s][node];
    size_t& h = queue_head_[s][node];
    while (h < q.size() && sim.free_slots(node, s) > 0) {
      const int32_t t = q[h++];
      in_queue_[t] = 0;
      queued_load_[s][node] -= task_load(sim, t, node);
      if (sim.task_state(t) != kPending) continue;
      running_[s][node].push_back(sim.launch(t, node, s));
    }
    if (h >= q.size()) {
      q.clear();
      h = 0;
      queued_load_[s][node] = 0;  // no drift from repeated additions and subtractions
    }
    if (s == kMap) note_map_queue(node);
  }
  // A task whose only attempt was killed on this node is pending again: queue it first.
  void recover_lost(Sim& sim, int32_t node) {
    for (int s = 0; s < 2; ++s) {
      auto& run = running_[s][node];
      for (size_t i = 0; i < run.size();) {
        const Attempt& at = sim.attempt(run[i]);
        if (at.status == kRunning) { ++i; continue; }
        if (sim.task_state(at.task) == kPending && !in_queue_[at.task]) {
          in_queue_[at.task] = 1;
          auto& q = queue_[s][node];
          q.insert(q.begin() + long(queue_head_[s][node]), at.task);
          if (s == kMap) note_map_queue(node);
          queued_load_[s][node] += task_load(sim, at.task, node);
        }
        run[i] = run.back();
        run.pop_back();
      }
    }
  }

  // ---- Algorithm 1 and its trigger ----
  bool opportunity(const Sim& sim) const {
    if (!trigger_idle_slot_) return !idle_queues_.empty();
    for (int32_t m : idle_queues_)
      if (sim.free_slots(m, kMap) > 0) return true;
    return false;
  }
  // The map machines whose map queue is empty, in no particular order (the trigger asks whether
  // one has a free slot), kept as their queues change: jobs wait on a busy cluster with every
  // machine's queue in use, and the trigger need not read them all to see it.
  void note_map_queue(int32_t node) {
    const bool empty = queue_empty(kMap, node);
    int32_t& pos = idle_pos_[size_t(node)];
    if (empty && pos < 0 && map_index_[node] >= 0) {
      pos = int32_t(idle_queues_.size());
      idle_queues_.push_back(node);
    } else if (!empty && pos >= 0) {
      const int32_t last = idle_queues_.back();
      idle_queues_[size_t(pos)] = last;
      idle_pos_[size_t(last)] = pos;
      idle_queues_.pop_back();
      pos = -1;
    }
  }

  void select_jobs(Sim& sim) {
    while (!waiting_.empty() && (opportunity(sim) || (n_max_ > 0 && int64_t(waiting_.size()) >= n_max_))) {
      for (size_t k = 0; k < map_machines_.size(); ++k) cur_[k] = load(sim, kMap, map_machines_[k]);
      size_t best = 0;
      double best_lb = INFINITY;
      if (!select_fifo_) {
        for (size_t w = 0; w < waiting_.size(); ++w) {
          dry_ = cur_;
          plan_maps(sim, waiting_[w], dry_, false);
          const double lb = std_dev(dry_);
          if (lb < best_lb) { best_lb = lb; best = w; }
        }
      } else {
        dry_ = cur_;
        plan_maps(sim, waiting_[0], dry_, false);
        best_lb = std_dev(dry_);
      }
      const int32_t job = waiting_[best];
      sim.series("eas_selection", {"time", "job", "load_std", "waiting"})
          .add_row({sim.now(), double(job), best_lb, double(waiting_.size())});
      waiting_.erase(waiting_.begin() + long(best));
      ++selections_;
      plan_maps(sim, job, cur_, true);
      if (sim.workload().n_maps[job] == 0) place_reduces(sim, job);
    }
  }

  static double std_dev(const std::vector<double>& v) {
    double mean = 0;
    for (double x : v) mean += x;
    mean /= double(v.size());
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    return std::sqrt(ss / double(v.size()));
  }

  // ---- Algorithm 2: each map to the least-loaded replica holder; commit = push and start ----
  void plan_maps(Sim& sim, int32_t job, std::vector<double>& loads, bool commit) {
    const auto& wl = sim.workload();
    const int32_t b = int32_t(wl.task_begin[job]), e = b + wl.n_maps[job];
    for (int32_t t = b; t < e; ++t) {
      const int32_t node = map_machine_for(sim, t, &loads);
      loads[map_index_[node]] += task_load(sim, t, node);
      if (commit) push(sim, kMap, node, t);
    }
    if (commit) placed_[job] |= 1;
    if (commit && !dispatch_heartbeat_)
      for (int32_t m : map_machines_) drain(sim, m, kMap);
  }

  // Algorithm 2's choice for map t: the least-loaded machine (by `loads`, or the current loads)
  // holding a replica, among those not lost if any is.
  int32_t map_machine_for(const Sim& sim, int32_t t, const std::vector<double>* loads) {
    const auto& reps = sim.replicas_of(t, scratch_);
    auto load_of = [&](int32_t k) { return loads ? (*loads)[k] : load(sim, kMap, map_machines_[k]); };
    int32_t best = -1;
    for (int pass = 0; pass < 2 && best < 0; ++pass) {  // pass 1 admits lost machines
      auto consider = [&](int32_t k) {
        if (k < 0 || (pass == 0 && lost_[map_machines_[k]])) return;  // k < 0: a replica without map slots
        if (best < 0 || load_of(k) < load_of(best)) best = k;
      };
      if (reps.empty()) {  // no locality information: least-loaded map machine
        for (size_t k = 0; k < map_machines_.size(); ++k) consider(int32_t(k));
      } else {
        for (int32_t node : reps) consider(map_index_[node]);
      }
    }
    return map_machines_[best];
  }
  int32_t least_loaded_reduce_machine(const Sim& sim) {
    int32_t best = -1;
    double best_load = INFINITY;
    for (int pass = 0; pass < 2 && best < 0; ++pass)
      for (int32_t r : reduce_machines_) {
        if (pass == 0 && lost_[r]) continue;
        const double l = load(sim, kReduce, r);
        if (best < 0 || l < best_load) { best = r; best_load = l; }
      }
    return best;
  }

  // ---- Algorithm 3: each reduce to the least-loaded reduce machine ----
  void place_reduces(Sim& sim, int32_t job) {
    const auto& wl = sim.workload();
    const int32_t b = int32_t(wl.task_begin[job] + wl.n_maps[job]), e = int32_t(wl.task_begin[job + 1]);
    placed_[job] |= 2;
    if (b == e) return;
    const size_t n = reduce_machines_.size();
    rload_.resize(n);
    for (size_t k = 0; k < n; ++k) rload_[k] = load(sim, kReduce, reduce_machines_[k]);
    bool any_up = false;
    for (int32_t r : reduce_machines_) any_up |= !lost_[r];
    // The least-loaded machine (the first of the least loads, as a scan in machine order finds it)
    // from a tournament over the machines: the winner of two is the later one only if its load is
    // below the earlier one's. A reduce placed changes its machine's load, and the path above it
    // is played again: O(log machines) per reduce instead of a scan.
    size_t leaves = 1;
    while (leaves < n) leaves *= 2;
    auto& tree = rtree_;
    tree.assign(2 * leaves, -1);
    auto play = [&](int32_t x, int32_t y) { return x < 0 || (y >= 0 && rload_[size_t(y)] < rload_[size_t(x)]) ? y : x; };
    for (size_t k = 0; k < n; ++k)
      if (!any_up || !lost_[reduce_machines_[k]]) tree[leaves + k] = int32_t(k);
    for (size_t i = leaves - 1; i >= 1; --i) tree[i] = play(tree[2 * i], tree[2 * i + 1]);
    for (int32_t t = b; t < e; ++t) {
      const size_t best = size_t(tree[1]);
      const int32_t node = reduce_machines_[best];
      rload_[best] += task_load(sim, t, node);
      push(sim, kReduce, node, t);
      for (size_t i = (leaves + best) / 2; i >= 1; i /= 2) tree[i] = play(tree[2 * i], tree[2 * i + 1]);
    }
    if (!dispatch_heartbeat_)
      for (int32_t r : reduce_machines_) drain(sim, r, kReduce);
  }

  int64_t n_max_;
  bool trigger_idle_slot_, select_fifo_, unit_seconds_, running_full_, dispatch_heartbeat_;
  std::vector<int32_t> map_machines_, reduce_machines_, map_index_;
  std::vector<std::vector<int32_t>> queue_[2];
  std::vector<size_t> queue_head_[2];
  std::vector<int32_t> idle_queues_;  // map machines with an empty map queue (note_map_queue)
  std::vector<int32_t> idle_pos_;     // per node: its place in idle_queues_, or -1
  std::vector<double> queued_load_[2];
  std::vector<std::vector<int64_t>> running_[2];
  std::vector<int32_t> waiting_;
  std::vector<double> cur_, dry_, rload_, assigned_at_;
  std::vector<int32_t> rtree_;  // place_reduces' tournament over the reduce machines
  std::vector<uint8_t> in_queue_;  // per task: waiting in some machine's queue
  std::vector<uint8_t> placed_;    // per job: bit 0 maps placed (Algorithm 2), bit 1 reduces (Algorithm 3)
  std::vector<uint8_t> lost_;      // per node: declared lost and not yet restarted
  std::vector<int32_t> scratch_;
  int64_t selections_ = 0;
};

}  // namespace

void register_eas_schedulers() {
  register_scheduler(
      {"eas", "", "EAS, Efficiency-Aware Scheduling [Zhao et al. 2013, §4: Algorithms 1-3, §3.4]",
       "push-based; job chosen by load-balance dry run, maps to least-loaded replica (strict locality), "
       "reduces to least-loaded reduce machine; dedicated map and reduce machines",
       {ParamSpec::integer("n_max", 10, 0, 1000000,
                           "select jobs while the waiting set holds at least this many, even if every map machine is busy "
                           "(the paper's threshold, value not given; 0 = no cap)"),
        ParamSpec::choice("trigger", "idle_slot", {"idle_slot", "empty_queue"},
                          "job-selection opportunity: 'idle_slot' (default) = some map machine has a free slot and nothing "
                          "queued; 'empty_queue' = some map machine has nothing queued (the other reading of 'busy')"),
        ParamSpec::choice("job_selection", "load_balance", {"load_balance", "fifo"},
                          "'load_balance' = Algorithm 1 (default); 'fifo' = arrival order (S-push ablation: EAS without Algorithm 1)"),
        ParamSpec::choice("load_unit", "bytes", {"bytes", "seconds"},
                          "machine load in unprocessed input bytes (default; a reduce counts its shuffle input) or in "
                          "estimated task seconds on the machine"),
        ParamSpec::choice("running_load", "remaining", {"remaining", "full"},
                          "a running task adds the unprocessed fraction of its load (default) or its whole load until it ends"),
        ParamSpec::choice("dispatch", "immediate", {"immediate", "heartbeat"},
                          "machines start queued tasks as soon as a slot frees (push-based, default) or only at their heartbeats")}},
      [](const Params& p) { return std::make_unique<EasScheduler>(p); });
}

}  // namespace mr
}  // namespace schedlab
