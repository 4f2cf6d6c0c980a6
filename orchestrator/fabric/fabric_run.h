#pragma once
// What a fabric sweep runs, round by round: the points still to run grouped into the rounds
// they measure in (the same repetition and workload combination), with the per-host cap
// applied — "auto" becomes the fewest online CPUs of the fabric's hosts minus one (at least 1),
// from the host check — and each point's fabric fields for its result document.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"

namespace rdmabench {

struct FabricRun {
  struct Member {
    const Point* point = nullptr;
    uint32_t server = 0;  // the fabric host that serves it (`host_names`)
    uint32_t client = 0;
    uint32_t round = 0;  // its round in `round_plan`
  };
  struct Group {
    std::vector<Member> members;  // one round's flows, run at once
  };
  std::vector<Group> groups;
  size_t rounds = 0;  // rounds in the plan as run (after the cap's split)
  std::string note;   // the cap applied, for the sweep's output
  std::string pattern;
  std::vector<Round> round_plan;        // the rounds as run
  std::vector<std::string> host_names;  // the fabric's hosts, by index
  const std::string& server_name(const Member& m) const { return host_names.at(m.server); }
  const std::string& client_name(const Member& m) const { return host_names.at(m.client); }
  // A member's fabric fields for its result document: {"fabric": {pattern, round, round_index,
  // flows_in_round, server, client}} (built when it is recorded: a 1,000-host pairwise plan has
  // a million members).
  nlohmann::json fields(const Member& m) const;
};

// --resume in a fabric: a round runs whole, so that a flow is measured again under the load its
// round puts on the fabric. The points of every round (the same repetition, workload
// combination and planned round) that has a point in `todo`, in expansion order; the partners
// that had finished are measured again and their new results replace the old.
std::vector<const Point*> with_round_partners(const Expansion& x,
                                              const std::vector<const Point*>& todo);

// `todo`: the points to run (of `x`), in expansion order; `host_cpus`: online CPUs by
// HostSpec::host. A round's probes join its load's group (the per-host cap counts the load only).
FabricRun plan_fabric_run(const Campaign& c, const Expansion& x,
                          const std::vector<const Point*>& todo,
                          const std::map<std::string, unsigned>& host_cpus);

}  // namespace rdmabench
