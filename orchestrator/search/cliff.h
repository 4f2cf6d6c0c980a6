#pragma once
// Cliff detection for a campaign's `search` block: after a sweep, the measurements are put on
// lines — measurements whose workloads (and host pair) are equal except for one dimension, the
// `along` field — and sorted along that dimension. A point on a line is a cliff when its metric
// is more than `threshold` below the point before it:
//
//     metric[i] < (1 - threshold) * metric[i-1]        (i >= 1; the first point is never one)
//
// Measurements with the same value along the line (repetitions) are averaged first; points that
// failed or were skipped are absent, so neighbours are the nearest measured values. Each cliff
// carries its previous and next neighbours and a shape: "dip" when the next point comes back to
// within the threshold of the previous one (next >= (1 - threshold) * previous), "step" when it
// stays low, "end" when the cliff is the last point of its line.
//
// Pure functions: the sweep gathers the observations from the result documents
// (cliff_observations), finds the cliffs, and appends cliffs_record() to index.jsonl.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/cliffs_record.h"

namespace rdmabench {

enum class CliffMetric { kBwGbps, kMsgRate };

// "bw_gbps" (results[].gbps) or "msg_rate" (results[].mmsg_per_s).
const char* cliff_metric_name(CliffMetric m);
const char* cliff_metric_result_field(CliffMetric m);

struct CliffSpec {
  CliffMetric metric = CliffMetric::kBwGbps;
  double threshold = 0.3;  // relative drop, 0 < threshold < 1
  std::string along;       // a workload field (matrix key), e.g. "sizes", "tx_depth"
};

struct CliffObservation {
  std::string line;  // identity of the line: everything except the along value
  nlohmann::json line_values;
  double x = 0;          // position along the line (the value, or its index in the space's list)
  nlohmann::json value;  // the along value (e.g. 4096, "uc")
  double metric = 0;
  std::string point_id;
};

struct CliffNeighbour {
  nlohmann::json value;
  double metric = 0;
  std::vector<std::string> point_ids;  // every run measured at this value (repetitions)
};

struct Cliff {
  nlohmann::json line;  // the line's values (workload fields without `along`, host_pair)
  CliffNeighbour at;
  CliffNeighbour previous;
  std::optional<CliffNeighbour> next;
  double drop = 0;    // 1 - at.metric / previous.metric
  std::string shape;  // "dip", "step" or "end"
};

struct CliffScan {
  std::vector<Cliff> cliffs;  // by line, then along the line
  size_t lines = 0;           // lines with at least two values (where a cliff can show)
  size_t values = 0;          // distinct values on those lines
};

// Observations with a non-finite or negative metric are ignored.
CliffScan find_cliffs(const std::vector<CliffObservation>& observations, double threshold);

// The observations of one result document (a point that ran ok): one per size result without
// an error. `values` are the point's canonical workload values. Along "sizes", each size result
// is a position on the line; along another field, the point's value of that field is the
// position and each size starts its own line. `along_order`: for a categorical dimension, its
// values in the order of the space (the position is the index there); empty for numbers.
std::vector<CliffObservation> cliff_observations(const nlohmann::json& result_doc,
                                                 const nlohmann::json& values,
                                                 const std::string& host_pair,
                                                 const std::string& point_id, const CliffSpec& spec,
                                                 const std::vector<nlohmann::json>& along_order);

// The index line, model/cliffs_record.h's CliffsRecord: {"record": "cliffs", "metric", "along",
// "threshold", "lines", "values", "cliffs": [{"point_id", "point_ids", "line", "value", "metric",
// "drop", "shape", "previous": {"value", "metric", "point_ids"}, "next": {...} or null}], "time"}.
CliffsRecord cliffs_record_of(const CliffSpec& spec, const CliffScan& scan,
                              const std::string& time);
nlohmann::ordered_json cliffs_record(const CliffSpec& spec, const CliffScan& scan,
                                     const std::string& time);

// The end-of-sweep summary (one line, then one line per cliff).
void print_cliffs(std::ostream& out, const CliffSpec& spec, const CliffScan& scan);

}  // namespace rdmabench
