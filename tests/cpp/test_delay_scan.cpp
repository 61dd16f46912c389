// Delay scheduling's whole-scan skip (DelayScheduling::skip_all) and the engine's place-index
// queries behind fair's shortcut for scans that cannot launch (Sim::fresh_map_on,
// fresh_map_on_rack, maps_found_by_place).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../cpp/src/schedulers/mr_common.h"
#include "schedlab/random.h"

using namespace schedlab;
using namespace schedlab::mr;

namespace {

// Pending jobs that nobody launches: heartbeats go on until the time limit.
Workload idle_jobs(int32_t jobs) {
  Workload w;
  w.replica_begin.push_back(0);
  for (int32_t j = 0; j < jobs; ++j) {
    w.submit_time.push_back(0);
    w.task_job.push_back(j);
    w.task_stage.push_back(kMap);
    w.work.push_back(1);
    w.replica_node.push_back(0);
    w.replica_begin.push_back(int64_t(w.replica_node.size()));
  }
  w.finalize();
  return w;
}

// Drives two DelaySchedulings with the same random history: `whole` is told of whole-scan skips
// with skip_all, `each` gets skipped() for every member. Their waits must agree to the bit,
// also when members enter, leave or launch around a whole-scan skip.
class TwinDelay : public Scheduler {
 public:
  DelayScheduling whole, each;
  std::vector<uint8_t> member;
  Random rng{7};
  int64_t compared = 0, whole_scans = 0, shortcut_true = 0;
  double delay = 2.5;
  void init(Sim& sim) override {
    whole.init(sim, delay);
    each.init(sim, delay);
    member.assign(sim.workload().n_jobs(), 0);
  }
  void on_heartbeat(Sim& sim, int32_t) override {
    whole.on_heartbeat(sim);
    each.on_heartbeat(sim);
    const int32_t n = int32_t(member.size());
    // membership changes, as at the start of a heartbeat
    for (int k = 0; k < 2; ++k) {
      const int32_t j = int32_t(rng.below(uint64_t(n)));
      if (rng.uniform() < 0.3) {
        member[j] ? whole.leave(j) : whole.enter(j);
        member[j] ? each.leave(j) : each.enter(j);
        member[j] ^= 1;
      }
    }
    // one or two scans: partial (a random prefix skipped, maybe a launch) or whole
    const int scans = 1 + int(rng.below(2));
    for (int s = 0; s < scans; ++s) {
      std::vector<int32_t> order;
      for (int32_t j = 0; j < n; ++j)
        if (member[j]) order.push_back(j);
      if (rng.uniform() < 0.85) {
        ++whole_scans;
        whole.skip_all();
        for (int32_t j : order) each.skipped(j);
      } else {
        const size_t stop = order.empty() ? 0 : size_t(rng.below(order.size()));
        for (size_t i = 0; i < stop; ++i) { whole.skipped(order[i]); each.skipped(order[i]); }
        if (stop < order.size()) {
          const Locality l = Locality(rng.below(3));
          whole.launched(order[stop], l);
          each.launched(order[stop], l);
          if (rng.uniform() < 0.5) {  // its last map went: it leaves the scan
            whole.leave(order[stop]);
            each.leave(order[stop]);
            member[order[stop]] = 0;
          }
        }
      }
    }
    // the shortcut's answer must follow from the exact waits
    std::vector<uint8_t> rack_has(member.size());
    for (auto& r : rack_has) r = rng.uniform() < 0.3;
    const bool none = whole.none_may_launch_off_node([&](int32_t j) { return rack_has[j] != 0; });
    shortcut_true += none;
    for (int32_t j = 0; j < n; ++j) {
      if (!member[j] && rng.uniform() < 0.8) continue;  // (reading a non-member changes nothing either)
      ASSERT_EQ(whole.waited(j), each.waited(j)) << "job " << j << " at t=" << sim.now();
      const Locality a = each.allowed(j);
      ASSERT_EQ(whole.allowed(j), a);
      if (none && member[j]) ASSERT_TRUE(a == kNodeLocal || (a == kRackLocal && !rack_has[j])) << "job " << j;
      ++compared;
    }
  }
};

// Checks, at every heartbeat, the index queries against find_map, then launches greedily.
class IndexProbe : public Scheduler {
 public:
  int64_t checked = 0, by_place = 0;
  void on_heartbeat(Sim& sim, int32_t node) override {
    const int32_t rack = sim.cluster().rack[node];
    const bool by_index = sim.maps_found_by_place();
    by_place += by_index;
    bool any_node_local = false;
    for (int32_t j : sim.active_jobs()) {
      const bool node_local = sim.find_map(j, node, kNodeLocal) >= 0;
      any_node_local |= node_local;
      if (by_index && !sim.fresh_map_on(node)) {
        EXPECT_FALSE(node_local) << "job " << j << " node " << node;
        EXPECT_EQ(sim.find_map(j, node, kRackLocal) >= 0, sim.fresh_map_on_rack(j, rack)) << "job " << j << " rack " << rack;
        ++checked;
      }
    }
    if (by_index) EXPECT_EQ(any_node_local, sim.fresh_map_on(node)) << "node " << node << " t=" << sim.now();
    for (int32_t j : sim.active_jobs()) {
      while (sim.free_slots(node, kMap) > 0) {
        // node-local first, else rack-local: fresh maps stay spread over places for longer
        int32_t t = sim.find_map(j, node, kRackLocal);
        if (t < 0 && sim.now() > 40) t = sim.find_map(j, node, kRemote);
        if (t < 0) break;
        sim.launch(t, node);
      }
      if (sim.free_slots(node, kReduce) > 0 && sim.reduces_allowed(j)) {
        const int32_t t = sim.find_reduce(j);
        if (t >= 0) sim.launch(t, node);
      }
    }
  }
};
}  // namespace

TEST(DelayScan, SkipAllGivesTheWaitsOfSkippingEachMember) {
  const Cluster c = Cluster::uniform(3, 1, 1, 1);
  const Workload w = idle_jobs(12);
  TwinDelay twin;
  Options o;
  o.heartbeat_interval = 0.37;  // waits that are not exact in binary
  o.time_limit = 3000;          // ~24,000 heartbeats
  Sim sim(c, w, twin, o, 0);
  sim.run();
  EXPECT_GT(twin.compared, 50000);
  EXPECT_GT(twin.whole_scans, 20000);
  EXPECT_GT(twin.shortcut_true, 1000);  // the shortcut's answer was checked both ways
  EXPECT_LT(twin.shortcut_true, 20000);
}

TEST(DelayScan, IndexQueriesAgreeWithFindMapUnderCrashes) {
  const Cluster c = Cluster::uniform(24, 4, 1, 1);
  Workload w;
  Random rng(3);
  w.replica_begin.push_back(0);
  for (int32_t j = 0; j < 30; ++j) {
    w.submit_time.push_back(5.0 * j);
    for (int k = 0; k < 14; ++k) {
      w.task_job.push_back(j);
      w.task_stage.push_back(k < 12 ? kMap : kReduce);
      w.work.push_back(1 + rng.exponential(8.0));
      if (k < 12)
        for (int r = 0; r < 2; ++r) w.replica_node.push_back(int32_t(rng.below(24)));
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
  }
  w.finalize();
  IndexProbe probe;
  Options o;
  o.heartbeat_interval = 1;
  o.detection_delay = 5;
  o.faults = "crash:3:20:30;crash:7:60:10;crash:11:90:40";  // lost outputs and failed attempts re-queue maps
  Sim sim(c, w, probe, o, 0);
  const SimResult r = sim.run();
  for (double f : r.job_finish) EXPECT_TRUE(std::isfinite(f));
  EXPECT_GT(probe.checked, 1000);
  EXPECT_GT(r.counters.at("failed_attempts") + r.counters.at("lost_map_outputs"), 0);
  EXPECT_LT(probe.by_place, int64_t(r.counters.at("heartbeats")));  // re-queued maps were seen
  EXPECT_GT(probe.by_place, 0);
}
