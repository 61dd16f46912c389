// FRESH: fair and efficient slot configuration and scheduling for Hadoop clusters (Wang
// dissertation ch. 3; spec Wang 2017, ch. 3):
//   fresh_static  — Algorithm 3.3.1: an offline fluid (processor-sharing) search over the
//                   cluster-wide map/reduce slot split, then the stock Fair Scheduler with
//                   admission control k on that split [§2.2]. The search is also a function,
//                   fresh_static_split() (schedlab/fresh.h; Python schedlab.mapreduce).
//   fresh_dynamic — Algorithms 3.3.2-3.3.4: every free slot of one untyped pool is typed map or
//                   reduce so the split follows the remaining workload, with the look-ahead of
//                   Theorem 3.3.1 (tau1 = 0.8, tau2 = 0.6), and given to the job with the lowest
//                   overall resource consumption rate [§2.4].
// Both record the overall fairness F(T) of §2.3 (overall_fairness.h).
//
// Readings of the spec's ambiguities (defaults first, alternatives as parameters):
//   * Alg 3.3.1 per-job share c_m = s_m/|M| as in the pseudo-code (share="set_size"); the text's
//     s_m/k is share="k". The deduction after a map phase ends uses the remaining W_u
//     (deduction="remaining"); the printed w_m(u) is deduction="literal". s_m runs 1..S-1.
//   * s_m in Alg 3.3.2 = slots currently running maps. If the chosen type has no eligible task the
//     slot takes the other type, else stays idle (needed for Fig. 3.6's all-map start).
//   * CalExpSm: progress(J_a) = finished maps / maps; w'_m(a)·k uses min(k, |M|); the line-12
//     test is normalised, |s'_m/S - theta_exp| / theta_exp > tau2 (lookahead_test="normalized");
//     the printed count-vs-ratio comparison is lookahead_test="literal". r of Theorem 3.3.1 is an
//     exponential average (weight 0.3) of the interval between cluster-wide reduce completions;
//     with no reduce running, eta = 0. If RW_m + RW_r = 0 the split is left as it is.
//   * t_m(i), t_r(i): the observed mean of the job's finished tasks of that stage; before one has
//     finished, the profile (the workload's estimates; a reduce's profile adds its shuffle time).
//   * "Remaining" tasks = not finished (pending + running). R' jobs count toward RW_r.
//   * T_i = admission time (entry into M); r_i = 0 when now = T_i; ties go to the earlier job.
//   * k = 0 means no admission limit (k = number of jobs); reduces still wait for the job's map
//     phase to end, as FRESH's M -> R transition implies.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "mr_common.h"
#include "overall_fairness.h"
#include "schedlab/fresh.h"

namespace schedlab {
namespace mr {

void spread_map_slots(const Cluster& cluster, int32_t map_slots, std::vector<int32_t>& node_map,
                      std::vector<int32_t>& node_reduce) {
  const size_t n = cluster.size();
  node_map.assign(n, 0);
  node_reduce.resize(n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) total += cluster.map_slots[i] + cluster.reduce_slots[i];
  if (map_slots < 0 || map_slots > total)
    throw std::invalid_argument("spread_map_slots: map_slots must be between 0 and the cluster's " +
                                std::to_string(total) + " slots, got " + std::to_string(map_slots));
  int32_t left = map_slots;
  while (left > 0) {
    for (size_t i = 0; i < n && left > 0; ++i) {
      if (node_map[i] < cluster.map_slots[i] + cluster.reduce_slots[i]) {
        ++node_map[i];
        --left;
      }
    }
  }
  for (size_t i = 0; i < n; ++i) node_reduce[i] = cluster.map_slots[i] + cluster.reduce_slots[i] - node_map[i];
}

namespace {

// Per-job profiles: total map and reduce workload in slot-seconds (from the estimates).
void job_profiles(const Workload& wl, double bandwidth, std::vector<double>& wm, std::vector<double>& wr) {
  const size_t nj = wl.n_jobs();
  wm.assign(nj, 0);
  wr.assign(nj, 0);
  for (size_t t = 0; t < wl.n_tasks(); ++t) {
    const int32_t j = wl.task_job[t];
    if (wl.task_stage[t] == kMap) wm[j] += wl.estimate[t];
    else wr[j] += wl.estimate[t] + wl.input_bytes[t] / bandwidth;
  }
}

// The fluid model of Alg. 3.3.1 for one split; returns the makespan.
double fluid_makespan(const std::vector<double>& wm, const std::vector<double>& wr, int64_t k, double sm,
                      double sr, const FreshSplitOptions& opt, std::vector<double>& W, std::vector<int32_t>& M,
                      std::vector<int32_t>& R, std::vector<int32_t>& Rq) {
  const int32_t n = static_cast<int32_t>(wm.size());
  W = wm;
  M.clear();
  R.clear();
  Rq.clear();
  size_t rq_head = 0;
  int32_t next = 0;
  while (next < n && int64_t(M.size()) < k) M.push_back(next++);
  double T = 0;
  while (!M.empty() || !R.empty()) {
    const double cm = M.empty() ? 0 : sm / (opt.share_by_set_size ? double(M.size()) : double(k));
    const double cr = R.empty() ? 0 : sr / (opt.share_by_set_size ? double(R.size()) : double(k));
    double tu = INFINITY, tv = INFINITY;
    size_t u = 0, v = 0;
    for (size_t x = 0; x < M.size(); ++x)
      if (W[M[x]] / cm < tu) { tu = W[M[x]] / cm; u = x; }
    for (size_t x = 0; x < R.size(); ++x)
      if (W[R[x]] / cr < tv) { tv = W[R[x]] / cr; v = x; }
    if (tu < tv) {  // a map phase ends first
      const int32_t job = M[u];
      T += tu;
      M.erase(M.begin() + u);
      const double dm = opt.literal_deduction ? wm[job] : tu * cm;
      const double dr = opt.literal_deduction ? wm[job] / cm * cr : tu * cr;
      for (int32_t i : M) W[i] = std::max(0.0, W[i] - dm);
      for (int32_t i : R) W[i] = std::max(0.0, W[i] - dr);
      W[job] = wr[job];
      if (next < n) M.push_back(next++);
      if (int64_t(R.size()) < k) R.push_back(job);
      else Rq.push_back(job);
    } else {  // a reduce phase ends first (ties land here)
      T += tv;
      R.erase(R.begin() + v);
      for (int32_t i : R) W[i] = std::max(0.0, W[i] - tv * cr);
      for (int32_t i : M) W[i] = std::max(0.0, W[i] - tv * cm);
      if (rq_head < Rq.size()) R.push_back(Rq[rq_head++]);
    }
  }
  return T;
}

}  // namespace

FreshSplit fresh_static_split(const Cluster& cluster, const Workload& wl, const FreshSplitOptions& opt) {
  int64_t S = 0;
  for (size_t i = 0; i < cluster.size(); ++i) S += cluster.map_slots[i] + cluster.reduce_slots[i];
  if (S < 2) throw std::invalid_argument("fresh_static_split: the cluster needs at least 2 slots, has " + std::to_string(S));
  if (wl.n_jobs() == 0) throw std::invalid_argument("fresh_static_split: the workload has no jobs");
  if (opt.k < 0) throw std::invalid_argument("fresh_static_split: k must not be negative");
  if (!(opt.network_bandwidth > 0)) throw std::invalid_argument("fresh_static_split: network_bandwidth must be positive");
  std::vector<double> wm, wr;
  job_profiles(wl, opt.network_bandwidth, wm, wr);
  const int64_t n = static_cast<int64_t>(wl.n_jobs());
  const int64_t k = opt.k > 0 ? std::min(opt.k, n) : n;
  FreshSplit out;
  out.makespan_by_split.assign(S + 1, std::numeric_limits<double>::quiet_NaN());
  out.makespan = INFINITY;
  // Each split is a fluid run of its own (a production day on thousands of slots: 12,000 runs
  // over 24,000 jobs, seconds each thousand): they run on the machine's cores, each thread taking
  // every n-th split with its own scratch, and the choice below reads them in split order.
  const int64_t threads = S < 256 ? 1 : std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 4);
  auto run_splits = [&](int64_t first) {
    std::vector<double> W;
    std::vector<int32_t> M, R, Rq;
    for (int64_t sm = first; sm < S; sm += threads)
      out.makespan_by_split[size_t(sm)] = fluid_makespan(wm, wr, k, double(sm), double(S - sm), opt, W, M, R, Rq);
  };
  std::vector<std::thread> helpers;
  for (int64_t i = 1; i < threads; ++i) helpers.emplace_back(run_splits, 1 + i);
  run_splits(1);
  for (auto& h : helpers) h.join();
  for (int64_t sm = 1; sm < S; ++sm) {
    const double T = out.makespan_by_split[size_t(sm)];
    if (T < out.makespan) {
      out.makespan = T;
      out.map_slots = static_cast<int32_t>(sm);
    }
  }
  out.reduce_slots = static_cast<int32_t>(S - out.map_slots);
  spread_map_slots(cluster, out.map_slots, out.node_map_slots, out.node_reduce_slots);
  return out;
}

namespace {

ParamSpec k_param() {
  return ParamSpec::integer("k", 5, 0, 1000000,
                            "admission control: at most k jobs in map phase (M) and k in reduce phase (R); "
                            "0 = no limit. Default 5, the setting of the paper's Set A timeline (Fig. 3.6)");
}
ParamSpec fairness_param() {
  return ParamSpec::number("fairness_interval", 5, 0, 1e9,
                           "seconds between samples of the overall fairness F(T) (series 'overall_fairness'); 0 = off");
}

// ------------------------------------------------------------------------------------------
// fresh_static: the split of Alg. 3.3.1, then Hadoop's Fair Scheduler (fair) with k.
class FreshStatic : public Scheduler {
 public:
  // fair's heartbeat (see FairScheduler); the F(T) samples run on their own timer
  bool quiet_without_pending() const override { return true; }
  explicit FreshStatic(const Params& p)
      : k_(p.integer("k")),
        admission_(p.integer("k")),
        fairness_interval_(p.number("fairness_interval")) {
    opt_.k = k_;
    opt_.share_by_set_size = p.choice("share") == "set_size";
    opt_.literal_deduction = p.choice("deduction") == "literal";
    ParamValues fair;
    fair.numbers["k"] = double(k_);
    fair_ = make_scheduler("fair", fair);
  }

  void init(Sim& sim) override {
    opt_.network_bandwidth = sim.options().network_bandwidth;
    split_ = fresh_static_split(sim.cluster(), sim.workload(), opt_);
    for (int32_t i = 0; i < sim.n_nodes(); ++i) sim.set_slots(i, split_.node_map_slots[i], split_.node_reduce_slots[i]);
    admission_.init(sim);
    fairness_.init(sim, fairness_interval_);
    fair_->init(sim);
  }
  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    fair_->on_job_submitted(sim, job);
  }
  void on_heartbeat(Sim& sim, int32_t node) override { fair_->on_heartbeat(sim, node); }
  void on_attempt_finished(Sim& sim, int64_t a) override { fair_->on_attempt_finished(sim, a); }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override {
    admission_.on_stage_finished(sim, job, stage);
    fair_->on_stage_finished(sim, job, stage);
  }
  void on_job_finished(Sim& sim, int32_t job) override { fair_->on_job_finished(sim, job); }
  void on_timer(Sim& sim, uint64_t tag) override {
    if (fairness_.owns(tag)) fairness_.sample(sim, admission_);
    else fair_->on_timer(sim, tag);
  }
  void finish(Sim& sim, SimResult& r) override {
    fair_->finish(sim, r);
    fairness_.finish(r);
    r.counters["fresh_map_slots"] = split_.map_slots;
    r.counters["fresh_reduce_slots"] = split_.reduce_slots;
    r.counters["fresh_predicted_makespan"] = split_.makespan;
    auto& at = r.job_extra["admit_time"];
    at.resize(sim.workload().n_jobs());
    for (size_t j = 0; j < at.size(); ++j) at[j] = admission_.admit_time(int32_t(j));
  }

 private:
  int64_t k_;
  AdmissionControl admission_;  // mirrors the one inside fair_, for T_i of the fairness metric
  double fairness_interval_;
  FreshSplitOptions opt_;
  FreshSplit split_;
  OverallFairness fairness_;
  std::unique_ptr<Scheduler> fair_;
};

// ------------------------------------------------------------------------------------------
// fresh_dynamic: Algorithms 3.3.2 (type a free slot), 3.3.3 (CalExpSm with Theorem 3.3.1) and
// 3.3.4 (give it to the job with the lowest overall consumption rate) on an untyped pool.
class FreshDynamic : public Scheduler {
 public:
  explicit FreshDynamic(const Params& p)
      : k_(p.integer("k")),
        tau1_(p.number("tau1")),
        tau2_(p.number("tau2")),
        literal_test_(p.choice("lookahead_test") == "literal"),
        by_overall_(p.choice("assignment") == "overall"),
        fairness_interval_(p.number("fairness_interval")) {}

  SlotModel slot_model() const override { return SlotModel::Pooled; }

  void init(Sim& sim) override {
    const auto& wl = sim.workload();
    const size_t nj = wl.n_jobs();
    k_eff_ = k_ > 0 ? std::min<int64_t>(k_, int64_t(nj)) : int64_t(nj);
    admission_ = AdmissionControl(k_eff_);
    admission_.init(sim);
    fairness_.init(sim, fairness_interval_);
    for (int s = 0; s < 2; ++s) {
      prior_[s].assign(nj, 0);
      obs_sum_[s].assign(nj, 0);
      obs_n_[s].assign(nj, 0);
    }
    std::vector<int32_t> count[2] = {std::vector<int32_t>(nj, 0), std::vector<int32_t>(nj, 0)};
    const double bw = sim.options().network_bandwidth;
    for (size_t t = 0; t < wl.n_tasks(); ++t) {
      const int s = wl.task_stage[t];
      const int32_t j = wl.task_job[t];
      prior_[s][j] += wl.estimate[t] + (s == kReduce ? wl.input_bytes[t] / bw : 0.0);
      count[s][j]++;
    }
    for (int s = 0; s < 2; ++s)
      for (size_t j = 0; j < nj; ++j) prior_[s][j] = count[s][j] ? prior_[s][j] / count[s][j] : 0.0;
    used_done_.assign(nj, 0);
    used_start_sum_.assign(nj, 0);
    used_running_.assign(nj, 0);
    work_pass_ = WorkPass{};
  }

  void on_job_submitted(Sim& sim, int32_t job) override {
    admission_.on_submitted(sim, job);
    ++generation_;
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override {
    admission_.on_stage_finished(sim, job, stage);
    ++generation_;
  }
  void on_job_finished(Sim&, int32_t) override { ++generation_; }
  void on_timer(Sim& sim, uint64_t tag) override {
    if (fairness_.owns(tag)) fairness_.sample(sim, admission_);
  }

  void on_attempt_finished(Sim& sim, int64_t a) override {
    const Attempt& at = sim.attempt(a);
    const auto& wl = sim.workload();
    const int32_t j = wl.task_job[at.task];
    const int s = wl.task_stage[at.task];
    const double d = at.finish - at.start;
    ++generation_;
    obs_sum_[s][j] += d;
    obs_n_[s][j]++;
    used_done_[j] += d;
    used_start_sum_[j] -= at.start;
    used_running_[j]--;
    if (s == kReduce) {
      if (last_reduce_end_ >= 0) {
        const double gap = sim.now() - last_reduce_end_;
        reduce_gap_ = reduce_gap_ < 0 ? gap : 0.3 * gap + 0.7 * reduce_gap_;
      }
      last_reduce_end_ = sim.now();
    }
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    if (kill_reduce_blocking_lost_maps(sim, node, kMap, true)) ++preempted_reduces_;  // faults only: see mr_common.h
    while (sim.free_slots(node, kMap) > 0) {
      const int type = choose_type(sim);
      if (!assign(sim, node, type) && !assign(sim, node, 1 - type)) break;
    }
  }

  void finish(Sim& sim, SimResult& r) override {
    fairness_.finish(r);
    r.counters["fresh_typed_map"] = double(typed_[kMap]);
    r.counters["fresh_typed_reduce"] = double(typed_[kReduce]);
    r.counters["fresh_lookahead_used"] = double(lookahead_used_);
    r.counters["fresh_reduces_killed_for_lost_maps"] = double(preempted_reduces_);
    auto& at = r.job_extra["admit_time"];
    at.resize(sim.workload().n_jobs());
    for (size_t j = 0; j < at.size(); ++j) at[j] = admission_.admit_time(int32_t(j));
  }

 private:
  double tbar(int s, int32_t j) const { return obs_n_[s][j] ? obs_sum_[s][j] / obs_n_[s][j] : prior_[s][j]; }
  double remaining_work(const Sim& sim, int s, int32_t j) const {
    const int64_t total = s == kMap ? sim.workload().n_maps[j] : sim.workload().n_reduces(j);
    return double(total - sim.job(j).done[s]) * tbar(s, j);
  }

  // Algorithm 3.3.3: the expected number of map slots.
  double cal_exp_sm(const Sim& sim, double sm) {
    const auto& wl = sim.workload();
    const double S = double(sim.total_map_slots() + sim.total_reduce_slots());
    WorkPass& p = work_pass_;
    if (!p.valid || p.generation != generation_ || p.remaining[kMap] != sim.remaining_tasks(kMap) ||
        p.remaining[kReduce] != sim.remaining_tasks(kReduce)) {
      p = WorkPass{true, generation_, {sim.remaining_tasks(kMap), sim.remaining_tasks(kReduce)}};
      for (int32_t j : sim.active_jobs()) {
        if (admission_.in_map_set(j)) {
          const double w = remaining_work(sim, kMap, j);
          p.rw_m += w;
          if (w < p.wa) { p.wa = w; p.a = j; }
        } else if (admission_.in_reduce_set(j) || admission_.in_reduce_wait(j)) {
          p.rw_r += remaining_work(sim, kReduce, j);
        }
      }
    }
    const double rw_m = p.rw_m, rw_r = p.rw_r, wa = p.wa;
    const int32_t a = p.a;
    if (rw_m + rw_r <= 0) return sm;
    const double theta = rw_m / (rw_m + rw_r);
    if (a < 0) return theta * S;
    const double progress = wl.n_maps[a] > 0 ? double(sim.job(a).done[kMap]) / wl.n_maps[a] : 1.0;
    if (progress < tau1_) return theta * S;
    const int32_t b = admission_.next_waiting();
    const double wmb = b >= 0 ? wl.n_maps[b] * tbar(kMap, b) : 0.0;
    const double kk = double(std::min<int64_t>(k_eff_, admission_.map_set_size()));
    const double rw_m2 = std::max(0.0, rw_m - wa * kk + wmb);
    const double rw_r2 = rw_r + double(wl.n_reduces(a)) * tbar(kReduce, a);
    const double theta_exp = rw_m2 + rw_r2 > 0 ? rw_m2 / (rw_m2 + rw_r2) : theta;
    // Theorem 3.3.1: reduce slots expected to free before J_a finishes its maps
    double eta = 0;
    const double r = reduce_gap_;
    if (r > 0 && sim.total_running(kReduce) > 0) {
      const double c = theta / (2 * r * kk);
      const double ma = sim.job(a).running_attempts[kMap];
      const double x = (std::sqrt(ma * ma + 4 * c * wa) - ma) / (2 * c);
      eta = x / r;
    }
    const double sm2 = sm + theta * eta;
    const double dev = theta_exp > 0 ? std::fabs((literal_test_ ? sm2 : sm2 / S) - theta_exp) / theta_exp : INFINITY;
    if (dev > tau2_) {
      ++lookahead_used_;
      return theta_exp * S;
    }
    return theta * S;
  }

  // Algorithm 3.3.2: the type of the next free slot.
  int choose_type(const Sim& sim) {
    const double sm = double(sim.total_running(kMap));
    return cal_exp_sm(sim, sm) > sm ? kMap : kReduce;
  }

  // Algorithm 3.3.4: the eligible job with the lowest consumption rate r_i gets the slot.
  bool assign(Sim& sim, int32_t node, int type) {
    const double now = sim.now();
    int32_t best = -1;
    double best_key = INFINITY, best_admit = INFINITY;
    for (int32_t j : sim.active_jobs()) {
      if (!admission_.may_run(j, type) || sim.job(j).pending[type] == 0) continue;
      double key;
      const double ti = admission_.admit_time(j);
      if (by_overall_) {
        key = now > ti ? (used_done_[j] + used_running_[j] * now - used_start_sum_[j]) / (now - ti) : 0.0;
      } else {
        key = sim.job(j).running_attempts[type];
      }
      if (key < best_key || (key == best_key && ti < best_admit)) {
        best = j;
        best_key = key;
        best_admit = ti;
      }
    }
    if (best < 0) return false;
    const int32_t t = type == kMap ? sim.find_map(best, node, kRemote) : sim.find_reduce(best);
    if (t < 0) return false;
    sim.launch(t, node, type);
    used_running_[best]++;
    used_start_sum_[best] += now;
    typed_[type]++;
    return true;
  }

  int64_t k_, k_eff_ = 0;
  double tau1_, tau2_;
  int64_t preempted_reduces_ = 0;
  bool literal_test_, by_overall_;
  double fairness_interval_;
  AdmissionControl admission_;
  OverallFairness fairness_;
  std::vector<double> prior_[2], obs_sum_[2];
  std::vector<int32_t> obs_n_[2];
  std::vector<double> used_done_, used_start_sum_;
  std::vector<int32_t> used_running_;
  double reduce_gap_ = -1, last_reduce_end_ = -1;
  // Alg. 3.3.3's pass over the active jobs (remaining map and reduce work, the map job with the
  // least), kept while nothing it reads changes: the active jobs and their sets (submissions,
  // stage and job ends), the jobs' completed tasks and observed durations (an attempt's success;
  // a map output lost re-opens a map, which the engine's count of uncompleted tasks shows). The
  // free slots of one heartbeat share one pass.
  struct WorkPass {
    bool valid = false;
    uint64_t generation = 0;
    int64_t remaining[2] = {0, 0};
    double rw_m = 0, rw_r = 0, wa = INFINITY;
    int32_t a = -1;
  };
  WorkPass work_pass_;
  uint64_t generation_ = 0;  // bumped by every event that changes what the pass reads
  int64_t typed_[2] = {0, 0};
  int64_t lookahead_used_ = 0;
};

}  // namespace

void register_fresh_schedulers() {
  register_scheduler(
      {"fresh_static", "", "FRESH-static, Algorithm 3.3.1 + Fair [Wang 2017, §3.3.1]",
       "offline fluid search for the map/reduce slot split minimising makespan, then Fair with admission control k",
       {k_param(),
        ParamSpec::choice("share", "set_size", {"set_size", "k"},
                          "per-job slot share in the fluid model: s_m/|M| as in the pseudo-code (default) or s_m/k as in the text"),
        ParamSpec::choice("deduction", "remaining", {"remaining", "literal"},
                          "work deducted from other jobs when a map phase ends: the remaining W_u (default) or the printed w_m(u)"),
        fairness_param()}},
      [](const Params& p) { return std::make_unique<FreshStatic>(p); });
  register_scheduler(
      {"fresh_dynamic", "", "FRESH-dynamic, Algorithms 3.3.2-3.3.4 and Theorem 3.3.1 [Wang 2017, §3.3.2]",
       "untyped slot pool typed on release by remaining map/reduce workload with look-ahead; tasks by overall fairness",
       {k_param(),
        ParamSpec::number("tau1", 0.8, 0, 1, "look-ahead starts when the job expected to leave M first has finished this fraction of its maps"),
        ParamSpec::number("tau2", 0.6, 0, 1e9, "look-ahead switches to the expected ratio when the relative deviation exceeds this"),
        ParamSpec::choice("lookahead_test", "normalized", {"normalized", "literal"},
                          "line 12 of Alg. 3.3.3: compare s'_m/S with theta_exp (default) or the printed count s'_m with the ratio"),
        ParamSpec::choice("assignment", "overall", {"overall", "fair"},
                          "task assignment: lowest overall consumption rate r_i (Alg. 3.3.4, default) or fewest running tasks of the slot's type"),
        fairness_param()}},
      [](const Params& p) { return std::make_unique<FreshDynamic>(p); });
}

}  // namespace mr
}  // namespace schedlab
