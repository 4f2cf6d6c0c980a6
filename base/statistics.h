// Pure summary statistics over samples and histograms.
//
// NaN policy for the span functions: an empty input, or any NaN in the input, yields NaN
// (except stdev(), which returns 0 for fewer than two elements as documented, unless the
// single element is NaN). Infinities follow IEEE arithmetic.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/histogram.h"

namespace rdmabench {

struct LatencySummary {
  uint64_t count;     // including overflow
  uint64_t overflow;  // values above the histogram's highest_trackable()
  double min, max, mean, stdev, p50, p90, p99, p999, p9999;  // nanoseconds
};

// Summary of a histogram whose values are in units of `ns_per_unit` nanoseconds (1.0 for
// histograms of nanoseconds, Clock::ns_per_tick() for histograms of raw ticks). For an
// empty histogram, count and overflow are 0 and every other field is NaN ("no data").
LatencySummary summarize(const Histogram& h, double ns_per_unit = 1.0);

double mean(std::span<const double> values);
// Average of the two middle elements for even sizes.
double median(std::span<const double> values);
// Sample standard deviation (divides by n - 1); 0 for n < 2.
double stdev(std::span<const double> values);
double min_of(std::span<const double> values);
double max_of(std::span<const double> values);

// Nearest-rank percentile (percentile_rank()) of `values`, p in [0, 100]. O(n). NaN when
// empty; throws std::invalid_argument when p is outside [0, 100] or NaN.
double exact_percentile(std::vector<uint64_t> values, double p);

// Throughput in gigabits per second (bytes * 8 / 1e9 / seconds). NaN if seconds <= 0 or NaN.
double gbps(uint64_t bytes, double seconds);
// Message rate in millions of messages per second. NaN if seconds <= 0 or NaN.
double mmsg_per_s(uint64_t msgs, double seconds);

}  // namespace rdmabench
