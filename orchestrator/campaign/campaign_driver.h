#pragma once
// The kinds of campaign behind one interface. A campaign file's common part (name, launcher,
// limits, repetitions, token, the workload space) is parsed once by parse_campaign
// (campaign.h); where its points run comes from one block that a driver owns and parses:
// "hosts" (host pairs, pair_driver.h), "fabric" (hosts and a pattern, its rounds and probes:
// orchestrator/fabric/fabric_driver.h) or "hunt" (an adaptive search on the one host pair of a
// "hosts" block beside it: orchestrator/hunt/hunt_driver.h). The driver turns its block into
// host pairs (a fabric's links) and, per repetition, into points (a hunt: none, it makes them
// as it goes); parse_campaign and expand() know no kind.
// A new kind is a new driver and a DriverKind in the list the sweep passes (sweep.h
// campaign_kinds()): no branch in this folder.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/launch/slurm_allocation.h"

namespace rdmabench {

struct Point;  // campaign.h
struct Expansion;
class CampaignRun;  // orchestrator/run/campaign_run.h: a driver's side of a sweep
struct RunSetup;

struct HostPair {
  std::string name;
  HostSpec server;
  HostSpec client;
  std::string connect_address;  // "" = the address in the server's ready line
};

// What the points of one workload combination share (made once per combination: a fabric's
// million flows hold one pointer each, not a copy).
struct PointWorkload {
  nlohmann::json values;                      // the combination's matrix values (canonical)
  std::vector<std::string> workload_options;  // client options for them
  std::string skip_reason;                    // "" = runs; else why the client would refuse it
};

// One point a driver adds for a repetition: its host pair (link), its round (a fabric's), its
// driver's own value (Point::tag), its workload, its ids' common part and its round's name in
// its id ("" for none). expand() numbers it, drops it when an exclude matches, and makes its id.
struct PointDraft {
  size_t pair = 0;
  std::optional<uint32_t> round;
  uint32_t tag = 0;
  const std::shared_ptr<const PointWorkload>* work = nullptr;
  const PointIds* ids = nullptr;
  const std::string* round_name = nullptr;
};
using AddPoint = std::function<void(const PointDraft&)>;

// The workload combinations of the campaign's space, in order, and their ids' common parts.
struct Combinations {
  const std::vector<std::shared_ptr<const PointWorkload>>& works;
  const std::vector<PointIds>& ids;
};

// How a driver's points run through agents (one per host, for the whole campaign).
struct AgentUse {
  std::map<std::string, std::string> hosts;  // HostSpec::host -> the rdmabench run there
  std::string listen;  // where agents that connect back dial ("auto", "HOST" or "HOST:PORT")
};

class CampaignDriver {
 public:
  CampaignDriver() = default;
  CampaignDriver(const CampaignDriver&) = delete;
  CampaignDriver& operator=(const CampaignDriver&) = delete;
  virtual ~CampaignDriver() = default;

  // Its host pairs (a fabric: its links, one per ordered host pair its rounds measure).
  virtual size_t pair_count() const = 0;
  virtual HostPair pair(size_t i) const = 0;
  virtual std::string pair_name(size_t i) const = 0;
  // The runs of one combination and repetition (a fabric: its flows over all its rounds).
  virtual size_t flow_count() const = 0;
  // Points of one combination and repetition, at most (a fabric's probes included): the
  // campaign's size check and expand()'s reservation.
  virtual size_t points_per_combination() const { return flow_count(); }
  // Every host it runs on, once per use, with its role ("host pair 'a' server").
  virtual void for_each_host(
      const std::function<void(const HostSpec&, const std::string& role)>& use) const = 0;
  // Called once the campaign's size is checked, before the first pair(): what is costly to
  // make for a large campaign (a fabric's links) is made here.
  virtual void prepare() {}
  // The points of one repetition, in run order.
  virtual void add_points(unsigned repetition, const Combinations& combinations,
                          const AddPoint& add) const = 0;
  // --resume: the points to run when `left` (not done, in expansion order) are; a driver that
  // measures points together may add finished ones to measure again (a fabric's round runs
  // whole). By default `left`.
  virtual std::vector<const Point*> to_run(const Expansion& /*x*/,
                                           std::vector<const Point*> left) const {
    return left;
  }
  // What the sweep around its points does for it; the defaults are independent host pairs.
  // Its points measure together across hosts (rounds with a synchronised start): the sweep
  // measures every host's clock offset, and goes on without a host that fails its check, its
  // points recorded failed (rather than stopping having run nothing).
  virtual bool measures_together() const { return false; }
  // Its points run through one agent per host when every launcher can start one; none: never.
  virtual std::optional<AgentUse> agents() const { return std::nullopt; }
  // What the sweep says of a host whose rdmabench `path` failed its check and is left out (a
  // line per name it has here); only asked when measures_together().
  virtual std::vector<std::string> left_out(const std::string& /*host*/,
                                            const std::string& /*path*/) const {
    return {};
  }
  // --dry-run: what its pairs are ("host pair(s)"), its own lines after the campaign's, and
  // whether it lists its points one line each by combination (their commands shown once per
  // combination) with `place` saying where each runs.
  virtual std::string pairs_noun() const { return "host pair(s)"; }
  virtual void describe(std::ostream& /*out*/, const Expansion& /*x*/) const {}
  virtual std::string place(const Point& /*p*/) const { return ""; }

  // A driver that makes its points as it goes, from what it measured (an adaptive search: a
  // hunt), rather than through expand(): at most how many points it measures; none (the
  // default) for a driver whose points expand() makes. For such a driver the runner takes every
  // point an earlier sweep finished as done (--resume: the driver reads them back), counts its
  // progress against this number, and takes its failed points as measurements: its exit status
  // is that of its findings (finish()), not "points failed".
  virtual std::optional<uint64_t> adaptive_budget() const { return std::nullopt; }
  // Only asked when adaptive_budget(): the sweep's first line after "campaign 'NAME': " ("a hunt
  // of up to 40 evaluations on p"), the line after a finished sweep whose finish() found `n`
  // ("the hunt found 2 anomalies"), and its whole dry run (`done`: the points finished earlier,
  // `out_dir` the campaign folder).
  virtual std::string adaptive_start() const { return ""; }
  virtual std::string adaptive_findings(size_t /*n*/) const { return ""; }
  virtual void describe_adaptive(std::ostream& /*out*/, const std::set<std::string>& /*done*/,
                                 const std::string& /*out_dir*/) const {}

  // Its side of a sweep (run/campaign_run.h): the batches it runs and what it makes of their
  // outcomes. None (the default): every point on its own, in expansion order. (A shared_ptr:
  // this header knows CampaignRun by name only.)
  virtual std::shared_ptr<CampaignRun> start_run(const RunSetup& /*setup*/) const {
    return nullptr;
  }
};

// What a driver's parser is given besides its block.
struct DriverParseContext {
  std::string base_dir;                         // the campaign file's folder
  std::string self_exe;                         // what "rdmabench": "self" stands for
  const SlurmAllocation* allocation = nullptr;  // with the slurm launcher: hosts must be in it
  // A kind on host pairs (DriverKind::on_host_pairs): the "hosts" block's pairs, parsed.
  const std::vector<HostPair>* host_pairs = nullptr;
};

// A kind of campaign: the key of its block in the campaign file, what the block holds (for
// errors: "host pairs"), and its parser (errors name JSON paths under `path`).
struct DriverKind {
  std::string key;
  std::string holds;
  std::function<std::shared_ptr<CampaignDriver>(
      const nlohmann::json& block, const std::string& path, const DriverParseContext& context)>
      parse;
  // Its block sits beside a "hosts" block, whose pairs it measures on (a hunt): the parser finds
  // them in DriverParseContext::host_pairs.
  bool on_host_pairs = false;
  // Its block says what it measures (a hunt's space): why no "matrix", "search" or "exclude" may
  // stand beside it; "" for a kind whose points are the campaign's workload space.
  std::string own_space;
};

}  // namespace rdmabench
