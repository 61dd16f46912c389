// The MapReduce engine's stepping mode (Sim::start / resume / pause, used by schedlab.gym): a
// scheduler that pauses at every heartbeat gives, stepped, the very schedule run() gives.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/mapreduce.h"
#include "schedlab/registry.h"
#include "schedlab/workload.h"

using namespace schedlab;

namespace {

// Forwards every callback to a built-in scheduler and pauses the engine after each heartbeat.
class Pausing final : public mr::Scheduler {
 public:
  explicit Pausing(const std::string& name) : inner_(mr::make_scheduler(name, {})) {}
  mr::SlotModel slot_model() const override { return inner_->slot_model(); }
  void init(mr::Sim& s) override { inner_->init(s); }
  void on_job_submitted(mr::Sim& s, int32_t j) override { inner_->on_job_submitted(s, j); }
  void on_heartbeat(mr::Sim& s, int32_t n) override {
    inner_->on_heartbeat(s, n);
    ++heartbeats;
    s.pause();
  }
  void on_attempt_finished(mr::Sim& s, int64_t a) override { inner_->on_attempt_finished(s, a); }
  void on_stage_finished(mr::Sim& s, int32_t j, int st) override { inner_->on_stage_finished(s, j, st); }
  void on_job_finished(mr::Sim& s, int32_t j) override { inner_->on_job_finished(s, j); }
  void on_timer(mr::Sim& s, uint64_t t) override { inner_->on_timer(s, t); }
  void finish(mr::Sim& s, SimResult& r) override { inner_->finish(s, r); }
  int64_t heartbeats = 0;

 private:
  std::unique_ptr<mr::Scheduler> inner_;
};

Workload small_workload() {
  Workload w;
  w.replica_begin.push_back(0);
  const int jobs = 6;
  for (int j = 0; j < jobs; ++j) {
    w.submit_time.push_back(7.0 * j);
    w.user.push_back(j % 2);
    w.deadline.push_back(NAN);
    for (int m = 0; m < 3 + j; ++m) {
      w.task_job.push_back(j);
      w.task_stage.push_back(kMap);
      w.work.push_back(5.0 + 3.0 * ((m * 7 + j) % 5));
      w.replica_node.push_back((m + j) % 4);
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
    w.task_job.push_back(j);
    w.task_stage.push_back(kReduce);
    w.work.push_back(11.0);
    w.replica_begin.push_back(int64_t(w.replica_node.size()));
  }
  w.finalize();
  return w;
}

}  // namespace

TEST(Stepping, PausingEveryHeartbeatGivesTheScheduleOfRun) {
  const Cluster c = Cluster::uniform(4, 2, 2, 1);
  const Workload w = small_workload();
  for (const char* name : {"fifo", "fair"}) {
    Pausing a(name), b(name);
    mr::Options opt;
    mr::Sim ran(c, w, a, opt, 3);
    const SimResult r1 = ran.run();
    mr::Sim stepped(c, w, b, opt, 3);
    stepped.start();
    int64_t pauses = 0;
    while (stepped.resume()) ++pauses;
    EXPECT_FALSE(stepped.resume());  // over stays over
    const SimResult r2 = stepped.collect();
    EXPECT_EQ(pauses, b.heartbeats) << name;
    EXPECT_GT(pauses, 10) << name;
    EXPECT_EQ(r1.events, r2.events) << name;
    EXPECT_EQ(r1.att_task, r2.att_task) << name;
    EXPECT_EQ(r1.att_node, r2.att_node) << name;
    EXPECT_EQ(r1.att_start, r2.att_start) << name;
    EXPECT_EQ(r1.att_finish, r2.att_finish) << name;
    EXPECT_EQ(r1.job_finish, r2.job_finish) << name;
  }
}

TEST(Stepping, ResumeNeedsStartAndIsNotForDrivenMode) {
  const Cluster c = Cluster::uniform(2, 1, 1, 1);
  const Workload w = small_workload();
  Pausing a("fifo");
  mr::Options opt;
  mr::Sim sim(c, w, a, opt, 0);
  EXPECT_THROW(sim.resume(), std::invalid_argument);
  mr::Options driven;
  driven.driven = true;
  Pausing b("fifo");
  mr::Sim d(c, w, b, driven, 0);
  d.start();
  EXPECT_THROW(d.resume(), std::invalid_argument);
}
