#pragma once
// A fabric round's start delay (fabric.start_delay_s): how long after its clients are started
// every flow of the round begins, at one instant on every host's clock. A number is used as it
// is; "auto" (the default) follows what the rounds measure: each client says how long it waited
// for the start, or how late it was (its result's setup.start), so the round needed `delay -
// least wait` (or `delay + most late`). The next round's delay is twice the most any of the
// last three rounds needed, plus 50 ms, from 50 ms to 30 s; the first round's is 3 s.
#include <deque>
#include <optional>
#include <vector>

#include "orchestrator/run/point_runner.h"

namespace rdmabench {

class StartDelay {
 public:
  static constexpr double kFirst = 3, kMin = 0.05, kMax = 30;
  explicit StartDelay(std::optional<double> fixed) : fixed_(fixed) {}
  double next() const;
  // What a round that used `used` seconds measured (its outcomes' result documents).
  void observe(double used, const std::vector<PointOutcome>& outcomes);

 private:
  std::optional<double> fixed_;
  std::deque<double> needed_;  // the last rounds' needs, newest last
};

}  // namespace rdmabench
