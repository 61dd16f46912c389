// Hand-computed EAS (Zhao et al. 2013, §4) and DynamicMR DHSA / PreScheduling (Sagar & Moni 2015, §III) schedules.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "schedlab/registry.h"
#include "schedlab/workload.h"

using namespace schedlab;

namespace {

struct Task {
  int32_t job;
  uint8_t stage;
  double work;
  double bytes;
  std::vector<int32_t> replicas;
};

Workload build(const std::vector<double>& submit, const std::vector<Task>& tasks) {
  Workload w;
  w.submit_time = submit;
  w.user.assign(submit.size(), 0);
  w.replica_begin.push_back(0);
  for (const Task& t : tasks) {
    w.task_job.push_back(t.job);
    w.task_stage.push_back(t.stage);
    w.work.push_back(t.work);
    w.input_bytes.push_back(t.bytes);
    for (int32_t r : t.replicas) w.replica_node.push_back(r);
    w.replica_begin.push_back(int64_t(w.replica_node.size()));
  }
  w.finalize();
  return w;
}

Cluster typed(std::vector<int32_t> maps, std::vector<int32_t> reduces) {
  Cluster c = Cluster::uniform(int(maps.size()), 1, 1, 1);
  c.map_slots = std::move(maps);
  c.reduce_slots = std::move(reduces);
  return c;
}

SimResult run_one(const Cluster& c, const Workload& w, const std::string& sched, ParamValues params = {}) {
  RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = sched;
  r.scheduler_params = std::move(params);
  r.options.numbers["heartbeat_interval"] = 1.0;
  return run(r);
}

struct Span {
  int32_t node;
  double start, finish;
  int slot_type;
};
std::map<int32_t, Span> spans(const SimResult& r) {
  std::map<int32_t, Span> out;
  for (size_t i = 0; i < r.att_task.size(); ++i)
    out[r.att_task[i]] = {r.att_node[i], r.att_start[i], r.att_finish[i], int(r.att_slot_type[i])};
  return out;
}

}  // namespace

// Map machines 0 and 1 (one slot), reduce machine 2. A (t=0): maps of 10 s and 20 s on {0, 1};
// C (t=1): a map on {1}; B (t=2): a map on {0}. At t=10 node 1 still has 50 of 100 bytes to
// read, so Algorithm 1 prefers B (loads [100, 50], std 25) to C ([0, 150], std 75).
TEST(EasSchedule, LoadBalanceSelectionAndLeastLoadedPlacement) {
  const Cluster c = typed({1, 1, 0}, {0, 0, 1});
  const Workload w = build({0, 1, 2}, {{0, kMap, 10, 100, {0, 1}}, {0, kMap, 20, 100, {0, 1}}, {0, kReduce, 5, 0, {}},
                                      {1, kMap, 4, 100, {1}}, {1, kReduce, 2, 0, {}},
                                      {2, kMap, 4, 100, {0}}, {2, kReduce, 3, 0, {}}});
  const auto s = spans(run_one(c, w, "eas"));
  EXPECT_EQ(s.at(0).node, 0);
  EXPECT_EQ(s.at(1).node, 1);
  EXPECT_DOUBLE_EQ(s.at(5).start, 10.0);  // B's map first
  EXPECT_DOUBLE_EQ(s.at(5).finish, 14.0);
  EXPECT_DOUBLE_EQ(s.at(3).start, 20.0);  // C's map queued on node 1 behind A's
  EXPECT_DOUBLE_EQ(s.at(6).start, 14.0);  // B's reduce
  EXPECT_DOUBLE_EQ(s.at(2).start, 20.0);  // A's reduce
  EXPECT_DOUBLE_EQ(s.at(4).finish, 27.0);  // C's reduce, after A's
}

// One node, one map and one reduce slot; two 10 s maps and a 5 s reduce. PI-DHSA's case 2 lends
// the idle reduce slot to the second map at t=0.
TEST(DynamicMRSchedule, MapBorrowsIdleReduceSlot) {
  const Cluster c = typed({1}, {1});
  const Workload w = build({0}, {{0, kMap, 10, 0, {0}}, {0, kMap, 10, 0, {0}}, {0, kReduce, 5, 0, {}}});
  for (const char* name : {"pi_dhsa", "pd_dhsa", "dynamicmr"}) {
    const auto s = spans(run_one(c, w, name));
    EXPECT_DOUBLE_EQ(s.at(1).start, 0.0) << name;
    EXPECT_EQ(s.at(1).slot_type, int(kReduce)) << name;
    EXPECT_DOUBLE_EQ(s.at(2).start, 10.0) << name;
    EXPECT_DOUBLE_EQ(s.at(2).finish, 15.0) << name;
  }
  const auto f = spans(run_one(c, w, "fair"));
  EXPECT_DOUBLE_EQ(f.at(1).start, 10.0);
  EXPECT_DOUBLE_EQ(f.at(2).finish, 25.0);
}

// Two nodes with two map slots; both blocks of a two-map job on node 0. HFS's cap allows one map
// per node; PreScheduling starts the second node-locally in node 0's extra slot.
TEST(DynamicMRSchedule, PreSchedulingUsesExtraIdleSlot) {
  const Cluster c = typed({2, 2}, {1, 1});
  const Workload w = build({0}, {{0, kMap, 10, 0, {0}}, {0, kMap, 10, 0, {0}}});
  ParamValues p;
  p.strings["dhsa"] = "none";
  const auto s = spans(run_one(c, w, "dynamicmr", p));
  EXPECT_EQ(s.at(1).node, 0);
  EXPECT_DOUBLE_EQ(s.at(1).start, 0.0);
  const auto f = spans(run_one(c, w, "fair"));
  EXPECT_EQ(f.at(1).node, 1);
  EXPECT_DOUBLE_EQ(f.at(1).start, 3.5);
  EXPECT_DOUBLE_EQ(f.at(1).finish, 15.5);
}

// Many attempts (the engine's attempt table grows while the schedulers hold attempt ids): every
// job finishes under each scheduler; run under the sanitizers by the test script.
TEST(EasDynamicMR, LargerWorkloadCompletes) {
  std::vector<double> submit;
  std::vector<Task> tasks;
  for (int32_t j = 0; j < 30; ++j) {
    submit.push_back(3.0 * j);
    for (int m = 0; m < 12; ++m)
      tasks.push_back({j, kMap, 5.0 + (j * 7 + m * 3) % 11, 64.0, {(j + m) % 6, (j + 2 * m + 1) % 6, (3 * j + m + 2) % 6}});
    for (int r = 0; r < 3; ++r) tasks.push_back({j, kReduce, 4.0 + (j + r) % 5, 100.0, {}});
  }
  const Workload w = build(submit, tasks);
  const Cluster dedicated = typed({2, 2, 2, 2, 2, 2, 0, 0}, {0, 0, 0, 0, 0, 0, 2, 2});
  const Cluster mixed = typed({2, 2, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1});
  for (const auto& [cluster, name] : std::vector<std::pair<const Cluster*, std::string>>{
           {&dedicated, "eas"}, {&mixed, "pi_dhsa"}, {&mixed, "pd_dhsa"}, {&mixed, "dynamicmr"}}) {
    const SimResult r = run_one(*cluster, w, name);
    for (size_t j = 0; j < w.n_jobs(); ++j) EXPECT_TRUE(std::isfinite(r.job_finish[j])) << name << " job " << j;
  }
}

// DynamicMR on Hadoop FIFO (base = "fifo", paper Fig. 10). One node with one map and one reduce
// slot; A (t=0): two 10 s maps; B (t=0, after A): a 4 s map and a 3 s reduce. At t=0 PI-DHSA's
// case 2 holds (D_M = 3 > N_M = 1, D_R = 0 < N_R = 1: B's reduce waits for slowstart) and lends
// the idle reduce slot to one map, min(3 - 1, floor(1 x 1)) = 1. FIFO order gives it to A's
// second map, [0, 10]; B's map runs at 10 in the map slot, its reduce at 14 (slowstart: its one
// map done): B ends at 17. On the Fair base the lent slot goes to B (fewer running tasks):
// B's map [0, 4], then B's reduce takes its own slot, [4, 7], and only then does A's second map
// borrow it, [7, 17]. Plain FIFO runs everything in turn.
TEST(DynamicMRSchedule, FifoBaseLendsIdleReduceSlotInFifoOrder) {
  const Cluster c = typed({1}, {1});
  const Workload w = build({0, 0}, {{0, kMap, 10, 0, {0}}, {0, kMap, 10, 0, {0}},
                                    {1, kMap, 4, 0, {0}}, {1, kReduce, 3, 0, {}}});
  ParamValues fifo_base;
  fifo_base.strings["base"] = "fifo";
  for (const char* name : {"pi_dhsa", "dynamicmr"}) {
    const SimResult r = run_one(c, w, name, fifo_base);
    const auto s = spans(r);
    EXPECT_DOUBLE_EQ(s.at(0).start, 0.0) << name;
    EXPECT_EQ(s.at(0).slot_type, int(kMap)) << name;
    EXPECT_DOUBLE_EQ(s.at(1).start, 0.0) << name;  // A's second map in the lent reduce slot
    EXPECT_DOUBLE_EQ(s.at(1).finish, 10.0) << name;
    EXPECT_EQ(s.at(1).slot_type, int(kReduce)) << name;
    EXPECT_DOUBLE_EQ(s.at(2).start, 10.0) << name;  // B's map after A's
    EXPECT_EQ(s.at(2).slot_type, int(kMap)) << name;
    EXPECT_DOUBLE_EQ(s.at(3).start, 14.0) << name;
    EXPECT_DOUBLE_EQ(s.at(3).finish, 17.0) << name;
    EXPECT_DOUBLE_EQ(r.job_finish[0], 10.0) << name;
    EXPECT_DOUBLE_EQ(r.counters.at("dhsa_maps_in_reduce_slots"), 1.0) << name;
  }
  const auto fair = spans(run_one(c, w, "pi_dhsa"));  // the Fair base lends the slot to B first
  EXPECT_DOUBLE_EQ(fair.at(2).start, 0.0);
  EXPECT_EQ(fair.at(2).slot_type, int(kReduce));
  EXPECT_DOUBLE_EQ(fair.at(3).start, 4.0);
  EXPECT_DOUBLE_EQ(fair.at(3).finish, 7.0);
  EXPECT_DOUBLE_EQ(fair.at(1).start, 7.0);
  EXPECT_DOUBLE_EQ(fair.at(1).finish, 17.0);
  const auto fifo = spans(run_one(c, w, "fifo"));  // no borrowing: one map at a time
  EXPECT_DOUBLE_EQ(fifo.at(1).start, 10.0);
  EXPECT_DOUBLE_EQ(fifo.at(2).start, 20.0);
  EXPECT_DOUBLE_EQ(fifo.at(3).finish, 27.0);
}

// Slot weights: a 2 s map and two 10 s reduces on one node with one reduce slot. After the map
// (t=2), PI-DHSA's case 3 lends map slots to the second reduce. With w_R = 2 w_M that reduce
// needs ceil(2 / 1) = 2 map slots: with one map slot it cannot borrow and runs [12, 22]; with two
// it holds both, [2, 12]. With w_M = 2 w_R a reduce fits one map slot (ceil(1/2) -> 1) as in the
// plain case, while a map would need two reduce slots.
TEST(DynamicMRSchedule, SlotWeightsSetHowManySlotsABorrowerHolds) {
  const Workload w = build({0}, {{0, kMap, 2, 0, {0}}, {0, kReduce, 10, 0, {}}, {0, kReduce, 10, 0, {}}});
  ParamValues heavy_reduce;
  heavy_reduce.numbers["reduce_slot_weight"] = 2.0;
  ParamValues heavy_map;
  heavy_map.numbers["map_slot_weight"] = 2.0;

  const auto plain = spans(run_one(typed({1}, {1}), w, "pi_dhsa"));
  EXPECT_DOUBLE_EQ(plain.at(2).start, 2.0);
  EXPECT_EQ(plain.at(2).slot_type, int(kMap));

  const SimResult one = run_one(typed({1}, {1}), w, "pi_dhsa", heavy_reduce);
  const auto s1 = spans(one);
  EXPECT_DOUBLE_EQ(s1.at(2).start, 12.0);  // one map slot is too small for the reduce
  EXPECT_DOUBLE_EQ(s1.at(2).finish, 22.0);
  EXPECT_EQ(s1.at(2).slot_type, int(kReduce));
  EXPECT_DOUBLE_EQ(one.counters.at("dhsa_reduces_in_map_slots"), 0.0);

  const SimResult two = run_one(typed({2}, {1}), w, "pi_dhsa", heavy_reduce);
  const auto s2 = spans(two);
  EXPECT_DOUBLE_EQ(s2.at(2).start, 2.0);
  EXPECT_DOUBLE_EQ(s2.at(2).finish, 12.0);
  EXPECT_EQ(s2.at(2).slot_type, int(kMap));
  for (size_t i = 0; i < two.att_task.size(); ++i)  // the borrowing reduce holds both map slots
    EXPECT_DOUBLE_EQ(two.att_extra.at("slots")[i], two.att_task[i] == 2 ? 2.0 : 1.0);

  const auto light = spans(run_one(typed({1}, {1}), w, "pi_dhsa", heavy_map));
  EXPECT_DOUBLE_EQ(light.at(2).start, 2.0);
  EXPECT_EQ(light.at(2).slot_type, int(kMap));
  // maps twice a reduce slot: the second map of MapBorrowsIdleReduceSlot cannot borrow the one reduce slot
  const Workload maps = build({0}, {{0, kMap, 10, 0, {0}}, {0, kMap, 10, 0, {0}}, {0, kReduce, 5, 0, {}}});
  const auto m = spans(run_one(typed({1}, {1}), maps, "pi_dhsa", heavy_map));
  EXPECT_DOUBLE_EQ(m.at(1).start, 10.0);
  EXPECT_EQ(m.at(1).slot_type, int(kMap));
  ParamValues fifo_heavy_map = heavy_map;
  fifo_heavy_map.strings["base"] = "fifo";
  EXPECT_DOUBLE_EQ(spans(run_one(typed({1}, {2}), maps, "pi_dhsa", fifo_heavy_map)).at(1).start, 0.0);  // two reduce slots: it borrows both
}
