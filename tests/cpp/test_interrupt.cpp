// Interrupting a run from outside (schedlab/interrupt.h): every engine's event loop polls the
// check installed for its thread, every 2^20 events, and stops with Interrupted when it says so.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/interrupt.h"
#include "worker_helpers.h"

using namespace schedlab;

namespace {
// a task of 10^12 s: heartbeats (mapreduce, with a speculator: without, the nodes sleep while
// nothing is pending) or periodic windows and samples go on for ever
Workload endless() { return worker_test::make_workload({{0.0, {1e12}}, {1.0, {1.0}}}); }
ParamValues heartbeating() {
  ParamValues o;
  o.strings["speculation"] = "hadoop";
  return o;
}
}  // namespace

TEST(Interrupt, EveryEngineStopsWhenTheCheckSaysSo) {
  const Cluster c = Cluster::uniform(4, 1, 1, 1);
  const Workload w = endless();
  ParamValues share_opts;
  share_opts.numbers["sample_interval"] = 1.0;
  for (const char* s : {"fifo", "fair", "sparrow", "eagle", "drf"}) {
    int calls = 0;
    InterruptCheck check([&] { return ++calls == 3; });
    const std::string name = s;
    const ParamValues o = name == "drf" ? share_opts : name == "fifo" || name == "fair" ? heartbeating() : ParamValues{};
    EXPECT_THROW(worker_test::run_named(c, w, s, {}, o), Interrupted)
        << s;
    EXPECT_EQ(calls, 3) << s;  // polled at 2^20, 2^21 and 3 x 2^20 events
  }
}

TEST(Interrupt, WithoutACheckARunGoesOnAndChecksNest) {
  const Cluster c = Cluster::uniform(4, 1, 1, 1);
  const Workload w = endless();
  ParamValues o = heartbeating();
  o.numbers["heartbeat_interval"] = 1.0;
  o.numbers["time_limit"] = 4e5;  // 1.6 M heartbeats: past the first poll
  const SimResult plain = worker_test::run_named(c, w, "fifo", {}, o);
  EXPECT_GT(plain.events, uint64_t(1) << 20);
  EXPECT_TRUE(std::isnan(plain.job_finish[0]));
  EXPECT_FALSE(std::isnan(plain.job_finish[1]));  // the short job finished

  int outer = 0, inner = 0;
  InterruptCheck a([&] { ++outer; return false; });
  {
    InterruptCheck b([&] { ++inner; return false; });
    const SimResult r = worker_test::run_named(c, w, "fifo", {}, o);
    EXPECT_EQ(r.events, plain.events);  // a check that answers false changes nothing
  }
  EXPECT_EQ(inner, 1);
  EXPECT_EQ(outer, 0);
  worker_test::run_named(c, w, "fifo", {}, o);  // the outer check is back
  EXPECT_EQ(outer, 1);
  EXPECT_EQ(inner, 1);
}

TEST(Interrupt, ProgressIsReportedAtThePollingPointWithTheSimulatedTime) {
  const Cluster c = Cluster::uniform(4, 1, 1, 1);
  const Workload w = endless();
  ParamValues o = heartbeating();
  o.numbers["heartbeat_interval"] = 1.0;
  o.numbers["time_limit"] = 4e5;
  std::vector<std::pair<uint64_t, double>> reports;
  SimResult r;
  {
    ProgressReport progress([&](uint64_t events, double now) { reports.emplace_back(events, now); });
    r = worker_test::run_named(c, w, "fifo", {}, o);
  }
  ASSERT_EQ(reports.size(), r.events >> 20);
  for (size_t k = 0; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].first, uint64_t(k + 1) << 20);
    EXPECT_GT(reports[k].second, 0.0);
    EXPECT_LE(reports[k].second, 4e5);
    if (k) EXPECT_GE(reports[k].second, reports[k - 1].second);
  }
  worker_test::run_named(c, w, "fifo", {}, o);  // removed with its scope
  EXPECT_EQ(reports.size(), r.events >> 20);
}
