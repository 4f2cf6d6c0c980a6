#include "orchestrator/campaign.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/error.h"
#include "harness/json_util.h"
#include "orchestrator/config_keys.h"
#include "orchestrator/point_id.h"
#include "workloads/workload_fields.h"
#include "workloads/workload_options.h"

namespace rdmabench {
namespace {

const nlohmann::json& require(const nlohmann::json& j, const std::string& key,
                              const std::string& path, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end()) throw ConfigError(path + "/" + key, "(missing)", what);
  return *it;
}

std::string get_string(const nlohmann::json& v, const std::string& path, const std::string& what) {
  if (!v.is_string()) throw ConfigError(path, brief_json(v), what);
  return v.get<std::string>();
}

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

// "${NAME}" and "${NAME:-default}" replaced from the environment (the orchestrator's); "$${"
// stands for a literal "${". Used for the host fields and ssh_config, so one campaign file can
// follow e.g. the testbed's RDMABENCH_TEST_DEVICE.
std::string expand_env(const std::string& s, const std::string& path) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (s.compare(i, 2, "${") != 0) {
      out += s[i++];
      continue;
    }
    size_t end = s.find('}', i);
    if (end == std::string::npos)
      throw ConfigError(path, nlohmann::json(s).dump(),
                        "a closing '}' after '${' (write $${ for a literal ${)");
    std::string expr = s.substr(i + 2, end - i - 2);
    std::string name = expr, def;
    bool has_def = false;
    if (size_t d = expr.find(":-"); d != std::string::npos) {
      name = expr.substr(0, d);
      def = expr.substr(d + 2);
      has_def = true;
    }
    bool ok_name = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
    for (char ch : name)
      ok_name = ok_name && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
    if (!ok_name)
      throw ConfigError(path, nlohmann::json(s).dump(),
                        "${NAME} or ${NAME:-default} with NAME an environment variable name");
    const char* v = std::getenv(name.c_str());
    if (v != nullptr && *v != '\0') {
      out += v;
    } else if (has_def) {
      out += def;
    } else {
      throw ConfigError(
          path, nlohmann::json(s).dump(),
          "environment variable " + name + " is not set (give a default: ${" + name + ":-VALUE})");
    }
    i = end + 1;
  }
  return out;
}

bool is_uint(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

bool has_control_or_space(const std::string& s) {
  for (unsigned char c : s)
    if (c <= ' ' || c == 0x7f) return true;
  return false;
}

HostSpec parse_host(const nlohmann::json& j, const std::string& path, const std::string& self_exe) {
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      "an object: {\"host\", \"device\", \"gid_index\", \"rdmabench\"}");
  check_keys(j, path, {"host", "device", "gid_index", "rdmabench"});
  HostSpec h;
  h.host = expand_env(
      get_string(require(j, "host", path, "\"local\" or an ssh destination ([user@]host)"),
                 path + "/host", "\"local\" or an ssh destination ([user@]host)"),
      path + "/host");
  if (h.host.empty() || h.host.front() == '-' || has_control_or_space(h.host))
    throw ConfigError(path + "/host", nlohmann::json(h.host).dump(),
                      "\"local\" or an ssh destination: not empty, no spaces or control "
                      "characters, not starting with '-'");
  if (auto it = j.find("device"); it != j.end()) {
    h.device = expand_env(
        get_string(*it, path + "/device", "an RDMA device name, or \"auto\" for the first one"),
        path + "/device");
    if (h.device == "auto") h.device.clear();
  }
  if (auto it = j.find("gid_index"); it != j.end()) {
    nlohmann::json v = *it;
    if (v.is_string()) {
      std::string s = expand_env(v.get<std::string>(), path + "/gid_index");
      if (!s.empty() && s.size() <= 5 && s.find_first_not_of("0123456789") == std::string::npos)
        v = std::stoul(s);
      else
        v = s;
    }
    if (v.is_string() && v.get<std::string>() == "auto") {
      h.gid_index.reset();
    } else if (is_uint(v) && v.get<uint64_t>() <= 65535) {
      h.gid_index = static_cast<int>(v.get<uint64_t>());
    } else {
      throw ConfigError(path + "/gid_index", brief_json(*it),
                        "a GID index from 0 to 65535, or \"auto\"");
    }
  }
  h.rdmabench = h.is_local() ? "self" : "rdmabench";
  if (auto it = j.find("rdmabench"); it != j.end()) {
    h.rdmabench =
        expand_env(get_string(*it, path + "/rdmabench",
                              "the path of rdmabench on that host, or \"self\" for this rdmabench"),
                   path + "/rdmabench");
    if (h.rdmabench.empty())
      throw ConfigError(path + "/rdmabench", "\"\"",
                        "the path of rdmabench on that host, or \"self\" for this rdmabench");
  }
  if (h.rdmabench == "self") h.rdmabench = self_exe;
  return h;
}

}  // namespace

Campaign parse_campaign(const nlohmann::json& j, const std::string& base_dir,
                        const std::string& self_exe) {
  if (!j.is_object()) throw ConfigError("/", brief_json(j), "a campaign object");
  check_keys(j, "",
             {"name", "description", "hosts", "ssh_config", "connect_timeout_s", "matrix", "search",
              "exclude", "repetitions", "timeout_s", "token"});
  Campaign c;
  c.name = get_string(require(j, "name", "", "the campaign's name"), "/name", "a non-empty string");
  if (c.name.empty() || c.name.find('\n') != std::string::npos)
    throw ConfigError("/name", nlohmann::json(c.name).dump(), "a non-empty one-line string");
  if (auto it = j.find("description"); it != j.end())
    c.description = get_string(*it, "/description", "a string");

  const auto& hosts = require(j, "hosts", "", "a list of host pairs");
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
    pair.server = parse_host(require(h, "server", p, "the server host"), p + "/server", self_exe);
    pair.client = parse_host(require(h, "client", p, "the client host"), p + "/client", self_exe);
    if (auto it = h.find("connect_address"); it != h.end()) {
      pair.connect_address = expand_env(
          get_string(*it, p + "/connect_address", "the server address the client connects to"),
          p + "/connect_address");
      if (pair.connect_address.empty() || pair.connect_address.front() == '-' ||
          has_control_or_space(pair.connect_address))
        throw ConfigError(p + "/connect_address", brief_json(*it),
                          "an address (no spaces, not starting with '-')");
    }
    c.pairs.push_back(std::move(pair));
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
  size_t total = c.combinations();
  for (size_t f : {c.pairs.size(), size_t{c.repetitions}})
    total = f != 0 && total > kMaxPoints / f ? kMaxPoints + 1 : total * f;
  if (total > kMaxPoints)
    throw ConfigError(c.search ? "/search/budget" : "/matrix",
                      "more than " + std::to_string(kMaxPoints) + " points",
                      "a campaign of at most " + std::to_string(kMaxPoints) +
                          " points (matrix combinations x host pairs x repetitions)");
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
      for (size_t p = 0; p < c.pairs.size(); ++p) {
        bool excluded = false;
        for (const auto& e : c.excludes) excluded = excluded || e.matches(values, c.pairs[p].name);
        if (excluded) {
          ++x.excluded;
          continue;
        }
        Point pt;
        pt.index = index++;
        pt.pair = p;
        pt.repetition = rep;
        pt.values = values;
        pt.workload_options = client_options(values);
        pt.skip_reason = reason;
        pt.id = point_id(values, c.pairs[p].name, rep);
        x.points.push_back(std::move(pt));
      }
    }
  }
  return x;
}

}  // namespace rdmabench
