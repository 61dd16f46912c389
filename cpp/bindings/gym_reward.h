// The rewards of the Gymnasium environments (schedlab.gym), accrued between two decisions:
// "flowtime" = - (active jobs x elapsed seconds) (an episode's rewards add up to minus the total
// job time), "slowdown" = - sum over active jobs of elapsed / the job's ideal duration, "late" =
// minus the jobs that finished after their deadline.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace schedlab::bindings {

enum class Reward { Flowtime, Slowdown, Late };

inline Reward reward_from(const std::string& s) {
  if (s == "flowtime") return Reward::Flowtime;
  if (s == "slowdown") return Reward::Slowdown;
  if (s == "late") return Reward::Late;
  throw pybind11::value_error("reward must be 'flowtime', 'slowdown' or 'late', got '" + s + "'");
}

// An episode's jobs as the rewards see them; the environment's scheduler reports arrivals and
// finishes, the environment takes the reward accrued since the last decision.
struct EpisodeReward {
  std::vector<double> inv_ideal;  // per job: 1 / its ideal duration (the slowdown weight)
  double last_t = 0;
  int64_t active = 0, finished = 0;
  double weight = 0, flow = 0, slow = 0, late = 0;

  void restart() {
    last_t = 0;
    active = finished = 0;
    weight = flow = slow = late = 0;
  }
  void job_arrived(double now, int32_t job) {
    account(now);
    ++active;
    weight += inv_ideal[job];
  }
  void job_finished(double now, int32_t job, bool missed_deadline) {
    account(now);
    --active;
    weight -= inv_ideal[job];
    ++finished;
    if (missed_deadline) late += 1;
  }
  // Adds the reward accrued up to time t.
  void account(double t) {
    const double dt = t - last_t;
    if (dt > 0) {
      flow += double(active) * dt;
      slow += weight * dt;
    }
    last_t = std::max(last_t, t);
  }
  double take(Reward kind) {
    double r = 0;
    switch (kind) {
      case Reward::Flowtime: r = -flow; break;
      case Reward::Slowdown: r = -slow; break;
      case Reward::Late: r = -late; break;
    }
    flow = slow = late = 0;
    return r;
  }
};

}  // namespace schedlab::bindings
