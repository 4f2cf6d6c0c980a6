#include "orchestrator/campaign/campaign.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/file_text.h"
#include "base/json_util.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"
#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/campaign/pair_driver.h"
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

// Where the points run: the block of exactly one kind (host pairs, or a kind in `kinds`; a kind
// on host pairs, a hunt, with the "hosts" block beside its own). Returns that kind.
const DriverKind& parse_driver(const nlohmann::json& j, const std::string& base_dir,
                               const std::string& self_exe, const std::vector<DriverKind>& kinds,
                               Campaign& c, std::shared_ptr<CampaignDriver>& driver) {
  std::string either;
  std::string blocks;
  std::vector<const DriverKind*> present;
  bool on_pairs = false;
  for (const DriverKind& k : kinds) {
    either += (either.empty() ? "either \"" : " or \"") + k.key + "\" (" + k.holds + ")";
    if (&k != &kinds.front()) blocks += (blocks.empty() ? "\"" : " or \"") + k.key + "\"";
    if (!j.contains(k.key)) continue;
    present.push_back(&k);
    on_pairs = on_pairs || k.on_host_pairs;
  }
  const DriverKind& pairs = kinds.front();
  if (on_pairs && present.front() == &pairs) present.erase(present.begin());  // theirs
  if (present.size() > 1)
    throw ConfigError("/" + present[0]->key, brief_json(j[present[0]->key]), either + ", not both");
  DriverParseContext ctx{base_dir, self_exe, c.allocation ? &*c.allocation : nullptr, nullptr};
  const DriverKind& kind = present.empty() ? pairs : *present.front();
  std::shared_ptr<CampaignDriver> hosts;
  if (kind.on_host_pairs || &kind == &pairs) {
    const std::string what = "a list of " + pairs.holds;
    hosts = pairs.parse(
        require(
            j, pairs.key, "",
            blocks.empty() || kind.on_host_pairs ? what : what + " (or a " + blocks + " block)"),
        "/" + pairs.key, ctx);
  }
  if (&kind == &pairs) {
    driver = std::move(hosts);
    return kind;
  }
  std::vector<HostPair> host_pairs;
  if (hosts)
    for (size_t i = 0; i < hosts->pair_count(); ++i) host_pairs.push_back(hosts->pair(i));
  ctx.host_pairs = hosts ? &host_pairs : nullptr;
  driver = kind.parse(j[kind.key], "/" + kind.key, ctx);
  return kind;
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
// (points drawn now, each checked as a workload when drawn); none beside a kind whose block says
// what it measures (a hunt's).
void parse_workload_space(const nlohmann::json& j, const DriverKind& kind, Campaign& c) {
  if (!kind.own_space.empty()) {
    for (const char* other : {"matrix", "search", "exclude"})
      if (j.contains(other))
        throw ConfigError("/" + kind.key, brief_json(j[kind.key]),
                          "a \"" + kind.key + "\" on its own: no \"" + other + "\" beside it (" +
                              kind.own_space + ")");
    return;
  }
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

// The whole campaign must stay a list we can hold and run.
void check_point_count(const Campaign& c, const CampaignDriver& driver) {
  const size_t flows = driver.points_per_combination();
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
  std::vector<DriverKind> kinds{pair_kind()};
  kinds.insert(kinds.end(), options.kinds.begin(), options.kinds.end());
  std::vector<std::string> keys{
      "name",    "description", "launcher",  "ssh_config", "connect_timeout_s", "matrix", "search",
      "exclude", "repetitions", "timeout_s", "token"};
  for (const DriverKind& k : kinds) keys.insert(keys.begin() + 2 + (&k - kinds.data()), k.key);
  check_keys(j, "", keys);
  Campaign c;
  c.name = get_string(require(j, "name", "", "the campaign's name"), "/name", "a non-empty string");
  if (c.name.empty() || c.name.find('\n') != std::string::npos)
    throw ConfigError("/name", nlohmann::json(c.name).dump(), "a non-empty one-line string");
  if (auto it = j.find("description"); it != j.end())
    c.description = get_string(*it, "/description", "a string");

  parse_launcher(j, options, c);
  std::shared_ptr<CampaignDriver> driver;
  const DriverKind& kind = parse_driver(j, base_dir, self_exe, kinds, c, driver);
  c.driver = driver;
  parse_ssh_config(j, base_dir, c);
  c.connect_timeout_s = get_seconds(j, "connect_timeout_s", "", 10, 0, 600);
  c.timeout_s = get_seconds(j, "timeout_s", "", 300, 0, 86400);

  parse_workload_space(j, kind, c);
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
  check_point_count(c, *driver);
  driver->prepare();  // after the size check: a fabric's links, at most kMaxPoints
  c.driver = std::move(driver);
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

namespace {

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
  x.points.reserve(c.driver->points_per_combination() * c.combinations() * c.repetitions);
  std::vector<PointIds> ids;
  const std::vector<std::shared_ptr<const PointWorkload>> works = combination_works(c, ids);
  size_t index = 0;
  unsigned rep = 1;
  const AddPoint add = [&](const PointDraft& d) {
    const std::shared_ptr<const PointWorkload>& work = *d.work;
    const std::string name = c.pair_name(d.pair);
    bool excluded = false;
    for (const auto& e : c.excludes) excluded = excluded || e.matches(work->values, name);
    if (excluded) {
      ++x.excluded;
      return;
    }
    Point& pt = x.points.emplace_back();
    pt.index = index++;
    pt.pair = d.pair;
    pt.round = d.round;
    pt.repetition = rep;
    pt.tag = d.tag;
    pt.work = work;
    pt.id = d.ids->id(name, rep, *d.round_name);
  };
  for (; rep <= c.repetitions; ++rep) c.driver->add_points(rep, Combinations{works, ids}, add);
  x.combinations.assign(works.begin(), works.end());
  x.points.shrink_to_fit();
  return x;
}

}  // namespace rdmabench
