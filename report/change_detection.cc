#include "report/change_detection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rdmabench {

std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::kNoise:
      return "noise";
    case Verdict::kChanged:
      return "changed";
    case Verdict::kRegression:
      return "regression";
    case Verdict::kImprovement:
      return "improvement";
  }
  return "?";
}

Band band_of(const Spread& s, double noise_floor_pct) {
  const double f = noise_floor_pct / 100.0;
  const double lo = s.median - std::abs(s.median) * f;
  const double hi = s.median + std::abs(s.median) * f;
  return {std::min(s.min, lo), std::max(s.max, hi)};
}

Change judge_change(const std::vector<double>& a, const std::vector<double>& b,
                    bool higher_is_better, const ChangeRule& rule) {
  if (a.empty() || b.empty()) throw std::invalid_argument("judge_change: a side has no values");
  Change c;
  c.a = spread_of(a);
  c.b = spread_of(b);
  c.band_a = band_of(c.a, rule.noise_floor_pct);
  c.band_b = band_of(c.b, rule.noise_floor_pct);
  if (c.a.median != 0) {
    c.change_pct = (c.b.median - c.a.median) / std::abs(c.a.median) * 100.0;
  } else if (c.b.median != 0) {
    c.change_pct = std::copysign(std::numeric_limits<double>::infinity(), c.b.median);
  }
  c.real = c.band_b.high < c.band_a.low || c.band_b.low > c.band_a.high;
  if (!c.real) {
    c.verdict = Verdict::kNoise;
    return c;
  }
  const bool worse = higher_is_better ? c.b.median < c.a.median : c.b.median > c.a.median;
  if (std::abs(c.change_pct) <= rule.threshold_pct)
    c.verdict = Verdict::kChanged;
  else
    c.verdict = worse ? Verdict::kRegression : Verdict::kImprovement;
  return c;
}

}  // namespace rdmabench
