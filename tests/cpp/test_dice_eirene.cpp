// Dice (Elastic Sizing, Opportunistic Preemption) and Eirene (Coordinated Cold Data Migration,
// Scheduler-Aware Task Cloning) on tiny hand-checked cases [Zhou 2019, §3.3.2; §4.3.2;
// the Hawk/Eagle simulator, epfl-labos/eagle@371b51f]. Times are exact, with the 0.5 ms one-way network delay: a probe
// arrives 0.0005 s after its job, and a task starts 0.001 s after its worker takes the probe.
//
// Short jobs probe random workers, so the cases are built so that every random choice leads to
// the same times: 60 probes per short job (min_probes), and workers running long work that
// Eagle's Succinct State Sharing keeps short probes away from. A probe that lands elsewhere than
// assumed would need all 60 draws to avoid a worker, which has probability below 1e-10.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "schedlab/registry.h"
#include "schedlab/worker.h"
#include "worker_helpers.h"

using namespace schedlab;
using worker_test::make_workload;
using worker_test::run_named;

namespace {

// Attempts of `task`, in launch order.
std::vector<size_t> attempts_of(const SimResult& r, int32_t task) {
  std::vector<size_t> a;
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_task[i] == task) a.push_back(i);
  return a;
}

double extra(SimResult& r, const std::string& name, size_t a) {
  auto it = r.att_extra.find(name);
  return it == r.att_extra.end() ? NAN : it->second[a];
}

const std::vector<double>& series_column(const SimResult& r, const std::string& series, const std::string& column) {
  const TimeSeries& ts = r.series.at(series);
  for (size_t i = 0; i < ts.names.size(); ++i)
    if (ts.names[i] == column) return ts.columns[i];
  throw std::out_of_range(column);
}

ParamValues worker_options(double short_partition) {
  ParamValues o;
  o.numbers["cutoff"] = 50;
  o.numbers["short_partition"] = short_partition;
  return o;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Dice: Elastic Sizing converts a general worker to short work for one window, then gives it back.
//
// 3 workers; short_partition 0.3 -> worker 0 is the short partition, workers 1-2 general.
// MaxSPS 0.67 -> floor(0.67 x 3) - 1 = 1 convertible worker; MaxTWT 10 s; no preemption.
//   L0 (long, t=0, 2 x 100 s): LWL's empty workers 1 and 2: 0.0015 -> 100.0015 on both.
//   S1 (short, t=1, 1 x 30 s): SSS keeps its probes off workers 1-2 (long work): worker 0,
//      1.0015 -> 31.0015 (waiting time 0.0015).
//   S2 (short, t=2, 1 x 20 s): queued on worker 0 behind S1 (whichever round its probes came
//      in): 31.0025 -> 51.0025 (waiting time 29.0025).
//   Window [0, 60): mean waiting time 14.502 s > MaxTWT -> x = 1 -> round(1 x 1) = 1 worker
//      converted: worker 1, next to the short partition, is blacklisted during [60, 120).
//   L3 (long, t=61, 2 x 60 s): worker 1 is blacklisted, worker 2's estimated waiting time is
//      0.001 + 100 - min(61 - 0.0005, 100) = 39.0015: both tasks on worker 2,
//      100.0025 -> 160.0025 and 160.0035 -> 220.0035.
//   S4 (short, t=105, 2 x 10 s): worker 1 drained at 100.0015 and holds no long work, so SSS
//      accepts it: one task on worker 0 and one on worker 1, both 105.0015 -> 115.0015.
//   Window [60, 120): waiting times 0.0015 -> x = 0.00015 -> round(0.00015) = 0: worker 1 is
//      general again.
//   L5 (long, t=121, 1 x 60 s): worker 1 is empty: 121.0015 -> 181.0015.
// Without Elastic Sizing: L3's two tasks tie at 39.0015 on workers 1 and 2 (lower id first), one
// each: 100.0025 -> 160.0025; S4 finds only worker 0 free of long work: 105.0015 -> 115.0015,
// then its sticky probe 115.0025 -> 125.0025; L5 finds no empty worker, both wait
// 0.001 + 60 - min(121 - 100.0015, 60) = 39.0025, so worker 1: 160.0035 -> 220.0035.
TEST(Dice, ElasticSizingConvertsAWorkerForOneWindow) {
  Cluster c = Cluster::uniform(3, 1, 1, 0);
  Workload w = make_workload({{0.0, {100, 100}},
                              {1.0, {30}},
                              {2.0, {20}},
                              {61.0, {60, 60}},
                              {105.0, {10, 10}},
                              {121.0, {60}}});
  ParamValues p;
  p.strings["base"] = "eagle";
  p.numbers["opportunistic_preemption"] = 0;
  p.numbers["max_twt"] = 10;
  p.numbers["max_short_partition"] = 0.67;
  p.numbers["min_probes"] = 60;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    SimResult r = run_named(c, w, "dice", p, worker_options(0.3), seed);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 100.0015);
    EXPECT_DOUBLE_EQ(r.job_finish[1], 31.0015);
    EXPECT_DOUBLE_EQ(r.job_start[2], 31.0025);
    EXPECT_DOUBLE_EQ(r.job_finish[2], 51.0025);
    // L3 on worker 2 only, one task after the other
    for (size_t a : {attempts_of(r, 4)[0], attempts_of(r, 5)[0]}) EXPECT_EQ(r.att_node[a], 2);
    EXPECT_DOUBLE_EQ(r.job_start[3], 100.0025);
    EXPECT_DOUBLE_EQ(r.job_finish[3], 220.0035);
    // S4 uses the converted worker
    const size_t s4a = attempts_of(r, 6)[0], s4b = attempts_of(r, 7)[0];
    EXPECT_EQ(r.att_node[s4a] + r.att_node[s4b], 1);  // workers 0 and 1
    EXPECT_DOUBLE_EQ(r.att_start[s4a], 105.0015);
    EXPECT_DOUBLE_EQ(r.att_start[s4b], 105.0015);
    EXPECT_DOUBLE_EQ(r.job_finish[4], 115.0015);
    // worker 1 is back in the general partition for L5
    EXPECT_EQ(r.att_node[attempts_of(r, 8)[0]], 1);
    EXPECT_DOUBLE_EQ(r.job_start[5], 121.0015);
    EXPECT_DOUBLE_EQ(r.job_finish[5], 181.0015);
    // the controller's record: windows ending at 60, 120, 180 (the run ends at 220.0035)
    const auto& converted = series_column(r, "dice", "converted_nodes");
    ASSERT_EQ(converted.size(), 3u);
    EXPECT_EQ(converted[0], 1);
    EXPECT_EQ(converted[1], 0);
    EXPECT_EQ(converted[2], 0);
    EXPECT_NEAR(series_column(r, "dice", "dice_wait_signal")[0], (0.0015 + 29.0025) / 2, 1e-9);
  }
  p.numbers["elastic_sizing"] = 0;
  SimResult r = run_named(c, w, "dice", p, worker_options(0.3), 0);
  EXPECT_EQ(r.att_node[attempts_of(r, 4)[0]], 1);
  EXPECT_EQ(r.att_node[attempts_of(r, 5)[0]], 2);
  EXPECT_DOUBLE_EQ(r.job_finish[3], 160.0025);
  EXPECT_DOUBLE_EQ(r.job_finish[4], 125.0025);
  for (size_t a : {attempts_of(r, 6)[0], attempts_of(r, 7)[0]}) EXPECT_EQ(r.att_node[a], 0);
  EXPECT_EQ(r.att_node[attempts_of(r, 8)[0]], 1);
  EXPECT_DOUBLE_EQ(r.job_start[5], 160.0035);
  EXPECT_DOUBLE_EQ(r.job_finish[5], 220.0035);
}

// ---------------------------------------------------------------------------------------------
// Dice: Opportunistic Preemption suspends a long task for a short one and resumes it.
//
// 2 workers; short_partition 0.5 -> worker 0 short, worker 1 general; MaxTWT 10 s, square
// model, multiplier 1, CurrSPS 1 (no Elastic Sizing): a full signal sends round(1 x 1 x 1) = 1
// request, to worker 1. Suspend 3 s, resume 10 s, suspension timeout 10 s.
//   L0 (long, t=0, 1 x 300 s): worker 1, 0.0015 -> 300.0015.
//   S1 (short, t=0.0002, 8 x 20 s): L0's probe is still in flight, so SSS sees no long work and
//      S1's probes land on both workers (arriving at 0.0007). Worker 1 is busy with L0, so they
//      wait there. Worker 0 runs S1's tasks back to back (sticky probe): task k starts at
//      0.0017 + 20.001 k.
//   Window [0, 60): tasks 0-2 waited 0.0015, 20.0025, 40.0035 s -> x = 1 -> 1 request.
//   t=60: worker 1 runs L0, nothing suspended, L0 never suspended, S1's probe queued: L0 is
//      suspended with 300.0015 - 60 = 240.0015 s left; the slot is busy until 63.
//   60.0037: worker 0 takes task 3 (60.0047 -> 80.0047).
//   63: worker 1 serves short probes only: task 4, 63.001 -> 83.001 (the timeout expires at 73).
//   80.0047: worker 0 takes task 5 (80.0057 -> 100.0057).
//   83.001: the timeout has passed: L0 resumes after 10 s with its remaining work:
//      93.001 -> 93.001 + 240.0015 = 333.0025. S1's sticky probe stays on worker 1.
//   Worker 0: task 6 100.0067 -> 120.0067, task 7 120.0077 -> 140.0077 (S1 ends).
//   Windows at 120 and 180 (tasks started with waits > 60 s): x = 1, one request each; L0 has
//      been suspended once, the limit with max_preemptions = 1: both ignored. Windows at 240 and
//      300: no short task started, x = 0, no request.
// With max_preemptions = 2 the request at 120 suspends L0 again (S1's probe is still live: task
// 7 launches at 120.0067): 333.0025 - 120 = 213.0025 s left, busy until 123; by then worker 0
// took task 7 and S1 has nothing left, so no short probe remains and L0 resumes at once:
// 133 -> 346.0025. The request at 180 meets the limit.
// Without preemption: L0 300.0015; S1's eight tasks all on worker 0, the last 140.0087 -> 160.0087.
TEST(Dice, OpportunisticPreemptionSuspendsAndResumes) {
  Cluster c = Cluster::uniform(2, 1, 1, 0);
  Workload w = make_workload({{0.0, {300}}, {0.0002, std::vector<double>(8, 20.0)}});
  ParamValues p;
  p.strings["base"] = "eagle";
  p.numbers["elastic_sizing"] = 0;
  p.numbers["max_twt"] = 10;
  p.numbers["min_probes"] = 60;
  p.numbers["suspension_timeout"] = 10;
  p.numbers["max_preemptions"] = 1;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    SimResult r = run_named(c, w, "dice", p, worker_options(0.5), seed);
    const auto l0 = attempts_of(r, 0);
    ASSERT_EQ(l0.size(), 2u);
    EXPECT_DOUBLE_EQ(r.att_start[l0[0]], 0.0015);
    EXPECT_DOUBLE_EQ(r.att_finish[l0[0]], 60.0);
    EXPECT_EQ(r.att_status[l0[0]], kKilled);
    EXPECT_EQ(extra(r, "suspended", l0[0]), 1.0);
    EXPECT_DOUBLE_EQ(r.att_start[l0[1]], 93.001);
    EXPECT_DOUBLE_EQ(r.att_finish[l0[1]], 333.0025);
    EXPECT_EQ(r.att_status[l0[1]], kSucceeded);
    EXPECT_EQ(extra(r, "resumed", l0[1]), 1.0);
    EXPECT_NEAR((r.att_finish[l0[0]] - r.att_start[l0[0]]) + (r.att_finish[l0[1]] - r.att_start[l0[1]]), 300.0, 1e-9);
    // the short task run in the suspension window
    const size_t t4 = attempts_of(r, 1 + 4)[0];
    EXPECT_EQ(r.att_node[t4], 1);
    EXPECT_DOUBLE_EQ(r.att_start[t4], 63.001);
    EXPECT_DOUBLE_EQ(r.att_finish[t4], 83.001);
    EXPECT_DOUBLE_EQ(r.att_start[attempts_of(r, 1 + 5)[0]], 80.0057);
    EXPECT_DOUBLE_EQ(r.job_finish[1], 140.0077);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 333.0025);
    EXPECT_EQ(r.counters["preemption_requests"], 3);
    EXPECT_EQ(r.counters["preempted"], 1);
    EXPECT_EQ(r.counters["preemption_ignored_limit"], 2);
    EXPECT_EQ(r.counters["suspensions"], 1);
    EXPECT_EQ(r.counters["resumptions"], 1);
  }
  p.numbers["max_preemptions"] = 2;
  {
    SimResult r = run_named(c, w, "dice", p, worker_options(0.5), 0);
    const auto l0 = attempts_of(r, 0);
    ASSERT_EQ(l0.size(), 3u);
    EXPECT_DOUBLE_EQ(r.att_finish[l0[1]], 120.0);
    EXPECT_DOUBLE_EQ(r.att_start[l0[2]], 133.0);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 346.0025);
    EXPECT_DOUBLE_EQ(r.job_finish[1], 140.0077);
    EXPECT_EQ(r.counters["preempted"], 2);
    EXPECT_EQ(r.counters["preemption_ignored_limit"], 1);
  }
  p.numbers["opportunistic_preemption"] = 0;
  {
    SimResult r = run_named(c, w, "dice", p, worker_options(0.5), 0);
    EXPECT_DOUBLE_EQ(r.job_finish[0], 300.0015);
    EXPECT_DOUBLE_EQ(r.job_finish[1], 160.0087);
    for (size_t a = 0; a < r.att_task.size(); ++a)
      if (r.att_task[a] > 0) {
        EXPECT_EQ(r.att_node[a], 0);
      }
  }
}

// ---------------------------------------------------------------------------------------------
// Eirene CCDM: inputs migrated while tasks wait make them 15 % shorter, and later tasks start
// earlier.
//
// 2 workers; worker 0 short, worker 1 general; SATC off; CM 10, MPP 2, DMT 6.42 s, TPS 15 %.
//   L0 (long, t=0, 1 x 1000 s): worker 1, which SSS then keeps short probes away from.
//   S1 (short, t=1, 1 x 20 s): its first probe reaches worker 0 at 1.0005, queues a migration of
//      S1's task (6.42 s) and is served at once: 1.0015 -> 21.0015; the migration is cancelled at
//      7.4205 (its task has started).
//   S2 (short, t=2, 2 x 10 s): its probes wait on worker 0; on arrival they migrate both inputs,
//      done by 2.001 + 6.42 < 21. At 21.0015 worker 0 gets a migrated task: 0.85 x 10 = 8.5 s,
//      21.0025 -> 29.5025; its sticky probe gets the other: 29.5035 -> 38.0035.
//   S3 (short, t=3, 1 x 30 s): its remaining work (30) exceeds S2's (20), so SRPT serves S2
//      first; its input is migrated by ~9.42: 38.0045 -> 38.0045 + 25.5 = 63.5045.
// Without CCDM: S2 21.0025 -> 31.0025, 31.0035 -> 41.0035; S3 41.0045 -> 71.0045. The two
// 1.5-s savings start S3 3 s earlier.
TEST(Eirene, ColdDataMigrationShortensTasksAndStartsLaterOnesEarlier) {
  Cluster c = Cluster::uniform(2, 1, 1, 0);
  Workload w = make_workload({{0.0, {1000}}, {1.0, {20}}, {2.0, {10, 10}}, {3.0, {30}}});
  ParamValues p;
  p.numbers["satc"] = 0;
  p.numbers["min_probes"] = 60;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    SimResult r = run_named(c, w, "eirene", p, worker_options(0.5), seed);
    for (size_t a = 0; a < r.att_task.size(); ++a)
      if (r.att_task[a] > 0) {
        EXPECT_EQ(r.att_node[a], 0);
      }
    EXPECT_DOUBLE_EQ(r.job_finish[1], 21.0015);
    const size_t first = std::min(attempts_of(r, 2)[0], attempts_of(r, 3)[0]);
    const size_t second = std::max(attempts_of(r, 2)[0], attempts_of(r, 3)[0]);
    EXPECT_DOUBLE_EQ(r.att_start[first], 21.0025);
    EXPECT_DOUBLE_EQ(r.att_finish[first], 29.5025);
    EXPECT_DOUBLE_EQ(r.att_start[second], 29.5035);
    EXPECT_DOUBLE_EQ(r.job_finish[2], 38.0035);
    EXPECT_DOUBLE_EQ(r.job_start[3], 38.0045);
    EXPECT_DOUBLE_EQ(r.job_finish[3], 63.5045);
    EXPECT_EQ(r.counters["ccdm_beneficiaries"], 3);
    EXPECT_EQ(r.counters["migrations_started"], 4);
    EXPECT_EQ(r.counters["migrations_completed"], 3);
    EXPECT_EQ(r.counters["migrations_cancelled"], 1);
    EXPECT_EQ(r.counters["mfl_migrations"], 0);
  }
  p.numbers["ccdm"] = 0;
  SimResult r = run_named(c, w, "eirene", p, worker_options(0.5), 0);
  EXPECT_DOUBLE_EQ(r.job_finish[2], 41.0035);
  EXPECT_DOUBLE_EQ(r.job_start[3], 41.0045);
  EXPECT_DOUBLE_EQ(r.job_finish[3], 71.0045);
}

// ---------------------------------------------------------------------------------------------
// Eirene SATC: a surplus probe clones a running task; the first copy to finish completes it.
//
// 3 workers (worker 0 short, 1-2 general), no long jobs, CCDM off.
//   S0 (t=0, tasks 40 s and 10 s): SSS accepts every probe; the 60 probes arrive together at
//      0.0005. The first three distinct workers they reach get, in order: task 0 (40 s), task 1
//      (10 s) and a clone of task 0 (every primary has started; task 0 is the earliest running
//      task without a clone). All three start at 0.0015. The clone runs as long as a random task
//      of S0 (PRT): D = 10 or 40 s.
//      D = 10: the clone ends at 10.0015 and completes task 0 (a SATC beneficiary); the primary
//        keeps its slot until 40.0015 and is reported killed and redundant. S0 ends 10.0015.
//      D = 40: both copies end at 40.0015; the primary's end was scheduled first, so it completes
//        the task and the clone is the redundant copy. S0 ends 40.0015.
//   S1 (t=60, 1 x 1 s) keeps the run going past the losing copy's end. Every worker is idle, so
//      its task (60.0015 -> 61.0015) is cloned as well by the second worker its probes reach,
//      with the same start and, PRT drawing from S1's only task, the same end: the primary's end
//      was scheduled first and counts.
TEST(Eirene, CloneRacesItsPrimaryAndOnlyTheFirstCopyCounts) {
  Cluster c = Cluster::uniform(3, 1, 1, 0);
  Workload w = make_workload({{0.0, {40, 10}}, {60.0, {1}}});
  ParamValues p;
  p.numbers["ccdm"] = 0;
  p.strings["clone_task"] = "first";  // the earliest running task is cloned (default: a random one)
  p.numbers["min_probes"] = 60;
  int clone_won = 0, primary_won = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SimResult r = run_named(c, w, "eirene", p, worker_options(0.3), seed);
    const auto t0 = attempts_of(r, 0);
    ASSERT_EQ(t0.size(), 2u);
    const size_t primary = t0[0], clone = t0[1];
    EXPECT_EQ(r.att_speculative[primary], 0);
    EXPECT_EQ(r.att_speculative[clone], 1);
    EXPECT_NE(r.att_node[primary], r.att_node[clone]);
    EXPECT_DOUBLE_EQ(r.att_start[primary], 0.0015);
    EXPECT_DOUBLE_EQ(r.att_start[clone], 0.0015);
    EXPECT_DOUBLE_EQ(r.att_finish[primary], 40.0015);
    EXPECT_DOUBLE_EQ(r.att_start[attempts_of(r, 1)[0]], 0.0015);
    EXPECT_EQ(r.counters["clones"], 2);
    const double d = r.att_finish[clone] - r.att_start[clone];
    if (std::abs(d - 10) < 1e-9) {
      ++clone_won;
      EXPECT_EQ(r.att_status[clone], kSucceeded);
      EXPECT_EQ(r.att_status[primary], kKilled);
      EXPECT_EQ(extra(r, "redundant", primary), 1.0);
      EXPECT_DOUBLE_EQ(r.job_finish[0], 10.0015);
      EXPECT_EQ(r.counters["satc_beneficiaries"], 1);
    } else {
      EXPECT_NEAR(d, 40, 1e-9);
      ++primary_won;
      EXPECT_EQ(r.att_status[primary], kSucceeded);
      EXPECT_EQ(r.att_status[clone], kKilled);
      EXPECT_EQ(extra(r, "redundant", clone), 1.0);
      EXPECT_DOUBLE_EQ(r.job_finish[0], 40.0015);
      EXPECT_EQ(r.counters["satc_beneficiaries"], 0);
    }
    const auto t1 = attempts_of(r, 2);
    ASSERT_EQ(t1.size(), 2u);
    for (size_t a : t1) {
      EXPECT_DOUBLE_EQ(r.att_start[a], 60.0015);
      EXPECT_DOUBLE_EQ(r.att_finish[a], 61.0015);
    }
    EXPECT_EQ(r.att_status[t1[0]], kSucceeded);
    EXPECT_EQ(r.att_status[t1[1]], kKilled);
    EXPECT_DOUBLE_EQ(r.job_finish[1], 61.0015);
  }
  // PRT draws 10 or 40 with probability 1/2 each: both outcomes occur in 20 seeds
  EXPECT_GT(clone_won, 0);
  EXPECT_GT(primary_won, 0);
}

// ---------------------------------------------------------------------------------------------
// Eirene kill_losing_clone: the losing copy stops at the winner's finish + 2 x 0.0005 and its
// worker serves its queue from then on.
//
// The clone case above with S1 (t=1, 3 x 5 s) queued everywhere (its probes reach all three busy
// workers at 1.0005) and S2 (t=60, 1 x 1 s) at the end. X runs task 0's primary, Y task 1, Z the
// clone of task 0.
//   D = 10, option off: at 10.0015 Y (task 1 ended first) and Z (the clone completed task 0) take
//      S1's tasks a and b: 10.0025 -> 15.0025. X keeps its redundant primary until 40.0015. At
//      15.0025 Y's sticky probe gets task c: 15.0035 -> 20.0035 (Z's probe, asking before the
//      remaining-time update, clones c with the same times; the primary wins the tie). S1 ends
//      20.0035.
//   D = 10, option on: the primary on X is stopped at 10.0015 + 0.001 = 10.0025 (29.999 s of
//      slot time saved); X takes task c at once: 10.0035 -> 15.0035, and S1 ends 15.0035, 5 s
//      earlier.
//   D = 40: the two copies end together at 40.0015 and the primary wins; the clone's own end
//      (40.0015) comes before the stop could (40.0025): nothing is stopped, and both runs are
//      identical: Y runs S1's three tasks, the last 20.0045 -> 25.0045.
//   S2's task and its clone end together at 61.0015 (the primary wins): nothing to stop.
TEST(Eirene, KillLosingCloneFreesItsSlot) {
  Cluster c = Cluster::uniform(3, 1, 1, 0);
  Workload w = make_workload({{0.0, {40, 10}}, {1.0, {5, 5, 5}}, {60.0, {1}}});
  ParamValues p;
  p.numbers["ccdm"] = 0;
  p.strings["clone_task"] = "first";  // the earliest running task is cloned (default: a random one)
  p.numbers["min_probes"] = 60;
  ParamValues kill = p;
  kill.numbers["kill_losing_clone"] = 1;
  int stopped = 0, not_stopped = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SimResult off = run_named(c, w, "eirene", p, worker_options(0.3), seed);
    SimResult on = run_named(c, w, "eirene", kill, worker_options(0.3), seed);
    EXPECT_EQ(off.counters.count("clones_killed"), 0u);
    const auto t0 = attempts_of(on, 0);
    ASSERT_EQ(t0.size(), 2u);
    const size_t primary = t0[0], clone = t0[1];
    const double d = on.att_finish[clone] - on.att_start[clone];
    const int32_t x = on.att_node[primary];
    EXPECT_DOUBLE_EQ(on.job_finish[0], d < 20 ? 10.0015 : 40.0015);
    EXPECT_DOUBLE_EQ(on.job_finish[2], 61.0015);
    EXPECT_DOUBLE_EQ(off.job_finish[2], 61.0015);
    if (std::abs(d - 10) < 1e-9) {
      ++stopped;
      // the losing primary: stopped after the notification's round trip, reported redundant
      EXPECT_DOUBLE_EQ(on.att_finish[primary], 10.0025);
      EXPECT_EQ(on.att_status[primary], kKilled);
      EXPECT_EQ(extra(on, "redundant", primary), 1.0);
      EXPECT_DOUBLE_EQ(off.att_finish[attempts_of(off, 0)[0]], 40.0015);
      // its slot serves S1's task c at once
      const size_t c_on = attempts_of(on, 4)[0];
      EXPECT_EQ(on.att_node[c_on], x);
      EXPECT_DOUBLE_EQ(on.att_start[c_on], 10.0035);
      EXPECT_DOUBLE_EQ(on.job_finish[1], 15.0035);
      EXPECT_DOUBLE_EQ(off.att_start[attempts_of(off, 4)[0]], 15.0035);
      EXPECT_DOUBLE_EQ(off.job_finish[1], 20.0035);
      EXPECT_EQ(on.counters["clones_killed"], 1);
      EXPECT_NEAR(on.counters["clone_slot_time_saved"], 40.0015 - 10.0025, 1e-9);
      EXPECT_EQ(on.counters["clones"], 2);
      EXPECT_EQ(off.counters["clones"], 3);
    } else {
      ++not_stopped;
      EXPECT_NEAR(d, 40, 1e-9);
      EXPECT_EQ(on.counters["clones_killed"], 0);
      EXPECT_EQ(on.counters["clone_slot_time_saved"], 0);
      EXPECT_DOUBLE_EQ(on.job_finish[1], 25.0045);
      ASSERT_EQ(on.att_task.size(), off.att_task.size());
      for (size_t a = 0; a < on.att_task.size(); ++a) {
        EXPECT_EQ(on.att_start[a], off.att_start[a]);
        EXPECT_EQ(on.att_finish[a], off.att_finish[a]);
        EXPECT_EQ(on.att_status[a], off.att_status[a]);
      }
    }
    // exactly one copy of each task succeeds
    std::vector<int> ok(w.n_tasks(), 0);
    for (size_t a = 0; a < on.att_task.size(); ++a)
      if (on.att_status[a] == kSucceeded) ok[on.att_task[a]]++;
    for (int k : ok) EXPECT_EQ(k, 1);
  }
  EXPECT_GT(stopped, 0);
  EXPECT_GT(not_stopped, 0);
}

TEST(Eirene, KillLosingCloneIsValidated) {
  Cluster c = Cluster::uniform(3, 1, 1, 0);
  Workload w = make_workload({{0.0, {1}}});
  ParamValues p;
  p.numbers["kill_losing_clone"] = 0.5;
  EXPECT_THROW(run_named(c, w, "eirene", p, worker_options(0.3)), std::invalid_argument);
  p.numbers["kill_losing_clone"] = 2;
  EXPECT_THROW(run_named(c, w, "eirene", p, worker_options(0.3)), std::invalid_argument);
}
