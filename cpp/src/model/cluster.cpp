#include "schedlab/cluster.h"

#include <cmath>
#include <stdexcept>

namespace schedlab {

static void check_size(const char* field, size_t got, size_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("cluster field '") + field + "' has " + std::to_string(got) +
                                " entries, expected one per node (" + std::to_string(want) + ")");
}

void Cluster::validate() const {
  const size_t n = speed.size();
  if (n == 0) throw std::invalid_argument("cluster has no nodes: 'nodes' must be at least 1");
  check_size("rack", rack.size(), n);
  check_size("map_slots", map_slots.size(), n);
  check_size("reduce_slots", reduce_slots.size(), n);
  check_size("slots", slots.size(), n);
  check_size("vcores", vcores.size(), n);
  check_size("memory", memory.size(), n);
  check_size("node_type", node_type.size(), n);
  if (n_racks < 1) throw std::invalid_argument("cluster field 'racks' must be at least 1");
  for (size_t i = 0; i < n; ++i) {
    auto where = [&](const char* f) { return std::string("cluster field '") + f + "' of node " + std::to_string(i); };
    if (!(speed[i] > 0) || !std::isfinite(speed[i])) throw std::invalid_argument(where("speed") + " must be a positive number");
    if (rack[i] < 0 || rack[i] >= n_racks) throw std::invalid_argument(where("rack") + " is outside 0.." + std::to_string(n_racks - 1));
    if (map_slots[i] < 0 || reduce_slots[i] < 0 || slots[i] < 0) throw std::invalid_argument(where("slots") + " must not be negative");
    if (!(vcores[i] >= 0) || !(memory[i] >= 0)) throw std::invalid_argument(where("vcores/memory") + " must not be negative");
  }
}

Cluster Cluster::uniform(int nodes, int racks, int map_slots, int reduce_slots, double speed) {
  if (nodes < 1) throw std::invalid_argument("cluster field 'nodes' must be at least 1");
  if (racks < 1 || racks > nodes) throw std::invalid_argument("cluster field 'racks' must be between 1 and the number of nodes");
  Cluster c;
  c.n_racks = racks;
  for (int i = 0; i < nodes; ++i) {
    c.rack.push_back(static_cast<int32_t>(static_cast<int64_t>(i) * racks / nodes));
    c.speed.push_back(speed);
    c.map_slots.push_back(map_slots);
    c.reduce_slots.push_back(reduce_slots);
    c.slots.push_back(map_slots + reduce_slots);
    c.vcores.push_back(map_slots + reduce_slots);
    c.memory.push_back(2048.0 * (map_slots + reduce_slots));
    c.node_type.push_back(0);
  }
  return c;
}

}  // namespace schedlab
