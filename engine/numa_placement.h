#pragma once
// Where a side's buffers and worker threads live (--numa): no binding, the device's node, or a
// given node; its CPUs become the workers' affinity. Setup path only.
#include <sched.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rdmabench {

struct NumaPlacement {
  int node = -1;          // node the buffers and workers are bound to, -1 = none
  std::string note;       // why a requested binding did not happen ("" otherwise)
  std::vector<int> cpus;  // the node's CPUs
  cpu_set_t affinity{};   // the same, as the workers' CPU set
};

// `requested`: Workload::numa (kNumaNone, kNumaAuto or a node); `device_node`: the device's node
// (-1 when unknown). Throws ConfigError (field "numa") for a node that does not exist or has no
// CPUs.
NumaPlacement choose_numa(int32_t requested, int device_node);

}  // namespace rdmabench
