#include "base/clock.h"

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
// Reads the TSC bracketed by two CLOCK_MONOTONIC reads and keeps the tightest of a few
// attempts, so that preemption between the reads does not skew the pairing.
TscSample sample() {
  TscSample best{};
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

Clock Clock::fallback(std::string reason, bool invariant) {
  Clock c(false, 1.0, "clock_gettime", std::move(reason));
  c.invariant_ = invariant;
  c.measure_read_cost();
  return c;
}

void Clock::measure_read_cost() {
  // Back-to-back reads (RDTSC and clock_gettime are never elided), timed by this clock itself;
  // the best of a few rounds, as preemption only adds.
  constexpr int kReads = 1000;
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    const uint64_t t0 = now();
    for (int i = 0; i < kReads; ++i) (void)now();
    const uint64_t t1 = now();
    const double per_read = to_ns(t1 - t0) / (kReads + 1);
    if (round == 0 || per_read < best) best = per_read;
  }
  read_cost_ns_ = best;
}

double Clock::drift() const {
#if RDMABENCH_HAVE_TSC
  if (is_tsc_) return tsc_drift(start_, sample(), ns_per_tick_);
#endif
  return 0;
}

Clock Clock::calibrate(std::chrono::milliseconds duration) {
  if (const char* env = std::getenv("RDMABENCH_CLOCK");
      env != nullptr && std::string_view(env) == "monotonic") {
    return fallback("RDMABENCH_CLOCK=monotonic");
  }
#if RDMABENCH_HAVE_TSC
  const bool invariant = has_invariant_tsc();
  const auto round_length = std::max(duration / kCalibrationRounds, std::chrono::milliseconds(1));
  std::array<TscSample, kCalibrationRounds + 1> points{};
  points[0] = sample();
  for (int i = 1; i <= kCalibrationRounds; ++i) {
    std::this_thread::sleep_for(round_length);
    points[i] = sample();
  }
  TscVerdict v = judge_tsc(invariant, points, kMaxSpread);
  if (!v.use_tsc) return fallback(std::move(v.reason), invariant);
  Clock c(true, v.ns_per_tick, "tsc", "");
  c.invariant_ = invariant;
  c.tsc_note_ = std::move(v.reason);
  c.start_ = points.front();
  c.measure_read_cost();
  return c;
#else
  (void)duration;
  return fallback("no TSC on this architecture", false);
#endif
}

}  // namespace rdmabench
