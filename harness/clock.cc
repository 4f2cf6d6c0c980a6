#include "harness/clock.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <utility>

#if RDMABENCH_HAVE_TSC
#include <cpuid.h>
#endif

namespace rdmabench {
namespace {

#if RDMABENCH_HAVE_TSC
struct SamplePoint {
  uint64_t tsc;
  uint64_t ns;  // CLOCK_MONOTONIC at the same instant (midpoint of the bracketing reads)
};

// Reads the TSC bracketed by two CLOCK_MONOTONIC reads and keeps the tightest of a few
// attempts, so that preemption between the reads does not skew the pairing.
SamplePoint sample() {
  SamplePoint best{};
  uint64_t best_window = UINT64_MAX;
  for (int i = 0; i < 16; ++i) {
    const uint64_t before = Clock::monotonic_ns();
    const uint64_t tsc = __rdtsc();
    const uint64_t after = Clock::monotonic_ns();
    if (after - before < best_window) {
      best_window = after - before;
      best = {tsc, before + (after - before) / 2};
    }
  }
  return best;
}
#endif

std::string percent(double fraction) { return std::to_string(fraction * 100.0) + " %"; }

}  // namespace

bool Clock::has_invariant_tsc() noexcept {
#if RDMABENCH_HAVE_TSC
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  // unsigned in GCC's <cpuid.h>, int in clang's.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000U, nullptr)) < 0x80000007U) {
    return false;
  }
  if (__get_cpuid(0x80000007U, &eax, &ebx, &ecx, &edx) == 0) {
    return false;
  }
  return (edx & (1U << 8)) != 0;
#else
  return false;
#endif
}

Clock Clock::monotonic() { return fallback("forced by Clock::monotonic()"); }

Clock Clock::fallback(std::string reason) {
  return Clock(false, 1.0, "clock_gettime", std::move(reason));
}

Clock Clock::calibrate(std::chrono::milliseconds duration) {
  if (const char* env = std::getenv("RDMABENCH_CLOCK");
      env != nullptr && std::string_view(env) == "monotonic") {
    return fallback("RDMABENCH_CLOCK=monotonic");
  }
#if RDMABENCH_HAVE_TSC
  if (!has_invariant_tsc()) {
    return fallback("TSC is not invariant (CPUID 0x80000007 EDX bit 8)");
  }
  const auto round_length = std::max(duration / kCalibrationRounds, std::chrono::milliseconds(1));
  std::array<SamplePoint, kCalibrationRounds + 1> points{};
  points[0] = sample();
  for (int i = 1; i <= kCalibrationRounds; ++i) {
    std::this_thread::sleep_for(round_length);
    points[i] = sample();
  }
  std::array<double, kCalibrationRounds> hz{};
  for (int i = 0; i < kCalibrationRounds; ++i) {
    const SamplePoint& a = points[i];
    const SamplePoint& b = points[i + 1];
    if (b.tsc <= a.tsc || b.ns <= a.ns) {
      return fallback("TSC did not advance during calibration");
    }
    hz[i] = static_cast<double>(b.tsc - a.tsc) * 1e9 / static_cast<double>(b.ns - a.ns);
  }
  const auto [lo, hi] = std::minmax_element(hz.begin(), hz.end());
  const double spread = (*hi - *lo) / *lo;
  if (spread > kMaxSpread) {
    return fallback("TSC calibration inconsistent: rounds differ by " + percent(spread) +
                    " (limit " + percent(kMaxSpread) + ")");
  }
  // The whole calibration span gives the most precise overall estimate.
  const SamplePoint& first = points.front();
  const SamplePoint& last = points.back();
  const double ns_per_tick =
      static_cast<double>(last.ns - first.ns) / static_cast<double>(last.tsc - first.tsc);
  return Clock(true, ns_per_tick, "tsc", "");
#else
  (void)duration;
  return fallback("no TSC on this architecture");
#endif
}

}  // namespace rdmabench
