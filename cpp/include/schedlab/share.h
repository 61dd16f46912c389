// The fair-sharing simulator for multi-resource tasks on heterogeneous nodes under placement
// constraints [Zhou 2019, §5.2–5.3, Table 5.2; §5.3.2]: nodes with <vcores, memory> capacities and a
// normalized performance per node type (optionally per user); jobs with per-task demands and a
// set of eligible nodes. There are no heartbeats: as in the Eunomia simulator, scheduling runs
// when a job arrives (every node with free resources is tried) and when a task ends (its node
// is refilled). Each pass repeatedly picks the user with the lowest share (the policy's share
// function) that has a pending task fitting an eligible candidate node, and launches one task,
// until nothing fits. There is no preemption.
//
// Share bookkeeping, per user u (W_u its weight; a user's jobs may differ in demand, so the
// denominators are per job j and each running task contributes its own term):
//   H_{j,m}          = min_r floor(A_{m,r} / D_{j,r})          tasks of j node m holds alone
//   task share       = sum over running tasks of 1 / (W_u * sum_m H_{j,m})               (TSF)
//   progress share   = sum over running tasks on m of P_{u,m} / (W_u * sum_m H_{j,m} P_{u,m})
//   dominant share   = max_r (sum of u's allocated r) / (sum_m A_{m,r}) / W_u       (DRF, DRFH)
//   tasks            = number of running tasks / W_u                                 (Choosy)
// With one job per user (every experiment of the dissertation) these are exactly the paper's
// definitions; the denominators ignore constraints, as Eq. 5.1 does.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/event_queue.h"
#include "schedlab/params.h"
#include "schedlab/random.h"
#include "schedlab/registry.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

namespace schedlab::share {

// How a task's runtime depends on the performance of its node [Zhou 2019, §5.2–5.3, Table 5.2].
enum class Scaling : uint8_t {
  Performance,  // duration = work / P_{u,m} (the dissertation's stated assumption; default)
  None,         // duration = work on every node (the reading the micro-1 timeline fits better)
};

// Which candidate node a chosen user's task goes to when several fit (job arrival passes).
enum class Placement : uint8_t {
  FirstFit,  // lowest node id
  BestFit,   // the node whose free <vcores, memory>, after the task, is the smallest (normalized)
  Fastest,   // highest P_{u,m}, then lowest id
};

struct Options {
  std::vector<double> performance;  // by node_type; empty = each node's Cluster speed
  // per-user overrides: user_perf[u] by node_type (empty = the common performance)
  std::vector<std::vector<double>> user_performance;
  Scaling scaling = Scaling::Performance;
  double time_limit = std::numeric_limits<double>::infinity();
  double sample_interval = 1.0;  // > 0: record share series every so many seconds
  bool measure_overhead = false;  // time every share() call (counters scheduler_seconds/_calls)

  static const std::vector<ParamSpec>& specs();
  static Options from(const Params& p);  // throws invalid_argument on malformed lists
};

class Sim;

// A scheduling policy: a share function (lower = served first) and a placement rule.
class Policy {
 public:
  virtual ~Policy() = default;
  virtual void init(Sim&) {}
  virtual double share(const Sim& sim, int32_t user) const = 0;
  virtual Placement placement() const { return Placement::FirstFit; }
  virtual bool random_ties() const { return false; }
};

using PolicyFactory = std::unique_ptr<Policy> (*)(const Params&);
void register_policy(SchedulerInfo info, PolicyFactory factory);

struct UserState {
  double weight = 1;
  int32_t running = 0;          // running tasks
  int64_t pending = 0;          // tasks of submitted jobs not yet launched
  double task_share = 0;        // see the header comment
  double progress_share = 0;
  double vcores = 0, memory = 0;  // allocated
  std::vector<int32_t> jobs;    // submitted jobs with pending tasks, in submission order
};

class Sim {
 public:
  Sim(const Cluster& cluster, const Workload& workload, Policy& policy, const Options& options, uint64_t seed,
      const std::vector<double>& user_weights);
  SimResult run();

  // ---- reading state (for policies) ----
  double now() const { return now_; }
  const Cluster& cluster() const { return cl_; }
  const Workload& workload() const { return wl_; }
  int32_t n_nodes() const { return static_cast<int32_t>(cl_.size()); }
  int32_t n_users() const { return static_cast<int32_t>(users_.size()); }
  const UserState& user(int32_t u) const { return users_[u]; }
  double total_vcores() const { return total_vcores_; }
  double total_memory() const { return total_memory_; }
  double dominant_share(int32_t u) const;
  double performance(int32_t user, int32_t node) const {
    return user_perf_.empty() || user_perf_[user].empty() ? perf_[node] : user_perf_[user][node];
  }
  bool eligible(int32_t job, int32_t node) const {
    return elig_words_ == 0 || elig_any_[job] || ((elig_bits_[size_t(job) * elig_words_ + (node >> 6)] >> (node & 63)) & 1);
  }
  double free_vcores(int32_t node) const { return free_vc_[node]; }
  double free_memory(int32_t node) const { return free_mem_[node]; }
  // sum_m H_{j,m} and sum_m H_{j,m} P_{u,m} of a job (its share denominators before weighting)
  double h_tasks(int32_t job) const { return h_tasks_[job]; }
  double h_progress(int32_t job) const { return h_prog_[job]; }
  Random& rng() { return rng_; }

 private:
  enum EventKind : uint32_t { kArrival, kTaskEnd, kSample };
  bool fits(int32_t task, int32_t node) const {
    return wl_.vcores[task] <= free_vc_[node] + 1e-9 && wl_.memory[task] <= free_mem_[node] + 1e-9;
  }
  void submit(int32_t job);
  void try_free_nodes();
  void task_end(int32_t task);
  void fill(int32_t first_candidate_count);  // runs a pass over cand_[0 .. count)
  int32_t pick_node(int32_t user, int32_t job, int32_t task, int32_t n_cand) const;
  void launch(int32_t job, int32_t task, int32_t node);
  void sample(size_t next_job);

  const Cluster& cl_;
  const Workload& wl_;
  Policy& policy_;
  Options opt_;
  Random rng_;
  EventQueue q_;
  double now_ = 0;
  uint64_t events_ = 0;

  std::vector<double> perf_;                    // per node
  std::vector<std::vector<double>> user_perf_;  // per user, per node (empty = perf_)
  std::vector<double> free_vc_, free_mem_;
  std::vector<uint64_t> slot_bits_;
  double total_vcores_ = 0, total_memory_ = 0;
  size_t elig_words_ = 0;
  std::vector<uint64_t> elig_bits_;
  std::vector<uint8_t> elig_any_;
  std::vector<double> h_tasks_, h_prog_;        // per job
  std::vector<UserState> users_;
  std::vector<int32_t> job_user_;               // dense user index per job
  std::vector<int64_t> next_task_;              // per job: next task to launch
  std::vector<int32_t> job_left_;               // per job: tasks not yet finished
  std::vector<double> job_start_, job_finish_;
  std::vector<int32_t> active_users_;           // users with pending tasks
  std::vector<int32_t> cand_;                   // candidate nodes of the current pass
  std::vector<std::pair<double, uint64_t>> order_;  // scratch: (share, tie key) per active user
  std::vector<int32_t> order_user_;
  std::vector<int32_t> task_attempt_;           // attempt index per task

  // attempts
  std::vector<int32_t> att_task_, att_node_, att_slot_;
  std::vector<double> att_start_, att_finish_;
  std::vector<uint8_t> att_status_;
  std::vector<double> att_perf_;
  int64_t unfinished_ = 0;

  // dispersion of progress shares over backlogged users, averaged over samples
  double jain_sum_ = 0, maxmin_sum_ = 0, jain_min_ = 1;
  int64_t disp_samples_ = 0, maxmin_samples_ = 0;
  double idle_samples_ = 0;  // samples of idle spans written without events
  TimeSeries shares_, dispersion_;
};

}  // namespace schedlab::share
