#pragma once
// A port's counters as the engine records them (a result's "counters", its sizes' and intervals'):
// the sysfs port counters (base/counters.h) and, from the port's network device, the `ethtool -S`
// statistics the counter table maps (model/counter_keys.h: pause frames, discards), named
// "ethtool/STAT". Read on the control thread at a measurement's edges and as each interval
// closes, never in the datapath.
#include <cstdint>
#include <string>

#include "base/counters.h"

namespace rdmabench {

CounterSnapshot read_device_counters(const std::string& device, uint32_t port);

}  // namespace rdmabench
