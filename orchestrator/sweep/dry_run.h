#pragma once
// The --dry-run listing: every expanded point (id, host pair, workload, skipped + reason) and
// the exact commands that would run where. Touches no host.
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/launch/launcher.h"

namespace rdmabench {

void print_dry_run(std::ostream& out, const Campaign& c, const Expansion& x,
                   const std::map<std::string, std::unique_ptr<Launcher>>& launchers,
                   const std::set<std::string>& done, const std::string& out_dir);

}  // namespace rdmabench
