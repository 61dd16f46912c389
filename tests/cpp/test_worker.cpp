// The worker engine and the sparrow/hawk/eagle schedulers on tiny hand-checked cases (exact
// times with the 0.5 ms one-way delay), plus engine invariants on a random workload.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include "../../cpp/src/schedulers/hybrid_common.h"
#include "schedlab/registry.h"
#include "schedlab/worker.h"
#include "worker_helpers.h"

using namespace schedlab;
using namespace schedlab::worker;

namespace {

using worker_test::make_workload;
using worker_test::run_named;

// A hybrid scheduler whose short jobs probe fixed workers (job -> targets), so that queue
// contents are known exactly; long jobs go through LWL as in Hawk/Eagle.
class FixedProbes : public HybridScheduler {
 public:
  FixedProbes(const HybridConfig& c, std::map<int32_t, std::vector<int32_t>> targets)
      : HybridScheduler(c), fixed_(std::move(targets)) {}
  void on_job_arrival(Sim& sim, int32_t job) override {
    if (sim.is_long(job)) { place_long(sim, job); return; }
    auto& t = fixed_.at(job);
    sim.send_probes(job, t.data(), t.size(), sim.delay());
  }
  std::map<int32_t, std::vector<int32_t>> fixed_;
};

SimResult run_fixed(const Cluster& c, const Workload& w, HybridConfig cfg, std::map<int32_t, std::vector<int32_t>> t,
                    Options o) {
  FixedProbes s(cfg, std::move(t));
  Sim sim(c, w, s, o, 0);
  return sim.run();
}

}  // namespace

TEST(Worker, Registered) {
  for (const char* n : {"sparrow", "hawk", "eagle"}) EXPECT_EQ(find_scheduler(n).engine, "worker");
}

// One worker, one job of two tasks (10.7 s and 5.2 s, truncated to 10 and 5), four probes
// (max(2 x 2, 2)): probes arrive at 0.0005; task 0 executes 0.0015-10.0015, task 1
// 10.0025-15.0025, then two no-op replies.
TEST(Worker, SparrowFifoExactTimes) {
  Cluster c = Cluster::uniform(1, 1, 1, 0);
  Workload w = make_workload({{0.0, {10.7, 5.2}}});
  SimResult r = run_named(c, w, "sparrow");
  ASSERT_EQ(r.att_task.size(), 2u);
  EXPECT_DOUBLE_EQ(r.att_start[0], 0.0015);
  EXPECT_DOUBLE_EQ(r.att_finish[0], 10.0015);
  EXPECT_DOUBLE_EQ(r.att_start[1], 10.0025);
  EXPECT_DOUBLE_EQ(r.att_finish[1], 15.0025);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 15.0025);
  EXPECT_EQ(r.counters["probes"], 4);
  EXPECT_EQ(r.counters["noop_replies"], 1);  // the run ends with the job: the last no-op is not simulated
  EXPECT_EQ(r.job_extra["class"][0], 0);
}

// Without truncation and with a 10 ms delay the same case gives 0.03 + 10.7 etc.
TEST(Worker, NetworkDelayAndTruncationOptions) {
  Cluster c = Cluster::uniform(1, 1, 1, 0);
  Workload w = make_workload({{1.0, {10.5}}});
  ParamValues o;
  o.numbers["network_delay"] = 0.01;
  o.numbers["truncate"] = 0;
  SimResult r = run_named(c, w, "sparrow", {}, o);
  EXPECT_DOUBLE_EQ(r.att_start[0], 1.03);
  EXPECT_DOUBLE_EQ(r.att_finish[0], 10.5 + 1.03);
}

// LWL: 4 workers, short partition = worker 0. Long job A (t=0, 3 x 100 s) takes the three
// empty general workers; long job B (t=1, 2 x 60 s) finds none empty, every worker's waiting
// time is 0.001 + 100 - (1 - 0.0005) = 99.0015, ties go to the lowest id: workers 1 and 2.
TEST(Worker, HawkLwlPlacementExactTimes) {
  Cluster c = Cluster::uniform(4, 1, 1, 0);
  Workload w = make_workload({{0.0, {100, 100, 100}}, {1.0, {60, 60}}});
  ParamValues o;
  o.numbers["cutoff"] = 50;
  o.numbers["short_partition"] = 0.25;
  SimResult r = run_named(c, w, "hawk", {}, o);
  ASSERT_EQ(r.att_task.size(), 5u);
  std::map<int32_t, int32_t> node_of;
  for (size_t i = 0; i < 5; ++i) node_of[r.att_task[i]] = r.att_node[i];
  EXPECT_EQ(node_of[0], 1);
  EXPECT_EQ(node_of[1], 2);
  EXPECT_EQ(node_of[2], 3);
  EXPECT_EQ(node_of[3], 1);
  EXPECT_EQ(node_of[4], 2);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 100.0015);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 160.0025);
  EXPECT_EQ(r.job_extra["class"][0], 1);
  EXPECT_EQ(r.counters["lwl_water_fills"], 1);
}

// Stealing: worker 0 (short partition) finishes short job S1 at 4.0015 with an empty queue and
// steals both probes of S2, queued on worker 1 behind the running long task.
TEST(Worker, HawkStealingExactTimes) {
  Cluster c = Cluster::uniform(2, 1, 1, 0);
  Workload w = make_workload({{0.0, {100}}, {1.0, {3}}, {2.0, {7, 7}}});
  Options o;
  o.cutoff = 50;
  o.short_partition = 0.5;
  HybridConfig cfg;
  cfg.steal = true;
  SimResult r = run_fixed(c, w, cfg, {{1, {0}}, {2, {1, 1}}}, o);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 4.0015);
  EXPECT_DOUBLE_EQ(r.job_finish[2], 18.0035);
  EXPECT_EQ(r.counters["stolen_probes"], 2);
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_task[i] >= 2) {
      EXPECT_EQ(r.att_node[i], 0);
    }
  // without stealing S2 waits for the long task: 100.0025 + 7 and + 7.001
  cfg.steal = false;
  SimResult r2 = run_fixed(c, w, cfg, {{1, {0}}, {2, {1, 1}}}, o);
  EXPECT_DOUBLE_EQ(r2.job_finish[2], 114.0035);
}

// Eagle's SRPT: S1 runs on worker 0 until 10.0015; S2 (3 x 10 s, remaining 30) and S3 (1 x 2 s,
// remaining 2) wait. S3 bypasses S2 (est 2 <= S2's slack 5 x 10); S2's sticky probe then runs
// its three tasks back to back. With a starvation cap of 0.1 (slack 1 < 2) S3 cannot bypass.
TEST(Worker, EagleSrptStickyAndStarvationCap) {
  Cluster c = Cluster::uniform(2, 1, 1, 0);
  Workload w = make_workload({{0.0, {10}}, {1.0, {10, 10, 10}}, {2.0, {2}}});
  Options o;
  o.cutoff = 50;
  o.short_partition = 0.5;
  HybridConfig cfg;
  cfg.sss = cfg.sbp = cfg.srpt = true;
  SimResult r = run_fixed(c, w, cfg, {{0, {0}}, {1, {0}}, {2, {0}}}, o);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 10.0015);
  EXPECT_DOUBLE_EQ(r.job_finish[2], 12.0025);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 42.0055);
  EXPECT_EQ(r.counters["sticky_executions"], 2);
  EXPECT_EQ(r.counters["noop_replies"], 0);  // the sticky probe is purged for free
  cfg.starvation_cap = 0.1;
  SimResult r2 = run_fixed(c, w, cfg, {{0, {0}}, {1, {0}}, {2, {0}}}, o);
  EXPECT_DOUBLE_EQ(r2.job_finish[1], 40.0045);
  EXPECT_DOUBLE_EQ(r2.job_finish[2], 42.0055);
}

// SSS: worker 1 (general) runs a long task; every probe of the short job must end on worker 0,
// the only worker without long work (round-1 probes arrive at +0.5 ms, round-2 ones at +1 ms).
TEST(Worker, EagleSssAvoidsLongWork) {
  Cluster c = Cluster::uniform(2, 1, 1, 0);
  Workload w = make_workload({{0.0, {100}}, {10.0, {5, 5, 5}}});
  ParamValues o;
  o.numbers["cutoff"] = 50;
  o.numbers["short_partition"] = 0.5;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    SimResult r = run_named(c, w, "eagle", {}, o, seed);
    for (size_t i = 0; i < r.att_task.size(); ++i)
      if (r.att_task[i] >= 1) {
        EXPECT_EQ(r.att_node[i], 0);
      }
    EXPECT_DOUBLE_EQ(r.job_finish[1], 10.0015 + 5 + 5.001 + 5.001);
    EXPECT_EQ(r.counters["sss_round1_probes"], 20);
    EXPECT_EQ(r.counters["sss_round1_rejected"] + r.counters["probes"] - 1, 20 + r.counters["sss_round2_probes"]);
  }
}

TEST(Worker, BadInput) {
  Cluster c = Cluster::uniform(4, 1, 1, 0);
  Workload w = make_workload({{0.0, {1}}});
  ParamValues o;
  o.numbers["short_partition"] = 0;
  EXPECT_THROW(run_named(c, w, "eagle", {}, o), std::invalid_argument);  // no fallback partition
  ParamValues bad;
  bad.numbers["probe_ratio"] = -1;
  EXPECT_THROW(run_named(c, w, "hawk", bad), std::invalid_argument);
  Cluster none = Cluster::uniform(2, 1, 0, 0);
  EXPECT_THROW(run_named(none, w, "sparrow"), std::invalid_argument);
}

// Invariants on a random workload for each scheduler: one task at a time per worker, each task
// succeeds exactly once, attempts never end before they start or start before submission.
TEST(Worker, InvariantsRandomWorkload) {
  Random g(7);
  std::vector<std::pair<double, std::vector<double>>> jobs;
  double t = 0;
  for (int j = 0; j < 300; ++j) {
    t += g.exponential(2.0);
    const int n = 1 + static_cast<int>(g.below(j % 10 == 0 ? 40 : 8));
    const bool lng = g.uniform() < 0.1;
    std::vector<double> d;
    for (int k = 0; k < n; ++k) d.push_back(lng ? g.uniform(100, 400) : g.uniform(0, 30));
    jobs.push_back({t, d});
  }
  Workload w = make_workload(jobs);
  Cluster c = Cluster::uniform(40, 1, 1, 0);
  ParamValues o;
  o.numbers["cutoff"] = 50;
  o.numbers["short_partition"] = 0.1;
  for (const char* s : {"sparrow", "hawk", "eagle"}) {
    SimResult r = run_named(c, w, s, {}, o, 3);
    std::vector<int> ok(w.n_tasks(), 0);
    std::map<int32_t, std::vector<std::pair<double, int>>> ev;
    for (size_t i = 0; i < r.att_task.size(); ++i) {
      ASSERT_TRUE(std::isfinite(r.att_finish[i]));
      EXPECT_GE(r.att_finish[i], r.att_start[i]);
      EXPECT_GE(r.att_start[i], w.submit_time[w.task_job[r.att_task[i]]]);
      if (r.att_status[i] == kSucceeded) ok[r.att_task[i]]++;
      ev[r.att_node[i]].push_back({r.att_start[i], +1});
      ev[r.att_node[i]].push_back({r.att_finish[i], -1});
    }
    for (int k : ok) EXPECT_EQ(k, 1) << s;
    for (auto& [node, v] : ev) {
      std::sort(v.begin(), v.end());
      int busy = 0;
      for (auto& e : v) {
        busy += e.second;
        EXPECT_LE(busy, 1) << s << " node " << node;
      }
    }
    for (size_t j = 0; j < w.n_jobs(); ++j) EXPECT_TRUE(std::isfinite(r.job_finish[j])) << s;
  }
}

namespace {
// Eagle whose pick records the longest queue it served.
class EagleWatchingQueues : public HybridScheduler {
 public:
  using HybridScheduler::HybridScheduler;
  const QueueEntry* pick_entry(Sim& sim, int32_t w, bool short_only) override {
    longest = std::max(longest, sim.worker(w).qlen);
    return HybridScheduler::pick_entry(sim, w, short_only);
  }
  int32_t longest = 0;
};
}  // namespace

// Eagle's SRPT pick passes blocks of a long queue where no probe can win instead of reading them
// probe by probe: on an overloaded cluster (queues of hundreds of probes, task estimates from
// 1 to 40 s, so that some blocks can be passed and some not) every attempt is the same as with
// the probe-by-probe pick, and so are the counters and the events; with estimates in whole
// seconds (truncated: the blocks a pick passes keep their notes) and fractional ones (they are
// read again).
TEST(Worker, EagleSrptBlockSkipSameSchedule) {
  Random g(11);
  std::vector<std::pair<double, std::vector<double>>> jobs;
  double t = 0;
  for (int j = 0; j < 1500; ++j) {
    t += g.exponential(0.2);
    const int n = 1 + static_cast<int>(g.below(j % 7 == 0 ? 30 : 6));
    const bool lng = g.uniform() < 0.05;
    const double scale = lng ? 200 : g.uniform(1, 40);
    std::vector<double> d;
    for (int k = 0; k < n; ++k) d.push_back(scale * g.uniform(0.5, 1.5));
    jobs.push_back({t, d});
  }
  Workload w = make_workload(jobs);
  Cluster c = Cluster::uniform(12, 1, 1, 0);
  for (const bool truncate : {true, false}) {
    SCOPED_TRACE(truncate ? "whole-second estimates" : "fractional estimates");
    Options o;
    o.cutoff = 100;
    o.short_partition = 0.25;
    o.truncate = truncate;
    HybridConfig cfg;
    cfg.sss = cfg.sbp = cfg.srpt = true;
    cfg.min_probes = 20;
    SimResult r[2];
    int32_t longest[2];
    for (int skip = 0; skip < 2; ++skip) {
      cfg.srpt_skips_blocks = skip;
      EagleWatchingQueues s(cfg);
      Sim sim(c, w, s, o, 5);
      r[skip] = sim.run();
      longest[skip] = s.longest;
    }
    EXPECT_GT(longest[1], 300);  // long enough for blocks of 32 to be passed
    ASSERT_EQ(r[0].att_task.size(), r[1].att_task.size());
    for (size_t i = 0; i < r[0].att_task.size(); ++i) {
      ASSERT_EQ(r[0].att_task[i], r[1].att_task[i]) << i;
      ASSERT_EQ(r[0].att_node[i], r[1].att_node[i]) << i;
      ASSERT_EQ(r[0].att_start[i], r[1].att_start[i]) << i;
      ASSERT_EQ(r[0].att_finish[i], r[1].att_finish[i]) << i;
    }
    EXPECT_EQ(r[0].job_finish, r[1].job_finish);
    EXPECT_EQ(r[0].counters, r[1].counters);
    EXPECT_EQ(r[0].events, r[1].events);
  }
}

namespace {
// One probe per task to worker 0; suspends worker 0's long task at t = 50.
class SuspendAt50 : public Scheduler {
 public:
  explicit SuspendAt50(double timeout) : timeout_(timeout) {}
  void init(Sim& sim) override { sim.set_timer(50, 0, 0); }
  void on_job_arrival(Sim& sim, int32_t job) override {
    std::vector<int32_t> t(sim.n_tasks(job), 0);
    sim.send_probes(job, t.data(), t.size(), sim.delay());
  }
  void on_timer(Sim& sim, uint32_t, uint64_t) override { EXPECT_TRUE(sim.suspend(0, 3, timeout_, 10)); }
  double timeout_;
};
}  // namespace

// Long task L (300 s) runs from 0.0015; at 50 it is suspended with 250.0015 s left, the slot is
// busy 3 s, then short tasks S (20 s) and S2 (30 s) run; L resumes after 10 s with its remaining
// work once no short probe is left (timeout 100) or once the running short task ends after the
// timeout (timeout 10: at 73.001, before S2).
TEST(Worker, SuspensionResumesWithRemainingWork) {
  Cluster c = Cluster::uniform(1, 1, 1, 0);
  Workload w = make_workload({{0.0, {300}}, {10.0, {20}}, {10.0, {30}}});
  Options o;
  o.cutoff = 50;
  o.short_partition = 0;
  {
    SuspendAt50 s(100);
    Sim sim(c, w, s, o, 0);
    SimResult r = sim.run();
    EXPECT_DOUBLE_EQ(r.job_finish[1], 73.001);
    EXPECT_DOUBLE_EQ(r.job_finish[2], 103.002);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 250.0015 + 113.002);
    double work = 0;
    for (size_t i = 0; i < r.att_task.size(); ++i)
      if (r.att_task[i] == 0) work += r.att_finish[i] - r.att_start[i];
    EXPECT_NEAR(work, 300.0, 1e-9);
    EXPECT_EQ(r.counters["suspensions"], 1);
    EXPECT_EQ(r.att_extra["suspended"][0], 1.0);
  }
  {
    SuspendAt50 s(10);
    Sim sim(c, w, s, o, 0);
    SimResult r = sim.run();
    EXPECT_DOUBLE_EQ(r.job_finish[1], 73.001);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 250.0015 + 83.001);
    EXPECT_DOUBLE_EQ(r.job_finish[2], 250.0015 + 83.001 + 0.001 + 30);
  }
}

TEST(Worker, DiceRegisteredAndValidated) {
  EXPECT_EQ(find_scheduler("dice").engine, "worker");
  Cluster c = Cluster::uniform(10, 1, 1, 0);
  Workload w = make_workload({{0.0, {1}}});
  ParamValues p;
  p.numbers["max_short_partition"] = 0.01;  // below the 2 % short partition
  EXPECT_THROW(run_named(c, w, "dice", p), std::invalid_argument);
}

// An idle span (nothing running, queued or in flight until the next arrival) costs no events:
// the windows that close in it are closed without the event queue, with the rows their events
// would have written (times by repeated addition of the window, utilization 0, no short task).
// Dice's window controller is called for each of them as before.
TEST(Worker, IdleSpanWindowsCostNoEvents) {
  Cluster c = Cluster::uniform(4, 1, 1, 0);
  const double later = 2147483648.0;  // 2^31 s
  Workload w = make_workload({{0.0, {10.7}}, {later, {5.2}}});
  for (const char* sched : {"sparrow", "hawk", "eagle", "dice"}) {
    SCOPED_TRACE(sched);
    ParamValues o;
    o.numbers["window"] = 3600;
    SimResult r = run_named(c, w, sched, {}, o);
    EXPECT_LT(r.events, 100u);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 10.0015);
    EXPECT_DOUBLE_EQ(r.job_finish[1], later + 0.0015 + 5.0);
    const TimeSeries& ts = r.series.at("windows");
    const auto& time = ts.columns[0];
    std::vector<double> expect;
    for (double t = 3600; expect.size() < time.size(); t += 3600) expect.push_back(t);
    ASSERT_EQ(time, expect);
    EXPECT_LT(time.back(), later);  // the run ends with the second job, inside its window
    EXPECT_GT(time.back() + 3600, later);
    // the first window holds the first job; the next ones up to the arrival are idle and were
    // closed without events (the counter says how many)
    size_t idle = 0;
    while (1 + idle < time.size() && time[1 + idle] < later) ++idle;
    EXPECT_EQ(idle, size_t(later / 3600) - 1);
    EXPECT_EQ(r.counters["idle_windows"], double(idle));
    for (size_t i = 1; i <= idle; ++i) {
      ASSERT_EQ(ts.columns[2][i], 0.0);  // short tasks started
      ASSERT_EQ(ts.columns[3][i], 0.0);  // utilization
    }
    EXPECT_GT(ts.columns[3][0], 0.0);
    if (std::string(sched) == "dice") EXPECT_EQ(r.series.at("dice").columns[0], time);
  }
}
