// The scheduler harness (schedlab/harness.h): the engine's driven mode, step by step.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "schedlab/harness.h"

using namespace schedlab;
using namespace schedlab::mr;

namespace {

std::vector<std::string> strs(const std::vector<Assignment>& v) {
  std::vector<std::string> out;
  for (const Assignment& a : v) out.push_back(a.str());
  return out;
}

Harness fifo(TaskIds ids = TaskIds::Index) {
  ParamValues options;
  options.numbers["slowstart"] = 0;
  Harness h("fifo", {}, options, ids);
  h.add_tracker("tt1", "rack1", 2, 2);
  h.add_tracker("tt2", "rack1", 2, 2);
  return h;
}

HarnessJob job(int maps, int reduces) {
  HarnessJob j;
  j.maps = maps;
  j.reduces = reduces;
  return j;
}

}  // namespace

TEST(Harness, FifoHandsOutTwoMapsAndOneReducePerHeartbeat) {
  Harness h = fifo(TaskIds::Counter);
  EXPECT_EQ(h.submit(job(10, 10)), "job_test_0001");
  h.submit(job(10, 10));
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0001_m_000001_0 on tt1",
                                                                 "attempt_test_0001_m_000002_0 on tt1",
                                                                 "attempt_test_0001_r_000003_0 on tt1"}));
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0001_r_000004_0 on tt1"}));
  EXPECT_TRUE(h.heartbeat("tt1").empty());
}

TEST(Harness, FinishedTaskFreesItsSlotAndRetriesGetNewAttemptNumbers) {
  Harness h = fifo();
  h.submit(job(3, 0));
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0001_m_000000_0 on tt1",
                                                                 "attempt_test_0001_m_000001_0 on tt1"}));
  h.advance(1.0);
  h.finish("attempt_test_0001_m_000000_0");
  h.fail("attempt_test_0001_m_000001_0");
  EXPECT_EQ(h.attempt_status("attempt_test_0001_m_000001_0"), "failed");
  // the failed map is re-run first, as a new attempt (the load-factor cap: 2 maps left on 4
  // slots allow ceil(2 / 4 x 2) = 1 map on the tracker)
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0001_m_000001_1 on tt1"}));
  EXPECT_EQ(h.job_state("job_test_0001").done[kMap], 1);
}

TEST(Harness, JobsSubmittedLaterReplayTheSameState) {
  Harness h = fifo();
  h.submit(job(4, 0));
  EXPECT_EQ(h.heartbeat("tt1").size(), 2u);
  h.advance(5);
  h.submit(job(4, 0));  // the engine restarts with both jobs and replays the actions so far
  EXPECT_EQ(h.running_attempts("tt1"), (std::vector<std::string>{"attempt_test_0001_m_000000_0", "attempt_test_0001_m_000001_0"}));
  EXPECT_EQ(strs(h.heartbeat("tt2")), (std::vector<std::string>{"attempt_test_0001_m_000002_0 on tt2",
                                                                 "attempt_test_0001_m_000003_0 on tt2"}));
  EXPECT_EQ(strs(h.heartbeat("tt2")), std::vector<std::string>{});  // full
  EXPECT_DOUBLE_EQ(h.now(), 5.0);
}

TEST(Harness, ClearErrors) {
  Harness h = fifo();
  h.submit(job(1, 0));
  EXPECT_THROW(h.heartbeat("tt9"), std::invalid_argument);
  EXPECT_THROW(h.finish("attempt_test_0001_m_000000_0"), std::invalid_argument);  // not assigned yet
  h.heartbeat("tt1");
  h.advance(1);
  EXPECT_THROW(h.set_time(0.5), std::invalid_argument);
  h.finish("attempt_test_0001_m_000000_0");
  EXPECT_THROW(h.finish("attempt_test_0001_m_000000_0"), std::invalid_argument);
  EXPECT_THROW(h.job_state("job_test_0009"), std::invalid_argument);
  EXPECT_THROW(Harness("no_such_scheduler"), std::invalid_argument);
}
