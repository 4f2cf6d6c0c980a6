#pragma once
// A driver's side of one sweep (campaign_driver.h has its planning side): the runner
// (orchestrator/sweep/) asks it for the next batch of points, runs the batch through the
// launchers, records every point (point_recorder.h), hands the outcomes back, and asks again
// until it has no more; then, unless the sweep was interrupted, for its summary. A driver that
// picks its next points from the results so far (an adaptive search) fits as it is: it returns
// a batch, reads the outcomes, and decides the next one.
//
// A batch runs in one of two ways:
//   - each point on its own (host pairs, a search's samples): up to --jobs at once, at most one
//     point per host at a time, in the batch's order as hosts come free;
//   - as a round (a fabric's): every flow in one window, one server process per server host
//     (`server --sessions K`), the clients started together at the batch's start delay.
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "model/campaign_index.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/run/point_recorder.h"
#include "orchestrator/run/point_runner.h"
#include "orchestrator/run/progress.h"

namespace rdmabench {

struct BatchPoint {
  const Point* point = nullptr;  // owned by the expansion (or by the driver's run, for points it
                                 // makes as it goes)
  HostPair pair;                 // its host pair or link
  std::string server_name;       // a round: the host serving it (one server process per name)
  nlohmann::json fields;         // more members of its result's "point" object ({} for none)
};

struct Batch {
  bool round = false;        // false: each point on its own; true: all at once, as a round
  double start_delay_s = 0;  // a round of more than one flow: its synchronised start (0: at once)
  std::vector<BatchPoint> points;
};

// What the runner gives a driver's run when the sweep starts.
struct RunSetup {
  const Campaign& campaign;
  const Expansion& expansion;
  std::vector<const Point*> todo;  // the points to run now, in expansion order
  std::string dir;                 // the campaign folder
  IndexWriter& writer;             // its index: a driver appends its own records there
  Progress& progress;
  std::ostream& out;
  const std::map<std::string, unsigned>& host_cpus;  // online CPUs by host, where told
  // Each host's clock against this one's, where measured; the runner refreshes it between batches.
  const std::map<std::string, ClockOffset>& clocks;
  // What a driver runs on its own (a fabric's retests): the launchers by host, the token, the
  // stop flag, and the recorder's logs.
  const std::map<std::string, Launcher*>& launchers;
  const std::string& token;
  const std::atomic<bool>& stop;
  PointRecorder& recorder;
  // The ids an earlier sweep finished (--resume): what a driver that makes its points as it goes
  // (a hunt) reads back rather than runs.
  const std::set<std::string>& done_ids;
};

class CampaignRun {
 public:
  CampaignRun() = default;
  CampaignRun(const CampaignRun&) = delete;
  CampaignRun& operator=(const CampaignRun&) = delete;
  virtual ~CampaignRun() = default;

  // The next batch, or nothing when the driver has no more.
  virtual std::optional<Batch> next() = 0;
  // The batch's outcomes, in its order, once every point is recorded: `ok` is whether its
  // result was written; the result document and both ends' logs are not kept (they are on disk).
  virtual void done(const Batch& batch, const std::vector<PointOutcome>& outcomes) = 0;
  // After the last batch of a sweep that was not interrupted: the driver's records and summary
  // lines (a fabric's verdicts, a search's cliffs). Returns the link measurements judged bad
  // (sweep exit status 6), 0 for none.
  virtual size_t finish() { return 0; }
  // After the sweep's line of counts, when it was not interrupted: what follows that line (a
  // search's cliffs, appended to the index too). `setup` may be gone by then.
  virtual void summary(IndexWriter& /*writer*/, std::ostream& /*out*/, std::ostream& /*err*/) {}
};

// The run of a driver that has nothing of its own to do: `setup.todo` as one batch, each point
// on its own.
std::shared_ptr<CampaignRun> each_point_run(const RunSetup& setup);

// The campaign's run: its driver's (CampaignDriver::start_run, or each_point_run when it has
// none), followed, for a search with a cliff rule, by the search's cliffs in its summary. `setup`
// outlives every call but summary().
std::shared_ptr<CampaignRun> start_campaign_run(const RunSetup& setup);

}  // namespace rdmabench
