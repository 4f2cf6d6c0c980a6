#pragma once
// What `rdmabench report` shows of a fabric campaign (issue 18): its round records (the
// aggregate of each round: total, fairness, min/median/max flow, the flows' window overlap) and
// its verdicts record (the links judged, and each one not ok), read from the campaign folder's
// index.jsonl. Untrusted input: a member missing or of the wrong type gives an empty cell.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/round_record.h"
#include "model/verdict_record.h"

namespace rdmabench {

// One round at one message size (orchestrator/fabric/round_summary.h).
struct RoundRow {
  std::string round;     // "pairwise 2/3"
  std::string workload;  // its matrix values, described
  long repetition = 0;
  long flows = 0, ok = 0;
  uint64_t size = 0;
  std::optional<double> total_gbps, jain, min_gbps, median_gbps, max_gbps, p50_us, overlap;
  bool overlap_low = false;
};

// A link that is not ok (orchestrator/fabric/fabric_verdicts.h).
struct VerdictRow {
  std::string link, workload, metric, verdict, why, point;
  std::string rules;  // the rules that fired, "bw_fraction, lossy"
  uint64_t size = 0;
  std::optional<double> value, best, alone;
  std::optional<double> loss_ppm;  // the link's own loss figure (counters), when it had one
};

// A latency probe that is not ok (the verdict record's probes.not_ok: probe_verdicts.h).
struct ProbeRow {
  std::string link, round, verdict, why;
  uint64_t size = 0;
  std::optional<double> p99_us, idle_p99_us, ratio, threshold;
};

struct FabricVerdicts {
  std::string criteria;  // "bw below 0.93 of the best, p50 above 2.1x the best, ..."
  long judged = 0;
  std::map<std::string, long> counts;  // verdict -> links
  std::vector<VerdictRow> not_ok;
  // Latency probes, when the fabric had them: how many, how many ok, the rule, and those not ok.
  std::optional<long> probed;
  long probes_ok = 0;
  std::string probe_criteria;
  std::vector<ProbeRow> probes;
};

// The rows of round records (in order): one per round and size.
std::vector<RoundRow> round_rows(const std::vector<RoundRecord>& records);
// A verdicts record, for the page.
FabricVerdicts fabric_verdicts(const VerdictsRecord& record);

}  // namespace rdmabench
