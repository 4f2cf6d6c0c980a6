#pragma once
// Per-link verdicts of a fabric campaign (issue 18, item 4), as ClusterKit judges pairs: for each
// workload combination and message size, every link's figure against the best link's — in
// bandwidth mode its Gb/s below `bw_fraction` of the best link's (default 0.93), in latency mode
// its p50 above `lat_factor` times the best link's (default 2.1) — and, when `port_fraction` is
// set, its Gb/s below that share of the slower end's port speed (absolute; off by default: soft
// RDMA devices report a port speed they never reach). A link's figure is its best over the
// repetitions. A suspect is measured again alone (no concurrent traffic) before it is called
// bad: still slow alone, "bad"; fine alone, "congested" (slow only under the round's load).
// A link whose flow failed is "failed". Pure functions over result documents' briefs
// (launch/result_brief.h); the sweep runs the retests (fabric_sweep.h).
//
//   "fabric": {..., "verdicts": {"bw_fraction": 0.93, "lat_factor": 2.1, "port_fraction": 0.8,
//                                "retest": true}}
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

struct VerdictCriteria {
  double bw_fraction = 0.93;
  double lat_factor = 2.1;
  std::optional<double> port_fraction;  // nullopt: no absolute verdict
  bool retest = true;
};

// The "verdicts" block (`path` its JSON path); absent = the defaults.
VerdictCriteria parse_verdict_criteria(const nlohmann::json& j, const std::string& path);
nlohmann::ordered_json to_json(const VerdictCriteria& c);

// One link's measurement at one workload combination (all its sizes), from one repetition.
struct LinkRun {
  size_t pair = 0;                   // Campaign::pairs index (the link)
  std::string link;                  // "client -> server"
  nlohmann::json values;             // the matrix values
  std::string point_id;              // the point measured (for the retest's id)
  std::optional<ResultBrief> brief;  // its result document's brief; none when the flow failed
  std::string error;                 // why it failed
};

struct LinkVerdict {
  size_t pair = 0;
  std::string link;
  nlohmann::json values;
  std::string point_id;
  uint64_t size = 0;
  std::string metric;           // "gbps" or "p50_ns"
  std::optional<double> value;  // nullopt: failed
  double best = 0;              // the best link's figure at this combination and size
  std::optional<double> port_gbps;
  std::string verdict;          // "ok", "suspect" (until retested), "bad", "congested", "failed"
  std::string why;              // for all but "ok"
  std::optional<double> alone;  // the retest's figure
};

// Judges every link at every combination and size its runs hold; suspects stay "suspect".
std::vector<LinkVerdict> judge_links(const std::vector<LinkRun>& runs, const VerdictCriteria& c);

// Whether `value` passes against `best` (and the port speed) under `c`.
bool passes(const LinkVerdict& v, double value, const VerdictCriteria& c);

// Settles a suspect with its retest alone: `alone` its figure (nullopt when the retest failed,
// `error` why), or no retest at all (criteria.retest false): "bad".
void settle(LinkVerdict& v, std::optional<double> alone, const std::string& error,
            const VerdictCriteria& c);

// {"record": "verdicts", "criteria", "links", "counts": {...}, "not_ok": [...]} for index.jsonl.
nlohmann::ordered_json verdict_record(const std::vector<LinkVerdict>& v, const VerdictCriteria& c,
                                      const std::string& time);
// The sweep's closing lines: the counts, then one line per link that is not ok.
std::vector<std::string> verdict_lines(const std::vector<LinkVerdict>& v);

}  // namespace rdmabench
