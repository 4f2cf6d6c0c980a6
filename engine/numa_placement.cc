#include "engine/numa_placement.h"

#include "base/error.h"
#include "base/numa.h"
#include "model/workload.h"

namespace rdmabench {

NumaPlacement choose_numa(int32_t requested, int device_node) {
  NumaPlacement p;
  if (requested == Workload::kNumaAuto) {
    if (device_node >= 0) {
      p.node = device_node;
    } else {
      p.note = "the device reports no NUMA node (numa_node -1 or absent in sysfs): not bound";
    }
  } else if (requested >= 0) {
    p.node = requested;
  }
  if (p.node < 0) return p;
  p.cpus = numa_node_cpus(p.node);  // ConfigError when the node does not exist
  if (p.cpus.empty())
    throw ConfigError("numa", numa_text(requested),
                      "a NUMA node with CPUs (node " + std::to_string(p.node) + " has none)");
  p.affinity = cpu_set_of(p.cpus);
  return p;
}

}  // namespace rdmabench
