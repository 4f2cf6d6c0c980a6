#include "base/counters.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace rdmabench {

CounterSnapshot read_port_counters(const std::string& device, uint32_t port,
                                   const std::string& sysfs_root) {
  namespace fs = std::filesystem;
  CounterSnapshot snap;
  const fs::path base = fs::path(sysfs_root) / device / "ports" / std::to_string(port);
  for (const char* group : {"counters", "hw_counters"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(base / group, ec)) {
      if (!e.is_regular_file(ec)) continue;
      std::ifstream in(e.path());
      uint64_t v = 0;
      if (in >> v) snap[std::string(group) + "/" + e.path().filename().string()] = v;
    }
  }
  return snap;
}

nlohmann::json counter_deltas(const CounterSnapshot& start, const CounterSnapshot& end) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : end) {
    auto it = start.find(k);
    if (it == start.end()) continue;
    j[k] = v >= it->second ? v - it->second : 0;
  }
  return j;
}

CounterSnapshot counters_moved(const CounterSnapshot& start, const CounterSnapshot& end) {
  CounterSnapshot moved;
  const nlohmann::json deltas = counter_deltas(start, end);
  for (const auto& [name, delta] : deltas.items())
    if (const auto n = delta.get<uint64_t>(); n > 0) moved[name] = n;
  return moved;
}

}  // namespace rdmabench
