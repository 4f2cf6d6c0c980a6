#include "base/statistics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace rdmabench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool empty_or_has_nan(std::span<const double> values) {
  return values.empty() ||
         std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
}

long double sum_of(std::span<const double> values) {
  long double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  return sum;
}

}  // namespace

LatencySummary summarize(const Histogram& h, double ns_per_unit) {
  LatencySummary s{};
  s.count = h.count();
  s.overflow = h.overflow_count();
  if (h.count() == 0) {
    s.min = s.max = s.mean = s.stdev = kNaN;
    s.p50 = s.p90 = s.p99 = s.p999 = s.p9999 = kNaN;
    return s;
  }
  const auto ns = [ns_per_unit](uint64_t v) { return static_cast<double>(v) * ns_per_unit; };
  s.min = ns(h.min());
  s.max = ns(h.max());
  s.mean = h.mean() * ns_per_unit;
  s.stdev = h.stdev() * ns_per_unit;
  constexpr std::array<double, 5> kPs = {50.0, 90.0, 99.0, 99.9, 99.99};
  const std::vector<uint64_t> v = h.values_at_percentiles(kPs);
  s.p50 = ns(v[0]);
  s.p90 = ns(v[1]);
  s.p99 = ns(v[2]);
  s.p999 = ns(v[3]);
  s.p9999 = ns(v[4]);
  return s;
}

double mean(std::span<const double> values) {
  if (empty_or_has_nan(values)) {
    return kNaN;
  }
  return static_cast<double>(sum_of(values) / static_cast<long double>(values.size()));
}

double median(std::span<const double> values) {
  if (empty_or_has_nan(values)) {
    return kNaN;
  }
  std::vector<double> v(values.begin(), values.end());
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) {
    return upper;
  }
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  // lower + (upper - lower) / 2 avoids overflow for large same-sign values.
  if (std::isinf(lower) || std::isinf(upper)) {
    return (lower + upper) / 2;
  }
  return lower + (upper - lower) / 2;
}

double stdev(std::span<const double> values) {
  if (values.size() == 1 && std::isnan(values[0])) {
    return kNaN;
  }
  if (values.size() < 2) {
    return 0.0;
  }
  if (empty_or_has_nan(values)) {
    return kNaN;
  }
  const long double m = sum_of(values) / static_cast<long double>(values.size());
  long double squares = 0;
  for (const double v : values) {
    squares += (v - m) * (v - m);
  }
  return static_cast<double>(std::sqrt(squares / static_cast<long double>(values.size() - 1)));
}

double min_of(std::span<const double> values) {
  if (empty_or_has_nan(values)) {
    return kNaN;
  }
  return *std::min_element(values.begin(), values.end());
}

double max_of(std::span<const double> values) {
  if (empty_or_has_nan(values)) {
    return kNaN;
  }
  return *std::max_element(values.begin(), values.end());
}

double exact_percentile(std::vector<uint64_t> values, double p) {
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("exact_percentile: p must be in [0, 100], got " +
                                std::to_string(p));
  }
  if (values.empty()) {
    return kNaN;
  }
  const uint64_t rank = percentile_rank(p, values.size());
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), nth, values.end());
  return static_cast<double>(*nth);
}

double gbps(uint64_t bytes, double seconds) {
  if (!(seconds > 0.0)) {
    return kNaN;
  }
  return static_cast<double>(bytes) * 8.0 / 1e9 / seconds;
}

double mmsg_per_s(uint64_t msgs, double seconds) {
  if (!(seconds > 0.0)) {
    return kNaN;
  }
  return static_cast<double>(msgs) / 1e6 / seconds;
}

}  // namespace rdmabench
