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

// ---------------------------------------------------------------------------------------------
// The worker engine's stepping mode (worker::Sim::start / resume / pause, used by
// schedlab.gym.WorkerEnv).

#include "schedlab/random.h"
#include "schedlab/worker.h"

namespace {

// Forwards every callback to a built-in worker scheduler. With `pause_only`, it pauses the engine
// at each job arrival and probe pick (the decision points). Otherwise it defers the decisions as
// schedlab.gym.WorkerEnv does: a job arrival pauses and its probes are sent by the driver after
// resume() returns (place()); a free worker with two or more queued probes stays free, pauses, and
// is served by the driver (serve_next()), with the probe the built-in picks then.
class Stepped final : public worker::Scheduler {
 public:
  Stepped(const std::string& name, bool pause_only, bool defer_picks)
      : inner_(worker::make_scheduler(name, {})), pause_only_(pause_only), defer_picks_(defer_picks) {}
  void init(worker::Sim& s) override {
    inner_->init(s);
    pending_.assign(s.n_workers(), 0);
  }
  void on_job_arrival(worker::Sim& s, int32_t j) override {
    ++decisions;
    s.pause();
    if (pause_only_) inner_->on_job_arrival(s, j);
    else arrived_.push_back(j);
  }
  void on_probe_arrival(worker::Sim& s, int32_t w, int32_t p) override { inner_->on_probe_arrival(s, w, p); }
  int32_t pick_probe(worker::Sim& s, int32_t w, bool short_only) override {
    if (w == forced_w_) return inner_->pick_probe(s, w, short_only);
    if (pause_only_) {
      ++decisions;
      s.pause();
      return inner_->pick_probe(s, w, short_only);
    }
    if (defer_picks_ && s.worker(w).qlen >= 2) {
      if (!pending_[w]) {
        pending_[w] = 1;
        waiting_.push_back(w);
        ++decisions;
      }
      s.pause();
      return -1;
    }
    return inner_->pick_probe(s, w, short_only);
  }
  int32_t choose_task(worker::Sim& s, int32_t w, int32_t j, bool* c) override { return inner_->choose_task(s, w, j, c); }
  bool keep_probe(worker::Sim& s, int32_t w, int32_t p) override { return inner_->keep_probe(s, w, p); }
  double task_duration(worker::Sim& s, int32_t w, int32_t t, bool c) override { return inner_->task_duration(s, w, t, c); }
  void on_launch(worker::Sim& s, int32_t w, int64_t a) override { inner_->on_launch(s, w, a); }
  void on_task_end(worker::Sim& s, int32_t w, int64_t a, bool f) override { inner_->on_task_end(s, w, a, f); }
  void on_idle(worker::Sim& s, int32_t w) override { inner_->on_idle(s, w); }
  void on_window(worker::Sim& s, const worker::WindowStats& ws) override { inner_->on_window(s, ws); }
  void on_timer(worker::Sim& s, uint32_t a, uint64_t t) override { inner_->on_timer(s, a, t); }
  void finish(worker::Sim& s, SimResult& r) override { inner_->finish(s, r); }
  bool tracks_remaining() const override { return inner_->tracks_remaining(); }

  // The driver's side of the deferred decisions, after resume() returned true.
  void act(worker::Sim& s) {
    for (int32_t j : arrived_) inner_->on_job_arrival(s, j);
    arrived_.clear();
    for (size_t i = 0; i < waiting_.size(); ++i) {
      const int32_t w = waiting_[i];
      pending_[w] = 0;
      forced_w_ = w;
      s.kick(w);
      forced_w_ = -1;
    }
    waiting_.clear();
  }
  int64_t decisions = 0;

 private:
  std::unique_ptr<worker::Scheduler> inner_;
  bool pause_only_, defer_picks_;
  std::vector<int32_t> arrived_, waiting_;
  std::vector<uint8_t> pending_;
  int32_t forced_w_ = -1;
};

Workload worker_workload() {
  Random g(11);
  Workload w;
  double t = 0;
  for (int j = 0; j < 150; ++j) {
    t += g.exponential(1.5);
    w.submit_time.push_back(t);
    const int n = 1 + static_cast<int>(g.below(j % 10 == 0 ? 30 : 6));
    const bool lng = g.uniform() < 0.15;
    for (int k = 0; k < n; ++k) {
      w.task_job.push_back(j);
      w.work.push_back(lng ? g.uniform(100, 300) : g.uniform(0.5, 25));
    }
  }
  w.finalize();
  return w;
}

void expect_same(const SimResult& a, const SimResult& b, const std::string& what) {
  EXPECT_EQ(a.events, b.events) << what;
  EXPECT_EQ(a.att_task, b.att_task) << what;
  EXPECT_EQ(a.att_node, b.att_node) << what;
  EXPECT_EQ(a.att_slot, b.att_slot) << what;
  EXPECT_EQ(a.att_start, b.att_start) << what;
  EXPECT_EQ(a.att_finish, b.att_finish) << what;
  EXPECT_EQ(a.att_status, b.att_status) << what;
  EXPECT_EQ(a.job_finish, b.job_finish) << what;
  EXPECT_EQ(a.counters, b.counters) << what;
}

// Runs `name` stepped: pausing at (or deferring) every decision, resuming until the end.
SimResult run_stepped(const Cluster& c, const Workload& w, const std::string& name, const worker::Options& opt,
                      bool pause_only, bool defer_picks, int64_t* pauses, int64_t* decisions) {
  Stepped sched(name, pause_only, defer_picks);
  worker::Sim sim(c, w, sched, opt, 5);
  sim.start();
  *pauses = 0;
  while (sim.resume()) {
    ++*pauses;
    sched.act(sim);
  }
  EXPECT_FALSE(sim.resume());  // over stays over
  *decisions = sched.decisions;
  return sim.collect();
}

}  // namespace

TEST(WorkerStepping, PausingAtEveryDecisionGivesTheScheduleOfRun) {
  const Cluster c = Cluster::uniform(12, 1, 1, 0);
  const Workload w = worker_workload();
  worker::Options opt;
  opt.cutoff = 50;
  opt.short_partition = 0.2;
  for (const char* name : {"sparrow", "hawk", "eagle", "dice"}) {
    auto inner = worker::make_scheduler(name, {});
    worker::Sim ran(c, w, *inner, opt, 5);
    const SimResult r1 = ran.run();
    int64_t pauses = 0, decisions = 0;
    const SimResult r2 = run_stepped(c, w, name, opt, true, false, &pauses, &decisions);
    EXPECT_GT(pauses, int64_t(w.n_jobs())) << name;
    EXPECT_LE(pauses, decisions) << name;  // several decisions of one event pause once
    expect_same(r1, r2, name);
  }
}

// The decisions taken after the pause, as the environment takes them: probes sent after the
// arrival event (every built-in), and picks of workers with two or more queued probes taken after
// the event that freed them (Sparrow: FIFO queues give the same probe then).
TEST(WorkerStepping, DecisionsTakenAfterThePauseGiveTheScheduleOfRun) {
  const Cluster c = Cluster::uniform(12, 1, 1, 0);
  const Workload w = worker_workload();
  worker::Options opt;
  opt.cutoff = 50;
  opt.short_partition = 0.2;
  for (const char* name : {"sparrow", "hawk", "eagle"}) {
    auto inner = worker::make_scheduler(name, {});
    worker::Sim ran(c, w, *inner, opt, 5);
    const SimResult r1 = ran.run();
    const bool picks = std::string(name) == "sparrow";
    int64_t pauses = 0, decisions = 0;
    const SimResult r2 = run_stepped(c, w, name, opt, false, picks, &pauses, &decisions);
    if (picks) EXPECT_GT(decisions, int64_t(w.n_jobs()) + 50) << "queues of two or more probes were served";
    expect_same(r1, r2, name);
  }
}

TEST(WorkerStepping, ResumeNeedsStartAndCollectMayBeCalledMidRun) {
  const Cluster c = Cluster::uniform(3, 1, 1, 0);
  const Workload w = worker_workload();
  worker::Options opt;
  Stepped sched("sparrow", true, false);
  worker::Sim sim(c, w, sched, opt, 0);
  EXPECT_THROW(sim.resume(), std::logic_error);
  sim.start();
  EXPECT_THROW(sim.start(), std::logic_error);
  ASSERT_TRUE(sim.resume());
  const SimResult mid = sim.collect();
  EXPECT_LT(mid.end_time, w.submit_time.back());
  while (sim.resume()) {
  }
  const SimResult end = sim.collect();
  for (double f : end.job_finish) EXPECT_TRUE(std::isfinite(f));
  EXPECT_GT(end.att_task.size(), mid.att_task.size());
}
