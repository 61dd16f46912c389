// The scheduler harness (schedlab/harness.h): the engine's driven mode, step by step.
#include <gtest/gtest.h>

#include <cmath>
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

namespace {

// capacity with Hadoop's default user-limit-factor 1: queues "a" and "b" of 50 %, minimum user
// limit 25 %, 2 trackers of 2 map and 1 reduce slots, reduces free to start.
Harness capacity_two_queues(bool memory = false) {
  ParamValues params, options;
  params.strings["capacities"] = "a:0.5,b:0.5";
  params.strings["min_user_limit_percents"] = "a:25,b:25";
  params.numbers["user_limit_factor"] = 1;
  if (memory) {
    for (const char* k : {"map_memory_mb", "reduce_memory_mb", "max_map_memory_mb", "max_reduce_memory_mb"})
      params.numbers[k] = std::string(k).rfind("max", 0) == 0 ? 2048 : 1024;
  }
  options.numbers["slowstart"] = 0;
  Harness h("capacity", params, options, TaskIds::PerJob);
  h.add_tracker("tt1", "rack1", 2, 1);
  h.add_tracker("tt2", "rack1", 2, 1);
  return h;
}

HarnessJob queue_job(int maps, int reduces, const std::string& queue, const std::string& user, double map_mb = 0) {
  HarnessJob j = job(maps, reduces);
  j.pool = queue;
  j.user = user;
  j.map_memory = map_mb;
  return j;
}

}  // namespace

// By hand: queue b's capacity is (int)(50 % x 4) = 2 map slots and 1 reduce slot; a lone user is
// held to min(max(ceil(C / 1), ceil(25 % x C)), capacity x 1) = 2 maps and 1 reduce; a second
// user makes two active users, and the limit over capacity C = 3 is then min(max(2, 1), 2) = 2.
TEST(Harness, CapacityUserLimits) {
  Harness h = capacity_two_queues();
  h.submit(queue_job(10, 10, "b", "u1"));
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0001_m_000001_0 on tt1",
                                                                 "attempt_test_0001_m_000002_0 on tt1",
                                                                 "attempt_test_0001_r_000001_0 on tt1"}));
  EXPECT_TRUE(h.heartbeat("tt2").empty());  // u1 at the user limit
  h.submit(queue_job(10, 10, "b", "u2"));
  EXPECT_EQ(strs(h.heartbeat("tt2")), (std::vector<std::string>{"attempt_test_0002_m_000001_0 on tt2",
                                                                 "attempt_test_0002_m_000002_0 on tt2",
                                                                 "attempt_test_0002_r_000001_0 on tt2"}));
  const SchedulerReport r = h.report();
  const size_t b = size_t(h.pool_id("b"));
  EXPECT_EQ(r.pool.at("map_capacity")[b], 2);
  EXPECT_EQ(r.pool.at("map_slots_occupied")[b], 4);
  EXPECT_EQ(r.pool.at("map_active_users")[b], 2);
}

// A 2 GB map needs two 1 GB slots: a tracker with one free slot is reserved for it (its slots
// count as the job's), and serves nothing else until it has two.
TEST(Harness, CapacityHighMemoryReservation) {
  Harness h = capacity_two_queues(true);
  h.submit(queue_job(1, 0, "a", "u1"));
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0001_m_000001_0 on tt1"}));
  h.submit(queue_job(2, 0, "a", "u2", 2048));
  EXPECT_TRUE(h.heartbeat("tt1").empty());
  SchedulerReport r = h.report();
  EXPECT_EQ(r.node.at("map_reserved_for")[0], 1);
  EXPECT_EQ(r.job.at("map_reserved_slots")[1], 2);
  h.submit(queue_job(1, 0, "a", "u1"));
  EXPECT_TRUE(h.heartbeat("tt1").empty());  // reserved: job 3 does not get the free slot
  h.advance(1);
  h.finish("attempt_test_0001_m_000001_0");
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0002_m_000001_0 on tt1"}));
  r = h.report();
  EXPECT_EQ(r.node.at("map_reserved_for")[0], -1);
  EXPECT_EQ(r.job.at("map_slots")[1], 2);
}

// A scheduler built by a factory (as a Python scheduler is) is rebuilt for each replay.
TEST(Harness, FactorySchedulerIsRebuiltForReplays) {
  int built = 0;
  ParamValues options;
  options.numbers["slowstart"] = 0;
  Harness h([&](const Workload&) { ++built; return make_scheduler("fifo", {}); }, "fifo by factory", options);
  h.add_tracker("tt1", "rack1", 2, 2);
  h.submit(job(2, 0));
  EXPECT_EQ(h.heartbeat("tt1").size(), 2u);
  h.submit(job(1, 0));
  h.sim();  // a new engine: the actions so far are replayed
  EXPECT_EQ(h.assignments().size(), 2u);
  EXPECT_EQ(built, 2);
}

// A killed job's pending tasks are dropped and its running attempts killed: their slots serve
// the next job at once; a job ended twice, or finalized while not held, is an error.
TEST(Harness, KilledJobFreesItsSlots) {
  Harness h = fifo();
  h.submit(job(4, 0));
  h.submit(job(2, 0));
  EXPECT_EQ(h.heartbeat("tt1").size(), 2u);
  h.end_job("job_test_0001", "KILLED");
  EXPECT_EQ(h.attempt_status("attempt_test_0001_m_000000_0"), "killed");
  const JobState& s = h.job_state("job_test_0001");
  EXPECT_EQ(s.ended, kKilled);
  EXPECT_EQ(s.pending[kMap], 0);
  EXPECT_EQ(s.running_attempts[kMap], 0);
  EXPECT_EQ(h.sim().total_pending(kMap), 2);
  // (the load-factor cap: job 2's 2 maps on 4 slots allow 1 map on the tracker)
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0002_m_000000_0 on tt1"}));
  EXPECT_THROW(h.end_job("job_test_0001", "FAILED"), std::invalid_argument);
  EXPECT_THROW(h.end_job("job_test_0002", "SUCCEEDED"), std::invalid_argument);
  EXPECT_THROW(h.finalize_job("job_test_0002"), std::invalid_argument);  // tasks still running
}

// With keep_attempts the killed job's attempts hold their slots until they are finished by hand,
// which frees the slots and changes nothing else of the job.
TEST(Harness, KilledJobKeepsItsAttemptsUntilTheyEnd) {
  Harness h = fifo();
  h.submit(job(2, 0));
  h.submit(job(2, 0));
  EXPECT_EQ(h.heartbeat("tt1").size(), 2u);
  h.end_job("job_test_0001", "FAILED", true);
  EXPECT_EQ(h.attempt_status("attempt_test_0001_m_000000_0"), "running");
  EXPECT_TRUE(h.heartbeat("tt1").empty());  // the tracker is still full
  h.finish("attempt_test_0001_m_000000_0");
  h.kill("attempt_test_0001_m_000001_0");
  EXPECT_EQ(h.job_state("job_test_0001").done[kMap], 0);
  EXPECT_EQ(h.job_state("job_test_0001").pending[kMap], 0);  // (not re-queued)
  EXPECT_EQ(strs(h.heartbeat("tt1")), (std::vector<std::string>{"attempt_test_0002_m_000000_0 on tt1"}));
}

// Held jobs (Hadoop's fake jobs) stay running after their last task until finalized.
TEST(Harness, HeldJobCompletesWhenFinalized) {
  ParamValues options;
  options.numbers["slowstart"] = 0;
  Harness h("fifo", {}, options);
  h.hold_jobs(true);
  h.add_tracker("tt1", "rack1", 2, 2);
  EXPECT_THROW(h.hold_jobs(false), std::invalid_argument);  // after the first action
  h.submit(job(1, 0));
  EXPECT_EQ(h.heartbeat("tt1").size(), 1u);
  h.advance(1);
  h.finish("attempt_test_0001_m_000000_0");
  EXPECT_TRUE(std::isnan(h.job_state("job_test_0001").finish));
  EXPECT_EQ(h.sim().active_jobs().size(), 1u);
  h.advance(1);
  h.finalize_job("job_test_0001");
  EXPECT_EQ(h.job_state("job_test_0001").finish, 2.0);
  EXPECT_TRUE(h.sim().active_jobs().empty());
  EXPECT_THROW(h.finalize_job("job_test_0001"), std::invalid_argument);
}

// capacity with the job initializer refuses a job past its queue's jobs to accept (maximum-system-jobs
// x capacity x init-accept-jobs-factor): the harness says so, the job is failed and its number used.
TEST(Harness, CapacityRefusesJobsPastItsSubmissionLimits) {
  ParamValues params;
  params.strings["job_initialization"] = "poller";
  params.numbers["init_poll_interval"] = INFINITY;
  params.numbers["max_system_jobs"] = 2;
  params.numbers["init_accept_jobs_factor"] = 1;
  Harness h("capacity", params);
  h.add_tracker("tt1", "rack1", 2, 2);
  h.submit(job(1, 0));
  h.submit(job(1, 0));
  EXPECT_THROW(h.submit(job(1, 0)), std::invalid_argument);
  EXPECT_EQ(h.job_state("job_test_0003").ended, kFailed);
  EXPECT_THROW(h.submit(job(1, 0)), std::invalid_argument);  // still two jobs waiting
  EXPECT_EQ(h.job_state("job_test_0004").ended, kFailed);
  h.end_job("job_test_0001", "KILLED");
  EXPECT_EQ(h.submit(job(1, 0)), "job_test_0005");  // room again
}
