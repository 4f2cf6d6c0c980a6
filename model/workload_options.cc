#include "model/workload_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "model/workload_fields.h"

namespace rdmabench {

uint64_t parse_uint_option(const std::string& field, const std::string& text, uint64_t lo,
                           uint64_t hi) {
  const std::string allowed =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (text.empty() || text[0] == '-' || text[0] == '+') throw ConfigError(field, text, allowed);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) throw ConfigError(field, text, allowed);
  if (v < lo || v > hi) throw ConfigError(field, text, allowed);
  return v;
}

double parse_seconds_option(const std::string& field, const std::string& text, double lo,
                            double hi) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "seconds from %g to %g", lo, hi);
  const std::string allowed = buf;
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) ||
      v < lo || v > hi)
    throw ConfigError(field, text, allowed);
  return v;
}

double parse_number_option(const std::string& field, const std::string& text, double lo, double hi,
                           const std::string& unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s from %g to %g", unit.c_str(), lo, hi);
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) ||
      v < lo || v > hi)
    throw ConfigError(field, text, buf);
  return v;
}

Workload build_workload(const WorkloadArgs& a) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& f : workload_fields())  // in table order, so the first bad option is reported
    if (auto it = a.text.find(std::string(f.key)); it != a.text.end())
      values[it->first] = field_value_from_text(f, it->second);
  for (const auto& [key, text] : a.text)
    if (find_workload_field(key) == nullptr) throw ConfigError(key, text, "a workload field");
  auto given = [&](const char* key) { return a.text.find(key); };
  if (a.events) {
    if (auto it = given("cq"); it != a.text.end() && values["cq"] != "event")
      throw ConfigError("cq", it->second, "event when -e/--events is given");
    values["cq"] = "event";
  }
  if (a.rdma_cm) {
    if (auto it = given("connect"); it != a.text.end() && values["connect"] != "rdma_cm")
      throw ConfigError("connect", it->second, "rdma_cm when -R/--rdma-cm is given");
    values["connect"] = "rdma_cm";
  }
  if (auto it = given("sizes"); a.all_sizes && it != a.text.end())
    throw ConfigError("size", it->second, "either -s/--size or -a/--all, not both");
  return workload_from_values(values, a.all_sizes);
}

}  // namespace rdmabench
