#pragma once
// Latency probes beside a fabric's load (issue 34): small-message latency flows that run in the
// same window as a round's load flows, and once more with no load, so that each probe's p99 under
// load can be set against its p99 idle.
//
//   "fabric": {..., "probes": {"workload": {"op": "send", "sizes": [8], "qp": "rc",
//                                           "duration_s": 1, "rate": 10000},
//                              "links": "load"}}
//
// workload  The probe's workload: matrix keys (orchestrator/README.md), one value each (no
//           lists), in latency mode ("mode" may be omitted; any other mode is refused). "rate"
//           makes it open loop (a fixed schedule of messages per second); without it the probe
//           is a closed-loop ping-pong. Give it a duration_s no longer than the load's, so that
//           it measures inside the load's window (both start at the round's --start-at).
// links     "load" (the default): a probe on the link of every load flow of the round, from the
//           same client to the same server; or a list of [server, client] pairs (host indices
//           or names), probed in every round of the plan (in the first part of a round the
//           per-host cap splits).
//
// The plan then starts with the idle round, "probes idle": every probe link once, with no load,
// and no host in two probes at once (split as a round is under a per-host cap of 1: labels
// "probes idle part i/m"; an incast's probes into one target take one part each, a pairwise
// fabric's as many parts as it has rounds). Each load round carries
// its load flows and its probe flows; the cap counts the load flows only (a probe is small, and
// it must share its load's window). Point ids: a probe's id is made as a load flow's, from its own
// workload values and link, with the round "LABEL probe HASH" (HASH: eight hex digits of the load
// combination's values, so the probes beside two combinations differ) or "probes idle" — a
// campaign without probes keeps every id it had.
//
// Placement: a probe is a flow of its own, a client process of its own on the client host and a
// session (a QP and a thread) of its own in the server host's one server process — which also
// serves the load's sessions on that host. Where neither workload pins CPUs ("cpus"), or their
// CPU lists overlap, the kernel may run the probe on a core a load thread busy-polls: its figures
// then include that wait. probe_placement_note() says so.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/round_record.h"
#include "orchestrator/fabric/fabric_plan.h"

namespace rdmabench {

struct FabricHost;

struct ProbeSpec {
  nlohmann::json values;      // the probe's workload, as matrix values (canonical)
  bool on_load_links = true;  // "links": "load"
  std::vector<Flow> pairs;    // "links": [[server, client], ...]
};

// The "probes" block (`path`: "/fabric/probes"); host names in "links" are resolved.
ProbeSpec parse_probes(const nlohmann::json& j, const std::string& path,
                       const std::vector<FabricHost>& hosts);

// `load`: the load's rounds (plan_rounds). With probes, the idle round's parts first (a cap of 1,
// whatever `max_flows_per_host`), then the load's rounds, every index continuing; without,
// `load` as it is.
std::vector<Round> with_idle_probe_rounds(std::vector<Round> load, const ProbeSpec* probes,
                                          uint32_t hosts, uint32_t max_flows_per_host);

// Whether a round of the plan is the idle probe round (or a part of it): is_idle_probe_round and
// kIdleProbeRound, model/round_record.h (the report reads the same labels).

// The probe flows of load round `r`; `first_part`: r is a round's first part (or the whole
// round): named pairs are probed there only.
std::vector<Flow> probe_flows(const ProbeSpec& p, const Round& r, bool first_part);

// The round a probe beside a load combination is given in its point id.
std::string probe_round_name(const std::string& load_round, const nlohmann::json& load_values);

// A line on where the probe runs against the load of `load_values` (its CPUs), "" when both pin
// disjoint CPU lists.
std::string probe_placement_note(const ProbeSpec& p, const nlohmann::json& load_values);

}  // namespace rdmabench
