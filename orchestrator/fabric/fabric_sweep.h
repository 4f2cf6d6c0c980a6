#pragma once
// The fabric part of `rdmabench sweep`: the rounds still to run, one after another (fabric_run.h
// groups them, round_runner.h runs one), each flow recorded as a point and each round as a round
// record (round_summary.h); then, over every flow of the campaign that has a result (this run's
// and earlier ones'), the per-link verdicts (fabric_verdicts.h), each suspect measured again
// alone (DIR/retest/<point id>-alone.json), appended to index.jsonl as a {"record": "verdicts"}
// line and printed.
#include <atomic>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "model/campaign_index.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/run/point_recorder.h"
#include "orchestrator/run/progress.h"

namespace rdmabench {

struct FabricSweepContext {
  const Campaign& campaign;
  const Expansion& expansion;
  std::string dir;
  std::map<std::string, Launcher*> launchers;      // by HostSpec::host
  std::map<std::string, unsigned> host_cpus;       // online CPUs, where told
  std::map<std::string, ClockOffset> host_clocks;  // clock offsets, where measured
  std::string token;
  const std::atomic<bool>& stop;
  PointRecorder& recorder;
  IndexWriter& writer;
  Progress& progress;
  std::ostream& out;
  // After each round, with the clock offsets the rounds use: may measure them again and update
  // them (a long campaign through agents: sweep/agent_checks.cc). Optional.
  std::function<void(std::map<std::string, ClockOffset>&)> between_rounds = nullptr;
};

struct FabricSweepOutcome {
  size_t finished = 0;  // points run (flows)
  size_t failed = 0;
  size_t bad_links = 0;  // link measurements judged bad (after their retest) or lossy: exit 6
};

FabricSweepOutcome run_fabric_sweep(const std::vector<const Point*>& todo,
                                    const FabricSweepContext& ctx);

}  // namespace rdmabench
