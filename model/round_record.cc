#include "model/round_record.h"

#include "base/json_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json min_median_max_json(const MinMedianMax& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}};
}

MinMedianMax min_median_max_from(const json& j, const std::string& ptr) {
  return MinMedianMax{at_path<double>(j, ptr + "/min", kWantNumber),
                      at_path<double>(j, ptr + "/median", kWantNumber),
                      at_path<double>(j, ptr + "/max", kWantNumber)};
}

RoundSize size_from(const json& j, const std::string& ptr) {
  RoundSize s;
  s.size = at_path<uint64_t>(j, ptr + "/size", "a message size in bytes");
  s.flows = at_path<size_t>(j, ptr + "/flows", kWantCount);
  s.total_gbps = at_path<double>(j, ptr + "/total_gbps", kWantNumber);
  s.jain = optional_at_path(j, ptr + "/jain");
  s.gbps = min_median_max_from(j, ptr + "/gbps");
  if (j.contains(json::json_pointer(ptr + "/p50_ns")))
    s.p50_ns = min_median_max_from(j, ptr + "/p50_ns");
  s.overlap = optional_at_path(j, ptr + "/overlap");
  s.common_window_s = optional_at_path(j, ptr + "/common_window_s");
  s.clock_uncertainty_s = optional_at_path(j, ptr + "/clock_uncertainty_s");
  if (!j.contains(json::json_pointer(ptr + "/hosts"))) return s;  // none: no per-host rates
  const json hosts = at_path<json>(j, ptr + "/hosts", "an object of hosts");
  if (!hosts.is_object())
    throw ConfigError(ptr + "/hosts", brief_json(hosts), "an object of hosts");
  for (const auto& [host, v] : hosts.items()) {
    const std::string hp = ptr + "/hosts/" + host;
    s.hosts[host] = RoundSize::HostTraffic{at_path<double>(j, hp + "/in_gbps", kWantNumber),
                                           at_path<double>(j, hp + "/out_gbps", kWantNumber)};
  }
  return s;
}

RoundProbeEntry round_probe_from(const json& j, const std::string& ptr) {
  RoundProbeEntry e;
  e.link = at_path<std::string>(j, ptr + "/link", kWantText);
  e.server = at_path<std::string>(j, ptr + "/server", kWantText);
  e.client = at_path<std::string>(j, ptr + "/client", kWantText);
  if (j.contains(json::json_pointer(ptr + "/size")))
    e.size = at_path<uint64_t>(j, ptr + "/size", "a message size in bytes");
  e.p50_ns = optional_at_path(j, ptr + "/p50_ns");
  e.p99_ns = optional_at_path(j, ptr + "/p99_ns");
  e.p99_9_ns = optional_at_path(j, ptr + "/p99_9_ns");
  e.idle_p99_ns = optional_at_path(j, ptr + "/idle_p99_ns");
  e.ratio = optional_at_path(j, ptr + "/ratio");
  if (j.contains(json::json_pointer(ptr + "/error")))
    e.error = at_path<std::string>(j, ptr + "/error", kWantText);
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
                      {"jain", number_or_null(s.jain)},
                      {"gbps", min_median_max_json(s.gbps)}};
    if (s.p50_ns) e["p50_ns"] = min_median_max_json(*s.p50_ns);
    if (s.overlap) {
      e["overlap"] = *s.overlap;
      e["common_window_s"] = number_or_null(s.common_window_s);
      e["clock_uncertainty_s"] = number_or_null(s.clock_uncertainty_s);
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
                    {"overlap_min", number_or_null(r.overlap_min)},
                    {"overlap_low", r.overlap_low},
                    {"time", r.time}};
  if (r.probes) {
    ordered_json probes = ordered_json::array();
    for (const RoundProbeEntry& p : *r.probes) {
      ordered_json e = {{"link", p.link}, {"server", p.server}, {"client", p.client}};
      if (p.size) {
        e["size"] = *p.size;
        e["p50_ns"] = number_or_null(p.p50_ns);
        e["p99_ns"] = number_or_null(p.p99_ns);
        e["p99_9_ns"] = number_or_null(p.p99_9_ns);
        e["idle_p99_ns"] = number_or_null(p.idle_p99_ns);
        e["ratio"] = number_or_null(p.ratio);
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
  r.round = at_path<std::string>(j, "/round", kWantText);
  r.round_index = at_path<uint32_t>(j, "/round_index", kWantCount);
  r.repetition = at_path<unsigned>(j, "/repetition", kWantCount);
  r.matrix = at_path<json>(j, "/matrix", "the workload's matrix values");
  r.flows = at_path<size_t>(j, "/flows", kWantCount);
  r.ok = at_path<size_t>(j, "/ok", kWantCount);
  r.failed = at_path<size_t>(j, "/failed", kWantCount);
  const json sizes = at_path<json>(j, "/sizes", "a list of sizes");
  if (!sizes.is_array()) throw ConfigError("/sizes", brief_json(sizes), "a list of sizes");
  for (size_t i = 0; i < sizes.size(); ++i)
    r.sizes.push_back(size_from(j, "/sizes/" + std::to_string(i)));
  r.overlap_min = optional_at_path(j, "/overlap_min");
  r.overlap_low = at_path<bool>(j, "/overlap_low", "true or false");
  r.time = at_path<std::string>(j, "/time", kWantText);
  if (j.contains("probes")) {
    const json probes = at_path<json>(j, "/probes", "a list of probes");
    if (!probes.is_array()) throw ConfigError("/probes", brief_json(probes), "a list of probes");
    r.probes.emplace();
    for (size_t i = 0; i < probes.size(); ++i)
      r.probes->push_back(round_probe_from(j, "/probes/" + std::to_string(i)));
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
