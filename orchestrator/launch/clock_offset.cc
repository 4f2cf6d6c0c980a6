#include "orchestrator/launch/clock_offset.h"

#include <cstdlib>

#include "base/error.h"
#include "base/utc_time.h"

namespace rdmabench {

std::optional<ClockOffset> best_offset(const std::vector<ClockSample>& samples) {
  const ClockSample* best = nullptr;
  for (const ClockSample& s : samples)
    if (best == nullptr || s.received_s - s.sent_s < best->received_s - best->sent_s) best = &s;
  if (best == nullptr) return std::nullopt;
  return ClockOffset{best->host_s - (best->sent_s + best->received_s) / 2,
                     (best->received_s - best->sent_s) / 2, static_cast<unsigned>(samples.size())};
}

ClockOffset measure_clock_offset(Launcher& l, unsigned samples, double timeout_s) {
  std::vector<ClockSample> got;
  std::string why;
  for (unsigned i = 0; i < samples; ++i) {
    ClockSample s;
    s.sent_s = realtime_unix_s();
    const CommandOutput r = l.run({"date", "+%s.%N"}, timeout_s);
    s.received_s = realtime_unix_s();
    char* end = nullptr;
    s.host_s = std::strtod(r.out.c_str(), &end);
    if (r.status != 0 || r.timed_out || end == r.out.c_str() || s.host_s <= 0) {
      why = r.timed_out
                ? "timed out"
                : "exit status " + std::to_string(r.status) + ", '" + r.out.substr(0, 40) + "'";
      continue;
    }
    got.push_back(s);
  }
  const std::optional<ClockOffset> best = best_offset(got);
  if (!best) throw Error(l.host() + ": cannot read its clock with 'date +%s.%N' (" + why + ")");
  return *best;
}

}  // namespace rdmabench
