#pragma once
// Before a campaign: every host must be reachable and run its rdmabench (`rdmabench --version`)
// within the connect timeout; then its environment is captured once (DIR/env/<host>.json): the
// kernel (`uname -a`), the rdma-core package version, the online CPUs (`nproc`: a fabric's
// "auto" cap of flows per host) and `rdmabench devices --json`, all in one command (one ssh round
// trip or Slurm step); a fabric sweep adds the host's clock offset (clock_offset.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/launch/launcher.h"

namespace rdmabench {

// Connects (ssh: the control master) and runs `rdmabench --version`, which must print this
// controller's own version. Returns the version line; throws Error with the host and what went
// wrong (unreachable, not rdmabench, another version).
std::string check_host(Launcher& l, const std::string& rdmabench, double timeout_s);

nlohmann::json capture_host_env(Launcher& l, const std::string& rdmabench, double timeout_s);

// The same environment gathered where it runs (a fabric's agent, for its hello): the script's
// argv for this host's rdmabench, and the members its output gives (rdmabench_version, kernel,
// rdma_core, cpus, devices or devices_error). capture_host_env is these over a launcher.
std::vector<std::string> host_env_argv(const std::string& rdmabench);
nlohmann::json host_env_members(const CommandOutput& r);

}  // namespace rdmabench
