// Speculative execution policies for the MapReduce engine (see schedlab/speculation.h):
//   hadoop  — Hadoop 0.21 JobInProgress.findSpeculativeTask (HADOOP-2141) [Sagar & Moni 2015, §III]
//   yarn    — YARN 2.7 DefaultSpeculator, Eq. 5.1/5.2 ("LATE" in the dissertation) [Wang 2017, §2.4]
//   late    — original LATE (Zaharia et al., OSDI'08) [Wang 2017, §2.4 (E); Sagar & Moni 2015, §III]
//   esplash — eSplash, Algorithms 5.2.1-5.2.3 and the §5.2.4 enhancements [Wang 2017, §5.2.1; §5.2.3]
//   sepb    — DynamicMR's SEPB over the Hadoop rule [Sagar & Moni 2015, §III]
// The progress-rate estimation they share (progress score, elapsed time, progress rate, time
// left, Eq. 5.1's estimated end, finished-duration statistics per job and stage) is written once
// in Estimator below; the engine supplies Hadoop's progress scores (Sim::progress).
#include "schedlab/speculation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace schedlab::mr {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Hadoop's progress rates divide by at least a millisecond (TaskInProgress.getCurrentProgressRate)
constexpr double kMinElapsed = 1e-3;

struct Stat {
  double n = 0, sum = 0, sumsq = 0;
  void add(double x) { n += 1; sum += x; sumsq += x * x; }
  void merge(const Stat& o) { n += o.n; sum += o.sum; sumsq += o.sumsq; }
  void remove(double x) { n -= 1; sum -= x; sumsq -= x * x; }
  double mean() const { return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN(); }
  double sd() const {
    if (n < 2) return 0;
    const double m = sum / n;
    return std::sqrt(std::max(0.0, sumsq / n - m * m));
  }
};

// A job's stage as an index (its statistics, its group of the snapshot).
inline size_t stage_key(int32_t job, int stage) { return 2 * size_t(job) + size_t(stage); }

// One running attempt as a speculator sees it.
struct Running {
  int64_t attempt;
  int32_t task, job, node;
  int stage;
  double progress;   // Hadoop progress score in [0, 1]
  double elapsed;    // now - start
  double rate;       // progress / elapsed (0 when unknown)
  double time_left;  // (1 - progress) / rate (inf when unknown)
  double est_end;    // Eq. 5.1: start + elapsed / progress (inf when progress is 0)
  bool alone;        // the task's only running attempt
};

// Finished-duration statistics of one job's stage per node, in a small open-addressing table: a
// stage's attempts finish on few of the nodes, and its table goes when its job ends.
class NodeStats {
 public:
  Stat& at(int32_t node) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    Entry& e = slots_[slot(node)];
    if (e.node < 0) { e.node = node; ++used_; }
    return e.stat;
  }
  const Stat* find(int32_t node) const {
    if (slots_.empty()) return nullptr;
    const Entry& e = slots_[slot(node)];
    return e.node < 0 ? nullptr : &e.stat;
  }
  bool empty() const { return slots_.empty(); }
  void clear() { std::vector<Entry>().swap(slots_); used_ = 0; }
  // f(node, stat) for each node with statistics, in no particular order
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& e : slots_)
      if (e.node >= 0) f(e.node, e.stat);
  }

 private:
  struct Entry {
    int32_t node = -1;
    Stat stat;
  };
  size_t slot(int32_t node) const {
    const size_t mask = slots_.size() - 1;
    size_t i = (uint32_t(node) * 2654435761u) & mask;
    while (slots_[i].node >= 0 && slots_[i].node != node) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Entry> old(std::max<size_t>(8, 2 * slots_.size()));
    old.swap(slots_);
    for (const Entry& e : old)
      if (e.node >= 0) slots_[slot(e.node)] = e;
  }
  std::vector<Entry> slots_;
  size_t used_ = 0;
};

// The shared progress-rate estimation.
class Estimator {
 public:
  // per_node: keep the statistics per node too (Hadoop's slow-tracker test reads them)
  void init(const Sim& sim, bool per_node) {
    stats_.assign(2 * sim.workload().n_jobs(), Stat{});
    finished_rates_.assign(stats_.size(), Stat{});
    node_stats_.assign(per_node ? stats_.size() : 0, NodeStats{});
    tracker_means_.assign(per_node ? stats_.size() : 0, Stat{});
    with_node_stats_.clear();
    sweep_at_ = 64;
    running_.clear();
    seen_attempts_ = 0;
    check_all_at_ = 1024;
  }
  // Successful attempts feed the finished-duration statistics of their job and stage.
  void on_finished(const Sim& sim, int64_t a) {
    const Attempt& at = sim.attempt(a);
    if (at.status != kSucceeded) return;
    const auto& wl = sim.workload();
    const size_t key = stage_key(wl.task_job[at.task], wl.task_stage[at.task]);
    const double d = at.finish - at.start;
    stats_[key].add(d);
    finished_rates_[key].add(1.0 / std::max(d, kMinElapsed));
    if (node_stats_.empty()) return;  // (no per-node statistics kept)
    if (node_stats_[key].empty()) {
      with_node_stats_.push_back(key);
      if (with_node_stats_.size() >= sweep_at_) sweep(sim);
    }
    Stat& mine = node_stats_[key].at(at.node);
    Stat& means = tracker_means_[key];
    if (mine.n > 0) means.remove(mine.mean());
    mine.add(d);
    means.add(mine.mean());
  }
  // Mean and spread of the per-node mean durations of a job's stage (Hadoop's slow-tracker test).
  const Stat* tracker_means(int32_t job, int stage) const {
    const Stat& s = tracker_means_[stage_key(job, stage)];
    return s.n > 0 ? &s : nullptr;
  }
  const Stat& finished(int32_t job, int stage) const { return stats_[stage_key(job, stage)]; }
  // The final progress rates (1 / duration) of the job's stage's finished tasks.
  const Stat& finished_rates(int32_t job, int stage) const { return finished_rates_[stage_key(job, stage)]; }
  const Stat* finished_on(int32_t job, int stage, int32_t node) const {
    return node_stats_[stage_key(job, stage)].find(node);
  }
  // Every running attempt of the cluster, with its estimates, in attempt order or (by_group) by
  // job, stage and attempt; `out` is reused between calls. The running attempts are kept from one
  // snapshot to the next in that order: those that ended drop out, and those launched since (their
  // ids above every earlier one) are merged in, so a snapshot reads only the running attempts and
  // sorts only the new ones. (An attempt runs from its launch until its status changes.)
  // By group, want(job, stage) says which stages the caller reads: the attempts of the others
  // are left out of `out` unread, and their ended attempts are dropped from the kept list by a
  // pass over all of it whenever the list has doubled since the last such pass.
  template <class Want>
  void snapshot(const Sim& sim, std::vector<Running>& out, bool by_group, Want&& want) {
    const auto& wl = sim.workload();
    auto id = [](uint64_t k) { return int64_t(k & kAttemptBits); };
    // A day's attempts are millions and the running ones lie far apart among them: the loops
    // below fetch what they read of an attempt kAhead attempts ahead, so that the misses overlap.
    constexpr size_t kAhead = 8;
    const bool all = !by_group || running_.size() >= check_all_at_;
    pick(all, want);
    for (size_t i = 0, n = picked_.size(); i < n; ++i) {
      if (i + kAhead < n) __builtin_prefetch(&sim.attempt(id(running_[picked_[i + kAhead]])));
      if (sim.attempt(id(running_[picked_[i]])).status != kRunning) running_[picked_[i]] = kEnded;
    }
    running_.erase(std::remove(running_.begin(), running_.end(), kEnded), running_.end());
    const size_t kept = running_.size();
    for (int64_t a = seen_attempts_; a < sim.n_attempts(); ++a)
      if (sim.attempt(a).status == kRunning)
        running_.push_back(by_group ? uint64_t(wl.task_job[sim.attempt(a).task]) << 32 |
                                          uint64_t(wl.task_stage[sim.attempt(a).task]) << 31 | uint64_t(a)
                                    : uint64_t(a));
    seen_attempts_ = sim.n_attempts();
    if (by_group) {
      std::sort(running_.begin() + std::ptrdiff_t(kept), running_.end());
      std::inplace_merge(running_.begin(), running_.begin() + std::ptrdiff_t(kept), running_.end());
    }
    if (all) check_all_at_ = std::max<size_t>(1024, 2 * running_.size());
    pick(!by_group, want);
    out.resize(picked_.size());
    const double now = sim.now();
    for (size_t i = 0, n = picked_.size(); i < n; ++i) {
      if (i + kAhead < n) {
        const int32_t t = sim.attempt(id(running_[picked_[i + kAhead]])).task;  // (read just above)
        __builtin_prefetch(&wl.task_job[t]);
        __builtin_prefetch(&wl.task_stage[t]);
        sim.prefetch_task_runtime(t);
      }
      const int64_t a = id(running_[picked_[i]]);
      const Attempt& at = sim.attempt(a);
      Running& r = out[i];
      r.attempt = a;
      r.task = at.task;
      r.job = wl.task_job[at.task];
      r.stage = wl.task_stage[at.task];
      r.node = at.node;
      r.progress = sim.progress(a);
      r.elapsed = now - at.start;
      r.rate = r.elapsed > 0 ? r.progress / r.elapsed : 0.0;
      r.time_left = r.rate > 0 ? (1.0 - r.progress) / r.rate : kInf;
      r.est_end = r.progress > 0 ? at.start + r.elapsed / r.progress : kInf;
      r.alone = sim.running_attempts(at.task) == 1;
    }
  }
  void snapshot(const Sim& sim, std::vector<Running>& out, bool by_group) {
    snapshot(sim, out, by_group, [](int32_t, int) { return true; });
  }
  static bool ran_on(const Sim& sim, int32_t task, int32_t node) {
    for (int64_t a = sim.last_attempt(task); a >= 0; a = sim.attempt(a).prev_same_task)
      if (sim.attempt(a).node == node) return true;
    return false;
  }

 private:
  // Frees the per-node tables of ended jobs (no speculator asks about a job once it has ended).
  void sweep(const Sim& sim) {
    size_t kept = 0;
    for (size_t key : with_node_stats_) {
      if (std::isnan(sim.job(int32_t(key / 2)).finish)) with_node_stats_[kept++] = key;
      else node_stats_[key].clear();
    }
    with_node_stats_.resize(kept);
    sweep_at_ = std::max<size_t>(64, 2 * kept);
  }
  std::vector<Stat> stats_, finished_rates_;
  // per job and stage, if kept (init's per_node): the statistics per node, and over the nodes' means
  std::vector<NodeStats> node_stats_;
  std::vector<Stat> tracker_means_;
  std::vector<size_t> with_node_stats_;  // the job-and-stage keys with a per-node table
  size_t sweep_at_ = 64;
  // the running attempts as of the last snapshot, as sort keys: the attempt id in the low 31 bits,
  // above it (by group) the stage and the job
  static constexpr uint64_t kAttemptBits = (uint64_t(1) << 31) - 1;
  std::vector<uint64_t> running_;
  int64_t seen_attempts_ = 0;  // attempts launched before the last snapshot
  static constexpr uint64_t kEnded = ~uint64_t(0);
  size_t check_all_at_ = 1024;  // (by group) the kept list's size at which all of it is checked
  std::vector<uint32_t> picked_;  // positions in running_ a snapshot reads, in order
  // Picks every position, or (not all: running_ by group) those of the stages `want` accepts.
  template <class Want>
  void pick(bool all, Want& want) {
    picked_.clear();
    if (all) {
      for (size_t i = 0; i < running_.size(); ++i) picked_.push_back(uint32_t(i));
      return;
    }
    for (size_t i = 0; i < running_.size();) {
      const uint64_t stage = running_[i] >> 31;  // (2 x job + stage)
      size_t e = i + 1;
      while (e < running_.size() && running_[e] >> 31 == stage) ++e;
      if (want(int32_t(stage >> 1), int(stage & 1)))
        for (; i < e; ++i) picked_.push_back(uint32_t(i));
      i = e;
    }
  }
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

// Common plumbing: the estimator, counters, and a queue of speculative requests that heartbeats
// fill (YARN-style: a request waits in the pending queue until a suitable container frees).
class SpeculatorBase : public Speculator {
 public:
  void init(Sim& sim) override {
    est_.init(sim, per_node_stats());
    n_tasks_ = sim.workload().n_tasks();
    group_at_.assign(2 * size_t(sim.workload().n_jobs()), 0);
    groups_.clear();
  }
  void on_attempt_finished(Sim& sim, int64_t a) override { est_.on_finished(sim, a); }
  void finish(Sim&, SimResult& r) override {
    r.counters["speculative_launched"] = double(launched_);
    r.counters["speculative_max_running"] = double(max_running_);
    for (auto& [k, v] : counters_) r.counters[k] = v;
  }

 protected:
  struct Request {
    int32_t task;
    int32_t min_level;
    double submitted;
    double value;
  };
  // Whether the policy reads finished durations per node (Estimator::finished_on).
  virtual bool per_node_stats() const { return false; }
  // May a request's copy run on `node`? (the original's node is excluded by place_requests)
  virtual bool eligible(const Sim&, int32_t /*node*/, const Request&) const { return true; }

  int64_t launch_copy(Sim& sim, int32_t task, int32_t node) {
    const int64_t a = sim.launch(task, node, sim.workload().task_stage[task], true);
    ++launched_;
    max_running_ = std::max<int64_t>(max_running_, sim.speculative_running_total());
    return a;
  }
  bool requested(int32_t task) const { return size_t(task) < requested_.size() && requested_[task]; }
  void add_request(const Request& r) {
    if (requested_.empty()) requested_.assign(n_tasks_, 0);
    requested_[r.task] = 1;
    requests_.push_back(r);
  }
  void drop_request(size_t i) {
    requested_[requests_[i].task] = 0;
    requests_.erase(requests_.begin() + i);
  }
  // A request is live while its task still runs as a single attempt.
  static bool live(const Sim& sim, int32_t task) {
    return sim.task_state(task) == kActive && sim.running_attempts(task) == 1;
  }
  void place_requests(Sim& sim, int32_t node) {
    for (size_t i = 0; i < requests_.size();) {
      const Request r = requests_[i];
      if (!live(sim, r.task)) { drop_request(i); counters_["speculative_requests_dropped"] += 1; continue; }
      const int stage = sim.workload().task_stage[r.task];
      if (eligible(sim, node, r) && !running_here(sim, r.task, node) && sim.fits(r.task, node, stage)) {
        launch_copy(sim, r.task, node);
        drop_request(i);
        continue;
      }
      ++i;
    }
  }
  static bool running_here(const Sim& sim, int32_t task, int32_t node) {
    for (int64_t a = sim.last_attempt(task); a >= 0; a = sim.attempt(a).prev_same_task)
      if (sim.attempt(a).status == kRunning && sim.attempt(a).node == node) return true;
    return false;
  }

  // The running attempts grouped by (job, stage), refreshed at most once per `ttl` seconds: the
  // JobTracker sees progress as of each tracker's last heartbeat, so heartbeat-driven
  // speculators use estimates up to one heartbeat interval old. Whether an attempt still runs
  // alone is checked live (still_alone).
  struct Group {
    size_t begin, end;  // range of snap_
    Stat rates;         // progress rates of the attempts running alone
    double min_rate;    // the smallest of them
    Stat copied;        // per task with several running attempts, the best of their rates
  };
  void refresh(const Sim& sim, double ttl) {
    if (snap_time_ >= 0 && sim.now() - snap_time_ < ttl) return;
    snap_time_ = sim.now();
    est_.snapshot(sim, snap_, true, [&](int32_t job, int stage) { return reads_stage(job, stage); });  // (by job, stage and attempt)
    for (size_t k : group_keys_) group_at_[k] = 0;
    groups_.clear();
    group_keys_.clear();
    for (size_t i = 0; i < snap_.size();) {
      size_t e = i;
      Group g{i, i, Stat{}, kInf, Stat{}};
      copies_.clear();
      while (e < snap_.size() && snap_[e].job == snap_[i].job && snap_[e].stage == snap_[i].stage) {
        if (snap_[e].alone) { g.rates.add(snap_[e].rate); g.min_rate = std::min(g.min_rate, snap_[e].rate); }
        else copies_.push_back({snap_[e].task, snap_[e].rate});
        ++e;
      }
      if (!copies_.empty()) {  // (rare: the tasks with a copy running)
        std::sort(copies_.begin(), copies_.end());
        for (size_t k = 0; k < copies_.size(); ++k)
          if (k + 1 == copies_.size() || copies_[k + 1].first != copies_[k].first) g.copied.add(copies_[k].second);
      }
      g.end = e;
      groups_.push_back(g);
      group_keys_.push_back(stage_key(snap_[i].job, snap_[i].stage));
      group_at_[group_keys_.back()] = int32_t(groups_.size());
      i = e;
    }
    on_refresh(sim);
  }
  // After a new snapshot: what a policy derives from it.
  virtual void on_refresh(const Sim&) {}
  // Whether the policy reads a stage's group: the others are left out of the snapshot.
  virtual bool reads_stage(int32_t /*job*/, int /*stage*/) const { return true; }
  void invalidate() { snap_time_ = -1; }
  const Group* group(int32_t job, int stage) const {
    const int32_t g = group_at_[stage_key(job, stage)];
    return g == 0 ? nullptr : &groups_[size_t(g) - 1];
  }
  static bool still_alone(const Sim& sim, const Running& r) {
    return sim.attempt(r.attempt).status == kRunning && sim.running_attempts(r.task) == 1;
  }
  // An attempt a policy may copy, with its time left: lists of them are ordered the longest time
  // left first, the snapshot's order among equals, so that a lookup takes the first one that its
  // live tests pass, as a scan for the longest time left would.
  struct Candidate {
    double left;
    uint32_t entry;  // in snap_
  };
  static void longest_first(std::vector<Candidate>::iterator begin, std::vector<Candidate>::iterator end) {
    std::stable_sort(begin, end, [](const Candidate& x, const Candidate& y) { return x.left > y.left; });
  }

  Estimator est_;
  std::vector<Running> snap_;
  std::vector<std::pair<int32_t, double>> copies_;  // (refresh's: a group's attempts that are not alone)
  // the snapshot's groups, in snap_'s order, found by job and stage through group_at_ (index + 1,
  // 0: none)
  std::vector<Group> groups_;
  std::vector<size_t> group_keys_;  // per group: 2 x job + stage
  std::vector<int32_t> group_at_;
  double snap_time_ = -1;
  std::vector<Request> requests_;
  std::vector<uint8_t> requested_;  // per task: has a request waiting
  size_t n_tasks_ = 0;
  std::map<std::string, double> counters_;
  int64_t launched_ = 0, max_running_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The JobTracker's speculation of Hadoop 0.21 (JobInProgress.findSpeculativeTask and
// TaskInProgress.canBeSpeculated, HADOOP-2141) [Sagar & Moni 2015, §III]: on a heartbeat, a free
// slot is offered to jobs in order; a job offers a copy of its running task with the longest
// estimated time left, unless the tracker is slow for the job or the job is at its speculative
// cap; candidates have one running attempt, have run at least SPECULATIVE_LAG, have not run on
// this host, and have a progress rate more than threshold x std below the mean of the job's
// statistics. Those statistics (runningMapTaskStats / runningReduceTaskStats) hold a rate per
// task ever scheduled: a running task's current best rate, and a finished task's last one (1 /
// its duration), never removed; `rate_statistics=running` takes the running tasks alone, each
// running attempt's rate (a reading that keeps finished tasks out).
class HadoopSpeculator : public SpeculatorBase {
 public:
  explicit HadoopSpeculator(const Params& p)
      : spec_cap_(p.number("speculative_cap")),
        slow_task_(p.number("slow_task_threshold")),
        slow_node_(p.number("slow_node_threshold")),
        lag_(p.number("speculative_lag")),
        min_spec_cap_(p.integer("min_spec_cap")),
        min_slots_cap_(p.number("min_slots_cap")),
        job_order_(p.boolean("job_order")),
        running_only_(p.choice("rate_statistics") == "running") {}

  void before_heartbeat(Sim& sim, int32_t node) override {
    if (job_order_) speculate_ahead(sim, node);
  }
  void on_heartbeat(Sim& sim, int32_t node) override { speculate_on(sim, node); }
  bool per_node_stats() const override { return true; }

  // Per node: whether it is a slow tracker (JobInProgress.isSlowTracker) for some active job's
  // maps or reduces.
  void report(Sim& sim, SchedulerReport& r) override {
    for (int stage = 0; stage < 2; ++stage) {
      auto& v = r.node[stage == kMap ? "map_slow_tracker" : "reduce_slow_tracker"];
      v.assign(size_t(sim.n_nodes()), 0.0);
      for (int32_t node = 0; node < sim.n_nodes(); ++node)
        for (int32_t j : sim.active_jobs())
          if (slow_tracker(j, stage, node)) v[size_t(node)] = 1.0;
    }
  }

 protected:
  // SEPB's veto on speculation for a slot type.
  virtual bool allowed(Sim&, int /*stage*/) { return true; }

  // Hadoop 1.2.1 offers a slot to jobs in order, and a job without pending tasks of the slot's
  // type offers a copy before the jobs behind it get their pending tasks. Before the scheduler
  // runs, copies go to the jobs (in submission order) ahead of the first job with pending work.
  void speculate_ahead(Sim& sim, int32_t node) {
    for (int stage = 0; stage < 2; ++stage) {
      if (sim.free_slots(node, stage) <= 0 || sim.total_running(stage) == 0 || sim.total_pending(stage) == 0) continue;
      if (!allowed(sim, stage)) continue;
      for (int guard = sim.free_slots(node, stage); guard > 0; --guard) {
        int32_t task = -1;
        for (int32_t j : sim.active_jobs()) {
          if (sim.job(j).pending[stage] > 0 && (stage == kMap || sim.reduces_allowed(j))) break;
          task = find_speculative(sim, j, stage, node);
          if (task >= 0) break;
        }
        if (task < 0 || !sim.fits(task, node, stage)) break;
        launch_copy(sim, task, node);
      }
    }
  }

  // Fills the slots of `node` the scheduler left free with copies, jobs in submission order.
  void speculate_on(Sim& sim, int32_t node) {
    for (int stage = 0; stage < 2; ++stage) {
      if (sim.free_slots(node, stage) <= 0 || sim.total_running(stage) == 0) continue;
      if (!allowed(sim, stage)) continue;
      for (int guard = sim.free_slots(node, stage); guard > 0; --guard) {
        int32_t task = -1;
        for (int32_t j : sim.active_jobs()) {
          task = find_speculative(sim, j, stage, node);
          if (task >= 0) break;
        }
        if (task < 0 || !sim.fits(task, node, stage)) break;
        launch_copy(sim, task, node);
      }
    }
  }

  bool slow_tracker(int32_t job, int stage, int32_t node) const {
    const Stat* mine = est_.finished_on(job, stage, node);
    if (!mine || mine->n == 0) return false;
    const Stat* means = est_.tracker_means(job, stage);
    return mine->mean() - means->mean() > slow_node_ * means->sd();
  }

  bool at_cap(const Sim& sim, int32_t job, int stage) const {
    const double running = sim.job(job).running[stage];
    if (running == 0) return true;
    const int32_t spec = sim.speculative_running(job, stage);
    if (spec < min_spec_cap_) return false;
    const double slots = stage == kMap ? sim.total_map_slots() : sim.total_reduce_slots();
    if (spec < slots * min_slots_cap_) return false;
    return spec / running >= spec_cap_;
  }

  // Per group of the snapshot, its candidates (longest_first): the attempts whose progress rate is
  // below mean - threshold x std of the group's rates and whose progress is below 1.
  void on_refresh(const Sim& sim) override {
    slow_.assign(groups_.size(), Slow{});
    candidates_.clear();
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      const Group& g = groups_[gi];
      if (g.rates.n == 0) continue;
      Stat stats = g.rates;
      if (!running_only_) {
        stats.merge(g.copied);
        stats.merge(est_.finished_rates(snap_[g.begin].job, snap_[g.begin].stage));
      }
      const double limit = stats.mean() - slow_task_ * stats.sd();
      if (!(g.min_rate < limit)) continue;
      Slow& sl = slow_[gi];
      sl.begin = uint32_t(candidates_.size());
      for (size_t i = g.begin; i < g.end; ++i)
        if (snap_[i].rate < limit && snap_[i].progress < 1) {
          candidates_.push_back({time_left(snap_[i]), uint32_t(i)});
          sl.first_start = std::min(sl.first_start, sim.attempt(snap_[i].attempt).start);
        }
      sl.end = uint32_t(candidates_.size());
      longest_first(candidates_.begin() + sl.begin, candidates_.begin() + sl.end);
    }
  }

  int32_t find_speculative(Sim& sim, int32_t job, int stage, int32_t node) {
    if (sim.job(job).running[stage] == 0) return -1;
    refresh(sim, sim.heartbeat_interval());
    const Group* g = group(job, stage);
    if (!g) return -1;
    const Slow& sl = slow_[size_t(g - groups_.data())];
    if (sim.now() - sl.first_start < lag_) return -1;  // no slow task, or none has run SPECULATIVE_LAG yet
    if (at_cap(sim, job, stage) || slow_tracker(job, stage, node)) return -1;
    for (uint32_t k = sl.begin; k < sl.end; ++k) {
      const Running& r = snap_[candidates_[k].entry];
      if (sim.now() - sim.attempt(r.attempt).start < lag_) continue;
      if (!still_alone(sim, r) || Estimator::ran_on(sim, r.task, node)) continue;
      return r.task;
    }
    return -1;
  }
  // Hadoop sorts by progressRate / max(1e-4, 1 - progress): the longest time left first
  static double time_left(const Running& r) { return (1.0 - r.progress) / std::max(r.rate, 1e-12); }

  struct Slow {
    uint32_t begin = 0, end = 0;  // its candidates_
    double first_start = kInf;    // the earliest start among them (none: inf)
  };
  std::vector<Slow> slow_;  // per group of the snapshot
  std::vector<Candidate> candidates_;

  double spec_cap_, slow_task_, slow_node_, lag_;
  int64_t min_spec_cap_;
  double min_slots_cap_;
  bool job_order_;
  bool running_only_;
};

std::vector<ParamSpec> hadoop_params() {
  return {
      ParamSpec::number("speculative_cap", 0.1, 0, 1, "mapreduce.job.speculative.speculativecap: speculative / running tasks of a job"),
      ParamSpec::number("slow_task_threshold", 1.0, 0, 100, "a task is slow if its progress rate is this many std below the job's mean"),
      ParamSpec::number("slow_node_threshold", 1.0, 0, 100, "a tracker is slow for a job if its mean task time is this many std above the mean of tracker means"),
      ParamSpec::number("speculative_lag", 60, 0, 1e9, "SPECULATIVE_LAG: seconds a task must have run before it may be speculated"),
      ParamSpec::integer("min_spec_cap", 10, 0, 1000000, "MIN_SPEC_CAP: the cap is never hit below this many speculative tasks"),
      ParamSpec::number("min_slots_cap", 0.01, 0, 1, "MIN_SLOTS_CAP: nor below this fraction of the cluster's slots of the type"),
      ParamSpec::boolean("job_order", true,
                         "a job without pending tasks of a slot's type offers its copy before later jobs' pending tasks "
                         "(Hadoop 1.2.1; jobs in submission order); false = copies only in slots the scheduler leaves free"),
      ParamSpec::choice("rate_statistics", "scheduled", {"scheduled", "running"},
                        "the progress rates a task's is compared with: every task scheduled so far, finished ones at their "
                        "last rate (Hadoop's runningMapTaskStats / runningReduceTaskStats), or the running attempts alone"),
  };
}

// ---------------------------------------------------------------------------------------------
// SEPB [Sagar & Moni 2015, §III] on the Hadoop rule: before a free slot goes to a speculative copy, up to
// maxNum = ceil(percentage x active jobs) jobs, from the head of the job list (submission order),
// are checked for pending tasks of the slot's type; if one has any, no copy is launched and the
// slot is left to the scheduler's pending work. percentage = 0 is the Hadoop rule unchanged.
// Straggler kill: an attempt that has run longer than kill_factor x the mean completed time of
// its job and stage is killed (once per task) and the task re-runs at top priority. kill_mode
// 'replace' (default): the kill happens when another node offers a free slot of the type, and the
// replacement takes that slot at once; 'requeue': killed when noticed, the task re-queued for the
// scheduler (it may land on the same slow node, whose slot the kill freed).
class SepbSpeculator : public HadoopSpeculator {
 public:
  explicit SepbSpeculator(const Params& p)
      : HadoopSpeculator(p),
        percentage_(p.number("percentage")),
        kill_factor_(p.number("kill_factor")),
        replace_(p.choice("kill_mode") == "replace") {}

  void init(Sim& sim) override {
    HadoopSpeculator::init(sim);
    killed_.assign(sim.workload().n_tasks(), 0);
  }
  void before_heartbeat(Sim& sim, int32_t node) override {
    if (kill_factor_ > 0) {
      if (replace_) replace_stragglers(sim, node);
      else kill_stragglers(sim);
    }
    HadoopSpeculator::before_heartbeat(sim, node);
  }

 protected:
  bool allowed(Sim& sim, int stage) override { return !pending_in_checked_jobs(sim, stage); }

 private:
  bool overdue(const Sim& sim, const Running& r) const {
    if (killed_[r.task]) return false;
    const Stat& s = est_.finished(r.job, r.stage);
    return s.n > 0 && sim.now() - sim.attempt(r.attempt).start > kill_factor_ * s.mean();
  }
  // The running attempt of the slot's type on another node that has overrun its job's mean the
  // most is killed and re-run here. Within a group of the snapshot (a job's stage, attempts in
  // launch order) the first attempt still running, not killed and not on this node started the
  // earliest, so it has the group's largest overrun: one candidate per group, the first group
  // winning ties, as a scan of every attempt would find.
  void replace_stragglers(Sim& sim, int32_t node) {
    for (int stage = 0; stage < 2; ++stage) {
      while (sim.free_slots(node, stage) > 0 && sim.total_running(stage) > 0) {
        refresh(sim, sim.heartbeat_interval());
        const Running* worst = nullptr;
        double worst_ratio = 0;
        for (size_t gi = 0; gi < groups_.size(); ++gi) {
          const Group& g = groups_[gi];
          if (snap_[g.begin].stage != stage) continue;
          const Stat& fin = est_.finished(snap_[g.begin].job, stage);
          if (fin.n == 0) continue;
          auto gone = [&](size_t i) { return killed_[snap_[i].task] || sim.attempt(snap_[i].attempt).status != kRunning; };
          size_t& i = live_from_[gi];  // (the attempts before it are gone)
          while (i < g.end && gone(i)) ++i;
          size_t k = i;
          while (k < g.end && (snap_[k].node == node || gone(k))) ++k;
          if (k == g.end || !overdue(sim, snap_[k])) continue;
          const double ratio = (sim.now() - sim.attempt(snap_[k].attempt).start) / fin.mean();
          if (ratio > worst_ratio) { worst_ratio = ratio; worst = &snap_[k]; }
        }
        if (!worst) break;
        const int32_t task = worst->task;
        killed_[task] = 1;
        sim.kill(worst->attempt);
        counters_["sepb_kills"] += 1;
        if (sim.task_state(task) == kPending && sim.fits(task, node, stage)) sim.launch(task, node, stage);
      }
    }
  }
  void on_refresh(const Sim& sim) override {
    HadoopSpeculator::on_refresh(sim);
    live_from_.resize(groups_.size());
    for (size_t gi = 0; gi < groups_.size(); ++gi) live_from_[gi] = groups_[gi].begin;
  }
  void kill_stragglers(Sim& sim) {
    if (sim.now() < next_kill_check_) return;
    next_kill_check_ = sim.now() + sim.heartbeat_interval();
    refresh(sim, 0);
    for (const Running& r : snap_) {
      if (!overdue(sim, r) || sim.attempt(r.attempt).status != kRunning) continue;
      killed_[r.task] = 1;
      sim.kill(r.attempt);
      counters_["sepb_kills"] += 1;
    }
  }
  bool pending_in_checked_jobs(Sim& sim, int stage) const {
    const auto& jobs = sim.active_jobs();
    const int64_t max_num = int64_t(std::ceil(percentage_ * double(jobs.size()) - 1e-9));
    for (int64_t i = 0; i < max_num && i < int64_t(jobs.size()); ++i) {
      const int32_t j = jobs[i];
      if (sim.job(j).pending[stage] > 0 && (stage == kMap || sim.reduces_allowed(j))) return true;
    }
    return false;
  }
  double percentage_, kill_factor_;
  bool replace_;
  std::vector<uint8_t> killed_;
  std::vector<size_t> live_from_;  // per group of the snapshot: its first attempt maybe still live
  double next_kill_check_ = 0;
};

std::vector<ParamSpec> sepb_params() {
  auto v = hadoop_params();
  v.push_back(ParamSpec::number("percentage", 1.0, 0, 1,
                                "percentageOfJobsCheckedForPendingTasks; maxNum = ceil(percentage x active jobs) "
                                "(the paper recommends 60-100%; 0 = Hadoop's speculation)"));
  v.push_back(ParamSpec::number("kill_factor", 2.0, 0, 1e6,
                                "kill an attempt once it has run longer than this many times the mean completed time "
                                "of its job and stage (paper: 'twice'; alternative reading 3; 0 = off)"));
  v.push_back(ParamSpec::choice("kill_mode", "replace", {"replace", "requeue"},
                                "'replace' (default): kill when another node has a free slot and re-run there at once; "
                                "'requeue': kill when noticed and leave the re-run to the scheduler"));
  return v;
}

// ---------------------------------------------------------------------------------------------
// YARN 2.7 DefaultSpeculator with the legacy estimator [Wang 2017, §2.4]: every check, for each job
// and each of its map and reduce types, the running task with the largest
// EstEnd - EstRepEnd (Eq. 5.1 - Eq. 5.2) > 0 gets one speculative request, while the type has
// fewer than max(10, 0.01 x its tasks, 0.1 x its running tasks) speculations outstanding. The
// next check comes 15 s after a round that speculated, else 1 s. Requests wait in the pending
// queue and take the next free slot of their type anywhere (unconstrained placement).
class YarnSpeculator : public SpeculatorBase {
 public:
  explicit YarnSpeculator(const Params& p)
      : after_spec_(p.number("retry_after_speculate")),
        after_none_(p.number("retry_after_no_speculate")),
        min_allowed_(p.number("minimum_allowed")),
        prop_total_(p.number("proportion_total")),
        prop_running_(p.number("proportion_running")),
        min_finished_(p.integer("min_finished")) {}

  void init(Sim& sim) override {
    SpeculatorBase::init(sim);
    sim.set_speculator_timer(sim.now() + after_none_, 0);
  }
  void on_heartbeat(Sim& sim, int32_t node) override { place_requests(sim, node); }
  void on_timer(Sim& sim, uint64_t) override {
    const int n = compute(sim);
    sim.set_speculator_timer(sim.now() + (n > 0 ? after_spec_ : after_none_), 0);
  }

 private:
  int compute(Sim& sim) {
    if (sim.total_running(kMap) + sim.total_running(kReduce) == 0) return 0;
    refresh(sim, 0);
    int made = 0;
    const auto& wl = sim.workload();
    for (int32_t j : sim.active_jobs()) {
      for (int stage = 0; stage < 2; ++stage) {
        const JobState& js = sim.job(j);
        if (js.running[stage] == 0) continue;
        const Group* g = group(j, stage);
        if (!g) continue;
        const Stat& fin = est_.finished(j, stage);
        int32_t best = -1;
        double best_value = 0;
        for (size_t i = g->begin; i < g->end; ++i) {
          const Running& r = snap_[i];
          if (!r.alone || requested(r.task)) continue;
          if (fin.n < min_finished_ || r.progress <= 0) continue;
          const double est_end = r.est_end;                       // Eq. 5.1
          const double rep_end = sim.now() + fin.mean();           // Eq. 5.2
          if (est_end < sim.now() || rep_end >= est_end) continue;
          const double value = est_end - rep_end;
          if (value > best_value) { best_value = value; best = r.task; }
        }
        const int64_t already = count_speculating(sim, j, stage);
        const double n_tasks = stage == kMap ? wl.n_maps[j] : double(wl.n_reduces(j));
        const double allowed = std::max({min_allowed_, prop_total_ * n_tasks, prop_running_ * double(js.running[stage])});
        if (best >= 0 && double(already) < allowed) {
          add_request({best, 0, sim.now(), best_value});
          counters_["speculative_requests"] += 1;
          ++made;
        }
      }
    }
    return made;
  }
  // A stage with fewer finished tasks than min_finished has no candidate: its attempts go unread.
  bool reads_stage(int32_t job, int stage) const override { return est_.finished(job, stage).n >= double(min_finished_); }
  int64_t count_speculating(const Sim& sim, int32_t job, int stage) const {
    int64_t n = sim.speculative_running(job, stage);
    const auto& wl = sim.workload();
    for (const Request& r : requests_)
      if (wl.task_job[r.task] == job && wl.task_stage[r.task] == stage) ++n;
    return n;
  }
  double after_spec_, after_none_, min_allowed_, prop_total_, prop_running_;
  int64_t min_finished_;
};

std::vector<ParamSpec> yarn_params() {
  return {
      ParamSpec::number("retry_after_speculate", 15, 0.001, 1e9, "seconds to the next check after a check that speculated"),
      ParamSpec::number("retry_after_no_speculate", 1, 0.001, 1e9, "seconds to the next check after a check that did not"),
      ParamSpec::number("minimum_allowed", 10, 0, 1e9, "MINIMUM_ALLOWED_SPECULATIVE_TASKS"),
      ParamSpec::number("proportion_total", 0.01, 0, 1, "PROPORTION_TOTAL_TASKS_SPECULATABLE"),
      ParamSpec::number("proportion_running", 0.1, 0, 1, "PROPORTION_RUNNING_TASKS_SPECULATABLE"),
      ParamSpec::integer("min_finished", 1, 0, 1000000,
                         "finished tasks of the type needed before Eq. 5.2 is trusted (the legacy estimator has no mean before)"),
  };
}

// ---------------------------------------------------------------------------------------------
// LATE (Zaharia et al., OSDI'08): when a node asks for work and fewer than SpeculativeCap
// speculative tasks run, ignore the request if the node's total progress is below the
// SlowNodeThreshold percentile of nodes; otherwise copy the running, not yet speculated task with
// the longest estimated time left, (1 - progress) / rate, among those whose progress rate is
// below the SlowTaskThreshold percentile (of the running tasks of its job and stage).
class LateSpeculator : public SpeculatorBase {
 public:
  explicit LateSpeculator(const Params& p)
      : cap_(p.number("speculative_cap")),
        slow_node_(p.number("slow_node_threshold")),
        slow_task_(p.number("slow_task_threshold")),
        min_elapsed_(p.number("min_elapsed")) {}

  void init(Sim& sim) override {
    SpeculatorBase::init(sim);
    node_done_.assign(sim.n_nodes(), 0.0);
  }
  void on_attempt_finished(Sim& sim, int64_t a) override {
    SpeculatorBase::on_attempt_finished(sim, a);
    node_done_[sim.attempt(a).node] += 1.0;
  }
  void on_heartbeat(Sim& sim, int32_t node) override {
    for (int stage = 0; stage < 2; ++stage) {
      for (int guard = sim.free_slots(node, stage); guard > 0; --guard) {
        const double slots = double(sim.total_map_slots() + sim.total_reduce_slots());
        if (double(sim.speculative_running_total()) >= cap_ * slots) return;
        if (sim.total_running(stage) == 0) break;
        refresh_nodes(sim);
        if (node_total_[node] < slow_node_limit_) return;  // SlowNodeThreshold
        const int32_t task = pick(sim, node, stage);
        if (task < 0 || !sim.fits(task, node, stage)) break;
        launch_copy(sim, task, node);
      }
    }
  }

 private:
  // node progress: finished attempts plus the progress of those running there; the threshold
  // is the SlowNodeThreshold percentile over the up nodes (recomputed with the snapshot)
  void refresh_nodes(const Sim& sim) {
    const double before = snap_time_;
    refresh(sim, sim.heartbeat_interval());
    if (snap_time_ == before && !node_total_.empty()) return;
    node_total_ = node_done_;
    for (const Running& r : snap_) node_total_[r.node] += r.progress;
    up_.clear();
    for (int32_t n = 0; n < sim.n_nodes(); ++n) if (sim.node_up(n)) up_.push_back(node_total_[n]);
    slow_node_limit_ = percentile(up_, slow_node_);
  }
  // q-quantile of the progress rates of a group's running attempts, linear between the two order
  // statistics around q x (n - 1)
  double rate_percentile(const Group& g, double q) {
    const size_t n = g.end - g.begin;
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    rates_.clear();
    for (size_t i = g.begin; i < g.end; ++i) rates_.push_back(snap_[i].rate);
    const double pos = q * double(n - 1);
    const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
    std::nth_element(rates_.begin(), rates_.begin() + std::ptrdiff_t(lo), rates_.end());
    const double a = rates_[lo];
    const double b = hi == lo ? a : *std::min_element(rates_.begin() + std::ptrdiff_t(lo) + 1, rates_.end());
    return a + (b - a) * (pos - double(lo));
  }
  // Per stage, the snapshot's candidates (longest_first): attempts with progress whose rate is
  // below the SlowTaskThreshold percentile of their job and stage.
  void on_refresh(const Sim&) override {
    for (auto& c : candidates_) c.clear();
    for (const Group& g : groups_) {
      const double limit = rate_percentile(g, slow_task_);
      for (size_t i = g.begin; i < g.end; ++i)
        if (snap_[i].progress > 0 && snap_[i].rate < limit)
          candidates_[snap_[i].stage].push_back({snap_[i].time_left, uint32_t(i)});
    }
    for (auto& c : candidates_) longest_first(c.begin(), c.end());
  }
  int32_t pick(const Sim& sim, int32_t node, int stage) const {
    for (const Candidate& c : candidates_[stage]) {
      const Running& r = snap_[c.entry];
      if (sim.now() - sim.attempt(r.attempt).start < min_elapsed_) continue;
      if (!still_alone(sim, r) || Estimator::ran_on(sim, r.task, node)) continue;
      return r.task;
    }
    return -1;
  }
  std::vector<Candidate> candidates_[2];  // per stage
  std::vector<double> rates_;             // (rate_percentile's)
  double cap_, slow_node_, slow_task_, min_elapsed_;
  std::vector<double> node_done_, node_total_, up_;
  double slow_node_limit_ = 0;
};

std::vector<ParamSpec> late_params() {
  return {
      ParamSpec::number("speculative_cap", 0.1, 0, 1, "SpeculativeCap: running speculative tasks as a fraction of the cluster's slots"),
      ParamSpec::number("slow_node_threshold", 0.25, 0, 1, "SlowNodeThreshold: nodes whose total progress is below this percentile get no copies"),
      ParamSpec::number("slow_task_threshold", 0.25, 0, 1, "SlowTaskThreshold: only tasks whose progress rate is below this percentile are copied"),
      ParamSpec::number("min_elapsed", 0, 0, 1e9, "seconds a task must have run before it may be copied (not part of the LATE rule; 0 = none)"),
  };
}

// ---------------------------------------------------------------------------------------------
// eSplash [Wang 2017, §5.2.1; §5.2.3].
//  Levels: 'node_type' takes the cluster's node_type column as the level (higher = faster, as in
//  the paper's evaluation, where levels were configured per node); 'clustering' (default) builds
//  performance vectors (mean finished map time per job, over the jobs every node has finished a
//  map of), groups them by Algorithm 5.2.1 (merging incomparable or overlapping groups until the
//  groups are totally ordered) and runs the group-based k-means of Algorithm 5.2.2 with k =
//  n_levels; until every node has such data all nodes share one level.
//  Stragglers: every epoch, the per-level statistics table ST (mean and standard deviation of
//  finished durations, mean progress rate of the running tasks per type) and each node's
//  straggler value SV; sv_mode 'normalized' (schedlab's reading, default):
//  SV = mean over the node's running tasks of max(0, (EstT - mu) / sigma) + PR_level / PR_task,
//  marked after mark_epochs consecutive epochs above tau, cleared after clear_epochs below;
//  'literal': SV accumulates the sums of the paper's two terms and is never reset.
//  Copies: for a task on a straggler, minL = argmin over l >= its level of the expected copy time
//  sum_m C(m) EstT(m) / sum_m C(m) (Alg. 5.2.3); SpecValue = sum_{m>=minL} C(m) (EstEnd - now -
//  EstT(m)) / sum_all C(m); the best positive value is requested, one per check (1 s, 15 s after
//  a request); a request only runs on an up, non-straggler node of level >= minL; requests that
//  waited reevaluate_after seconds are re-evaluated (dropped if no longer worth it, else minL is
//  updated).
class ESplashSpeculator : public SpeculatorBase {
 public:
  explicit ESplashSpeculator(const Params& p)
      : by_clustering_(p.choice("levels") == "clustering"),
        n_levels_(p.integer("n_levels")),
        epoch_(p.number("epoch")),
        tau_(p.number("tau")),
        literal_(p.choice("sv_mode") == "literal"),
        mark_epochs_(p.integer("mark_epochs")),
        clear_epochs_(p.integer("clear_epochs")),
        sigma_floor_(p.number("sigma_floor")),
        after_spec_(p.number("retry_after_speculate")),
        after_none_(p.number("retry_after_no_speculate")),
        reevaluate_after_(p.number("reevaluate_after")),
        recluster_(p.number("recluster_interval")) {}

  void init(Sim& sim) override {
    SpeculatorBase::init(sim);
    const int32_t n = sim.n_nodes();
    level_.assign(n, 0);
    straggler_.assign(n, 0);
    above_.assign(n, 0);
    below_.assign(n, 0);
    sv_.assign(n, 0.0);
    nodes_done_.assign(sim.workload().n_jobs(), 0);
    node_type_stats_.assign(2 * size_t(sim.workload().n_jobs()), NodeStats{});
    level_dur_.assign(2 * size_t(sim.workload().n_jobs()), {});
    st_row_.assign(2 * size_t(sim.workload().n_jobs()), -1);
    st_types_.clear();
    st_.clear();
    last_attempt_.clear();
    last_progress_.clear();
    last_time_ = 0;
    rng_.reseed(sim.seed(), 7);
    if (!by_clustering_) {
      std::vector<int32_t> types(sim.cluster().node_type);
      std::sort(types.begin(), types.end());
      types.erase(std::unique(types.begin(), types.end()), types.end());
      for (int32_t i = 0; i < n; ++i)
        level_[i] = int32_t(std::lower_bound(types.begin(), types.end(), sim.cluster().node_type[i]) - types.begin());
      levels_ = int32_t(types.size());
      clustered_ = true;
    }
    sim.set_speculator_timer(sim.now() + epoch_, 0);
  }
  void on_attempt_finished(Sim& sim, int64_t a) override {
    SpeculatorBase::on_attempt_finished(sim, a);
    const Attempt& at = sim.attempt(a);
    if (at.status != kSucceeded) return;
    const auto& wl = sim.workload();
    const int64_t type = key(wl.task_job[at.task], wl.task_stage[at.task]);
    Stat& ns = node_type_stats_[size_t(type)].at(at.node);
    if (ns.n == 0 && wl.task_stage[at.task] == kMap && ++nodes_done_[wl.task_job[at.task]] == sim.n_nodes()) dims_ready_ = true;
    ns.add(at.finish - at.start);
    auto& row = level_dur_[size_t(type)];
    row.resize(levels_);
    row[level_[at.node]].add(at.finish - at.start);
  }
  void on_heartbeat(Sim& sim, int32_t node) override { place_requests(sim, node); }
  void on_timer(Sim& sim, uint64_t) override {
    if (!sim.active_jobs().empty()) epoch(sim);
    sim.set_speculator_timer(sim.now() + epoch_, 0);
  }
  void finish(Sim& sim, SimResult& r) override {
    SpeculatorBase::finish(sim, r);
    r.counters["esplash_levels"] = double(levels_);
    auto& lv = r.series["esplash_levels"];
    if (lv.names.empty()) lv = TimeSeries::with_columns({"node", "level"});
    for (int32_t i = 0; i < sim.n_nodes(); ++i) lv.add_row({double(i), double(level_[i] + 1)});
  }

 protected:
  bool eligible(const Sim& sim, int32_t node, const Request& r) const override {
    return sim.node_up(node) && !straggler_[node] && level_[node] >= r.min_level;
  }

 private:
  static int64_t key(int32_t job, int stage) { return int64_t(stage_key(job, stage)); }

  // per-level table entry for one type
  struct LevelStat {
    Stat dur;
    double pr_sum = 0;
    int pr_n = 0;
    double pr() const { return pr_n > 0 ? pr_sum / pr_n : 0.0; }
  };
  // The epoch's row for a type, one entry per level, made on first use from the finished durations.
  LevelStat* table(int64_t type) {
    int32_t& row = st_row_[size_t(type)];
    if (row < 0) {
      row = int32_t(st_types_.size());
      st_types_.push_back(type);
      st_.resize(st_.size() + size_t(levels_));
      const std::vector<Stat>& d = level_dur_[size_t(type)];
      for (int m = 0; m < levels_ && m < int(d.size()); ++m) st_[size_t(row) * size_t(levels_) + size_t(m)].dur = d[m];
    }
    return &st_[size_t(row) * size_t(levels_)];
  }
  void clear_table() {
    for (int64_t t : st_types_) st_row_[size_t(t)] = -1;
    st_types_.clear();
    st_.clear();
  }

  void epoch(Sim& sim) {
    const double now = sim.now();
    if (by_clustering_ && (!clustered_ || (recluster_ > 0 && now >= next_cluster_))) {
      if (cluster_levels(sim)) { clustered_ = true; next_cluster_ = now + recluster_; }
    }
    est_.snapshot(sim, snap_, false);  // (by attempt)
    clear_table();
    // progress rates over the past epoch, from each attempt's progress at the last epoch if it ran
    // then (an attempt runs without a break from its launch on, so the last epoch's snapshot holds
    // it if any earlier one does; both are in attempt order)
    pr_.assign(snap_.size(), 0.0);
    size_t k = 0;
    for (size_t i = 0; i < snap_.size(); ++i) {
      const Running& r = snap_[i];
      while (k < last_attempt_.size() && last_attempt_[k] < r.attempt) ++k;
      const bool seen = k < last_attempt_.size() && last_attempt_[k] == r.attempt;
      const double t0 = seen ? last_time_ : sim.attempt(r.attempt).start;
      pr_[i] = now > t0 ? (r.progress - (seen ? last_progress_[k] : 0.0)) / (now - t0) : 0.0;
    }
    last_attempt_.resize(snap_.size());
    last_progress_.resize(snap_.size());
    for (size_t i = 0; i < snap_.size(); ++i) {
      last_attempt_[i] = snap_[i].attempt;
      last_progress_[i] = snap_[i].progress;
    }
    last_time_ = now;
    for (size_t i = 0; i < snap_.size(); ++i) {
      LevelStat* row = table(key(snap_[i].job, snap_[i].stage));
      row[level_[snap_[i].node]].pr_sum += pr_[i];
      row[level_[snap_[i].node]].pr_n += 1;
    }
    // straggler values
    std::vector<double> sv(sim.n_nodes(), 0.0);
    std::vector<int> cnt(sim.n_nodes(), 0);
    for (size_t i = 0; i < snap_.size(); ++i) {
      const Running& r = snap_[i];
      const LevelStat& ls = table(key(r.job, r.stage))[level_[r.node]];
      double term = 0;
      const double mu = ls.dur.mean();
      if (ls.dur.n > 0 && r.progress > 0) {
        const double est_t = r.elapsed / r.progress;
        const double sigma = std::max(ls.dur.sd(), sigma_floor_ * mu);
        if (est_t > mu && sigma > 0) term += (est_t - mu) / sigma;
      }
      const double level_pr = ls.pr();
      if (level_pr > 0) term += level_pr / std::max(pr_[i], 0.01 * level_pr);
      else term += 1.0;
      sv[r.node] += term;
      cnt[r.node] += 1;
    }
    for (int32_t n = 0; n < sim.n_nodes(); ++n) {
      double value;
      if (literal_) { sv_[n] += sv[n]; value = sv_[n]; }
      else value = cnt[n] > 0 ? sv[n] / cnt[n] : 0.0;
      if (value > tau_) { ++above_[n]; below_[n] = 0; }
      else { ++below_[n]; above_[n] = 0; }
      if (!straggler_[n] && above_[n] >= mark_epochs_) { straggler_[n] = 1; counters_["esplash_straggler_marks"] += 1; }
      if (straggler_[n] && !literal_ && below_[n] >= clear_epochs_) straggler_[n] = 0;
    }
    capacities(sim, kMap, stage_cap_[kMap]);  // C(m) per level for this epoch's straggler marks
    capacities(sim, kReduce, stage_cap_[kReduce]);
    reevaluate(sim);
    if (now >= next_spec_) {
      const bool made = speculate(sim);
      next_spec_ = now + (made ? after_spec_ : after_none_);
    }
  }

  // container counts per level for a stage, on nodes that may host copies now
  void capacities(const Sim& sim, int stage, std::vector<double>& c) const {
    c.assign(levels_, 0.0);
    for (int32_t n = 0; n < sim.n_nodes(); ++n) {
      if (!sim.node_up(n) || straggler_[n]) continue;
      c[level_[n]] += stage == kMap ? sim.map_capacity(n) : sim.reduce_capacity(n);
    }
  }
  // EstT(m) for a type: the level's mean, else the type's mean over all levels
  double est_time(int64_t type, int m) {
    const LevelStat& ls = table(type)[m];
    if (ls.dur.n > 0) return ls.dur.mean();
    return est_.finished(int32_t(type / 2), int(type % 2)).mean();
  }
  // Algorithm 5.2.3 and SpecValue; returns false when the type has no statistics
  bool evaluate(Sim& sim, const Running& r, int32_t& min_level, double& value) {
    const int64_t type = key(r.job, r.stage);
    if (est_.finished(r.job, r.stage).n == 0 || r.progress <= 0) return false;
    const std::vector<double>& cap_ = stage_cap_[r.stage];
    double all = 0;
    for (double c : cap_) all += c;
    if (all <= 0) return false;
    const int start = level_[r.node];
    double best = kInf;
    min_level = -1;
    for (int l = start; l < levels_; ++l) {
      double num = 0, den = 0;
      for (int m = l; m < levels_; ++m) { num += cap_[m] * est_time(type, m); den += cap_[m]; }
      if (den <= 0) continue;
      if (num / den < best) { best = num / den; min_level = l; }
    }
    if (min_level < 0) return false;
    value = 0;
    for (int m = min_level; m < levels_; ++m) value += cap_[m] * (r.est_end - sim.now() - est_time(type, m));
    value /= all;
    return true;
  }
  bool speculate(Sim& sim) {
    int32_t best_task = -1, best_level = 0;
    double best_value = 0;
    for (const Running& r : snap_) {
      if (!straggler_[r.node] || !r.alone || requested(r.task)) continue;
      int32_t ml;
      double v;
      if (!evaluate(sim, r, ml, v) || v <= best_value) continue;
      best_value = v;
      best_task = r.task;
      best_level = ml;
    }
    if (best_task < 0) return false;
    add_request({best_task, best_level, sim.now(), best_value});
    counters_["speculative_requests"] += 1;
    return true;
  }
  // The task's newest attempt in the snapshot, or nullptr.
  const Running* snapshot_entry(const Sim& sim, int32_t task) const {
    for (int64_t a = sim.last_attempt(task); a >= 0; a = sim.attempt(a).prev_same_task) {
      auto it = std::lower_bound(snap_.begin(), snap_.end(), a, [](const Running& x, int64_t id) { return x.attempt < id; });
      if (it != snap_.end() && it->attempt == a) return &*it;
    }
    return nullptr;
  }
  void reevaluate(Sim& sim) {
    for (size_t i = 0; i < requests_.size();) {
      Request& q = requests_[i];
      if (sim.now() - q.submitted < reevaluate_after_) { ++i; continue; }
      const Running* r = snapshot_entry(sim, q.task);
      if (r && !r->alone) r = nullptr;
      int32_t ml;
      double v;
      if (!r || !evaluate(sim, *r, ml, v) || v <= 0) {
        drop_request(i);
        counters_["esplash_requests_dropped"] += 1;
        continue;
      }
      q.min_level = ml;
      q.value = v;
      q.submitted = sim.now();
      ++i;
    }
  }

  // ---- levels by clustering (Algorithms 5.2.1 and 5.2.2) ----
  bool cluster_levels(Sim& sim) {
    if (!dims_ready_) return false;  // no map type finished on every node yet
    const int32_t n = sim.n_nodes();
    const auto& wl = sim.workload();
    // dimensions: map types every node has finished at least one task of
    std::map<int32_t, int> seen;
    for (size_t type = 0; type < node_type_stats_.size(); type += 2)  // (the map types)
      node_type_stats_[type].for_each([&](int32_t, const Stat& s) {
        if (s.n > 0) seen[int32_t(type / 2)] += 1;
      });
    std::vector<int32_t> dims;
    for (auto& [job, count] : seen) if (count == n) dims.push_back(job);
    if (dims.empty()) return false;
    (void)wl;
    const size_t d = dims.size();
    std::vector<std::vector<double>> pv(n, std::vector<double>(d));
    for (int32_t i = 0; i < n; ++i)
      for (size_t k = 0; k < d; ++k) pv[i][k] = node_type_stats_[size_t(key(dims[k], kMap))].find(i)->mean();
    // Algorithm 5.2.1: merge incomparable or overlapping groups until none are
    std::vector<std::vector<int32_t>> groups(n);
    for (int32_t i = 0; i < n; ++i) groups[i] = {i};
    auto bounds = [&](const std::vector<int32_t>& g, std::vector<double>& lo, std::vector<double>& hi) {
      lo.assign(d, kInf);
      hi.assign(d, -kInf);
      for (int32_t i : g)
        for (size_t k = 0; k < d; ++k) { lo[k] = std::min(lo[k], pv[i][k]); hi[k] = std::max(hi[k], pv[i][k]); }
    };
    std::vector<double> lo1, hi1, lo2, hi2;
    for (bool merged = true; merged;) {
      merged = false;
      for (size_t g = 0; g < groups.size() && !merged; ++g) {
        bounds(groups[g], lo1, hi1);
        for (size_t h = g + 1; h < groups.size() && !merged; ++h) {
          bounds(groups[h], lo2, hi2);
          bool g_slower = false, h_slower = false, overlap = false;
          for (size_t k = 0; k < d; ++k) {
            if (lo1[k] > hi2[k]) g_slower = true;
            else if (lo2[k] > hi1[k]) h_slower = true;
            else overlap = true;
          }
          if (overlap || (g_slower && h_slower)) {
            groups[g].insert(groups[g].end(), groups[h].begin(), groups[h].end());
            groups.erase(groups.begin() + h);
            merged = true;
          }
        }
      }
    }
    // Algorithm 5.2.2: group-based k-means
    const size_t ng = groups.size();
    const size_t k = std::min<size_t>(size_t(n_levels_), ng);
    std::vector<int32_t> group_of(n);
    for (size_t g = 0; g < ng; ++g) for (int32_t i : groups[g]) group_of[i] = int32_t(g);
    std::vector<std::vector<double>> centers;
    std::vector<int32_t> assign(ng, -1);
    if (ng <= k) {
      for (size_t g = 0; g < ng; ++g) assign[g] = int32_t(g);
    } else {
      std::vector<int32_t> order(n);
      for (int32_t i = 0; i < n; ++i) order[i] = i;
      for (int32_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng_.below(uint64_t(i) + 1)]);
      for (size_t c = 0; c < k; ++c) centers.push_back(pv[order[c]]);
      auto dist = [&](const std::vector<double>& x, const std::vector<double>& y) {
        double s = 0;
        for (size_t q = 0; q < d; ++q) s += (x[q] - y[q]) * (x[q] - y[q]);
        return s;
      };
      for (int iter = 0; iter < 100; ++iter) {
        bool changed = false;
        for (size_t g = 0; g < ng; ++g) {
          std::vector<int> votes(k, 0);
          std::vector<double> mean(d, 0.0);
          for (int32_t i : groups[g]) {
            size_t best = 0;
            for (size_t c = 1; c < k; ++c) if (dist(pv[i], centers[c]) < dist(pv[i], centers[best])) best = c;
            votes[best]++;
            for (size_t q = 0; q < d; ++q) mean[q] += pv[i][q] / groups[g].size();
          }
          int32_t pick = 0;
          for (size_t c = 1; c < k; ++c)
            if (votes[c] > votes[pick] || (votes[c] == votes[pick] && dist(mean, centers[c]) < dist(mean, centers[pick]))) pick = int32_t(c);
          if (assign[g] != pick) { assign[g] = pick; changed = true; }
        }
        for (size_t c = 0; c < k; ++c) {
          std::vector<double> m(d, 0.0);
          int cnt = 0;
          for (int32_t i = 0; i < n; ++i)
            if (assign[group_of[i]] == int32_t(c)) { for (size_t q = 0; q < d; ++q) m[q] += pv[i][q]; ++cnt; }
          if (cnt > 0) { for (double& x : m) x /= cnt; centers[c] = m; }
        }
        if (!changed) break;
      }
    }
    // order the clusters by speed: level 0 = the slowest (largest mean time)
    std::map<int32_t, double> speed;
    std::map<int32_t, int> members;
    for (int32_t i = 0; i < n; ++i) {
      const int32_t c = assign[group_of[i]];
      for (size_t q = 0; q < d; ++q) speed[c] += pv[i][q];
      members[c] += 1;
    }
    std::vector<std::pair<double, int32_t>> ranked;
    for (auto& [c, s] : speed) ranked.push_back({-s / members[c], c});
    std::sort(ranked.begin(), ranked.end());
    std::map<int32_t, int32_t> level_of;
    for (size_t r = 0; r < ranked.size(); ++r) level_of[ranked[r].second] = int32_t(r);
    for (int32_t i = 0; i < n; ++i) level_[i] = level_of[assign[group_of[i]]];
    levels_ = int32_t(ranked.size());
    // the per-level duration statistics follow the new levels (rebuilt by type and node: deterministic sums)
    std::vector<std::pair<int32_t, Stat>> by_node;
    for (size_t type = 0; type < node_type_stats_.size(); ++type) {
      auto& row = level_dur_[type];
      row.clear();
      by_node.clear();
      node_type_stats_[type].for_each([&](int32_t node, const Stat& s) { by_node.push_back({node, s}); });
      if (by_node.empty()) continue;
      std::sort(by_node.begin(), by_node.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      row.resize(levels_);
      for (const auto& [node, s] : by_node) row[level_[node]].merge(s);
    }
    counters_["esplash_clusterings"] += 1;
    return true;
  }

  bool by_clustering_;
  int64_t n_levels_;
  double epoch_, tau_;
  bool literal_;
  int64_t mark_epochs_, clear_epochs_;
  double sigma_floor_, after_spec_, after_none_, reevaluate_after_, recluster_;
  Random rng_;
  std::vector<int32_t> level_;
  int32_t levels_ = 1;
  bool clustered_ = false;
  double next_cluster_ = 0, next_spec_ = 0;
  std::vector<uint8_t> straggler_;
  std::vector<int64_t> above_, below_;
  std::vector<double> sv_, pr_;
  // the last epoch's snapshot: its attempts (in attempt order), their progress, and its time
  std::vector<int64_t> last_attempt_;
  std::vector<double> last_progress_;
  double last_time_ = 0;
  std::vector<double> stage_cap_[2];
  std::vector<NodeStats> node_type_stats_;       // per type (2 x job + stage): finished durations per node
  std::vector<std::vector<Stat>> level_dur_;     // per type: finished durations per level
  std::vector<int32_t> nodes_done_;  // per job: nodes that have finished one of its maps
  bool dims_ready_ = false;
  // the epoch's statistics table ST: per type used this epoch a row of levels_ entries in st_, found
  // through st_row_ (-1: none yet)
  std::vector<LevelStat> st_;
  std::vector<int32_t> st_row_;
  std::vector<int64_t> st_types_;
};

std::vector<ParamSpec> esplash_params() {
  return {
      ParamSpec::choice("levels", "clustering", {"clustering", "node_type"},
                        "node levels: 'clustering' (Algorithms 5.2.1 + 5.2.2 on finished map times, default) or "
                        "'node_type' (the cluster's node_type column, higher = faster: the paper's evaluation setting)"),
      ParamSpec::integer("n_levels", 4, 1, 1000, "k of the group-based k-means (the experiments' 4 levels)"),
      ParamSpec::number("epoch", 1.0, 0.001, 1e6, "seconds between statistics updates (YARN heartbeat ~1 s; the paper gives none)"),
      ParamSpec::number("tau", 3.0, 0, 1e12, "straggler threshold on SV (the paper gives none; 3 for the normalized SV is schedlab's choice)"),
      ParamSpec::choice("sv_mode", "normalized", {"normalized", "literal"},
                        "'normalized': per-epoch mean over running tasks (default, schedlab's reading); 'literal': cumulative sums"),
      ParamSpec::integer("mark_epochs", 2, 1, 1000000, "consecutive epochs above tau before a node is marked a straggler"),
      ParamSpec::integer("clear_epochs", 5, 1, 1000000, "consecutive epochs below tau before the mark is cleared (normalized mode)"),
      ParamSpec::number("sigma_floor", 0.1, 0, 1e6, "the z-score uses max(std, sigma_floor x mean) (std of a deterministic type can be 0)"),
      ParamSpec::number("retry_after_speculate", 15, 0, 1e9, "seconds to the next speculation check after a request (Hadoop default)"),
      ParamSpec::number("retry_after_no_speculate", 1, 0, 1e9, "seconds to the next check otherwise"),
      ParamSpec::number("reevaluate_after", 15, 0, 1e9, "a request pending this long is re-evaluated (the paper gives no value)"),
      ParamSpec::number("recluster_interval", 0, 0, 1e12, "> 0: recompute levels by clustering this often (0 = once, when data allow)"),
  };
}

// ---------------------------------------------------------------------------------------------

struct Entry {
  std::string name;
  std::vector<ParamSpec> params;
  std::unique_ptr<Speculator> (*make)(const Params&);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {"none", {}, nullptr},
      {"hadoop", hadoop_params(), [](const Params& p) -> std::unique_ptr<Speculator> { return std::make_unique<HadoopSpeculator>(p); }},
      {"yarn", yarn_params(), [](const Params& p) -> std::unique_ptr<Speculator> { return std::make_unique<YarnSpeculator>(p); }},
      {"late", late_params(), [](const Params& p) -> std::unique_ptr<Speculator> { return std::make_unique<LateSpeculator>(p); }},
      {"esplash", esplash_params(), [](const Params& p) -> std::unique_ptr<Speculator> { return std::make_unique<ESplashSpeculator>(p); }},
      {"sepb", sepb_params(), [](const Params& p) -> std::unique_ptr<Speculator> { return std::make_unique<SepbSpeculator>(p); }},
  };
  return e;
}

const Entry& find(const std::string& name) {
  for (const Entry& e : entries()) if (e.name == name) return e;
  std::string names;
  for (const Entry& e : entries()) names += " " + e.name;
  throw std::invalid_argument("unknown speculation '" + name + "'; available:" + names);
}

// "a:1,b:text" -> numbers and strings
ParamValues parse_values(const std::string& owner, const std::string& text) {
  ParamValues v;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
      return s;
    };
    item = trim(item);
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string::npos) throw std::invalid_argument(owner + ": expected name:value, got '" + item + "'");
    const std::string key = trim(item.substr(0, colon)), val = trim(item.substr(colon + 1));
    char* endp = nullptr;
    const double x = std::strtod(val.c_str(), &endp);
    if (!val.empty() && endp && *endp == '\0') {
      if (val == "True" || val == "true") v.numbers[key] = 1;
      else v.numbers[key] = x;
    } else if (val == "True" || val == "true" || val == "False" || val == "false") {
      v.numbers[key] = (val[0] == 'T' || val[0] == 't') ? 1 : 0;
    } else {
      v.strings[key] = val;
    }
  }
  return v;
}

}  // namespace

const std::vector<std::string>& speculator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Entry& e : entries()) n.push_back(e.name);
    return n;
  }();
  return names;
}

const std::vector<ParamSpec>& speculator_params(const std::string& name) { return find(name).params; }

std::unique_ptr<Speculator> make_speculator(const std::string& name, const std::string& params) {
  const Entry& e = find(name);
  const std::string owner = "speculation '" + name + "'";
  Params p(owner, e.params, parse_values(owner, params));
  if (!e.make) return nullptr;
  return e.make(p);
}

}  // namespace schedlab::mr
