#pragma once
// `rdmabench compare`: is the difference between the repetitions of one measurement in A and in
// B a real change, and is it a regression? Pure functions (tests/unit/compare_test.cc).
//
// The rule (plots/README.md, "compare"):
//   * each side's values (one per repetition) give a median and a min-max range;
//   * each side's band is its min-max range widened, where narrower, to median x (1 +/- f), f
//     the noise floor (default 2 %): a single repetition, or repetitions that happen to agree
//     (latency percentiles come from a histogram with 1 % buckets), still get a band of +/- f;
//   * the change is real when the two bands do not overlap (strictly);
//   * change = (median B - median A) / median A, in percent;
//   * a real change in the bad direction (lower bandwidth or message rate, higher latency) larger
//     than the threshold (default 5 %) is a regression; in the good direction an improvement;
//     a real change within the threshold is "changed"; anything else is "noise".
#include <string_view>
#include <vector>

#include "report/spread.h"

namespace rdmabench {

struct ChangeRule {
  double threshold_pct = 5;    // a real change beyond this is a regression (or improvement)
  double noise_floor_pct = 2;  // smallest half-width of a side's band, relative to its median
};

enum class Verdict { kNoise, kChanged, kRegression, kImprovement };
std::string_view to_string(Verdict v) noexcept;

struct Band {
  double low = 0;
  double high = 0;
};

struct Change {
  Spread a, b;
  Band band_a, band_b;
  double change_pct = 0;  // (b.median - a.median) / a.median * 100; 0 when both medians are 0
  bool real = false;
  Verdict verdict = Verdict::kNoise;
};

// [min(min, median (1 - f)), max(max, median (1 + f))] with f = noise_floor_pct / 100.
Band band_of(const Spread& s, double noise_floor_pct);

// `a` and `b`: one value per repetition (neither empty; std::invalid_argument otherwise).
// higher_is_better: true for bandwidth and message rate, false for latency.
Change judge_change(const std::vector<double>& a, const std::vector<double>& b,
                    bool higher_is_better, const ChangeRule& rule);

}  // namespace rdmabench
