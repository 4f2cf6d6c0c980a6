#pragma once
// `rdmabench sweep CAMPAIGN.json [--out DIR] [--resume] [--dry-run] [--jobs N]`: the run loop.
//   1. parse and expand the campaign (errors name the JSON path);
//   2. --dry-run: print the points and the commands, touch no host, stop;
//   3. check every host (reachable, its rdmabench runs) and capture its environment once
//      (DIR/env/<host>.json); stop with the host's name if one fails;
//   4. run the batches the driver's run asks for (run/campaign_run.h): each point on its own,
//      at most one run per host at a time, up to N host pairs in parallel, or a round (a
//      fabric's); write DIR/<point_id>.json (atomically) and append to DIR/index.jsonl as each
//      finishes, and hand the outcomes back; then the run's finish (a fabric judges every link);
//   5. on SIGINT/SIGTERM (the `stop` flag): launch nothing more, stop what runs, keep results;
//      the same when the Slurm allocation of a slurm-launcher sweep ends (time limit, scancel).
#include <atomic>
#include <iosfwd>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign_driver.h"

namespace rdmabench {

struct SweepOptions {
  std::string campaign_file;
  std::string out_dir;  // "" = out/<campaign name>
  bool resume = false;
  bool dry_run = false;
  unsigned jobs = 1;
  std::string launcher;  // --launcher: "" = the campaign's "launcher" (ssh by default)
};

// The kinds of campaign a sweep runs besides host pairs (campaign_driver.h): the fabric's.
std::vector<DriverKind> campaign_kinds();

// A fabric sweep whose points all ran but judged a link bad (cli/exit_status.h: kExitBadLink).
inline constexpr int kSweepBadLink = 6;

// Exit status: 0 when every point ran ok (or was skipped as invalid), 1 when a point failed or
// a host check failed or the Slurm allocation ended, kSweepBadLink when all ran but a fabric link
// was judged bad, 130 when interrupted. Throws ConfigError for a bad campaign or options.
int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& stop);

}  // namespace rdmabench
