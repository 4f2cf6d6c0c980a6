#include "orchestrator/campaign/host_spec.h"

#include <cctype>
#include <cstdlib>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/json_util.h"
#include "model/gid_option.h"
#include "model/workload_fields.h"

namespace rdmabench {

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

HostSpec parse_host_spec(const nlohmann::json& j, const std::string& path,
                         const std::string& self_exe, const std::vector<std::string>& extra_keys) {
  std::vector<std::string> keys = kHostSpecKeys;
  keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
  if (!j.is_object()) {
    std::string list;
    for (const auto& k : keys) list += (list.empty() ? "" : ", ") + nlohmann::json(k).dump();
    throw ConfigError(path, brief_json(j), "an object: {" + list + "}");
  }
  check_keys(j, path, keys);
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
    // What -x takes (an index, a GID, an IP address), as a number or a string, or "auto".
    const std::string gpath = path + "/gid_index";
    const std::string allowed = std::string(kGidOptionAllowed) + ", or \"auto\" (the default)";
    std::string text;
    if (it->is_string())
      text = expand_env(it->get<std::string>(), gpath);
    else if (is_uint(*it))
      text = std::to_string(it->get<uint64_t>());
    else
      throw ConfigError(gpath, brief_json(*it), allowed);
    if (text != "auto") {
      try {
        const GidOption g = parse_gid_option(gpath, text);
        if (g.index >= 0) h.gid_index = g.index;
        h.gid = g.gid;
      } catch (const ConfigError&) {
        throw ConfigError(gpath, brief_json(*it), allowed);
      }
    }
  }
  if (auto it = j.find("cpus"); it != j.end()) {
    // The workload field's own reading: "0-3,8", "2" or [0, 1]; canonical text for the options.
    nlohmann::json v;
    try {
      v = it->is_string()
              ? field_value_from_text(*find_workload_field("cpus"),
                                      expand_env(it->get<std::string>(), path + "/cpus"))
              : canonical_field_value("cpus", *it, path + "/cpus");
    } catch (const ConfigError& e) {
      if (e.field().rfind(path, 0) == 0) throw;
      throw ConfigError(path + "/cpus", e.value(), e.allowed());
    }
    for (const auto& c : v) h.cpus += (h.cpus.empty() ? "" : ",") + std::to_string(c.get<int>());
  }
  if (auto it = j.find("numa"); it != j.end()) {
    const std::string s = it->is_number_integer() && it->get<int64_t>() >= 0
                              ? std::to_string(it->get<int64_t>())
                              : get_string(*it, path + "/numa", "none, auto or a node number");
    h.numa = numa_text(parse_numa(s, path + "/numa"));
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

std::string parse_connect_address(const nlohmann::json& v, const std::string& path) {
  std::string a =
      expand_env(get_string(v, path, "the server address the client connects to"), path);
  if (a.empty() || a.front() == '-' || has_control_or_space(a))
    throw ConfigError(path, brief_json(v), "an address (no spaces, not starting with '-')");
  return a;
}

std::vector<std::string> gid_args(const HostSpec& h) {
  if (h.gid_index) return {"-x", std::to_string(*h.gid_index)};
  if (!h.gid.empty()) return {"-x", h.gid};
  return {};
}

void check_in_allocation(const HostSpec& h, const std::string& path,
                         const SlurmAllocation* allocation) {
  if (allocation == nullptr || h.is_local() || allocation->has(h.host)) return;
  std::string nodes;
  for (const auto& n : allocation->nodes) nodes += (nodes.empty() ? "" : ", ") + n;
  if (nodes.size() > 400) nodes = nodes.substr(0, 400) + "...";
  throw ConfigError(path, nlohmann::json(h.host).dump(),
                    "a node of Slurm allocation " + allocation->job_id + " (" +
                        allocation->nodelist + ": " + nodes +
                        "), or \"local\": the slurm launcher starts steps only inside it");
}

}  // namespace rdmabench
