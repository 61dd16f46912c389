// The cluster model: racks of nodes. A node has typed Hadoop-1 slots (map/reduce), a generic
// slot count (Sparrow-style workers), a <vcores, memory> capacity (YARN containers), a speed
// factor for heterogeneity, and integer attributes for placement constraints.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct Cluster {
  std::vector<int32_t> rack;          // rack id per node, 0 .. n_racks-1
  std::vector<double> speed;          // work done per second of wall time (1 = reference)
  std::vector<int32_t> map_slots;     // Hadoop-1 typed slots
  std::vector<int32_t> reduce_slots;
  std::vector<int32_t> slots;         // generic slots (worker queues); map+reduce by default
  std::vector<double> vcores;         // container capacity
  std::vector<double> memory;
  std::vector<int32_t> node_type;     // performance/attribute class (heterogeneity experiments)
  int32_t n_racks = 1;

  size_t size() const { return speed.size(); }

  // Throws std::invalid_argument naming the offending field and node.
  void validate() const;

  // A homogeneous cluster with nodes spread round-robin over racks... in contiguous blocks
  // (node i is in rack i * racks / nodes), as a rack-aware Hadoop topology lays them out.
  static Cluster uniform(int nodes, int racks, int map_slots, int reduce_slots, double speed = 1.0);
};

}  // namespace schedlab
