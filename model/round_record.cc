#include "model/round_record.h"

#include "base/json_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const char* const kNumber = "a number";
const char* const kCount = "a whole number";
const char* const kText = "a string";

ordered_json optional_number(const std::optional<double>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json spread_json(const MinMedianMax& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}};
}

// A member that may be absent or null: nullopt then.
std::optional<double> maybe_number(const json& j, const std::string& ptr) {
  const json::json_pointer p(ptr);
  if (!j.contains(p) || j.at(p).is_null()) return std::nullopt;
  return at_path<double>(j, ptr, kNumber);
}

MinMedianMax spread_from(const json& j, const std::string& ptr) {
  return MinMedianMax{at_path<double>(j, ptr + "/min", kNumber),
                      at_path<double>(j, ptr + "/median", kNumber),
                      at_path<double>(j, ptr + "/max", kNumber)};
}

RoundSize size_from(const json& j, const std::string& ptr) {
  RoundSize s;
  s.size = at_path<uint64_t>(j, ptr + "/size", "a message size in bytes");
  s.flows = at_path<size_t>(j, ptr + "/flows", kCount);
  s.total_gbps = at_path<double>(j, ptr + "/total_gbps", kNumber);
  s.jain = maybe_number(j, ptr + "/jain");
  s.gbps = spread_from(j, ptr + "/gbps");
  if (j.contains(json::json_pointer(ptr + "/p50_ns"))) s.p50_ns = spread_from(j, ptr + "/p50_ns");
  s.overlap = maybe_number(j, ptr + "/overlap");
  s.common_window_s = maybe_number(j, ptr + "/common_window_s");
  s.clock_uncertainty_s = maybe_number(j, ptr + "/clock_uncertainty_s");
  if (!j.contains(json::json_pointer(ptr + "/hosts"))) return s;  // none: no per-host rates
  const json hosts = at_path<json>(j, ptr + "/hosts", "an object of hosts");
  if (!hosts.is_object())
    throw ConfigError(ptr + "/hosts", brief_json(hosts), "an object of hosts");
  for (const auto& [host, v] : hosts.items()) {
    const std::string hp = ptr + "/hosts/" + host;
    s.hosts[host] = RoundSize::HostTraffic{at_path<double>(j, hp + "/in_gbps", kNumber),
                                           at_path<double>(j, hp + "/out_gbps", kNumber)};
  }
  return s;
}

RoundProbeEntry probe_from(const json& j, const std::string& ptr) {
  RoundProbeEntry e;
  e.link = at_path<std::string>(j, ptr + "/link", kText);
  e.server = at_path<std::string>(j, ptr + "/server", kText);
  e.client = at_path<std::string>(j, ptr + "/client", kText);
  if (j.contains(json::json_pointer(ptr + "/size")))
    e.size = at_path<uint64_t>(j, ptr + "/size", "a message size in bytes");
  e.p50_ns = maybe_number(j, ptr + "/p50_ns");
  e.p99_ns = maybe_number(j, ptr + "/p99_ns");
  e.p99_9_ns = maybe_number(j, ptr + "/p99_9_ns");
  e.idle_p99_ns = maybe_number(j, ptr + "/idle_p99_ns");
  e.ratio = maybe_number(j, ptr + "/ratio");
  if (j.contains(json::json_pointer(ptr + "/error")))
    e.error = at_path<std::string>(j, ptr + "/error", kText);
  return e;
}

}  // namespace

bool is_idle_probe_round(const std::string& label) {
  const std::string idle = kIdleProbeRound;
  return label == idle || label.rfind(idle + " part ", 0) == 0;
}

ordered_json to_json(const RoundRecord& r) {
  ordered_json sizes = ordered_json::array();
  for (const RoundSize& s : r.sizes) {
    ordered_json e = {{"size", s.size},
                      {"flows", s.flows},
                      {"total_gbps", s.total_gbps},
                      {"jain", optional_number(s.jain)},
                      {"gbps", spread_json(s.gbps)}};
    if (s.p50_ns) e["p50_ns"] = spread_json(*s.p50_ns);
    if (s.overlap) {
      e["overlap"] = *s.overlap;
      e["common_window_s"] = optional_number(s.common_window_s);
      e["clock_uncertainty_s"] = optional_number(s.clock_uncertainty_s);
    }
    ordered_json hosts = ordered_json::object();
    for (const auto& [h, t] : s.hosts)
      hosts[h] = {{"in_gbps", t.in_gbps}, {"out_gbps", t.out_gbps}};
    e["hosts"] = hosts;
    sizes.push_back(std::move(e));
  }
  ordered_json j = {{"record", kRoundRecord},
                    {"round", r.round},
                    {"round_index", r.round_index},
                    {"repetition", r.repetition},
                    {"matrix", r.matrix},
                    {"flows", r.flows},
                    {"ok", r.ok},
                    {"failed", r.failed},
                    {"sizes", sizes},
                    {"overlap_min", optional_number(r.overlap_min)},
                    {"overlap_low", r.overlap_low},
                    {"time", r.time}};
  if (r.probes) {
    ordered_json probes = ordered_json::array();
    for (const RoundProbeEntry& p : *r.probes) {
      ordered_json e = {{"link", p.link}, {"server", p.server}, {"client", p.client}};
      if (p.size) {
        e["size"] = *p.size;
        e["p50_ns"] = optional_number(p.p50_ns);
        e["p99_ns"] = optional_number(p.p99_ns);
        e["p99_9_ns"] = optional_number(p.p99_9_ns);
        e["idle_p99_ns"] = optional_number(p.idle_p99_ns);
        e["ratio"] = optional_number(p.ratio);
      }
      if (!p.error.empty()) e["error"] = p.error;
      probes.push_back(std::move(e));
    }
    j["probes"] = probes;
  }
  return j;
}

RoundRecord round_record_from_json(const json& j) {
  if (!j.is_object() || j.value("record", json()) != kRoundRecord)
    throw ConfigError("/record", brief_json(j.is_object() ? j.value("record", json()) : j),
                      "a round record ({\"record\": \"round\", ...})");
  RoundRecord r;
  r.round = at_path<std::string>(j, "/round", kText);
  r.round_index = at_path<uint32_t>(j, "/round_index", kCount);
  r.repetition = at_path<unsigned>(j, "/repetition", kCount);
  r.matrix = at_path<json>(j, "/matrix", "the workload's matrix values");
  r.flows = at_path<size_t>(j, "/flows", kCount);
  r.ok = at_path<size_t>(j, "/ok", kCount);
  r.failed = at_path<size_t>(j, "/failed", kCount);
  const json sizes = at_path<json>(j, "/sizes", "a list of sizes");
  if (!sizes.is_array()) throw ConfigError("/sizes", brief_json(sizes), "a list of sizes");
  for (size_t i = 0; i < sizes.size(); ++i)
    r.sizes.push_back(size_from(j, "/sizes/" + std::to_string(i)));
  r.overlap_min = maybe_number(j, "/overlap_min");
  r.overlap_low = at_path<bool>(j, "/overlap_low", "true or false");
  r.time = at_path<std::string>(j, "/time", kText);
  if (j.contains("probes")) {
    const json probes = at_path<json>(j, "/probes", "a list of probes");
    if (!probes.is_array()) throw ConfigError("/probes", brief_json(probes), "a list of probes");
    r.probes.emplace();
    for (size_t i = 0; i < probes.size(); ++i)
      r.probes->push_back(probe_from(j, "/probes/" + std::to_string(i)));
  }
  return r;
}

std::vector<RoundRecord> round_records_from_json(const std::vector<json>& lines,
                                                 std::vector<std::string>& refused) {
  std::vector<RoundRecord> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    try {
      out.push_back(round_record_from_json(lines[i]));
    } catch (const ConfigError& e) {
      refused.push_back("round record " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace rdmabench
