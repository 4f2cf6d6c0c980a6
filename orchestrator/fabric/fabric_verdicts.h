#pragma once
// Per-link verdicts of a fabric campaign (issue 18, item 4), as ClusterKit judges pairs: for each
// workload combination and message size, every link's figure against the best link's — in
// bandwidth mode its Gb/s below `bw_fraction` of the best link's (default 0.93), in latency mode
// its p50 above `lat_factor` times the best link's (default 2.1) — and, when `port_fraction` is
// set, its Gb/s below that share of the slower end's port speed (absolute; off by default: soft
// RDMA devices report a port speed they never reach). A link's figure is its best over the
// repetitions. A suspect is measured again alone (no concurrent traffic) before it is called
// bad: still slow alone, "bad"; fine alone, "congested" (slow only under the round's load).
// A link whose flow failed is "failed". Beside these, the counters: a link whose loss figure
// (sequence-error NAKs and out-of-sequence arrivals per million packets, both ends:
// model/counter_keys.h loss_per_million) is above max(loss_floor_ppm, median + loss_k x MAD)
// of its combination's links is "lossy" when its figure passes (and marked lossy beside any
// other verdict): go-back-N hides loss from bandwidth. Only deltas a link had alone count
// (ResultBrief::loss_shared). Each verdict names its rules. Pure functions over result
// documents' briefs (launch/result_brief.h); the driver's run measures the suspects again
// (fabric_campaign_run.cc).
//
//   "fabric": {..., "verdicts": {"bw_fraction": 0.93, "lat_factor": 2.1, "port_fraction": 0.8,
//                                "retest": true, "loss_k": 5, "loss_floor_ppm": 1000,
//                                "slow_k": 5, "slow_floor": 3}}     (the last two:
//                                probe_verdicts.h)
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/verdict_record.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

// VerdictCriteria: model/verdict_record.h (recorded with the verdicts).

// The "verdicts" block (`path` its JSON path); absent = the defaults.
VerdictCriteria parse_verdict_criteria(const nlohmann::json& j, const std::string& path);

// One link's measurement at one workload combination (all its sizes), from one repetition.
struct LinkRun {
  size_t pair = 0;                   // Campaign::pairs index (the link)
  std::string link;                  // "client -> server"
  const nlohmann::json* values;      // the matrix values (its combination's, shared)
  std::string_view point_id;         // the point measured (for the retest's id); see LinkJudge
  std::optional<ResultBrief> brief;  // its result document's brief; none when the flow failed
  std::string error;                 // why it failed
};

struct LinkVerdict {
  size_t pair = 0;
  std::string link;
  const nlohmann::json* values = nullptr;  // the matrix values (its combination's, shared)
  std::string point_id;
  uint64_t size = 0;
  std::string metric;           // "gbps" or "p50_ns"
  std::optional<double> value;  // nullopt: failed
  double best = 0;              // the best link's figure at this combination and size
  std::optional<double> port_gbps;
  std::string verdict;          // "ok", "suspect" (until retested), "bad", "congested", "failed"
  std::string why;              // for all but "ok"
  std::optional<double> alone;  // the retest's figure
  // The counters: the link's loss figure (its lowest over the runs whose deltas it had alone;
  // nullopt: none counted, or only shared ones), the group's threshold, and whether it is over.
  std::optional<double> loss_ppm;
  bool loss_shared = false;  // its runs' deltas were all shared with other flows
  double loss_threshold_ppm = 0;
  bool lossy = false;
  // The rules that fired ("bw_fraction", "lat_factor", "port_fraction", "lossy"; "failed").
  std::vector<std::string> rules;
};

// Judges every link at every combination and size its runs hold; suspects stay "suspect". Runs
// are taken one at a time (a 1,000-host pairwise fabric has a million), and only each link's
// best figure so far is kept (about 40 bytes; a run's values and point id are not copied: they
// must outlive finish()). finish() gives every link's verdict, or with `keep_ok` false only
// those not ok, counting the others in `ok`: what the sweep writes and prints.
class LinkJudge {
 public:
  // `name`: a link's name from its pair index, asked only for the links finish() lists; without
  // it each LinkRun's `link` is kept (32 bytes a link). `links`: the number of links (pair
  // indices), when known: each group's table is made that size at once, not grown by doubling
  // (which would hold the old table and one twice its size while it grows).
  explicit LinkJudge(std::function<std::string(size_t)> name = {}, size_t links = 0)
      : name_(std::move(name)), links_(links) {}
  void add(const LinkRun& r);
  std::vector<LinkVerdict> finish(const VerdictCriteria& c, bool keep_ok = true,
                                  size_t* ok = nullptr);

 private:
  // No optionals (each would add 8 bytes): 40 bytes a link.
  struct Candidate {
    double value = std::numeric_limits<double>::quiet_NaN();  // the best figure of its runs
    std::string_view point_id;                                // the run that gave it (or its first)
    uint32_t why = 0;      // why_ index: why its first run failed
    float port_gbps = -1;  // none
    float loss_ppm = -1;   // lowest own loss figure (-1: none)
    bool seen = false;
    bool loss_shared = false;  // a loss figure was seen, but shared
  };
  struct Group {
    std::string metric;
    std::vector<Candidate> links;  // by pair
  };
  // (combination, size) -> its links.
  std::map<std::pair<const nlohmann::json*, uint64_t>, Group> groups_;
  std::function<std::string(size_t)> name_;
  size_t links_ = 0;
  std::vector<std::string> link_names_;  // by pair, without name_
  std::vector<std::string> why_ = {"no result"};
};
std::vector<LinkVerdict> judge_links(const std::vector<LinkRun>& runs, const VerdictCriteria& c);

// The median-and-MAD rule's threshold over `x`: max(floor, median + k x MAD); `floor` for none.
double outlier_threshold(std::vector<double> x, double k, double floor);

// Whether `value` passes against `best` (and the port speed) under `c`.
bool passes(const LinkVerdict& v, double value, const VerdictCriteria& c);

// Settles a suspect with its retest alone: `alone` its figure (nullopt when the retest failed,
// `error` why), or no retest at all (criteria.retest false): "bad".
void settle(LinkVerdict& v, std::optional<double> alone, const std::string& error,
            const VerdictCriteria& c);

// {"record": "verdicts", "criteria", "links", "counts": {...}, "not_ok": [...]} for index.jsonl;
// `ok_not_listed`: links judged ok that `v` leaves out (LinkJudge::finish without keep_ok).
VerdictsRecord make_verdicts_record(const std::vector<LinkVerdict>& v, const VerdictCriteria& c,
                                    const std::string& time, size_t ok_not_listed = 0);
// to_json(make_verdicts_record(...)).
nlohmann::ordered_json verdict_record(const std::vector<LinkVerdict>& v, const VerdictCriteria& c,
                                      const std::string& time, size_t ok_not_listed = 0);
// The sweep's closing lines: the counts, then one line per link that is not ok.
std::vector<std::string> verdict_lines(const std::vector<LinkVerdict>& v, size_t ok_not_listed = 0);

}  // namespace rdmabench
