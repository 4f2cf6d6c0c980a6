#pragma once
// Port counters from sysfs (/sys/class/infiniband/DEV/ports/P/{counters,hw_counters}): a
// snapshot at the start and the end of a run, and their difference.
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rdmabench {

using CounterSnapshot = std::map<std::string, uint64_t>;  // "hw_counters/rcvd_pkts" -> value

CounterSnapshot read_port_counters(const std::string& device, uint32_t port,
                                   const std::string& sysfs_root = "/sys/class/infiniband");
// end - start for every counter present in both (counters that went backwards are reported as 0).
nlohmann::json counter_deltas(const CounterSnapshot& start, const CounterSnapshot& end);
// The same deltas, only those above 0 (the counters that moved).
CounterSnapshot counters_moved(const CounterSnapshot& start, const CounterSnapshot& end);

}  // namespace rdmabench
