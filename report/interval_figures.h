#pragma once
// The figures over time of runs with `--interval SEC` (SizeResult::intervals), a line per series
// (as report/grouping.h groups the runs), message size and document, each interval drawn at its
// middle (offset_s + seconds / 2):
//  - "bandwidth_time" (bandwidth-mode documents): Gb/s of each interval (the client's direction),
//    with a dashed line at each distinct port speed the documents report;
//  - "latency_time" (latency-mode documents): p50 (solid) and p99 (dashed) of each interval in
//    µs, log y;
//  - "counters_time" (bandwidth mode) and "counters_time_latency" (latency mode): the gaps
//    (solid) and retransmissions (dashed) per second of each interval, from the client port's
//    counters (IntervalResult::counters, in the key set of model/counter_keys.h); drawn only
//    when an interval saw one (the port counts every flow on it: two runs sharing a device
//    show each other's).
// No figure when no document of the mode has intervals.
#include <iosfwd>
#include <optional>
#include <string>

#include "report/series_figure.h"

namespace rdmabench {

// At most this many lines (series x size x document) in one figure; the rest are noted.
inline constexpr size_t kMaxIntervalLines = 16;

std::optional<Figure> bandwidth_time_figure(const FigureRuns& runs, const Grouping& g,
                                            const std::string& format, std::ostream& notes);
std::optional<Figure> latency_time_figure(const FigureRuns& runs, const Grouping& g,
                                          const std::string& format, std::ostream& notes);
// `name`: "counters_time" or "counters_time_latency" (the runs' mode).
std::optional<Figure> counters_time_figure(const std::string& name, const FigureRuns& runs,
                                           const Grouping& g, const std::string& format,
                                           std::ostream& notes);

}  // namespace rdmabench
