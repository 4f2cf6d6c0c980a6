#pragma once
// What a sweep keeps of a point that ran: its result document (DIR/<id>.json, with the point's
// campaign fields; a failed run's document, if any, in DIR/failed/), both ends' logs
// (DIR/logs/), and its index line; all written atomically. One place for matrix and fabric
// sweeps alike.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "model/campaign_index.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/run/point_runner.h"
#include "orchestrator/run/progress.h"

namespace rdmabench {

class PointRecorder {
 public:
  // `after_failure` (optional) runs after a failed point is recorded, before the sweep goes on
  // (the slurm launcher: is the allocation still there?).
  PointRecorder(const Campaign& c, std::string dir, IndexWriter& writer, Progress& progress,
                std::function<void()> after_failure = {})
      : c_(c),
        dir_(std::move(dir)),
        writer_(writer),
        progress_(progress),
        after_failure_(std::move(after_failure)) {}

  // Returns whether the point succeeded (and its result was written). `extra`: more fields of
  // the document's "point" object (a fabric flow's "fabric").
  bool record(const Point& p, const PointOutcome& o, const nlohmann::json& extra);
  // record(), an error writing it noted on the progress rather than thrown, and the outcome as
  // its driver gets it back (run/campaign_run.h): `ok` when the result was written, the error's
  // first line, the document and logs dropped (they are on disk).
  PointOutcome record_outcome(const Point& p, PointOutcome o, const nlohmann::json& extra);
  // Both ends' logs, DIR/logs/<id>.{server,client}.log (those that are not empty).
  void write_logs(const std::string& id, const PointOutcome& o) const;

 private:
  const Campaign& c_;
  std::string dir_;
  IndexWriter& writer_;
  Progress& progress_;
  std::function<void()> after_failure_;
};

}  // namespace rdmabench
