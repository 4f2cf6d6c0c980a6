#include "base/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using testutil::ScopedEnv;

// Elapsed time measured by `clock` and by CLOCK_MONOTONIC over the same interval.
std::pair<double, double> measure(const Clock& clock, std::chrono::milliseconds interval) {
  const uint64_t mono0 = Clock::monotonic_ns();
  const uint64_t t0 = clock.now();
  std::this_thread::sleep_for(interval);
  const uint64_t t1 = clock.now();
  const uint64_t mono1 = Clock::monotonic_ns();
  return {clock.to_ns(t1 - t0), static_cast<double>(mono1 - mono0)};
}

void expect_fallback(const Clock& clock) {
  EXPECT_FALSE(clock.is_tsc());
  EXPECT_EQ(clock.source(), "clock_gettime");
  EXPECT_FALSE(clock.fallback_reason().empty());
  EXPECT_EQ(clock.ns_per_tick(), 1.0);
  EXPECT_EQ(clock.tsc_hz(), 0.0);
}

TEST(ClockTest, CalibratedClockAgreesWithMonotonicOverOneSecond) {
  const Clock clock = Clock::calibrate();
  RecordProperty("source", clock.source());
  if (clock.is_tsc()) {
    EXPECT_EQ(clock.source(), "tsc");
    EXPECT_EQ(clock.fallback_reason(), "");
    EXPECT_GT(clock.tsc_hz(), 1e8);
    EXPECT_DOUBLE_EQ(clock.ns_per_tick() * clock.tsc_hz(), 1e9);
  } else {
    std::cout << "calibrate() fell back: " << clock.fallback_reason() << "\n";
    expect_fallback(clock);
  }
  const auto [clock_ns, monotonic_ns] = measure(clock, std::chrono::seconds(1));
  ASSERT_GT(monotonic_ns, 0.9e9);
  EXPECT_LE(std::abs(clock_ns - monotonic_ns), 1e-3 * monotonic_ns)
      << "source=" << clock.source() << " clock=" << clock_ns << " monotonic=" << monotonic_ns;
}

// The TSC is used whether or not CPUID advertises it invariant, when its calibration agrees;
// without the bit the clock says why it is used anyway; a fallback always says why.
TEST(ClockTest, TscIsUsedWhenItsCalibrationAgreesUnlessDisabled) {
  const ScopedEnv env("RDMABENCH_CLOCK", nullptr);
  const Clock clock = Clock::calibrate(std::chrono::milliseconds(60));
  EXPECT_EQ(clock.invariant_tsc(), Clock::has_invariant_tsc());
  if (clock.is_tsc()) {
    EXPECT_EQ(clock.fallback_reason(), "");
    if (clock.invariant_tsc()) {
      EXPECT_EQ(clock.tsc_note(), "");
    } else {
      EXPECT_NE(clock.tsc_note().find("not advertised invariant"), std::string::npos)
          << clock.tsc_note();
    }
  } else {
    // Allowed only with a documented reason (e.g. an inconsistent calibration on a busy VM).
    EXPECT_NE(clock.fallback_reason().find("calibration"), std::string::npos)
        << clock.fallback_reason();
    EXPECT_EQ(clock.tsc_note(), "");
  }
}

// Both sources measure what one read costs; a TSC checked again after a while has not drifted.
TEST(ClockTest, ReadCostIsMeasuredAndASteadyTscHasNoDrift) {
  for (const Clock& clock : {Clock::calibrate(std::chrono::milliseconds(60)), Clock::monotonic()}) {
    EXPECT_GT(clock.read_cost_ns(), 0.0) << clock.source();
    EXPECT_LT(clock.read_cost_ns(), 1e6) << clock.source();
  }
  const Clock clock = Clock::calibrate(std::chrono::milliseconds(60));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  if (clock.is_tsc()) {
    EXPECT_LE(std::abs(clock.drift()), Clock::kMaxSpread) << clock.drift();
  } else {
    EXPECT_EQ(clock.drift(), 0.0);
  }
  EXPECT_EQ(Clock::monotonic().drift(), 0.0);
}

TEST(ClockTest, MonotonicReportsFallbackWithReason) {
  const Clock clock = Clock::monotonic();
  expect_fallback(clock);
  const uint64_t before = Clock::monotonic_ns();
  const uint64_t now = clock.now();
  const uint64_t after = Clock::monotonic_ns();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
  EXPECT_EQ(clock.to_ns(12345), 12345.0);
}

TEST(ClockTest, EnvironmentForcesMonotonic) {
  {
    const ScopedEnv env("RDMABENCH_CLOCK", "monotonic");
    const Clock clock = Clock::calibrate(std::chrono::milliseconds(30));
    expect_fallback(clock);
    EXPECT_NE(clock.fallback_reason().find("RDMABENCH_CLOCK"), std::string::npos)
        << clock.fallback_reason();
  }
  {
    // Any other value does not force the fallback.
    const ScopedEnv env("RDMABENCH_CLOCK", "tsc");
    const Clock clock = Clock::calibrate(std::chrono::milliseconds(30));
    EXPECT_EQ(clock.fallback_reason().find("RDMABENCH_CLOCK"), std::string::npos);
  }
}

TEST(ClockTest, NowIsNonDecreasing) {
  for (const Clock& clock : {Clock::calibrate(std::chrono::milliseconds(30)), Clock::monotonic()}) {
    uint64_t previous = clock.now();
    for (int i = 0; i < 1000000; ++i) {
      const uint64_t t = clock.now();
      ASSERT_GE(t, previous) << clock.source() << " at iteration " << i;
      previous = t;
    }
  }
}

TEST(ClockTest, ToNsScalesByNsPerTick) {
  const Clock clock = Clock::calibrate(std::chrono::milliseconds(30));
  EXPECT_EQ(clock.to_ns(0), 0.0);
  EXPECT_DOUBLE_EQ(clock.to_ns(1000000), 1000000 * clock.ns_per_tick());
  EXPECT_GT(clock.ns_per_tick(), 0.0);
}

}  // namespace
}  // namespace rdmabench
