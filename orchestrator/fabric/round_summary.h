#pragma once
// The aggregate of one fabric round that ran (issue 18, item 3): for each message size, over the
// flows that succeeded, the total Gb/s, each host's in and out Gb/s, Jain's fairness index over
// the flows' Gb/s ((sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one takes all), the
// min / median / max flow, and in latency mode the min / median / max of the flows' p50; and how
// far the flows measured in one window: their measurement windows (each result's `window`, on
// its client host's clock, corrected by that host's clock offset) overlap by
// (earliest end - latest start) / longest window, and a round below kMinOverlap is marked. Written
// to index.jsonl as a {"record": "round"} line (orchestrator/README.md) and printed as a line.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/round_record.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

// Below this overlap of its flows' windows a round is marked: its flows did not load the
// fabric together.
constexpr double kMinOverlap = 0.9;

struct RoundFlowResult {
  std::string server;  // fabric host names
  std::string client;
  std::optional<ResultBrief> brief;  // its result document's brief; none when the flow failed
  // The client host's clock minus the controller's (clock_offset.h), and how sure it is.
  double clock_offset_s = 0;
  double clock_uncertainty_s = 0;
};

// A latency probe of the round (fabric_probes.h): its result, and its link's p99 in the idle
// round by size (empty when there is none yet).
struct RoundProbe {
  RoundFlowResult flow;
  std::map<uint64_t, double> idle_p99_ns;
};

// `label`, `index`: the round as run; `values`: its workload (matrix values); `flows`: the load
// flows (in the idle probe round, the probes); `probes`: the probes, each size's p50, p99, p99.9,
// idle p99 and load/idle ratio (none when there are none). The record is model/round_record.h's.
RoundRecord summarize_round(const std::string& label, uint32_t index, unsigned repetition,
                            const nlohmann::json& values, const std::vector<RoundFlowResult>& flows,
                            const std::string& time, const std::vector<RoundProbe>& probes = {});
// The same as the index line writes it: to_json(summarize_round(...)).
nlohmann::ordered_json round_record(const std::string& label, uint32_t index, unsigned repetition,
                                    const nlohmann::json& values,
                                    const std::vector<RoundFlowResult>& flows,
                                    const std::string& time,
                                    const std::vector<RoundProbe>& probes = {});

// The overlap of measurement windows (start, end): the common part (earliest end - latest
// start, at least 0) over the longest window; nullopt for none, 1 for one.
struct Overlap {
  double fraction = 0;
  double common_s = 0;
};
std::optional<Overlap> window_overlap(const std::vector<std::pair<double, double>>& windows);

// Jain's fairness index of `x` (null for no values or all zero).
nlohmann::json jain_index(const std::vector<double>& x);

// One line for the sweep's output: "round 3/6 'pairwise 3/3': 2 ok, 0 failed; 4K: total ...".
std::string round_line(const RoundRecord& record, size_t rounds);

}  // namespace rdmabench
