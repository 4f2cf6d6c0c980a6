#include "base/clock_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace rdmabench {

std::string percent_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %%", fraction * 100.0);
  return text;
}

TscVerdict judge_tsc(bool invariant, std::span<const TscSample> points, double max_spread) {
  TscVerdict v;
  const char* const bit = "the TSC is not advertised invariant (CPUID 0x80000007 EDX bit 8)";
  const auto fail = [&](std::string why) {
    v.reason = invariant ? std::move(why) : why + "; " + bit;
    return v;
  };
  if (points.size() < 2) return fail("TSC calibration took no rounds");
  std::vector<double> hz;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const TscSample& a = points[i];
    const TscSample& b = points[i + 1];
    if (b.tsc <= a.tsc || b.ns <= a.ns) return fail("TSC did not advance during calibration");
    hz.push_back(static_cast<double>(b.tsc - a.tsc) * 1e9 / static_cast<double>(b.ns - a.ns));
  }
  const auto [lo, hi] = std::minmax_element(hz.begin(), hz.end());
  v.spread = (*hi - *lo) / *lo;
  if (v.spread > max_spread)
    return fail("TSC calibration inconsistent: rounds differ by " + percent_text(v.spread) +
                " (limit " + percent_text(max_spread) + ")");
  // The whole calibration span gives the most precise overall estimate.
  const TscSample& first = points.front();
  const TscSample& last = points.back();
  v.use_tsc = true;
  v.ns_per_tick =
      static_cast<double>(last.ns - first.ns) / static_cast<double>(last.tsc - first.tsc);
  if (!invariant)
    v.reason = std::string(bit) + "; used as perftest does: its " + std::to_string(hz.size()) +
               " calibration rounds agreed within " + percent_text(v.spread) +
               ", and the run checks its rate again at the end (clock.drift)";
  return v;
}

double tsc_drift(const TscSample& first, const TscSample& last, double ns_per_tick) {
  if (last.tsc <= first.tsc || last.ns <= first.ns) return 0;
  const double measured =
      static_cast<double>(last.ns - first.ns) / static_cast<double>(last.tsc - first.tsc);
  return (measured - ns_per_tick) / ns_per_tick;
}

}  // namespace rdmabench
