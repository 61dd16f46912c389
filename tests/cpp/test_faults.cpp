// Faults and attempts in the MapReduce engine: re-timing under slowdowns, Hadoop progress
// scores, crashes (failed attempts, lost map outputs re-run, reduces waiting), no attempt on a
// down node, fault parsing errors, speculation caps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "schedlab/mapreduce.h"
#include "schedlab/registry.h"
#include "schedlab/speculation.h"

using namespace schedlab;
using namespace schedlab::mr;

namespace {

// One job: maps (work, replicas on every node) and reduces (work, shuffle seconds at 1 B/s).
Workload one_job(const std::vector<double>& maps, const std::vector<double>& reduces, double shuffle, int32_t nodes) {
  Workload w;
  w.submit_time = {0};
  w.replica_begin.push_back(0);
  for (double m : maps) {
    w.task_job.push_back(0);
    w.task_stage.push_back(kMap);
    w.work.push_back(m);
    w.input_bytes.push_back(0);
    for (int32_t n = 0; n < nodes; ++n) w.replica_node.push_back(n);
    w.replica_begin.push_back(int64_t(w.replica_node.size()));
  }
  for (double r : reduces) {
    w.task_job.push_back(0);
    w.task_stage.push_back(kReduce);
    w.work.push_back(r);
    w.input_bytes.push_back(shuffle);
    w.replica_begin.push_back(int64_t(w.replica_node.size()));
  }
  w.finalize();
  return w;
}

// Launches any pending map, then one reduce when allowed, on the heartbeating node; records
// the progress of given attempts at timer times.
class Greedy : public Scheduler {
 public:
  std::vector<std::pair<double, int64_t>> probes;  // (time, attempt)
  std::map<std::pair<double, int64_t>, double> seen;
  void init(Sim& sim) override {
    for (auto& [t, a] : probes) sim.set_timer(t, uint64_t(a));
  }
  void on_heartbeat(Sim& sim, int32_t node) override {
    for (int32_t j : sim.active_jobs()) {
      while (sim.free_slots(node, kMap) > 0) {
        const int32_t t = sim.find_map(j, node, kRemote);
        if (t < 0) break;
        sim.launch(t, node);
      }
      if (sim.free_slots(node, kReduce) > 0 && sim.reduces_allowed(j)) {
        const int32_t t = sim.find_reduce(j);
        if (t >= 0) sim.launch(t, node);
      }
    }
  }
  void on_timer(Sim& sim, uint64_t tag) override { seen[{sim.now(), int64_t(tag)}] = sim.progress(int64_t(tag)); }
};

Options opts(const std::string& faults, double detection = 600) {
  Options o;
  o.heartbeat_interval = 1;
  o.network_bandwidth = 1;
  o.faults = faults;
  o.detection_delay = detection;
  return o;
}

// Greedy, checking at every heartbeat that each node's list of running attempts (attempts_on)
// holds exactly the attempts running there, by a scan of all attempts.
class CheckedGreedy : public Greedy {
 public:
  int64_t checks = 0, most_on_a_node = 0;
  void on_heartbeat(Sim& sim, int32_t node) override {
    for (int32_t n = 0; n < sim.n_nodes(); ++n) {
      std::vector<int64_t> listed(sim.attempts_on(n).begin(), sim.attempts_on(n).end()), running;
      for (int64_t a = 0; a < sim.n_attempts(); ++a)
        if (sim.attempt(a).status == kRunning && sim.attempt(a).node == n) running.push_back(a);
      std::sort(listed.begin(), listed.end());
      ASSERT_EQ(listed, running) << "node " << n << " at t=" << sim.now();
      most_on_a_node = std::max<int64_t>(most_on_a_node, int64_t(running.size()));
      ++checks;
    }
    Greedy::on_heartbeat(sim, node);
  }
};

// Nodes with more slots than a node's record holds inline (8): the list moves to a vector of its
// own and stays right through launches, ends, a slowdown and a crash.
TEST(Faults, RunningListsOfBigNodesAgreeWithTheAttempts) {
  Cluster c = Cluster::uniform(2, 1, 12, 4);
  std::vector<double> maps, reduces;
  for (int i = 0; i < 60; ++i) maps.push_back(5 + (i * 7) % 23);
  for (int i = 0; i < 10; ++i) reduces.push_back(3 + i);
  Workload w = one_job(maps, reduces, 2, 2);
  CheckedGreedy g;
  Sim sim(c, w, g, opts("slowdown:0:10:30:2;crash:1:20:40", 5), 0);
  SimResult r = sim.run();
  EXPECT_GT(g.checks, 100);
  EXPECT_GT(g.most_on_a_node, 8);  // the spilled form was used
  std::vector<int> succeeded(w.n_tasks(), 0);
  for (size_t i = 0; i < r.att_task.size(); ++i) succeeded[size_t(r.att_task[i])] += r.att_status[i] == kSucceeded;
  for (size_t t = 0; t < w.n_tasks(); ++t) EXPECT_EQ(succeeded[t], 1) << "task " << t;
  EXPECT_FALSE(std::isnan(r.job_finish[0]));
}

TEST(Faults, SlowdownRetimesAttemptInFlight) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = one_job({100}, {}, 0, 1);
  Greedy g;
  g.probes = {{30, 0}, {50, 0}, {80, 0}};
  Sim sim(c, w, g, opts("slowdown:0:40:60:2"), 0);
  SimResult r = sim.run();
  // 40 s of work by t=40, 10 more during the 20 s at half speed, the last 50 by t=110
  ASSERT_EQ(r.att_task.size(), 1u);
  EXPECT_DOUBLE_EQ(r.att_finish[0], 110.0);
  EXPECT_NEAR((g.seen[{30, 0}]), 0.30, 1e-12);
  EXPECT_NEAR((g.seen[{50, 0}]), 0.45, 1e-12);
  EXPECT_NEAR((g.seen[{80, 0}]), 0.70, 1e-12);
}

TEST(Faults, ReduceProgressIsCopySortReduceThirds) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = one_job({10}, {60}, 30, 1);
  Greedy g;
  g.probes = {{25, 1}, {40, 1}, {70, 1}};
  Sim sim(c, w, g, opts(""), 0);
  SimResult r = sim.run();
  // the reduce starts at t=10 (the map is done), copies until 40, sorts and reduces until 100
  ASSERT_EQ(r.att_task.size(), 2u);
  EXPECT_DOUBLE_EQ(r.att_start[1], 10.0);
  EXPECT_DOUBLE_EQ(r.att_finish[1], 100.0);
  EXPECT_NEAR((g.seen[{25, 1}]), 0.5 / 3, 1e-12);
  EXPECT_NEAR((g.seen[{40, 1}]), 1.0 / 3, 1e-12);
  EXPECT_NEAR((g.seen[{70, 1}]), 2.0 / 3, 1e-12);
}

TEST(Faults, CrashLosesMapOutputAndTheMapReruns) {
  // node 0 reports at 0, 1, ...; node 1 at 0.5, 1.5, ...
  Cluster c = Cluster::uniform(2, 1, 1, 1);
  Workload w = one_job({10, 10}, {50}, 20, 2);
  Greedy g;
  Sim sim(c, w, g, opts("crash:1:15:100", 5), 0);
  SimResult r = sim.run();
  // map0 on node 0 [0,10]; map1 on node 1 [0.5,10.5]; the reduce on node 0 from 10 would copy
  // until 30. Node 1 crashes at 15, is declared lost at 20: map1's output is lost; it re-runs on
  // node 0 [20,30]; the reduce's copy ends at max(10 + 20, 30 + 20/2) = 40; it ends at 90.
  ASSERT_EQ(r.att_task.size(), 4u);
  EXPECT_EQ(r.att_task[1], 1);
  EXPECT_EQ(r.att_status[1], kLost);
  EXPECT_EQ(r.att_task[3], 1);
  EXPECT_EQ(r.att_node[3], 0);
  EXPECT_DOUBLE_EQ(r.att_start[3], 20.0);
  EXPECT_DOUBLE_EQ(r.att_finish[3], 30.0);
  EXPECT_EQ(r.att_task[2], 2);
  EXPECT_DOUBLE_EQ(r.att_extra["copy_end"][2], 40.0);
  EXPECT_DOUBLE_EQ(r.att_finish[2], 90.0);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 90.0);
  EXPECT_EQ(r.counters["lost_map_outputs"], 1.0);
}

TEST(Faults, CrashFailsRunningAttemptsAtDetection) {
  Cluster c = Cluster::uniform(2, 1, 1, 1);
  Workload w = one_job({30, 30}, {}, 0, 2);
  Greedy g;
  Sim sim(c, w, g, opts("crash:1:10:50", 8), 0);
  SimResult r = sim.run();
  // map1 on node 1 from 0.5 stops at the crash (10); declared failed at 18; re-runs on node 0,
  // which is busy until 30, from its heartbeat at 30 to 60.
  ASSERT_EQ(r.att_task.size(), 3u);
  EXPECT_EQ(r.att_status[1], kFailed);
  EXPECT_DOUBLE_EQ(r.att_finish[1], 10.0);
  EXPECT_EQ(r.att_node[2], 0);
  EXPECT_DOUBLE_EQ(r.att_start[2], 30.0);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 60.0);
}

TEST(Faults, RestartedNodeRejoins) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = one_job({30}, {}, 0, 1);
  Greedy g;
  Sim sim(c, w, g, opts("crash:0:10:40", 5), 0);
  SimResult r = sim.run();
  // the only node is down 10..50; the map re-runs from its first heartbeat after the restart
  ASSERT_EQ(r.att_task.size(), 2u);
  EXPECT_EQ(r.att_status[0], kFailed);
  EXPECT_DOUBLE_EQ(r.att_start[1], 50.0);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 80.0);
}

Workload many_jobs(int jobs, int maps, int reduces, uint64_t seed) {
  Workload w;
  Random rng(seed, 9);
  w.replica_begin.push_back(0);
  for (int j = 0; j < jobs; ++j) {
    w.submit_time.push_back(j * 5.0);
    for (int m = 0; m < maps + reduces; ++m) {
      w.task_job.push_back(j);
      w.task_stage.push_back(m < maps ? kMap : kReduce);
      w.work.push_back(m < maps ? rng.uniform(10, 40) : rng.uniform(20, 80));
      w.input_bytes.push_back(m < maps ? 0 : 1e9);
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
  }
  w.replica_begin.clear();
  w.replica_node.clear();
  w.finalize();
  return w;
}

SimResult run_faulty(const std::string& spec, uint64_t seed) {
  Cluster c = Cluster::uniform(10, 2, 2, 2);
  for (int i = 0; i < 10; ++i) c.speed[i] = 0.5 + 0.25 * (i % 4);
  Workload w = many_jobs(12, 20, 4, seed);
  RunRequest req;
  req.cluster = &c;
  req.workload = &w;
  req.scheduler = "fair";
  req.options.strings["faults"] = "mtbf:300:60:2000;slowdown:3:50:400:4";
  req.options.numbers["detection_delay"] = 30;
  req.options.strings["speculation"] = spec;
  req.seed = seed;
  return run(req);
}

TEST(Faults, NoAttemptRunsOnADownNodeAndEveryTaskSucceedsOnce) {
  for (const std::string& spec : speculator_names()) {
    SimResult r = run_faulty(spec, 3);
    const TimeSeries& f = r.series.at("faults");
    int crashes = 0;
    for (size_t k = 0; k < f.columns[0].size(); ++k) {
      if (f.columns[2][k] != 1) continue;
      ++crashes;
      const double down = f.columns[0][k], up = f.columns[3][k];
      const int32_t node = int32_t(f.columns[1][k]);
      for (size_t i = 0; i < r.att_task.size(); ++i) {
        if (r.att_node[i] != node) continue;
        EXPECT_FALSE(r.att_start[i] >= down && r.att_start[i] < up) << spec << ": attempt " << i << " started on down node " << node;
        if (r.att_start[i] < down) EXPECT_LE(r.att_finish[i], down) << spec << ": attempt " << i << " ran past the crash";
      }
    }
    EXPECT_GT(crashes, 0);
    std::map<int32_t, int> ok;
    for (size_t i = 0; i < r.att_task.size(); ++i) if (r.att_status[i] == kSucceeded) ok[r.att_task[i]]++;
    EXPECT_EQ(ok.size(), 12u * 24u) << spec;
    for (auto& [t, n] : ok) EXPECT_EQ(n, 1) << spec << ": task " << t;
  }
}

TEST(Faults, SeededFaultsAreDeterministic) {
  SimResult a = run_faulty("yarn", 7), b = run_faulty("yarn", 7), c = run_faulty("yarn", 8);
  EXPECT_EQ(a.att_start, b.att_start);
  EXPECT_EQ(a.att_finish, b.att_finish);
  EXPECT_EQ(a.att_node, b.att_node);
  EXPECT_EQ(a.series.at("faults").columns[0], b.series.at("faults").columns[0]);
  EXPECT_NE(a.series.at("faults").columns[0], c.series.at("faults").columns[0]);
}

TEST(Faults, BadFaultListsAreRejected) {
  EXPECT_THROW(parse_faults("slowdown:0:10:5:2", 4, 0), std::invalid_argument);   // end before start
  EXPECT_THROW(parse_faults("crash:9:10:5", 4, 0), std::invalid_argument);         // no such node
  EXPECT_THROW(parse_faults("slowdown:0:1:2:-1", 4, 0), std::invalid_argument);    // factor
  EXPECT_THROW(parse_faults("reboot:0:1", 4, 0), std::invalid_argument);           // kind
  EXPECT_THROW(parse_faults("crash:0:x:5", 4, 0), std::invalid_argument);          // number
  try {
    parse_faults("crash:0:1:5; slowdown:1:2", 4, 0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("faults item 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_faults("crash:0:1:inf;slowdown:1:2:inf:3", 4, 0).size(), 2u);
  EXPECT_THROW(make_speculator("lat", ""), std::invalid_argument);
  EXPECT_THROW(make_speculator("late", "speculative_cap:2"), std::invalid_argument);
  EXPECT_THROW(make_speculator("late", "no_such:1"), std::invalid_argument);
}

}  // namespace

// The engine's change log: each log gets every changed job once until it is drained, and
// draining one log leaves the others.
namespace {
class LogReader : public Greedy {
 public:
  int log_a = -1, log_b = -1;
  std::vector<std::pair<double, int32_t>> drained_a;  // (time, job) at each heartbeat
  std::vector<int32_t> drained_b;                      // once, at the end
  void init(Sim& sim) override {
    log_a = sim.track_job_changes();
    log_b = sim.track_job_changes();
  }
  void on_heartbeat(Sim& sim, int32_t node) override {
    sim.drain_changed_jobs(log_a, [&](int32_t j) { drained_a.push_back({sim.now(), j}); });
    Greedy::on_heartbeat(sim, node);
  }
  void finish(Sim& sim, SimResult&) override {
    sim.drain_changed_jobs(log_b, [&](int32_t j) { drained_b.push_back(j); });
  }
};
}  // namespace

TEST(ChangeLog, EachLogSeesEveryChangedJobOnce) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = one_job({10, 10}, {}, 0, 1);
  LogReader g;
  Sim sim(c, w, g, opts(""), 0);
  sim.run();
  // heartbeats at 0, 1, 2, ... drain log A before launching: at 0 the submission; at 1 map 0's
  // launch at 0; at 10 map 0's end (it fires before the heartbeat at 10); at 11 map 1's launch
  // at 10; map 1 ends the job at 20, after which no heartbeat runs.
  std::vector<std::pair<double, int32_t>> want = {{0, 0}, {1, 0}, {10, 0}, {11, 0}};
  EXPECT_EQ(g.drained_a, want);
  EXPECT_EQ(g.drained_b, std::vector<int32_t>{0});  // many changes, one entry
}
