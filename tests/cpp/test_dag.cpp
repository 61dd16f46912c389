// DAG jobs in the MapReduce engine: a job with parents is submitted when its last parent has
// finished (Hadoop 1 workflows run as DAGs of MapReduce jobs), workload validation of the
// dependency columns, and the engines that do not run dependencies rejecting them.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "schedlab/registry.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

using namespace schedlab;

namespace {

struct DagJob {
  double submit;
  std::vector<double> maps;
  std::vector<double> reduces;
  std::vector<int32_t> parents;
  int32_t dag = -1;  // -1 = own id
};

// Every map's input is on every node (no locality effects); no shuffle bytes.
Workload make_dag(const std::vector<DagJob>& jobs, int32_t nodes = 1) {
  Workload w;
  w.replica_begin.push_back(0);
  w.parent_begin.push_back(0);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const DagJob& d = jobs[j];
    w.submit_time.push_back(d.submit);
    w.dag.push_back(d.dag < 0 ? int32_t(j) : d.dag);
    for (int32_t p : d.parents) w.parent_job.push_back(p);
    w.parent_begin.push_back(int64_t(w.parent_job.size()));
    for (double m : d.maps) {
      w.task_job.push_back(int32_t(j));
      w.task_stage.push_back(kMap);
      w.work.push_back(m);
      for (int32_t n = 0; n < nodes; ++n) w.replica_node.push_back(n);
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
    for (double r : d.reduces) {
      w.task_job.push_back(int32_t(j));
      w.task_stage.push_back(kReduce);
      w.work.push_back(r);
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
  }
  w.finalize();
  return w;
}

SimResult simulate(const Cluster& c, const Workload& w, const std::string& sched, ParamValues options = {},
                   uint64_t seed = 0) {
  RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = sched;
  r.options = std::move(options);
  r.seed = seed;
  return run(r);
}

ParamValues hb1() {
  ParamValues o;
  o.numbers["heartbeat_interval"] = 1.0;
  return o;
}

// (start, finish) of the successful attempt of each task
std::map<int32_t, std::pair<double, double>> spans(const SimResult& r) {
  std::map<int32_t, std::pair<double, double>> out;
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_status[i] == kSucceeded) out[r.att_task[i]] = {r.att_start[i], r.att_finish[i]};
  return out;
}

std::string error_of(const Workload& w) {
  try {
    w.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// One node, 2 map slots and 1 reduce slot, heartbeats at t = 0, 1, 2, ...; no shuffle bytes.
//   job 0 A (t=0): maps 4, 4; reduce 3          job 1 B (t=0): map 6
//   job 2 C (t=1, parents A and B): map 2; reduce 1
//   job 3 D (t=2): map 5                        job 4 E (t=8): maps 3, 3
// FIFO: t=0 A's maps [0,4] x2. t=4 B's map [4,10], D's map [4,9]; A's reduce [4,7] (A ends 7).
// t=9 E's first map [9,12]. t=10 B ends: C is submitted (ready 10, after E's submission at 8,
// so FIFO serves E first): E's second map [10,13]. t=12 C's map [12,14]; t=14 C's reduce
// [14,15]. Had C kept its submit time 1, it would have taken the slot at 10 instead.
TEST(Dag, FifoHandScheduleExactTimes) {
  Cluster c = Cluster::uniform(1, 1, 2, 1);
  Workload w = make_dag({{0, {4, 4}, {3}, {}, 0},
                         {0, {6}, {}, {}, 1},
                         {1, {2}, {1}, {0, 1}, 0},
                         {2, {5}, {}, {}},
                         {8, {3, 3}, {}, {}}});
  ASSERT_TRUE(w.has_dependencies());
  SimResult r = simulate(c, w, "fifo", hb1());
  auto s = spans(r);
  // task ids: A 0,1 (maps) 2 (reduce); B 3; C 4 (map) 5 (reduce); D 6; E 7, 8
  using P = std::pair<double, double>;
  EXPECT_EQ(s[0], P(0, 4));
  EXPECT_EQ(s[1], P(0, 4));
  EXPECT_EQ(s[2], P(4, 7));
  EXPECT_EQ(s[3], P(4, 10));
  EXPECT_EQ(s[6], P(4, 9));
  EXPECT_EQ(s[7], P(9, 12));
  EXPECT_EQ(s[8], P(10, 13));
  EXPECT_EQ(s[4], P(12, 14));
  EXPECT_EQ(s[5], P(14, 15));
  const auto& ready = r.job_extra.at("ready");
  EXPECT_EQ(ready, (std::vector<double>{0, 0, 10, 2, 8}));
  EXPECT_EQ(r.job_start[2], 12);
  EXPECT_EQ(r.job_finish[2], 15);
  EXPECT_EQ(r.job_finish[0], 7);
  EXPECT_EQ(r.job_finish[1], 10);
}

// A child whose submit time comes after its parents' finish is submitted at its own time.
TEST(Dag, ChildSubmittedAtItsOwnTimeWhenParentsAreDone) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = make_dag({{0, {2}, {}, {}}, {5, {1}, {}, {0}, 0}});
  SimResult r = simulate(c, w, "fifo", hb1());
  EXPECT_EQ(r.job_extra.at("ready"), (std::vector<double>{0, 5}));
  EXPECT_EQ(r.job_start[1], 5);
  EXPECT_EQ(r.job_finish[1], 6);
}

// Chains and joins of jobs on 4 nodes under crashes and slowdowns: every child is submitted
// exactly when its last parent finishes (or at its submit time) and no attempt of it starts
// before; every job finishes.
TEST(Dag, ChildNeverStartsBeforeItsLastParentUnderFaults) {
  Cluster c = Cluster::uniform(4, 2, 2, 1);
  std::vector<DagJob> jobs;
  for (int d = 0; d < 6; ++d) {
    const int32_t b = int32_t(jobs.size());
    const double t = 7.0 * d;
    jobs.push_back({t, {5, 9, 4, 7}, {6}, {}, b});
    jobs.push_back({t, {8, 3}, {}, {}, b});
    jobs.push_back({t, {4, 4, 4}, {5, 2}, {b, b + 1}, b});
    jobs.push_back({t + 1, {6}, {3}, {b + 2}, b});
  }
  for (int d = 0; d < 3; ++d) jobs.push_back({60.0 + d, {2}, {}, {4 * d}, 4 * d});  // parents maybe done by then
  Workload w = make_dag(jobs, 4);
  for (const char* sched : {"fifo", "fair", "capacity"}) {
    ParamValues o = hb1();
    o.strings["faults"] = "crash:1:12:40;slowdown:2:5:60:3;mtbf:80:30:150";
    o.numbers["detection_delay"] = 10;
    SimResult r = simulate(c, w, sched, o, 3);
    EXPECT_GT(r.counters.at("node_crashes"), 1) << sched;
    EXPECT_GT(r.counters.at("failed_attempts"), 0) << sched;
    const auto& ready = r.job_extra.at("ready");
    for (size_t j = 0; j < w.n_jobs(); ++j) {
      ASSERT_TRUE(std::isfinite(r.job_finish[j])) << sched << " job " << j;
      double last_parent = w.submit_time[j];
      for (int64_t k = w.parent_begin[j]; k < w.parent_begin[j + 1]; ++k)
        last_parent = std::max(last_parent, r.job_finish[w.parent_job[k]]);
      EXPECT_EQ(ready[j], last_parent) << sched << " job " << j;
      EXPECT_GE(r.job_start[j], ready[j]) << sched << " job " << j;
    }
    for (size_t i = 0; i < r.att_task.size(); ++i) {
      const int32_t j = w.task_job[r.att_task[i]];
      for (int64_t k = w.parent_begin[j]; k < w.parent_begin[j + 1]; ++k)
        EXPECT_GE(r.att_start[i], r.job_finish[w.parent_job[k]]) << sched << " attempt " << i;
    }
  }
}

// A parent that never finishes (time limit) keeps its children out of the scheduler.
TEST(Dag, UnfinishedParentKeepsChildUnsubmitted) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = make_dag({{0, {100}, {}, {}}, {0, {1}, {}, {0}, 0}});
  ParamValues o = hb1();
  o.numbers["time_limit"] = 50;
  SimResult r = simulate(c, w, "fifo", o);
  EXPECT_TRUE(std::isnan(r.job_extra.at("ready")[1]));
  EXPECT_TRUE(std::isnan(r.job_start[1]));
}

TEST(Dag, ValidationNamesFieldAndJob) {
  auto base = [] { return make_dag({{0, {1}, {}, {}}, {0, {1}, {}, {0}}, {1, {1}, {}, {0, 1}}}); };
  Workload w = base();
  EXPECT_EQ(error_of(w), "");
  w.parent_job[0] = 7;
  EXPECT_NE(error_of(w).find("job field 'parents' of job 1 names job 7, which does not exist"), std::string::npos);
  w = base();
  w.parent_job[0] = 1;
  EXPECT_NE(error_of(w).find("job field 'parents' of job 1 names the job itself"), std::string::npos);
  w = base();
  w.parent_job[0] = 2;  // 1 <- 2 <- 1: a cycle
  EXPECT_NE(error_of(w).find("job field 'parents' of job 1 names job 2, which comes later"), std::string::npos);
  w = base();
  w.parent_job[2] = 0;  // job 2 names job 0 twice
  EXPECT_NE(error_of(w).find("job field 'parents' of job 2 names job 0 twice"), std::string::npos);
  w = base();
  w.parent_begin.pop_back();
  EXPECT_NE(error_of(w).find("'parent_begin'"), std::string::npos);
  w = base();
  w.dag[2] = 3;
  EXPECT_NE(error_of(w).find("job field 'dag' of job 2"), std::string::npos);
  w = base();
  w.parent_begin.clear();
  EXPECT_NE(error_of(w).find("'parent_job' is given without 'parent_begin'"), std::string::npos);
  Workload d = make_dag({{0, {1}, {}, {}}, {0, {1}, {}, {}}});
  EXPECT_FALSE(d.has_dependencies());
  EXPECT_EQ(d.dag, (std::vector<int32_t>{0, 1}));
}

TEST(Dag, WorkerAndShareEnginesRejectDependencies) {
  Workload w = make_dag({{0, {1}, {}, {}}, {0, {1}, {}, {0}}});
  Cluster c = Cluster::uniform(2, 1, 1, 0);
  for (const char* sched : {"sparrow", "eunomia"}) {
    try {
      simulate(c, w, sched);
      FAIL() << sched << " accepted a workload with dependencies";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'parents'"), std::string::npos) << e.what();
    }
  }
}
