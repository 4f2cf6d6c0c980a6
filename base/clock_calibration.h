// The TSC calibration's decision, as pure functions over paired samples (TSC and
// CLOCK_MONOTONIC read at the same instant), so that every branch is unit-tested without
// depending on the CPU the tests run on.
//
// The TSC is used when its calibration rounds agree on one rate within a tolerance — with the
// invariant-TSC bit (CPUID 0x80000007 EDX bit 8) or without it, as perftest always uses it:
// many virtual machines (qemu TCG, several clouds) hide the bit although their TSC runs at a
// steady rate. Without the bit the decision says so (TscVerdict::note), and the run checks at
// its end that the rate still holds (tsc_drift); otherwise clock_gettime is the fallback, with
// its reason.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace rdmabench {

struct TscSample {
  uint64_t tsc;
  uint64_t ns;  // CLOCK_MONOTONIC at the same instant
};

struct TscVerdict {
  bool use_tsc = false;
  double ns_per_tick = 1.0;  // over the whole calibration span, when use_tsc
  double spread = 0;         // (fastest - slowest) / slowest of the rounds' rates
  std::string reason;        // fallback: why not; TSC without the invariant bit: why anyway
};

// Judges calibration samples points[0..rounds] (each round spans two consecutive points):
// the rounds' rates must agree within `max_spread`.
TscVerdict judge_tsc(bool invariant, std::span<const TscSample> points, double max_spread);

// Relative difference between the TSC rate measured from `first` to `last` and `ns_per_tick`
// (signed: positive when the TSC ran slower than calibrated). 0 when the span is empty.
double tsc_drift(const TscSample& first, const TscSample& last, double ns_per_tick);

// "0.012 %"-style text of a fraction.
std::string percent_text(double fraction);

}  // namespace rdmabench
