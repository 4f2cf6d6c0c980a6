// Timestamp source for latency measurement: the CPU time-stamp counter when its calibration
// rounds against CLOCK_MONOTONIC agree on one rate (invariant TSC or not, as perftest:
// clock_calibration.h), else clock_gettime(CLOCK_MONOTONIC). Either way the cost of one read
// is measured at calibration (read_cost_ns()), and drift() checks the TSC's rate again later.
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

#include "base/clock_calibration.h"

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

  // Uses the TSC if RDMABENCH_CLOCK is not "monotonic" and kCalibrationRounds measurements
  // over `duration` in total agree within kMaxSpread (judge_tsc); without the invariant-TSC
  // bit, tsc_note() says why it is used anyway. Otherwise returns the clock_gettime fallback
  // with fallback_reason() set. Sleeps (does not spin) for about `duration`.
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
  // Whether CPUID advertised an invariant TSC when calibrated.
  [[nodiscard]] bool invariant_tsc() const noexcept { return invariant_; }
  // TSC used without the invariant bit: why (the calibration's agreement); "" otherwise.
  [[nodiscard]] const std::string& tsc_note() const noexcept { return tsc_note_; }
  // What one now() costs, in ns (the mean of back-to-back reads, best of a few rounds).
  [[nodiscard]] double read_cost_ns() const noexcept { return read_cost_ns_; }
  // The TSC's rate since calibration against the calibrated one (tsc_drift); 0 for the
  // fallback. |drift| > kMaxSpread means the TSC did not run steadily: its figures are off.
  [[nodiscard]] double drift() const;

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
  static Clock fallback(std::string reason, bool invariant = has_invariant_tsc());
  void measure_read_cost();

  bool is_tsc_;
  double ns_per_tick_;
  std::string source_;
  std::string fallback_reason_;
  std::string tsc_note_;
  bool invariant_ = false;
  double read_cost_ns_ = 0;
  TscSample start_{};  // TSC: the calibration's first sample, for drift()
};

}  // namespace rdmabench
