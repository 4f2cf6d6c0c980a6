#pragma once
// The figures over time of runs with `--interval SEC` (SizeResult::intervals), a line per series
// (as report/grouping.h groups the runs), message size and document, each interval drawn at its
// middle (offset_s + seconds / 2):
//  - "bandwidth_time" (bandwidth-mode documents): Gb/s of each interval (the client's direction),
//    with a dashed line at each distinct port speed the documents report;
//  - "latency_time" (latency-mode documents): p50 (solid) and p99 (dashed) of each interval in
//    µs, log y.
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

}  // namespace rdmabench
