// The engine's place-index queries behind fair's shortcut for map scans that cannot launch
// (Sim::fresh_map_on, fresh_map_on_node, fresh_map_on_rack, maps_found_by_place): where they say
// no job has a map for a node, find_map finds none either (a clear bit is exact); a set bit is
// a hint, which a lookup confirms or clears, and which confirm_fresh_map_on(_rack) makes exact.
#include <gtest/gtest.h>

#include <cmath>

#include "schedlab/mapreduce.h"
#include "schedlab/random.h"

using namespace schedlab;
using namespace schedlab::mr;

namespace {

// Checks, at every heartbeat, the index queries against find_map, then launches greedily.
class IndexProbe : public Scheduler {
 public:
  int64_t checked = 0, by_place = 0, stale_hints = 0, heartbeats = 0;
  void on_heartbeat(Sim& sim, int32_t node) override {
    const int32_t rack = sim.cluster().rack[node];
    const bool by_index = sim.maps_found_by_place();
    by_place += by_index;
    bool any_node_local = false;
    // every other heartbeat, the node's row of hints is confirmed first (fair's shortcut does)
    const bool confirm = (++heartbeats & 1) != 0;
    const bool confirmed = confirm && sim.confirm_fresh_map_on(node);
    for (int32_t j : sim.active_jobs()) {
      const bool row_hint = sim.fresh_map_on(node), node_hint = sim.fresh_map_on_node(j, node);
      const bool rack_hint = sim.fresh_map_on_rack(j, rack);
      const bool rack_confirmed = confirm && sim.confirm_fresh_map_on_rack(j, rack);
      const bool node_local = sim.find_map(j, node, kNodeLocal) >= 0;
      const bool rack_local = sim.find_map(j, node, kRackLocal) >= 0;
      any_node_local |= node_local;
      if (!by_index) continue;
      EXPECT_FALSE(node_local && !(row_hint && node_hint)) << "job " << j << " node " << node;
      EXPECT_FALSE(rack_local && !(rack_hint || node_hint)) << "job " << j << " rack " << rack;
      // after the lookups the bits say what they found
      EXPECT_EQ(node_local, sim.fresh_map_on_node(j, node)) << "job " << j << " node " << node;
      EXPECT_EQ(rack_local, sim.fresh_map_on_rack(j, rack)) << "job " << j << " rack " << rack;
      if (confirm) EXPECT_EQ(rack_local, rack_confirmed) << "job " << j << " rack " << rack;
      stale_hints += (node_hint && !node_local) + (rack_hint && !rack_local);
      ++checked;
    }
    if (by_index) EXPECT_EQ(any_node_local, sim.fresh_map_on(node)) << "node " << node << " t=" << sim.now();
    if (by_index && confirm) EXPECT_EQ(any_node_local, confirmed) << "node " << node << " t=" << sim.now();
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

TEST(PlaceIndex, QueriesAgreeWithFindMapUnderCrashes) {
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
  EXPECT_GT(probe.stale_hints, 0);  // launches elsewhere left hints that lookups cleared
}
