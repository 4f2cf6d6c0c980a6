#include "base/histogram.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rdmabench {
namespace {

__extension__ using Uint128 = unsigned __int128;
using Limbs = std::array<uint64_t, 4>;  // little-endian 256-bit unsigned integer

uint64_t low64(Uint128 v) { return static_cast<uint64_t>(v); }
uint64_t high64(Uint128 v) { return static_cast<uint64_t>(v >> 64); }

// Schoolbook product truncated to 256 bits (callers guarantee it fits).
template <size_t NA, size_t NB>
Limbs multiply(const std::array<uint64_t, NA>& a, const std::array<uint64_t, NB>& b) {
  Limbs r{};
  for (size_t i = 0; i < NA; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < NB && i + j < r.size(); ++j) {
      const Uint128 t = static_cast<Uint128>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = low64(t);
      carry = high64(t);
    }
    if (i + NB < r.size()) {
      r[i + NB] = carry;
    }
  }
  return r;
}

// a - b, requires a >= b.
Limbs subtract(const Limbs& a, const Limbs& b) {
  Limbs r{};
  uint64_t borrow = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const uint64_t d = a[i] - b[i];
    const uint64_t d2 = d - borrow;
    borrow = static_cast<uint64_t>(a[i] < b[i]) | static_cast<uint64_t>(d < borrow);
    r[i] = d2;
  }
  return r;
}

long double to_long_double(const Limbs& v) {
  long double r = 0;
  for (size_t i = v.size(); i-- > 0;) {
    r = std::ldexp(r, 64) + static_cast<long double>(v[i]);
  }
  return r;
}

}  // namespace

uint64_t percentile_rank(double p, uint64_t n) noexcept {
  if (n == 0) {
    return 0;
  }
  const long double exact = static_cast<long double>(p) / 100.0L * static_cast<long double>(n);
  const long double r = std::ceil(exact * (1.0L - 1e-12L));
  if (!(r >= 1.0L)) {
    return 1;  // also catches NaN
  }
  if (r >= static_cast<long double>(n)) {
    return n;
  }
  return static_cast<uint64_t>(r);
}

Histogram::Histogram(uint64_t highest_trackable, double max_relative_error, size_t exact_capacity)
    : highest_trackable_(highest_trackable), max_relative_error_(max_relative_error) {
  if (highest_trackable < 2) {
    throw std::invalid_argument("Histogram: highest_trackable must be >= 2");
  }
  if (!(max_relative_error > 0.0 && max_relative_error <= 0.5)) {
    throw std::invalid_argument("Histogram: max_relative_error must be in (0, 0.5], got " +
                                std::to_string(max_relative_error));
  }
  // Smallest s with 2^(1-s) <= max_relative_error ...
  int s = 2;
  while (std::ldexp(1.0, 1 - s) > max_relative_error) {
    ++s;
  }
  // ... but no more than needed to track every value up to highest_trackable exactly.
  s = std::min(s, std::max(2, static_cast<int>(std::bit_width(highest_trackable))));
  // The array always has more than 2^(s-1) counters; reject before shifting by s.
  if (s - 1 >= std::countr_zero(kMaxCounters)) {
    throw std::invalid_argument("Histogram: max_relative_error too small for highest_trackable");
  }
  sub_bucket_bits_ = s;
  sub_half_bits_ = s - 1;
  leading_zero_base_ = 64 - s;
  sub_bucket_mask_ = (uint64_t{1} << s) - 1;
  const size_t length = counts_index(highest_trackable) + 1;
  if (length > kMaxCounters) {
    throw std::invalid_argument("Histogram: max_relative_error too small for highest_trackable");
  }
  counts_.assign(length, 0);
  if (exact_capacity > kMaxExactSamples) {
    throw std::invalid_argument("Histogram: exact_capacity " + std::to_string(exact_capacity) +
                                " is above " + std::to_string(kMaxExactSamples));
  }
  samples_.assign(exact_capacity, 0);  // touched now: no page fault when recording
}

void Histogram::keep(uint64_t value, uint64_t n) noexcept {
  const size_t room = samples_.size() - kept_;
  const size_t k = n < room ? static_cast<size_t>(n) : room;
  std::fill_n(samples_.begin() + static_cast<std::ptrdiff_t>(kept_), k, value);
  kept_ += k;
}

void Histogram::add_square_n(uint64_t value, uint64_t n) noexcept {
  // (value^2) * n as a 192-bit number, added to the running sum of squares.
  const Uint128 square = static_cast<Uint128>(value) * value;
  const Uint128 p0 = static_cast<Uint128>(low64(square)) * n;
  const Uint128 p1 = static_cast<Uint128>(high64(square)) * n;
  const Uint128 mid = p0 + (static_cast<Uint128>(low64(p1)) << 64);
  const uint64_t top = high64(p1) + static_cast<uint64_t>(mid < p0);
  sum_sq_lo_ += mid;
  sum_sq_hi_ += top + static_cast<uint64_t>(sum_sq_lo_ < mid);
}

bool Histogram::record_overflow(uint64_t value, uint64_t n) noexcept {
  keep(value, n);
  overflow_count_ += n;
  total_count_ += n;
  sum_ += static_cast<Uint128>(value) * n;
  add_square_n(value, n);
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  return false;
}

bool Histogram::record_n(uint64_t value, uint64_t count) noexcept {
  if (count == 0) {
    return value <= highest_trackable_;
  }
  if (value > highest_trackable_) {
    return record_overflow(value, count);
  }
  bump(counts_[counts_index(value)], count);
  keep(value, count);
  total_count_ += count;
  sum_ += static_cast<Uint128>(value) * count;
  add_square_n(value, count);
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  return true;
}

bool Histogram::record_corrected(uint64_t value, uint64_t expected_interval) noexcept {
  bool ok = record(value);
  if (expected_interval == 0 || value <= expected_interval) {
    return ok;
  }
  for (uint64_t missing = value - expected_interval; missing >= expected_interval;
       missing -= expected_interval) {
    ok = record(missing) && ok;
  }
  return ok;
}

void Histogram::merge(const Histogram& other) {
  if (other.sub_bucket_bits_ != sub_bucket_bits_ ||
      other.highest_trackable_ != highest_trackable_ || other.counts_.size() != counts_.size()) {
    throw std::invalid_argument("Histogram::merge: histogram layouts differ");
  }
  for (size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  if (exact() && other.exact()) {           // still every value: the samples side by side
    const size_t other_kept = other.kept_;  // `other` may be *this
    samples_.resize(kept_ + other_kept);
    std::copy_n(other.samples_.begin(), other_kept,
                samples_.begin() + static_cast<std::ptrdiff_t>(kept_));
    kept_ += other_kept;
  }
  total_count_ += other.total_count_;
  overflow_count_ += other.overflow_count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  const Uint128 other_lo = other.sum_sq_lo_;  // copy first: `other` may be *this
  const uint64_t other_hi = other.sum_sq_hi_;
  sum_sq_lo_ += other_lo;
  sum_sq_hi_ += other_hi + static_cast<uint64_t>(sum_sq_lo_ < other_lo);
}

void Histogram::reset() noexcept {
  std::fill(counts_.begin(), counts_.end(), 0);
  kept_ = 0;
  total_count_ = 0;
  overflow_count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
  sum_sq_lo_ = 0;
  sum_sq_hi_ = 0;
}

double Histogram::mean() const noexcept {
  if (total_count_ == 0) {
    return 0.0;
  }
  return static_cast<double>(static_cast<long double>(sum_) /
                             static_cast<long double>(total_count_));
}

double Histogram::stdev() const noexcept {
  if (total_count_ == 0) {
    return 0.0;
  }
  // n^2 * variance = n * sum(x^2) - (sum x)^2, computed exactly in 256-bit integers
  // (non-negative by Cauchy-Schwarz), converted to floating point only at the end.
  const std::array<uint64_t, 1> n{total_count_};
  const std::array<uint64_t, 3> sum_sq{low64(sum_sq_lo_), high64(sum_sq_lo_), sum_sq_hi_};
  const std::array<uint64_t, 2> sum{low64(sum_), high64(sum_)};
  const Limbs scaled = subtract(multiply(sum_sq, n), multiply(sum, sum));
  const auto count = static_cast<long double>(total_count_);
  return static_cast<double>(std::sqrt(to_long_double(scaled) / (count * count)));
}

uint64_t Histogram::value_at_percentile(double p) const {
  return values_at_percentiles(std::span<const double>(&p, 1)).front();
}

std::vector<uint64_t> Histogram::values_at_percentiles(std::span<const double> ps) const {
  for (const double p : ps)
    if (!(p >= 0.0 && p <= 100.0)) {
      throw std::invalid_argument("Histogram::value_at_percentile: p must be in [0, 100], got " +
                                  std::to_string(p));
    }
  std::vector<uint64_t> out;
  out.reserve(ps.size());
  if (total_count_ == 0) {
    out.assign(ps.size(), 0);
    return out;
  }
  std::vector<uint64_t> sorted;
  if (exact()) {
    sorted.assign(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(kept_));
    std::sort(sorted.begin(), sorted.end());
  }
  for (const double p : ps) {
    const uint64_t rank = percentile_rank(p, total_count_);
    if (rank <= 1) {
      out.push_back(min_);
    } else if (rank >= total_count_) {
      out.push_back(max_);
    } else if (!sorted.empty()) {
      out.push_back(sorted[rank - 1]);
    } else {
      out.push_back(interpolated_at_rank(counts_, rank, min_, max_));
    }
  }
  return out;
}

uint64_t Histogram::interpolated_at_rank(std::span<const uint64_t> counts, uint64_t rank,
                                         uint64_t lo, uint64_t hi) const noexcept {
  uint64_t before = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const uint64_t c = counts[i];
    if (before + c < rank) {
      before += c;
      continue;
    }
    const uint64_t low = bucket_low(i);
    const uint64_t width = bucket_high(i) - low + 1;
    if (width == 1) return low;  // exact
    const long double k = static_cast<long double>(rank - before) - 0.5L;
    const long double offset = k / static_cast<long double>(c) * static_cast<long double>(width);
    const uint64_t v = std::min(low + static_cast<uint64_t>(std::llround(offset)), bucket_high(i));
    return std::clamp(v, lo, hi);
  }
  return hi;  // the rank lies among the overflowed values
}

void Histogram::snapshot_counts(std::vector<uint64_t>& out) const {
  out.resize(counts_.size());
  for (size_t i = 0; i < counts_.size(); ++i)
    // atomic_ref<const T> is C++26; the load does not write.
    out[i] = std::atomic_ref<uint64_t>(const_cast<uint64_t&>(counts_[i]))
                 .load(std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::percentiles_of_counts(std::span<const uint64_t> counts,
                                                       std::span<const double> ps) const {
  if (counts.size() != counts_.size())
    throw std::invalid_argument(
        "Histogram::percentiles_of_counts: " + std::to_string(counts.size()) +
        " counters, this layout has " + std::to_string(counts_.size()));
  for (const double p : ps)
    if (!(p >= 0.0 && p <= 100.0))
      throw std::invalid_argument("Histogram::percentiles_of_counts: p must be in [0, 100], got " +
                                  std::to_string(p));
  uint64_t total = 0;
  size_t first = counts.size();
  size_t last = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != 0) {
      total += counts[i];
      first = std::min(first, i);
      last = i;
    }
  std::vector<uint64_t> out(ps.size(), 0);
  if (total == 0) return out;
  const uint64_t lo = bucket_low(first);
  const uint64_t hi = std::min(bucket_high(last), highest_trackable_);
  for (size_t k = 0; k < ps.size(); ++k)
    out[k] = interpolated_at_rank(counts, percentile_rank(ps[k], total), lo, hi);
  return out;
}

std::vector<Histogram::Bucket> Histogram::nonzero_buckets() const {
  std::vector<Bucket> buckets;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) {
      continue;
    }
    buckets.push_back({bucket_low(i), std::min(bucket_high(i), highest_trackable_), counts_[i]});
  }
  return buckets;
}

}  // namespace rdmabench
