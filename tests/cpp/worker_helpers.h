// Helpers shared by the worker-engine tests: tiny workloads and runs by scheduler name.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "schedlab/registry.h"
#include "schedlab/workload.h"

namespace worker_test {

// jobs: (submit time, task durations)
inline schedlab::Workload make_workload(const std::vector<std::pair<double, std::vector<double>>>& jobs) {
  schedlab::Workload w;
  int32_t j = 0;
  for (auto& [t, durs] : jobs) {
    w.submit_time.push_back(t);
    for (double d : durs) {
      w.task_job.push_back(j);
      w.work.push_back(d);
    }
    ++j;
  }
  w.finalize();
  return w;
}

inline schedlab::SimResult run_named(const schedlab::Cluster& c, const schedlab::Workload& w, const std::string& sched,
                                     schedlab::ParamValues params = {}, schedlab::ParamValues opts = {},
                                     uint64_t seed = 0) {
  schedlab::RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = sched;
  r.scheduler_params = params;
  r.options = opts;
  r.seed = seed;
  return schedlab::run(r);
}

}  // namespace worker_test
