#pragma once
// A batch run as a round (run/campaign_run.h; a fabric's): every flow in one measurement
// window. The round's server hosts each start one `rdmabench server --sessions K` (K: the flows
// it serves), all at once; when every ready line is in, every client starts, at once; then the
// round waits for all of them.
// A server that fails to start fails its own flows only; the others run. Everything is bounded
// by the campaign's timeout_s and the stop flag; at the end every process of the round is gone.
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/run/point_runner.h"

namespace rdmabench {

struct RoundFlow {
  const Point* point = nullptr;
  HostPair link;            // the flow's link: both ends and the connect address
  std::string server_name;  // the fabric host serving it (one server process each)
};

struct RoundContext {
  std::map<std::string, Launcher*> launchers;  // by HostSpec::host
  std::string token;
  double timeout_s = 300;
  const std::atomic<bool>& stop;
  // The synchronised start: with more than one flow, every client is told to start its first
  // size `start_delay_s` after the clients are launched (`client --start-at`), on its own
  // clock: the controller's time plus the client host's offset from `clocks`. 0: at once.
  double start_delay_s = 0;
  const std::map<std::string, ClockOffset>* clocks = nullptr;  // by HostSpec::host
};

// The outcomes, in the order of `flows`.
std::vector<PointOutcome> run_round(const std::vector<RoundFlow>& flows, const RoundContext& ctx);

}  // namespace rdmabench
