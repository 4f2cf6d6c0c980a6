#pragma once
// `rdmabench compare A B`: matching the measurements of two result sets (by workload identity
// and message size, see workload_id.h) and judging every metric (change_detection.h).
// Pure: no files, no output (compare.h does those).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/change_detection.h"
#include "report/results_set.h"

namespace rdmabench {

enum class Metric { kGbps, kMmsg, kP50, kP99, kP999 };

struct MetricInfo {
  Metric metric;
  std::string_view name;   // on the command line and in JSON: gbps, mmsg, p50, p99, p99.9
  std::string_view title;  // in the table: "Gb/s", "Mmsg/s", "p50 us", ...
  bool higher_is_better;
  bool latency;  // latency metrics apply to lat-mode documents, the others to bw mode
};

const MetricInfo& metric_info(Metric m);
// The default metrics: gbps, mmsg, p50, p99.
std::vector<Metric> default_metrics();
// Names as given to --metric (each may also be a comma-separated list). ConfigError("--metric",
// name, allowed names) for an unknown one; an empty list gives the defaults.
std::vector<Metric> parse_metrics(const std::vector<std::string>& names);

// The value of `m` in one size result: Gb/s and Mmsg/s (both directions added for --bidir, as
// in the figures) for bw-mode documents, latency percentiles in us for lat mode; nullopt when
// the metric does not apply or the size failed.
std::optional<double> metric_value(const ResultFile& f, const SizeResult& s, Metric m);

struct MatchedMetric {
  std::string label;        // workload label (see workload_label)
  nlohmann::json workload;  // the workload identity's fields
  uint64_t size = 0;
  Metric metric{};
  std::vector<double> a, b;  // one value per repetition
  Change change;
};

struct Unmatched {
  std::string label;
  nlohmann::json workload;
  uint64_t size = 0;
  std::string why;  // "only in A", "only in B", "failed in A", "failed in B"
};

struct Comparison {
  std::vector<MatchedMetric> rows;  // in A's order, then by size and metric
  std::vector<Unmatched> unmatched;
  size_t matched_points = 0;  // workload+size pairs measured on both sides
  size_t regressions = 0;
  size_t improvements = 0;
};

Comparison compare_results(const std::vector<ResultFile>& a, const std::vector<ResultFile>& b,
                           const std::vector<Metric>& metrics, const ChangeRule& rule);

}  // namespace rdmabench
