#include "base/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/statistics.h"

namespace rdmabench {
namespace {

constexpr uint64_t kSecond = 1000ULL * 1000 * 1000;
constexpr size_t kSamples = 200000;
const double kPercentiles[] = {0, 1, 10, 50, 90, 99, 99.9, 99.99, 100};

uint64_t clamp_to_u64(double v) {
  if (!(v > 0)) return 0;
  if (v > 1e15) return static_cast<uint64_t>(1e15);
  return static_cast<uint64_t>(std::llround(v));
}

// Every generator spans nanoseconds to seconds (or more) with a fixed seed.
std::vector<uint64_t> uniform_values() {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> dist(0, 5 * kSecond);
  std::vector<uint64_t> v(kSamples);
  for (auto& x : v) x = dist(rng);
  // Sprinkle small values so the exact (unit-width) region is exercised too.
  std::uniform_int_distribution<uint64_t> small(0, 1000);
  for (size_t i = 0; i < v.size(); i += 97) v[i] = small(rng);
  return v;
}

std::vector<uint64_t> exponential_values() {
  std::mt19937_64 rng(2);
  std::exponential_distribution<double> dist(1.0 / 20000.0);  // mean 20 us
  std::vector<uint64_t> v(kSamples);
  for (auto& x : v) x = clamp_to_u64(dist(rng));
  return v;
}

std::vector<uint64_t> bimodal_values() {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> fast(2000.0, 150.0);  // 2 us
  std::normal_distribution<double> slow(5e8, 5e7);       // 0.5 s
  std::bernoulli_distribution pick_slow(0.02);
  std::vector<uint64_t> v(kSamples);
  for (auto& x : v) x = clamp_to_u64(pick_slow(rng) ? slow(rng) : fast(rng));
  return v;
}

std::vector<uint64_t> pareto_values() {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double xm = 300.0;   // ns
  const double alpha = 0.8;  // heavy tail: reaches seconds and beyond
  std::vector<uint64_t> v(kSamples);
  for (auto& x : v) x = clamp_to_u64(xm / std::pow(1.0 - u(rng), 1.0 / alpha));
  return v;
}

std::vector<uint64_t> log_uniform_values() {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(0.0, std::log(10.0 * kSecond));
  std::vector<uint64_t> v(kSamples);
  for (auto& x : v) x = clamp_to_u64(std::exp(exponent(rng)));
  return v;
}

long double exact_mean(const std::vector<uint64_t>& v) {
  __extension__ unsigned __int128 sum = 0;
  for (auto x : v) sum += x;
  return static_cast<long double>(sum) / static_cast<long double>(v.size());
}

long double exact_population_stdev(const std::vector<uint64_t>& v) {
  const long double m = exact_mean(v);
  long double squares = 0;
  for (auto x : v) squares += (static_cast<long double>(x) - m) * (static_cast<long double>(x) - m);
  return std::sqrt(squares / static_cast<long double>(v.size()));
}

Histogram record_all(const std::vector<uint64_t>& v, uint64_t highest = 3600 * kSecond,
                     double error = 0.01) {
  Histogram h(highest, error);
  for (auto x : v) EXPECT_TRUE(h.record(x));
  return h;
}

void expect_same(const Histogram& a, const Histogram& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.overflow_count(), b.overflow_count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.stdev(), b.stdev());
  EXPECT_EQ(a.nonzero_buckets(), b.nonzero_buckets());
  for (double p = 0; p <= 100; p += 0.25) {
    EXPECT_EQ(a.value_at_percentile(p), b.value_at_percentile(p)) << "p=" << p;
  }
}

struct Distribution {
  std::string name;
  std::vector<uint64_t> (*make)();
};

class HistogramAccuracyTest : public ::testing::TestWithParam<std::tuple<Distribution, double>> {};

TEST_P(HistogramAccuracyTest, PercentilesWithinRelativeErrorAndExactMoments) {
  const auto& [dist, error] = GetParam();
  const std::vector<uint64_t> values = dist.make();
  const Histogram h = record_all(values, 3600 * kSecond, error);

  ASSERT_EQ(h.count(), values.size());
  EXPECT_EQ(h.overflow_count(), 0U);
  EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(h.mean(), static_cast<double>(exact_mean(values)));
  EXPECT_NEAR(h.stdev(), static_cast<double>(exact_population_stdev(values)), 1e-9 * h.stdev());

  std::vector<double> percentiles(std::begin(kPercentiles), std::end(kPercentiles));
  for (double p = 0.5; p < 100; p += 2.5) percentiles.push_back(p);  // a denser sweep too
  for (const double p : percentiles) {
    const double exact = exact_percentile(values, p);
    const auto got = static_cast<double>(h.value_at_percentile(p));
    EXPECT_LE(std::abs(got - exact), error * exact)
        << dist.name << " error=" << error << " p=" << p << " exact=" << exact << " got=" << got;
  }
  EXPECT_EQ(h.value_at_percentile(0), h.min());
  EXPECT_EQ(h.value_at_percentile(100), h.max());
}

INSTANTIATE_TEST_SUITE_P(
    Distributions, HistogramAccuracyTest,
    ::testing::Combine(::testing::Values(Distribution{"uniform", uniform_values},
                                         Distribution{"exponential", exponential_values},
                                         Distribution{"bimodal", bimodal_values},
                                         Distribution{"pareto", pareto_values},
                                         Distribution{"log_uniform", log_uniform_values}),
                       ::testing::Values(0.01, 0.001, 0.05)),
    [](const auto& info) {
      const double error = std::get<1>(info.param);
      return std::get<0>(info.param).name + "_err" +
             std::to_string(static_cast<int>(std::lround(error * 1000))) + "permille";
    });

TEST(HistogramTest, DataSpansNanosecondsToSeconds) {
  // Guards the generators above against silently narrowing their ranges.
  for (const auto& make : {uniform_values, bimodal_values, pareto_values, log_uniform_values}) {
    const auto v = make();
    EXPECT_LT(*std::min_element(v.begin(), v.end()), 10000U);
    EXPECT_GT(*std::max_element(v.begin(), v.end()), kSecond / 10);
  }
}

TEST(HistogramTest, LayoutFollowsRelativeError) {
  // 2^(1-s) <= e for the smallest s.
  EXPECT_EQ(Histogram(3600 * kSecond, 0.01).sub_bucket_bits(), 8);
  EXPECT_EQ(Histogram(3600 * kSecond, 0.001).sub_bucket_bits(), 11);
  EXPECT_EQ(Histogram(3600 * kSecond, 0.05).sub_bucket_bits(), 6);
  EXPECT_EQ(Histogram(3600 * kSecond, 0.5).sub_bucket_bits(), 2);
  EXPECT_EQ(Histogram(3600 * kSecond, 1.0 / 128).sub_bucket_bits(), 8);
  // A tiny range is tracked exactly with no more bits than needed.
  const Histogram tiny(10, 1e-9);
  EXPECT_EQ(tiny.sub_bucket_bits(), 4);
  EXPECT_EQ(tiny.counter_count(), 11U);
}

TEST(HistogramTest, EveryValueMapsToAContiguousBucketWithinTheErrorBound) {
  for (const double error : {0.5, 0.05, 0.01, 0.001}) {
    const uint64_t highest = 3000000;
    const Histogram h(highest, error);
    const uint64_t exact_limit = uint64_t{1} << h.sub_bucket_bits();
    uint64_t expected_low = 0;
    for (uint64_t v = 0; v <= highest; ++v) {
      const uint64_t low = h.lowest_equivalent_value(v);
      const uint64_t high = h.highest_equivalent_value(v);
      ASSERT_LE(low, v);
      ASSERT_GE(high, v);
      ASSERT_EQ(low, expected_low) << "v=" << v;  // buckets tile the range without gaps
      if (v == high) expected_low = high + 1;
      if (v < exact_limit) {
        ASSERT_EQ(low, high) << "v=" << v;
      }
      ASSERT_LE(static_cast<double>(high - low), error * static_cast<double>(low)) << "v=" << v;
    }
  }
}

TEST(HistogramTest, ExtremeValuesAndFullRange) {
  Histogram h(UINT64_MAX, 0.01);
  EXPECT_TRUE(h.record(UINT64_MAX));
  EXPECT_TRUE(h.record(0));
  EXPECT_EQ(h.count(), 2U);
  EXPECT_EQ(h.min(), 0U);
  EXPECT_EQ(h.max(), UINT64_MAX);
  const long double half = static_cast<long double>(UINT64_MAX) / 2;
  EXPECT_EQ(h.mean(), static_cast<double>(half));
  EXPECT_DOUBLE_EQ(h.stdev(), static_cast<double>(half));
  EXPECT_EQ(h.value_at_percentile(100), UINT64_MAX);
  EXPECT_EQ(h.value_at_percentile(50), 0U);
  EXPECT_EQ(h.value_at_percentile(75), UINT64_MAX);  // clamped to max
  const auto buckets = h.nonzero_buckets();
  ASSERT_EQ(buckets.size(), 2U);
  EXPECT_EQ(buckets.back().high, UINT64_MAX);
  EXPECT_LE(static_cast<double>(buckets.back().high - buckets.back().low),
            0.01 * static_cast<double>(buckets.back().low));
}

TEST(HistogramTest, StdevIsExactForTightDistributionsAroundLargeMeans) {
  Histogram h;
  const std::vector<uint64_t> values = {kSecond, kSecond + 1, kSecond + 2};
  for (int i = 0; i < 1000; ++i) {
    for (auto v : values) h.record(v);
  }
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(kSecond + 1));
  EXPECT_DOUBLE_EQ(h.stdev(), std::sqrt(2.0 / 3.0));
}

TEST(HistogramTest, EmptyHistogram) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0U);
  EXPECT_EQ(h.overflow_count(), 0U);
  EXPECT_EQ(h.min(), 0U);
  EXPECT_EQ(h.max(), 0U);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stdev(), 0.0);
  EXPECT_EQ(h.value_at_percentile(50), 0U);
  EXPECT_TRUE(h.nonzero_buckets().empty());
}

TEST(HistogramTest, OverflowIsCountedAndNotLost) {
  Histogram h(1000, 0.01);
  EXPECT_TRUE(h.record(1000));
  EXPECT_FALSE(h.record(1001));
  EXPECT_FALSE(h.record_n(5000, 2));
  EXPECT_TRUE(h.record(5));
  EXPECT_EQ(h.count(), 5U);
  EXPECT_EQ(h.overflow_count(), 3U);
  EXPECT_EQ(h.min(), 5U);
  EXPECT_EQ(h.max(), 5000U);
  EXPECT_DOUBLE_EQ(h.mean(), (1000.0 + 1001 + 5000 + 5000 + 5) / 5);
  EXPECT_EQ(h.value_at_percentile(100), 5000U);
  EXPECT_EQ(h.value_at_percentile(70), 5000U);  // rank 4 lies among the overflowed values
  uint64_t in_range = 0;
  for (const auto& b : h.nonzero_buckets()) {
    in_range += b.count;
    EXPECT_LE(b.high, h.highest_trackable());
  }
  EXPECT_EQ(in_range, h.count() - h.overflow_count());
}

TEST(HistogramTest, OverflowOnlyHistogram) {
  Histogram h(100, 0.01);
  EXPECT_FALSE(h.record(1000));
  EXPECT_EQ(h.min(), 1000U);
  EXPECT_EQ(h.max(), 1000U);
  EXPECT_EQ(h.value_at_percentile(50), 1000U);
  EXPECT_TRUE(h.nonzero_buckets().empty());
}

TEST(HistogramTest, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  const std::vector<std::pair<uint64_t, uint64_t>> items = {
      {0, 3}, {7, 1}, {1234567, 40}, {kSecond * 3, 7}, {99, 0}};
  for (const auto& [value, n] : items) {
    EXPECT_TRUE(a.record_n(value, n));
    for (uint64_t i = 0; i < n; ++i) b.record(value);
  }
  expect_same(a, b);
  EXPECT_FALSE(a.record_n(a.highest_trackable() + 1, 0));  // reports range, records nothing
  EXPECT_EQ(a.count(), b.count());
}

TEST(HistogramTest, RecordNWithHugeProductsKeepsExactMoments) {
  Histogram a(UINT64_MAX, 0.01);
  const uint64_t big = uint64_t{1} << 62;
  a.record_n(big, 1000);
  a.record_n(0, 1000);
  EXPECT_EQ(a.mean(), static_cast<double>(big / 2));
  EXPECT_EQ(a.stdev(), static_cast<double>(big / 2));
}

TEST(HistogramTest, RecordNCarriesAcrossTheWideSumOfSquares) {
  // Squares close to 2^128 make the 192-bit sum of squares carry on every addition.
  Histogram a(UINT64_MAX, 0.01);
  Histogram b(UINT64_MAX, 0.01);
  const std::vector<std::pair<uint64_t, uint64_t>> items = {
      {UINT64_MAX, 3}, {UINT64_MAX - 5, 5}, {1, 2}, {uint64_t{1} << 63, 7}};
  for (const auto& [value, n] : items) {
    a.record_n(value, n);
    for (uint64_t i = 0; i < n; ++i) b.record(value);
  }
  expect_same(a, b);
  EXPECT_GT(a.stdev(), 1e18);
  EXPECT_LT(a.stdev(), 1e19);
}

TEST(HistogramTest, MergeEqualsRecordingEverythingIntoOne) {
  const auto x = pareto_values();
  const auto y = bimodal_values();
  // With 100 ms as the limit some values overflow: overflow must merge too.
  Histogram all(kSecond / 10, 0.01);
  Histogram hx(kSecond / 10, 0.01);
  Histogram hy(kSecond / 10, 0.01);
  for (auto v : x) {
    all.record(v);
    hx.record(v);
  }
  for (auto v : y) {
    all.record(v);
    hy.record(v);
  }
  ASSERT_GT(all.overflow_count(), 0U);
  hx.merge(hy);
  expect_same(hx, all);

  Histogram empty(kSecond / 10, 0.01);
  hx.merge(empty);
  expect_same(hx, all);
  empty.merge(all);
  expect_same(empty, all);
}

TEST(HistogramTest, SelfMergeDoublesCounts) {
  Histogram h;
  Histogram twice;
  for (uint64_t v : {1ULL, 500ULL, 70000ULL, 9000000000ULL}) {
    h.record(v);
    twice.record_n(v, 2);
  }
  h.merge(h);
  expect_same(h, twice);
}

TEST(HistogramTest, MergeWithDifferentLayoutThrows) {
  Histogram a(1000000, 0.01);
  const Histogram different_error(1000000, 0.001);
  const Histogram different_range(10000000, 0.01);
  EXPECT_THROW(a.merge(different_error), std::invalid_argument);
  EXPECT_THROW(a.merge(different_range), std::invalid_argument);
  // Errors that map to the same layout are compatible.
  const Histogram same_layout(1000000, 0.009);
  EXPECT_NO_THROW(a.merge(same_layout));
}

// Brute-force expansion of coordinated-omission correction, written independently of the
// implementation: value, then value - k * interval for k = 1, 2, ... while >= interval.
std::vector<uint64_t> expand_corrected(uint64_t value, uint64_t interval) {
  std::vector<uint64_t> out = {value};
  if (interval == 0) return out;
  for (uint64_t k = 1; k * interval < value && value - k * interval >= interval; ++k) {
    out.push_back(value - k * interval);
  }
  return out;
}

TEST(HistogramTest, RecordCorrectedMatchesBruteForceExpansion) {
  EXPECT_EQ(expand_corrected(100, 10).size(), 10U);  // 100, 90, ..., 10
  EXPECT_EQ(expand_corrected(105, 10).size(), 10U);  // 105, 95, ..., 15
  EXPECT_EQ(expand_corrected(10, 10).size(), 1U);
  EXPECT_EQ(expand_corrected(5, 10).size(), 1U);
  EXPECT_EQ(expand_corrected(100, 0).size(), 1U);

  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> value_dist(0, 2000000);
  std::uniform_int_distribution<uint64_t> interval_dist(0, 50000);
  Histogram corrected;
  Histogram expanded;
  const std::vector<std::pair<uint64_t, uint64_t>> fixed = {
      {100, 10}, {105, 10}, {10, 10}, {5, 10}, {100, 0}, {0, 0}, {0, 7}, {1, 1}, {20, 1}};
  std::vector<std::pair<uint64_t, uint64_t>> cases = fixed;
  for (int i = 0; i < 2000; ++i) cases.emplace_back(value_dist(rng), interval_dist(rng));
  for (const auto& [value, interval] : cases) {
    EXPECT_TRUE(corrected.record_corrected(value, interval));
    for (auto v : expand_corrected(value, interval)) expanded.record(v);
  }
  expect_same(corrected, expanded);
}

TEST(HistogramTest, RecordCorrectedReportsOverflow) {
  Histogram h(100, 0.01);
  EXPECT_FALSE(h.record_corrected(250, 100));  // records 250 (overflow) and 150 (overflow)
  EXPECT_EQ(h.count(), 2U);
  EXPECT_EQ(h.overflow_count(), 2U);
  EXPECT_FALSE(h.record_corrected(150, 40));  // 150 and 110 overflow, 70 fits, 30 < 40 stops
  EXPECT_EQ(h.count(), 5U);
  EXPECT_EQ(h.overflow_count(), 4U);
}

TEST(HistogramTest, NonzeroBucketsSumToCountAndSatisfyTheErrorBound) {
  for (const double error : {0.01, 0.001, 0.05}) {
    const auto values = log_uniform_values();
    Histogram h(kSecond, error);
    for (auto v : values) h.record(v);
    ASSERT_GT(h.overflow_count(), 0U);
    const auto buckets = h.nonzero_buckets();
    uint64_t total = 0;
    uint64_t previous_high = 0;
    for (size_t i = 0; i < buckets.size(); ++i) {
      const auto& b = buckets[i];
      total += b.count;
      EXPECT_GT(b.count, 0U);
      EXPECT_LE(b.low, b.high);
      if (i > 0) {
        EXPECT_GT(b.low, previous_high);
      }
      previous_high = b.high;
      EXPECT_LE(static_cast<double>(b.high - b.low), error * static_cast<double>(b.low));
    }
    EXPECT_EQ(total, h.count() - h.overflow_count());
    // Each bucket holds exactly the recorded values in [low, high].
    std::vector<uint64_t> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& b : buckets) {
      const auto n = std::upper_bound(sorted.begin(), sorted.end(), b.high) -
                     std::lower_bound(sorted.begin(), sorted.end(), b.low);
      EXPECT_EQ(static_cast<uint64_t>(n), b.count);
    }
  }
}

TEST(HistogramTest, ConstructorRejectsBadArguments) {
  EXPECT_THROW(Histogram(0, 0.01), std::invalid_argument);
  EXPECT_THROW(Histogram(1, 0.01), std::invalid_argument);
  EXPECT_THROW(Histogram(1000, 0.0), std::invalid_argument);
  EXPECT_THROW(Histogram(1000, -0.01), std::invalid_argument);
  EXPECT_THROW(Histogram(1000, 0.51), std::invalid_argument);
  EXPECT_THROW(Histogram(1000, 1.0), std::invalid_argument);
  EXPECT_THROW(Histogram(1000, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(Histogram(1000, std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(Histogram(3600 * kSecond, 1e-9), std::invalid_argument);  // too much memory
  EXPECT_THROW(Histogram(UINT64_MAX, 1e-300), std::invalid_argument);
  EXPECT_NO_THROW(Histogram(2, 0.5));
  EXPECT_NO_THROW(Histogram(2, 1e-300));
  EXPECT_NO_THROW(Histogram(UINT64_MAX, 0.01));
}

TEST(HistogramTest, PercentileRejectsOutOfRange) {
  Histogram h;
  h.record(5);
  EXPECT_THROW((void)h.value_at_percentile(-0.001), std::invalid_argument);
  EXPECT_THROW((void)h.value_at_percentile(100.001), std::invalid_argument);
  EXPECT_THROW((void)h.value_at_percentile(std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
  EXPECT_EQ(h.value_at_percentile(0), 5U);
  EXPECT_EQ(h.value_at_percentile(100), 5U);
}

TEST(HistogramTest, PercentileRankIsNearestRank) {
  EXPECT_EQ(percentile_rank(50, 0), 0U);
  EXPECT_EQ(percentile_rank(0, 10), 1U);
  EXPECT_EQ(percentile_rank(100, 10), 10U);
  EXPECT_EQ(percentile_rank(50, 3), 2U);
  EXPECT_EQ(percentile_rank(50, 4), 2U);
  EXPECT_EQ(percentile_rank(30, 5), 2U);
  EXPECT_EQ(percentile_rank(99.99, 100000), 99990U);
  EXPECT_EQ(percentile_rank(99.9, 1000), 999U);
  EXPECT_EQ(percentile_rank(99.9, 1001), 1000U);
}

TEST(HistogramTest, ResetClearsEverythingButKeepsLayout) {
  Histogram h(kSecond, 0.01);
  const size_t bytes = h.memory_bytes();
  for (auto v : exponential_values()) h.record(v);
  h.record(kSecond * 2);
  h.reset();
  expect_same(h, Histogram(kSecond, 0.01));
  EXPECT_EQ(h.memory_bytes(), bytes);
  h.record(42);
  EXPECT_EQ(h.min(), 42U);
  EXPECT_EQ(h.value_at_percentile(50), 42U);
}

TEST(HistogramTest, MemoryIsFixedAtConstruction) {
  Histogram h;
  const size_t bytes = h.memory_bytes();
  EXPECT_GE(bytes, h.counter_count() * sizeof(uint64_t));
  for (auto v : pareto_values()) h.record(v);
  h.record_n(123, 1000);
  h.record_corrected(kSecond, 1000);
  h.record(UINT64_MAX);
  Histogram other;
  other.record(7);
  h.merge(other);
  EXPECT_EQ(h.memory_bytes(), bytes);
  // Default layout: ~36 KiB (1 % error up to one hour of nanoseconds).
  EXPECT_LT(bytes, size_t{64} * 1024);
}

TEST(HistogramTest, CopyIsIndependent) {
  Histogram a;
  a.record(10);
  Histogram b = a;
  b.record(20);
  EXPECT_EQ(a.count(), 1U);
  EXPECT_EQ(b.count(), 2U);
  EXPECT_EQ(b.max(), 20U);
}

// Per-interval percentiles (interval_meter.h): the difference of two counter snapshots holds
// exactly the values recorded in between, and its percentiles are those of a histogram that
// recorded only them (interpolated: no exact samples kept in either).
TEST(HistogramTest, PercentilesOfCountsBetweenSnapshots) {
  Histogram h;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> early(1000, 2000), late(50000, 90000);
  for (int i = 0; i < 5000; ++i) h.record(early(rng));
  std::vector<uint64_t> before;
  h.snapshot_counts(before);
  ASSERT_EQ(before.size(), h.counter_count());
  Histogram only_late;
  for (int i = 0; i < 3000; ++i) {
    const uint64_t v = late(rng);
    h.record(v);
    only_late.record(v);
  }
  std::vector<uint64_t> after;
  h.snapshot_counts(after);
  std::vector<uint64_t> diff(after.size());
  uint64_t n = 0;
  for (size_t i = 0; i < diff.size(); ++i) n += diff[i] = after[i] - before[i];
  EXPECT_EQ(n, 3000U);
  const std::vector<double> ps{1, 50, 99, 99.9};
  const std::vector<uint64_t> got = h.percentiles_of_counts(diff, ps);
  const std::vector<uint64_t> want = only_late.values_at_percentiles(ps);
  ASSERT_EQ(got.size(), ps.size());
  for (size_t k = 0; k < ps.size(); ++k) {
    // The same bucket interpolation; only the clamp differs (bucket edges, not min/max).
    EXPECT_NEAR(double(got[k]), double(want[k]), double(want[k]) * h.max_relative_error())
        << "p" << ps[k];
    EXPECT_GE(got[k], 50000U * (1 - h.max_relative_error()));
  }
  // Nothing in between: zeros. Another layout's counters, or a bad p: refused.
  EXPECT_EQ(h.percentiles_of_counts(std::vector<uint64_t>(after.size(), 0), ps),
            std::vector<uint64_t>(ps.size(), 0));
  EXPECT_THROW((void)h.percentiles_of_counts(std::vector<uint64_t>(3, 1), ps),
               std::invalid_argument);
  const std::vector<double> bad{101};
  EXPECT_THROW((void)h.percentiles_of_counts(diff, bad), std::invalid_argument);
}

}  // namespace
}  // namespace rdmabench
