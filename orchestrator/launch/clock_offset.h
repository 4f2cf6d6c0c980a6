#pragma once
// Each host's clock against the controller's, measured as NTP does over the control connection
// (issue 18): the controller notes its clock, has the host print its own (`date +%s.%N` through
// the launcher), and notes its clock again; the host's offset is its reading minus the midpoint,
// within half the round trip. Of a few samples the one with the shortest round trip counts (the
// one least delayed on its way). Fabric rounds correct each flow's measurement window by its
// client host's offset before they compare windows of different hosts.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/host_env_record.h"
#include "orchestrator/launch/launcher.h"

namespace rdmabench {

struct ClockSample {
  double sent_s = 0;      // the controller's clock before asking
  double host_s = 0;      // the host's answer
  double received_s = 0;  // the controller's clock after the answer
};

// ClockOffset, and its records (a host's env file, the index's clock_offsets record):
// model/host_env_record.h.

// The shortest round trip's offset; nullopt for no samples.
std::optional<ClockOffset> best_offset(const std::vector<ClockSample>& samples);

// `samples` readings through `l`; throws Error naming the host when none could be read.
ClockOffset measure_clock_offset(Launcher& l, unsigned samples, double timeout_s);

}  // namespace rdmabench
