#pragma once
// A campaign file (orchestrator/README.md has the format): where its points run (one driver's
// block: host pairs or a fabric, campaign_driver.h), the matrix of workloads (or a search block
// sampling a space of them, search.h), excludes, repetitions and limits. parse_campaign() checks
// everything up front
// and every error names the JSON path of the bad value (e.g. "/matrix/op/2"); expand() turns it
// into the ordered list of points, each with a stable id, and marks the invalid combinations
// (per the client's own validation) as skipped with the reason.
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign_driver.h"
#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/campaign/matrix.h"
#include "orchestrator/launch/slurm_allocation.h"
#include "orchestrator/search/search.h"

namespace rdmabench {

// Largest campaign (points before excludes): matrix combinations x host pairs (fabric: flows of
// all rounds) x repetitions.
inline constexpr size_t kMaxPoints = 1000000;

struct Campaign {
  std::string name;
  std::string description;
  // Where its points run: the driver of its "hosts", "fabric" or "hunt" block (campaign_driver.h).
  std::shared_ptr<const CampaignDriver> driver;
  std::string ssh_config;  // "" = ssh's defaults (~/.ssh/config)
  // How commands reach the hosts other than "local": "ssh" (the default) or "slurm" (job steps
  // of the allocation the sweep runs in: slurm_launcher.h); `allocation` is that allocation.
  std::string launcher = "ssh";
  std::optional<SlurmAllocation> allocation;
  Matrix matrix;  // empty with `search`
  std::vector<Exclude> excludes;
  std::optional<Search> search;  // a "search" block instead of a matrix
  SearchDraw draw;               // its runs, drawn when the campaign is parsed
  unsigned repetitions = 1;
  double timeout_s = 300;         // per point: server start to client exit
  double connect_timeout_s = 10;  // ssh ConnectTimeout and the reachability check
  std::string token;              // "" = a random one per sweep
  nlohmann::json source;          // the document as read (token removed)

  // The host pairs, whatever the kind: a host-pair campaign's pairs, or a fabric's links (made
  // from their two hosts when asked: name "client -> server", the server's connect address).
  size_t pair_count() const { return driver->pair_count(); }
  // The runs of one workload combination and repetition: the host pairs, or a fabric's flows
  // over all its rounds (a link may be measured in several rounds).
  size_t flow_count() const { return driver->flow_count(); }
  HostPair pair(size_t i) const { return driver->pair(i); }
  std::string pair_name(size_t i) const { return driver->pair_name(i); }

  // The workload combinations: the matrix's, or the runs drawn by the search (none for a driver
  // that makes its points as it goes: a hunt).
  size_t combinations() const {
    if (driver->adaptive_budget()) return 0;
    return search ? draw.runs.size() : matrix.size();
  }
  nlohmann::json combination(size_t k) const {
    return search ? draw.runs.at(k).values : matrix.combination(k);
  }
};

struct Point {
  size_t index = 0;  // position in the campaign (0-based)
  std::string id;
  size_t pair = 0;                // index of its host pair or link (Campaign::pair)
  std::optional<uint32_t> round;  // fabric: index into its rounds (fabric_spec(c)->rounds)
  unsigned repetition = 1;        // 1-based
  // Its driver's own value, opaque here (a fabric's: load flow or latency probe,
  // fabric/fabric_point.h; 0 for every host-pair point).
  uint32_t tag = 0;
  std::shared_ptr<const PointWorkload> work;

  const nlohmann::json& values() const { return work->values; }
  const std::vector<std::string>& workload_options() const { return work->workload_options; }
  const std::string& skip_reason() const { return work->skip_reason; }
  bool skipped() const { return !work->skip_reason.empty(); }
};

struct Expansion {
  // Repetition, then matrix combination, then host pair (fabric: round, then its flows; with
  // probes, each repetition starts with the idle round's probes, and each load round's probes
  // follow its load flows).
  std::vector<Point> points;
  size_t excluded = 0;                                             // dropped by `exclude`
  std::vector<std::shared_ptr<const PointWorkload>> combinations;  // by combination index
};

// What the command line adds to the file: `launcher` overrides the file's "launcher" (sweep
// --launcher; "" = the file's); `allocation` is asked once, only when the launcher is slurm
// (find_slurm_allocation; tests give a fixed one). With slurm, every host other than "local" must
// be a node of the allocation, and a fabric without "hosts" or "hostfile" runs on all of them.
// `kinds`: the kinds of campaign known besides host pairs (sweep.h campaign_kinds() has them
// all: the fabric's).
struct CampaignOptions {
  std::string launcher;
  std::function<SlurmAllocation()> allocation;
  std::vector<DriverKind> kinds;
};
inline const std::vector<std::string> kLaunchers = {"ssh", "slurm"};

// `base_dir`: folder of the campaign file (a relative ssh_config is relative to it);
// `self_exe`: the path that "rdmabench": "self" stands for.
Campaign parse_campaign(const nlohmann::json& j, const std::string& base_dir,
                        const std::string& self_exe, const CampaignOptions& options = {});
// Reads and parses a campaign file (ConfigError for unreadable files and bad JSON too).
Campaign load_campaign(const std::string& path, const std::string& self_exe,
                       const CampaignOptions& options = {});

Expansion expand(const Campaign& c);

}  // namespace rdmabench
