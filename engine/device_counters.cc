#include "engine/device_counters.h"

#include "base/netdev_stats.h"
#include "model/counter_keys.h"

namespace rdmabench {

CounterSnapshot read_device_counters(const std::string& device, uint32_t port) {
  CounterSnapshot snap = read_port_counters(device, port);
  const std::string netdev = port_netdev(device, port);
  if (netdev.empty()) return snap;
  for (const auto& [name, value] : read_netdev_stats(netdev))
    if (ethtool_stat_mapped(name)) snap[std::string(kEthtoolPrefix) + name] = value;
  return snap;
}

}  // namespace rdmabench
