#pragma once
// A batch whose points run each on its own (run/campaign_run.h): up to `jobs` workers, each
// taking the first point not taken whose two hosts run nothing else, running it
// (run/point_runner.h) and recording it (run/point_recorder.h), until none is left or the sweep
// halts. The calling thread redraws the progress bar meanwhile.
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "orchestrator/launch/launcher.h"
#include "orchestrator/run/campaign_run.h"
#include "orchestrator/run/point_recorder.h"
#include "orchestrator/run/progress.h"

namespace rdmabench {

struct PointPoolContext {
  const std::map<std::string, Launcher*>& launchers;  // by HostSpec::host
  const std::string& token;
  double timeout_s;  // per point
  const std::atomic<bool>& stop;
  PointRecorder& recorder;
  Progress& progress;
  unsigned jobs;  // --jobs: workers at most (one at least, however few the points)
};

struct BatchOutcome {
  std::vector<PointOutcome> outcomes;  // by the batch's order, documents and logs dropped
  size_t finished = 0;                 // points run and recorded
  size_t failed = 0;                   // of them, those that failed
};

// A point the sweep halted before it ran is not recorded; its outcome says "not run".
BatchOutcome run_each_point(const Batch& batch, const PointPoolContext& ctx);

}  // namespace rdmabench
