#include "orchestrator/fabric/fabric_campaign.h"

#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/file_text.h"
#include "base/json_util.h"
#include "orchestrator/agent/agent_hub.h"

namespace rdmabench {
namespace {

const char* kHostForms =
    "a host: a string (an ssh destination or \"local\") or an object {\"host\", \"name\", "
    "\"device\", \"gid_index\", \"rdmabench\", \"connect_address\"}";

// One host from its object form (inline, or a hostfile line turned into one).
FabricHost parse_fabric_host(const nlohmann::json& j, const std::string& path,
                             const std::string& self_exe) {
  nlohmann::json obj = j.is_string() ? nlohmann::json{{"host", j}} : j;
  if (!obj.is_object()) throw ConfigError(path, brief_json(j), kHostForms);
  FabricHost h;
  h.spec = parse_host_spec(obj, path, self_exe, {"name", "connect_address"});
  h.name = h.spec.host;
  if (auto it = obj.find("name"); it != obj.end()) {
    h.name = get_string(*it, path + "/name", "the host's name in the fabric");
    if (h.name.empty() || has_control_or_space(h.name))
      throw ConfigError(path + "/name", brief_json(*it),
                        "a name without spaces or control characters");
  }
  if (auto it = obj.find("connect_address"); it != obj.end())
    h.connect_address = parse_connect_address(*it, path + "/connect_address");
  return h;
}

// Every node of the allocation, each with the keys of `defaults` (a host object without "host"
// and "name").
std::vector<FabricHost> allocation_hosts(const nlohmann::json& defaults, const std::string& path,
                                         const SlurmAllocation& allocation,
                                         const std::string& self_exe) {
  if (!defaults.is_object())
    throw ConfigError(path, brief_json(defaults),
                      "an object of host keys every node gets (device, gid_index, rdmabench, "
                      "cpus, numa), {} for the defaults");
  for (const char* key : {"host", "name", "connect_address"})
    if (defaults.contains(key))
      throw ConfigError(path + "/" + key, brief_json(defaults[key]),
                        "no per-host key here: the hosts are the allocation's nodes (keys every "
                        "node gets: device, gid_index, rdmabench, cpus, numa)");
  std::vector<FabricHost> hosts;
  for (const auto& node : allocation.nodes) {
    nlohmann::json obj = defaults;
    obj["host"] = node;
    hosts.push_back(parse_fabric_host(obj, path, self_exe));
  }
  return hosts;
}

std::string read_text(const std::string& file, const std::string& path) {
  std::optional<std::string> text = read_file(file);
  if (!text) throw ConfigError(path, nlohmann::json(file).dump(), "a readable hostfile");
  return std::move(*text);
}

// "pairs" rounds may name hosts: names become indices before the pattern is parsed.
nlohmann::json resolve_pair_names(nlohmann::json pattern, const std::vector<FabricHost>& hosts,
                                  const std::string& path) {
  if (!pattern.is_object() || pattern.value("pattern", "") != "pairs") return pattern;
  auto rounds = pattern.find("rounds");
  if (rounds == pattern.end() || !rounds->is_array()) return pattern;
  std::map<std::string, uint32_t> index;
  std::string names;
  for (size_t i = 0; i < hosts.size(); ++i) {
    index.emplace(hosts[i].name, static_cast<uint32_t>(i));
    names += (names.empty() ? "" : ", ") + hosts[i].name;
  }
  for (size_t r = 0; r < rounds->size(); ++r) {
    nlohmann::json& round = (*rounds)[r];
    if (!round.is_array()) continue;  // the pattern's parser names it
    for (size_t k = 0; k < round.size(); ++k) {
      if (!round[k].is_array()) continue;
      for (size_t e = 0; e < round[k].size(); ++e) {
        nlohmann::json& v = round[k][e];
        if (!v.is_string()) continue;
        auto it = index.find(v.get<std::string>());
        if (it == index.end())
          throw ConfigError(path + "/rounds/" + std::to_string(r) + "/" + std::to_string(k) + "/" +
                                std::to_string(e),
                            brief_json(v), "a host index or the name of a fabric host: " + names);
        v = it->second;
      }
    }
  }
  return pattern;
}

// The hosts from exactly one source: "hosts" (a list), "hostfile" (relative to the campaign
// file) or "allocation"; none of them, with the slurm launcher, means "allocation": {}.
void parse_host_source(const nlohmann::json& j, const std::string& path,
                       const std::string& base_dir, const std::string& self_exe,
                       const SlurmAllocation* allocation, FabricSpec& f) {
  const auto hosts = j.find("hosts");
  const auto hostfile = j.find("hostfile");
  auto from_allocation = j.find("allocation");
  const int sources = (hosts != j.end()) + (hostfile != j.end()) + (from_allocation != j.end());
  if (sources == 0 && allocation != nullptr) {
    f.hosts =
        allocation_hosts(nlohmann::json::object(), path + "/allocation", *allocation, self_exe);
    f.allocation = allocation->job_id;
  } else if (sources != 1) {
    throw ConfigError(path + "/hosts", hosts == j.end() ? "(missing)" : brief_json(*hosts),
                      "one of \"hosts\" (a list), \"hostfile\" (a file of one host a line) or "
                      "\"allocation\" (the nodes of the Slurm allocation)");
  } else if (from_allocation != j.end()) {
    if (allocation == nullptr)
      throw ConfigError(path + "/allocation", brief_json(*from_allocation),
                        "no \"allocation\" without the slurm launcher (\"launcher\": \"slurm\" "
                        "or sweep --launcher slurm): name the hosts with \"hosts\" or "
                        "\"hostfile\"");
    f.hosts = allocation_hosts(*from_allocation, path + "/allocation", *allocation, self_exe);
    f.allocation = allocation->job_id;
  } else if (hosts != j.end()) {
    if (!hosts->is_array())
      throw ConfigError(path + "/hosts", brief_json(*hosts), "a list of hosts");
    for (size_t i = 0; i < hosts->size(); ++i)
      f.hosts.push_back(
          parse_fabric_host((*hosts)[i], path + "/hosts/" + std::to_string(i), self_exe));
  } else {
    f.hostfile = expand_env(get_string(*hostfile, path + "/hostfile", "the path of a hostfile"),
                            path + "/hostfile");
    if (f.hostfile.empty()) throw ConfigError(path + "/hostfile", "\"\"", "the path of a hostfile");
    if (f.hostfile.front() != '/' && !base_dir.empty()) f.hostfile = base_dir + "/" + f.hostfile;
    f.hosts = parse_hostfile(read_text(f.hostfile, path + "/hostfile"), f.hostfile, self_exe);
  }
}

// The hosts lie in the allocation (with the slurm launcher), number 2 to kMaxFabricHosts and have
// names of their own; errors name the host by where it came from.
void check_fabric_hosts(const nlohmann::json& j, const std::string& path, const FabricSpec& f,
                        const SlurmAllocation* allocation) {
  const std::string where = !f.allocation.empty() ? path + "/allocation"
                            : j.contains("hosts") ? path + "/hosts"
                                                  : f.hostfile;
  for (size_t i = 0; i < f.hosts.size(); ++i)
    check_in_allocation(f.hosts[i].spec, where + "/" + std::to_string(i), allocation);
  if (f.hosts.size() < kMinFabricHosts || f.hosts.size() > kMaxFabricHosts)
    throw ConfigError(where, std::to_string(f.hosts.size()) + " host(s)",
                      "2 to " + std::to_string(kMaxFabricHosts) + " hosts");
  std::set<std::string> names;
  for (size_t i = 0; i < f.hosts.size(); ++i)
    if (!names.insert(f.hosts[i].name).second)
      throw ConfigError(where + "/" + std::to_string(i), nlohmann::json(f.hosts[i].name).dump(),
                        "a host name no other fabric host has (give \"name\" to tell two "
                        "apart that share a machine)");
}

}  // namespace

std::vector<FabricHost> parse_hostfile(const std::string& text, const std::string& file,
                                       const std::string& self_exe) {
  std::vector<FabricHost> hosts;
  std::istringstream in(text);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string word;
    nlohmann::json obj = nlohmann::json::object();
    const std::string at = file + ":" + std::to_string(n);
    while (words >> word) {
      if (!obj.contains("host")) {
        obj["host"] = word;
        continue;
      }
      const size_t eq = word.find('=');
      if (eq == std::string::npos || eq == 0)
        throw ConfigError(at, nlohmann::json(word).dump(),
                          "HOST followed by key=value words (keys: name, device, gid_index, "
                          "rdmabench, connect_address)");
      const std::string key = word.substr(0, eq);
      if (key == "host" || obj.contains(key))
        throw ConfigError(at + "/" + key, nlohmann::json(word).dump(), "a key given once");
      obj[key] = word.substr(eq + 1);
    }
    if (obj.contains("host")) hosts.push_back(parse_fabric_host(obj, at, self_exe));
  }
  return hosts;
}

FabricSpec parse_fabric(const nlohmann::json& j, const std::string& path,
                        const std::string& base_dir, const std::string& self_exe,
                        const SlurmAllocation* allocation) {
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      "an object {\"hosts\", \"hostfile\" or \"allocation\", \"pattern\", "
                      "\"max_flows_per_host\", \"verdicts\", \"start_delay_s\", \"agent_listen\", "
                      "\"probes\"}");
  check_keys(j, path,
             {"hosts", "hostfile", "allocation", "pattern", "max_flows_per_host", "verdicts",
              "start_delay_s", "agent_listen", "probes"});
  FabricSpec f;
  parse_host_source(j, path, base_dir, self_exe, allocation, f);
  check_fabric_hosts(j, path, f, allocation);

  if (auto it = j.find("max_flows_per_host"); it != j.end()) {
    const bool is_auto = it->is_string() && it->get<std::string>() == "auto";
    if (!is_auto) {
      if (!is_uint(*it) || it->get<uint64_t>() < 1 || it->get<uint64_t>() > 100000)
        throw ConfigError(
            path + "/max_flows_per_host", brief_json(*it),
            "\"auto\" (the fewest online CPUs of any host, minus one) or a whole number from "
            "1 to 100000");
      f.max_flows_per_host = static_cast<uint32_t>(it->get<uint64_t>());
    }
  }
  const std::string pattern_path = path + "/pattern";
  f.pattern = parse_fabric_pattern(
      resolve_pair_names(require(j, "pattern", path, "the traffic pattern"), f.hosts, pattern_path),
      pattern_path);
  if (auto it = j.find("verdicts"); it != j.end())
    f.verdicts = parse_verdict_criteria(*it, path + "/verdicts");
  if (auto it = j.find("start_delay_s"); it != j.end() && *it != "auto") {
    if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= kMaxStartDelayS))
      throw ConfigError(path + "/start_delay_s", brief_json(*it),
                        "\"auto\" or seconds from 0 (each client starts once connected) to " +
                            std::to_string(static_cast<int>(kMaxStartDelayS)));
    f.start_delay_s = it->get<double>();
  }
  if (auto it = j.find("agent_listen"); it != j.end()) {
    if (!it->is_string())
      throw ConfigError(path + "/agent_listen", brief_json(*it),
                        "\"auto\", a host name or address, or HOST:PORT");
    f.agent_listen = it->get<std::string>();
    AgentHub::listen_port(f.agent_listen, path + "/agent_listen");  // checks it
  }
  if (auto it = j.find("probes"); it != j.end())
    f.probes = parse_probes(*it, path + "/probes", f.hosts);
  f.rounds = plan_fabric(f, f.max_flows_per_host.value_or(std::numeric_limits<uint32_t>::max()));
  return f;
}

std::vector<Round> plan_fabric(const FabricSpec& f, uint32_t max_flows_per_host) {
  return with_idle_probe_rounds(plan_rounds(f.hosts.size(), f.pattern, max_flows_per_host),
                                f.probes ? &*f.probes : nullptr,
                                static_cast<uint32_t>(f.hosts.size()), max_flows_per_host);
}

std::string link_name(const FabricSpec& f, const Flow& flow) {
  return f.hosts.at(flow.client).name + " -> " + f.hosts.at(flow.server).name;
}

std::string unsplit_label(const std::string& label) {
  const size_t at = label.rfind(" part ");
  return at == std::string::npos ? label : label.substr(0, at);
}

}  // namespace rdmabench
