// Timestamp source for latency measurement: the CPU time-stamp counter when it is invariant
// and calibrates consistently against CLOCK_MONOTONIC, else clock_gettime(CLOCK_MONOTONIC).
//
// now() returns raw ticks; convert differences with to_ns(), or record ticks in a Histogram
// and pass ns_per_tick() to summarize().
//
// TSC reads use plain RDTSC (__rdtsc), not RDTSCP: it is cheaper, and the only ordering
// issue (RDTSC may execute a few tens of cycles before preceding instructions retire) is
// negligible against microsecond-scale RDMA latencies. Invariant TSCs are synchronised
// across cores by the kernel, so readings taken on different cores may be subtracted.
//
// Setting the environment variable RDMABENCH_CLOCK=monotonic makes calibrate() use the
// fallback.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RDMABENCH_HAVE_TSC 1
#else
#define RDMABENCH_HAVE_TSC 0
#endif

namespace rdmabench {

class Clock {
 public:
  // Number of calibration rounds; their TSC frequencies must agree within kMaxSpread.
  static constexpr int kCalibrationRounds = 3;
  static constexpr double kMaxSpread = 1e-3;

  // Uses the TSC if it is invariant (CPUID 0x80000007 EDX bit 8), RDMABENCH_CLOCK is not
  // "monotonic", and kCalibrationRounds measurements over `duration` in total agree within
  // kMaxSpread; otherwise returns the clock_gettime fallback with fallback_reason() set.
  // Sleeps (does not spin) for about `duration`.
  static Clock calibrate(std::chrono::milliseconds duration = std::chrono::milliseconds(200));
  // The clock_gettime(CLOCK_MONOTONIC) clock, always.
  static Clock monotonic();

  [[nodiscard]] uint64_t now() const noexcept {
#if RDMABENCH_HAVE_TSC
    if (is_tsc_) {
      return __rdtsc();
    }
#endif
    return monotonic_ns();
  }
  [[nodiscard]] double ns_per_tick() const noexcept { return ns_per_tick_; }
  [[nodiscard]] double to_ns(uint64_t ticks) const noexcept {
    return static_cast<double>(ticks) * ns_per_tick_;
  }
  [[nodiscard]] bool is_tsc() const noexcept { return is_tsc_; }
  // "tsc" or "clock_gettime".
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  [[nodiscard]] const std::string& fallback_reason() const noexcept { return fallback_reason_; }
  [[nodiscard]] double tsc_hz() const noexcept { return is_tsc_ ? 1e9 / ns_per_tick_ : 0.0; }

  // CLOCK_MONOTONIC in nanoseconds.
  static uint64_t monotonic_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
  }
  // Whether CPUID reports an invariant TSC (false on non-x86).
  static bool has_invariant_tsc() noexcept;

 private:
  Clock(bool is_tsc, double ns_per_tick, std::string source, std::string fallback_reason)
      : is_tsc_(is_tsc),
        ns_per_tick_(ns_per_tick),
        source_(std::move(source)),
        fallback_reason_(std::move(fallback_reason)) {}
  static Clock fallback(std::string reason);

  bool is_tsc_;
  double ns_per_tick_;
  std::string source_;
  std::string fallback_reason_;
};

}  // namespace rdmabench
