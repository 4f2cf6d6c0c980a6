#include "orchestrator/fabric/fabric_probes.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

#include "base/config_keys.h"
#include "base/cpu_list.h"
#include "base/error.h"
#include "base/json_util.h"
#include "model/workload_fields.h"
#include "orchestrator/campaign/matrix.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/fabric/fabric_campaign.h"

namespace rdmabench {
namespace {

// The probe's workload: matrix values, one each, in latency mode, that the client accepts.
nlohmann::json parse_probe_workload(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      "the probe's workload: an object of matrix keys, one value each, e.g. "
                      "{\"op\": \"send\", \"sizes\": [8], \"duration_s\": 1}");
  const Matrix m = parse_matrix(j, path);
  if (m.size() != 1)
    for (const MatrixAxis& a : m.axes)
      if (a.values.size() != 1)
        throw ConfigError(path + "/" + a.key, brief_json(j[a.key]),
                          "one value (a probe is one workload; lists of sizes or CPUs are one "
                          "value)");
  nlohmann::json values = m.combination(0);
  if (values.contains("mode") && values["mode"] != "lat")
    throw ConfigError(path + "/mode", brief_json(values["mode"]),
                      "\"lat\" (a probe measures latency), or no \"mode\"");
  values["mode"] = "lat";
  try {
    workload_from_values(values);
  } catch (const ConfigError& e) {
    throw ConfigError(path + "/" + e.field(), e.value(), e.allowed());
  }
  return values;
}

uint32_t probe_host(const nlohmann::json& v, const std::string& path,
                    const std::vector<FabricHost>& hosts) {
  if (v.is_string())
    for (size_t i = 0; i < hosts.size(); ++i)
      if (hosts[i].name == v.get<std::string>()) return static_cast<uint32_t>(i);
  if (is_uint(v) && v.get<uint64_t>() < hosts.size())
    return static_cast<uint32_t>(v.get<uint64_t>());
  std::string names;
  for (const FabricHost& h : hosts) names += (names.empty() ? "" : ", ") + h.name;
  throw ConfigError(path, brief_json(v),
                    "a host index (0 to " + std::to_string(hosts.size() - 1) +
                        ") or the name of a fabric host: " + names);
}

std::vector<Flow> parse_probe_pairs(const nlohmann::json& j, const std::string& path,
                                    const std::vector<FabricHost>& hosts) {
  const char* form =
      "\"load\" (a probe on every load flow's link) or a non-empty list of [server, client] "
      "pairs (host indices or names)";
  if (!j.is_array() || j.empty()) throw ConfigError(path, brief_json(j), form);
  std::vector<Flow> pairs;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    if (!j[i].is_array() || j[i].size() != 2)
      throw ConfigError(p, brief_json(j[i]), "a pair [server, client]");
    const Flow f{probe_host(j[i][0], p + "/0", hosts), probe_host(j[i][1], p + "/1", hosts)};
    if (f.server == f.client)
      throw ConfigError(p + "/1", brief_json(j[i][1]), "a client other than the server");
    if (!seen.emplace(f.server, f.client).second)
      throw ConfigError(p, brief_json(j[i]), "a pair not already listed");
    pairs.push_back(f);
  }
  return pairs;
}

// The CPUs a workload pins ("cpus": "0-3" or [0, 1], as checked when the campaign was parsed);
// none when it pins none.
std::set<long> pinned_cpus(const nlohmann::json& values) {
  std::set<long> cpus;
  const auto it = values.find("cpus");
  if (it == values.end()) return cpus;
  if (it->is_array()) {
    for (const auto& c : *it)
      if (c.is_number_integer()) cpus.insert(c.get<long>());
    return cpus;
  }
  try {
    for (int c : parse_cpu_list(it->is_string() ? it->get<std::string>() : it->dump()))
      cpus.insert(c);
  } catch (const std::invalid_argument&) {
    // checked when parsed: a list this cannot read pins nothing it could compare
  }
  return cpus;
}

}  // namespace

ProbeSpec parse_probes(const nlohmann::json& j, const std::string& path,
                       const std::vector<FabricHost>& hosts) {
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      "an object {\"workload\": {matrix keys, one value each}, \"links\": "
                      "\"load\" or [[server, client], ...]}");
  check_keys(j, path, {"workload", "links"});
  ProbeSpec p;
  p.values = parse_probe_workload(require(j, "workload", path, "the probe's workload"),
                                  path + "/workload");
  if (auto it = j.find("links"); it != j.end() && *it != "load") {
    p.on_load_links = false;
    p.pairs = parse_probe_pairs(*it, path + "/links", hosts);
  }
  return p;
}

std::vector<Round> with_idle_probe_rounds(std::vector<Round> load, const ProbeSpec* probes,
                                          uint32_t hosts, uint32_t max_flows_per_host) {
  if (probes == nullptr) return load;
  std::vector<Flow> links;
  if (probes->on_load_links) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const Round& r : load)
      for (const Flow& f : r.flows)
        if (seen.emplace(f.server, f.client).second) links.push_back(f);
  } else {
    links = probes->pairs;
  }
  // Idle: each probe alone on both its hosts (a cap of 1), whatever the load's cap: two probes
  // into one server would each be the other's load.
  (void)max_flows_per_host;
  std::vector<Round> plan;
  RoundSplitter split(hosts, 1, plan);
  split.add(kIdleProbeRound, std::move(links));
  const auto first = static_cast<uint32_t>(plan.size());
  for (Round& r : load) {
    r.index += first;
    plan.push_back(std::move(r));
  }
  return plan;
}

std::vector<Flow> probe_flows(const ProbeSpec& p, const Round& r, bool first_part) {
  if (p.on_load_links) return r.flows;
  return first_part ? p.pairs : std::vector<Flow>{};
}

std::string probe_round_name(const std::string& load_round, const nlohmann::json& load_values) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(fnv1a64(load_values.dump())));
  return load_round + " probe " + std::string(hash, 8);
}

std::string probe_placement_note(const ProbeSpec& p, const nlohmann::json& load_values) {
  const std::set<long> probe = pinned_cpus(p.values);
  const std::set<long> load = pinned_cpus(load_values);
  std::string why;
  if (probe.empty() || load.empty()) {
    why = "the probe and the load do not both pin CPUs (\"cpus\")";
  } else {
    for (long c : probe)
      if (load.count(c) != 0) {
        why = "the probe's CPUs and the load's overlap (CPU " + std::to_string(c) + ")";
        break;
      }
  }
  if (why.empty()) return "";
  return "warning: probes: " + why +
         ": a probe may wait for a core a load thread busy-polls, and its latency then includes "
         "that wait (a probe is a client of its own and a session of its own in the server "
         "host's one server process)";
}

}  // namespace rdmabench
