#include "report/intervals.h"

#include <string>

#include "harness/error.h"

namespace rdmabench {
namespace {

// A member of `j` (at `where`) that must be a number >= 0 (or null if `may_be_null`); nullopt
// when absent or null.
std::optional<double> non_negative(const nlohmann::json& j, const std::string& where,
                                   const char* key, bool may_be_null = false) {
  const auto it = j.find(key);
  if (it == j.end() || (may_be_null && it->is_null())) return std::nullopt;
  if (!it->is_number() || it->get<double>() < 0)
    throw ConfigError(where + "." + key, it->dump(),
                      may_be_null ? "a number >= 0 or null" : "a number >= 0");
  return it->get<double>();
}

uint64_t count(const nlohmann::json& j, const std::string& where, const char* key,
               uint64_t absent) {
  const auto it = j.find(key);
  if (it == j.end()) return absent;
  if (!it->is_number_unsigned())
    throw ConfigError(where + "." + key, it->dump(), "an integer >= 0");
  return it->get<uint64_t>();
}

IntervalSample sample(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw ConfigError(where, j.dump(), "an object (one interval)");
  IntervalSample s;
  s.start_unix_s = non_negative(j, where, "start_unix_s").value_or(0);
  s.offset_s = non_negative(j, where, "offset_s").value_or(0);
  s.seconds = non_negative(j, where, "seconds").value_or(0);
  s.ops = count(j, where, "ops", 0);
  s.bytes = count(j, where, "bytes", 0);
  s.gbps = non_negative(j, where, "gbps").value_or(0);
  s.mmsg_per_s = non_negative(j, where, "mmsg_per_s").value_or(0);
  s.p50_ns = non_negative(j, where, "p50_ns", true);
  s.p99_ns = non_negative(j, where, "p99_ns", true);
  return s;
}

SizeIntervals size_intervals(const nlohmann::json& r, const std::string& where) {
  SizeIntervals out;
  const nlohmann::json& list = r.at("intervals");
  if (!list.is_array())
    throw ConfigError(where + ".intervals", list.dump(), "an array of intervals, oldest first");
  for (size_t i = 0; i < list.size(); ++i)
    out.samples.push_back(sample(list[i], where + ".intervals[" + std::to_string(i) + "]"));
  out.interval_s = non_negative(r, where, "interval_s").value_or(0);
  out.total = count(r, where, "intervals_total", out.samples.size());
  if (out.total < out.samples.size())
    throw ConfigError(where + ".intervals_total", std::to_string(out.total),
                      "at least the " + std::to_string(out.samples.size()) + " intervals kept");
  out.bw_peak_gbps = non_negative(r, where, "bw_peak_gbps", true);
  out.bw_min_gbps = non_negative(r, where, "bw_min_gbps", true);
  return out;
}

}  // namespace

std::map<uint64_t, SizeIntervals> parse_intervals(const nlohmann::json& doc) {
  std::map<uint64_t, SizeIntervals> out;
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) return out;
  const nlohmann::json& results = doc["results"];
  for (size_t i = 0; i < results.size(); ++i) {
    const nlohmann::json& r = results[i];
    if (!r.is_object() || !r.contains("intervals") || !r.contains("size") ||
        !r["size"].is_number_unsigned())
      continue;
    out[r["size"].get<uint64_t>()] = size_intervals(r, "results[" + std::to_string(i) + "]");
  }
  return out;
}

}  // namespace rdmabench
