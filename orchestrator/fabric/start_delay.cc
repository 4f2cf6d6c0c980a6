#include "orchestrator/fabric/start_delay.h"

#include <algorithm>

namespace rdmabench {

double StartDelay::next() const {
  if (fixed_) return *fixed_;
  if (needed_.empty()) return kFirst;
  const double most = *std::max_element(needed_.begin(), needed_.end());
  return std::clamp(2 * most + 0.05, kMin, kMax);
}

void StartDelay::observe(double used, const std::vector<PointOutcome>& outcomes) {
  if (fixed_) return;
  std::optional<double> needed;
  for (const PointOutcome& o : outcomes) {
    if (!o.brief.start_waited_s && !o.brief.start_late_s) continue;
    const double waited = o.brief.start_waited_s.value_or(0.0);
    const double late = o.brief.start_late_s.value_or(0.0);
    const double need = late > 0 ? used + late : used - waited;
    needed = std::max(needed.value_or(0.0), need);
  }
  if (!needed) return;  // nothing measured (one flow, or every flow failed)
  needed_.push_back(*needed);
  if (needed_.size() > 3) needed_.pop_front();
}

}  // namespace rdmabench
