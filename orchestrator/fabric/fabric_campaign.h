#pragma once
// The "fabric" block of a campaign (orchestrator/README.md, "Fabric campaigns"): a list of hosts
// (inline, or a hostfile of one host a line) and a traffic pattern (fabric_plan.h), planned into
// rounds of concurrent flows. parse_fabric() checks everything up front, every error naming the
// JSON path (or the hostfile's line) of the bad value, and plans the rounds; campaign.cc turns
// each flow into a point per workload combination and repetition.
//
//   "fabric": {
//     "hosts": ["rb-host1", {"host": "rb-host2", "device": "rxe0", "connect_address": "10.0.0.2"}],
//     "hostfile": "hosts.txt",             (instead of "hosts")
//     "allocation": {"device": "mlx5_0"},  (instead of "hosts": every node of the Slurm
//                                           allocation, slurm launcher only; the default there)
//     "pattern": {"pattern": "pairwise"},  (fabric_plan.h; "pairs" may name hosts by name)
//     "max_flows_per_host": 3              (or "auto", the default)
//     "verdicts": {"bw_fraction": 0.93}    (fabric_verdicts.h; all keys optional)
//   }
//
// A host: a string (the ssh destination, or "local"), or an object with the keys of a host pair's
// end (host, device, gid_index, rdmabench) and "name" (default: the host; unique in the fabric:
// several names may share one machine, e.g. "local" on the testbed) and "connect_address" (the
// address its peers connect to; default: the one in its server's ready line).
//
// "allocation": the nodes of the Slurm allocation the sweep runs in, in Slurm's order, each with
// the keys of the object (device, gid_index, rdmabench, cpus, numa; {} for the defaults). With the
// slurm launcher, a block with none of hosts, hostfile and allocation means "allocation": {}.
//
// Hostfile: one host a line, "HOST [key=value ...]" with the same keys; '#' starts a comment;
// blank lines are skipped. A relative path is relative to the campaign file's folder.
//
// "max_flows_per_host": a host's flows in one round (as server plus as client); a round over it
// is split (fabric_plan.h). "auto": the fewest online CPUs of any host, minus one (at least 1),
// for every host (fabric_run.h) — the planner splits a round as a whole against one cap, and a
// flow loads both its ends, so the host with the fewest CPUs bounds them all. Applied when the
// sweep runs, after the host check; --dry-run then shows the rounds before that split.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/fabric/fabric_plan.h"
#include "orchestrator/fabric/fabric_probes.h"
#include "orchestrator/fabric/fabric_verdicts.h"

namespace rdmabench {

struct FabricHost {
  std::string name;             // unique in the fabric
  HostSpec spec;                // where and how rdmabench runs there
  std::string connect_address;  // "" = the address in its server's ready line
};

struct FabricSpec {
  std::vector<FabricHost> hosts;
  std::string hostfile;    // the file the hosts came from ("" = inline)
  std::string allocation;  // the Slurm job whose nodes the hosts are ("" = named hosts)
  FabricPattern pattern;
  std::optional<uint32_t> max_flows_per_host;  // nullopt = "auto"
  std::optional<ProbeSpec> probes;             // "probes" (fabric_probes.h)
  std::vector<Round> rounds;                   // planned with the explicit cap (or none)
  VerdictCriteria verdicts;                    // "verdicts" (fabric_verdicts.h)
  // "start_delay_s": a round's clients start measuring this long after they are launched, all
  // at the same moment (client --start-at, corrected by each host's clock offset); 0: each as
  // soon as it is connected. nullopt: "auto" (the default), from what the rounds measure
  // (start_delay.h).
  std::optional<double> start_delay_s;
  // "agent_listen": where agents that connect back (slurm) reach the sweep: "auto" (this
  // machine's host name, any free port), "HOST" or "HOST:PORT" (orchestrator/agent/agent_hub.h).
  std::string agent_listen = "auto";
};
inline constexpr double kMaxStartDelayS = 60;

// `path`: the block's JSON path ("/fabric"); `base_dir`: the campaign file's folder;
// `allocation`: the Slurm allocation with the slurm launcher (hosts must lie in it), else null.
FabricSpec parse_fabric(const nlohmann::json& j, const std::string& path,
                        const std::string& base_dir, const std::string& self_exe,
                        const SlurmAllocation* allocation = nullptr);

// The hosts of a hostfile's text (`file` names it in errors, with the line number).
std::vector<FabricHost> parse_hostfile(const std::string& text, const std::string& file,
                                       const std::string& self_exe);

// The fabric's rounds under a per-host cap: the pattern's (plan_rounds), after the idle probe
// round when there are probes (fabric_probes.h).
std::vector<Round> plan_fabric(const FabricSpec& f, uint32_t max_flows_per_host);

// The name of the link a flow measures: "<client> -> <server>" (data goes client to server).
std::string link_name(const FabricSpec& f, const Flow& flow);

// A round's label before the per-host cap split ("pairwise 3/7 part 1/2" -> "pairwise 3/7"):
// a flow keeps its point id whatever the cap.
std::string unsplit_label(const std::string& label);

}  // namespace rdmabench
