#include "base/clock_calibration.h"

#include <gtest/gtest.h>

#include <vector>

namespace rdmabench {
namespace {

// Calibration samples of a TSC at `hz` (one rate per round), rounds of 100 ms.
std::vector<TscSample> rounds(std::initializer_list<double> hz) {
  std::vector<TscSample> points{{1000000, 5000000000}};
  for (const double f : hz) {
    const TscSample& last = points.back();
    points.push_back({last.tsc + static_cast<uint64_t>(f * 0.1), last.ns + 100000000});
  }
  return points;
}

TEST(ClockCalibrationTest, InvariantTscWhoseRoundsAgreeIsUsedWithoutANote) {
  const TscVerdict v = judge_tsc(true, rounds({3e9, 3e9, 3.000001e9}), 1e-3);
  EXPECT_TRUE(v.use_tsc);
  EXPECT_EQ(v.reason, "");
  EXPECT_NEAR(v.ns_per_tick, 1.0 / 3.0, 1e-6);
  EXPECT_LT(v.spread, 1e-6);
}

// As perftest: a TSC that hides the invariant bit (qemu TCG, several clouds) but runs at one
// rate is used, and the verdict says why.
TEST(ClockCalibrationTest, TscWithoutTheInvariantBitIsUsedWhenItsRoundsAgree) {
  const TscVerdict v = judge_tsc(false, rounds({2.5e9, 2.5e9, 2.5e9}), 1e-3);
  EXPECT_TRUE(v.use_tsc);
  EXPECT_NE(v.reason.find("not advertised invariant"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("3 calibration rounds agreed"), std::string::npos) << v.reason;
  EXPECT_NEAR(v.ns_per_tick, 0.4, 1e-9);
}

TEST(ClockCalibrationTest, RoundsThatDisagreeFallBackNamingTheSpread) {
  const TscVerdict v = judge_tsc(true, rounds({3e9, 3.1e9, 3e9}), 1e-3);
  EXPECT_FALSE(v.use_tsc);
  EXPECT_NE(v.reason.find("inconsistent: rounds differ by 3.33 %"), std::string::npos) << v.reason;
  EXPECT_EQ(v.reason.find("invariant"), std::string::npos) << v.reason;
  const TscVerdict w = judge_tsc(false, rounds({3e9, 3.1e9, 3e9}), 1e-3);
  EXPECT_FALSE(w.use_tsc);
  EXPECT_NE(w.reason.find("inconsistent"), std::string::npos) << w.reason;
  EXPECT_NE(w.reason.find("not advertised invariant"), std::string::npos) << w.reason;
}

TEST(ClockCalibrationTest, ATscThatDoesNotAdvanceOrNoRoundsFallBack) {
  std::vector<TscSample> stuck = {{100, 1000}, {100, 2000}};
  EXPECT_FALSE(judge_tsc(true, stuck, 1e-3).use_tsc);
  EXPECT_NE(judge_tsc(true, stuck, 1e-3).reason.find("did not advance"), std::string::npos);
  std::vector<TscSample> one = {{100, 1000}};
  EXPECT_FALSE(judge_tsc(true, one, 1e-3).use_tsc);
  EXPECT_FALSE(judge_tsc(true, {}, 1e-3).use_tsc);
}

TEST(ClockCalibrationTest, DriftComparesTheRateSinceCalibrationWithTheCalibratedOne) {
  const TscSample start{0, 0};
  // Calibrated at 1 ns per tick; 10 s later the TSC counted 10e9 ticks: steady.
  EXPECT_DOUBLE_EQ(tsc_drift(start, {10000000000, 10000000000}, 1.0), 0.0);
  // It counted 1 % fewer ticks: it ran slower, each tick is 1.0101 ns.
  EXPECT_NEAR(tsc_drift(start, {9900000000, 10000000000}, 1.0), 0.0101, 1e-4);
  // 1 % more ticks: negative drift.
  EXPECT_NEAR(tsc_drift(start, {10100000000, 10000000000}, 1.0), -0.0099, 1e-4);
  // No span: nothing to say.
  EXPECT_EQ(tsc_drift(start, start, 1.0), 0.0);
}

TEST(ClockCalibrationTest, PercentText) {
  EXPECT_EQ(percent_text(0.0333333), "3.33 %");
  EXPECT_EQ(percent_text(1e-3), "0.1 %");
}

}  // namespace
}  // namespace rdmabench
