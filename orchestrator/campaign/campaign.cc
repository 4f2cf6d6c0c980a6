#include "orchestrator/campaign/campaign.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "base/error.h"
#include "base/file_text.h"
#include "base/json_util.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"
#include "orchestrator/campaign/config_keys.h"
#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/campaign/point_id.h"

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

// "launcher" (or --launcher), and with "slurm" the allocation the sweep runs in.
void parse_launcher(const nlohmann::json& j, const CampaignOptions& options, Campaign& c) {
  const std::string allowed =
      "\"ssh\" (the default) or \"slurm\" (job steps of the Slurm "
      "allocation the sweep runs in)";
  std::string field = "--launcher";
  if (!options.launcher.empty()) {
    c.launcher = options.launcher;
  } else if (auto it = j.find("launcher"); it != j.end()) {
    field = "/launcher";
    c.launcher = get_string(*it, field, allowed);
  }
  if (std::find(kLaunchers.begin(), kLaunchers.end(), c.launcher) == kLaunchers.end())
    throw ConfigError(field, nlohmann::json(c.launcher).dump(), allowed);
  if (c.launcher != "slurm") return;
  if (!options.allocation)
    throw ConfigError(field, "\"slurm\"", "a sweep that runs inside a Slurm allocation");
  try {
    c.allocation = options.allocation();
  } catch (const ConfigError& e) {
    if (e.field() != "launcher") throw;
    throw ConfigError(field, "\"slurm\"", e.allowed());
  }
}

std::vector<HostPair> parse_pairs(const nlohmann::json& hosts, const std::string& self_exe,
                                  const SlurmAllocation* allocation) {
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
    check_in_allocation(pair.server, p + "/server/host", allocation);
    check_in_allocation(pair.client, p + "/client/host", allocation);
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

// One link per ordered host pair the fabric's rounds measure, in the order they first appear.
std::vector<Flow> fabric_links(const FabricSpec& f) {
  const uint64_t n = f.hosts.size();
  std::vector<std::pair<uint64_t, uint64_t>> first;  // (server * n + client, flow position)
  for (const Round& r : f.rounds)
    for (const Flow& flow : r.flows)
      first.emplace_back(flow.server * n + flow.client, first.size());
  std::sort(first.begin(), first.end());
  first.erase(std::unique(first.begin(), first.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              first.end());
  std::sort(first.begin(), first.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<Flow> links;
  links.reserve(first.size());
  for (const auto& [key, pos] : first)
    links.push_back(Flow{static_cast<uint32_t>(key / n), static_cast<uint32_t>(key % n)});
  return links;
}

// Where the points run: "fabric" (hosts and a pattern) or "hosts" (host pairs), not both.
void parse_hosts(const nlohmann::json& j, const std::string& base_dir, const std::string& self_exe,
                 Campaign& c) {
  const SlurmAllocation* allocation = c.allocation ? &*c.allocation : nullptr;
  if (auto fabric = j.find("fabric"); fabric != j.end()) {
    if (auto it = j.find("hosts"); it != j.end())
      throw ConfigError(
          "/hosts", brief_json(*it),
          "either \"hosts\" (host pairs) or \"fabric\" (hosts and a pattern), not both");
    c.fabric = parse_fabric(*fabric, "/fabric", base_dir, self_exe, allocation);
  } else {
    c.pairs = parse_pairs(require(j, "hosts", "", "a list of host pairs (or a \"fabric\" block)"),
                          self_exe, allocation);
  }
}

// "ssh_config": environment variables expanded, "~/" from $HOME, relative to the campaign file.
void parse_ssh_config(const nlohmann::json& j, const std::string& base_dir, Campaign& c) {
  auto it = j.find("ssh_config");
  if (it == j.end()) return;
  c.ssh_config = expand_env(get_string(*it, "/ssh_config", "the path of an ssh client config file"),
                            "/ssh_config");
  if (c.ssh_config.empty())
    throw ConfigError("/ssh_config", "\"\"", "the path of an ssh client config file");
  if (c.ssh_config.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (home != nullptr) c.ssh_config = std::string(home) + c.ssh_config.substr(1);
  } else if (c.ssh_config.front() != '/' && !base_dir.empty()) {
    c.ssh_config = base_dir + "/" + c.ssh_config;
  }
}

// The workload space: a "matrix" (every combination, with optional excludes) or a "search"
// (points drawn now, each checked as a workload when drawn).
void parse_workload_space(const nlohmann::json& j, Campaign& c) {
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
}

// A fabric's points per repetition and combination: its load flows and its probes (the idle
// round's probes, once per repetition, are counted once per combination too: an upper bound).
size_t fabric_points_per_combination(const FabricSpec& f) {
  size_t points = 0;
  std::string last;
  for (const Round& r : f.rounds) {
    points += r.flows.size();
    if (!f.probes || is_idle_probe_round(r.label)) continue;
    const std::string label = unsplit_label(r.label);
    points += probe_flows(*f.probes, r, label != last).size();
    last = label;
  }
  return points;
}

// The whole campaign must stay a list we can hold and run.
void check_point_count(const Campaign& c) {
  const size_t flows = c.fabric ? fabric_points_per_combination(*c.fabric) : c.flow_count();
  size_t total = c.combinations();
  for (size_t f : {flows, size_t{c.repetitions}})
    total = f != 0 && total > kMaxPoints / f ? kMaxPoints + 1 : total * f;
  if (total > kMaxPoints)
    throw ConfigError(c.search ? "/search/budget" : "/matrix",
                      "more than " + std::to_string(kMaxPoints) + " points",
                      "a campaign of at most " + std::to_string(kMaxPoints) +
                          " points (matrix combinations x host pairs or fabric flows and probes "
                          "x repetitions)");
}

}  // namespace

Campaign parse_campaign(const nlohmann::json& j, const std::string& base_dir,
                        const std::string& self_exe, const CampaignOptions& options) {
  if (!j.is_object()) throw ConfigError("/", brief_json(j), "a campaign object");
  check_keys(
      j, "",
      {"name", "description", "hosts", "fabric", "launcher", "ssh_config", "connect_timeout_s",
       "matrix", "search", "exclude", "repetitions", "timeout_s", "token"});
  Campaign c;
  c.name = get_string(require(j, "name", "", "the campaign's name"), "/name", "a non-empty string");
  if (c.name.empty() || c.name.find('\n') != std::string::npos)
    throw ConfigError("/name", nlohmann::json(c.name).dump(), "a non-empty one-line string");
  if (auto it = j.find("description"); it != j.end())
    c.description = get_string(*it, "/description", "a string");

  parse_launcher(j, options, c);
  parse_hosts(j, base_dir, self_exe, c);
  parse_ssh_config(j, base_dir, c);
  c.connect_timeout_s = get_seconds(j, "connect_timeout_s", "", 10, 0, 600);
  c.timeout_s = get_seconds(j, "timeout_s", "", 300, 0, 86400);

  parse_workload_space(j, c);
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
  check_point_count(c);
  if (c.fabric) c.links = fabric_links(*c.fabric);  // after the size check: at most kMaxPoints
  c.source = j;
  if (c.source.contains("token")) c.source["token"] = "(hidden)";
  return c;
}

Campaign load_campaign(const std::string& path, const std::string& self_exe,
                       const CampaignOptions& options) {
  const std::optional<std::string> text = read_file(path);
  if (!text) throw ConfigError("campaign file", path, "a readable file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError("campaign file", path, std::string("valid JSON (") + e.what() + ")");
  }
  std::string dir;
  if (auto slash = path.rfind('/'); slash != std::string::npos) dir = path.substr(0, slash);
  if (dir.empty() && !path.empty() && path.front() == '/') dir = "/";
  try {
    return parse_campaign(j, dir, self_exe, options);
  } catch (const ConfigError& e) {
    // Prefix the file so the message reads "invalid PATH /matrix/op/2 '...': ..." (not for a
    // command-line option such as --launcher).
    if (e.field().rfind("--", 0) == 0) throw;
    throw ConfigError(path + ": " + e.field(), e.value(), e.allowed());
  }
}

HostPair Campaign::pair(size_t i) const {
  if (!fabric) return pairs.at(i);
  const Flow& l = links.at(i);
  const FabricHost& server = fabric->hosts[l.server];
  return HostPair{link_name(*fabric, l), server.spec, fabric->hosts[l.client].spec,
                  server.connect_address};
}

size_t Campaign::flow_count() const {
  if (!fabric) return pairs.size();
  size_t flows = 0;
  for (const Round& r : fabric->rounds) flows += r.flows.size();
  return flows;
}

std::string Campaign::pair_name(size_t i) const {
  return fabric ? link_name(*fabric, links.at(i)) : pairs.at(i).name;
}

namespace {

// A fabric's (server, client) -> link index, sorted for lookup.
class LinkIndex {
 public:
  explicit LinkIndex(const Campaign& c) : n_(c.fabric ? c.fabric->hosts.size() : 0) {
    index_.reserve(c.links.size());
    for (size_t i = 0; i < c.links.size(); ++i)
      index_.emplace_back(c.links[i].server * n_ + c.links[i].client, static_cast<uint32_t>(i));
    std::sort(index_.begin(), index_.end());
  }
  size_t of(const Flow& f) const {
    const auto it = std::lower_bound(index_.begin(), index_.end(),
                                     std::pair<uint64_t, uint32_t>{f.server * n_ + f.client, 0});
    return static_cast<size_t>(it->second);
  }

 private:
  uint64_t n_;
  std::vector<std::pair<uint64_t, uint32_t>> index_;
};

// What each combination's points share, made once for all its flows and repetitions, and their
// ids' common part.
std::vector<std::shared_ptr<const PointWorkload>> combination_works(const Campaign& c,
                                                                    std::vector<PointIds>& ids) {
  std::vector<std::shared_ptr<const PointWorkload>> works;
  for (size_t k = 0; k < c.combinations(); ++k) {
    auto work = std::make_shared<PointWorkload>();
    work->values = c.combination(k);
    if (c.search) {
      work->skip_reason = c.draw.runs[k].skip_reason;  // checked when drawn
    } else {
      try {
        workload_from_values(work->values);
      } catch (const ConfigError& e) {
        work->skip_reason = e.what();
      }
    }
    work->workload_options = client_options(work->values);
    ids.emplace_back(work->values);
    works.push_back(std::move(work));
  }
  return works;
}

}  // namespace

Expansion expand(const Campaign& c) {
  Expansion x;
  const LinkIndex links(c);
  auto link_of = [&links](const Flow& f) { return links.of(f); };
  // Round labels before any cap split, once per round.
  std::vector<std::string> round_labels;
  if (c.fabric)
    for (const Round& r : c.fabric->rounds) round_labels.push_back(unsplit_label(r.label));
  const size_t combos = c.combinations();
  x.points.reserve((c.fabric ? fabric_points_per_combination(*c.fabric) : c.flow_count()) * combos *
                   c.repetitions);
  std::vector<PointIds> ids;
  const std::vector<std::shared_ptr<const PointWorkload>> works = combination_works(c, ids);
  std::optional<PointIds> probe_ids;
  std::shared_ptr<PointWorkload> probe_work;
  if (c.fabric && c.fabric->probes) {
    probe_work = std::make_shared<PointWorkload>();
    probe_work->values = c.fabric->probes->values;  // checked when parsed
    probe_work->workload_options = client_options(probe_work->values);
    probe_ids.emplace(probe_work->values);
  }
  size_t index = 0;
  // `work`, `point_ids`: the point's workload; `round_name`: the round in its id.
  auto add = [&](size_t p, std::optional<uint32_t> round, unsigned rep, uint32_t beside,
                 const std::shared_ptr<const PointWorkload>& work, const PointIds& point_ids,
                 const std::string& round_name) {
    const std::string name = c.pair_name(p);
    bool excluded = false;
    for (const auto& e : c.excludes) excluded = excluded || e.matches(work->values, name);
    if (excluded) {
      ++x.excluded;
      return;
    }
    Point& pt = x.points.emplace_back();
    pt.index = index++;
    pt.pair = p;
    pt.round = round;
    pt.repetition = rep;
    pt.beside = beside;
    pt.work = work;
    pt.id = point_ids.id(name, rep, round_name);
  };
  for (unsigned rep = 1; rep <= c.repetitions; ++rep) {
    if (!c.fabric) {
      for (size_t k = 0; k < combos; ++k)
        for (size_t p = 0; p < c.pairs.size(); ++p)
          add(p, std::nullopt, rep, 0, works[k], ids[k], "");
      continue;
    }
    const FabricSpec& f = *c.fabric;
    if (f.probes)
      for (const Round& r : f.rounds)
        if (is_idle_probe_round(r.label))
          for (const Flow& flow : r.flows)
            add(link_of(flow), r.index, rep, kIdleProbe, probe_work, *probe_ids, kIdleProbeRound);
    for (size_t k = 0; k < combos; ++k) {
      std::string last;
      for (const Round& r : f.rounds) {
        if (f.probes && is_idle_probe_round(r.label)) continue;
        for (const Flow& flow : r.flows)
          add(link_of(flow), r.index, rep, 0, works[k], ids[k], round_labels[r.index]);
        if (!f.probes) continue;
        const std::string probe_round = probe_round_name(round_labels[r.index], works[k]->values);
        for (const Flow& flow : probe_flows(*f.probes, r, round_labels[r.index] != last))
          add(link_of(flow), r.index, rep, static_cast<uint32_t>(k + 1), probe_work, *probe_ids,
              probe_round);
        last = round_labels[r.index];
      }
    }
  }
  x.combinations.assign(works.begin(), works.end());
  x.points.shrink_to_fit();
  return x;
}

}  // namespace rdmabench
