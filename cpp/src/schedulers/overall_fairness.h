// FRESH's overall fairness [Wang 2017, §3.3.2.1, Eq. 3.1]: at time T, each active job's resource
// consumption rate r_i(T) = (slot-seconds its map and reduce attempts have used so far) /
// (T - T_i), and F(T) = Jain's index of the r_i over the active jobs J'. Active = admitted
// (T_i = the admission time of AdmissionControl: entry into the map set M, or the submission
// time when admission control is off) and not finished.
//
// Sampled on a timer every `interval` seconds from the engine's attempt table (attempts are
// appended in launch order, so a cursor finds new launches and a short list holds the running
// ones): no hook into launches is needed, and the cost per sample is O(running attempts +
// active jobs). Writes the series "overall_fairness" (time, fairness, active_jobs) and the
// counters overall_fairness_mean (time average over samples with |J'| >= 2, the single number
// per run the spec recommends), _min, _end and _samples.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "mr_common.h"

namespace schedlab::mr {

class OverallFairness {
 public:
  static constexpr uint64_t kTimerTag = 0x0FA1'0000'0000'0000ULL;

  void init(Sim& sim, double interval) {
    interval_ = interval;
    const size_t nj = sim.workload().n_jobs();
    done_.assign(nj, 0);
    start_sum_.assign(nj, 0);
    running_.assign(nj, 0);
    if (interval_ > 0) sim.set_timer(0, kTimerTag);
  }
  bool owns(uint64_t tag) const { return tag == kTimerTag; }

  void sample(Sim& sim, const AdmissionControl& ac) {
    update(sim);
    const double now = sim.now();
    double sum = 0, sum2 = 0;
    int32_t n = 0;
    for (int32_t j : sim.active_jobs()) {
      const double ti = ac.admit_time(j);
      if (std::isnan(ti)) continue;
      const double r = now > ti ? (done_[j] + running_[j] * now - start_sum_[j]) / (now - ti) : 0.0;
      sum += r;
      sum2 += r * r;
      ++n;
    }
    const double f = n == 0 ? NAN : (sum2 > 0 ? sum * sum / (n * sum2) : 1.0);
    sim.series("overall_fairness", {"time", "fairness", "active_jobs"}).add_row({now, f, double(n)});
    if (n >= 2) {
      total_ += f;
      ++count_;
      min_ = std::min(min_, f);
      last_ = f;
    }
    sim.set_timer(now + interval_, kTimerTag);
  }

  void finish(SimResult& r) const {
    r.counters["overall_fairness_mean"] = count_ ? total_ / count_ : NAN;
    r.counters["overall_fairness_min"] = count_ ? min_ : NAN;
    r.counters["overall_fairness_end"] = count_ ? last_ : NAN;
    r.counters["overall_fairness_samples"] = double(count_);
  }

 private:
  void update(const Sim& sim) {
    const auto& wl = sim.workload();
    for (; cursor_ < sim.n_attempts(); ++cursor_) {
      const Attempt& a = sim.attempt(cursor_);
      const int32_t j = wl.task_job[a.task];
      running_[j] += 1;
      start_sum_[j] += a.start;
      open_.push_back(cursor_);
    }
    size_t keep = 0;
    for (size_t i = 0; i < open_.size(); ++i) {
      const Attempt& a = sim.attempt(open_[i]);
      if (a.status == kRunning) { open_[keep++] = open_[i]; continue; }
      const int32_t j = wl.task_job[a.task];
      running_[j] -= 1;
      start_sum_[j] -= a.start;
      done_[j] += a.finish - a.start;
    }
    open_.resize(keep);
  }

  double interval_ = 0;
  int64_t cursor_ = 0;
  std::vector<int64_t> open_;
  std::vector<double> done_, start_sum_;
  std::vector<int32_t> running_;
  double total_ = 0, min_ = INFINITY, last_ = NAN;
  int64_t count_ = 0;
};

}  // namespace schedlab::mr
