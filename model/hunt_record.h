#pragma once
// A hunt's record: the {"record": "hunt"} line of a campaign folder's index.jsonl, written once
// after a hunt's last evaluation (docs/hunting.md; results/SCHEMA.md "A hunt's record"). The one
// definition: the hunt's run writes it through to_json (orchestrator/hunt/hunt_run.cc), and the
// report (its "Anomalies" section and figures) and the JUnit export read it back through
// hunt_record_from_json.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

// The index line's "record" member of a hunt record.
inline constexpr const char* kHuntRecord = "hunt";

struct HuntScoreTerm {
  std::string term;  // "failed", "loss", "throughput", "latency_tail", "latency_median"
  double ratio = 0;  // >= 1: fired
  double value = 0;
  double limit = 0;
};

// One evaluation's score (orchestrator/hunt/anomaly_score.h).
struct HuntScore {
  bool anomalous = false;
  double climb = 0;
  std::vector<HuntScoreTerm> terms;
  double worst() const;  // the largest ratio (0 for none)
};

struct HuntReset {
  std::string factor;
  nlohmann::json from, to;
  bool removes = false;            // setting it back removed the anomaly: it is in the trigger
  std::optional<HuntScore> score;  // measured with it set back
  std::string refused;             // why the client or device refused that point ("" if not)
};

struct HuntAnomaly {
  std::string state;      // "confirmed", "not repeated", "not confirmed" (case_state_name)
  nlohmann::json values;  // where it was found
  uint64_t found_at = 0;  // the evaluation
  HuntScore found;
  std::vector<std::string> fired;  // the terms that fired there
  std::optional<HuntScore> repeat;
  std::vector<HuntReset> resets;
  nlohmann::json trigger = nlohmann::json::object();  // factor -> value
  nlohmann::json confirm_values;                      // null when not measured
  std::optional<HuntScore> confirm;
  // The port counters that moved where it was found and in its confirmation, in the key set
  // ({"client": {key: n}, "server": {key: n}}; counter_keys.h moved_counters): empty objects
  // when nothing moved or the device counts nothing (siw).
  nlohmann::json counters_found = nlohmann::json::object();
  nlohmann::json counters_confirm = nlohmann::json::object();
  std::string reproduce_server, reproduce_client;  // "" when not confirmed
  std::vector<uint64_t> also_at;                   // later evaluations that matched its trigger
  std::string note;
  std::optional<uint64_t> same_as;  // a candidate confirmed with an earlier anomaly's trigger
};

// Each evaluation's score, for the figure of the score over the hunt.
struct HuntScorePoint {
  uint64_t evaluation = 0;
  std::string step;  // "search", "repeat", "reset", "confirm"
  double climb = 0;
  double worst = 0;
  bool anomalous = false;
};

struct HuntRecord {
  uint64_t budget = 0;
  uint64_t seed = 0;
  uint64_t evaluations = 0;
  std::vector<HuntAnomaly> anomalies;   // confirmed, one per trigger
  std::vector<HuntAnomaly> candidates;  // the others
  std::vector<HuntScorePoint> scores;
  std::string time;  // UTC, ISO 8601
};

nlohmann::ordered_json to_json(const HuntRecord& r);
// The last hunt record among an index's lines (campaign_index.h parse_records(text,
// kHuntRecord)); a malformed one is left out, why added to `refused`.
std::optional<HuntRecord> last_hunt_record(const std::vector<nlohmann::json>& lines,
                                           std::vector<std::string>& refused);
// Throws ConfigError naming the JSON path of a member missing or of the wrong type.
HuntRecord hunt_record_from_json(const nlohmann::json& j);

}  // namespace rdmabench
