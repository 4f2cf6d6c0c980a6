#pragma once
// A fabric campaign's verdicts: the {"record": "verdicts"} line the sweep appends to index.jsonl
// once every link is judged (results/SCHEMA.md), with the criteria it judged by. The one
// definition: the fabric driver writes it through to_json (orchestrator/fabric/fabric_verdicts.cc,
// probe_verdicts.cc), the report and the exports read it through verdicts_record_from_json.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rdmabench {

inline constexpr const char* kVerdictsRecord = "verdicts";

// What a fabric's links and probes are judged by: a campaign's "verdicts" block (its parser is
// the fabric driver's, fabric_verdicts.h), recorded with the verdicts.
struct VerdictCriteria {
  double bw_fraction = 0.93;
  double lat_factor = 2.1;
  std::optional<double> port_fraction;  // nullopt: no absolute verdict
  bool retest = true;
  double loss_k = 5;                            // MADs above the median
  std::optional<double> loss_floor_ppm = 1000;  // nullopt: no loss verdict
  double slow_k = 5;                            // probes (probe_verdicts.h): MADs above the median
  std::optional<double> slow_floor = 3;         // load/idle p99 ratio; nullopt: no such verdict
};
nlohmann::ordered_json to_json(const VerdictCriteria& c);

// A link measurement judged other than ok.
struct LinkNotOk {
  std::string link;
  nlohmann::json matrix;  // its combination's values
  uint64_t size = 0;
  std::string metric;           // "gbps" or "p50_ns"
  std::optional<double> value;  // null: failed
  double best = 0;
  std::optional<double> alone;  // the retest's figure
  std::string verdict;          // "suspect", "bad", "congested", "lossy", "failed"
  std::vector<std::string> rules;
  std::optional<double> loss_ppm;
  bool loss_shared = false;
  double loss_threshold_ppm = 0;
  std::string why;
  std::string point_id;
};

// A latency probe judged other than ok.
struct ProbeNotOk {
  std::string link, round, point_id;
  std::string verdict;  // "slow_under_load", "failed", "no_idle"
  std::string rule;     // "slow_under_load" or ""
  std::string why;
  // All but a failed probe's:
  std::optional<uint64_t> size;
  std::optional<double> p99_ns, p99_9_ns, idle_p99_ns, ratio;
  std::optional<double> threshold;
};

struct ProbeVerdicts {
  size_t probed = 0, ok = 0, slow_under_load = 0, failed = 0, no_idle = 0;
  double slow_k = 5;
  std::optional<double> slow_floor;
  std::vector<ProbeNotOk> not_ok;
};

struct VerdictsRecord {
  VerdictCriteria criteria;
  size_t judged = 0;
  // Links by verdict, in the record's order: ok, congested, bad, lossy, failed, suspect.
  std::vector<std::pair<std::string, size_t>> counts;
  std::vector<LinkNotOk> not_ok;
  std::string time;
  std::optional<ProbeVerdicts> probes;  // with latency probes
};

nlohmann::ordered_json to_json(const ProbeVerdicts& p);
nlohmann::ordered_json to_json(const VerdictsRecord& r);
// Throws ConfigError naming the JSON path of a member missing or of the wrong type.
VerdictsRecord verdicts_record_from_json(const nlohmann::json& j);
// The last verdicts record among an index's lines (campaign_index.h parse_records(text,
// kVerdictsRecord)) that reads; nullopt when none does (`refused` says why for each that did not).
std::optional<VerdictsRecord> last_verdicts_record(const std::vector<nlohmann::json>& lines,
                                                   std::vector<std::string>& refused);

}  // namespace rdmabench
