// FRESH-static's offline slot-split search (Algorithm 3.3.1 of the Wang dissertation, spec
// Wang 2017, §3.3.1, Algorithm 3.3.1), usable without running a simulation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/workload.h"

namespace schedlab::mr {

struct FreshSplitOptions {
  int64_t k = 0;                      // admission control; 0 = no limit (k = number of jobs)
  bool share_by_set_size = true;      // c_m = s_m/|M| (the pseudo-code, default) or s_m/k (the text)
  bool literal_deduction = false;     // deduct w_m(u) as printed instead of the remaining W_u
  double network_bandwidth = 1.25e8;  // bytes/s: a reduce's profile includes its shuffle time
};

struct FreshSplit {
  int32_t map_slots = 0;               // the chosen cluster-wide s_m
  int32_t reduce_slots = 0;            // S - s_m
  double makespan = 0;                 // the fluid model's makespan for that split
  std::vector<double> makespan_by_split;  // index s_m = 1 .. S-1 (index 0 and S unused: NaN)
  std::vector<int32_t> node_map_slots;    // the split laid out over the nodes
  std::vector<int32_t> node_reduce_slots;
};

// Job profiles are the workload's estimates: t_m(i) = mean map estimate, t_r(i) = mean reduce
// estimate plus mean shuffle time (input bytes / bandwidth). Jobs enter M in workload order.
// Throws std::invalid_argument if the cluster has fewer than 2 slots.
FreshSplit fresh_static_split(const Cluster& cluster, const Workload& workload, const FreshSplitOptions& opt);

// Lays a cluster-wide number of map slots over the nodes round-robin, one slot per node per
// pass, keeping each node's total (map + reduce) slots.
void spread_map_slots(const Cluster& cluster, int32_t map_slots, std::vector<int32_t>& node_map,
                      std::vector<int32_t>& node_reduce);

}  // namespace schedlab::mr
