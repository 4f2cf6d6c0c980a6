// Percentiles without the upward bias: exact from the kept samples, interpolated within the
// bucket beyond them (base/histogram.h), checked against exact percentiles of known data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "base/histogram.h"
#include "base/statistics.h"

namespace rdmabench {
namespace {

constexpr uint64_t kHour = 3600ULL * 1000 * 1000 * 1000;

std::vector<double> sweep() {
  std::vector<double> ps = {0, 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
  for (double p = 0.7; p < 100; p += 3.3) ps.push_back(p);
  return ps;
}

// Round trips around 35 us with a tail, as the testbed's latency runs give.
std::vector<uint64_t> latencies(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> body(std::log(35000.0), 0.08);
  std::exponential_distribution<double> tail(1.0 / 200000.0);
  std::bernoulli_distribution slow(0.01);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = static_cast<uint64_t>(body(rng) + (slow(rng) ? tail(rng) : 0.0));
  return v;
}

TEST(HistogramPercentileTest, ExactWhileEverySampleIsKept) {
  const std::vector<uint64_t> values = latencies(5000, 1);
  Histogram h(kHour, 0.01, values.size());
  for (const uint64_t v : values) h.record(v);
  EXPECT_TRUE(h.exact());
  EXPECT_STREQ(h.percentile_method(), "exact");
  for (const double p : sweep())
    EXPECT_EQ(static_cast<double>(h.value_at_percentile(p)), exact_percentile(values, p))
        << "p=" << p;
  // The summary takes the same values.
  const LatencySummary s = summarize(h, 0.5);
  EXPECT_EQ(s.p50, exact_percentile(values, 50) * 0.5);
  EXPECT_EQ(s.p99, exact_percentile(values, 99) * 0.5);
  EXPECT_EQ(s.p9999, exact_percentile(values, 99.99) * 0.5);
}

TEST(HistogramPercentileTest, RecordNAndOverflowedValuesAreKeptToo) {
  Histogram h(1000, 0.01, 10);
  h.record(7);
  h.record_n(900, 3);
  EXPECT_FALSE(h.record(5000));  // overflow: counted, and kept
  h.record_n(999, 2);
  const std::vector<uint64_t> values = {7, 900, 900, 900, 5000, 999, 999};
  ASSERT_TRUE(h.exact());
  for (const double p : sweep())
    EXPECT_EQ(static_cast<double>(h.value_at_percentile(p)), exact_percentile(values, p))
        << "p=" << p;
}

// Beyond the kept samples: within a bucket of the exact value, and on average neither above
// nor below it (the bucket's highest value, as before, was above by up to a bucket).
TEST(HistogramPercentileTest, InterpolatedBeyondTheKeptSamplesWithoutBias) {
  const std::vector<uint64_t> values = latencies(200000, 2);
  Histogram h(kHour, 0.01, 1000);
  for (const uint64_t v : values) h.record(v);
  EXPECT_FALSE(h.exact());
  EXPECT_STREQ(h.percentile_method(), "interpolated");
  double signed_sum = 0;
  double bucket_high_sum = 0;
  int n = 0;
  for (double p = 1; p < 99.5; p += 0.5, ++n) {
    const double exact = exact_percentile(values, p);
    const auto got = static_cast<double>(h.value_at_percentile(p));
    EXPECT_LE(std::abs(got - exact), 0.01 * exact) << "p=" << p;
    signed_sum += (got - exact) / exact;
    bucket_high_sum +=
        (static_cast<double>(h.highest_equivalent_value(static_cast<uint64_t>(exact))) - exact) /
        exact;
  }
  const double bias = signed_sum / n;
  const double old_bias = bucket_high_sum / n;
  EXPECT_LT(std::abs(bias), 0.0005) << "mean relative error " << bias;
  EXPECT_GT(old_bias, 0.002) << "the bucket's highest value is biased upward by " << old_bias;
}

TEST(HistogramPercentileTest, ASingleValueInAWideBucketIsItsMidpoint) {
  Histogram h(kHour, 0.01);  // no kept samples
  const uint64_t v = 1000000;
  const uint64_t low = h.lowest_equivalent_value(v);
  const uint64_t high = h.highest_equivalent_value(v);
  ASSERT_GT(high - low, 1000u);  // a wide bucket (4096 values)
  h.record(10);
  h.record(v);
  h.record(2 * v);
  EXPECT_EQ(h.value_at_percentile(50), low + (high + 1 - low) / 2);
  // Values below 2^sub_bucket_bits have buckets of one value: exact.
  Histogram small(kHour, 0.01);
  for (const uint64_t x : {3, 100, 101, 102, 200}) small.record(x);
  EXPECT_EQ(small.value_at_percentile(50), 101u);
}

TEST(HistogramPercentileTest, MergeStaysExactOnlyWhileBothKeptEverything) {
  const std::vector<uint64_t> a_values = latencies(300, 3);
  const std::vector<uint64_t> b_values = latencies(500, 4);
  Histogram a(kHour, 0.01, 300);
  Histogram b(kHour, 0.01, 500);
  for (const uint64_t v : a_values) a.record(v);
  for (const uint64_t v : b_values) b.record(v);
  a.merge(b);
  std::vector<uint64_t> all = a_values;
  all.insert(all.end(), b_values.begin(), b_values.end());
  ASSERT_TRUE(a.exact());
  EXPECT_EQ(a.count(), all.size());
  for (const double p : sweep())
    EXPECT_EQ(static_cast<double>(a.value_at_percentile(p)), exact_percentile(all, p)) << "p=" << p;
  Histogram lossy(kHour, 0.01, 10);
  for (const uint64_t v : b_values) lossy.record(v);
  a.merge(lossy);
  EXPECT_FALSE(a.exact());
  a.reset();
  EXPECT_TRUE(a.exact());
  EXPECT_EQ(a.value_at_percentile(50), 0u);
}

TEST(HistogramPercentileTest, KeptSamplesAreBoundedAndCounted) {
  const Histogram none(kHour, 0.01);
  const Histogram some(kHour, 0.01, 1 << 16);
  EXPECT_EQ(some.exact_capacity(), size_t{1} << 16);
  EXPECT_EQ(some.memory_bytes() - none.memory_bytes(), (size_t{1} << 16) * sizeof(uint64_t));
  EXPECT_THROW(Histogram(kHour, 0.01, Histogram::kMaxExactSamples + 1), std::invalid_argument);
}

}  // namespace
}  // namespace rdmabench
