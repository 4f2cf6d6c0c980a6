#pragma once
// One host of a campaign as the campaign file describes it (a host pair's server or client, a
// fabric's host): where rdmabench runs and with which device, and the pieces of the file's
// syntax the host objects share: "${NAME}" from the environment, addresses, JSON accessors that
// name the JSON path of a bad value.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/launch/slurm_allocation.h"

namespace rdmabench {

struct HostSpec {
  std::string host;    // "local" (this machine) or an ssh destination ([user@]host or alias)
  std::string device;  // "" = rdmabench's default (the first device)
  // -x: a GID index, or a GID or an IP address (`gid`) instead; neither = auto (the RoCE v2 GID
  // of the port's IPv4 address). The syntax is the command line's (model/gid_option.h).
  std::optional<int> gid_index;
  std::string gid;
  std::string rdmabench;  // the rdmabench to run there (path or command name)
  // Where rdmabench's workers run on this host (--cpus "0-3,8" as canonical text, --numa
  // "none"/"auto"/N); "" = not given. A server gets them as its own options; a client gets them
  // unless the point's workload sets cpus / numa itself.
  std::string cpus;
  std::string numa;
  bool is_local() const { return host == "local"; }
};

// The keys of a host object (parse_host_spec).
inline const std::vector<std::string> kHostSpecKeys = {"host",      "device", "gid_index",
                                                       "rdmabench", "cpus",   "numa"};

// A host object {"host", "device", "gid_index", "rdmabench", "cpus", "numa"}; `extra_keys` are
// further keys the caller reads itself. "rdmabench": "self" (the default for "local") is
// `self_exe`.
HostSpec parse_host_spec(const nlohmann::json& j, const std::string& path,
                         const std::string& self_exe,
                         const std::vector<std::string>& extra_keys = {});

// The options that give a server or client on `h` its device port's GID: {"-x", VALUE} or none.
std::vector<std::string> gid_args(const HostSpec& h);

// With the slurm launcher (`allocation` not null): a host other than "local" must be a node of
// the allocation; ConfigError naming `path`, the host and the allocation's nodes.
void check_in_allocation(const HostSpec& h, const std::string& path,
                         const SlurmAllocation* allocation);

// "${NAME}" and "${NAME:-default}" replaced from the environment (the orchestrator's); "$${"
// stands for a literal "${". ConfigError naming `path` for an unset variable or bad syntax.
std::string expand_env(const std::string& s, const std::string& path);

// The address a client connects to (after expand_env): no spaces, not starting with '-'.
std::string parse_connect_address(const nlohmann::json& v, const std::string& path);

// j[key], or ConfigError "path/key (missing): what".
const nlohmann::json& require(const nlohmann::json& j, const std::string& key,
                              const std::string& path, const std::string& what);
// A string, or ConfigError naming `path`, the value and `what`.
std::string get_string(const nlohmann::json& v, const std::string& path, const std::string& what);
// A JSON number that is a whole number >= 0.
bool is_uint(const nlohmann::json& v);
// True when `s` has a space or a control character.
bool has_control_or_space(const std::string& s);

}  // namespace rdmabench
