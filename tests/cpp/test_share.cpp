// The fair-sharing engine and its schedulers (choosy, tsf, drf, drfh, eunomia) [Zhou 2019, ch. 5]:
// hand-checked allocations, constraint and capacity invariants, determinism, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "schedlab/random.h"
#include "schedlab/registry.h"

using namespace schedlab;

namespace {

Cluster make_cluster(std::vector<double> vcores, std::vector<double> memory, std::vector<int32_t> types) {
  Cluster c;
  const size_t n = vcores.size();
  c.rack.assign(n, 0);
  c.speed.assign(n, 1.0);
  c.map_slots.assign(n, 1);
  c.reduce_slots.assign(n, 0);
  c.slots.assign(n, 1);
  c.vcores = std::move(vcores);
  c.memory = std::move(memory);
  c.node_type = std::move(types);
  c.validate();
  return c;
}

struct JobSpec {
  double submit;
  int32_t user;
  int n_tasks;
  double work, vcores, memory;
  std::vector<int32_t> eligible;  // empty = any
};

Workload make_workload(const std::vector<JobSpec>& jobs) {
  Workload w;
  bool constrained = false;
  for (auto& j : jobs) constrained |= !j.eligible.empty();
  if (constrained) w.eligible_begin.push_back(0);
  for (size_t k = 0; k < jobs.size(); ++k) {
    const JobSpec& j = jobs[k];
    w.submit_time.push_back(j.submit);
    w.user.push_back(j.user);
    for (int t = 0; t < j.n_tasks; ++t) {
      w.task_job.push_back(static_cast<int32_t>(k));
      w.work.push_back(j.work);
      w.vcores.push_back(j.vcores);
      w.memory.push_back(j.memory);
    }
    if (constrained) {
      for (int32_t m : j.eligible) w.eligible_node.push_back(m);
      w.eligible_begin.push_back(static_cast<int64_t>(w.eligible_node.size()));
    }
  }
  w.finalize();
  return w;
}

SimResult run_share(const Cluster& c, const Workload& w, const std::string& sched, ParamValues options = {},
                    ParamValues params = {}, uint64_t seed = 0) {
  RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = sched;
  r.options = std::move(options);
  r.scheduler_params = std::move(params);
  r.seed = seed;
  return run(r);
}

// tasks of each job started at time 0, by job
std::map<int32_t, int> started_at_zero(const Workload& w, const SimResult& r) {
  std::map<int32_t, int> n;
  for (size_t a = 0; a < r.att_task.size(); ++a)
    if (r.att_start[a] == 0) n[w.task_job[r.att_task[a]]]++;
  return n;
}

}  // namespace

TEST(Share, SchedulersRegistered) {
  for (const char* s : {"choosy", "tsf", "drf", "drfh", "eunomia"}) EXPECT_EQ(find_scheduler(s).engine, "share");
}

// The dissertation's worked example [Zhou 2019, §5.3.1, Eq. 5.1, Fig. 5.1-5.2]: M1, M2 = <2 x 1 GHz, 2 GB>,
// M3 = <2 x 2 GHz, 2 GB>; Alice may use {M1, M2}, Bob {M2, M3}; tasks <1 core, 1 GB>. Eunomia
// ends with Alice on M1 and M2 (progress 4/8) and Bob on M3 (progress 2 x 2 / 8 = 4/8).
TEST(Share, EunomiaWorkedExample) {
  Cluster c = make_cluster({2, 2, 2}, {2, 2, 2}, {0, 0, 1});
  Workload w = make_workload({{0, 0, 4, 10.0, 1, 1, {0, 1}}, {0, 1, 4, 10.0, 1, 1, {1, 2}}});
  ParamValues opt;
  opt.strings["performance"] = "1,2";
  SimResult r = run_share(c, w, "eunomia", opt);
  auto n = started_at_zero(w, r);
  EXPECT_EQ(n[0], 4);
  EXPECT_EQ(n[1], 2);
  for (size_t a = 0; a < r.att_task.size(); ++a) {
    const int32_t job = w.task_job[r.att_task[a]];
    if (job == 1) EXPECT_EQ(r.att_node[a], 2);
  }
  // runtimes scale as work / P: Bob's tasks take 5 s on M3 (two waves), Alice's 10 s
  EXPECT_DOUBLE_EQ(r.job_finish[0], 10.0);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 10.0);
  opt.strings["runtime_scaling"] = "none";
  SimResult u = run_share(c, w, "eunomia", opt);
  EXPECT_DOUBLE_EQ(u.job_finish[0], 10.0);
  EXPECT_DOUBLE_EQ(u.job_finish[1], 20.0);
  // TSF is not performance-aware and places first-fit: Alice M1, Bob M2, Alice M1, Bob M2; Alice
  // is then blocked (M1, M2 full) and Bob fills M3: Alice 2 tasks (progress 2), Bob 4 (6)
  SimResult t = run_share(c, w, "tsf", opt);
  auto nt = started_at_zero(w, t);
  EXPECT_EQ(nt[0], 2);
  EXPECT_EQ(nt[1], 4);
}

// One node <20 cores, 12 GB>; user A's tasks <1, 3>, user B's <2, 1>, many of each.
//   choosy (slot counts)  A, B, A, B, A, B -> memory full: A 3, B 3
//   tsf (h_A = 4, h_B = 10) and drf (dominant shares 0.25 and 0.1 per task): A, B, B, B, A, B,
//   B, then A's 3 GB no longer fit and B takes the last GB: A 2, B 6
TEST(Share, HandCheckedShareFunctions) {
  Cluster c = make_cluster({20}, {12}, {0});
  Workload w = make_workload({{0, 0, 10, 5.0, 1, 3, {}}, {0, 1, 10, 5.0, 2, 1, {}}});
  const std::map<std::string, std::pair<int, int>> want = {
      {"choosy", {3, 3}}, {"tsf", {2, 6}}, {"drf", {2, 6}}, {"drfh", {2, 6}}, {"eunomia", {2, 6}}};
  for (auto& [sched, ab] : want) {
    SimResult r = run_share(c, w, sched);
    auto n = started_at_zero(w, r);
    EXPECT_EQ(n[0], ab.first) << sched;
    EXPECT_EQ(n[1], ab.second) << sched;
  }
  ParamValues p;
  p.strings["count"] = "dominant_share";
  auto n = started_at_zero(w, run_share(c, w, "choosy", {}, p));
  EXPECT_EQ(n[0], 2);
  EXPECT_EQ(n[1], 6);
  // weights: with W_B = 2, choosy serves A, B, B, A, B, B; A's next task needs 3 GB of the 2 GB
  // left, so B takes the rest: A 2, B 6
  ParamValues pw;
  pw.strings["weights"] = "1:2";
  auto nw = started_at_zero(w, run_share(c, w, "choosy", {}, pw));
  EXPECT_EQ(nw[0], 2);
  EXPECT_EQ(nw[1], 6);
}

// DRFH's Best-Fit sends a lone task to the node it fills best; DRF's first fit to node 0.
TEST(Share, DrfhBestFitPlacement) {
  Cluster c = make_cluster({4, 4}, {16, 4}, {0, 0});
  Workload w = make_workload({{0, 0, 1, 1.0, 1, 1, {}}});
  EXPECT_EQ(run_share(c, w, "drf").att_node[0], 0);
  EXPECT_EQ(run_share(c, w, "drfh").att_node[0], 1);
}

// Random instances: no node over capacity, every task on an eligible node, each task runs
// exactly once for work / P seconds, nothing starts before its job arrives.
TEST(Share, InvariantsOnRandomInstances) {
  Random rng(42);
  const int n_nodes = 7;
  std::vector<double> vc, mem;
  std::vector<int32_t> ty;
  for (int m = 0; m < n_nodes; ++m) {
    vc.push_back(double(2 + rng.below(6)));
    mem.push_back(double(4 + rng.below(12)));
    ty.push_back(static_cast<int32_t>(rng.below(3)));
  }
  Cluster c = make_cluster(vc, mem, ty);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int j = 0; j < 25; ++j) {
    t += rng.exponential(3.0);
    JobSpec s{t, static_cast<int32_t>(rng.below(6)), 1 + int(rng.below(12)), 1 + rng.exponential(5.0),
              double(1 + rng.below(2)), double(1 + rng.below(3)), {}};
    if (rng.uniform() < 0.6)
      for (int m = 0; m < n_nodes; ++m)
        if (rng.uniform() < 0.5 || m == j % n_nodes) s.eligible.push_back(m);
    jobs.push_back(s);
  }
  Workload w = make_workload(jobs);
  const double perf[3] = {1.0, 1.5, 2.5};
  for (const char* sched : {"choosy", "tsf", "drf", "drfh", "eunomia"}) {
    ParamValues opt;
    opt.strings["performance"] = "1,1.5,2.5";
    SimResult r = run_share(c, w, sched, opt);
    ASSERT_EQ(r.att_task.size(), w.n_tasks()) << sched;
    std::vector<int> seen(w.n_tasks(), 0);
    std::vector<std::tuple<double, int, int32_t>> ev;  // (time, +1/-1 order, attempt)
    for (size_t a = 0; a < r.att_task.size(); ++a) {
      const int32_t task = r.att_task[a], job = w.task_job[task], m = r.att_node[a];
      seen[task]++;
      EXPECT_EQ(r.att_status[a], kSucceeded);
      EXPECT_GE(r.att_start[a], w.submit_time[job]) << sched;
      EXPECT_NEAR(r.att_finish[a] - r.att_start[a], w.work[task] / perf[ty[m]], 1e-9) << sched;
      const auto& e = jobs[job].eligible;
      if (!e.empty()) EXPECT_NE(std::find(e.begin(), e.end(), m), e.end()) << sched << " ran job " << job << " on node " << m;
      ev.emplace_back(r.att_start[a], 1, static_cast<int32_t>(a));
      ev.emplace_back(r.att_finish[a], 0, static_cast<int32_t>(a));  // ends first at equal times
    }
    for (int s : seen) EXPECT_EQ(s, 1);
    std::sort(ev.begin(), ev.end());
    std::vector<double> uv(n_nodes, 0), um(n_nodes, 0);
    for (auto& [time, kind, a] : ev) {
      const int32_t m = r.att_node[a], task = r.att_task[a];
      const double sgn = kind ? 1.0 : -1.0;
      uv[m] += sgn * w.vcores[task];
      um[m] += sgn * w.memory[task];
      EXPECT_LE(uv[m], vc[m] + 1e-9) << sched << " node " << m << " at " << time;
      EXPECT_LE(um[m], mem[m] + 1e-9) << sched << " node " << m << " at " << time;
    }
    for (size_t j = 0; j < w.n_jobs(); ++j) EXPECT_TRUE(std::isfinite(r.job_finish[j]));
  }
}

TEST(Share, DeterministicWithRandomTies) {
  Cluster c = make_cluster({4, 4, 4}, {4, 4, 4}, {0, 1, 1});
  Workload w = make_workload({{0, 0, 30, 2.0, 1, 1, {}}, {0, 1, 30, 3.0, 1, 1, {1, 2}}, {1, 2, 30, 1.0, 1, 1, {}}});
  ParamValues p;
  p.strings["tie_break"] = "random";
  ParamValues opt;
  opt.strings["performance"] = "1,2";
  SimResult a = run_share(c, w, "eunomia", opt, p, 5), b = run_share(c, w, "eunomia", opt, p, 5);
  EXPECT_EQ(a.att_node, b.att_node);
  EXPECT_EQ(a.att_start, b.att_start);
  EXPECT_EQ(a.series.at("shares").columns, b.series.at("shares").columns);
}

TEST(Share, BadInputIsRejected) {
  Cluster c = make_cluster({2, 2}, {2, 2}, {0, 1});
  Workload w = make_workload({{0, 0, 2, 1.0, 1, 1, {}}});
  ParamValues opt;
  opt.strings["performance"] = "1";  // node 1 has type 1
  EXPECT_THROW(run_share(c, w, "eunomia", opt), std::invalid_argument);
  opt.strings["performance"] = "1,-2";
  EXPECT_THROW(run_share(c, w, "eunomia", opt), std::invalid_argument);
  Workload big = make_workload({{0, 0, 1, 1.0, 3, 1, {}}});  // 3 cores fit nowhere
  EXPECT_THROW(run_share(c, big, "tsf"), std::invalid_argument);
  Workload out = make_workload({{0, 0, 1, 1.0, 1, 1, {5}}});  // node 5 does not exist
  EXPECT_THROW(run_share(c, out, "tsf"), std::invalid_argument);
  ParamValues pw;
  pw.strings["weights"] = "0:-1";
  EXPECT_THROW(run_share(c, w, "tsf", {}, pw), std::invalid_argument);
}
