// FRESH-static's split search (Algorithm 3.3.1) on a hand-checked case.
#include <gtest/gtest.h>

#include <stdexcept>

#include "schedlab/fresh.h"

using namespace schedlab;

namespace {
Workload one_job() {
  // 4 maps x 10 s (w_m = 40), 2 reduces x 10 s (w_r = 20)
  Workload w;
  w.submit_time = {0};
  w.task_job = {0, 0, 0, 0, 0, 0};
  w.task_stage = {0, 0, 0, 0, 1, 1};
  w.work = {10, 10, 10, 10, 10, 10};
  w.finalize();
  return w;
}
}  // namespace

TEST(FreshSplit, HandChecked) {
  const Cluster c = Cluster::uniform(1, 1, 2, 2);
  const Workload w = one_job();
  mr::FreshSplitOptions o;
  o.k = 1;
  const mr::FreshSplit s = mr::fresh_static_split(c, w, o);
  EXPECT_EQ(s.map_slots, 2);
  EXPECT_EQ(s.reduce_slots, 2);
  EXPECT_DOUBLE_EQ(s.makespan, 30.0);
  EXPECT_NEAR(s.makespan_by_split[1], 40 + 20.0 / 3, 1e-12);
  EXPECT_NEAR(s.makespan_by_split[3], 40.0 / 3 + 20, 1e-12);
}

TEST(FreshSplit, SpreadsRoundRobin) {
  const Cluster c = Cluster::uniform(3, 1, 2, 2);
  std::vector<int32_t> m, r;
  mr::spread_map_slots(c, 7, m, r);
  EXPECT_EQ(m, (std::vector<int32_t>{3, 2, 2}));
  EXPECT_EQ(r, (std::vector<int32_t>{1, 2, 2}));
  EXPECT_THROW(mr::spread_map_slots(c, 13, m, r), std::invalid_argument);
  EXPECT_THROW(mr::fresh_static_split(Cluster::uniform(1, 1, 1, 0), one_job(), {}), std::invalid_argument);
}
