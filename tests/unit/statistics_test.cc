#include "base/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "base/histogram.h"

namespace rdmabench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(StatisticsTest, Mean) {
  EXPECT_DOUBLE_EQ(mean(std::vector<double>{1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(mean(std::vector<double>{-3, 3}), 0.0);
  EXPECT_DOUBLE_EQ(mean(std::vector<double>{7.25}), 7.25);
  // Long-double accumulation: the small values are not lost next to the large one.
  EXPECT_DOUBLE_EQ(mean(std::vector<double>{1e16, 1, 1, 1, 1, -1e16}), 4.0 / 6.0);
  EXPECT_TRUE(std::isnan(mean(std::vector<double>{})));
  EXPECT_TRUE(std::isnan(mean(std::vector<double>{1, kNaN, 3})));
  EXPECT_EQ(mean(std::vector<double>{1, kInf}), kInf);
}

TEST(StatisticsTest, Median) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{10, 1, 1, 10}), 5.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{5}), 5.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{2, 8}), 5.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{1e308, 1.5e308}), 1.25e308);  // no overflow
  EXPECT_EQ(median(std::vector<double>{-kInf, -kInf}), -kInf);
  EXPECT_TRUE(std::isnan(median(std::vector<double>{})));
  EXPECT_TRUE(std::isnan(median(std::vector<double>{kNaN, 1, 2})));
  // Input is not modified.
  const std::vector<double> v = {9, 3, 7, 1};
  EXPECT_DOUBLE_EQ(median(v), 5.0);
  EXPECT_EQ(v, (std::vector<double>{9, 3, 7, 1}));
}

TEST(StatisticsTest, SampleStdev) {
  // Sum of squared deviations from the mean (5) is 32; n - 1 = 7.
  EXPECT_DOUBLE_EQ(stdev(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9}), std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(stdev(std::vector<double>{1, 3}), std::sqrt(2.0));
  EXPECT_EQ(stdev(std::vector<double>{4, 4, 4}), 0.0);
  // Two-pass computation: no cancellation around a large mean.
  EXPECT_DOUBLE_EQ(stdev(std::vector<double>{1e9 + 1, 1e9 + 2, 1e9 + 3}), 1.0);
  EXPECT_EQ(stdev(std::vector<double>{}), 0.0);
  EXPECT_EQ(stdev(std::vector<double>{42}), 0.0);
  EXPECT_TRUE(std::isnan(stdev(std::vector<double>{kNaN})));
  EXPECT_TRUE(std::isnan(stdev(std::vector<double>{1, kNaN})));
}

TEST(StatisticsTest, MinMax) {
  const std::vector<double> v = {3, -2.5, 8, 0};
  EXPECT_EQ(min_of(v), -2.5);
  EXPECT_EQ(max_of(v), 8.0);
  EXPECT_EQ(min_of(std::vector<double>{1}), 1.0);
  EXPECT_EQ(max_of(std::vector<double>{1}), 1.0);
  EXPECT_EQ(max_of(std::vector<double>{1, kInf}), kInf);
  EXPECT_TRUE(std::isnan(min_of(std::vector<double>{})));
  EXPECT_TRUE(std::isnan(max_of(std::vector<double>{})));
  EXPECT_TRUE(std::isnan(min_of(std::vector<double>{1, kNaN})));
  EXPECT_TRUE(std::isnan(max_of(std::vector<double>{kNaN, 1})));
}

TEST(StatisticsTest, ExactPercentileIsNearestRank) {
  // Classic nearest-rank example: 15, 20, 35, 40, 50.
  const std::vector<uint64_t> v = {40, 15, 50, 35, 20};
  EXPECT_EQ(exact_percentile(v, 0), 15.0);
  EXPECT_EQ(exact_percentile(v, 5), 15.0);
  EXPECT_EQ(exact_percentile(v, 20), 15.0);
  EXPECT_EQ(exact_percentile(v, 30), 20.0);
  EXPECT_EQ(exact_percentile(v, 40), 20.0);
  EXPECT_EQ(exact_percentile(v, 50), 35.0);
  EXPECT_EQ(exact_percentile(v, 100), 50.0);

  std::vector<uint64_t> hundred;
  for (uint64_t i = 100; i >= 1; --i) hundred.push_back(i);
  EXPECT_EQ(exact_percentile(hundred, 50), 50.0);
  EXPECT_EQ(exact_percentile(hundred, 99), 99.0);
  EXPECT_EQ(exact_percentile(hundred, 99.5), 100.0);
  EXPECT_EQ(exact_percentile(hundred, 0.5), 1.0);
  EXPECT_EQ(exact_percentile(hundred, 1), 1.0);
  EXPECT_EQ(exact_percentile(hundred, 1.01), 2.0);

  EXPECT_EQ(exact_percentile({7}, 0), 7.0);
  EXPECT_EQ(exact_percentile({7}, 100), 7.0);
  EXPECT_TRUE(std::isnan(exact_percentile({}, 50)));
  EXPECT_THROW(exact_percentile(v, -1), std::invalid_argument);
  EXPECT_THROW(exact_percentile(v, 101), std::invalid_argument);
  EXPECT_THROW(exact_percentile(v, kNaN), std::invalid_argument);
}

TEST(StatisticsTest, Gbps) {
  EXPECT_DOUBLE_EQ(gbps(1250000000, 1.0), 10.0);  // 10^10 bits in one second
  EXPECT_DOUBLE_EQ(gbps(12500000000ULL, 2.0), 50.0);
  EXPECT_DOUBLE_EQ(gbps(1, 1.0), 8e-9);  // no truncation to an integer
  EXPECT_DOUBLE_EQ(gbps(4096, 1e-6), 32.768);
  EXPECT_DOUBLE_EQ(gbps(UINT64_MAX, 1.0), static_cast<double>(UINT64_MAX) * 8 / 1e9);
  EXPECT_EQ(gbps(0, 1.0), 0.0);
  EXPECT_TRUE(std::isnan(gbps(100, 0.0)));
  EXPECT_TRUE(std::isnan(gbps(100, -1.0)));
  EXPECT_TRUE(std::isnan(gbps(100, kNaN)));
}

TEST(StatisticsTest, MessageRate) {
  EXPECT_DOUBLE_EQ(mmsg_per_s(3000000, 2.0), 1.5);
  EXPECT_DOUBLE_EQ(mmsg_per_s(1, 1.0), 1e-6);
  EXPECT_DOUBLE_EQ(mmsg_per_s(500, 1e-3), 0.5);
  EXPECT_TRUE(std::isnan(mmsg_per_s(100, 0.0)));
  EXPECT_TRUE(std::isnan(mmsg_per_s(100, -2.0)));
  EXPECT_TRUE(std::isnan(mmsg_per_s(100, kNaN)));
}

TEST(StatisticsTest, SummarizeConvertsUnits) {
  Histogram h(100000, 0.01);
  std::vector<uint64_t> values;
  for (uint64_t v = 1; v <= 1000; ++v) {
    h.record(v);
    values.push_back(v);
  }
  h.record(200000);  // overflow
  values.push_back(200000);
  const double ns_per_unit = 2.5;
  const LatencySummary s = summarize(h, ns_per_unit);
  EXPECT_EQ(s.count, 1001U);
  EXPECT_EQ(s.overflow, 1U);
  EXPECT_DOUBLE_EQ(s.min, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 200000 * 2.5);
  EXPECT_DOUBLE_EQ(s.mean, h.mean() * ns_per_unit);
  EXPECT_DOUBLE_EQ(s.stdev, h.stdev() * ns_per_unit);
  const std::pair<double, double> percentiles[] = {
      {50, s.p50}, {90, s.p90}, {99, s.p99}, {99.9, s.p999}, {99.99, s.p9999}};
  for (const auto& [p, got] : percentiles) {
    EXPECT_DOUBLE_EQ(got, static_cast<double>(h.value_at_percentile(p)) * ns_per_unit) << p;
    const double exact = exact_percentile(values, p) * ns_per_unit;
    EXPECT_LE(std::abs(got - exact), 0.01 * exact) << p;
  }
  EXPECT_DOUBLE_EQ(s.p9999, 200000 * 2.5);  // rank 1001 is the overflowed value
}

TEST(StatisticsTest, SummarizeDefaultsToNanoseconds) {
  Histogram h;
  h.record(1500);
  const LatencySummary s = summarize(h);
  EXPECT_EQ(s.min, 1500.0);
  EXPECT_EQ(s.p50, 1500.0);
  EXPECT_EQ(s.max, 1500.0);
  EXPECT_EQ(s.stdev, 0.0);
}

TEST(StatisticsTest, SummarizeEmptyIsNaN) {
  const LatencySummary s = summarize(Histogram());
  EXPECT_EQ(s.count, 0U);
  EXPECT_EQ(s.overflow, 0U);
  for (const double v : {s.min, s.max, s.mean, s.stdev, s.p50, s.p90, s.p99, s.p999, s.p9999}) {
    EXPECT_TRUE(std::isnan(v));
  }
}

}  // namespace
}  // namespace rdmabench
