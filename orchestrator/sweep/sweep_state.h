#pragma once
// What the steps of `rdmabench sweep` (sweep.cc) share: the campaign and its points, the hosts
// and their launchers, the points to run now, the host checks' findings and the counts of what
// ran; and the host checks themselves (host_checks.cc: a command per host; agent_checks.cc: a
// fabric's agents, whose hellos are its checks). Private to orchestrator/sweep/.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/temp_dir.h"
#include "model/campaign_index.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/sweep/resume.h"
#include "orchestrator/sweep/sweep.h"

namespace rdmabench {

struct HostUse {
  std::string rdmabench;        // the first rdmabench path seen for the host (env capture)
  std::set<std::string> paths;  // every rdmabench path to check
  std::set<std::string> roles;  // "pair 'x' server", ...
};

inline std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// What the sweep's steps share: the campaign and its points, the hosts and their launchers, the
// points to run now, the host checks' findings and the counts of what ran.
struct Sweep {
  Sweep(const SweepOptions& o, const Campaign& campaign, const Expansion& expansion)
      : opt(o),
        c(campaign),
        x(expansion),
        dir(o.out_dir.empty() ? "out/" + slug(campaign.name, 60) : o.out_dir),
        index_path(dir + "/index.jsonl") {}

  const SweepOptions& opt;
  const Campaign& c;
  const Expansion& x;
  const std::string dir;
  const std::string index_path;
  std::map<std::string, HostUse> hosts;
  std::set<std::string> done;               // finished earlier (--resume)
  std::map<std::string, IndexEntry> index;  // the earlier index (--resume)
  // ssh's control sockets; removed at the end, after the launchers (declared after it) are gone.
  std::unique_ptr<TempDir> control;
  std::map<std::string, std::unique_ptr<Launcher>> launchers;
  std::vector<const Point*> todo;                  // the points to run now
  size_t skipped = 0;                              // points skipped as invalid
  std::map<std::string, unsigned> host_cpus;       // online CPUs, where `nproc` told
  std::map<std::string, ClockOffset> host_clocks;  // each host's clock against this one's
  // (host, rdmabench path) -> why its check failed.
  std::map<std::pair<std::string, std::string>, std::string> bad_paths;
  size_t finished = 0, failed = 0;  // points run now, and those of them that failed
  size_t left_out = 0;              // a fabric's points left out with their hosts (failed)
  size_t bad_links = 0;             // a fabric's link measurements judged bad
  std::map<std::string, std::string> lost_agents;   // hosts whose agent was lost mid-campaign
  std::chrono::steady_clock::time_point clocks_at;  // when the clock offsets were measured
};

// Hosts: reachable, rdmabench runs; environment once (DIR/env/<host>.json), and a fabric's clock
// offsets. In parallel, one thread per host. False when a host failed and the sweep must stop
// having run nothing (a fabric goes on without it).
bool check_hosts(Sweep& s, std::ostream& err);

// A host's environment record, however it was captured (a command, or its agent's hello), with
// its clock offset when one was measured: written to DIR/env/<host>.json (atomically), and a
// warning when its `rdmabench devices --json` failed. Returns the host's CPU count when the
// record has it. Both checks (host_checks.cc, agent_checks.cc) write through it.
std::optional<unsigned> write_host_env(const Sweep& s, const std::string& host,
                                       const nlohmann::json& env, const ClockOffset* clock,
                                       std::ostream& err);

// The agents of a driver that runs through them (a fabric's), whose hellos are its host checks
// (agent_checks.cc); null when it has none or its launchers start none.
std::unique_ptr<AgentHub> start_agents(Sweep& s, const std::string& token, std::ostream& err);
bool through_agents(const Sweep& s);

// Called between a fabric's rounds: refreshes the clock offsets over the agents when due, and
// records each refresh in the index.
void refresh_clocks_if_due(Sweep& s, AgentHub& hub, IndexWriter& writer);

}  // namespace rdmabench
