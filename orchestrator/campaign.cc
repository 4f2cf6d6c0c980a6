#include "orchestrator/campaign.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "harness/error.h"
#include "harness/json_util.h"
#include "orchestrator/config_keys.h"
#include "orchestrator/host_spec.h"
#include "orchestrator/point_id.h"
#include "workloads/workload_fields.h"
#include "workloads/workload_options.h"

namespace rdmabench {
namespace {

double get_seconds(const nlohmann::json& j, const std::string& key, const std::string& path,
                   double def, double lo, double hi) {
  auto it = j.find(key);
  if (it == j.end()) return def;
  char allowed[96];
  std::snprintf(allowed, sizeof allowed, "seconds, more than %g and at most %g", lo, hi);
  if (!it->is_number() || !(it->get<double>() > lo) || it->get<double>() > hi)
    throw ConfigError(path + "/" + key, brief_json(*it), allowed);
  return it->get<double>();
}

std::vector<HostPair> parse_pairs(const nlohmann::json& hosts, const std::string& self_exe) {
  std::vector<HostPair> pairs;
  if (!hosts.is_array() || hosts.empty())
    throw ConfigError(
        "/hosts", brief_json(hosts),
        "a non-empty list of host pairs {\"name\", \"server\", \"client\", \"connect_address\"}");
  std::set<std::string> names;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string p = "/hosts/" + std::to_string(i);
    const auto& h = hosts[i];
    if (!h.is_object())
      throw ConfigError(p, brief_json(h),
                        "an object {\"name\", \"server\", \"client\", \"connect_address\"}");
    check_keys(h, p, {"name", "server", "client", "connect_address"});
    HostPair pair;
    pair.name = get_string(require(h, "name", p, "the host pair's name"), p + "/name", "a string");
    if (pair.name.empty() || pair.name.find('\n') != std::string::npos)
      throw ConfigError(p + "/name", nlohmann::json(pair.name).dump(),
                        "a non-empty one-line string");
    if (!names.insert(pair.name).second)
      throw ConfigError(p + "/name", nlohmann::json(pair.name).dump(),
                        "a name no other host pair has (duplicate)");
    pair.server =
        parse_host_spec(require(h, "server", p, "the server host"), p + "/server", self_exe);
    pair.client =
        parse_host_spec(require(h, "client", p, "the client host"), p + "/client", self_exe);
    if (auto it = h.find("connect_address"); it != h.end())
      pair.connect_address = parse_connect_address(*it, p + "/connect_address");
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

// One host pair per link the fabric's rounds measure, in the order they first appear.
std::vector<HostPair> fabric_links(const FabricSpec& f) {
  std::vector<HostPair> pairs;
  std::set<std::string> seen;
  for (const Round& r : f.rounds)
    for (const Flow& flow : r.flows) {
      std::string name = link_name(f, flow);
      if (!seen.insert(name).second) continue;
      const FabricHost& server = f.hosts[flow.server];
      pairs.push_back(HostPair{std::move(name), server.spec, f.hosts[flow.client].spec,
                               server.connect_address});
    }
  return pairs;
}

}  // namespace

Campaign parse_campaign(const nlohmann::json& j, const std::string& base_dir,
                        const std::string& self_exe) {
  if (!j.is_object()) throw ConfigError("/", brief_json(j), "a campaign object");
  check_keys(j, "",
             {"name", "description", "hosts", "fabric", "ssh_config", "connect_timeout_s", "matrix",
              "search", "exclude", "repetitions", "timeout_s", "token"});
  Campaign c;
  c.name = get_string(require(j, "name", "", "the campaign's name"), "/name", "a non-empty string");
  if (c.name.empty() || c.name.find('\n') != std::string::npos)
    throw ConfigError("/name", nlohmann::json(c.name).dump(), "a non-empty one-line string");
  if (auto it = j.find("description"); it != j.end())
    c.description = get_string(*it, "/description", "a string");

  if (auto fabric = j.find("fabric"); fabric != j.end()) {
    if (auto it = j.find("hosts"); it != j.end())
      throw ConfigError(
          "/hosts", brief_json(*it),
          "either \"hosts\" (host pairs) or \"fabric\" (hosts and a pattern), not both");
    c.fabric = parse_fabric(*fabric, "/fabric", base_dir, self_exe);
    c.pairs = fabric_links(*c.fabric);
  } else {
    c.pairs = parse_pairs(require(j, "hosts", "", "a list of host pairs (or a \"fabric\" block)"),
                          self_exe);
  }

  if (auto it = j.find("ssh_config"); it != j.end()) {
    c.ssh_config = expand_env(
        get_string(*it, "/ssh_config", "the path of an ssh client config file"), "/ssh_config");
    if (c.ssh_config.empty())
      throw ConfigError("/ssh_config", "\"\"", "the path of an ssh client config file");
    if (c.ssh_config.rfind("~/", 0) == 0) {
      const char* home = std::getenv("HOME");
      if (home != nullptr) c.ssh_config = std::string(home) + c.ssh_config.substr(1);
    } else if (c.ssh_config.front() != '/' && !base_dir.empty()) {
      c.ssh_config = base_dir + "/" + c.ssh_config;
    }
  }
  c.connect_timeout_s = get_seconds(j, "connect_timeout_s", "", 10, 0, 600);
  c.timeout_s = get_seconds(j, "timeout_s", "", 300, 0, 86400);

  const auto search = j.find("search");
  if (search != j.end() && j.contains("matrix"))
    throw ConfigError(
        "/search", brief_json(*search),
        "either \"matrix\" (every combination) or \"search\" (sampled points), not both");
  if (search == j.end() && !j.contains("matrix"))
    throw ConfigError(
        "/matrix", "(missing)",
        "a \"matrix\" object (every combination) or a \"search\" object (sampled points)");
  if (search != j.end()) {
    c.search = parse_search(*search, "/search");
    if (auto it = j.find("exclude"); it != j.end())
      throw ConfigError(
          "/exclude", brief_json(*it),
          "no exclude with \"search\" (excludes match matrix values): narrow the space, "
          "or leave values out of its lists");
    c.draw = draw_search(
        *c.search,
        [](const nlohmann::json& values) -> std::string {
          try {
            workload_from_values(values);
            return "";
          } catch (const ConfigError& e) {
            return e.what();
          }
        },
        "/search");
  } else {
    c.matrix = parse_matrix(j["matrix"], "/matrix");
  }
  if (auto it = j.find("exclude"); it != j.end())
    c.excludes = parse_excludes(*it, c.matrix, "/exclude");
  if (auto it = j.find("repetitions"); it != j.end()) {
    if (!is_uint(*it) || it->get<uint64_t>() < 1 || it->get<uint64_t>() > 100000)
      throw ConfigError("/repetitions", brief_json(*it), "a whole number from 1 to 100000");
    c.repetitions = static_cast<unsigned>(it->get<uint64_t>());
  }
  if (auto it = j.find("token"); it != j.end()) {
    c.token = get_string(*it, "/token", "a non-empty one-line string");
    if (c.token.empty() || c.token.find('\n') != std::string::npos ||
        c.token.find('\r') != std::string::npos)
      throw ConfigError("/token", "(hidden)", "a non-empty one-line string");
  }
  // The whole campaign must stay a list we can hold and run.
  size_t flows = c.pairs.size();
  if (c.fabric) {
    flows = 0;
    for (const Round& r : c.fabric->rounds) flows += r.flows.size();
  }
  size_t total = c.combinations();
  for (size_t f : {flows, size_t{c.repetitions}})
    total = f != 0 && total > kMaxPoints / f ? kMaxPoints + 1 : total * f;
  if (total > kMaxPoints)
    throw ConfigError(c.search ? "/search/budget" : "/matrix",
                      "more than " + std::to_string(kMaxPoints) + " points",
                      "a campaign of at most " + std::to_string(kMaxPoints) +
                          " points (matrix combinations x host pairs or fabric flows x "
                          "repetitions)");
  c.source = j;
  if (c.source.contains("token")) c.source["token"] = "(hidden)";
  return c;
}

Campaign load_campaign(const std::string& path, const std::string& self_exe) {
  std::ifstream in(path);
  if (!in) throw ConfigError("campaign file", path, "a readable file");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError("campaign file", path, std::string("valid JSON (") + e.what() + ")");
  }
  std::string dir;
  if (auto slash = path.rfind('/'); slash != std::string::npos) dir = path.substr(0, slash);
  if (dir.empty() && !path.empty() && path.front() == '/') dir = "/";
  try {
    return parse_campaign(j, dir, self_exe);
  } catch (const ConfigError& e) {
    // Prefix the file so the message reads "invalid PATH /matrix/op/2 '...': ...".
    throw ConfigError(path + ": " + e.field(), e.value(), e.allowed());
  }
}

Expansion expand(const Campaign& c) {
  Expansion x;
  std::map<std::string, size_t> link_index;  // fabric: link name -> index into c.pairs
  for (size_t p = 0; c.fabric && p < c.pairs.size(); ++p) link_index.emplace(c.pairs[p].name, p);
  const size_t combos = c.combinations();
  size_t index = 0;
  for (unsigned rep = 1; rep <= c.repetitions; ++rep) {
    for (size_t k = 0; k < combos; ++k) {
      const nlohmann::json values = c.combination(k);
      std::string reason;
      if (c.search) {
        reason = c.draw.runs[k].skip_reason;  // checked when drawn
      } else {
        try {
          workload_from_values(values);
        } catch (const ConfigError& e) {
          reason = e.what();
        }
      }
      const std::vector<std::string> options = client_options(values);
      auto add = [&](size_t p, std::optional<uint32_t> round) {
        bool excluded = false;
        for (const auto& e : c.excludes) excluded = excluded || e.matches(values, c.pairs[p].name);
        if (excluded) {
          ++x.excluded;
          return;
        }
        Point pt;
        pt.index = index++;
        pt.pair = p;
        pt.round = round;
        pt.repetition = rep;
        pt.values = values;
        pt.workload_options = options;
        pt.skip_reason = reason;
        pt.id = point_id(values, c.pairs[p].name, rep,
                         round ? unsplit_label(c.fabric->rounds[*round].label) : "");
        x.points.push_back(std::move(pt));
      };
      if (!c.fabric) {
        for (size_t p = 0; p < c.pairs.size(); ++p) add(p, std::nullopt);
        continue;
      }
      for (const Round& r : c.fabric->rounds)
        for (const Flow& flow : r.flows) add(link_index.at(link_name(*c.fabric, flow)), r.index);
    }
  }
  return x;
}

}  // namespace rdmabench
