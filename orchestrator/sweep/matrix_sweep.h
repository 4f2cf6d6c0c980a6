#pragma once
// The matrix part of `rdmabench sweep` (a host-pair campaign; a fabric runs fabric_sweep.h's
// rounds instead): up to `jobs` workers, each taking the first point not taken whose two hosts
// run nothing else, running it (point_runner.h) and recording it (point_recorder.h), until none
// is left or the sweep halts. The calling thread redraws the progress bar meanwhile.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/run/point_recorder.h"
#include "orchestrator/run/progress.h"

namespace rdmabench {

struct MatrixSweepContext {
  const Campaign& campaign;
  const std::map<std::string, std::unique_ptr<Launcher>>& launchers;  // by HostSpec::host
  const std::string& token;
  const std::atomic<bool>& stop;
  PointRecorder& recorder;
  Progress& progress;
  unsigned jobs;  // --jobs: workers at most (one at least, however few the points)
};

struct MatrixSweepOutcome {
  size_t finished = 0;  // points run
  size_t failed = 0;
};

MatrixSweepOutcome run_matrix_sweep(const std::vector<const Point*>& todo,
                                    const MatrixSweepContext& ctx);

}  // namespace rdmabench
