#pragma once
// A size's per-interval rates (`--interval SEC`; results/SCHEMA.md): in each element of a result
// document's results[] when the run had an interval ("interval_s", "intervals",
// "intervals_total", "bw_peak_gbps", "bw_min_gbps"), absent otherwise. Read here from the
// document's JSON, for the time-series figures and the report's interval tables.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace rdmabench {

struct IntervalSample {
  double start_unix_s = 0;  // UTC start, Unix seconds
  double offset_s = 0;      // start, seconds after the size's measurement began
  double seconds = 0;       // its length (the last one of a size is usually shorter)
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double gbps = 0;
  double mmsg_per_s = 0;
  std::optional<double> p50_ns, p99_ns;  // latency mode only
};

struct SizeIntervals {
  double interval_s = 0;                // the length asked for (0: not in the document)
  std::vector<IntervalSample> samples;  // oldest first; the engine keeps the most recent 3600
  uint64_t total = 0;                   // how many the size had, kept or not
  // Highest and lowest Gb/s of an interval at least half the asked length; absent when none was.
  std::optional<double> bw_peak_gbps, bw_min_gbps;
};

// The intervals of each size of a result document (its "results" array), by message size;
// sizes without "intervals" are absent (documents written without --interval have none).
// Throws ConfigError naming the member ("results[2].intervals[5].gbps"), its value and what is
// allowed when one has the wrong type or range.
std::map<uint64_t, SizeIntervals> parse_intervals(const nlohmann::json& doc);

}  // namespace rdmabench
