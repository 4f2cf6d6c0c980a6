#pragma once
// A search's cliffs record: the {"record": "cliffs"} line of a campaign folder's index.jsonl,
// appended after a search with a "cliff" rule (orchestrator/search/cliff.h; results/SCHEMA.md).
// The one definition: the search writes it through to_json (orchestrator/search/cliff.cc
// cliffs_record), and the report reads it back through last_cliffs_record.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

// The index line's "record" member of a cliffs record.
inline constexpr const char* kCliffsRecord = "cliffs";

struct CliffsRecordNeighbour {
  nlohmann::json value;  // the along value (a size, a name, a number)
  double metric = 0;
  std::vector<std::string> point_ids;  // every run measured at this value (repetitions)
};

struct CliffsRecordEntry {
  std::string point_id;  // the first of point_ids ("" for none)
  std::vector<std::string> point_ids;
  nlohmann::json line;   // the line's values (workload fields without the along one, host_pair)
  nlohmann::json value;  // where it drops
  double metric = 0;
  double drop = 0;    // 1 - metric / previous.metric
  std::string shape;  // "dip", "step" or "end"
  CliffsRecordNeighbour previous;
  std::optional<CliffsRecordNeighbour> next;
};

struct CliffsRecord {
  std::string metric;  // "bw_gbps" or "msg_rate"
  std::string along;   // the workload field along the lines
  double threshold = 0;
  size_t lines = 0;   // lines with at least two values
  size_t values = 0;  // distinct values on them
  std::vector<CliffsRecordEntry> cliffs;
  std::string time;  // UTC, ISO 8601
};

nlohmann::ordered_json to_json(const CliffsRecord& r);
// Throws ConfigError naming the JSON path of a member missing or of the wrong type.
CliffsRecord cliffs_record_from_json(const nlohmann::json& j);
// The last cliffs record among an index's lines (campaign_index.h parse_records(text,
// kCliffsRecord)); a malformed one is left out, why added to `refused`.
std::optional<CliffsRecord> last_cliffs_record(const std::vector<nlohmann::json>& lines,
                                               std::vector<std::string>& refused);

}  // namespace rdmabench
