// Log-linear ("HDR-style") latency histogram.
//
// Layout (same idea as HdrHistogram, independent implementation):
//   * s = sub_bucket_bits(). Values in [0, 2^s) each get their own counter (exact).
//   * Above that, every power-of-two range [2^(s-1+b), 2^(s+b)) for b = 1, 2, ... is split
//     into 2^(s-1) equal sub-buckets of width 2^b. The relative width of a sub-bucket is
//     therefore at most 2^b / 2^(s-1+b) = 2^(1-s), and s is the smallest value that makes
//     2^(1-s) <= max_relative_error.
//   * All counters live in one flat array indexed by
//       b     = (64 - s) - clz(v | (2^s - 1))      // 0 for v < 2^s
//       index = (b << (s-1)) + (v >> b)
//     which is contiguous: bucket 0 uses [0, 2^s), bucket b >= 1 uses
//     [(b+1) * 2^(s-1), (b+2) * 2^(s-1)). The array is sized to index(highest_trackable) + 1
//     and is allocated once in the constructor; record() never allocates.
//
// Exact side statistics are kept next to the counters: count, overflow count, min, max,
// the sum of values (128-bit) and the sum of squares (192-bit), so mean() and stdev() are
// exact up to the final floating-point conversion.
//
// Exact samples: with exact_capacity > 0 the first exact_capacity values are also kept as they
// are, in an array allocated (and touched) in the constructor; while every value recorded was
// kept, percentiles are the exact nearest-rank sample, as perftest reports them. Beyond that
// they are interpolated within the bucket holding the rank (percentile_method()).
//
// Not thread-safe: one writer per histogram, merge() per-thread histograms afterwards. One
// exception, for watching a histogram while it is written (per-interval percentiles): record()
// and record_n() write each counter as a relaxed atomic, so snapshot_counts() may run on another
// thread meanwhile and reads every counter whole.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rdmabench {

// Nearest-rank (1-based) rank of percentile p in [0, 100] among n sorted values:
// ceil(p / 100 * n), at least 1, at most n. A tiny relative tolerance absorbs the
// representation error of decimal percentiles such as 99.99 so that, e.g., p = 99.99 of
// n = 100000 is rank 99990 and not 99991. Returns 0 when n == 0. Shared by Histogram and
// exact_percentile() so both agree on the definition. Does not validate p.
uint64_t percentile_rank(double p, uint64_t n) noexcept;

class Histogram {
 public:
  struct Bucket {
    uint64_t low;   // inclusive
    uint64_t high;  // inclusive
    uint64_t count;
    friend bool operator==(const Bucket&, const Bucket&) = default;
  };

  // Throws std::invalid_argument if highest_trackable < 2, if max_relative_error is not in
  // (0, 0.5], or if the resulting counter array would exceed kMaxCounters entries (or the
  // exact samples kMaxExactSamples).
  explicit Histogram(uint64_t highest_trackable = 3600ULL * 1000 * 1000 * 1000,
                     double max_relative_error = 0.01, size_t exact_capacity = 0);

  // Upper bound on the counter array length (1 GiB of counters).
  static constexpr size_t kMaxCounters = size_t{1} << 27;
  // Upper bound on the exact samples kept (256 MiB).
  static constexpr size_t kMaxExactSamples = size_t{1} << 25;

  // Records one value. O(1), never allocates. Returns false if value > highest_trackable();
  // such a value is counted in overflow_count() and still updates count/min/max/mean/stdev.
  bool record(uint64_t value) noexcept {
    if (value > highest_trackable_) [[unlikely]] {
      return record_overflow(value, 1);
    }
    bump(counts_[counts_index(value)], 1);
    if (kept_ < samples_.size()) samples_[kept_++] = value;
    ++total_count_;
    sum_ += value;
    add_square(value);
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    return true;
  }

  // Records `count` occurrences of `value` (count == 0 is a no-op). Same return value as
  // record().
  bool record_n(uint64_t value, uint64_t count) noexcept;

  // Coordinated-omission correction, HdrHistogram recordCorrectedValue semantics: records
  // `value`; then, if expected_interval > 0 and value > expected_interval, also records
  // value - expected_interval, value - 2 * expected_interval, ... for as long as the
  // back-filled value is >= expected_interval. Cost is O(value / expected_interval).
  // Returns false if any of the recorded values overflowed.
  bool record_corrected(uint64_t value, uint64_t expected_interval) noexcept;

  // Adds all of `other` into this histogram. Throws std::invalid_argument unless both have
  // the same sub_bucket_bits() and highest_trackable().
  void merge(const Histogram& other);

  // Clears all counts and statistics; keeps the layout and the memory.
  void reset() noexcept;

  [[nodiscard]] uint64_t count() const noexcept { return total_count_; }  // includes overflow
  [[nodiscard]] uint64_t overflow_count() const noexcept { return overflow_count_; }
  [[nodiscard]] uint64_t min() const noexcept { return total_count_ == 0 ? 0 : min_; }
  [[nodiscard]] uint64_t max() const noexcept { return max_; }
  [[nodiscard]] double mean() const noexcept;   // exact; 0 when empty
  [[nodiscard]] double stdev() const noexcept;  // exact population standard deviation; 0 when empty

  // Nearest-rank percentile (see percentile_rank()) of everything recorded, including
  // overflowed values (which rank above all tracked values). p = 0 gives min(), p = 100
  // gives max(). While every value was kept (exact()), the sample of that rank itself.
  // Otherwise interpolated within the bucket holding the rank: a bucket [low, high] holding
  // c values of which the rank is the k-th gives low + (k - 1/2) / c * (high + 1 - low),
  // rounded, clamped to [min(), max()] — the bucket's midpoint for a single value, no bias
  // towards either end, within half a bucket (max_relative_error() / 2) of the exact value
  // when the values spread evenly over the bucket, and within a bucket whatever they do
  // (exactly equal for values < 2^sub_bucket_bits()). If the rank falls among the
  // overflowed values, max() is returned. Returns 0 when empty.
  // Throws std::invalid_argument if p is not in [0, 100] (including NaN).
  [[nodiscard]] uint64_t value_at_percentile(double p) const;
  // The same for several percentiles at once (sorts the kept samples once).
  [[nodiscard]] std::vector<uint64_t> values_at_percentiles(std::span<const double> ps) const;
  // Whether every recorded value was kept (percentiles are exact); true when empty.
  [[nodiscard]] bool exact() const noexcept { return kept_ == total_count_; }
  // "exact" or "interpolated": how value_at_percentile() takes the current percentiles.
  [[nodiscard]] const char* percentile_method() const noexcept {
    return exact() ? "exact" : "interpolated";
  }
  [[nodiscard]] size_t exact_capacity() const noexcept { return samples_.size(); }

  // The counters as they are now, into `out` (resized to counter_count()); safe while another
  // thread records (see the top of this file).
  void snapshot_counts(std::vector<uint64_t>& out) const;
  // Percentiles of the values counted in `counts`, counters in this histogram's layout (e.g. the
  // difference of two snapshots: the values recorded in between): nearest rank, interpolated
  // within the bucket holding it as value_at_percentile() does, clamped to the lowest and
  // highest non-empty bucket. Overflowed values are not in the counters, so not in these. Zeros
  // when `counts` holds nothing. Throws std::invalid_argument when `counts` has another length
  // or a p is not in [0, 100].
  [[nodiscard]] std::vector<uint64_t> percentiles_of_counts(std::span<const uint64_t> counts,
                                                            std::span<const double> ps) const;

  // Non-empty buckets in increasing value order. Counts sum to count() - overflow_count().
  // `high` is clamped to highest_trackable().
  [[nodiscard]] std::vector<Bucket> nonzero_buckets() const;

  [[nodiscard]] double max_relative_error() const noexcept { return max_relative_error_; }
  [[nodiscard]] uint64_t highest_trackable() const noexcept { return highest_trackable_; }
  [[nodiscard]] int sub_bucket_bits() const noexcept { return sub_bucket_bits_; }
  [[nodiscard]] size_t counter_count() const noexcept { return counts_.size(); }
  // Bytes owned by this histogram (object + counter array + exact samples); fixed at
  // construction (merge() may add the other histogram's samples).
  [[nodiscard]] size_t memory_bytes() const noexcept {
    return sizeof(*this) + (counts_.size() + samples_.size()) * sizeof(uint64_t);
  }

  // Bucket boundaries of the bucket that `value` (<= highest_trackable()) falls into.
  [[nodiscard]] uint64_t lowest_equivalent_value(uint64_t value) const noexcept {
    return bucket_low(counts_index(value));
  }
  [[nodiscard]] uint64_t highest_equivalent_value(uint64_t value) const noexcept {
    return bucket_high(counts_index(value));
  }

 private:
  __extension__ using Uint128 = unsigned __int128;

  [[nodiscard]] size_t counts_index(uint64_t value) const noexcept {
    // value | mask is never 0, so clz is well defined.
    const int bucket = leading_zero_base_ - __builtin_clzll(value | sub_bucket_mask_);
    return (static_cast<size_t>(bucket) << sub_half_bits_) + static_cast<size_t>(value >> bucket);
  }
  [[nodiscard]] int bucket_of_index(size_t index) const noexcept {
    return index < (size_t{2} << sub_half_bits_) ? 0
                                                 : static_cast<int>(index >> sub_half_bits_) - 1;
  }
  [[nodiscard]] uint64_t bucket_low(size_t index) const noexcept {
    const int bucket = bucket_of_index(index);
    return static_cast<uint64_t>(index - (static_cast<size_t>(bucket) << sub_half_bits_)) << bucket;
  }
  [[nodiscard]] uint64_t bucket_high(size_t index) const noexcept {
    const int bucket = bucket_of_index(index);
    return bucket_low(index) + ((uint64_t{1} << bucket) - 1);
  }

  // counter += n as a relaxed atomic store (one writer), for snapshot_counts() readers.
  static void bump(uint64_t& counter, uint64_t n) noexcept {
    std::atomic_ref<uint64_t> c(counter);
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  // The value of `rank` (1-based) among the values counted in `counts` (this layout), clamped
  // to [lo, hi]; `hi` when the rank lies beyond them (among overflowed values).
  [[nodiscard]] uint64_t interpolated_at_rank(std::span<const uint64_t> counts, uint64_t rank,
                                              uint64_t lo, uint64_t hi) const noexcept;

  // Adds value^2 to the 192-bit sum of squares (sum_sq_hi_ : sum_sq_lo_).
  void add_square(uint64_t value) noexcept {
    const Uint128 square = static_cast<Uint128>(value) * value;
    sum_sq_lo_ += square;
    sum_sq_hi_ += static_cast<uint64_t>(sum_sq_lo_ < square);  // carry
  }
  void add_square_n(uint64_t value, uint64_t n) noexcept;
  bool record_overflow(uint64_t value, uint64_t n) noexcept;
  void keep(uint64_t value, uint64_t n) noexcept;

  uint64_t highest_trackable_;
  double max_relative_error_;
  int sub_bucket_bits_;       // s
  int sub_half_bits_;         // s - 1
  int leading_zero_base_;     // 64 - s
  uint64_t sub_bucket_mask_;  // 2^s - 1
  std::vector<uint64_t> counts_;
  std::vector<uint64_t> samples_;  // exact samples: the first kept_ recorded values
  size_t kept_ = 0;

  uint64_t total_count_ = 0;
  uint64_t overflow_count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  Uint128 sum_ = 0;
  Uint128 sum_sq_lo_ = 0;
  uint64_t sum_sq_hi_ = 0;
};

}  // namespace rdmabench
