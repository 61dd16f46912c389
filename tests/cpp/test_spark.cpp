// The Spark engine (schedlab/spark.h): hand-checked schedules of FIFO and FAIR pools, delay
// scheduling by locality level, stage DAGs, speculation and dynamic allocation; determinism
// and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "schedlab/registry.h"
#include "schedlab/spark.h"

using namespace schedlab;

namespace {

Cluster executors(int n, int cores, std::vector<double> speeds = {}, int racks = 1) {
  Cluster c;
  for (int i = 0; i < n; ++i) {
    c.rack.push_back(i * racks / n);
    c.speed.push_back(speeds.empty() ? 1.0 : speeds[i]);
    c.map_slots.push_back(cores);
    c.reduce_slots.push_back(0);
    c.slots.push_back(cores);
    c.vcores.push_back(cores);
    c.memory.push_back(1024);
    c.node_type.push_back(0);
  }
  c.n_racks = racks;
  c.validate();
  return c;
}

struct StageSpec {
  double submit;
  int32_t job;   // Spark job (dag)
  int32_t pool;  // user
  std::vector<double> works;
  std::vector<std::vector<int32_t>> prefs;  // per task (empty = none)
  std::vector<int32_t> parents;
};

Workload stages(const std::vector<StageSpec>& specs) {
  Workload w;
  bool any_pref = false, any_parent = false;
  for (auto& s : specs) {
    for (auto& p : s.prefs) any_pref |= !p.empty();
    any_parent |= !s.parents.empty();
  }
  if (any_pref) w.replica_begin.push_back(0);
  if (any_parent) w.parent_begin.push_back(0);
  for (size_t j = 0; j < specs.size(); ++j) {
    const StageSpec& s = specs[j];
    w.submit_time.push_back(s.submit);
    w.user.push_back(s.pool);
    w.dag.push_back(s.job);
    for (size_t k = 0; k < s.works.size(); ++k) {
      w.task_job.push_back(static_cast<int32_t>(j));
      w.work.push_back(s.works[k]);
      if (any_pref) {
        if (k < s.prefs.size())
          for (int32_t n : s.prefs[k]) w.replica_node.push_back(n);
        w.replica_begin.push_back(static_cast<int64_t>(w.replica_node.size()));
      }
    }
    if (any_parent) {
      for (int32_t p : s.parents) w.parent_job.push_back(p);
      w.parent_begin.push_back(static_cast<int64_t>(w.parent_job.size()));
    }
  }
  w.finalize();
  return w;
}

SimResult run(const Cluster& c, const Workload& w, const std::string& sched, ParamValues opts = {},
              ParamValues params = {}, uint64_t seed = 0) {
  RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = sched;
  r.options = std::move(opts);
  r.scheduler_params = std::move(params);
  r.seed = seed;
  return schedlab::run(r);
}

ParamValues nums(std::map<std::string, double> n, std::map<std::string, std::string> s = {}) {
  ParamValues v;
  v.numbers = std::move(n);
  v.strings = std::move(s);
  return v;
}

// start time of task t's first attempt
double start_of(const SimResult& r, int32_t t) {
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_task[i] == t) return r.att_start[i];
  return NAN;
}

}  // namespace

TEST(Spark, RegisteredWithParams) {
  const auto& info = find_scheduler("spark_fair");
  EXPECT_EQ(info.engine, "spark");
  EXPECT_EQ(find_scheduler("spark_fifo").engine, "spark");
  bool has_wait = false;
  for (auto& s : find_engine("spark").options) has_wait |= s.name == "locality_wait" && s.default_number == 3.0;
  EXPECT_TRUE(has_wait);
}

// One executor with one core; job 0 (pool 0) has two 10 s tasks, job 1 (pool 1) arrives at 1 s
// with one 5 s task.
TEST(Spark, FifoRunsJobsInOrder) {
  Cluster c = executors(1, 1);
  Workload w = stages({{0, 0, 0, {10, 10}, {}, {}}, {1, 1, 1, {5}, {}, {}}});
  SimResult r = run(c, w, "spark_fifo");
  EXPECT_DOUBLE_EQ(r.job_finish[0], 20);  // job 0's second task takes the core at 10 (task-end offer)
  EXPECT_DOUBLE_EQ(r.job_start[1], 20);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 25);
}

TEST(Spark, FairPoolsTieByNameThenMinShare) {
  Cluster c = executors(1, 1);
  Workload w = stages({{0, 0, 0, {10, 10}, {}, {}}, {1, 1, 1, {5}, {}, {}}});
  // both pools run nothing at 10 s: not needy, equal running/weight -> the smaller name ("adhoc") first
  SimResult r = run(c, w, "spark_fair", {}, nums({}, {{"pools", "0=prod/FIFO/1/0;1=adhoc/FIFO/1/0"}}));
  EXPECT_DOUBLE_EQ(r.job_start[1], 10);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 15);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 25);
  // prod with minShare 1 is needy: it goes first
  r = run(c, w, "spark_fair", {}, nums({}, {{"pools", "0=prod/FIFO/1/1;1=adhoc/FIFO/1/0"}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 20);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 25);
}

// Task sets are named TaskSet_<stage id>.0: with the Spark stage ids 7 and 13, a FAIR tie (both
// running nothing) goes to "TaskSet_13.0", the smaller string; FIFO orders the stages of one
// Spark job by stage id, not by their place in the workload. One core, busy with stage 0 until
// 1 s; stages 1 (10 s) and 2 (5 s) arrive at 0.5 s and compete for the core at 1 s.
TEST(Spark, TaskSetNamesAreSparkStageIds) {
  Cluster c = executors(1, 1);
  Workload w = stages({{0, 0, 0, {1}, {}, {}}, {0.5, 1, 0, {10}, {}, {}}, {0.5, 2, 0, {5}, {}, {}}});
  const std::string pools = "0=p/FAIR/1/0";
  SimResult r = run(c, w, "spark_fair", {}, nums({}, {{"pools", pools}}));
  EXPECT_DOUBLE_EQ(r.job_start[1], 1);  // dense names "1" < "2"
  EXPECT_DOUBLE_EQ(r.job_start[2], 11);
  r = run(c, w, "spark_fair", {}, nums({}, {{"pools", pools}, {"stage_ids", "0,7,13"}}));
  EXPECT_DOUBLE_EQ(r.job_start[2], 1);  // "13.0" < "7.0"
  EXPECT_DOUBLE_EQ(r.job_start[1], 6);
  Workload one = stages({{0, 0, 0, {1}, {}, {}}, {0.5, 1, 0, {10}, {}, {}}, {0.5, 1, 0, {5}, {}, {}}});
  r = run(c, one, "spark_fifo");
  EXPECT_DOUBLE_EQ(r.job_start[1], 1);
  r = run(c, one, "spark_fifo", {}, nums({}, {{"stage_ids", "0,5,3"}}));  // two stages of Spark job 1
  EXPECT_DOUBLE_EQ(r.job_start[2], 1);
  EXPECT_DOUBLE_EQ(r.job_start[1], 6);
  EXPECT_THROW(run(c, one, "spark_fifo", {}, nums({}, {{"stage_ids", "5"}})), std::invalid_argument);
  EXPECT_THROW(run(c, one, "spark_fifo", {}, nums({}, {{"stage_ids", "0,5,x"}})), std::invalid_argument);
}

// Two cores; pool 0 weight 1 with two stages, pool 1 weight 3: after the first round, the
// pool with the lower running/weight ratio gets each freed core.
TEST(Spark, FairWeights) {
  Cluster c = executors(1, 4);
  // pool 0: one stage of 8 tasks of 10 s at 0; pool 1: one stage of 8 tasks of 10 s at 0.5
  Workload w = stages({{0, 0, 0, std::vector<double>(8, 10), {}, {}}, {0.5, 1, 1, std::vector<double>(8, 10), {}, {}}});
  SimResult r = run(c, w, "spark_fair", {}, nums({}, {{"pools", "0=a/FIFO/1/0;1=b/FIFO/3/0"}}));
  // 0 s: a takes all 4 cores. 10 s: four task-end offers one by one; ratios a 3/1, b 0/3 -> b;
  // a 2/1 vs b 1/3 -> b; a 1/1 vs b 2/3 -> b; a 0/1 vs b 3/3 -> a. So b runs 3, a 1.
  int b_at_10 = 0, a_at_10 = 0;
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_start[i] == 10) (r.att_task[i] >= 8 ? b_at_10 : a_at_10)++;
  EXPECT_EQ(b_at_10, 3);
  EXPECT_EQ(a_at_10, 1);
}

// Two executors on two hosts, one core each; both tasks prefer executor 0 (a cached partition).
TEST(Spark, DelaySchedulingWaitsPerLevel) {
  Cluster c = executors(2, 1);
  Workload w = stages({{0, 0, 0, {10, 10}, {{0}, {0}}, {}}});
  // PROCESS_LOCAL waits 3 s (revives at 1, 2 rejected), NODE_LOCAL another 3 s: ANY at 6 s
  SimResult r = run(c, w, "spark_fifo");
  EXPECT_DOUBLE_EQ(start_of(r, 0), 0);
  EXPECT_DOUBLE_EQ(start_of(r, 1), 6);
  EXPECT_EQ(r.att_node[1], 1);
  // no wait at the node level: ANY after 3 s
  r = run(c, w, "spark_fifo", nums({{"locality_wait_node", 0}}));
  EXPECT_DOUBLE_EQ(start_of(r, 1), 3);
  // a long wait: the task waits for executor 0 and runs there, process-local, at 10 s
  r = run(c, w, "spark_fifo", nums({{"locality_wait", 20}}));
  EXPECT_DOUBLE_EQ(start_of(r, 1), 10);
  EXPECT_EQ(r.att_node[1], 0);
  EXPECT_EQ(r.att_extra.at("spark_locality")[1], double(spark::kProcessLocal));
  // the two executors on one host, preferences by host: both node-local at once
  r = run(c, w, "spark_fifo", nums({{"executors_per_host", 2}}, {{"preferred_locations", "host"}}));
  EXPECT_DOUBLE_EQ(start_of(r, 1), 0);
  EXPECT_EQ(r.att_extra.at("spark_locality")[1], double(spark::kNodeLocal));
}

// A stage of two 4 s maps feeding a 2 s reduce stage, in one Spark job.
TEST(Spark, StagesWaitForTheirParents) {
  Cluster c = executors(1, 2);
  Workload w = stages({{0, 0, 0, {4, 4}, {}, {}}, {0, 0, 0, {2}, {}, {0}}});
  SimResult r = run(c, w, "spark_fifo");
  EXPECT_DOUBLE_EQ(r.job_finish[0], 4);
  EXPECT_DOUBLE_EQ(r.job_extra.at("ready")[1], 4);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 6);
  r = run(c, w, "spark_fifo", nums({{"stage_submit_delay", 0.5}, {"task_launch_overhead", 0.25}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 4.75);
  EXPECT_DOUBLE_EQ(r.job_extra.at("ready")[1], 5.25);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 7.5);
}

TEST(Spark, FirstTaskOverheadOncePerCore) {
  Cluster c = executors(1, 1);
  Workload w = stages({{0, 0, 0, {1, 1, 1}, {}, {}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"first_task_overhead", 2}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 5);  // 3 + 1 + 1
}

// stage_fetch_overhead: the first attempt of a stage on an executor fetches the stage's task
// binary. One executor of two cores: stage 0's two 1 s tasks start together and the first one
// launched pays 0.5 s (ends at 1.5, the other at 1); stage 1 (a child, 2 s) pays again on the
// same executor: 1.5 + 2 + 0.5 = 4.
TEST(Spark, StageFetchOverheadOncePerStageAndExecutor) {
  Cluster c = executors(1, 2);
  Workload w = stages({{0, 0, 0, {1, 1}, {}, {}}, {0, 0, 0, {2}, {}, {0}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"stage_fetch_overhead", 0.5}}));
  EXPECT_DOUBLE_EQ(r.att_finish[0], 1.5);
  EXPECT_DOUBLE_EQ(r.att_finish[1], 1);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 1.5);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 4);
  // two executors: each pays once per stage
  Cluster c2 = executors(2, 1);
  r = run(c2, stages({{0, 0, 0, {1, 1, 1, 1}, {}, {}}}), "spark_fifo", nums({{"stage_fetch_overhead", 0.5}, {"shuffle_offers", 0}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 2.5);  // each executor: 1.5, then 1
}

// Speculation: four 1 s tasks on executors 0..3 (offers not shuffled), executor 3 ten times
// slower; three tasks end at 1 s (>= 0.75 x 4), median 1 s, threshold 1.5 s: the slow task is
// speculatable at the first check past 1.5 s (1.6 s); its copy goes to the first free executor
// offered (0, another host) and ends at 2.6 s, when the original is killed.
TEST(Spark, SpeculationCopiesTheStraggler) {
  Cluster c = executors(5, 1, {1, 1, 1, 0.1, 1});
  Workload w = stages({{0, 0, 0, {1, 1, 1, 1}, {}, {}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"speculation", 1}, {"shuffle_offers", 0}}));
  ASSERT_EQ(r.att_task.size(), 5u);
  EXPECT_EQ(r.att_speculative[4], 1);
  EXPECT_EQ(r.att_node[4], 0);
  EXPECT_NEAR(r.att_start[4], 1.6, 1e-9);
  EXPECT_EQ(r.att_status[4], kSucceeded);
  EXPECT_EQ(r.att_status[3], kKilled);
  EXPECT_NEAR(r.job_finish[0], 2.6, 1e-9);
  // without speculation the stage ends with the straggler
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}));
  EXPECT_NEAR(r.job_finish[0], 10, 1e-9);
}

// Dynamic allocation from zero executors: the backlog timer (1 s) asks for 1, then 2 (ramp-up
// doubles), then the rest; executors register 0.5 s after the request; idle ones leave 60 s
// after their last task.
TEST(Spark, DynamicAllocationRampsUpAndTimesOut) {
  Cluster c = executors(4, 1);
  Workload w = stages({{0, 0, 0, {10, 10, 10, 10}, {}, {}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"dynamic_allocation", 1}, {"executor_start_time", 0.5}}));
  std::vector<double> starts(r.att_start.begin(), r.att_start.end());
  std::sort(starts.begin(), starts.end());
  ASSERT_EQ(starts.size(), 4u);
  EXPECT_NEAR(starts[0], 1.5, 1e-9);
  EXPECT_NEAR(starts[1], 2.5, 1e-9);
  EXPECT_NEAR(starts[2], 2.5, 1e-9);
  EXPECT_NEAR(starts[3], 3.5, 1e-9);
  EXPECT_EQ(r.counters.at("executors_added"), 4);
  EXPECT_EQ(r.counters.at("executors_removed"), 4);
  EXPECT_NEAR(r.end_time, 73.5, 0.1 + 1e-9);  // the last executor idles out 60 s after 13.5 s
}

TEST(Spark, DeterministicAndSeeded) {
  Cluster c = executors(8, 2, {}, 2);
  std::vector<StageSpec> spec;
  for (int j = 0; j < 6; ++j) {
    StageSpec s{j * 0.7, j, j % 2, {}, {}, {}};
    for (int k = 0; k < 12; ++k) {
      s.works.push_back(1 + (k * 7 + j) % 5);
      s.prefs.push_back({(k + j) % 8});
    }
    spec.push_back(s);
  }
  Workload w = stages(spec);
  SimResult a = run(c, w, "spark_fair", {}, {}, 3), b = run(c, w, "spark_fair", {}, {}, 3);
  EXPECT_EQ(a.att_start, b.att_start);
  EXPECT_EQ(a.att_node, b.att_node);
  for (size_t j = 0; j < w.n_jobs(); ++j) EXPECT_TRUE(std::isfinite(a.job_finish[j]));
  // every task ran once and succeeded; no executor ran more tasks than cores at once
  EXPECT_EQ(a.att_task.size(), w.n_tasks());
  for (size_t i = 0; i < a.att_task.size(); ++i) {
    int overlap = 0;
    for (size_t k = 0; k < a.att_task.size(); ++k)
      if (a.att_node[k] == a.att_node[i] && a.att_start[k] <= a.att_start[i] && a.att_finish[k] > a.att_start[i]) ++overlap;
    EXPECT_LE(overlap, 2);
  }
}

TEST(Spark, BadInput) {
  Cluster c = executors(1, 1);
  Workload w = stages({{0, 0, 0, {1}, {}, {}}});
  EXPECT_THROW(run(c, w, "spark_fair", {}, nums({}, {{"pools", "0=a/LIFO/1/0"}})), std::invalid_argument);
  EXPECT_THROW(run(c, w, "spark_fair", {}, nums({}, {{"pools", "x=a/FIFO/1/0"}})), std::invalid_argument);
  EXPECT_THROW(run(c, w, "spark_fair", {}, nums({}, {{"pools", "0=a/FIFO/-1/0"}})), std::invalid_argument);
  EXPECT_THROW(run(c, w, "spark_fifo", nums({{"min_executors", 3}, {"max_executors", 2}})), std::invalid_argument);
  EXPECT_THROW(run(c, w, "spark_fifo", nums({{"task_cpus", 2}})), std::invalid_argument);
}

// spark.task.maxFailures: attempts that always fail (probability ~1) are retried until the task
// has failed max_failures times; then the task set aborts and its Spark job fails: its child
// stage never runs.
TEST(Spark, TaskRetriesUntilMaxFailures) {
  Cluster c = executors(1, 2);
  Workload w = stages({{0, 0, 0, {10}, {}, {}}, {0, 0, 0, {1}, {}, {0}}});
  for (int max_failures : {1, 4}) {
    SimResult r = run(c, w, "spark_fifo", nums({{"task_failure_probability", 0.999999}, {"max_failures", max_failures}}));
    int attempts_of_0 = 0;
    double last_end = 0;
    for (size_t i = 0; i < r.att_task.size(); ++i) {
      if (r.att_task[i] != 0) continue;
      ++attempts_of_0;
      EXPECT_EQ(r.att_status[i], kFailed);
      EXPECT_GE(r.att_start[i], last_end);  // one after the other, each on the core the last one freed
      EXPECT_LT(r.att_finish[i] - r.att_start[i], 10);  // failed part way
      last_end = r.att_finish[i];
    }
    EXPECT_EQ(attempts_of_0, max_failures);
    EXPECT_EQ(r.counters.at("jobs_failed"), 1);
    EXPECT_TRUE(std::isnan(r.job_finish[0]));
    EXPECT_TRUE(std::isnan(r.job_start[1]));  // the child stage of the failed job never ran
  }
  // with a small probability every task ends, some after retries, and the draws are seeded
  std::vector<StageSpec> many = {{0, 0, 0, std::vector<double>(40, 1), {}, {}}};
  SimResult a = run(c, stages(many), "spark_fifo", nums({{"task_failure_probability", 0.2}, {"max_failures", 40}}), {}, 3);
  SimResult b = run(c, stages(many), "spark_fifo", nums({{"task_failure_probability", 0.2}, {"max_failures", 40}}), {}, 3);
  EXPECT_GT(a.counters.at("tasks_failed"), 0);
  EXPECT_EQ(a.counters.at("jobs_failed"), 0);
  EXPECT_FALSE(std::isnan(a.job_finish[0]));
  EXPECT_EQ(a.att_start, b.att_start);
  EXPECT_EQ(a.att_task.size(), 40 + a.counters.at("tasks_failed"));
}

// Executor loss: two executors of one core, offers in executor order: task 0 on executor 0,
// task 1 on executor 1, 10 s each. Executor 1 crashes at 4 s: task 1 fails and runs again.
TEST(Spark, ExecutorLossRerunsItsTasks) {
  Cluster c = executors(2, 1);
  Workload w = stages({{0, 0, 0, {10, 10}, {}, {}}});
  // never restarted: task 1 waits for executor 0, free at 10 s
  SimResult r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}, {{"faults", "crash:1:4:inf"}}));
  EXPECT_EQ(r.att_node[1], 1);
  EXPECT_EQ(r.att_status[1], kFailed);
  EXPECT_DOUBLE_EQ(r.att_finish[1], 4);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 20);
  EXPECT_EQ(r.counters.at("executors_lost"), 1);
  EXPECT_EQ(r.counters.at("tasks_failed"), 1);
  // restarted 2 s later, empty: it registers at 6 s and takes task 1, paying the first-task
  // overhead (a new Python worker) again: 0 + 11 on executor 0, 6 + 11 on executor 1
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"first_task_overhead", 1}}, {{"faults", "crash:1:4:2"}}));
  EXPECT_DOUBLE_EQ(start_of(r, 0), 0);
  EXPECT_DOUBLE_EQ(r.att_start.back(), 6);
  EXPECT_EQ(r.att_node.back(), 1);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 17);
  // the loss counts towards spark.task.maxFailures: with 1 the job fails, its other task killed
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"max_failures", 1}}, {{"faults", "crash:1:4:inf"}}));
  EXPECT_TRUE(std::isnan(r.job_finish[0]));
  EXPECT_EQ(r.att_status[0], kKilled);
  EXPECT_DOUBLE_EQ(r.att_finish[0], 4);
  EXPECT_EQ(r.counters.at("jobs_failed"), 1);
  // a slowdown is not an executor loss: rejected
  EXPECT_THROW(run(c, w, "spark_fifo", nums({}, {{"faults", "slowdown:0:1:2:3"}})), std::invalid_argument);
}

// Lost map outputs: stage 0 (three 2 s maps) feeds stage 1 (one 1 s task). Maps 0 and 2 run on
// executor 0 ([0, 2], [2, 4]), map 1 on executor 1 ([0, 2]). Executor 1 crashes at 3 s while
// stage 0 is unfinished: without an external shuffle service map 1's output is lost and map 1
// runs again on executor 0 at 4 s (Resubmitted), so stage 0 ends at 6 s and stage 1 at 7 s;
// with spark.shuffle.service.enabled the output survives: 4 s and 5 s.
TEST(Spark, LostMapOutputsRunAgain) {
  Cluster c = executors(2, 1);
  Workload w = stages({{0, 0, 0, {2, 2, 2}, {}, {}}, {0, 0, 0, {1}, {}, {0}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}, {{"faults", "crash:1:3:inf"}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 6);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 7);
  EXPECT_EQ(r.counters.at("tasks_resubmitted"), 1);
  EXPECT_EQ(r.counters.at("tasks_failed"), 0);
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"shuffle_service", 1}}, {{"faults", "crash:1:3:inf"}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 4);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 5);
  EXPECT_EQ(r.counters.at("tasks_resubmitted"), 0);
}

// Lost map outputs of a finished stage read by a running one (DAGScheduler FetchFailed). Two
// executors of one core, offers in executor order. Stage 0: maps m0 on executor 0 and m1 on
// executor 1, [0, 2]. Stage 1 (reads stage 0): r0 on executor 0 and r1 on executor 1 at 2 s,
// r2 waiting; 4 s each. Executor 1 crashes at 3 s, for good: r1 fails (executor lost) and m1's
// output is gone. At 6 s r0 ends and r1 runs again on executor 0: its shuffle read fails at once
// (fetch failure, which does not count towards spark.task.maxFailures). The core it frees is
// offered before the failure is handled (the backend's makeOffers on StatusUpdate; the task
// result getter handles the failure after): r2 launches and fails to fetch too. The stage attempt
// fails, and 200 ms later (6.2 s) stage 0 runs m1 again on executor 0, [6.2, 8.2]; then stage 1's second
// attempt runs r1 [8.2, 12.2] and r2 [12.2, 16.2]. With the shuffle service m1's output survives:
// r1 [6, 10], r2 [10, 14]. With spark.stage.maxConsecutiveAttempts = 1 the fetch failure aborts
// the Spark job.
TEST(Spark, FetchFailureResubmitsTheParentStage) {
  Cluster c = executors(2, 1);
  Workload w = stages({{0, 0, 0, {2, 2}, {}, {}}, {0, 0, 0, {4, 4, 4}, {}, {0}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}, {{"faults", "crash:1:3:inf"}}));
  ASSERT_EQ(r.att_task.size(), 9u);
  // attempts in launch order: m0, m1, r0, r1 (lost), r1 (fetch failure), r2 (fetch failure), m1
  // again, r1, r2
  const std::vector<int32_t> task = {0, 1, 2, 3, 3, 4, 1, 3, 4};
  const std::vector<double> start = {0, 0, 2, 2, 6, 6, 6.2, 8.2, 12.2};
  const std::vector<int32_t> node = {0, 1, 0, 1, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < task.size(); ++i) {
    EXPECT_EQ(r.att_task[i], task[i]) << i;
    EXPECT_NEAR(r.att_start[i], start[i], 1e-9) << i;
    EXPECT_EQ(r.att_node[i], node[i]) << i;
  }
  EXPECT_EQ(r.att_status[3], kFailed);
  EXPECT_DOUBLE_EQ(r.att_finish[3], 3);
  EXPECT_EQ(r.att_status[4], kFailed);
  EXPECT_DOUBLE_EQ(r.att_finish[4], 6);
  EXPECT_EQ(r.att_status[5], kFailed);
  EXPECT_NEAR(r.job_finish[0], 8.2, 1e-9);
  EXPECT_NEAR(r.job_finish[1], 16.2, 1e-9);
  EXPECT_EQ(r.counters.at("map_outputs_lost"), 1);
  EXPECT_EQ(r.counters.at("fetch_failures"), 2);
  EXPECT_EQ(r.counters.at("stages_resubmitted"), 2);
  EXPECT_EQ(r.counters.at("tasks_failed"), 3);
  EXPECT_EQ(r.counters.at("jobs_failed"), 0);
  // the timeout is an option; the fetch failure pays the attempt's fixed costs
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"resubmit_timeout", 1}, {"task_launch_overhead", 0.5}},
                                   {{"faults", "crash:1:3:inf"}}));
  // r0 [2.5, 7] on executor 0; r1's retry [7, 7.5] and r2 [7.5, 8] fail; m1 again at 8.5
  EXPECT_DOUBLE_EQ(r.att_start[4], 7);
  EXPECT_DOUBLE_EQ(r.att_finish[4], 7.5);
  EXPECT_DOUBLE_EQ(r.att_finish[5], 8);
  EXPECT_DOUBLE_EQ(r.att_start[6], 8.5);
  // spark.shuffle.service.enabled: nothing to recompute
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"shuffle_service", 1}}, {{"faults", "crash:1:3:inf"}}));
  EXPECT_DOUBLE_EQ(r.job_finish[0], 2);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 14);
  EXPECT_EQ(r.counters.at("fetch_failures"), 0);
  EXPECT_EQ(r.counters.at("map_outputs_lost"), 0);
  // spark.stage.maxConsecutiveAttempts = 1: the first fetch failure aborts the job
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"max_consecutive_attempts", 1}}, {{"faults", "crash:1:3:inf"}}));
  EXPECT_TRUE(std::isnan(r.job_finish[1]));
  EXPECT_EQ(r.counters.at("jobs_failed"), 1);
  EXPECT_EQ(r.att_task.size(), 6u);
  EXPECT_EQ(r.att_status[5], kKilled);
}

// A stage submitted after its parent's outputs were lost submits the parent again first
// (getMissingParentStages), without a fetch failure. Two executors of one core. Stage 0: one 1 s
// map on executor 0; stage 1: one 10 s map on executor 1; stage 2 reads both (1 s). Executor 0
// crashes at 5 s: stage 0's output is lost. At 10 s stage 1 ends, stage 2 finds stage 0's output
// missing: stage 0 runs again on executor 1, [10, 11], then stage 2, [11, 12].
TEST(Spark, LostOutputsOfAFinishedStageBeforeItsChildIsSubmitted) {
  Cluster c = executors(2, 1);
  Workload w = stages({{0, 0, 0, {1}, {}, {}}, {0, 0, 0, {10}, {}, {}}, {0, 0, 0, {1}, {}, {0, 1}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}, {{"faults", "crash:0:5:inf"}}));
  ASSERT_EQ(r.att_task.size(), 4u);
  EXPECT_EQ(r.att_task[2], 0);
  EXPECT_DOUBLE_EQ(r.att_start[2], 10);
  EXPECT_EQ(r.att_node[2], 1);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 11);
  EXPECT_DOUBLE_EQ(r.job_finish[2], 12);
  EXPECT_EQ(r.counters.at("fetch_failures"), 0);
  EXPECT_EQ(r.counters.at("stages_resubmitted"), 1);
  // the shuffle service keeps it: stage 2 at 10 s
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"shuffle_service", 1}}, {{"faults", "crash:0:5:inf"}}));
  EXPECT_DOUBLE_EQ(r.job_finish[2], 11);
  // without the crash stage 2 runs on executor 0 at 10 s; executor 1 (stage 1's output) crashing
  // at 10.5 s changes nothing: the running attempt read its input when it started
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}, {{"faults", "crash:1:10.5:inf"}}));
  EXPECT_EQ(r.att_node[2], 0);
  EXPECT_DOUBLE_EQ(r.job_finish[2], 11);
  EXPECT_EQ(r.counters.at("map_outputs_lost"), 1);
  EXPECT_EQ(r.counters.at("fetch_failures"), 0);
  EXPECT_EQ(r.counters.at("stages_resubmitted"), 0);
}

// A task set with nothing to launch is still offered (TaskSchedulerImpl offers every task set in
// the queue): its delay timer moves past the levels without waiting tasks. Executors 0..2, one
// core each, offers in order, locality wait 3 s. Job 0: x0 (prefers executor 2, 20 s). Job 1:
// t0 (prefers executors 0 and 2, 10 s), t1 (prefers executor 1, 2 s). At 0 s x0 takes executor
// 2, t0 executor 0, t1 executor 1. Job 1 has nothing to launch after 0 s; the revive at 3 s
// offers executor 1 (free since 2 s) and moves job 1's task set to ANY. Executor 0 crashes at
// 5 s: t0 fails and, its task set at ANY, runs again at once on executor 1 (were the task set
// not offered, it would still wait at NODE_LOCAL until 6 s).
TEST(Spark, TaskSetWithNothingToLaunchIsOffered) {
  Cluster c = executors(3, 1);
  Workload w = stages({{0, 0, 0, {20}, {{2}}, {}}, {0, 1, 0, {10, 2}, {{0, 2}, {1}}, {}}});
  SimResult r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}, {{"faults", "crash:0:5:inf"}}));
  ASSERT_EQ(r.att_task.size(), 4u);
  EXPECT_EQ(r.att_task[3], 1);
  EXPECT_EQ(r.att_node[3], 1);
  EXPECT_DOUBLE_EQ(r.att_start[3], 5);
  EXPECT_EQ(r.att_extra.at("spark_locality")[3], double(spark::kAny));
  EXPECT_DOUBLE_EQ(r.job_finish[1], 15);
}

// Visiting only the offers that can launch gives Spark's schedule (every offer visited), with
// rejections and timer resets, on a loaded cluster with cached partitions and racks.
TEST(Spark, SparseOffersSameSchedule) {
  Cluster c = executors(60, 2, {}, 3);
  std::vector<StageSpec> spec;
  uint64_t x = 7;
  auto next = [&](int n) { x = x * 6364136223846793005ULL + 1442695040888963407ULL; return int((x >> 33) % n); };
  for (int j = 0; j < 80; ++j) {
    StageSpec s{j * 0.9, j / 2, j % 3, {}, {}, {}};
    if (j % 2 == 1) s.parents = {j - 1};
    const int n = 4 + next(30);
    for (int k = 0; k < n; ++k) {
      s.works.push_back(0.5 + next(40) / 4.0);
      if (j % 2 == 0 && next(4) > 0) s.prefs.push_back({next(60)}); else s.prefs.push_back({});
    }
    spec.push_back(s);
  }
  Workload w = stages(spec);
  for (bool fair : {false, true})
    for (double wait : {0.0, 1.0, 3.0}) {
      spark::Options o;
      o.locality_wait = wait;
      o.executors_per_host = 2;
      const std::vector<spark::PoolSpec> pools = spark::parse_pools("1=b/FAIR/2/3", 3);
      SimResult a = spark::simulate(c, w, fair, pools, o, 1);
      o.sparse_offers = false;
      SimResult b = spark::simulate(c, w, fair, pools, o, 1);
      EXPECT_EQ(a.att_task, b.att_task);
      EXPECT_EQ(a.att_node, b.att_node);
      EXPECT_EQ(a.att_start, b.att_start);
      EXPECT_EQ(a.events, b.events);
    }
}

// The same with speculation, attempt failures, an executor crash, the legacy timer reset and
// preferences naming hosts: the offers a round skips (task sets quiet on one executor, offers no
// waiting or speculatable task prefers) change nothing.
TEST(Spark, SparseOffersSameScheduleWithSpeculationAndFailures) {
  Cluster c = executors(40, 2, {}, 4);
  std::vector<StageSpec> spec;
  uint64_t x = 11;
  auto next = [&](int n) { x = x * 6364136223846793005ULL + 1442695040888963407ULL; return int((x >> 33) % n); };
  for (int j = 0; j < 60; ++j) {
    StageSpec s{j * 0.7, j / 2, j % 3, {}, {}, {}};
    if (j % 2 == 1) s.parents = {j - 1};
    const int n = 4 + next(24);
    for (int k = 0; k < n; ++k) {
      s.works.push_back(0.5 + next(40) / 4.0 + (next(10) == 0 ? 20.0 : 0.0));
      if (j % 2 == 0 && next(4) > 0) s.prefs.push_back({next(40)}); else s.prefs.push_back({});
    }
    spec.push_back(s);
  }
  Workload w = stages(spec);
  int variant = 0;
  for (bool fair : {false, true})
    for (int v = 0; v < 4; ++v) {
      // (FAIR with speculation and failures: the offer of one executor moves the delay timer of a
      // task set whose first level is NO_PREF before its NO_PREF pass, which visiting every offer
      // does not; a task set going idle then stays out of the re-offered ones)
      if (fair && v == 1) continue;
      spark::Options o;
      o.locality_wait = 2.0;
      o.speculation = v != 2;
      o.task_failure_probability = v == 1 || v == 2 ? 0.05 : 0;
      o.max_failures = 20;
      if (v == 2) o.faults = "crash:3:10:15;crash:17:25:inf";
      o.legacy_locality_reset = v == 3;
      o.host_preferences = v == 3;
      o.executors_per_host = v >= 2 ? 2 : 1;
      const std::vector<spark::PoolSpec> pools = spark::parse_pools("1=b/FAIR/2/3", 3);
      SimResult a = spark::simulate(c, w, fair, pools, o, 1);
      o.sparse_offers = false;
      SimResult b = spark::simulate(c, w, fair, pools, o, 1);
      SCOPED_TRACE(++variant);
      EXPECT_EQ(a.att_task, b.att_task);
      EXPECT_EQ(a.att_node, b.att_node);
      EXPECT_EQ(a.att_start, b.att_start);
      EXPECT_EQ(a.att_status, b.att_status);
      EXPECT_EQ(a.events, b.events);
      EXPECT_GT(a.att_task.size(), w.n_tasks());
    }
}

// Several applications on a standalone cluster: two workers of two cores. Application 0
// (registered at 0 s) runs four 10 s tasks, application 1 (at 1 s) two 1 s tasks. FIFO of
// applications with the default spark.cores.max (unlimited): application 0 takes every core
// (one executor of two cores per worker) and application 1 gets executors when application 0
// ends, at 10 s.
TEST(SparkStandalone, ApplicationsInArrivalOrder) {
  Cluster c = executors(2, 2);
  Workload w = stages({{0, 0, 0, {10, 10, 10, 10}, {}, {}}, {1, 1, 0, {1, 1}, {}, {}}});
  const std::map<std::string, std::string> apps = {{"applications", "0,1"}};
  SimResult r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}), ParamValues{{}, apps});
  ASSERT_EQ(r.att_task.size(), 6u);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 10);
  EXPECT_DOUBLE_EQ(r.job_start[1], 10);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 11);
  EXPECT_EQ(r.att_node[0] + r.att_node[1] + r.att_node[2] + r.att_node[3], 2);  // two tasks per worker
  EXPECT_EQ(r.counters.at("applications"), 2);
  EXPECT_EQ(r.counters.at("executors_launched"), 4);
  // spark.cores.max = 2 for application 0: spread out, one core on each worker; application 1
  // gets the other two at 1 s. Application 0's four tasks run in two waves.
  ParamValues p{{}, {{"applications", "0,1"}, {"application_settings", "/2/;"}}};
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}}), p);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 20);
  EXPECT_DOUBLE_EQ(r.job_start[1], 1);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 2);
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_task[i] >= 4) EXPECT_NE(r.att_node[i], r.att_node[r.att_task[i] == 4 ? i + 1 : i - 1]);  // one per worker
  // spark.deploy.spreadOut = false: application 0's two cores on worker 0, application 1's on worker 1
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"spread_out", 0}}), p);
  for (size_t i = 0; i < r.att_task.size(); ++i) EXPECT_EQ(r.att_node[i], r.att_task[i] < 4 ? 0 : 1);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 2);
  // the engine option spark.cores.max applies to both: application 1 too gets 2 cores
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"cores_max", 2}}), ParamValues{{}, apps});
  EXPECT_DOUBLE_EQ(r.job_finish[0], 20);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 2);
  // spark.executor.cores = 1 and cores.max 3: three executors of one core, spread: two on one
  // worker, one on the other; application 1 gets the last core and runs its tasks one by one
  r = run(c, w, "spark_fifo", nums({{"shuffle_offers", 0}, {"executor_cores", 1}}),
          ParamValues{{}, {{"applications", "0,1"}, {"application_settings", "/3/"}}});
  EXPECT_EQ(r.counters.at("executors_launched"), 4);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 3);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 20);
}

// Dynamic allocation requests executors from the shared cluster and gives idle ones back.
// Application 0 (executor cores 2, initial executors 2, idle timeout 5 s) runs four 10 s
// tasks at 0 s and one 10 s task at 100 s; application 1 arrives at 20 s with two 1 s tasks.
// Application 0's executors idle from 10 s leave at 15 s: application 1 runs at once, [20, 21];
// at 100 s application 0 waits schedulerBacklogTimeout (1 s), asks for one executor and runs
// its task at 101 s. Without dynamic allocation application 1 waits for application 0's end.
TEST(SparkStandalone, DynamicAllocationSharesTheCluster) {
  Cluster c = executors(2, 2);
  Workload w = stages({{0, 0, 0, {10, 10, 10, 10}, {}, {}}, {20, 2, 0, {1, 1}, {}, {}}, {100, 1, 0, {10}, {}, {}}});
  ParamValues p{{}, {{"applications", "0,1,0"}}};
  SimResult r = run(c, w, "spark_fifo",
                    nums({{"executor_cores", 2}, {"dynamic_allocation", 1}, {"initial_executors", 2}, {"executor_idle_timeout", 5}}),
                    p);
  EXPECT_DOUBLE_EQ(r.job_finish[0], 10);
  EXPECT_DOUBLE_EQ(r.job_start[1], 20);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 21);
  EXPECT_NEAR(r.job_start[2], 101, 1e-9);
  EXPECT_NEAR(r.job_finish[2], 111, 1e-9);
  r = run(c, w, "spark_fifo", nums({{"executor_cores", 2}}), p);
  EXPECT_DOUBLE_EQ(r.job_finish[2], 110);
  EXPECT_DOUBLE_EQ(r.job_start[1], 110);
}

// A worker lost takes every application's executors there; its map outputs are lost even with
// the shuffle service (it lives in the worker). Two workers of one core, two applications of
// cores.max 1, spread out: application 0 on worker 0, application 1 on worker 1. Application 0:
// a 2 s map then a 5 s reduce; application 1: one 20 s task. Worker 0 crashes at 3 s and comes
// back at 4 s: the reduce fails and the map output is gone; on the new executor (4 s) the reduce
// fails to fetch it, and 200 ms later the map runs again [4.2, 6.2], then the reduce [6.2, 11.2].
TEST(SparkStandalone, WorkerLossAndDeterminism) {
  Cluster c = executors(2, 1);
  Workload w = stages({{0, 0, 0, {2}, {}, {}}, {0, 0, 0, {5}, {}, {0}}, {0, 1, 0, {20}, {}, {}}});
  ParamValues p{{}, {{"applications", "0,0,1"}}};
  for (int ss : {0, 1}) {
    SimResult r = run(c, w, "spark_fifo", nums({{"cores_max", 1}, {"shuffle_service", double(ss)}}, {{"faults", "crash:0:3:1"}}), p);
    EXPECT_NEAR(r.job_finish[0], 6.2, 1e-9);
    EXPECT_NEAR(r.job_finish[1], 11.2, 1e-9);
    EXPECT_EQ(r.counters.at("fetch_failures"), 1);
    EXPECT_DOUBLE_EQ(r.job_finish[2], 20);
    EXPECT_EQ(r.att_node.back(), 0);
  }
  // executors take 2 s to start; worker 0 is lost at 1 s while application 0's executor starts
  // and is back at 1.5 s: the executor launched then registers at 3.5 s (not at 2 s, when the
  // lost one would have): map [3.5, 5.5], reduce [5.5, 10.5]
  SimResult r = run(c, w, "spark_fifo", nums({{"cores_max", 1}, {"executor_start_time", 2}}, {{"faults", "crash:0:1:0.5"}}), p);
  EXPECT_DOUBLE_EQ(r.job_start[0], 3.5);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 10.5);
  EXPECT_DOUBLE_EQ(r.job_start[2], 2);
  // seeded and deterministic
  Workload many = stages({{0, 0, 0, std::vector<double>(30, 1.5), {}, {}}, {0.5, 1, 1, std::vector<double>(20, 2), {}, {0}},
                          {1, 2, 0, std::vector<double>(25, 1), {}, {}}, {2, 3, 1, std::vector<double>(10, 3), {}, {}}});
  Cluster big = executors(5, 3);
  ParamValues q{{}, {{"applications", "0,0,1,2"}, {"application_settings", ";4/5/2;"}}};
  SimResult a = run(big, many, "spark_fair", nums({{"speculation", 1}}), q, 4);
  SimResult b = run(big, many, "spark_fair", nums({{"speculation", 1}}), q, 4);
  EXPECT_EQ(a.att_start, b.att_start);
  EXPECT_EQ(a.att_node, b.att_node);
  for (double f : a.job_finish) EXPECT_FALSE(std::isnan(f));
  // bad input: a parent in another application, codes that do not fit
  EXPECT_THROW(run(c, w, "spark_fifo", {}, ParamValues{{}, {{"applications", "0,1,1"}}}), std::invalid_argument);
  EXPECT_THROW(run(c, w, "spark_fifo", {}, ParamValues{{}, {{"applications", "0,1"}}}), std::invalid_argument);
  EXPECT_THROW(run(c, w, "spark_fifo", {}, ParamValues{{}, {{"applications", "0,0,1"}, {"application_settings", "x//"}}}),
               std::invalid_argument);
}
